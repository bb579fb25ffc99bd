/*
 * countmon.c - a monitor as a user outside this tree writes one against an installed jevmon
 * (make install): only <jevmon.h> and <jevmon_register.h>, built with
 * `cc -shared -fPIC countmon.c $(pkg-config --cflags --libs jevmon)`, registered with the
 * installed jevmon-regsvr.  It counts the classes whose loading finished and prints
 * "countmon: N classes loaded" to stderr at SHUTDOWN.  test_install.c copies it out of the tree;
 * test_dist.c builds it for Windows from a dist archive, as the archive's README.txt says.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <initguid.h>
#include <jevmon.h>
#include <jevmon_register.h>

/* {6B3E2D41-9C57-4F08-A1D2-3E8F7B6C5A94} */
DEFINE_GUID(CLSID_CountMon, 0x6B3E2D41, 0x9C57, 0x4F08, 0xA1, 0xD2, 0x3E, 0x8F, 0x7B, 0x6C, 0x5A, 0x94);

typedef struct countmon {
    IJavaEventMonitor IJavaEventMonitor_iface;
    LONG ref;
    long classes;
} countmon;

static countmon *impl_from_IJavaEventMonitor(IJavaEventMonitor *iface)
{
    return (countmon *)((char *)iface - offsetof(countmon, IJavaEventMonitor_iface));
}

static HRESULT STDMETHODCALLTYPE mon_QueryInterface(IJavaEventMonitor *iface, REFIID riid, void **ppv)
{
    if (!IsEqualIID(riid, &IID_IUnknown) && !IsEqualIID(riid, &IID_IJavaEventMonitor)) {
        *ppv = NULL;
        return E_NOINTERFACE;
    }
    *ppv = iface;
    InterlockedIncrement(&impl_from_IJavaEventMonitor(iface)->ref);
    return S_OK;
}

static ULONG STDMETHODCALLTYPE mon_AddRef(IJavaEventMonitor *iface)
{
    return (ULONG)InterlockedIncrement(&impl_from_IJavaEventMonitor(iface)->ref);
}

static ULONG STDMETHODCALLTYPE mon_Release(IJavaEventMonitor *iface)
{
    countmon *m = impl_from_IJavaEventMonitor(iface);
    LONG ref = InterlockedDecrement(&m->ref);
    if (ref == 0)
        free(m);
    return (ULONG)ref;
}

static HRESULT STDMETHODCALLTYPE mon_ExecuteByteCode(IJavaEventMonitor *iface, MethodID method, BYTE_CODE *code,
                                                     DWORD offset)
{
    (void)iface, (void)method, (void)code, (void)offset;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mon_ExecuteSourceLine(IJavaEventMonitor *iface, MethodID method, DWORD line)
{
    (void)iface, (void)method, (void)line;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mon_Initialize(IJavaEventMonitor *iface, LPCSTR class_file, IJavaEventMonitorIDInfo *info,
                                                DWORD java_flags, DWORD *requested)
{
    (void)iface, (void)class_file, (void)info, (void)java_flags;
    *requested = JVM_MONITOR_CLASS_LOADS;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mon_MethodEntry(IJavaEventMonitor *iface, MethodID method, StackID stack)
{
    (void)iface, (void)method, (void)stack;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mon_MethodExit(IJavaEventMonitor *iface, StackID stack)
{
    (void)iface, (void)stack;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mon_NotifyEvent(IJavaEventMonitor *iface, JVM_EVENT_TYPE event, UniqueID id)
{
    countmon *m = impl_from_IJavaEventMonitor(iface);
    (void)id;
    if (event == JVM_EVENT_TYPE_CLASS_LOAD_FINISHED)
        m->classes++;
    else if (event == JVM_EVENT_TYPE_SHUTDOWN)
        fprintf(stderr, "countmon: %ld classes loaded\n", m->classes);
    return S_OK;
}

static const IJavaEventMonitorVtbl mon_vtbl = {
    mon_QueryInterface, mon_AddRef, mon_Release, mon_ExecuteByteCode, mon_ExecuteSourceLine,
    mon_Initialize, mon_MethodEntry, mon_MethodExit, mon_NotifyEvent,
};

static HRESULT STDMETHODCALLTYPE factory_QueryInterface(IClassFactory *iface, REFIID riid, void **ppv)
{
    if (!IsEqualIID(riid, &IID_IUnknown) && !IsEqualIID(riid, &IID_IClassFactory)) {
        *ppv = NULL;
        return E_NOINTERFACE;
    }
    *ppv = iface;
    return S_OK;
}

static ULONG STDMETHODCALLTYPE factory_AddRef(IClassFactory *iface)
{
    (void)iface;
    return 2;
}

static ULONG STDMETHODCALLTYPE factory_Release(IClassFactory *iface)
{
    (void)iface;
    return 1;
}

static HRESULT STDMETHODCALLTYPE factory_CreateInstance(IClassFactory *iface, IUnknown *outer, REFIID riid, void **ppv)
{
    countmon *m;
    HRESULT hr;
    (void)iface;
    *ppv = NULL;
    if (outer)
        return CLASS_E_NOAGGREGATION;
    if (!(m = calloc(1, sizeof(*m))))
        return E_OUTOFMEMORY;
    m->IJavaEventMonitor_iface.lpVtbl = &mon_vtbl;
    m->ref = 1;
    hr = mon_QueryInterface(&m->IJavaEventMonitor_iface, riid, ppv);
    mon_Release(&m->IJavaEventMonitor_iface);
    return hr;
}

static HRESULT STDMETHODCALLTYPE factory_LockServer(IClassFactory *iface, BOOL lock)
{
    (void)iface, (void)lock;
    return S_OK;
}

/* Not const: Windows's headers declare lpVtbl const only under CONST_VTABLE. */
static IClassFactoryVtbl factory_vtbl = {
    factory_QueryInterface, factory_AddRef, factory_Release, factory_CreateInstance, factory_LockServer,
};
static IClassFactory factory = {&factory_vtbl};

STDAPI DllGetClassObject(REFCLSID rclsid, REFIID riid, void **ppv)
{
    *ppv = NULL;
    if (!IsEqualCLSID(rclsid, &CLSID_CountMon))
        return CLASS_E_CLASSNOTAVAILABLE;
    return factory_QueryInterface(&factory, riid, ppv);
}

STDAPI DllCanUnloadNow(void)
{
    return S_FALSE;
}

static const JEVMON_MONITOR_REGISTRATION registration = {
    &CLSID_CountMon, "countmon", "counts loaded classes", FALSE, 0, (const void *)DllGetClassObject,
};

STDAPI DllRegisterServer(void)
{
    return JevmonRegisterMonitor(&registration);
}

STDAPI DllUnregisterServer(void)
{
    return JevmonUnregisterMonitor(&registration);
}
