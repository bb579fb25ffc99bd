/* <initguid.h> for non-Windows systems: DEFINE_GUID from here on defines the GUID. */
#include "../jevmon_compat.h"
#ifndef INITGUID
#define INITGUID
#endif
#undef DEFINE_GUID
#define DEFINE_GUID JEVMON_DEFINE_GUID_INIT
JEVMON_COMPAT_IIDS
