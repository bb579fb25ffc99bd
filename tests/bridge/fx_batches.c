/*
 * fx_batches.c - a monitor that takes its method calls in batches (IJevmonCallBatches,
 * docs/call-batches.md) and checks what the bridge hands it; tests/bridge/test_call_batches.c
 * runs it on real JVMs.
 *
 * It asks for METHOD_CALLS | THREADS with the initialization options that let the bridge
 * instrument method calls (0x3a, as bench/bench.sh registers callcount and fx_silent; the agent
 * option methods=jvmti keeps JVMTI events), gets IJevmonCallBatches from its IDInfo in Initialize
 * and registers its own IJevmonCallBatchCallback.  It counts every record by method and kind, and
 * checks the design's promises as the batches come:
 *   - a thread's records' ticks never decrease, within a batch and from one batch to the next;
 *   - no batch of a thread comes before its THREAD_CREATE, nor after its THREAD_DESTROY (until a
 *     THREAD_CREATE reuses its ThreadID), nor while its THREAD_DESTROY is delivered;
 *   - two batches of one thread never run at once;
 *   - every record has a method and one of the three kinds;
 *   - no batch comes after SHUTDOWN, and MethodEntry, MethodExit and MethodExit2 never come;
 *   - FlushCallBatches inside OnCallBatch returns E_UNEXPECTED (asked once, in the first batch).
 * FXBATCH_FLUSH_MS=N: a thread of its own calls FlushCallBatches every N milliseconds from
 * INITIALIZED to SHUTDOWN, so that batches also come on another thread than their own.
 *
 * Its lines, in the file FXMON_LOG names (fx_log.h), all start with "batches ":
 *   setup QueryInterface=<hr> DeliverCallsInBatches=<hr>       in Initialize
 *   flush-inside hr=<hr>                                         in the first batch
 *   violation <what>                                             each broken promise, as found (the first 20)
 * and at SHUTDOWN, once every batch has come:
 *   method <name> entered=<n> returned=<n> unwound=<n>          each method whose name starts with one of
 *                                                                the prefixes FXBATCH_METHODS lists (commas
 *                                                                between), MethodIDs of one name added up
 *   totals batches=<n> empty=<n> largest=<n> records=<n> entered=<n> returned=<n> unwound=<n> by-flusher=<n>
 *   threads with-records=<n> ended-after-records=<n>
 *   flusher flushes=<n> failed=<n>
 *   checked violations=<n>
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <initguid.h>

#include "jevmon.h"
#include "jevmon_register.h"
#include "platform/platform.h"
#include "fx_factory.h"
#include "fx_log.h"
#include "fx_monitor_parts.h"

DEFINE_GUID(CLSID_FxBatches, 0xBD3CFA34, 0xDC97, 0x41CB, 0xB5, 0xA5, 0xBE, 0x48, 0x42, 0x8D, 0x8C, 0xEF);

/* GC_SAFE | WONT_TOGGLE (the bridge instruments method calls) | both DONT_NEED_ALLOCATION options. */
#define INSTRUMENTED_OPTIONS 0x3a
#define BUCKETS 4096
#define VIOLATION_LINES 20

/* What one ThreadID's batches showed.  Kept until the monitor goes: a batch in flight may still
 * hold it, and an ended thread's ID comes back for a new thread. */
typedef struct thread_state {
    ThreadID id;
    atomic_int in_batch;           /* an OnCallBatch of this thread is running */
    int created;                   /* its THREAD_CREATE came */
    int ended;                     /* its THREAD_DESTROY came, and no THREAD_CREATE since */
    ULONGLONG last_ticks;          /* of its last record */
    unsigned long long records;    /* since its THREAD_CREATE */
    struct thread_state *next;
} thread_state;

typedef struct method_count {
    MethodID id;
    unsigned long long by_kind[3]; /* entered, returned, unwound */
    struct method_count *next;
} method_count;

typedef struct fx_batches {
    IJavaEventMonitor2 IJavaEventMonitor2_iface;
    IJevmonCallBatchCallback IJevmonCallBatchCallback_iface;
    LONG ref;
    IJavaEventMonitorIDInfo *info;
    IJevmonCallBatches *batches;
    plat_mutex *lock; /* the tables and counts below, to the flusher's */
    thread_state *threads[BUCKETS];
    method_count *methods[BUCKETS];
    unsigned long long batch_count, empty_batches, largest_batch, records, by_kind[3], by_flusher;
    long threads_with_records, ended_after_records, violations;
    int shut_down;
    atomic_int flush_inside_asked;
    /* FXBATCH_FLUSH_MS's thread */
    unsigned flush_ms;
    plat_event *stop_flushing;
    plat_thread *flusher;
    atomic_long flushes, failed_flushes;
} fx_batches;

/* Set on the flusher's thread: the batches it runs were handed over from other threads. */
static _Thread_local int on_flusher_thread;

static inline fx_batches *impl_from_IJavaEventMonitor2(IJavaEventMonitor2 *iface)
{
    return (fx_batches *)((char *)iface - offsetof(fx_batches, IJavaEventMonitor2_iface));
}

static inline fx_batches *impl_from_IJevmonCallBatchCallback(IJevmonCallBatchCallback *iface)
{
    return (fx_batches *)((char *)iface - offsetof(fx_batches, IJevmonCallBatchCallback_iface));
}

static size_t bucket_of(UniqueID id)
{
    return (size_t)((id * 0x9E3779B97F4A7C15ull) >> 52) % BUCKETS;
}

/* ---- The checks (under m->lock) ----------------------------------------------------------- */

/* Counts a broken promise; the first ones are logged as found. */
static void violation(fx_batches *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void violation(fx_batches *m, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    if (m->violations++ >= VIOLATION_LINES)
        return;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    fx_log("batches violation %s", what);
}

/* The state of a ThreadID, made when first named. */
static thread_state *thread_of(fx_batches *m, ThreadID id)
{
    thread_state **head = &m->threads[bucket_of(id)];
    for (thread_state *t = *head; t; t = t->next)
        if (t->id == id)
            return t;
    thread_state *t = calloc(1, sizeof(*t));
    if (!t)
        abort();
    t->id = id;
    t->next = *head;
    *head = t;
    return t;
}

static method_count *method_of(fx_batches *m, MethodID id)
{
    method_count **head = &m->methods[bucket_of(id)];
    for (method_count *c = *head; c; c = c->next)
        if (c->id == id)
            return c;
    method_count *c = calloc(1, sizeof(*c));
    if (!c)
        abort();
    c->id = id;
    c->next = *head;
    *head = c;
    return c;
}

/* One batch's records, counted and checked against the thread's earlier ones. */
static void tally(fx_batches *m, thread_state *t, const JEVMON_CALL_RECORD *records, DWORD count)
{
    m->batch_count++;
    m->empty_batches += count == 0;
    m->largest_batch = count > m->largest_batch ? count : m->largest_batch;
    if (count && !records) {
        violation(m, "thread=%llx: %lu records at NULL", (unsigned long long)t->id, (unsigned long)count);
        return;
    }
    if (count && !t->records)
        m->threads_with_records++;
    for (DWORD i = 0; i < count; i++) {
        const JEVMON_CALL_RECORD *r = &records[i];
        if (r->ticks < t->last_ticks)
            violation(m, "thread=%llx: ticks went back by %llu at record %lu of %lu (%s)", (unsigned long long)t->id,
                      (unsigned long long)(t->last_ticks - r->ticks), (unsigned long)i, (unsigned long)count,
                      i ? "within a batch" : "from the last batch");
        t->last_ticks = r->ticks; /* one step back is one violation, not one per record after it */
        if (!r->method || r->kind < JEVMON_CALL_ENTERED || r->kind > JEVMON_CALL_UNWOUND) {
            violation(m, "thread=%llx: record %lu of %lu has method %llx kind %lu", (unsigned long long)t->id,
                      (unsigned long)i, (unsigned long)count, (unsigned long long)r->method, (unsigned long)r->kind);
            continue;
        }
        method_of(m, r->method)->by_kind[r->kind - 1]++;
        m->by_kind[r->kind - 1]++;
    }
    t->records += count;
    m->records += count;
    m->by_flusher += on_flusher_thread ? count : 0;
}

/* ---- FXBATCH_FLUSH_MS's thread ------------------------------------------------------------ */

static void flush_every_period(void *arg)
{
    fx_batches *m = arg;
    on_flusher_thread = 1;
    while (!plat_event_wait_ms(m->stop_flushing, m->flush_ms)) {
        HRESULT hr = IJevmonCallBatches_FlushCallBatches(m->batches);
        atomic_fetch_add(&m->flushes, 1);
        if (hr != S_OK)
            atomic_fetch_add(&m->failed_flushes, 1);
    }
}

static void stop_flusher(fx_batches *m)
{
    if (!m->flusher)
        return;
    plat_event_set(m->stop_flushing);
    plat_thread_join(m->flusher);
    m->flusher = NULL;
}

/* ---- The report at SHUTDOWN --------------------------------------------------------------- */

/* Does name start with one of the comma-separated prefixes? */
static int listed(const char *name, const char *prefixes)
{
    for (const char *p = prefixes; p && *p;) {
        size_t length = strcspn(p, ",");
        if (length && strncmp(name, p, length) == 0)
            return 1;
        p += length + (p[length] == ',');
    }
    return 0;
}

typedef struct named_count {
    char *name; /* CoTaskMemAlloc'ed by MethodInformation */
    unsigned long long by_kind[3];
} named_count;

/* The methods FXBATCH_METHODS lists, named by MethodInformation and those of one name added up.
 * Named outside m->lock: the bridge may attach the calling thread to the JVM for it, and tell this
 * monitor's NotifyEvent of the new thread, which takes the lock. */
static void report_listed_methods(fx_batches *m)
{
    char *prefixes = plat_getenv("FXBATCH_METHODS");
    size_t count = 0, named = 0;
    plat_mutex_lock(m->lock);
    for (size_t b = 0; b < BUCKETS; b++)
        for (method_count *c = m->methods[b]; c; c = c->next)
            count++;
    method_count *copies = calloc(count ? count : 1, sizeof(*copies));
    named_count *names = calloc(count ? count : 1, sizeof(*names));
    if (!copies || !names)
        abort();
    count = 0;
    for (size_t b = 0; b < BUCKETS; b++)
        for (method_count *c = m->methods[b]; c; c = c->next)
            copies[count++] = *c;
    plat_mutex_unlock(m->lock);
    for (size_t i = 0; prefixes && i < count; i++) {
        LPSTR name = NULL;
        if (FAILED(IJavaEventMonitorIDInfo_MethodInformation(m->info, copies[i].id, &name, NULL, NULL, NULL, NULL)) ||
            !name || !listed(name, prefixes)) {
            CoTaskMemFree(name);
            continue;
        }
        size_t j = 0;
        while (j < named && strcmp(names[j].name, name) != 0)
            j++;
        if (j == named)
            names[named++].name = name;
        else
            CoTaskMemFree(name);
        for (int k = 0; k < 3; k++)
            names[j].by_kind[k] += copies[i].by_kind[k];
    }
    for (size_t j = 0; j < named; j++) {
        fx_log("batches method %s entered=%llu returned=%llu unwound=%llu", names[j].name, names[j].by_kind[0],
               names[j].by_kind[1], names[j].by_kind[2]);
        CoTaskMemFree(names[j].name);
    }
    free(names);
    free(copies);
    free(prefixes);
}

static void report(fx_batches *m)
{
    report_listed_methods(m);
    plat_mutex_lock(m->lock);
    fx_log("batches totals batches=%llu empty=%llu largest=%llu records=%llu entered=%llu returned=%llu unwound=%llu "
           "by-flusher=%llu",
           m->batch_count, m->empty_batches, m->largest_batch, m->records, m->by_kind[0], m->by_kind[1], m->by_kind[2],
           m->by_flusher);
    fx_log("batches threads with-records=%ld ended-after-records=%ld", m->threads_with_records, m->ended_after_records);
    fx_log("batches flusher flushes=%ld failed=%ld", atomic_load(&m->flushes), atomic_load(&m->failed_flushes));
    fx_log("batches checked violations=%ld", m->violations);
    plat_mutex_unlock(m->lock);
}

/* ---- IJavaEventMonitor2 ------------------------------------------------------------------- */

static HRESULT STDMETHODCALLTYPE mon_QueryInterface(IJavaEventMonitor2 *iface, REFIID riid, void **ppv)
{
    fx_batches *m = impl_from_IJavaEventMonitor2(iface);
    if (!IsEqualIID(riid, &IID_IJevmonCallBatchCallback))
        return fx_monitor_query(iface, &m->ref, riid, ppv);
    *ppv = &m->IJevmonCallBatchCallback_iface;
    InterlockedIncrement(&m->ref);
    return S_OK;
}

static ULONG STDMETHODCALLTYPE mon_AddRef(IJavaEventMonitor2 *iface)
{
    return (ULONG)InterlockedIncrement(&impl_from_IJavaEventMonitor2(iface)->ref);
}

static ULONG STDMETHODCALLTYPE mon_Release(IJavaEventMonitor2 *iface)
{
    fx_batches *m = impl_from_IJavaEventMonitor2(iface);
    LONG ref = InterlockedDecrement(&m->ref);
    if (ref == 0) {
        stop_flusher(m);
        if (m->batches)
            IJevmonCallBatches_Release(m->batches);
        if (m->info)
            IJavaEventMonitorIDInfo_Release(m->info);
        for (size_t b = 0; b < BUCKETS; b++) {
            for (thread_state *t = m->threads[b], *next; t; t = next) {
                next = t->next;
                free(t);
            }
            for (method_count *c = m->methods[b], *next; c; c = next) {
                next = c->next;
                free(c);
            }
        }
        plat_event_destroy(m->stop_flushing);
        plat_mutex_destroy(m->lock);
        free(m);
    }
    return (ULONG)ref;
}

static HRESULT STDMETHODCALLTYPE mon_Initialize(IJavaEventMonitor2 *iface, LPCSTR pclass_file_name,
                                                IJavaEventMonitorIDInfo *pmonitor_info, DWORD java_flags,
                                                DWORD *prequested_events)
{
    fx_batches *m = impl_from_IJavaEventMonitor2(iface);
    IJavaEventMonitorIDInfo4 *info4 = NULL;
    HRESULT delivered = E_FAIL;
    (void)pclass_file_name, (void)java_flags;
    *prequested_events = JVM_MONITOR_METHOD_CALLS | JVM_MONITOR_THREADS;
    m->info = pmonitor_info;
    IJavaEventMonitorIDInfo_AddRef(pmonitor_info);
    if (SUCCEEDED(IJavaEventMonitorIDInfo_QueryInterface(pmonitor_info, &IID_IJavaEventMonitorIDInfo4,
                                                         (void **)&info4))) {
        IJavaEventMonitorIDInfo4_SetMonitorInitializationOptions(info4, INSTRUMENTED_OPTIONS);
        IJavaEventMonitorIDInfo4_Release(info4);
    }
    HRESULT found =
        IJavaEventMonitorIDInfo_QueryInterface(pmonitor_info, &IID_IJevmonCallBatches, (void **)&m->batches);
    if (SUCCEEDED(found))
        delivered = IJevmonCallBatches_DeliverCallsInBatches(m->batches, &m->IJevmonCallBatchCallback_iface);
    fx_log("batches setup QueryInterface=0x%08x DeliverCallsInBatches=0x%08x", (unsigned)found, (unsigned)delivered);
    return S_OK;
}

/* A monitor taking its calls in batches is never called for them one by one. */
static void called_one_by_one(fx_batches *m, const char *callback)
{
    plat_mutex_lock(m->lock);
    violation(m, "%s called", callback);
    plat_mutex_unlock(m->lock);
}

static HRESULT STDMETHODCALLTYPE mon_MethodEntry(IJavaEventMonitor2 *iface, MethodID method_id, StackID stack_id)
{
    (void)method_id, (void)stack_id;
    called_one_by_one(impl_from_IJavaEventMonitor2(iface), "MethodEntry");
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mon_MethodExit(IJavaEventMonitor2 *iface, StackID stack_id)
{
    (void)stack_id;
    called_one_by_one(impl_from_IJavaEventMonitor2(iface), "MethodExit");
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mon_NotifyEvent(IJavaEventMonitor2 *iface, JVM_EVENT_TYPE event, UniqueID event_id)
{
    fx_batches *m = impl_from_IJavaEventMonitor2(iface);
    if (event == JVM_EVENT_TYPE_SHUTDOWN) {
        stop_flusher(m); /* its last flush is delivered once it is joined */
        plat_mutex_lock(m->lock);
        m->shut_down = 1;
        plat_mutex_unlock(m->lock);
        report(m);
        return S_OK;
    }
    if (event != JVM_EVENT_TYPE_THREAD_CREATE && event != JVM_EVENT_TYPE_THREAD_DESTROY)
        return S_OK;
    plat_mutex_lock(m->lock);
    thread_state *t = thread_of(m, event_id);
    if (event == JVM_EVENT_TYPE_THREAD_CREATE) {
        t->created = 1;
        t->ended = 0; /* a new thread, perhaps with an ended one's ID */
        t->records = 0;
    } else {
        if (atomic_load(&t->in_batch))
            violation(m, "thread=%llx: THREAD_DESTROY while a batch of it runs", (unsigned long long)event_id);
        t->ended = 1;
        m->ended_after_records += t->records != 0;
    }
    plat_mutex_unlock(m->lock);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mon_GetPossibleEventCategories(IJavaEventMonitor2 *iface, DWORD *ppossible)
{
    (void)iface;
    *ppossible = JVM_MONITOR_METHOD_CALLS | JVM_MONITOR_THREADS;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mon_MethodExit2(IJavaEventMonitor2 *iface, MethodID method_id, StackID stack_id)
{
    (void)method_id, (void)stack_id;
    called_one_by_one(impl_from_IJavaEventMonitor2(iface), "MethodExit2");
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mon_NotifyEvent2(IJavaEventMonitor2 *iface, JVM_EVENT_TYPE2 event, UniqueID first,
                                                  UniqueID second)
{
    fx_batches *m = impl_from_IJavaEventMonitor2(iface);
    (void)first, (void)second;
    if (event == JVM_EVENT_TYPE2_INITIALIZED && m->batches && m->flush_ms && !m->flusher &&
        !(m->flusher = plat_thread_start("test", flush_every_period, m)))
        fx_log("batches cannot start the flusher");
    return S_OK;
}

static const IJavaEventMonitor2Vtbl mon_vtbl = {
    mon_QueryInterface, mon_AddRef, mon_Release,
    fx_ExecuteByteCode, fx_ExecuteSourceLine, mon_Initialize, mon_MethodEntry, mon_MethodExit, mon_NotifyEvent,
    mon_GetPossibleEventCategories, mon_MethodExit2, mon_NotifyEvent2,
};

/* ---- IJevmonCallBatchCallback ------------------------------------------------------------- */

static HRESULT STDMETHODCALLTYPE batch_QueryInterface(IJevmonCallBatchCallback *iface, REFIID riid, void **ppv)
{
    return mon_QueryInterface(&impl_from_IJevmonCallBatchCallback(iface)->IJavaEventMonitor2_iface, riid, ppv);
}

static ULONG STDMETHODCALLTYPE batch_AddRef(IJevmonCallBatchCallback *iface)
{
    return mon_AddRef(&impl_from_IJevmonCallBatchCallback(iface)->IJavaEventMonitor2_iface);
}

static ULONG STDMETHODCALLTYPE batch_Release(IJevmonCallBatchCallback *iface)
{
    return mon_Release(&impl_from_IJevmonCallBatchCallback(iface)->IJavaEventMonitor2_iface);
}

static HRESULT STDMETHODCALLTYPE batch_OnCallBatch(IJevmonCallBatchCallback *iface, ThreadID thread_id,
                                                   const JEVMON_CALL_RECORD *records, DWORD count)
{
    fx_batches *m = impl_from_IJevmonCallBatchCallback(iface);
    /* Flagged first: a bridge that flushed here anyway would call back in, and must not ask again. */
    if (!atomic_exchange(&m->flush_inside_asked, 1))
        fx_log("batches flush-inside hr=0x%08x", (unsigned)IJevmonCallBatches_FlushCallBatches(m->batches));
    plat_mutex_lock(m->lock);
    thread_state *t = thread_of(m, thread_id);
    plat_mutex_unlock(m->lock);
    /* The flag spans the whole call, the wait for the lock included, so that a second batch of
     * the thread delivered meanwhile on another thread finds it set. */
    int overlapping = atomic_exchange(&t->in_batch, 1);
    plat_mutex_lock(m->lock);
    if (overlapping)
        violation(m, "thread=%llx: two batches at once", (unsigned long long)thread_id);
    if (!thread_id)
        violation(m, "a batch of ThreadID 0");
    if (m->shut_down)
        violation(m, "thread=%llx: a batch of %lu records after SHUTDOWN", (unsigned long long)thread_id,
                  (unsigned long)count);
    if (t->ended)
        violation(m, "thread=%llx: a batch of %lu records after its THREAD_DESTROY", (unsigned long long)thread_id,
                  (unsigned long)count);
    else if (!t->created)
        violation(m, "thread=%llx: a batch of %lu records before its THREAD_CREATE", (unsigned long long)thread_id,
                  (unsigned long)count);
    tally(m, t, records, count);
    plat_mutex_unlock(m->lock);
    if (!overlapping)
        atomic_store(&t->in_batch, 0);
    return S_OK;
}

static const IJevmonCallBatchCallbackVtbl batch_vtbl = {
    batch_QueryInterface, batch_AddRef, batch_Release, batch_OnCallBatch,
};

/* ---- Class factory (a static object) ------------------------------------------------------ */

static IJavaEventMonitor2 *new_batches(void)
{
    fx_batches *m = calloc(1, sizeof(*m));
    char *flush_ms = plat_getenv("FXBATCH_FLUSH_MS");
    fx_log_init();
    if (m) {
        m->IJavaEventMonitor2_iface.lpVtbl = &mon_vtbl;
        m->IJevmonCallBatchCallback_iface.lpVtbl = &batch_vtbl;
        m->ref = 1;
        m->flush_ms = flush_ms ? (unsigned)strtoul(flush_ms, NULL, 10) : 0;
        m->lock = plat_mutex_create();
        m->stop_flushing = plat_event_create();
    }
    free(flush_ms);
    if (m && (!m->lock || !m->stop_flushing)) {
        if (m->lock)
            plat_mutex_destroy(m->lock);
        if (m->stop_flushing)
            plat_event_destroy(m->stop_flushing);
        free(m);
        m = NULL;
    }
    return m ? &m->IJavaEventMonitor2_iface : NULL;
}

FX_MONITOR_CLASS(CLSID_FxBatches, new_batches)

FX_MONITOR_REGISTRATION(CLSID_FxBatches, "fx_batches", "jevmon test monitor taking method calls in batches")
