/*
 * monitor.c - the jevprof event monitor: the COM object the VM creates, implementing
 * IJavaEventMonitor and IJavaEventMonitor2, and in alloc mode IObjectAllocationCallback, which
 * it registers with the VM's IJavaHeapMonitor, in lock mode IJevmonLockWaitCallback, which it
 * registers with the VM's IJevmonLockWaits, in calls mode IJevmonCallBatchCallback, which it
 * registers with the VM's IJevmonCallBatches (and IJevmonCommands: commands.c).  Initialize
 * reads the configuration and starts the profile (session.c); each event goes to the part that
 * records it (calls.c, sampler.c, allocations.c, locks.c, summary.c, names.c); SHUTDOWN ends the profile
 * and writes the outputs.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "profiler.h"
#include "stacktrace.h"

/* What jevprof promises in Initialize so that the VM can deliver method calls cheaply: the
 * hot path keeps floating-point state, runs no Java code, never toggles method-call events,
 * never asks for return values, and never reads allocation counts.  Outside alloc mode it
 * also promises never to register an allocation callback, so that allocations cost nothing. */
#define JP_INIT_OPTIONS                                                                                  \
    (JVM_INIT_OPT_FP_SAFE_METHOD_CALLS | JVM_INIT_OPT_GC_SAFE_METHOD_CALLS |                             \
     JVM_INIT_OPT_RETURN_VALUE_NOT_NEEDED | JVM_INIT_OPT_WONT_TOGGLE_METHOD_CALL_EVENTS |                \
     JVM_INIT_OPT_DONT_NEED_ALLOCATION_COUNTS)

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
    if (IsEqualIID(riid, &IID_IJevmonLockWaitCallback)) {
        *ppv = &impl_from_IJavaEventMonitor2(iface)->IJevmonLockWaitCallback_iface;
        IJavaEventMonitor2_AddRef(iface);
        return S_OK;
    }
    if (IsEqualIID(riid, &IID_IJevmonCallBatchCallback)) {
        *ppv = &impl_from_IJavaEventMonitor2(iface)->IJevmonCallBatchCallback_iface;
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

static void monitor_destroy(jp_monitor *m)
{
    jp_session_stop_loop(m);
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
    if (m->recording_locks) /* likewise */
        jp_locks_free(&m->locks);
    jp_class_frames_free(&m->classes);
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
    free(m->startup_lines);
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

/* Promises JP_INIT_OPTIONS when the VM takes initialization options (IDInfo4), then jevmon's: jevprof
 * names threads as the system does (the sampler reads them) and counts the classes loaded, not those
 * that failed, so the bridge need not rewrite Thread.setName and the failures' constructors for it.
 * Apart, so that a VM refusing jevmon's bits still takes the first. */
static void set_init_options(jp_monitor *m)
{
    IJavaEventMonitorIDInfo4 *info4 = NULL;
    if (FAILED(IJavaEventMonitorIDInfo_QueryInterface(m->info, &IID_IJavaEventMonitorIDInfo4, (void **)&info4)) ||
        !info4)
        return;
    DWORD options = JP_INIT_OPTIONS;
    if (!(m->config.mode & JP_MODE_ALLOC))
        options |= JVM_INIT_OPT_DONT_NEED_ALLOCATION_CALLBACK;
    /* a refusal costs only speed; promises accumulate */
    IJavaEventMonitorIDInfo4_SetMonitorInitializationOptions(info4, options);
    IJavaEventMonitorIDInfo4_SetMonitorInitializationOptions(
        info4, JEVMON_INIT_OPT_DONT_NEED_THREAD_RENAMES | JEVMON_INIT_OPT_DONT_NEED_CLASS_LOAD_FAILURES);
    IJavaEventMonitorIDInfo4_Release(info4);
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
    m->classes.info = m->info;
    if (FAILED(IJavaEventMonitorIDInfo_QueryInterface(m->info, &IID_IJavaEventMonitorIDInfo2, (void **)&m->info2)))
        m->info2 = NULL;
    size_t program_size = pclass_file_name ? strlen(pclass_file_name) + 1 : 1;
    if ((m->program = malloc(program_size)))
        jp_program_display_name(pclass_file_name ? pclass_file_name : "", m->program, program_size);
    m->started_ns = plat_now_ns();
    m->started_unix_ns = plat_unix_ns();
    jp_capture_begin(1); /* for an attach's caller, who asks for the status next (commands.c) */
    jp_session_configure(&m->config, m->settings);
    jp_output_prepare(&m->config); /* a directory that cannot be made is said now, not at the end */
    set_init_options(m);
    jp_session_start(m);
    m->startup_lines = jp_capture_end();
    m->startup_thread = plat_os_thread_id();
    *prequested_events = m->categories;
    return S_OK;
}

/* Calls mode takes its calls in batches (OnCallBatch): the VM sends these only while no batch
 * callback is registered, after a stop, when nothing is recorded. */
static HRESULT STDMETHODCALLTYPE monitor_MethodEntry(IJavaEventMonitor2 *iface, MethodID method_id, StackID stack_id)
{
    (void)iface, (void)method_id, (void)stack_id;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE monitor_MethodExit(IJavaEventMonitor2 *iface, StackID stack_id)
{
    (void)iface, (void)stack_id;
    return S_OK;
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
        jp_class_frames_unloading(&m->classes, event_id);
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
        jp_session_finish(m, written, sizeof(written)); /* after a stop: nothing more */
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
    (void)iface, (void)method_id, (void)stack_id; /* as MethodEntry: the calls come in batches */
    return S_OK;
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

/* ---- IJevmonLockWaitCallback: lock mode's, the monitor object seen through another interface ---- */

static inline jp_monitor *impl_from_IJevmonLockWaitCallback(IJevmonLockWaitCallback *iface)
{
    return (jp_monitor *)((char *)iface - offsetof(jp_monitor, IJevmonLockWaitCallback_iface));
}

static HRESULT STDMETHODCALLTYPE lock_callback_QueryInterface(IJevmonLockWaitCallback *iface, REFIID riid, void **ppv)
{
    return monitor_QueryInterface(&impl_from_IJevmonLockWaitCallback(iface)->IJavaEventMonitor2_iface, riid, ppv);
}

static ULONG STDMETHODCALLTYPE lock_callback_AddRef(IJevmonLockWaitCallback *iface)
{
    return monitor_AddRef(&impl_from_IJevmonLockWaitCallback(iface)->IJavaEventMonitor2_iface);
}

static ULONG STDMETHODCALLTYPE lock_callback_Release(IJevmonLockWaitCallback *iface)
{
    return monitor_Release(&impl_from_IJevmonLockWaitCallback(iface)->IJavaEventMonitor2_iface);
}

static HRESULT STDMETHODCALLTYPE lock_callback_OnLockWait(IJevmonLockWaitCallback *iface, DWORD kind,
                                                         ClassID lock_class, ULONGLONG waited_ns)
{
    jp_monitor *m = impl_from_IJevmonLockWaitCallback(iface);
    if (m->recording_locks)
        jp_locks_record(&m->locks, kind, lock_class, waited_ns);
    return S_OK;
}

static const IJevmonLockWaitCallbackVtbl lock_callback_vtbl = {
    lock_callback_QueryInterface,
    lock_callback_AddRef,
    lock_callback_Release,
    lock_callback_OnLockWait,
};

/* ---- IJevmonCallBatchCallback: calls mode's, the monitor object seen through another interface ---- */

static inline jp_monitor *impl_from_IJevmonCallBatchCallback(IJevmonCallBatchCallback *iface)
{
    return (jp_monitor *)((char *)iface - offsetof(jp_monitor, IJevmonCallBatchCallback_iface));
}

static HRESULT STDMETHODCALLTYPE call_batch_callback_QueryInterface(IJevmonCallBatchCallback *iface, REFIID riid,
                                                                    void **ppv)
{
    return monitor_QueryInterface(&impl_from_IJevmonCallBatchCallback(iface)->IJavaEventMonitor2_iface, riid, ppv);
}

static ULONG STDMETHODCALLTYPE call_batch_callback_AddRef(IJevmonCallBatchCallback *iface)
{
    return monitor_AddRef(&impl_from_IJevmonCallBatchCallback(iface)->IJavaEventMonitor2_iface);
}

static ULONG STDMETHODCALLTYPE call_batch_callback_Release(IJevmonCallBatchCallback *iface)
{
    return monitor_Release(&impl_from_IJevmonCallBatchCallback(iface)->IJavaEventMonitor2_iface);
}

static HRESULT STDMETHODCALLTYPE call_batch_callback_OnCallBatch(IJevmonCallBatchCallback *iface, ThreadID thread_id,
                                                                 const JEVMON_CALL_RECORD *records, DWORD count)
{
    jp_monitor *m = impl_from_IJevmonCallBatchCallback(iface);
    if (!records && count)
        return E_POINTER;
    if (m->recording_calls)
        jp_calls_batch(&m->calls, thread_id, records, count);
    return S_OK;
}

static const IJevmonCallBatchCallbackVtbl call_batch_callback_vtbl = {
    call_batch_callback_QueryInterface,
    call_batch_callback_AddRef,
    call_batch_callback_Release,
    call_batch_callback_OnCallBatch,
};

HRESULT jp_monitor_create(REFIID riid, void **ppv)
{
    jp_log_install(); /* before any thread of jevprof's */
    jp_monitor *m = calloc(1, sizeof(*m));
    if (!m)
        return E_OUTOFMEMORY;
    if (jp_names_init(&m->names) || jp_summary_init(&m->summary) || !(m->writing = plat_mutex_create()) ||
        jp_class_frames_init(&m->classes, NULL, &m->names)) {
        jp_names_free(&m->names);
        jp_summary_free(&m->summary);
        jp_class_frames_free(&m->classes);
        if (m->writing)
            plat_mutex_destroy(m->writing);
        free(m);
        return E_OUTOFMEMORY;
    }
    m->IJavaEventMonitor2_iface.lpVtbl = &monitor_vtbl;
    m->IObjectAllocationCallback_iface.lpVtbl = &allocation_callback_vtbl;
    m->IJevmonCommands_iface.lpVtbl = &jp_commands_vtbl;
    m->IJevmonLockWaitCallback_iface.lpVtbl = &lock_callback_vtbl;
    m->IJevmonCallBatchCallback_iface.lpVtbl = &call_batch_callback_vtbl;
    m->ref = 1;
    jp_module_lock();
    HRESULT hr = monitor_QueryInterface(&m->IJavaEventMonitor2_iface, riid, ppv);
    monitor_Release(&m->IJavaEventMonitor2_iface);
    return hr;
}
