/*
 * jevprof.h - jevprof's COM identity and what its COM objects share: the CLSID, how the
 * monitor object is made, and the module's count of objects and server locks (which
 * DllCanUnloadNow reads, module.c).
 */
#ifndef JEVPROF_JEVPROF_H
#define JEVPROF_JEVPROF_H

#include "jevmon.h"

/* {75CDC682-D602-4669-A56F-09797AC9C430} */
DEFINE_GUID(CLSID_JevProf, 0x75CDC682, 0xD602, 0x4669, 0xA5, 0x6F, 0x09, 0x79, 0x7A, 0xC9, 0xC4, 0x30);
#define JP_CLSID_TEXT "{75CDC682-D602-4669-A56F-09797AC9C430}"

/* The module's exports (module.c), declared for Linux, where no system header does. */
STDAPI DllGetClassObject(REFCLSID rclsid, REFIID riid, void **ppv);
STDAPI DllCanUnloadNow(void);
STDAPI DllRegisterServer(void);
STDAPI DllUnregisterServer(void);

/* Creates a jevprof monitor and returns its riid interface. */
HRESULT jp_monitor_create(REFIID riid, void **ppv);

/* Objects alive plus LockServer(TRUE) calls not yet undone. */
void jp_module_lock(void);
void jp_module_unlock(void);

#endif /* JEVPROF_JEVPROF_H */
