/*
 * jevmon_compat.h - the Win32 and COM basics that jevmon.h needs, for systems
 * that are not Windows.
 *
 * On Windows these come from <windows.h> and <objbase.h>; everywhere else this
 * header supplies the same names with the same sizes (DWORD and LONG are 32 bits,
 * WCHAR is a 16-bit UTF-16 unit, HRESULT values are the Windows ones), so that a
 * monitor's source compiles unchanged on both systems.  It compiles as C89 and
 * as C++.
 *
 * Interfaces use the classic DECLARE_INTERFACE_ layout: in C a struct whose only
 * member is lpVtbl; in C++ a struct of pure virtual functions.  GCC lays both out
 * alike (the vtable pointer first, slots in declaration order), so a C++ class
 * can implement an interface that C code calls through lpVtbl.
 */
#ifndef JEVMON_COMPAT_H
#define JEVMON_COMPAT_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
#define EXTERN_C extern "C"
#else
#define EXTERN_C extern
#endif

/* ---- Scalar types ---------------------------------------------------------- */
typedef unsigned char BYTE;
typedef unsigned short WORD;
typedef unsigned int DWORD;
typedef int LONG;
typedef unsigned int ULONG;
typedef int INT;
typedef unsigned int UINT;
typedef int BOOL;
typedef int HRESULT;
typedef char CHAR;
typedef unsigned short WCHAR;
typedef char *LPSTR;
typedef const char *LPCSTR;
typedef WCHAR *LPWSTR;
typedef const WCHAR *LPCWSTR;
typedef void *LPVOID;
typedef size_t SIZE_T;
typedef __SIZE_TYPE__ UINT_PTR;
typedef __SIZE_TYPE__ ULONG_PTR;
typedef __PTRDIFF_TYPE__ INT_PTR;
typedef __PTRDIFF_TYPE__ LONG_PTR;
__extension__ typedef long long __int64;
__extension__ typedef long long LONGLONG;
__extension__ typedef unsigned long long ULONGLONG;

#ifndef TRUE
#define TRUE 1
#endif
#ifndef FALSE
#define FALSE 0
#endif
#ifndef MAX_PATH
#define MAX_PATH 260
#endif

/* ---- HRESULTs ----------------------------------------------------------------- */
#define SUCCEEDED(hr) (((HRESULT)(hr)) >= 0)
#define FAILED(hr) (((HRESULT)(hr)) < 0)
#define JEVMON_HR(x) ((HRESULT)(x))
#define S_OK JEVMON_HR(0x00000000L)
#define S_FALSE JEVMON_HR(0x00000001L)
#define E_NOTIMPL JEVMON_HR(0x80004001UL)
#define E_NOINTERFACE JEVMON_HR(0x80004002UL)
#define E_POINTER JEVMON_HR(0x80004003UL)
#define E_FAIL JEVMON_HR(0x80004005UL)
#define E_UNEXPECTED JEVMON_HR(0x8000FFFFUL)
#define E_ACCESSDENIED JEVMON_HR(0x80070005UL)
#define E_OUTOFMEMORY JEVMON_HR(0x8007000EUL)
#define E_INVALIDARG JEVMON_HR(0x80070057UL)
#define CLASS_E_NOAGGREGATION JEVMON_HR(0x80040110UL)
#define CLASS_E_CLASSNOTAVAILABLE JEVMON_HR(0x80040111UL)
#define REGDB_E_CLASSNOTREG JEVMON_HR(0x80040154UL)
#define REGDB_E_READREGDB JEVMON_HR(0x80040150UL)
#define REGDB_E_WRITEREGDB JEVMON_HR(0x80040151UL)
#define CO_E_DLLNOTFOUND JEVMON_HR(0x800401F8UL)
#define CO_E_ERRORINDLL JEVMON_HR(0x800401F9UL)
#define CO_E_CLASSSTRING JEVMON_HR(0x800401F3UL)
#define SELFREG_E_CLASS JEVMON_HR(0x80040201UL)

/* ---- GUIDs -------------------------------------------------------------------- */
#ifndef GUID_DEFINED
#define GUID_DEFINED
typedef struct _GUID {
    DWORD Data1;
    WORD Data2;
    WORD Data3;
    BYTE Data4[8];
} GUID;
#endif
typedef GUID IID;
typedef GUID CLSID;
typedef IID *LPIID;
typedef CLSID *LPCLSID;
#ifdef __cplusplus
#define REFGUID const GUID &
#define REFIID const IID &
#define REFCLSID const CLSID &
#define JEVMON_GUID_PTR(r) (&(r))
#else
#define REFGUID const GUID *
#define REFIID const IID *
#define REFCLSID const CLSID *
#define JEVMON_GUID_PTR(r) (r)
#endif
#define IsEqualGUID(a, b) (memcmp(JEVMON_GUID_PTR(a), JEVMON_GUID_PTR(b), sizeof(GUID)) == 0)
#define IsEqualIID(a, b) IsEqualGUID(a, b)
#define IsEqualCLSID(a, b) IsEqualGUID(a, b)

/*
 * DEFINE_GUID declares a GUID; in the one source file that includes <initguid.h>
 * (or defines INITGUID) first, it also defines it.  Definitions are weak, so two
 * files that both define the same GUID still link.
 */
#ifdef __cplusplus
#define JEVMON_GUID_STORAGE extern "C"
#else
#define JEVMON_GUID_STORAGE
#endif
#define JEVMON_DEFINE_GUID_INIT(name, l, w1, w2, b1, b2, b3, b4, b5, b6, b7, b8) \
    JEVMON_GUID_STORAGE const GUID name __attribute__((weak)) = {l, w1, w2, {b1, b2, b3, b4, b5, b6, b7, b8}}
#define JEVMON_DEFINE_GUID_DECL(name, l, w1, w2, b1, b2, b3, b4, b5, b6, b7, b8) EXTERN_C const GUID name
#undef DEFINE_GUID
#ifdef INITGUID
#define DEFINE_GUID JEVMON_DEFINE_GUID_INIT
#else
#define DEFINE_GUID JEVMON_DEFINE_GUID_DECL
#endif

/* ---- Calling conventions and interface declaration macros ----------------------- */
#define STDMETHODCALLTYPE
#define STDAPICALLTYPE
#define WINAPI
/* STDAPI functions are a module's entry points (DllGetClassObject ...): exported even when
   the module hides everything else (-fvisibility=hidden), as a .def file exports them on Windows. */
#define STDAPI EXTERN_C __attribute__((visibility("default"))) HRESULT STDAPICALLTYPE
#define STDAPI_(type) EXTERN_C __attribute__((visibility("default"))) type STDAPICALLTYPE
#define STDMETHODIMP HRESULT STDMETHODCALLTYPE
#define STDMETHODIMP_(type) type STDMETHODCALLTYPE
#define BEGIN_INTERFACE
#define END_INTERFACE
#ifndef interface
#define interface struct
#endif
#ifdef __cplusplus
#define STDMETHOD(method) virtual HRESULT STDMETHODCALLTYPE method
#define STDMETHOD_(type, method) virtual type STDMETHODCALLTYPE method
#define PURE = 0
#define THIS_
#define THIS void
#define DECLARE_INTERFACE(iface) interface iface
#define DECLARE_INTERFACE_(iface, baseiface) interface iface : public baseiface
#else
#define STDMETHOD(method) HRESULT(STDMETHODCALLTYPE *method)
#define STDMETHOD_(type, method) type(STDMETHODCALLTYPE *method)
#define PURE
#define THIS_ INTERFACE *This,
#define THIS INTERFACE *This
#define DECLARE_INTERFACE(iface)             \
    typedef interface iface iface;           \
    typedef struct iface##Vtbl iface##Vtbl;  \
    interface iface {                        \
        const iface##Vtbl *lpVtbl;           \
    };                                       \
    struct iface##Vtbl
#define DECLARE_INTERFACE_(iface, baseiface) DECLARE_INTERFACE(iface)
#endif

/* ---- IUnknown and IClassFactory ------------------------------------------------- */
#define JEVMON_COMPAT_IIDS                                                                              \
    DEFINE_GUID(IID_IUnknown, 0x00000000, 0x0000, 0x0000, 0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46); \
    DEFINE_GUID(IID_IClassFactory, 0x00000001, 0x0000, 0x0000, 0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46);
JEVMON_COMPAT_IIDS

#define JEVMON_IUNKNOWN_METHODS                                                 \
    STDMETHOD(QueryInterface)(THIS_ REFIID riid, void **ppvObject) PURE;        \
    STDMETHOD_(ULONG, AddRef)(THIS) PURE;                                       \
    STDMETHOD_(ULONG, Release)(THIS) PURE;

#ifndef __IUnknown_INTERFACE_DEFINED__
#define __IUnknown_INTERFACE_DEFINED__
#undef INTERFACE
#define INTERFACE IUnknown
DECLARE_INTERFACE(IUnknown)
{
    BEGIN_INTERFACE
    JEVMON_IUNKNOWN_METHODS
    END_INTERFACE
};
typedef IUnknown *LPUNKNOWN;
#endif

#undef INTERFACE
#define INTERFACE IClassFactory
DECLARE_INTERFACE_(IClassFactory, IUnknown)
{
    BEGIN_INTERFACE
    JEVMON_IUNKNOWN_METHODS
    STDMETHOD(CreateInstance)(THIS_ IUnknown *pUnkOuter, REFIID riid, void **ppvObject) PURE;
    STDMETHOD(LockServer)(THIS_ BOOL fLock) PURE;
    END_INTERFACE
};
#undef INTERFACE

#if !defined(__cplusplus) || defined(CINTERFACE)
#define IUnknown_QueryInterface(p, a, b) (p)->lpVtbl->QueryInterface(p, a, b)
#define IUnknown_AddRef(p) (p)->lpVtbl->AddRef(p)
#define IUnknown_Release(p) (p)->lpVtbl->Release(p)
#define IClassFactory_QueryInterface(p, a, b) (p)->lpVtbl->QueryInterface(p, a, b)
#define IClassFactory_AddRef(p) (p)->lpVtbl->AddRef(p)
#define IClassFactory_Release(p) (p)->lpVtbl->Release(p)
#define IClassFactory_CreateInstance(p, a, b, c) (p)->lpVtbl->CreateInstance(p, a, b, c)
#define IClassFactory_LockServer(p, a) (p)->lpVtbl->LockServer(p, a)
#endif

/* ---- Task memory ------------------------------------------------------------------ */
/* The task allocator is the C heap, so memory crosses between the bridge and monitors. */
static __inline__ void *CoTaskMemAlloc(SIZE_T cb) { return malloc(cb ? cb : 1); }
static __inline__ void *CoTaskMemRealloc(void *pv, SIZE_T cb) { return realloc(pv, cb ? cb : 1); }
static __inline__ void CoTaskMemFree(void *pv) { free(pv); }

/* Interlocked operations, as COM objects count references with them. */
static __inline__ LONG InterlockedIncrement(LONG volatile *p) { return __atomic_add_fetch(p, 1, __ATOMIC_SEQ_CST); }
static __inline__ LONG InterlockedDecrement(LONG volatile *p) { return __atomic_sub_fetch(p, 1, __ATOMIC_SEQ_CST); }
static __inline__ LONG InterlockedExchange(LONG volatile *p, LONG v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }
static __inline__ LONG InterlockedCompareExchange(LONG volatile *p, LONG v, LONG cmp)
{
    __atomic_compare_exchange_n(p, &cmp, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return cmp;
}

/* The entry points an in-process server exports. */
typedef HRESULT(STDAPICALLTYPE *LPFNGETCLASSOBJECT)(REFCLSID rclsid, REFIID riid, void **ppv);
typedef HRESULT(STDAPICALLTYPE *LPFNCANUNLOADNOW)(void);

#endif /* JEVMON_COMPAT_H */
