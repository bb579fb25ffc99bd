/*
 * call_batches.c - the IJevmonCallBatches COM object a monitor gets by QueryInterface on its
 * IDInfo (IID_IJevmonCallBatches).  It holds a reference to that IDInfo, through which it knows
 * its monitor; the registrations, the records and their delivery are events/call_batch.c's.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "dispatch/monitor_table.h"
#include "events/call_batch.h"
#include "idinfo/call_batches.h"

typedef struct jv_call_batches {
    IJevmonCallBatches IJevmonCallBatches_iface;
    _Atomic LONG ref;
    IJavaEventMonitorIDInfo4 *idinfo; /* AddRef'd */
} jv_call_batches;

static inline jv_call_batches *impl_from_IJevmonCallBatches(IJevmonCallBatches *iface)
{
    return (jv_call_batches *)((char *)iface - offsetof(jv_call_batches, IJevmonCallBatches_iface));
}

static HRESULT STDMETHODCALLTYPE callbatches_QueryInterface(IJevmonCallBatches *iface, REFIID riid, void **ppv)
{
    if (!ppv)
        return E_POINTER;
    if (IsEqualIID(riid, &IID_IUnknown) || IsEqualIID(riid, &IID_IJevmonCallBatches)) {
        *ppv = iface;
        IJevmonCallBatches_AddRef(iface);
        return S_OK;
    }
    *ppv = NULL;
    return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE callbatches_AddRef(IJevmonCallBatches *iface)
{
    return (ULONG)(atomic_fetch_add(&impl_from_IJevmonCallBatches(iface)->ref, 1) + 1);
}

static ULONG STDMETHODCALLTYPE callbatches_Release(IJevmonCallBatches *iface)
{
    jv_call_batches *cb = impl_from_IJevmonCallBatches(iface);
    LONG ref = atomic_fetch_sub(&cb->ref, 1) - 1;
    if (ref == 0) {
        IJavaEventMonitorIDInfo4_Release(cb->idinfo);
        free(cb);
    }
    return (ULONG)ref;
}

static HRESULT STDMETHODCALLTYPE callbatches_DeliverCallsInBatches(IJevmonCallBatches *iface,
                                                                   IJevmonCallBatchCallback *pcallback)
{
    return jv_call_batches_register(jv_idinfo_owner(impl_from_IJevmonCallBatches(iface)->idinfo), pcallback);
}

static HRESULT STDMETHODCALLTYPE callbatches_FlushCallBatches(IJevmonCallBatches *iface)
{
    (void)iface;
    return jv_call_batches_flush();
}

static const IJevmonCallBatchesVtbl callbatches_vtbl = {
    callbatches_QueryInterface,
    callbatches_AddRef,
    callbatches_Release,
    callbatches_DeliverCallsInBatches,
    callbatches_FlushCallBatches,
};

HRESULT jv_call_batches_create(IJavaEventMonitorIDInfo4 *idinfo, void **ppv)
{
    jv_call_batches *cb = calloc(1, sizeof(*cb));
    *ppv = NULL;
    if (!cb)
        return E_OUTOFMEMORY;
    cb->IJevmonCallBatches_iface.lpVtbl = &callbatches_vtbl;
    cb->ref = 1;
    cb->idinfo = idinfo;
    IJavaEventMonitorIDInfo4_AddRef(idinfo);
    *ppv = &cb->IJevmonCallBatches_iface;
    return S_OK;
}
