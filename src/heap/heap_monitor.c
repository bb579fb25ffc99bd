/*
 * heap_monitor.c - the IJavaHeapMonitor2 COM object a monitor gets by QueryInterface on its
 * IDInfo (IID_IJavaHeapMonitor or IID_IJavaHeapMonitor2).  It holds a reference to that
 * IDInfo, through which it knows its monitor; the registrations live in registrations.c.  The same
 * object answers jevmon's IJevmonAllocationSampling (heap_alloc.c weighs the allocations).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "heap/heap.h"
#include "ids/object.h"

typedef struct jv_heap_monitor {
    IJavaHeapMonitor2 IJavaHeapMonitor2_iface;
    IJevmonAllocationSampling IJevmonAllocationSampling_iface;
    _Atomic LONG ref;
    IJavaEventMonitorIDInfo4 *idinfo; /* AddRef'd */
} jv_heap_monitor;

static inline jv_heap_monitor *impl_from_IJavaHeapMonitor2(IJavaHeapMonitor2 *iface)
{
    return (jv_heap_monitor *)((char *)iface - offsetof(jv_heap_monitor, IJavaHeapMonitor2_iface));
}

static jv_monitor *owner_of(IJavaHeapMonitor2 *iface)
{
    return jv_idinfo_owner(impl_from_IJavaHeapMonitor2(iface)->idinfo);
}

static HRESULT STDMETHODCALLTYPE heapmon_QueryInterface(IJavaHeapMonitor2 *iface, REFIID riid, void **ppv)
{
    if (!ppv)
        return E_POINTER;
    if (IsEqualIID(riid, &IID_IUnknown) || IsEqualIID(riid, &IID_IJavaHeapMonitor) ||
        IsEqualIID(riid, &IID_IJavaHeapMonitor2)) {
        *ppv = iface;
        IJavaHeapMonitor2_AddRef(iface);
        return S_OK;
    }
    if (IsEqualIID(riid, &IID_IJevmonAllocationSampling)) {
        *ppv = &impl_from_IJavaHeapMonitor2(iface)->IJevmonAllocationSampling_iface;
        IJavaHeapMonitor2_AddRef(iface);
        return S_OK;
    }
    *ppv = NULL;
    return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE heapmon_AddRef(IJavaHeapMonitor2 *iface)
{
    return (ULONG)(atomic_fetch_add(&impl_from_IJavaHeapMonitor2(iface)->ref, 1) + 1);
}

static ULONG STDMETHODCALLTYPE heapmon_Release(IJavaHeapMonitor2 *iface)
{
    jv_heap_monitor *heapmon = impl_from_IJavaHeapMonitor2(iface);
    LONG ref = atomic_fetch_sub(&heapmon->ref, 1) - 1;
    if (ref == 0) {
        IJavaEventMonitorIDInfo4_Release(heapmon->idinfo);
        free(heapmon);
    }
    return (ULONG)ref;
}

/* What each container holds (heap_dump.c says which roots go where). */
static const char *const container_names[][2] = {
    [C_BEGIN] = {"Begin", "Opens a heap dump"},
    [C_RT_THREAD] = {"Thread", "A thread: its java.lang.Thread object; its frames follow"},
    [C_RT_JIT] = {"Compiled frame", "A frame of a method with JIT-compiled code: its local references"},
    [C_RT_NATIVE] = {"Native frame", "A native method's frame: its JNI local references"},
    [C_RT_NATIVEGC] = {"Native GC frame", "A native frame the garbage collector scans (not reported by this VM)"},
    [C_RT_COM] = {"COM frame", "A COM method's frame (not reported by this VM)"},
    [C_RT_INTERPRETED] = {"Interpreted frame", "An interpreted frame: its local references"},
    [C_RT_FASTINTERPRETED] = {"Fast interpreted frame", "A fast-interpreted frame (not reported by this VM)"},
    [C_RT_CLASS] = {"Class statics", "A class: the values of its static reference fields"},
    [C_RT_FINALIZE] = {"Finalization", "Objects registered for finalization"},
    [C_RT_INTERNAL] = {"VM internal", "Roots the VM holds itself: system classes, monitors in use, others"},
    [C_RT_JNI_GLOBAL] = {"JNI globals", "Objects held by JNI global references"},
    [C_HEAP] = {"Heap", "References between objects; reported with ObjectReferences"},
    [C_END] = {"End", "Closes a heap dump; its ObjectIDs expire"},
};

/* A CoTaskMemAlloc'ed UTF-16 copy of ASCII text. */
static LPWSTR cotask_wide(const char *text)
{
    size_t n = strlen(text);
    LPWSTR wide = CoTaskMemAlloc((n + 1) * sizeof(WCHAR));
    for (size_t i = 0; wide && i <= n; i++)
        wide[i] = (WCHAR)text[i];
    return wide;
}

static HRESULT STDMETHODCALLTYPE heapmon_GetContainerDescription(IJavaHeapMonitor2 *iface, CONTAINER_TYPE type,
                                                                 LPWSTR *pshort, LPWSTR *plong)
{
    (void)iface;
    if (!pshort || !plong || type < C_BEGIN || type > C_END)
        return E_FAIL;
    *pshort = cotask_wide(container_names[type][0]);
    *plong = cotask_wide(container_names[type][1]);
    if (*pshort && *plong)
        return S_OK;
    CoTaskMemFree(*pshort);
    CoTaskMemFree(*plong);
    *pshort = *plong = NULL;
    return E_OUTOFMEMORY;
}

static HRESULT STDMETHODCALLTYPE heapmon_GetHeapInfo(IJavaHeapMonitor2 *iface, IHeapInfoCallback *pihicb)
{
    jv_monitor *m = owner_of(iface);
    return m ? jv_heap_set_dump_callback(m, pihicb) : E_FAIL;
}

static HRESULT STDMETHODCALLTYPE heapmon_GetObjectAge(IJavaHeapMonitor2 *iface, ObjectID object_id,
                                                      DWORD *pncollections_survived)
{
    (void)iface;
    JNIEnv *env = jv_jni();
    jobject object = env && pncollections_survived ? jv_object_local(env, object_id) : NULL;
    if (!object)
        return E_FAIL;
    HRESULT hr = jv_heap_object_age(object, pncollections_survived);
    (*env)->DeleteLocalRef(env, object);
    return hr;
}

static HRESULT STDMETHODCALLTYPE heapmon_ModifyHeapMonitorCapabilities(IJavaHeapMonitor2 *iface, DWORD capabilities,
                                                                       BOOL fenable, DWORD *penabled_capabilities)
{
    jv_monitor *m = owner_of(iface);
    return m ? jv_heap_modify_capabilities(m, capabilities, fenable, penabled_capabilities) : E_FAIL;
}

static HRESULT STDMETHODCALLTYPE heapmon_NotifyOnObjectAllocations(IJavaHeapMonitor2 *iface,
                                                                   IObjectAllocationCallback *pioacb)
{
    jv_monitor *m = owner_of(iface);
    return m ? jv_heap_set_allocation_callback(m, pioacb) : E_FAIL;
}

static HRESULT STDMETHODCALLTYPE heapmon_RequestHeapDump(IJavaHeapMonitor2 *iface)
{
    return owner_of(iface) ? jv_heap_request_dump() : E_FAIL;
}

static const IJavaHeapMonitor2Vtbl heapmon_vtbl = {
    heapmon_QueryInterface,
    heapmon_AddRef,
    heapmon_Release,
    heapmon_GetContainerDescription,
    heapmon_GetHeapInfo,
    heapmon_GetObjectAge,
    heapmon_ModifyHeapMonitorCapabilities,
    heapmon_NotifyOnObjectAllocations,
    heapmon_RequestHeapDump,
};

/* ---- IJevmonAllocationSampling: its IUnknown is the object's ---------------------------------- */

static inline jv_heap_monitor *impl_from_IJevmonAllocationSampling(IJevmonAllocationSampling *iface)
{
    return (jv_heap_monitor *)((char *)iface - offsetof(jv_heap_monitor, IJevmonAllocationSampling_iface));
}

static HRESULT STDMETHODCALLTYPE allocsampling_QueryInterface(IJevmonAllocationSampling *iface, REFIID riid,
                                                              void **ppv)
{
    return heapmon_QueryInterface(&impl_from_IJevmonAllocationSampling(iface)->IJavaHeapMonitor2_iface, riid, ppv);
}

static ULONG STDMETHODCALLTYPE allocsampling_AddRef(IJevmonAllocationSampling *iface)
{
    return heapmon_AddRef(&impl_from_IJevmonAllocationSampling(iface)->IJavaHeapMonitor2_iface);
}

static ULONG STDMETHODCALLTYPE allocsampling_Release(IJevmonAllocationSampling *iface)
{
    return heapmon_Release(&impl_from_IJevmonAllocationSampling(iface)->IJavaHeapMonitor2_iface);
}

static HRESULT STDMETHODCALLTYPE allocsampling_GetAllocationSamplingInterval(IJevmonAllocationSampling *iface,
                                                                             DWORD *pinterval_bytes)
{
    (void)iface;
    if (!pinterval_bytes)
        return E_POINTER;
    *pinterval_bytes = (DWORD)jv_heap_sampling_interval();
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE allocsampling_GetAllocationWeight(IJevmonAllocationSampling *iface,
                                                                   ObjectID object_id, double *pobjects,
                                                                   ULONGLONG *pbytes)
{
    (void)iface;
    return jv_heap_allocation_weight(object_id, pobjects, pbytes);
}

static const IJevmonAllocationSamplingVtbl allocsampling_vtbl = {
    allocsampling_QueryInterface,
    allocsampling_AddRef,
    allocsampling_Release,
    allocsampling_GetAllocationSamplingInterval,
    allocsampling_GetAllocationWeight,
};

HRESULT jv_heap_monitor_create(IJavaEventMonitorIDInfo4 *idinfo, void **ppv)
{
    jv_heap_monitor *heapmon = calloc(1, sizeof(*heapmon));
    *ppv = NULL;
    if (!heapmon)
        return E_OUTOFMEMORY;
    heapmon->IJavaHeapMonitor2_iface.lpVtbl = &heapmon_vtbl;
    heapmon->IJevmonAllocationSampling_iface.lpVtbl = &allocsampling_vtbl;
    heapmon->ref = 1;
    heapmon->idinfo = idinfo;
    IJavaEventMonitorIDInfo4_AddRef(idinfo);
    *ppv = &heapmon->IJavaHeapMonitor2_iface;
    return S_OK;
}
