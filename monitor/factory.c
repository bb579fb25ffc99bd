/* factory.c - jevprof's class factory: the one static IClassFactory DllGetClassObject hands out. */
#include "factory.h"
#include "jevprof.h"

static HRESULT STDMETHODCALLTYPE factory_QueryInterface(IClassFactory *iface, REFIID riid, void **ppv)
{
    if (!ppv)
        return E_POINTER;
    if (IsEqualIID(riid, &IID_IUnknown) || IsEqualIID(riid, &IID_IClassFactory)) {
        *ppv = iface;
        IClassFactory_AddRef(iface);
        return S_OK;
    }
    *ppv = NULL;
    return E_NOINTERFACE;
}

/* The factory is a static object; a reference to it keeps the module loaded. */
static ULONG STDMETHODCALLTYPE factory_AddRef(IClassFactory *iface)
{
    (void)iface;
    jp_module_lock();
    return 2;
}

static ULONG STDMETHODCALLTYPE factory_Release(IClassFactory *iface)
{
    (void)iface;
    jp_module_unlock();
    return 1;
}

static HRESULT STDMETHODCALLTYPE factory_CreateInstance(IClassFactory *iface, IUnknown *outer, REFIID riid,
                                                        void **ppv)
{
    (void)iface;
    if (!ppv)
        return E_POINTER;
    *ppv = NULL;
    if (outer)
        return CLASS_E_NOAGGREGATION;
    return jp_monitor_create(riid, ppv);
}

static HRESULT STDMETHODCALLTYPE factory_LockServer(IClassFactory *iface, BOOL lock)
{
    (void)iface;
    if (lock)
        jp_module_lock();
    else
        jp_module_unlock();
    return S_OK;
}

static const IClassFactoryVtbl factory_vtbl = {
    factory_QueryInterface, factory_AddRef, factory_Release, factory_CreateInstance, factory_LockServer,
};

static IClassFactory factory = {&factory_vtbl};

IClassFactory *jp_factory(void)
{
    return &factory;
}
