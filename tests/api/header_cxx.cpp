/*
 * header_cxx.cpp - include/jevmon.h from C++, compiled by the build for every target: a
 * monitor class derives from the interface and overrides every method.
 */
#include <windows.h>
#include <initguid.h>
#include "jevmon.h"

class Probe : public IJavaEventMonitor2 {
  public:
    STDMETHODIMP QueryInterface(REFIID riid, void **ppv)
    {
        *ppv = IsEqualIID(riid, IID_IUnknown) ? this : 0;
        return *ppv ? S_OK : E_NOINTERFACE;
    }
    STDMETHODIMP_(ULONG) AddRef() { return 2; }
    STDMETHODIMP_(ULONG) Release() { return 1; }
    STDMETHODIMP ExecuteByteCode(MethodID, BYTE_CODE *, DWORD) { return S_OK; }
    STDMETHODIMP ExecuteSourceLine(MethodID, DWORD) { return S_OK; }
    STDMETHODIMP Initialize(LPCSTR, IJavaEventMonitorIDInfo *info, DWORD, DWORD *requested)
    {
        IJavaEventMonitorIDInfo4 *info4 = 0;
        if (SUCCEEDED(info->QueryInterface(IID_IJavaEventMonitorIDInfo4, (void **)&info4))) {
            info4->SetMonitorInitializationOptions(JVM_INIT_OPT_GC_SAFE_METHOD_CALLS);
            info4->Release();
        }
        *requested = JVM_MONITOR_CLASS_LOADS;
        return S_OK;
    }
    STDMETHODIMP MethodEntry(MethodID, StackID) { return S_OK; }
    STDMETHODIMP MethodExit(StackID) { return S_OK; }
    STDMETHODIMP NotifyEvent(JVM_EVENT_TYPE, UniqueID) { return S_OK; }
    STDMETHODIMP GetPossibleEventCategories(DWORD *possible)
    {
        *possible = ALL_JVM_MONITOR_EVENTS;
        return S_OK;
    }
    STDMETHODIMP MethodExit2(MethodID, StackID) { return S_OK; }
    STDMETHODIMP NotifyEvent2(JVM_EVENT_TYPE2, UniqueID, UniqueID) { return S_OK; }
};

IJavaEventMonitor2 *make_probe();
IJavaEventMonitor2 *make_probe()
{
    return new Probe;
}
