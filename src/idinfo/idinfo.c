/*
 * idinfo.c - the IDInfo COM object: IUnknown, event masks, profiling capabilities and
 * the initialization options of IJavaEventMonitorIDInfo4.  One vtable serves all four
 * interface versions, since each extends the one before; IJevmonSampling4 is a second
 * interface of the same object, its vtable serving IJevmonSampling to IJevmonSampling3 too;
 * IJevmonNativeSampling a third.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "dispatch/monitor_table.h"
#include "heap/heap.h"
#include "idinfo/idinfo.h"
#include "events/events.h"
#include "idinfo/call_batches.h"
#include "idinfo/lock_waits.h"
#include "ids/class.h"
#include "ids/field.h"
#include "ids/method.h"
#include "ids/object.h"
#include "ids/thread.h"
#include "sampling/cpu_sample.h"
#include "sampling/native_walk.h"
#include "sampling/thread_sample.h"
#include "platform/platform.h"

/*
 * The object: IJavaEventMonitorIDInfo4 (which serves IDInfo 1 to 3 too) inside the identity the
 * layers below see (monitor_table.h: the interface and the monitor it serves), IJevmonSampling4
 * beside it, one reference count for both.
 */
struct jv_idinfo {
    jv_idinfo_identity identity;
    IJevmonSampling4 IJevmonSampling4_iface;
    IJevmonNativeSampling IJevmonNativeSampling_iface;
    _Atomic LONG ref;
};

static inline jv_idinfo *impl_from_IJavaEventMonitorIDInfo4(IJavaEventMonitorIDInfo4 *iface)
{
    return (jv_idinfo *)((char *)iface - offsetof(jv_idinfo, identity.IJavaEventMonitorIDInfo4_iface));
}

static inline jv_idinfo *impl_from_IJevmonSampling4(IJevmonSampling4 *iface)
{
    return (jv_idinfo *)((char *)iface - offsetof(jv_idinfo, IJevmonSampling4_iface));
}

static inline jv_idinfo *impl_from_IJevmonNativeSampling(IJevmonNativeSampling *iface)
{
    return (jv_idinfo *)((char *)iface - offsetof(jv_idinfo, IJevmonNativeSampling_iface));
}

static HRESULT STDMETHODCALLTYPE idinfo_QueryInterface(IJavaEventMonitorIDInfo4 *iface, REFIID riid, void **ppv)
{
    if (!ppv)
        return E_POINTER;
    if (IsEqualIID(riid, &IID_IUnknown) || IsEqualIID(riid, &IID_IJavaEventMonitorIDInfo) ||
        IsEqualIID(riid, &IID_IJavaEventMonitorIDInfo2) || IsEqualIID(riid, &IID_IJavaEventMonitorIDInfo3) ||
        IsEqualIID(riid, &IID_IJavaEventMonitorIDInfo4)) {
        *ppv = iface;
        IJavaEventMonitorIDInfo4_AddRef(iface);
        return S_OK;
    }
    if (IsEqualIID(riid, &IID_IJavaHeapMonitor) || IsEqualIID(riid, &IID_IJavaHeapMonitor2))
        return jv_heap_monitor_create(iface, ppv);
    if (IsEqualIID(riid, &IID_IJevmonLockWaits))
        return jv_lock_waits_create(iface, ppv);
    if (IsEqualIID(riid, &IID_IJevmonCallBatches))
        return jv_call_batches_create(iface, ppv);
    if (IsEqualIID(riid, &IID_IJevmonSampling) || IsEqualIID(riid, &IID_IJevmonSampling2) ||
        IsEqualIID(riid, &IID_IJevmonSampling3) || IsEqualIID(riid, &IID_IJevmonSampling4)) {
        *ppv = &impl_from_IJavaEventMonitorIDInfo4(iface)->IJevmonSampling4_iface;
        IJavaEventMonitorIDInfo4_AddRef(iface);
        return S_OK;
    }
    if (IsEqualIID(riid, &IID_IJevmonNativeSampling)) {
        *ppv = &impl_from_IJavaEventMonitorIDInfo4(iface)->IJevmonNativeSampling_iface;
        IJavaEventMonitorIDInfo4_AddRef(iface);
        return S_OK;
    }
    *ppv = NULL;
    return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE idinfo_AddRef(IJavaEventMonitorIDInfo4 *iface)
{
    return (ULONG)(atomic_fetch_add(&impl_from_IJavaEventMonitorIDInfo4(iface)->ref, 1) + 1);
}

static ULONG STDMETHODCALLTYPE idinfo_Release(IJavaEventMonitorIDInfo4 *iface)
{
    jv_idinfo *info = impl_from_IJavaEventMonitorIDInfo4(iface);
    LONG ref = atomic_fetch_sub(&info->ref, 1) - 1;
    if (ref == 0)
        free(info);
    return (ULONG)ref;
}

static HRESULT STDMETHODCALLTYPE idinfo_GetEventMask(IJavaEventMonitorIDInfo4 *iface, DWORD *pevents)
{
    jv_monitor *m = jv_idinfo_owner(iface);
    if (!pevents || !m)
        return E_FAIL;
    *pevents = atomic_load(&m->mask);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE idinfo_SetEventMask(IJavaEventMonitorIDInfo4 *iface, DWORD events)
{
    jv_monitor *m = jv_idinfo_owner(iface);
    return m ? jv_monitor_set_mask(m, events) : E_FAIL;
}

static HRESULT STDMETHODCALLTYPE idinfo_GetProfilingCapabilities(IJavaEventMonitorIDInfo4 *iface, DWORD *pStates,
                                                                 DWORD *pCategories, JAVA_EXECUTION_MODEL *pLastModel,
                                                                 JVM_EVENT_TYPE *pLastType, JVM_EVENT_TYPE2 *pLastType2)
{
    (void)iface;
    if (!pStates || !pCategories || !pLastModel || !pLastType || !pLastType2)
        return E_FAIL;
    *pStates = jv_monitors.state_flags;
    *pCategories = jv_monitors.deliverable;
    *pLastModel = JVM_EXECUTION_INTERPRETED; /* MethodInformation never reports FAST_INTERPRETED or COM */
    *pLastType = JVM_EVENT_TYPE_CLASS_LOAD_FAILED;
    *pLastType2 = JVM_EVENT_TYPE2_MONITORS_INITIALIZED;
    return S_OK;
}

/* ---- IJavaEventMonitorIDInfo4: initialization options ------------------------------------ */

static HRESULT STDMETHODCALLTYPE idinfo_GetFinalInitializationOptions(IJavaEventMonitorIDInfo4 *iface,
                                                                      DWORD *poptions)
{
    jv_monitor *m = jv_idinfo_owner(iface);
    /* The final options are known once Initialize has returned. */
    if (!poptions || !m || atomic_load(&m->phase) != JV_PHASE_RUNNING)
        return E_FAIL;
    *poptions = m->granted_options;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE idinfo_GetMonitorInitializationOptions(IJavaEventMonitorIDInfo4 *iface,
                                                                        DWORD *poptions)
{
    jv_monitor *m = jv_idinfo_owner(iface);
    if (!poptions || !m)
        return E_FAIL;
    *poptions = m->requested_options;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE idinfo_SetMonitorInitializationOptions(IJavaEventMonitorIDInfo4 *iface,
                                                                        DWORD options)
{
    jv_monitor *m = jv_idinfo_owner(iface);
    if (!m || atomic_load(&m->phase) != JV_PHASE_INITIALIZING)
        return E_FAIL; /* only allowed during Initialize */
    if (options & ~JV_SUPPORTED_INIT_OPTIONS) {
        jv_log("%s: SetMonitorInitializationOptions(0x%x) has unknown bits 0x%x; they are ignored", m->source,
               (unsigned)options, (unsigned)(options & ~JV_SUPPORTED_INIT_OPTIONS));
        options &= JV_SUPPORTED_INIT_OPTIONS;
    }
    /* Promises accumulate: those of the InitOptions registry value stay. */
    m->requested_options |= options;
    return S_OK;
}

static const IJavaEventMonitorIDInfo4Vtbl idinfo_vtbl = {
    idinfo_QueryInterface,
    idinfo_AddRef,
    idinfo_Release,
    /* IJavaEventMonitorIDInfo */
    idinfo_ClassInformation,
    idinfo_GetEventMask,
    idinfo_GetMonitorUsage,
    idinfo_InterpretedMethodInformation,
    idinfo_JITCompiledMethodInformation,
    idinfo_MethodInformation,
    idinfo_ObjectInformation,
    idinfo_SetEventMask,
    /* IJavaEventMonitorIDInfo2 */
    idinfo_DescribeObject,
    idinfo_FieldInformation,
    idinfo_FreeHandlesToObjects,
    idinfo_GetArrayElement,
    idinfo_GetClassFields,
    idinfo_GetClassPath,
    idinfo_GetCurrentThread,
    idinfo_GetHandlesToObjects,
    idinfo_GetObjectField,
    idinfo_GetObjectSize,
    idinfo_GetObjectsFromHandles,
    idinfo_GetProfilingCapabilities,
    idinfo_GetSpecialClassProperties,
    idinfo_GetStackTrace,
    idinfo_SampleThreadLocation,
    idinfo_StaticClassInformation,
    idinfo_ThreadInformation,
    /* IJavaEventMonitorIDInfo3 */
    idinfo_ClassInformation2,
    idinfo_EnableMethodCallEvents,
    idinfo_GetMethodEntryParameters,
    idinfo_GetMethodExitReturnValue,
    /* IJavaEventMonitorIDInfo4 */
    idinfo_GetFinalInitializationOptions,
    idinfo_GetMonitorInitializationOptions,
    idinfo_SetMonitorInitializationOptions,
};

/* ---- IJevmonSampling4 (and IJevmonSampling to IJevmonSampling3): its IUnknown is the object's ---- */

static HRESULT STDMETHODCALLTYPE sampling_QueryInterface(IJevmonSampling4 *iface, REFIID riid, void **ppv)
{
    return idinfo_QueryInterface(&impl_from_IJevmonSampling4(iface)->identity.IJavaEventMonitorIDInfo4_iface, riid,
                                 ppv);
}

static ULONG STDMETHODCALLTYPE sampling_AddRef(IJevmonSampling4 *iface)
{
    return idinfo_AddRef(&impl_from_IJevmonSampling4(iface)->identity.IJavaEventMonitorIDInfo4_iface);
}

static ULONG STDMETHODCALLTYPE sampling_Release(IJevmonSampling4 *iface)
{
    return idinfo_Release(&impl_from_IJevmonSampling4(iface)->identity.IJavaEventMonitorIDInfo4_iface);
}

static const IJevmonSampling4Vtbl sampling_vtbl = {
    sampling_QueryInterface,
    sampling_AddRef,
    sampling_Release,
    /* IJevmonSampling */
    sampling_SampleThreadLocation64,
    /* IJevmonSampling2 */
    sampling_SampleThreadStack,
    /* IJevmonSampling3 */
    sampling_SampleThreadFrames,
    /* IJevmonSampling4 */
    sampling_StartCpuSampling,
    sampling_StopCpuSampling,
    sampling_NextCpuSample,
    sampling_GetCpuSamplingCounts,
    sampling_GetThreadCpuTime,
    sampling_SampleThreadState,
};

/* ---- IJevmonNativeSampling: its IUnknown is the object's too ------------------------------------ */

static HRESULT STDMETHODCALLTYPE native_QueryInterface(IJevmonNativeSampling *iface, REFIID riid, void **ppv)
{
    return idinfo_QueryInterface(&impl_from_IJevmonNativeSampling(iface)->identity.IJavaEventMonitorIDInfo4_iface,
                                 riid, ppv);
}

static ULONG STDMETHODCALLTYPE native_AddRef(IJevmonNativeSampling *iface)
{
    return idinfo_AddRef(&impl_from_IJevmonNativeSampling(iface)->identity.IJavaEventMonitorIDInfo4_iface);
}

static ULONG STDMETHODCALLTYPE native_Release(IJevmonNativeSampling *iface)
{
    return idinfo_Release(&impl_from_IJevmonNativeSampling(iface)->identity.IJavaEventMonitorIDInfo4_iface);
}

static const IJevmonNativeSamplingVtbl native_vtbl = {
    native_QueryInterface,
    native_AddRef,
    native_Release,
    native_SetNativeSampling,
    native_NextCpuSampleNative,
    native_SampleThreadNative,
    native_GetNativeFrameName,
    native_GetOsThreadName,
    native_GetKernelFrameCounts,
};

jv_idinfo *jv_idinfo_create(jv_monitor *owner)
{
    jv_idinfo *info = calloc(1, sizeof(*info));
    if (!info)
        return NULL;
    info->identity.IJavaEventMonitorIDInfo4_iface.lpVtbl = &idinfo_vtbl;
    info->IJevmonSampling4_iface.lpVtbl = &sampling_vtbl;
    info->IJevmonNativeSampling_iface.lpVtbl = &native_vtbl;
    atomic_store(&info->ref, 1);
    atomic_store(&info->identity.owner, owner);
    return info;
}

void jv_idinfo_release(jv_idinfo *info)
{
    atomic_store(&info->identity.owner, NULL);
    IJavaEventMonitorIDInfo4_Release(&info->identity.IJavaEventMonitorIDInfo4_iface);
}

IJavaEventMonitorIDInfo *jv_idinfo_interface(jv_idinfo *info)
{
    return (IJavaEventMonitorIDInfo *)&info->identity.IJavaEventMonitorIDInfo4_iface;
}
