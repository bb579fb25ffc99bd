/*
 * call_batch.c - method calls in batches (see call_batch.h): the registrations, the OS threads'
 * buffers (a list, for the flush and the end), and the delivery of a batch to the callbacks.
 *
 * Callbacks are read without a lock when a batch is delivered: one replaced or unregistered stays
 * referenced until jv_call_batches_stop, so a thread still calling it never calls a released object.
 */
#include <stdlib.h>

#include "events/call_batch.h"
#include "vm/vm.h"

_Thread_local jv_call_buffer *jv_call_buffer_self;
static _Thread_local int delivering; /* inside a callback's batch: a flush from there would wait for itself */

static plat_mutex *buffers_lock; /* the list, its links and each buffer's freeing; held through a flush */
static jv_call_buffer *buffers;
static IJevmonCallBatchCallback **retired; /* replaced callbacks, released at the end; under buffers_lock */
static size_t retired_count, retired_capacity;
static atomic_int unbuffered_said;

void jv_call_batches_init(void)
{
    buffers_lock = plat_mutex_create();
}

/* The records to every callback (those of monitors since shut down too: the end's flush comes
 * after their masks are off).  In a dispatch bracket, so that the end waits for it, with the
 * thread's bridge flag up, so that Java code a callback runs is not recorded. */
static void deliver(ThreadID thread, const JEVMON_CALL_RECORD *records, uint32_t count)
{
    jv_dispatch_slot *slot = jv_dispatch_own();
    int raised = slot && !jv_dispatch_in_bridge(slot);
    if (raised) /* before jv_jni, whose attach of a monitor's thread runs Java code */
        jv_dispatch_bridge_begin(slot);
    JNIEnv *env = jv_jni();
    jv_dispatch d;
    jv_dispatch_begin(&d, env);
    delivering++;
    for (size_t i = 0; i < jv_monitors.count; i++) {
        IJevmonCallBatchCallback *callback = atomic_load(&jv_monitors.items[i]->batch_callback);
        if (callback)
            IJevmonCallBatchCallback_OnCallBatch(callback, thread, records, count);
    }
    delivering--;
    if (raised)
        jv_dispatch_bridge_end(slot);
    jv_dispatch_end(&d);
}

static void deliver_buffer(jv_call_buffer *b)
{
    if (b->fill)
        deliver(b->owner_id, b->records, b->fill);
    b->fill = 0;
}

/* The owning thread marks its buffer busy, waiting while another thread flushes it. */
static void own_busy(jv_call_buffer *b)
{
    for (;;) {
        atomic_store(&b->busy, 1);
        if (!atomic_load(&b->flushing))
            return;
        atomic_store_explicit(&b->busy, 0, memory_order_release);
        while (atomic_load(&b->flushing))
            plat_sleep_ms(1);
    }
}

/* The calling thread's own buffer delivered, with the handshake a flush expects. */
static void deliver_own_buffer(jv_call_buffer *b)
{
    own_busy(b);
    deliver_buffer(b);
    atomic_store_explicit(&b->busy, 0, memory_order_release);
}

static jv_call_buffer *new_buffer(void)
{
    jv_call_buffer *b = calloc(1, sizeof(*b));
    if (!b)
        return NULL;
    plat_mutex_lock(buffers_lock);
    b->next = buffers;
    buffers = b;
    plat_mutex_unlock(buffers_lock);
    return jv_call_buffer_self = b;
}

void jv_call_batch_store_slow(jv_thread *t, MethodID method, DWORD kind, uint64_t ticks)
{
    JEVMON_CALL_RECORD record = {ticks, method, kind};
    jv_call_buffer *b = jv_call_buffer_self ? jv_call_buffer_self : new_buffer();
    if (!b) { /* delivered alone: slow, but nothing is lost */
        if (!atomic_exchange(&unbuffered_said, 1))
            jv_log("no memory for a thread's batch of method calls: its calls are delivered one by one");
        deliver(jv_thread_id(t), &record, 1);
        return;
    }
    own_busy(b);
    if (b->owner != t || b->fill == JV_CALL_BATCH)
        deliver_buffer(b);
    if (!b->fill) {
        b->owner = t;
        b->owner_id = jv_thread_id(t);
    }
    b->records[b->fill++] = record;
    atomic_store_explicit(&b->busy, 0, memory_order_release);
}

void jv_call_batches_deliver_own(int ending)
{
    jv_call_buffer *b = jv_call_buffer_self;
    if (!b || (!b->fill && !ending)) /* fill is the owner's but while a flush empties it */
        return;
    deliver_own_buffer(b);
    if (!ending)
        return;
    plat_mutex_lock(buffers_lock); /* not while a flush walks the list */
    jv_call_buffer **link = &buffers;
    while (*link && *link != b)
        link = &(*link)->next;
    if (*link)
        *link = b->next;
    plat_mutex_unlock(buffers_lock);
    jv_call_buffer_self = NULL;
    free(b);
}

/* Another thread's buffer: raises flushing, and once its owner is not busy delivers its records. */
static void flush_other(jv_call_buffer *b)
{
    atomic_store(&b->flushing, 1);
    if (jv_dispatch_plain_counts)
        plat_process_barrier(); /* the owner's busy store, made without a fence, is seen from here on */
    for (unsigned spins = 0; atomic_load(&b->busy); spins++)
        if (spins > 64)
            plat_sleep_ms(1);
    deliver_buffer(b);
    atomic_store(&b->flushing, 0);
}

HRESULT jv_call_batches_flush(void)
{
    if (delivering)
        return E_UNEXPECTED;
    if (!buffers_lock)
        return E_FAIL;
    plat_mutex_lock(buffers_lock);
    for (jv_call_buffer *b = buffers; b; b = b->next) {
        if (b != jv_call_buffer_self)
            flush_other(b);
        else
            deliver_own_buffer(b);
    }
    plat_mutex_unlock(buffers_lock);
    return S_OK;
}

HRESULT jv_call_batches_register(jv_monitor *m, IJevmonCallBatchCallback *callback)
{
    if (!m || !buffers_lock)
        return E_FAIL;
    if (!callback) /* what was recorded for it so far, before its calls come one by one again */
        jv_call_batches_flush();
    plat_mutex_lock(buffers_lock);
    if (retired_count == retired_capacity) {
        size_t grown = retired_capacity ? retired_capacity * 2 : 8;
        IJevmonCallBatchCallback **bigger = realloc(retired, grown * sizeof(*bigger));
        if (!bigger) {
            plat_mutex_unlock(buffers_lock);
            return E_OUTOFMEMORY;
        }
        retired = bigger;
        retired_capacity = grown;
    }
    if (callback)
        IJevmonCallBatchCallback_AddRef(callback);
    IJevmonCallBatchCallback *old = atomic_exchange(&m->batch_callback, callback);
    jv_monitors_call_routes_update();
    if (old)
        retired[retired_count++] = old;
    plat_mutex_unlock(buffers_lock);
    return S_OK;
}

void jv_call_batches_stop(void)
{
    if (!buffers_lock)
        return;
    jv_call_batches_flush();
    plat_mutex_lock(buffers_lock);
    for (size_t i = 0; i < jv_monitors.count; i++) {
        IJevmonCallBatchCallback *old = atomic_exchange(&jv_monitors.items[i]->batch_callback, NULL);
        if (old)
            IJevmonCallBatchCallback_Release(old);
    }
    jv_monitors_call_routes_update();
    for (size_t i = 0; i < retired_count; i++)
        IJevmonCallBatchCallback_Release(retired[i]);
    free(retired);
    retired = NULL;
    retired_count = retired_capacity = 0;
    plat_mutex_unlock(buffers_lock);
}
