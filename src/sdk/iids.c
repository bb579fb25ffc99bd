/*
 * iids.c - defines every IID of jevmon.h and, on Linux, the COM basics jevmon_compat.h
 * declares (IID_IUnknown, IID_IClassFactory), so that a monitor that links libjevsdk
 * needs no <initguid.h>, as a Windows program gets the system's IIDs from uuid.lib.  The
 * agent takes its IIDs from here too.
 *
 * The definitions are weak on Linux and selectany on Windows (what DEFINE_GUID makes
 * after <initguid.h> on either), so a monitor that includes <initguid.h> itself still
 * links with this library.  The system headers come first so that on Windows their own
 * GUIDs stay declarations (uuid.lib defines them).
 */
#include <windows.h>
#include <objbase.h>
#include <initguid.h>

#include "jevmon.h"
