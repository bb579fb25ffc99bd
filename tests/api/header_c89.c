/*
 * header_c89.c - include/jevmon.h as a legacy monitor's C source uses it, compiled by the
 * build as C89 (-std=c89 -pedantic) for every target: the header must stay C89-clean.
 *
 * Written as against the original header: no <initguid.h> (libjevsdk defines the IIDs;
 * the build links this file with it and nothing else), IDs kept in DWORDs on Win32.  In C
 * a pointer to one type does not convert to a pointer to another, so passing &dword where
 * a ThreadID * is expected compiles (under -Werror) only when ThreadID is DWORD.
 */
#include <windows.h>
#define COBJMACROS
#include "jevmon.h"

#include "static_checks.h"

/* Calls through the C macros and through lpVtbl, the two ways C code of the era did it. */
HRESULT probe_idinfo(IJavaEventMonitorIDInfo4 *info);
HRESULT probe_idinfo(IJavaEventMonitorIDInfo4 *info)
{
    DWORD mask = 0;
    JVM_METHOD_SAMPLE sample;
    API_LEGACY_ID thread_id = 0, class_id = 0, *method_ids = NULL;
    LPSTR name = NULL;
    int methods = 0;
    __int64 objects = 0;
    HRESULT hr = IJavaEventMonitorIDInfo4_GetEventMask(info, &mask);
    sample.flags = ALL_JVM_SAMPLE_FIELDS;
    if (SUCCEEDED(hr))
        hr = info->lpVtbl->SampleThreadLocation(info, 0, &sample);
    if (SUCCEEDED(hr))
        hr = info->lpVtbl->GetCurrentThread(info, &thread_id);
    if (SUCCEEDED(hr))
        hr = info->lpVtbl->ObjectInformation(info, thread_id, &class_id);
    if (SUCCEEDED(hr))
        hr = info->lpVtbl->ClassInformation(info, class_id, &name, NULL, &methods, &method_ids, &objects);
    if (SUCCEEDED(hr) && methods > 0)
        hr = info->lpVtbl->EnableMethodCallEvents(info, method_ids[0], JVM_ID_METHOD, JVM_PERMIT_METHOD_CALL_EVENTS);
    return IsEqualIID(&IID_IJavaEventMonitor2, &IID_IUnknown) ? E_FAIL : hr;
}
