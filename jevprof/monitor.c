/*
 * monitor.c - the jevprof event monitor: the COM object the VM creates, implementing
 * IJavaEventMonitor and IJavaEventMonitor2, and in alloc mode IObjectAllocationCallback, which
 * it registers with the VM's IJavaHeapMonitor.  It reads the configuration, asks for its
 * categories in Initialize, hands each event to the part that records it (calls.c,
 * sampler.c, allocations.c, summary.c, names.c), and writes the outputs at SHUTDOWN (output.c).
 * Through jevmon's IJevmonCommands it takes commands while the program runs (a second load of
 * the agent: `jcmd <pid> JVMTI.agent_load <agent> dump`): status, dump (the outputs so far,
 * recording goes on), stop (the outputs, as at SHUTDOWN), start (a new profile after a stop,
 * with other settings when the command gives them).  The start the bridge hands it before
 * Initialize (the agent option command=) brings the settings of that load (config.h).
 */
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "allocations.h"
#include "calls.h"
#include "config.h"
#include "jevprof.h"
#include "names.h"
#include "output.h"
#include "sampler.h"
#include "stacktrace.h"
#include "summary.h"

/* What jevprof promises in Initialize so that the VM can deliver method calls cheaply: the
 * hot path keeps floating-point state, runs no Java code, never toggles method-call events,
 * never asks for return values, and never reads allocation counts.  Outside alloc mode it
 * also promises never to register an allocation callback, so that allocations cost nothing. */
#define JP_INIT_OPTIONS                                                                                  \
    (JVM_INIT_OPT_FP_SAFE_METHOD_CALLS | JVM_INIT_OPT_GC_SAFE_METHOD_CALLS |                             \
     JVM_INIT_OPT_RETURN_VALUE_NOT_NEEDED | JVM_INIT_OPT_WONT_TOGGLE_METHOD_CALL_EVENTS |                \
     JVM_INIT_OPT_DONT_NEED_ALLOCATION_COUNTS)

/* Asked for in every mode: the summary's events.  EXCEPTIONS only with the setting: while any agent
 * listens to exceptions, HotSpot sends every throw in compiled code through a deoptimization, which
 * costs microseconds per exception (monitor/README.md). */
#define JP_SUMMARY_CATEGORIES (JVM_MONITOR_CLASS_LOADS | JVM_MONITOR_GARBAGE_COLLECTIONS | JVM_MONITOR_THREADS)

typedef struct jp_monitor {
    IJavaEventMonitor2 IJavaEventMonitor2_iface;
    IObjectAllocationCallback IObjectAllocationCallback_iface; /* alloc mode's callback */
    IJevmonCommands IJevmonCommands_iface;                     /* commands while the program runs */
    LONG ref;
    plat_mutex *writing; /* one dump or stop at a time, and SHUTDOWN after them */
    double stopped_seconds; /* after a stop: how long it recorded */
    int looping;            /* continuous mode (JEVPROF_LOOP): files are per period, time-stamped */
    plat_thread *loop;      /* the thread that ends each period and the duration; NULL once joined */
    atomic_int loop_stop;
    uint64_t period_started_ns;
    time_t period_started;  /* the period's time stamp, in its files' names */
    jp_tree calls_before;   /* calls mode: the calls up to the period's start (jp_calls_take_period) */
    jp_config config;
    char *settings;         /* the settings given before Initialize (the first load's command=); NULL: none */
    char *program;
    IJavaEventMonitorIDInfo *info;   /* from Initialize, AddRef'd */
    IJavaEventMonitorIDInfo2 *info2; /* NULL when the VM has no IDInfo2 */
    DWORD categories;
    uint64_t started_ns;
    uint64_t started_unix_ns;
    jp_names names;
    jp_summary summary;
    jp_sampler sampler;
    jp_calls calls;
    jp_allocations allocations;
    int sampling, recording_calls, recording_allocations; /* the parts of the mode that are running */
    atomic_int finished;           /* the outputs have been written */
} jp_monitor;

static inline jp_monitor *impl_from_IJavaEventMonitor2(IJavaEventMonitor2 *iface)
{
    return (jp_monitor *)((char *)iface - offsetof(jp_monitor, IJavaEventMonitor2_iface));
}

static HRESULT STDMETHODCALLTYPE monitor_QueryInterface(IJavaEventMonitor2 *iface, REFIID riid, void **ppv)
{
    if (!ppv)
        return E_POINTER;
    /* IJavaEventMonitor2's vtable begins with IJavaEventMonitor's, so one pointer serves all three. */
    if (IsEqualIID(riid, &IID_IUnknown) || IsEqualIID(riid, &IID_IJavaEventMonitor) ||
        IsEqualIID(riid, &IID_IJavaEventMonitor2)) {
        *ppv = iface;
        IJavaEventMonitor2_AddRef(iface);
        return S_OK;
    }
    if (IsEqualIID(riid, &IID_IObjectAllocationCallback)) {
        *ppv = &impl_from_IJavaEventMonitor2(iface)->IObjectAllocationCallback_iface;
        IJavaEventMonitor2_AddRef(iface);
        return S_OK;
    }
    if (IsEqualIID(riid, &IID_IJevmonCommands)) {
        *ppv = &impl_from_IJavaEventMonitor2(iface)->IJevmonCommands_iface;
        IJavaEventMonitor2_AddRef(iface);
        return S_OK;
    }
    *ppv = NULL;
    return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE monitor_AddRef(IJavaEventMonitor2 *iface)
{
    return (ULONG)InterlockedIncrement(&impl_from_IJavaEventMonitor2(iface)->ref);
}

static void start_loop(jp_monitor *m);
static void stop_loop(jp_monitor *m);

static void monitor_destroy(jp_monitor *m)
{
    stop_loop(m); /* released without SHUTDOWN: the thread must not outlive us */
    if (m->sampling) {
        jp_sampler_stop(&m->sampler); /* released without SHUTDOWN: the thread must not outlive us */
        jp_sampler_free(&m->sampler);
    }
    if (m->recording_calls) {
        jp_calls_stop(&m->calls);
        jp_calls_free(&m->calls);
    }
    jp_tree_free(&m->calls_before);
    if (m->info) /* initialized: the output directory's lock file is this run's */
        jp_output_release(&m->config);
    if (m->recording_allocations) /* the VM let go of the callback: no allocation is being recorded */
        jp_allocations_free(&m->allocations);
    jp_summary_free(&m->summary);
    jp_names_free(&m->names);
    if (m->writing)
        plat_mutex_destroy(m->writing);
    if (m->info2)
        IJavaEventMonitorIDInfo2_Release(m->info2);
    if (m->info)
        IJavaEventMonitorIDInfo_Release(m->info);
    free(m->program);
    free(m->settings);
    free(m);
    jp_module_unlock();
}

static ULONG STDMETHODCALLTYPE monitor_Release(IJavaEventMonitor2 *iface)
{
    jp_monitor *m = impl_from_IJavaEventMonitor2(iface);
    LONG ref = InterlockedDecrement(&m->ref);
    if (ref == 0)
        monitor_destroy(m);
    return (ULONG)ref;
}

static HRESULT STDMETHODCALLTYPE monitor_ExecuteByteCode(IJavaEventMonitor2 *iface, MethodID method_id,
                                                         BYTE_CODE *pbyte_code, DWORD byte_code_offset)
{
    (void)iface, (void)method_id, (void)pbyte_code, (void)byte_code_offset;
    return S_OK; /* never asked for */
}

static HRESULT STDMETHODCALLTYPE monitor_ExecuteSourceLine(IJavaEventMonitor2 *iface, MethodID method_id,
                                                           DWORD line_number)
{
    (void)iface, (void)method_id, (void)line_number;
    return S_OK; /* never asked for */
}

/* Promises JP_INIT_OPTIONS when the VM takes initialization options (IDInfo4). */
static void set_init_options(jp_monitor *m)
{
    IJavaEventMonitorIDInfo4 *info4 = NULL;
    if (FAILED(IJavaEventMonitorIDInfo_QueryInterface(m->info, &IID_IJavaEventMonitorIDInfo4, (void **)&info4)) ||
        !info4)
        return;
    DWORD options = JP_INIT_OPTIONS;
    if (!(m->config.mode & JP_MODE_ALLOC))
        options |= JVM_INIT_OPT_DONT_NEED_ALLOCATION_CALLBACK;
    IJavaEventMonitorIDInfo4_SetMonitorInitializationOptions(info4, options); /* a refusal costs only speed */
    IJavaEventMonitorIDInfo4_Release(info4);
}

/* Registers callback with the VM's heap monitor (NULL unregisters); the HRESULT, with one line
 * saying why when it fails. */
static HRESULT set_allocation_callback(jp_monitor *m, IObjectAllocationCallback *callback)
{
    IJavaHeapMonitor *heap = NULL;
    if (FAILED(IJavaEventMonitorIDInfo_QueryInterface(m->info, &IID_IJavaHeapMonitor, (void **)&heap)) || !heap) {
        jv_log("jevprof: the VM has no IJavaHeapMonitor; allocation recording is off");
        return E_NOINTERFACE;
    }
    HRESULT hr = IJavaHeapMonitor_NotifyOnObjectAllocations(heap, callback);
    IJavaHeapMonitor_Release(heap);
    if (FAILED(hr))
        jv_log("jevprof: NotifyOnObjectAllocations(%s) failed (0x%08lx); %s", callback ? "callback" : "NULL",
               (unsigned long)(DWORD)hr,
               callback ? "allocation recording is off" : "allocations may still be reported");
    return hr;
}

/* Alloc mode: the recorder, then the callback that feeds it. */
static void start_recording_allocations(jp_monitor *m)
{
    if (!m->info2) {
        jv_log("jevprof: the VM has no IJavaEventMonitorIDInfo2, so allocations have no stacks; allocation "
               "recording is off");
        return;
    }
    /* How the VM samples allocations, when it says (jevmon's extension on its heap monitor). */
    IJavaHeapMonitor *heap = NULL;
    IJevmonAllocationSampling *sampling = NULL;
    if (SUCCEEDED(IJavaEventMonitorIDInfo_QueryInterface(m->info, &IID_IJavaHeapMonitor, (void **)&heap)) && heap) {
        if (FAILED(IJavaHeapMonitor_QueryInterface(heap, &IID_IJevmonAllocationSampling, (void **)&sampling)))
            sampling = NULL;
        IJavaHeapMonitor_Release(heap);
    }
    int failed = jp_allocations_init(&m->allocations, m->info2, &m->names, sampling);
    if (sampling)
        IJevmonAllocationSampling_Release(sampling);
    if (failed) {
        jv_log("jevprof: out of memory; allocation recording is off");
        return;
    }
    m->recording_allocations = 1; /* before the first allocation can be reported */
    if (FAILED(set_allocation_callback(m, &m->IObjectAllocationCallback_iface))) {
        m->recording_allocations = 0;
        jp_allocations_free(&m->allocations);
    }
}

/* Starts the parts of the configured mode that this VM allows. */
static void start_recording(jp_monitor *m)
{
    if ((m->config.mode & JP_MODE_SAMPLE) && !m->info2)
        jv_log("jevprof: the VM has no IJavaEventMonitorIDInfo2, so it cannot be sampled; sampling is off");
    else if ((m->config.mode & JP_MODE_SAMPLE) && jp_sampler_init(&m->sampler, m->info2, m->config.interval_ms,
                                                                     (m->config.mode & JP_MODE_WALL) != 0))
        jv_log("jevprof: out of memory; sampling is off");
    else if (m->config.mode & JP_MODE_SAMPLE)
        m->sampling = 1;
    if ((m->config.mode & JP_MODE_CALLS) && jp_calls_init(&m->calls, m->info2, !m->config.wall_time))
        jv_log("jevprof: out of memory; call recording is off");
    else if (m->config.mode & JP_MODE_CALLS)
        m->recording_calls = 1;
    m->categories = JP_SUMMARY_CATEGORIES | (m->config.exceptions ? JVM_MONITOR_EXCEPTIONS : 0);
    m->summary.exceptions_counted = m->config.exceptions != 0;
    if (m->sampling)
        m->categories |= JVM_MONITOR_SAMPLING;
    if (m->recording_calls)
        m->categories |= JVM_MONITOR_METHOD_CALLS;
    if (m->sampling && jp_sampler_start(&m->sampler)) {
        jp_sampler_free(&m->sampler);
        m->sampling = 0;
        m->categories &= ~(DWORD)JVM_MONITOR_SAMPLING;
    }
    if (m->config.mode & JP_MODE_ALLOC)
        start_recording_allocations(m);
}

/* The settings of a start: defaults, registry, environment, then settings (NULL: none), expanded. */
static void configure(jp_config *config, const char *settings)
{
    jp_config_load(config);
    if (settings)
        jp_config_parse(config, settings);
    jp_config_expand(config, plat_process_id(), time(NULL));
}

static HRESULT STDMETHODCALLTYPE monitor_Initialize(IJavaEventMonitor2 *iface, LPCSTR pclass_file_name,
                                                    IJavaEventMonitorIDInfo *pmonitor_info, DWORD java_flags,
                                                    DWORD *prequested_events)
{
    jp_monitor *m = impl_from_IJavaEventMonitor2(iface);
    (void)java_flags;
    if (!pmonitor_info || !prequested_events)
        return E_POINTER;
    if (m->info)
        return E_UNEXPECTED; /* initialized once per VM */
    m->info = pmonitor_info;
    IJavaEventMonitorIDInfo_AddRef(m->info);
    if (FAILED(IJavaEventMonitorIDInfo_QueryInterface(m->info, &IID_IJavaEventMonitorIDInfo2, (void **)&m->info2)))
        m->info2 = NULL;
    size_t program_size = pclass_file_name ? strlen(pclass_file_name) + 1 : 1;
    if ((m->program = malloc(program_size)))
        jp_program_display_name(pclass_file_name ? pclass_file_name : "", m->program, program_size);
    m->started_ns = plat_now_ns();
    m->started_unix_ns = (uint64_t)time(NULL) * 1000000000u;
    configure(&m->config, m->settings);
    jp_output_prepare(&m->config); /* a directory that cannot be made is said now, not at the end */
    set_init_options(m);
    start_recording(m);
    if (m->config.loop_seconds || m->config.duration_seconds)
        start_loop(m);
    *prequested_events = m->categories;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE monitor_MethodEntry(IJavaEventMonitor2 *iface, MethodID method_id, StackID stack_id)
{
    jp_monitor *m = impl_from_IJavaEventMonitor2(iface);
    if (m->recording_calls)
        jp_calls_entry(&m->calls, method_id, stack_id);
    return S_OK;
}

/* Also a monitor's exit when the VM has no IJavaEventMonitor2: its StackID is the caller's too. */
static HRESULT STDMETHODCALLTYPE monitor_MethodExit(IJavaEventMonitor2 *iface, StackID stack_id)
{
    jp_monitor *m = impl_from_IJavaEventMonitor2(iface);
    if (m->recording_calls)
        jp_calls_exit(&m->calls, stack_id);
    return S_OK;
}

/* A frame that stands for no method (an allocated class, an unknown), or NULL. */
static const char *frame_name(jp_monitor *m, MethodID method)
{
    const char *class_name = m->recording_allocations ? jp_allocations_class_name(&m->allocations, method) : NULL;
    if (class_name)
        return class_name;
    const char *state = jp_sampler_state_name(method);
    if (state)
        return state;
    if (method == JP_UNKNOWN_CALLERS)
        return "(callers unknown)";
    if (method == JP_UNKNOWN_METHOD)
        return "(unknown method)";
    if (method == JP_FOLDED_PATHS)
        return "(smaller paths, folded: JEVPROF_MIN_SHARE)";
    return NULL;
}

/* The collapsed files and flame graphs: the brief name, with the signature where it is ambiguous. */
static const char *method_name(void *context, MethodID method)
{
    jp_monitor *m = context;
    const char *name = frame_name(m, method);
    return name ? name : jp_names_method(&m->names, m->info, method);
}

/* The report's tables: always the signature. */
static const char *method_signature_name(void *context, MethodID method)
{
    jp_monitor *m = context;
    const char *name = frame_name(m, method);
    return name ? name : jp_names_method_signature(&m->names, m->info, method);
}

/* The flame graph's colours. */
static jp_frame_kind method_kind(void *context, MethodID method)
{
    jp_monitor *m = context;
    if (m->recording_allocations && jp_allocations_class_name(&m->allocations, method))
        return JP_FRAME_CLASS;
    return frame_name(m, method) ? JP_FRAME_OTHER : jp_names_method_kind(&m->names, m->info, method);
}

/* pprof's source files and lines: none for a frame that stands for no method. */
static const char *method_source(void *context, MethodID method, unsigned long *first_line)
{
    jp_monitor *m = context;
    *first_line = 0;
    return frame_name(m, method) ? NULL : jp_names_method_source(&m->names, m->info, method, first_line);
}

/* pprof's line of a frame at a bytecode offset: none for a frame that stands for no method. */
static unsigned long method_line(void *context, MethodID method, DWORD offset)
{
    jp_monitor *m = context;
    return frame_name(m, method) ? 0 : jp_names_method_line(&m->names, m->info, method, offset);
}

/* Names every method of tree now, so that overloads are known before anything is written. */
static void name_methods(jp_monitor *m, const jp_tree *tree)
{
    MethodID last = 0;
    for (uint32_t i = 1; tree && i < tree->count; i++)
        if (tree->nodes[i].method != last && !frame_name(m, last = tree->nodes[i].method))
            jp_names_method(&m->names, m->info, last);
}

/* What the outputs are written from: the recorders' own trees at the end, copies at a dump. */
typedef struct jp_profiles {
    const jp_tree *samples, *calls, *sites, *bytes; /* NULL: not recorded; samples: frames at their offsets */
    jp_sampler_counts sample_counts;
    jp_allocation_counts allocation_counts;
    double sampling_seconds;
    const jp_thread_summary *threads; /* calls: the threads folded (at the end) */
    size_t thread_count;
    uint64_t started_ns; /* the start of what they hold: recording's, or the period's */
    time_t started;
} jp_profiles;

/* Continuous mode: the configuration with the period's time stamp after the file prefix. */
static void period_config(const jp_monitor *m, jp_config *config)
{
    char stamp[32];
    *config = m->config;
    const struct tm *local = localtime(&m->period_started); /* only the loop and the end call this */
    if (!local || !strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", local))
        snprintf(stamp, sizeof(stamp), "%lld", (long long)m->period_started);
    snprintf(config->file_prefix, sizeof(config->file_prefix), "%.100s-%.20s", m->config.file_prefix, stamp);
}

/* Names the methods of p, then writes every output; written gets the list of files. */
static void write_outputs(jp_monitor *m, const jp_config *config, const jp_profiles *p, char *written, size_t size)
{
    jp_summary_sort_exceptions(&m->summary);
    name_methods(m, p->samples);
    name_methods(m, p->calls);
    name_methods(m, p->sites);
    for (size_t i = 0; i < p->thread_count; i++)
        for (size_t f = 0; f < p->threads[i].depth; f++)
            jp_names_method(&m->names, m->info, p->threads[i].path[f]);
    jp_names_find_overloads(&m->names);
    jp_tree samples = {0}; /* by method, for all but pprof */
    if (p->samples && (jp_tree_init(&samples) || jp_tree_by_method(&samples, p->samples))) {
        jv_log("jevprof: out of memory: the samples are not written");
        jp_tree_free(&samples);
    }
    jp_report report = {
        .program = m->program,
        .config = config,
        .seconds = (double)(plat_now_ns() - p->started_ns) / 1e9,
        .started_unix_ns = (uint64_t)p->started * 1000000000u,
        .samples = samples.nodes ? &samples : NULL,
        .sample_lines = samples.nodes ? p->samples : NULL,
        .sample_counts = &p->sample_counts,
        .sampling_seconds = p->sampling_seconds,
        .calls = p->calls,
        .lost_threads = m->calls.lost_threads,
        .threads = p->threads,
        .thread_count = p->thread_count,
        .allocations = p->sites,
        .allocated_bytes = p->bytes,
        .allocation_counts = &p->allocation_counts,
        .allocations_weighted = p->sites && m->allocations.sampling,
        .allocation_interval = m->allocations.interval,
        .summary = &m->summary,
        .name = method_name,
        .signature_name = method_signature_name,
        .kind = method_kind,
        .source = method_source,
        .line = method_line,
        .name_context = m,
    };
    jp_output_write_all(&report, written, size);
    jp_tree_free(&samples);
}

/* Continuous mode: ends a period, writing its complete profile into files named with its time
 * stamp, and starts the next one empty. */
static void end_period(jp_monitor *m)
{
    jp_tree samples = {0}, calls = {0}, sites = {0}, bytes = {0};
    jp_profiles p = {0};
    char written[JP_OUTPUT_LIST_BYTES];
    plat_mutex_lock(m->writing);
    if (atomic_load(&m->finished)) {
        plat_mutex_unlock(m->writing);
        return;
    }
    uint64_t now_ns = plat_now_ns();
    time_t now = time(NULL); /* the next period's stamp: a second after this one's, however long writing takes */
    int failed = m->sampling && jp_sampler_take(&m->sampler, &samples, &p.sample_counts);
    failed |= m->recording_allocations && jp_allocations_take(&m->allocations, &sites, &bytes, &p.allocation_counts);
    int calls_failed = m->recording_calls && (jp_tree_init(&calls) ||
                                               jp_calls_take_period(&m->calls, &m->calls_before, &calls));
    failed |= calls_failed;
    p.samples = m->sampling && samples.nodes ? &samples : NULL;
    p.calls = m->recording_calls && !calls_failed ? &calls : NULL;
    p.sampling_seconds = (double)(now_ns - m->period_started_ns) / 1e9;
    p.sites = m->recording_allocations && sites.nodes ? &sites : NULL;
    p.bytes = &bytes;
    p.started_ns = m->period_started_ns;
    p.started = m->period_started;
    if (failed)
        jv_log("jevprof: out of memory at the end of a period; its profile goes on into the next");
    jp_config config;
    period_config(m, &config);
    if (p.samples || p.calls || p.sites || !(m->sampling || m->recording_calls || m->recording_allocations))
        write_outputs(m, &config, &p, written, sizeof(written));
    m->period_started_ns = now_ns;
    m->period_started = now;
    plat_mutex_unlock(m->writing);
    jp_tree_free(&samples), jp_tree_free(&calls), jp_tree_free(&sites), jp_tree_free(&bytes);
}

#define LOOP_TICK_MS 100u /* how soon the loop sees that recording stops */

static int finish_recording(jp_monitor *m, char *written, size_t size);

/* Ends each period (JEVPROF_LOOP), and recording once the duration has passed. */
static void loop_thread(void *arg)
{
    jp_monitor *m = arg;
    uint64_t end = m->config.duration_seconds ? m->started_ns + (uint64_t)m->config.duration_seconds * 1000000000u
                                              : UINT64_MAX;
    while (!atomic_load(&m->loop_stop)) {
        uint64_t due = m->config.loop_seconds
                           ? m->period_started_ns + (uint64_t)m->config.loop_seconds * 1000000000u
                           : UINT64_MAX;
        while (!atomic_load(&m->loop_stop) && plat_now_ns() < due && plat_now_ns() < end)
            plat_sleep_ms(LOOP_TICK_MS);
        if (atomic_load(&m->loop_stop))
            break;
        if (plat_now_ns() >= end) { /* as the stop command; the lines on stderr name the files */
            char written[JP_OUTPUT_LIST_BYTES];
            finish_recording(m, written, sizeof(written));
            break;
        }
        end_period(m);
    }
}

static void start_loop(jp_monitor *m)
{
    m->period_started_ns = plat_now_ns();
    m->period_started = time(NULL);
    if (!(m->loop = plat_thread_start(loop_thread, m)))
        jv_log("jevprof: the thread of the periods and the duration cannot be started; no periods, no end");
    m->looping = m->loop != NULL && m->config.loop_seconds;
}

static void stop_loop(jp_monitor *m)
{
    atomic_store(&m->loop_stop, 1);
    if (m->loop)
        plat_thread_join(m->loop);
    m->loop = NULL;
}

/* SHUTDOWN or the stop command: stop recording, then write everything (once); 0, or -1 when
 * it had been done. */
static int finish(jp_monitor *m, char *written, size_t size)
{
    stop_loop(m); /* before the lock, which the loop's periods take */
    return finish_recording(m, written, size);
}

/* finish, but for the loop itself at the end of the duration. */
static int finish_recording(jp_monitor *m, char *written, size_t size)
{
    plat_mutex_lock(m->writing);
    if (atomic_exchange(&m->finished, 1)) {
        plat_mutex_unlock(m->writing);
        return -1;
    }
    if (m->sampling)
        jp_sampler_stop(&m->sampler);
    if (m->recording_calls)
        jp_calls_stop(&m->calls);
    if (m->recording_allocations) {
        set_allocation_callback(m, NULL);
        jp_allocations_stop(&m->allocations);
    }
    m->stopped_seconds = (double)(plat_now_ns() - m->started_ns) / 1e9;
    jp_tree last_calls = {0}; /* continuous mode: the last period's calls */
    if (m->looping && m->recording_calls &&
        (jp_tree_init(&last_calls) || jp_calls_take_period(&m->calls, &m->calls_before, &last_calls)))
        jv_log("jevprof: out of memory at the end of the last period; its calls are not written");
    jp_profiles p = {
        .samples = m->sampling ? &m->sampler.profile : NULL,
        .calls = !m->recording_calls ? NULL : !m->looping ? &m->calls.totals : last_calls.nodes ? &last_calls : NULL,
        .sites = m->recording_allocations ? &m->allocations.sites : NULL,
        .bytes = &m->allocations.bytes,
        .sample_counts = m->sampler.counts,
        .allocation_counts = m->allocations.counts,
        .sampling_seconds = (double)(m->sampler.stopped_ns - m->sampler.started_ns) / 1e9,
        .threads = m->looping ? NULL : m->calls.thread_summaries, /* the whole run's: not a period's */
        .thread_count = m->looping ? 0 : m->calls.thread_count,
        .started_ns = m->looping ? m->period_started_ns : m->started_ns,
        .started = m->looping ? m->period_started : (time_t)(m->started_unix_ns / 1000000000u),
    };
    jp_config config = m->config;
    if (m->looping)
        period_config(m, &config); /* the last period */
    write_outputs(m, &config, &p, written, size);
    plat_mutex_unlock(m->writing);
    jp_tree_free(&last_calls);
    return 0;
}

/* The parts of a mode that jevprof sets up at Initialize, which a restart cannot change. */
static jp_mode parts_of(jp_mode mode)
{
    return mode & (JP_MODE_SAMPLE | JP_MODE_CALLS | JP_MODE_ALLOC);
}

/* The start command after a stop: a new profile, empty, written to the same files as before
 * (the stop's are replaced at the next dump, stop or end), or with settings (config.h's text)
 * those over the defaults, the registry and the environment, as at a first start; the summary
 * goes on counting from the first start.  A part that cannot start again says so and records
 * nothing.  1 started; 0 it was recording already; -1 the settings need parts of a mode this
 * jevprof did not set up (refusal says which). */
static int restart(jp_monitor *m, const char *settings, char *refusal, size_t size)
{
    jp_config config = m->config;
    if (settings[strspn(settings, " \t")])
        configure(&config, settings);
    plat_mutex_lock(m->writing);
    if (!atomic_load(&m->finished)) {
        plat_mutex_unlock(m->writing);
        return 0;
    }
    if (parts_of(config.mode) != parts_of(m->config.mode)) {
        snprintf(refusal, size, "jevprof: start: mode %s needs what this jevprof did not set up when the VM "
                 "initialized it in mode %s; restart the program for it", jp_mode_name(config.mode),
                 jp_mode_name(m->config.mode));
        plat_mutex_unlock(m->writing);
        return -1;
    }
    stop_loop(m); /* the loop that ended the duration has returned */
    jp_output_release(&m->config); /* the new settings may name other files */
    m->config = config;
    jp_output_prepare(&m->config);
    m->calls.cpu_time = !m->config.wall_time;
    if (m->recording_calls && jp_calls_restart(&m->calls))
        jv_log("jevprof: start: out of memory; calls are not recorded");
    if (m->recording_allocations && jp_allocations_restart(&m->allocations))
        jv_log("jevprof: start: out of memory; allocations are not recorded");
    else if (m->recording_allocations)
        set_allocation_callback(m, &m->IObjectAllocationCallback_iface); /* a refusal is said there */
    if (m->sampling) {
        jp_tree stale;
        jp_sampler_counts counts;
        if (jp_sampler_take(&m->sampler, &stale, &counts) == 0)
            jp_tree_free(&stale);
        jp_sampler_reconfigure(&m->sampler, m->config.interval_ms, (m->config.mode & JP_MODE_WALL) != 0);
        jp_sampler_start(&m->sampler); /* a thread that cannot start is said there */
    }
    m->started_ns = plat_now_ns();
    m->started_unix_ns = (uint64_t)time(NULL) * 1000000000u;
    m->stopped_seconds = 0;
    jp_tree_free(&m->calls_before);
    atomic_store(&m->finished, 0);
    if (m->config.loop_seconds || m->config.duration_seconds) {
        atomic_store(&m->loop_stop, 0);
        start_loop(m);
    }
    plat_mutex_unlock(m->writing);
    return 1;
}

/* The dump command: the outputs of what was recorded so far, from copies of the trees, while
 * recording goes on.  0; -1 when recording had stopped; -2 out of memory. */
static int dump(jp_monitor *m, char *written, size_t size)
{
    jp_tree samples = {0}, calls = {0}, sites = {0}, bytes = {0};
    jp_profiles p = {0};
    int failed = jp_tree_init(&samples) | jp_tree_init(&calls) | jp_tree_init(&sites) | jp_tree_init(&bytes);
    plat_mutex_lock(m->writing);
    if (atomic_load(&m->finished))
        failed = -1;
    if (!failed && m->sampling) {
        failed = jp_sampler_snapshot(&m->sampler, &samples, &p.sample_counts) ? -2 : 0;
        p.samples = &samples;
        p.sampling_seconds = (double)(plat_now_ns() - m->sampler.started_ns) / 1e9;
    }
    if (!failed && m->recording_calls) {
        failed = jp_calls_snapshot(&m->calls, &calls) ? -2 : 0;
        p.calls = &calls; /* threads that have not ended are not summed up yet: no per-thread table */
    }
    if (!failed && m->recording_allocations) {
        failed = jp_allocations_snapshot(&m->allocations, &sites, &bytes, &p.allocation_counts) ? -2 : 0;
        p.sites = &sites;
    }
    p.bytes = &bytes;
    p.started_ns = m->looping ? m->period_started_ns : m->started_ns;
    p.started = m->looping ? m->period_started : (time_t)(m->started_unix_ns / 1000000000u);
    if (!failed)
        write_outputs(m, &m->config, &p, written, size);
    plat_mutex_unlock(m->writing);
    jp_tree_free(&samples), jp_tree_free(&calls), jp_tree_free(&sites), jp_tree_free(&bytes);
    return failed;
}

static HRESULT STDMETHODCALLTYPE monitor_NotifyEvent(IJavaEventMonitor2 *iface, JVM_EVENT_TYPE event,
                                                     UniqueID event_id)
{
    jp_monitor *m = impl_from_IJavaEventMonitor2(iface);
    switch (event) {
    case JVM_EVENT_TYPE_THREAD_CREATE:
        jp_summary_thread_created(&m->summary);
        if (m->sampling)
            jp_sampler_thread_created(&m->sampler, event_id);
        break;
    case JVM_EVENT_TYPE_THREAD_DESTROY:
        /* The ThreadID expires when this returns: the sampler lets go of it first. */
        if (m->sampling)
            jp_sampler_thread_destroyed(&m->sampler, event_id);
        if (m->recording_calls)
            jp_calls_thread_ended(&m->calls, event_id);
        jp_summary_thread_destroyed(&m->summary);
        break;
    case JVM_EVENT_TYPE_CLASS_LOAD_FINISHED:
        atomic_fetch_add(&m->summary.classes_loaded, 1);
        break;
    case JVM_EVENT_TYPE_CLASS_UNLOAD:
        /* The class's MethodIDs expire when this returns, and the trees still hold them. */
        atomic_fetch_add(&m->summary.classes_unloaded, 1);
        if (m->recording_allocations)
            jp_allocations_class_unloading(&m->allocations, event_id);
        jp_names_class_unloading(&m->names, m->info, event_id);
        break;
    case JVM_EVENT_TYPE_GC_STARTED:
        jp_summary_gc_started(&m->summary, plat_now_ns());
        break;
    case JVM_EVENT_TYPE_GC_FINISHED:
        jp_summary_gc_finished(&m->summary, plat_now_ns());
        break;
    case JVM_EVENT_TYPE_SHUTDOWN: {
        char written[JP_OUTPUT_LIST_BYTES];
        finish(m, written, sizeof(written)); /* after a stop: nothing more */
        break;
    }
    default:
        break;
    }
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE monitor_GetPossibleEventCategories(IJavaEventMonitor2 *iface,
                                                                    DWORD *ppossible_events)
{
    if (!ppossible_events)
        return E_POINTER;
    *ppossible_events = impl_from_IJavaEventMonitor2(iface)->categories; /* never more than at Initialize */
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE monitor_MethodExit2(IJavaEventMonitor2 *iface, MethodID method_id,
                                                     StackID stack_id)
{
    (void)method_id; /* the caller's method: the StackID alone says where the thread is back */
    return monitor_MethodExit(iface, stack_id);
}

static HRESULT STDMETHODCALLTYPE monitor_NotifyEvent2(IJavaEventMonitor2 *iface, JVM_EVENT_TYPE2 event2,
                                                      UniqueID first_event_id, UniqueID second_event_id)
{
    jp_monitor *m = impl_from_IJavaEventMonitor2(iface);
    ThreadID current = 0;
    switch (event2) {
    case JVM_EVENT_TYPE2_STACK_TRACE:
        /* the frames of a stack the sampler or the allocation recorder is taking on this thread */
        jp_stack_trace_on_frame(m->info2, first_event_id);
        break;
    case JVM_EVENT_TYPE2_EXCEPTION_THROWN:
        /* (throwing frame or thread, the exception's ObjectID): spec 6.5 */
        jp_summary_exception(&m->summary, jp_names_class_of_object(&m->names, m->info, second_event_id));
        break;
    case JVM_EVENT_TYPE2_INITIALIZED:
        /* Delivered on the thread that started the VM, which no THREAD_CREATE announced. */
        if (m->sampling && SUCCEEDED(IJavaEventMonitorIDInfo2_GetCurrentThread(m->info2, &current)) && current)
            jp_sampler_thread_created(&m->sampler, current);
        break;
    default:
        break;
    }
    return S_OK;
}

static const IJavaEventMonitor2Vtbl monitor_vtbl = {
    monitor_QueryInterface,
    monitor_AddRef,
    monitor_Release,
    /* IJavaEventMonitor */
    monitor_ExecuteByteCode,
    monitor_ExecuteSourceLine,
    monitor_Initialize,
    monitor_MethodEntry,
    monitor_MethodExit,
    monitor_NotifyEvent,
    /* IJavaEventMonitor2 */
    monitor_GetPossibleEventCategories,
    monitor_MethodExit2,
    monitor_NotifyEvent2,
};

static inline jp_monitor *impl_from_IObjectAllocationCallback(IObjectAllocationCallback *iface)
{
    return (jp_monitor *)((char *)iface - offsetof(jp_monitor, IObjectAllocationCallback_iface));
}

/* The callback is the monitor object seen through another interface: one identity, one count. */
static HRESULT STDMETHODCALLTYPE allocation_callback_QueryInterface(IObjectAllocationCallback *iface, REFIID riid,
                                                                    void **ppv)
{
    return monitor_QueryInterface(&impl_from_IObjectAllocationCallback(iface)->IJavaEventMonitor2_iface, riid, ppv);
}

static ULONG STDMETHODCALLTYPE allocation_callback_AddRef(IObjectAllocationCallback *iface)
{
    return monitor_AddRef(&impl_from_IObjectAllocationCallback(iface)->IJavaEventMonitor2_iface);
}

static ULONG STDMETHODCALLTYPE allocation_callback_Release(IObjectAllocationCallback *iface)
{
    return monitor_Release(&impl_from_IObjectAllocationCallback(iface)->IJavaEventMonitor2_iface);
}

static HRESULT STDMETHODCALLTYPE allocation_callback_OnObjectAllocated(IObjectAllocationCallback *iface,
                                                                       ObjectID object_id, ClassID class_id)
{
    jp_monitor *m = impl_from_IObjectAllocationCallback(iface);
    if (m->recording_allocations)
        jp_allocations_record(&m->allocations, object_id, class_id);
    return S_OK;
}

static const IObjectAllocationCallbackVtbl allocation_callback_vtbl = {
    allocation_callback_QueryInterface,
    allocation_callback_AddRef,
    allocation_callback_Release,
    allocation_callback_OnObjectAllocated,
};

static inline jp_monitor *impl_from_IJevmonCommands(IJevmonCommands *iface)
{
    return (jp_monitor *)((char *)iface - offsetof(jp_monitor, IJevmonCommands_iface));
}

static HRESULT STDMETHODCALLTYPE commands_QueryInterface(IJevmonCommands *iface, REFIID riid, void **ppv)
{
    return monitor_QueryInterface(&impl_from_IJevmonCommands(iface)->IJavaEventMonitor2_iface, riid, ppv);
}

static ULONG STDMETHODCALLTYPE commands_AddRef(IJevmonCommands *iface)
{
    return monitor_AddRef(&impl_from_IJevmonCommands(iface)->IJavaEventMonitor2_iface);
}

static ULONG STDMETHODCALLTYPE commands_Release(IJevmonCommands *iface)
{
    return monitor_Release(&impl_from_IJevmonCommands(iface)->IJavaEventMonitor2_iface);
}

/* The status command's answer: what is recorded, for how long, where the files go. */
static void describe_status(jp_monitor *m, char *out, size_t size)
{
    char counts[160] = "";
    const char *mode = jp_mode_name(m->config.mode);
    if (atomic_load(&m->finished)) {
        snprintf(out, size, "jevprof: stopped after %.3f s of %s; its files are %s/%s*", m->stopped_seconds, mode,
                 m->config.output_dir, m->config.file_prefix);
        return;
    }
    if (m->sampling) {
        plat_mutex_lock(m->sampler.lock);
        snprintf(counts, sizeof(counts), ", %llu thread samples", (unsigned long long)m->sampler.counts.samples);
        plat_mutex_unlock(m->sampler.lock);
    }
    if (m->recording_allocations) {
        size_t used = strlen(counts);
        plat_mutex_lock(m->allocations.lock);
        snprintf(counts + used, sizeof(counts) - used, ", %llu allocations reported",
                 (unsigned long long)m->allocations.counts.recorded);
        plat_mutex_unlock(m->allocations.lock);
    }
    snprintf(out, size, "jevprof: recording %s for %.3f s%s; files go to %s/%s* (dump writes them now)", mode,
             (double)(plat_now_ns() - m->started_ns) / 1e9, counts, m->config.output_dir, m->config.file_prefix);
}

/* Before Initialize: "start" and settings, kept for Initialize (no answer: at start-up the
 * program's output stays its own). */
static HRESULT take_settings(jp_monitor *m, const char *settings)
{
    char *copy = strdup(settings);
    if (!copy)
        return E_OUTOFMEMORY;
    free(m->settings);
    m->settings = copy;
    return S_OK;
}

/* start (with settings, config.h), stop, dump, status (spaces around the word are ignored; only
 * start takes more); anything else is not jevprof's. */
static HRESULT STDMETHODCALLTYPE commands_Command(IJevmonCommands *iface, LPCSTR command, LPSTR *panswer)
{
    jp_monitor *m = impl_from_IJevmonCommands(iface);
    char word[16] = "", answer[JP_OUTPUT_LIST_BYTES + 128], written[JP_OUTPUT_LIST_BYTES];
    HRESULT hr = S_OK;
    if (!command || !panswer)
        return E_POINTER;
    *panswer = NULL;
    size_t start = strspn(command, " \t"), length = strcspn(command + start, " \t");
    const char *rest = command + start + length;
    if (length >= sizeof(word))
        return S_FALSE;
    memcpy(word, command + start, length);
    if (rest[strspn(rest, " \t")] != '\0' && strcmp(word, "start") != 0)
        return S_FALSE; /* only start takes settings */
    if (!m->info && strcmp(word, "start") == 0)
        return take_settings(m, rest);
    if (!m->info) {
        snprintf(answer, sizeof(answer), "jevprof: %s: not initialized by the VM", word);
        hr = E_UNEXPECTED;
    } else if (strcmp(word, "status") == 0) {
        describe_status(m, answer, sizeof(answer));
    } else if (strcmp(word, "dump") == 0) {
        int failed = dump(m, written, sizeof(written));
        if (failed == -1)
            snprintf(answer, sizeof(answer), "jevprof: dump: stopped already; the stop wrote the files");
        else if (failed)
            snprintf(answer, sizeof(answer), "jevprof: dump: out of memory; nothing written");
        else
            snprintf(answer, sizeof(answer), "jevprof: dumped the profile so far, recording goes on: %s", written);
        hr = failed ? E_FAIL : S_OK;
    } else if (strcmp(word, "stop") == 0) {
        if (finish(m, written, sizeof(written)))
            snprintf(answer, sizeof(answer), "jevprof: stop: stopped already");
        else
            snprintf(answer, sizeof(answer), "jevprof: stopped after %.3f s: %s", m->stopped_seconds, written);
    } else if (strcmp(word, "start") == 0) {
        /* Recording starts with the VM's Initialize (also when the agent is attached); after a
         * stop, start begins a new profile. */
        char status[JP_OUTPUT_LIST_BYTES];
        int started = restart(m, rest, answer, sizeof(answer));
        describe_status(m, status, sizeof(status));
        if (started >= 0)
            snprintf(answer, sizeof(answer), "%s%s", started ? "jevprof: started a new profile; " : "",
                     started ? status + strlen("jevprof: ") : status);
        if (started < 0 || (!started && rest[strspn(rest, " \t")])) /* settings not taken */
            hr = E_FAIL;
        if (!started && hr == E_FAIL)
            snprintf(answer + strlen(answer), sizeof(answer) - strlen(answer),
                     "\njevprof: start: the settings are not taken while it records: stop it first");
    } else
        return S_FALSE;
    size_t size = strlen(answer) + 1;
    if ((*panswer = CoTaskMemAlloc(size)) != NULL)
        memcpy(*panswer, answer, size);
    return hr;
}

static const IJevmonCommandsVtbl commands_vtbl = {
    commands_QueryInterface,
    commands_AddRef,
    commands_Release,
    commands_Command,
};

HRESULT jp_monitor_create(REFIID riid, void **ppv)
{
    jp_monitor *m = calloc(1, sizeof(*m));
    if (!m)
        return E_OUTOFMEMORY;
    if (jp_names_init(&m->names) || jp_summary_init(&m->summary) || !(m->writing = plat_mutex_create())) {
        jp_names_free(&m->names);
        jp_summary_free(&m->summary);
        free(m);
        return E_OUTOFMEMORY;
    }
    m->IJavaEventMonitor2_iface.lpVtbl = &monitor_vtbl;
    m->IObjectAllocationCallback_iface.lpVtbl = &allocation_callback_vtbl;
    m->IJevmonCommands_iface.lpVtbl = &commands_vtbl;
    m->ref = 1;
    jp_module_lock();
    HRESULT hr = monitor_QueryInterface(&m->IJavaEventMonitor2_iface, riid, ppv);
    monitor_Release(&m->IJavaEventMonitor2_iface);
    return hr;
}
