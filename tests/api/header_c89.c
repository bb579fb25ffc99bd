/*
 * header_c89.c - include/jevmon.h as a legacy monitor's C source uses it, compiled by the
 * build as C89 (-std=c89 -pedantic) for every target: the header must stay C89-clean.
 */
#include <windows.h>
#include <initguid.h>
#define COBJMACROS
#include "jevmon.h"

/* Calls through the C macros and through lpVtbl, the two ways C code of the era did it. */
HRESULT probe_idinfo(IJavaEventMonitorIDInfo4 *info);
HRESULT probe_idinfo(IJavaEventMonitorIDInfo4 *info)
{
    DWORD mask = 0;
    JVM_METHOD_SAMPLE sample;
    HRESULT hr = IJavaEventMonitorIDInfo4_GetEventMask(info, &mask);
    sample.flags = ALL_JVM_SAMPLE_FIELDS;
    if (SUCCEEDED(hr))
        hr = info->lpVtbl->SampleThreadLocation(info, 0, &sample);
    return IsEqualIID(&IID_IJavaEventMonitor2, &IID_IUnknown) ? E_FAIL : hr;
}
