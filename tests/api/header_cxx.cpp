/*
 * header_cxx.cpp - include/jevmon.h from C++, compiled by the build for every target: a
 * monitor class derives from the interface and overrides every method.
 *
 * Written as against the original header with <initguid.h>, which defines the IIDs here
 * (the build links this file alone, and with libjevsdk's definitions too).  The overrides
 * take IDs as the original's DWORD on Win32: a method whose parameter types differ would
 * not override, leave Probe abstract and stop `new Probe` from compiling.
 */
#include <windows.h>
#include <initguid.h>
#include "jevmon.h"

#include "static_checks.h"

/* Type identity, which C++98 tells apart from size alone. */
template <typename A, typename B> struct same_type { enum { value = 0 }; };
template <typename A> struct same_type<A, A> { enum { value = 1 }; };
#define API_SAME_TYPE(name, a, b) API_CHECK(name, (same_type<a, b>::value))
API_SAME_TYPE(unique_id_is_ulong_ptr, UniqueID, ULONG_PTR);
API_SAME_TYPE(unique_id_is_legacy_id, UniqueID, API_LEGACY_ID);
API_SAME_TYPE(thread_id_is_unique_id, ThreadID, UniqueID);
API_SAME_TYPE(stack_id_is_unique_id, StackID, UniqueID);
API_SAME_TYPE(object_id_is_unique_id, ObjectID, UniqueID);
API_SAME_TYPE(object_handle_id_is_unique_id, ObjectHandleID, UniqueID);
API_SAME_TYPE(method_id_is_unique_id, MethodID, UniqueID);
API_SAME_TYPE(field_id_is_unique_id, FieldID, UniqueID);
API_SAME_TYPE(class_id_is_unique_id, ClassID, UniqueID);
#if defined(_WIN32) && !defined(_WIN64)
API_SAME_TYPE(unique_id_is_dword, UniqueID, DWORD);
API_SAME_TYPE(unique_id_is_unsigned_long, UniqueID, unsigned long);
#endif

class Probe : public IJavaEventMonitor2 {
  public:
    STDMETHODIMP QueryInterface(REFIID riid, void **ppv)
    {
        *ppv = IsEqualIID(riid, IID_IUnknown) ? this : 0;
        return *ppv ? S_OK : E_NOINTERFACE;
    }
    STDMETHODIMP_(ULONG) AddRef() { return 2; }
    STDMETHODIMP_(ULONG) Release() { return 1; }
    STDMETHODIMP ExecuteByteCode(API_LEGACY_ID, BYTE_CODE *, DWORD) { return S_OK; }
    STDMETHODIMP ExecuteSourceLine(API_LEGACY_ID, DWORD) { return S_OK; }
    STDMETHODIMP Initialize(LPCSTR, IJavaEventMonitorIDInfo *info, DWORD, DWORD *requested)
    {
        IJavaEventMonitorIDInfo4 *info4 = 0;
        if (SUCCEEDED(info->QueryInterface(IID_IJavaEventMonitorIDInfo4, (void **)&info4))) {
            API_LEGACY_ID thread = 0;
            info4->SetMonitorInitializationOptions(JVM_INIT_OPT_GC_SAFE_METHOD_CALLS);
            info4->GetCurrentThread(&thread); /* a DWORD * on Win32, without a cast */
            info4->Release();
        }
        *requested = JVM_MONITOR_CLASS_LOADS;
        return S_OK;
    }
    STDMETHODIMP MethodEntry(API_LEGACY_ID, API_LEGACY_ID) { return S_OK; }
    STDMETHODIMP MethodExit(API_LEGACY_ID) { return S_OK; }
    STDMETHODIMP NotifyEvent(JVM_EVENT_TYPE, API_LEGACY_ID) { return S_OK; }
    STDMETHODIMP GetPossibleEventCategories(DWORD *possible)
    {
        *possible = ALL_JVM_MONITOR_EVENTS;
        return S_OK;
    }
    STDMETHODIMP MethodExit2(API_LEGACY_ID, API_LEGACY_ID) { return S_OK; }
    STDMETHODIMP NotifyEvent2(JVM_EVENT_TYPE2, API_LEGACY_ID, API_LEGACY_ID) { return S_OK; }
};

IJavaEventMonitor2 *make_probe();
IJavaEventMonitor2 *make_probe()
{
    return new Probe;
}
