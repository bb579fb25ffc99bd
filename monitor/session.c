/*
 * session.c - the profile jevprof records (see profiler.h): the parts of its mode started at
 * Initialize, the periods of continuous mode (JEVPROF_LOOP) and the duration (JEVPROF_DURATION)
 * on a thread of their own, the end (SHUTDOWN or stop) that writes the outputs once, a dump of
 * what was recorded so far, and a restart after a stop, with other settings when given.  The
 * frames that stand for no method are named here too, for the writers.
 */
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "profiler.h"

/* Asked for in every mode: the summary's events.  EXCEPTIONS only with the setting: while any agent
 * listens to exceptions, HotSpot sends every throw in compiled code through a deoptimization, which
 * costs microseconds per exception (docs/jevprof.md). */
#define JP_SUMMARY_CATEGORIES (JVM_MONITOR_CLASS_LOADS | JVM_MONITOR_GARBAGE_COLLECTIONS | JVM_MONITOR_THREADS)

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
    int failed = jp_allocations_init(&m->allocations, m->info2, &m->classes, sampling);
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

/* Registers callback with the VM's IJevmonLockWaits (NULL unregisters) at the threshold of the
 * settings; the HRESULT, with one line saying why when it fails. */
static HRESULT set_lock_wait_callback(jp_monitor *m, IJevmonLockWaitCallback *callback)
{
    IJevmonLockWaits *waits = NULL;
    if (FAILED(IJavaEventMonitorIDInfo_QueryInterface(m->info, &IID_IJevmonLockWaits, (void **)&waits)) || !waits) {
        jv_log("jevprof: the VM has no IJevmonLockWaits (jevmon's extension); lock recording is off");
        return E_NOINTERFACE;
    }
    HRESULT hr = IJevmonLockWaits_NotifyOnLockWaits(waits, callback, m->config.lock_threshold_ns);
    IJevmonLockWaits_Release(waits);
    if (FAILED(hr))
        jv_log("jevprof: NotifyOnLockWaits(%s) failed (0x%08lx); %s", callback ? "callback" : "NULL",
               (unsigned long)(DWORD)hr, callback ? "lock recording is off" : "lock waits may still be told");
    return hr;
}

/* Lock mode: the recorder, then the callback that feeds it. */
static void start_recording_locks(jp_monitor *m)
{
    if (!m->info2) {
        jv_log("jevprof: the VM has no IJavaEventMonitorIDInfo2, so lock waits have no stacks; lock recording is off");
        return;
    }
    if (jp_locks_init(&m->locks, m->info2, &m->classes, m->config.lock_threshold_ns)) {
        jv_log("jevprof: out of memory; lock recording is off");
        return;
    }
    m->recording_locks = 1; /* before the first wait can be told */
    if (FAILED(set_lock_wait_callback(m, &m->IJevmonLockWaitCallback_iface))) {
        m->recording_locks = 0;
        jp_locks_free(&m->locks);
    }
}

/* Registers callback with the VM's IJevmonCallBatches, which calls mode keeps (NULL unregisters); the
 * HRESULT, with one line saying why when it fails. */
static HRESULT set_call_batch_callback(jp_monitor *m, IJevmonCallBatchCallback *callback)
{
    HRESULT hr = IJevmonCallBatches_DeliverCallsInBatches(m->calls.batches, callback);
    if (FAILED(hr))
        jv_log("jevprof: DeliverCallsInBatches(%s) failed (0x%08lx); %s", callback ? "callback" : "NULL",
               (unsigned long)(DWORD)hr, callback ? "call recording is off" : "calls may still be delivered");
    return hr;
}

/* Calls mode: the recorder, which keeps the VM's IJevmonCallBatches to flush, then the callback
 * that feeds it. */
static void start_recording_calls(jp_monitor *m)
{
    IJevmonCallBatches *batches = NULL;
    if (FAILED(IJavaEventMonitorIDInfo_QueryInterface(m->info, &IID_IJevmonCallBatches, (void **)&batches)) ||
        !batches) {
        jv_log("jevprof: the VM has no IJevmonCallBatches (jevmon's extension); call recording is off");
        return;
    }
    int failed = jp_calls_init(&m->calls, m->info2, batches, !m->config.wall_time);
    IJevmonCallBatches_Release(batches);
    if (failed) {
        jv_log("jevprof: out of memory; call recording is off");
        return;
    }
    m->recording_calls = 1; /* before the first batch can come */
    if (FAILED(set_call_batch_callback(m, &m->IJevmonCallBatchCallback_iface))) {
        m->recording_calls = 0;
        jp_calls_free(&m->calls);
    }
}

/* Native frames (cstack) and, in cpu mode, the kernel frames with them and the JVM's own threads
 * (threads=all). */
static void configure_native(jp_monitor *m)
{
    int cpu = !(m->config.mode & JP_MODE_WALL);
    jp_native_configure(&m->sampler.native, m->config.native_frames, m->config.vm_threads && cpu,
                        !cpu ? "wall mode" : !m->config.kernel_frames ? "kstack no" : NULL);
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
    if (m->sampling)
        configure_native(m);
    if (m->config.mode & JP_MODE_CALLS)
        start_recording_calls(m);
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
    if (m->config.mode & JP_MODE_LOCK)
        start_recording_locks(m);
}

void jp_session_configure(jp_config *config, const char *settings)
{
    jp_config_load(config);
    if (settings)
        jp_config_parse(config, settings);
    jp_config_expand(config, plat_process_id(), time(NULL));
}

/* A frame that stands for no method (an allocated class, an unknown), or NULL. */
static const char *frame_name(jp_monitor *m, MethodID method)
{
    const char *class_name = jp_class_frames_name(&m->classes, method);
    if (class_name)
        return class_name;
    const char *state = jp_sampler_state_name(method);
    if (state)
        return state;
    const char *native = m->sampling ? jp_native_frame_name(&m->sampler.native, method) : NULL;
    if (native)
        return native;
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
    jp_frame_kind native;
    if (jp_class_frames_name(&m->classes, method))
        return JP_FRAME_CLASS;
    if (m->sampling && jp_native_frame_kind(&m->sampler.native, method, &native))
        return native;
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
    const jp_tree *lock_waits, *lock_delay;        /* NULL: not recorded */
    const jp_event_log *sample_events, *allocation_events, *lock_events; /* of samples, sites, lock_waits */
    jp_sampler_counts sample_counts;
    jp_allocation_counts allocation_counts, lock_counts;
    double sampling_seconds;
    const jp_thread_summary *threads; /* calls: the threads folded (at the end) */
    size_t thread_count;
    uint64_t started_ns;      /* the start of what they hold: recording's, or the period's */
    uint64_t started_unix_ns; /* the same moment on the wall clock, ns since 1970 */
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
    name_methods(m, p->lock_waits);
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
        .started_unix_ns = p->started_unix_ns,
        .started_ns = p->started_ns,
        .samples = samples.nodes ? &samples : NULL,
        .sample_lines = samples.nodes ? p->samples : NULL,
        .sample_counts = &p->sample_counts,
        .sample_events = p->sample_events,
        .sampling_seconds = p->sampling_seconds,
        .native = m->sampling ? &m->sampler.native : NULL,
        .calls = p->calls,
        .lost_threads = m->calls.lost_threads,
        .threads = p->threads,
        .thread_count = p->thread_count,
        .allocations = p->sites,
        .allocated_bytes = p->bytes,
        .allocation_counts = &p->allocation_counts,
        .allocation_events = p->allocation_events,
        .allocations_weighted = p->sites && m->allocations.sampling,
        .allocation_interval = m->allocations.interval,
        .lock_waits = p->lock_waits,
        .lock_delay = p->lock_delay,
        .lock_counts = &p->lock_counts,
        .lock_events = p->lock_events,
        .lock_threshold_ns = m->locks.threshold_ns,
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
    jp_tree samples = {0}, calls = {0}, sites = {0}, bytes = {0}, waits = {0}, delay = {0};
    jp_event_log sample_events = {0}, allocation_events = {0}, lock_events = {0};
    jp_profiles p = {.sample_events = &sample_events, .allocation_events = &allocation_events,
                     .lock_events = &lock_events};
    char written[JP_OUTPUT_LIST_BYTES];
    plat_mutex_lock(m->writing);
    if (atomic_load(&m->finished)) {
        plat_mutex_unlock(m->writing);
        return;
    }
    uint64_t now_ns = plat_now_ns();
    time_t now = time(NULL); /* the next period's stamp: a second after this one's, however long writing takes */
    int failed = m->sampling && jp_sampler_take(&m->sampler, &samples, &sample_events, &p.sample_counts);
    failed |= m->recording_allocations &&
              jp_allocations_take(&m->allocations, &sites, &bytes, &allocation_events, &p.allocation_counts);
    failed |= m->recording_locks && jp_allocations_take(&m->locks.waits, &waits, &delay, &lock_events, &p.lock_counts);
    int calls_failed = m->recording_calls && (jp_tree_init(&calls) ||
                                               jp_calls_take_period(&m->calls, &m->calls_before, &calls));
    failed |= calls_failed;
    p.samples = m->sampling && samples.nodes ? &samples : NULL;
    p.calls = m->recording_calls && !calls_failed ? &calls : NULL;
    p.sampling_seconds = (double)(now_ns - m->period_started_ns) / 1e9;
    p.sites = m->recording_allocations && sites.nodes ? &sites : NULL;
    p.bytes = &bytes;
    p.lock_waits = m->recording_locks && waits.nodes ? &waits : NULL;
    p.lock_delay = &delay;
    p.started_ns = m->period_started_ns;
    p.started_unix_ns = m->period_started_unix_ns;
    if (failed)
        jv_log("jevprof: out of memory at the end of a period; its profile goes on into the next");
    jp_config config;
    period_config(m, &config);
    if (p.samples || p.calls || p.sites || p.lock_waits ||
        !(m->sampling || m->recording_calls || m->recording_allocations || m->recording_locks))
        write_outputs(m, &config, &p, written, sizeof(written));
    m->period_started_ns = now_ns;
    m->period_started = now;
    m->period_started_unix_ns = plat_unix_ns();
    plat_mutex_unlock(m->writing);
    jp_tree_free(&samples), jp_tree_free(&calls), jp_tree_free(&sites), jp_tree_free(&bytes);
    jp_tree_free(&waits), jp_tree_free(&delay);
    jp_event_log_free(&sample_events), jp_event_log_free(&allocation_events), jp_event_log_free(&lock_events);
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
    m->period_started_unix_ns = plat_unix_ns();
    if (!(m->loop = plat_thread_start("jevprof periods", loop_thread, m)))
        jv_log("jevprof: the thread of the periods and the duration cannot be started; no periods, no end");
    m->looping = m->loop != NULL && m->config.loop_seconds;
}

void jp_session_stop_loop(jp_monitor *m)
{
    atomic_store(&m->loop_stop, 1);
    if (m->loop)
        plat_thread_join(m->loop);
    m->loop = NULL;
}

int jp_session_finish(jp_monitor *m, char *written, size_t size)
{
    jp_session_stop_loop(m); /* before the lock, which the loop's periods take */
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
    if (m->recording_calls) {
        jp_calls_stop(&m->calls);
        set_call_batch_callback(m, NULL); /* after its final flush: what comes since is after the stop */
    }
    if (m->recording_allocations) {
        set_allocation_callback(m, NULL);
        jp_allocations_stop(&m->allocations);
    }
    if (m->recording_locks) {
        set_lock_wait_callback(m, NULL);
        jp_allocations_stop(&m->locks.waits);
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
        .lock_waits = m->recording_locks ? &m->locks.waits.sites : NULL,
        .lock_delay = &m->locks.waits.bytes,
        .sample_events = &m->sampler.events,
        .allocation_events = &m->allocations.events,
        .lock_events = &m->locks.waits.events,
        .sample_counts = m->sampler.counts,
        .allocation_counts = m->allocations.counts,
        .lock_counts = m->locks.waits.counts,
        .sampling_seconds = (double)(m->sampler.stopped_ns - m->sampler.started_ns) / 1e9,
        .threads = m->looping ? NULL : m->calls.thread_summaries, /* the whole run's: not a period's */
        .thread_count = m->looping ? 0 : m->calls.thread_count,
        .started_ns = m->looping ? m->period_started_ns : m->started_ns,
        .started_unix_ns = m->looping ? m->period_started_unix_ns : m->started_unix_ns,
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
    return mode & (JP_MODE_SAMPLE | JP_MODE_CALLS | JP_MODE_ALLOC | JP_MODE_LOCK);
}

/* The start command after a stop: a new profile, empty, written to the same files as before
 * (the stop's are replaced at the next dump, stop or end), or with settings (config.h's text)
 * those over the defaults, the registry and the environment, as at a first start; the summary
 * goes on counting from the first start.  A part that cannot start again says so and records
 * nothing. */
int jp_session_restart(jp_monitor *m, const char *settings, char *refusal, size_t size)
{
    jp_config config = m->config;
    if (settings[strspn(settings, " \t")])
        jp_session_configure(&config, settings);
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
    jp_session_stop_loop(m); /* the loop that ended the duration has returned */
    jp_output_release(&m->config); /* the new settings may name other files */
    m->config = config;
    jp_output_prepare(&m->config);
    m->calls.cpu_time = !m->config.wall_time;
    if (m->recording_calls && jp_calls_restart(&m->calls))
        jv_log("jevprof: start: out of memory; calls are not recorded");
    else if (m->recording_calls)
        set_call_batch_callback(m, &m->IJevmonCallBatchCallback_iface); /* a refusal is said there */
    if (m->recording_allocations && jp_allocations_restart(&m->allocations))
        jv_log("jevprof: start: out of memory; allocations are not recorded");
    else if (m->recording_allocations)
        set_allocation_callback(m, &m->IObjectAllocationCallback_iface); /* a refusal is said there */
    m->locks.threshold_ns = m->config.lock_threshold_ns;
    if (m->recording_locks && jp_allocations_restart(&m->locks.waits))
        jv_log("jevprof: start: out of memory; lock waits are not recorded");
    else if (m->recording_locks)
        set_lock_wait_callback(m, &m->IJevmonLockWaitCallback_iface); /* a refusal is said there */
    if (m->sampling) {
        jp_tree stale;
        jp_event_log stale_events;
        jp_sampler_counts counts;
        if (jp_sampler_take(&m->sampler, &stale, &stale_events, &counts) == 0)
            jp_tree_free(&stale), jp_event_log_free(&stale_events);
        jp_sampler_reconfigure(&m->sampler, m->config.interval_ms, (m->config.mode & JP_MODE_WALL) != 0);
        configure_native(m);
        jp_sampler_start(&m->sampler); /* a thread that cannot start is said there */
    }
    m->started_ns = plat_now_ns();
    m->started_unix_ns = plat_unix_ns();
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

/* From copies of the trees, so that recording goes on while they are written. */
int jp_session_dump(jp_monitor *m, char *written, size_t size)
{
    jp_tree samples = {0}, calls = {0}, sites = {0}, bytes = {0}, waits = {0}, delay = {0};
    jp_event_log sample_events = {0}, allocation_events = {0}, lock_events = {0};
    jp_profiles p = {.sample_events = &sample_events, .allocation_events = &allocation_events,
                     .lock_events = &lock_events};
    int failed = jp_tree_init(&samples) | jp_tree_init(&calls) | jp_tree_init(&sites) | jp_tree_init(&bytes) |
                 jp_tree_init(&waits) | jp_tree_init(&delay);
    plat_mutex_lock(m->writing);
    if (atomic_load(&m->finished))
        failed = -1;
    if (!failed && m->sampling) {
        failed = jp_sampler_snapshot(&m->sampler, &samples, &sample_events, &p.sample_counts) ? -2 : 0;
        p.samples = &samples;
        p.sampling_seconds = (double)(plat_now_ns() - m->sampler.started_ns) / 1e9;
    }
    if (!failed && m->recording_calls) {
        failed = jp_calls_snapshot(&m->calls, &calls) ? -2 : 0;
        p.calls = &calls; /* threads that have not ended are not summed up yet: no per-thread table */
    }
    if (!failed && m->recording_allocations) {
        failed = jp_allocations_snapshot(&m->allocations, &sites, &bytes, &allocation_events, &p.allocation_counts) ? -2 : 0;
        p.sites = &sites;
    }
    if (!failed && m->recording_locks) {
        failed = jp_allocations_snapshot(&m->locks.waits, &waits, &delay, &lock_events, &p.lock_counts) ? -2 : 0;
        p.lock_waits = &waits;
    }
    p.bytes = &bytes;
    p.lock_delay = &delay;
    p.started_ns = m->looping ? m->period_started_ns : m->started_ns;
    p.started_unix_ns = m->looping ? m->period_started_unix_ns : m->started_unix_ns;
    if (!failed)
        write_outputs(m, &m->config, &p, written, size);
    plat_mutex_unlock(m->writing);
    jp_tree_free(&samples), jp_tree_free(&calls), jp_tree_free(&sites), jp_tree_free(&bytes);
    jp_tree_free(&waits), jp_tree_free(&delay);
    jp_event_log_free(&sample_events), jp_event_log_free(&allocation_events), jp_event_log_free(&lock_events);
    return failed;
}


void jp_session_start(jp_monitor *m)
{
    start_recording(m);
    if (m->config.loop_seconds || m->config.duration_seconds)
        start_loop(m);
}
