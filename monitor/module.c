/*
 * module.c - what jevprof's DLL / shared library exports: DllGetClassObject, DllCanUnloadNow,
 * DllRegisterServer, DllUnregisterServer.  This is the one file that defines the GUIDs.
 */
#include <initguid.h>

#include "factory.h"
#include "jevmon_register.h"
#include "jevprof.h"
#include "config.h"

static LONG module_locks;

void jp_module_lock(void)
{
    InterlockedIncrement(&module_locks);
}

void jp_module_unlock(void)
{
    InterlockedDecrement(&module_locks);
}

static int module_in_use(void)
{
    return InterlockedCompareExchange(&module_locks, 0, 0) != 0;
}

STDAPI DllGetClassObject(REFCLSID rclsid, REFIID riid, void **ppv)
{
    if (!ppv)
        return E_POINTER;
    *ppv = NULL;
    if (!IsEqualCLSID(rclsid, &CLSID_JevProf))
        return CLASS_E_CLASSNOTAVAILABLE;
    return IClassFactory_QueryInterface(jp_factory(), riid, ppv);
}

STDAPI DllCanUnloadNow(void)
{
    return module_in_use() ? S_FALSE : S_OK;
}

static const JEVMON_MONITOR_REGISTRATION registration = {
    &CLSID_JevProf,
    JP_MONITOR_KEY_NAME,
    "jevprof, jevmon's profiler: call trees, samples, flame graphs",
    FALSE, /* it asks for its initialization options itself */
    0,
    (const void *)DllGetClassObject,
};

STDAPI DllRegisterServer(void)
{
    return JevmonRegisterMonitor(&registration);
}

STDAPI DllUnregisterServer(void)
{
    return JevmonUnregisterMonitor(&registration);
}
