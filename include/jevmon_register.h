/*
 * jevmon_register.h - self-registration for event monitors (libjevsdk).
 *
 * A monitor's DllRegisterServer / DllUnregisterServer call these.  Registering
 * writes the COM class (HKCR\CLSID\{clsid}, its default value the description,
 * InprocServer32 = the absolute path of the module containing `module_anchor`,
 * ThreadingModel = Both) and the monitor's key
 * HKLM\Software\Microsoft\Java VM\Monitors\<key_name> (default value the
 * description, CLSID, and InitOptions when has_init_options).  Unregistering
 * removes both.  On Windows they go to the real registry (regsvr32); on Linux to
 * jevmon's registry files (jevmon-regsvr).
 */
#ifndef JEVMON_REGISTER_H
#define JEVMON_REGISTER_H

#include "jevmon.h"
#ifdef _WIN32
#include <olectl.h> /* SELFREG_E_CLASS */
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct JEVMON_MONITOR_REGISTRATION {
    const CLSID *clsid;
    const char *key_name;      /* subkey name under ...\Java VM\Monitors */
    const char *description;   /* free text */
    BOOL has_init_options;     /* write the InitOptions DWORD? */
    DWORD init_options;        /* JAVA_MONITOR_INIT_OPTIONS bits */
    const void *module_anchor; /* any address inside the monitor's module, e.g. its DllGetClassObject */
} JEVMON_MONITOR_REGISTRATION;

/* S_OK, or SELFREG_E_CLASS when a key could not be written (the cause is logged). */
HRESULT JevmonRegisterMonitor(const JEVMON_MONITOR_REGISTRATION *reg);
/* S_OK also when nothing was registered. */
HRESULT JevmonUnregisterMonitor(const JEVMON_MONITOR_REGISTRATION *reg);

#ifdef __cplusplus
}
#endif

#endif /* JEVMON_REGISTER_H */
