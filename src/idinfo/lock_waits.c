/*
 * lock_waits.c - the IJevmonLockWaits COM object a monitor gets by QueryInterface on its IDInfo
 * (IID_IJevmonLockWaits).  It holds a reference to that IDInfo, through which it knows its
 * monitor; the registrations and the waits are events/lock_wait.c's, the parks' rewriting
 * instrument/watch.c's, started here when a callback is registered while the VM lives (at
 * VMInit otherwise: agent/jvmti_setup.c).
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "dispatch/monitor_table.h"
#include "events/lock_wait.h"
#include "idinfo/lock_waits.h"
#include "instrument/watch.h"

typedef struct jv_lock_waits {
    IJevmonLockWaits IJevmonLockWaits_iface;
    _Atomic LONG ref;
    IJavaEventMonitorIDInfo4 *idinfo; /* AddRef'd */
} jv_lock_waits;

static inline jv_lock_waits *impl_from_IJevmonLockWaits(IJevmonLockWaits *iface)
{
    return (jv_lock_waits *)((char *)iface - offsetof(jv_lock_waits, IJevmonLockWaits_iface));
}

static HRESULT STDMETHODCALLTYPE lockwaits_QueryInterface(IJevmonLockWaits *iface, REFIID riid, void **ppv)
{
    if (!ppv)
        return E_POINTER;
    if (IsEqualIID(riid, &IID_IUnknown) || IsEqualIID(riid, &IID_IJevmonLockWaits)) {
        *ppv = iface;
        IJevmonLockWaits_AddRef(iface);
        return S_OK;
    }
    *ppv = NULL;
    return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE lockwaits_AddRef(IJevmonLockWaits *iface)
{
    return (ULONG)(atomic_fetch_add(&impl_from_IJevmonLockWaits(iface)->ref, 1) + 1);
}

static ULONG STDMETHODCALLTYPE lockwaits_Release(IJevmonLockWaits *iface)
{
    jv_lock_waits *lw = impl_from_IJevmonLockWaits(iface);
    LONG ref = atomic_fetch_sub(&lw->ref, 1) - 1;
    if (ref == 0) {
        IJavaEventMonitorIDInfo4_Release(lw->idinfo);
        free(lw);
    }
    return (ULONG)ref;
}

static HRESULT STDMETHODCALLTYPE lockwaits_NotifyOnLockWaits(IJevmonLockWaits *iface,
                                                             IJevmonLockWaitCallback *pcallback, ULONGLONG threshold_ns)
{
    jv_monitor *m = jv_idinfo_owner(impl_from_IJevmonLockWaits(iface)->idinfo);
    HRESULT hr = m ? jv_lock_waits_register(m, pcallback, threshold_ns) : E_FAIL;
    JNIEnv *env = SUCCEEDED(hr) && pcallback && jv_vm_live() ? jv_jni() : NULL;
    if (env) { /* at VMInit otherwise */
        jv_lock_waits_start(env);
        jv_watch_start(env, JV_WATCH_PARKS);
    }
    return hr;
}

static const IJevmonLockWaitsVtbl lockwaits_vtbl = {
    lockwaits_QueryInterface,
    lockwaits_AddRef,
    lockwaits_Release,
    lockwaits_NotifyOnLockWaits,
};

HRESULT jv_lock_waits_create(IJavaEventMonitorIDInfo4 *idinfo, void **ppv)
{
    jv_lock_waits *lw = calloc(1, sizeof(*lw));
    *ppv = NULL;
    if (!lw)
        return E_OUTOFMEMORY;
    lw->IJevmonLockWaits_iface.lpVtbl = &lockwaits_vtbl;
    lw->ref = 1;
    lw->idinfo = idinfo;
    IJavaEventMonitorIDInfo4_AddRef(idinfo);
    *ppv = &lw->IJevmonLockWaits_iface;
    return S_OK;
}
