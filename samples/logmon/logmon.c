/*
 * logmon.c - LogMon, a sample event monitor that writes every event and every ID the
 * VM hands it to a text file, one line per callback, with event types named as the
 * SDK names them and IDs resolved to class, method and thread names where the VM can
 * resolve them.
 *
 * It is written the way a monitor for the Microsoft VM for Java was written in 1999:
 * plain C, explicit lpVtbl calls, a static class factory, the four exports of an
 * in-process COM server (logmon.def) and self-registration.  The same source builds
 * as logmon.dll for Windows and as logmon.so for jevmon on Linux.
 *
 * Configuration, read once in Initialize:
 *   LOGMON_FILE    the log file, appended to (default: logmon.log in the current directory)
 *   LOGMON_EVENTS  the JAVA_EVENT_CATEGORY bits to request, in hex; without it the DWORD
 *                  value "Events" of the monitor's registry key
 *                  (HKLM\Software\Microsoft\Java VM\Monitors\logmon), and without that
 *                  LOGMON_DEFAULT_EVENTS (class loads, threads, GC, exceptions, JIT)
 */
#include <windows.h>
#include <objbase.h>
#include <initguid.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "jevmon.h"
#include "jevmon_register.h"
#include "platform/platform.h"

/* {292AB596-1B36-4388-8086-C8283FA88105} */
DEFINE_GUID(CLSID_LogMon, 0x292AB596, 0x1B36, 0x4388, 0x80, 0x86, 0xC8, 0x28, 0x3F, 0xA8, 0x81, 0x05);

#define LOGMON_KEY_NAME "logmon"
#define LOGMON_DEFAULT_FILE "logmon.log"
#define LOGMON_DEFAULT_EVENTS                                                                   \
    (JVM_MONITOR_CLASS_LOADS | JVM_MONITOR_THREADS | JVM_MONITOR_GARBAGE_COLLECTIONS |          \
     JVM_MONITOR_EXCEPTIONS | JVM_MONITOR_JIT_COMPILATION)

/* Objects alive and LockServer locks: the DLL may be unloaded when both are zero. */
static LONG g_cObjects = 0;
static LONG g_cLocks = 0;

typedef struct LogMon {
    IJavaEventMonitor2 iface;       /* first member: the object's one interface pointer */
    LONG cRef;
    IJavaEventMonitorIDInfo *pInfo; /* AddRef'd in Initialize */
    IJavaEventMonitorIDInfo2 *pInfo2; /* NULL if the VM is older than IDInfo2 */
    DWORD dwEvents;                 /* what Initialize requested */
    FILE *pLog;
} LogMon;

/* ---- Names of the SDK's constants ---------------------------------------------------- */

static const char *EventName(JVM_EVENT_TYPE event)
{
    switch (event) {
    case JVM_EVENT_TYPE_EXCEPTION_OCCURRED: return "JVM_EVENT_TYPE_EXCEPTION_OCCURRED";
    case JVM_EVENT_TYPE_THREAD_CREATE: return "JVM_EVENT_TYPE_THREAD_CREATE";
    case JVM_EVENT_TYPE_THREAD_DESTROY: return "JVM_EVENT_TYPE_THREAD_DESTROY";
    case JVM_EVENT_TYPE_CLASS_LOAD_STARTED: return "JVM_EVENT_TYPE_CLASS_LOAD_STARTED";
    case JVM_EVENT_TYPE_CLASS_LOAD_FINISHED: return "JVM_EVENT_TYPE_CLASS_LOAD_FINISHED";
    case JVM_EVENT_TYPE_CLASS_UNLOAD: return "JVM_EVENT_TYPE_CLASS_UNLOAD";
    case JVM_EVENT_TYPE_JIT_COMPILE_STARTED: return "JVM_EVENT_TYPE_JIT_COMPILE_STARTED";
    case JVM_EVENT_TYPE_JIT_COMPILE_FINISHED: return "JVM_EVENT_TYPE_JIT_COMPILE_FINISHED";
    case JVM_EVENT_TYPE_GC_STARTED: return "JVM_EVENT_TYPE_GC_STARTED";
    case JVM_EVENT_TYPE_GC_FINISHED: return "JVM_EVENT_TYPE_GC_FINISHED";
    case JVM_EVENT_TYPE_SHUTDOWN: return "JVM_EVENT_TYPE_SHUTDOWN";
    case JVM_EVENT_TYPE_RESERVED_14: return "JVM_EVENT_TYPE_RESERVED_14";
    case JVM_EVENT_TYPE_RESERVED_15: return "JVM_EVENT_TYPE_RESERVED_15";
    case JVM_EVENT_TYPE_CLASS_LOAD_FAILED: return "JVM_EVENT_TYPE_CLASS_LOAD_FAILED";
    }
    return NULL;
}

static const char *Event2Name(JVM_EVENT_TYPE2 event2)
{
    switch (event2) {
    case JVM_EVENT_TYPE2_THREAD_SET_NAME: return "JVM_EVENT_TYPE2_THREAD_SET_NAME";
    case JVM_EVENT_TYPE2_EXCEPTION_OCCURRED: return "JVM_EVENT_TYPE2_EXCEPTION_OCCURRED";
    case JVM_EVENT_TYPE2_EXCEPTION_THROWN: return "JVM_EVENT_TYPE2_EXCEPTION_THROWN";
    case JVM_EVENT_TYPE2_EXCEPTION_UNWIND: return "JVM_EVENT_TYPE2_EXCEPTION_UNWIND";
    case JVM_EVENT_TYPE2_STACK_TRACE: return "JVM_EVENT_TYPE2_STACK_TRACE";
    case JVM_EVENT_TYPE2_INITIALIZED: return "JVM_EVENT_TYPE2_INITIALIZED";
    case JVM_EVENT_TYPE2_MONITORS_INITIALIZED: return "JVM_EVENT_TYPE2_MONITORS_INITIALIZED";
    }
    return NULL;
}

/* ---- The log --------------------------------------------------------------------------- */

/*
 * Callbacks arrive on many VM threads at once.  Each line is formatted first and then
 * written with one fputs and flushed: the C runtime locks the stream for each call, so
 * lines never interleave, and a crash of the program still leaves a complete log.
 */
static void LogLine(LogMon *This, const char *pszFormat, ...) __attribute__((format(printf, 2, 3)));
static void LogLine(LogMon *This, const char *pszFormat, ...)
{
    char szLine[2048];
    va_list args;
    int cch;

    if (This->pLog == NULL)
        return;
    va_start(args, pszFormat);
    cch = vsnprintf(szLine, sizeof(szLine) - 1, pszFormat, args);
    va_end(args);
    if (cch < 0)
        return;
    if ((size_t)cch >= sizeof(szLine) - 1)
        cch = (int)sizeof(szLine) - 2; /* a long name was cut: keep the newline */
    szLine[cch] = '\n';
    szLine[cch + 1] = '\0';
    fputs(szLine, This->pLog);
    fflush(This->pLog);
}

/* IDs are pointer-sized; printed as hexadecimal through the widest unsigned type. */
#define ID_FMT "0x%llx"
#define ID_ARG(id) ((unsigned long long)(id))

/* ---- Resolving IDs --------------------------------------------------------------------- */

/* "java.lang.String (String.java, 94 methods)", or "?" when the VM cannot say. */
static void DescribeClass(LogMon *This, ClassID class_id, char *pszOut, size_t cchOut)
{
    LPSTR pszClass = NULL, pszSource = NULL;
    int cMethods = 0;
    MethodID *pMethods = NULL;
    __int64 cCreated = 0;

    if (SUCCEEDED(This->pInfo->lpVtbl->ClassInformation(This->pInfo, class_id, &pszClass, &pszSource, &cMethods,
                                                         &pMethods, &cCreated)) &&
        pszClass != NULL)
        snprintf(pszOut, cchOut, "%s (%s, %d methods)", pszClass, pszSource ? pszSource : "no source file",
                 cMethods);
    else
        snprintf(pszOut, cchOut, "?");
    CoTaskMemFree(pszClass);
    CoTaskMemFree(pszSource);
    CoTaskMemFree(pMethods);
}

/* "java/lang/Object.hashCode()I", or "?". */
static void DescribeMethod(LogMon *This, MethodID method_id, char *pszOut, size_t cchOut)
{
    LPSTR pszMethod = NULL;
    ClassID class_id = 0;
    JAVA_EXECUTION_MODEL exec = JVM_EXECUTION_INVALID;
    int cLines = 0;
    SourceLineInfo *pLines = NULL;

    if (method_id != 0 &&
        SUCCEEDED(This->pInfo->lpVtbl->MethodInformation(This->pInfo, method_id, &pszMethod, &class_id, &exec,
                                                          &cLines, &pLines)) &&
        pszMethod != NULL)
        snprintf(pszOut, cchOut, "%s", pszMethod);
    else
        snprintf(pszOut, cchOut, "?");
    CoTaskMemFree(pszMethod);
    CoTaskMemFree(pLines);
}

/* "win32 thread 1234", or "?": ThreadInformation is an IDInfo2 method. */
static void DescribeThread(LogMon *This, ThreadID thread_id, char *pszOut, size_t cchOut)
{
    DWORD dwWin32Id = 0;

    if (This->pInfo2 != NULL &&
        SUCCEEDED(This->pInfo2->lpVtbl->ThreadInformation(This->pInfo2, thread_id, &dwWin32Id)))
        snprintf(pszOut, cchOut, "win32 thread %lu", (unsigned long)dwWin32Id);
    else
        snprintf(pszOut, cchOut, "?");
}

/* The class of an exception object, which is only valid during this callback. */
static void DescribeObject(LogMon *This, ObjectID object_id, char *pszOut, size_t cchOut)
{
    ClassID class_id = 0;

    if (object_id != 0 &&
        SUCCEEDED(This->pInfo->lpVtbl->ObjectInformation(This->pInfo, object_id, &class_id)))
        DescribeClass(This, class_id, pszOut, cchOut);
    else
        snprintf(pszOut, cchOut, "?");
}

/* ---- IUnknown --------------------------------------------------------------------------- */

static HRESULT STDMETHODCALLTYPE LogMon_QueryInterface(IJavaEventMonitor2 *iface, REFIID riid, void **ppv)
{
    if (IsEqualIID(riid, &IID_IUnknown) || IsEqualIID(riid, &IID_IJavaEventMonitor) ||
        IsEqualIID(riid, &IID_IJavaEventMonitor2)) {
        *ppv = iface;
        iface->lpVtbl->AddRef(iface);
        return S_OK;
    }
    *ppv = NULL;
    return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE LogMon_AddRef(IJavaEventMonitor2 *iface)
{
    LogMon *This = (LogMon *)iface;
    return (ULONG)InterlockedIncrement(&This->cRef);
}

static ULONG STDMETHODCALLTYPE LogMon_Release(IJavaEventMonitor2 *iface)
{
    LogMon *This = (LogMon *)iface;
    LONG cRef = InterlockedDecrement(&This->cRef);

    if (cRef == 0) {
        LogLine(This, "Release: last reference, monitor destroyed");
        if (This->pInfo2 != NULL)
            This->pInfo2->lpVtbl->Release(This->pInfo2);
        if (This->pInfo != NULL)
            This->pInfo->lpVtbl->Release(This->pInfo);
        if (This->pLog != NULL)
            fclose(This->pLog);
        free(This);
        InterlockedDecrement(&g_cObjects);
    }
    return (ULONG)cRef;
}

/* ---- IJavaEventMonitor ------------------------------------------------------------------- */

/* The categories to request: LOGMON_EVENTS, else the registry's Events value, else the default. */
static DWORD RequestedEvents(void)
{
    const char *pszEnv = getenv("LOGMON_EVENTS");
    DWORD dwEvents;

    if (pszEnv != NULL && *pszEnv != '\0')
        return (DWORD)strtoul(pszEnv, NULL, 16);
    if (plat_reg_get_dword(PLAT_HKLM, JEVMON_MONITORS_KEY "\\" LOGMON_KEY_NAME, "Events", &dwEvents) == PLAT_REG_OK)
        return dwEvents;
    return LOGMON_DEFAULT_EVENTS;
}

static HRESULT STDMETHODCALLTYPE LogMon_Initialize(IJavaEventMonitor2 *iface, LPCSTR pclass_file_name,
                                                   IJavaEventMonitorIDInfo *pmonitor_info, DWORD java_flags,
                                                   DWORD *prequested_events)
{
    LogMon *This = (LogMon *)iface;
    const char *pszFile = getenv("LOGMON_FILE");

    This->pLog = fopen(pszFile != NULL && *pszFile != '\0' ? pszFile : LOGMON_DEFAULT_FILE, "a");
    if (This->pLog == NULL)
        return E_FAIL; /* a logger that cannot log is better not loaded at all */

    /* The VM may release its own reference once Initialize returns; this one keeps it for later callbacks. */
    This->pInfo = pmonitor_info;
    This->pInfo->lpVtbl->AddRef(This->pInfo);
    if (FAILED(pmonitor_info->lpVtbl->QueryInterface(pmonitor_info, &IID_IJavaEventMonitorIDInfo2,
                                                     (void **)&This->pInfo2)))
        This->pInfo2 = NULL;

    This->dwEvents = RequestedEvents();
    *prequested_events = This->dwEvents;
    LogLine(This, "Initialize class=%s java_flags=0x%lx IDInfo2=%s requested_events=0x%lx",
            pclass_file_name ? pclass_file_name : "(none)", (unsigned long)java_flags,
            This->pInfo2 != NULL ? "yes" : "no", (unsigned long)This->dwEvents);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE LogMon_ExecuteByteCode(IJavaEventMonitor2 *iface, MethodID method_id,
                                                        BYTE_CODE *pbyte_code, DWORD byte_code_offset)
{
    LogMon *This = (LogMon *)iface;
    char szMethod[1024];

    DescribeMethod(This, method_id, szMethod, sizeof(szMethod));
    LogLine(This, "ExecuteByteCode method=" ID_FMT " %s offset=%lu opcode=0x%02x", ID_ARG(method_id), szMethod,
            (unsigned long)byte_code_offset, pbyte_code != NULL ? (unsigned)*pbyte_code : 0u);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE LogMon_ExecuteSourceLine(IJavaEventMonitor2 *iface, MethodID method_id,
                                                          DWORD line_number)
{
    LogMon *This = (LogMon *)iface;
    char szMethod[1024];

    DescribeMethod(This, method_id, szMethod, sizeof(szMethod));
    LogLine(This, "ExecuteSourceLine method=" ID_FMT " %s line=%lu", ID_ARG(method_id), szMethod,
            (unsigned long)line_number);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE LogMon_MethodEntry(IJavaEventMonitor2 *iface, MethodID method_id, StackID stack_id)
{
    LogMon *This = (LogMon *)iface;
    char szMethod[1024];

    DescribeMethod(This, method_id, szMethod, sizeof(szMethod));
    LogLine(This, "MethodEntry method=" ID_FMT " %s stack=" ID_FMT, ID_ARG(method_id), szMethod, ID_ARG(stack_id));
    return S_OK;
}

/* Never called: the VM calls MethodExit2 on monitors that implement IJavaEventMonitor2. */
static HRESULT STDMETHODCALLTYPE LogMon_MethodExit(IJavaEventMonitor2 *iface, StackID stack_id)
{
    LogMon *This = (LogMon *)iface;

    LogLine(This, "MethodExit stack=" ID_FMT, ID_ARG(stack_id));
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE LogMon_NotifyEvent(IJavaEventMonitor2 *iface, JVM_EVENT_TYPE event,
                                                    UniqueID event_id)
{
    LogMon *This = (LogMon *)iface;
    const char *pszEvent = EventName(event);
    char szWhat[1024];

    if (pszEvent == NULL) {
        LogLine(This, "NotifyEvent %d id=" ID_FMT, (int)event, ID_ARG(event_id));
        return S_OK;
    }
    switch (event) {
    case JVM_EVENT_TYPE_CLASS_LOAD_STARTED:
    case JVM_EVENT_TYPE_CLASS_LOAD_FAILED:
        /* The ID is the class name (UTF-8, slashes): the class has no ClassID yet. */
        LogLine(This, "NotifyEvent %s name=%s", pszEvent, event_id ? (const char *)event_id : "?");
        break;
    case JVM_EVENT_TYPE_CLASS_LOAD_FINISHED:
    case JVM_EVENT_TYPE_CLASS_UNLOAD:
        DescribeClass(This, (ClassID)event_id, szWhat, sizeof(szWhat));
        LogLine(This, "NotifyEvent %s class=" ID_FMT " %s", pszEvent, ID_ARG(event_id), szWhat);
        break;
    case JVM_EVENT_TYPE_JIT_COMPILE_STARTED:
    case JVM_EVENT_TYPE_JIT_COMPILE_FINISHED:
        DescribeMethod(This, (MethodID)event_id, szWhat, sizeof(szWhat));
        LogLine(This, "NotifyEvent %s method=" ID_FMT " %s", pszEvent, ID_ARG(event_id), szWhat);
        break;
    case JVM_EVENT_TYPE_THREAD_CREATE:
    case JVM_EVENT_TYPE_THREAD_DESTROY:
        /* On THREAD_DESTROY the ID is still valid until this callback returns. */
        DescribeThread(This, (ThreadID)event_id, szWhat, sizeof(szWhat));
        LogLine(This, "NotifyEvent %s thread=" ID_FMT " %s", pszEvent, ID_ARG(event_id), szWhat);
        break;
    case JVM_EVENT_TYPE_EXCEPTION_OCCURRED:
        LogLine(This, "NotifyEvent %s handler_stack=" ID_FMT, pszEvent, ID_ARG(event_id));
        break;
    default: /* GC and SHUTDOWN carry no ID: it is logged all the same, as every ID is */
        LogLine(This, "NotifyEvent %s id=" ID_FMT, pszEvent, ID_ARG(event_id));
        break;
    }
    return S_OK;
}

/* ---- IJavaEventMonitor2 ------------------------------------------------------------------ */

static HRESULT STDMETHODCALLTYPE LogMon_GetPossibleEventCategories(IJavaEventMonitor2 *iface,
                                                                   DWORD *ppossible_events)
{
    LogMon *This = (LogMon *)iface;

    /* LogMon never changes its mask, so the VM need not prepare for anything else. */
    *ppossible_events = This->dwEvents;
    LogLine(This, "GetPossibleEventCategories possible_events=0x%lx", (unsigned long)This->dwEvents);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE LogMon_MethodExit2(IJavaEventMonitor2 *iface, MethodID method_id, StackID stack_id)
{
    LogMon *This = (LogMon *)iface;
    char szMethod[1024];

    /* Both IDs name the caller returned to; both are 0 when the outermost method returns. */
    DescribeMethod(This, method_id, szMethod, sizeof(szMethod));
    LogLine(This, "MethodExit2 method=" ID_FMT " %s stack=" ID_FMT, ID_ARG(method_id), szMethod, ID_ARG(stack_id));
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE LogMon_NotifyEvent2(IJavaEventMonitor2 *iface, JVM_EVENT_TYPE2 event2,
                                                     UniqueID first_event_id, UniqueID second_event_id)
{
    LogMon *This = (LogMon *)iface;
    const char *pszEvent = Event2Name(event2);
    char szWhat[1024];

    if (pszEvent == NULL) {
        LogLine(This, "NotifyEvent2 %d first=" ID_FMT " second=" ID_FMT, (int)event2, ID_ARG(first_event_id),
                ID_ARG(second_event_id));
        return S_OK;
    }
    switch (event2) {
    case JVM_EVENT_TYPE2_THREAD_SET_NAME:
        DescribeThread(This, (ThreadID)first_event_id, szWhat, sizeof(szWhat));
        LogLine(This, "NotifyEvent2 %s thread=" ID_FMT " %s second=" ID_FMT, pszEvent, ID_ARG(first_event_id), szWhat,
                ID_ARG(second_event_id));
        break;
    case JVM_EVENT_TYPE2_EXCEPTION_OCCURRED:
    case JVM_EVENT_TYPE2_EXCEPTION_THROWN:
    case JVM_EVENT_TYPE2_EXCEPTION_UNWIND:
        /* first: the frame (handler, thrower or frame unwound); second: the exception object */
        DescribeObject(This, (ObjectID)second_event_id, szWhat, sizeof(szWhat));
        LogLine(This, "NotifyEvent2 %s stack=" ID_FMT " exception=" ID_FMT " %s", pszEvent, ID_ARG(first_event_id),
                ID_ARG(second_event_id), szWhat);
        break;
    case JVM_EVENT_TYPE2_STACK_TRACE:
        DescribeMethod(This, (MethodID)first_event_id, szWhat, sizeof(szWhat));
        LogLine(This, "NotifyEvent2 %s method=" ID_FMT " %s stack=" ID_FMT, pszEvent, ID_ARG(first_event_id), szWhat,
                ID_ARG(second_event_id));
        break;
    case JVM_EVENT_TYPE2_MONITORS_INITIALIZED:
        LogLine(This, "NotifyEvent2 %s monitors=%llu categories=0x%llx", pszEvent, ID_ARG(first_event_id),
                ID_ARG(second_event_id));
        break;
    case JVM_EVENT_TYPE2_INITIALIZED:
        LogLine(This, "NotifyEvent2 %s first=" ID_FMT " second=" ID_FMT, pszEvent, ID_ARG(first_event_id),
                ID_ARG(second_event_id));
        break;
    }
    return S_OK;
}

static IJavaEventMonitor2Vtbl LogMonVtbl = {
    LogMon_QueryInterface,
    LogMon_AddRef,
    LogMon_Release,
    LogMon_ExecuteByteCode,
    LogMon_ExecuteSourceLine,
    LogMon_Initialize,
    LogMon_MethodEntry,
    LogMon_MethodExit,
    LogMon_NotifyEvent,
    LogMon_GetPossibleEventCategories,
    LogMon_MethodExit2,
    LogMon_NotifyEvent2,
};

/* ---- Class factory ------------------------------------------------------------------------- */

static HRESULT STDMETHODCALLTYPE Factory_QueryInterface(IClassFactory *iface, REFIID riid, void **ppv)
{
    if (IsEqualIID(riid, &IID_IUnknown) || IsEqualIID(riid, &IID_IClassFactory)) {
        *ppv = iface;
        iface->lpVtbl->AddRef(iface);
        return S_OK;
    }
    *ppv = NULL;
    return E_NOINTERFACE;
}

/* The factory is a static object: its references only keep the DLL loaded. */
static ULONG STDMETHODCALLTYPE Factory_AddRef(IClassFactory *iface)
{
    (void)iface;
    InterlockedIncrement(&g_cLocks);
    return 2;
}

static ULONG STDMETHODCALLTYPE Factory_Release(IClassFactory *iface)
{
    (void)iface;
    InterlockedDecrement(&g_cLocks);
    return 1;
}

static HRESULT STDMETHODCALLTYPE Factory_CreateInstance(IClassFactory *iface, IUnknown *pUnkOuter, REFIID riid,
                                                        void **ppv)
{
    LogMon *pMon;
    HRESULT hr;

    (void)iface;
    *ppv = NULL;
    if (pUnkOuter != NULL)
        return CLASS_E_NOAGGREGATION;
    pMon = (LogMon *)calloc(1, sizeof(LogMon));
    if (pMon == NULL)
        return E_OUTOFMEMORY;
    pMon->iface.lpVtbl = &LogMonVtbl;
    pMon->cRef = 1;
    InterlockedIncrement(&g_cObjects);
    /* QueryInterface takes the caller's reference; Release drops ours (and frees on failure). */
    hr = pMon->iface.lpVtbl->QueryInterface(&pMon->iface, riid, ppv);
    pMon->iface.lpVtbl->Release(&pMon->iface);
    return hr;
}

static HRESULT STDMETHODCALLTYPE Factory_LockServer(IClassFactory *iface, BOOL fLock)
{
    (void)iface;
    if (fLock)
        InterlockedIncrement(&g_cLocks);
    else
        InterlockedDecrement(&g_cLocks);
    return S_OK;
}

static IClassFactoryVtbl FactoryVtbl = {
    Factory_QueryInterface,
    Factory_AddRef,
    Factory_Release,
    Factory_CreateInstance,
    Factory_LockServer,
};

static IClassFactory g_Factory = {&FactoryVtbl};

/* ---- DLL exports (logmon.def) ---------------------------------------------------------------- */

STDAPI DllGetClassObject(REFCLSID rclsid, REFIID riid, void **ppv)
{
    if (!IsEqualCLSID(rclsid, &CLSID_LogMon)) {
        *ppv = NULL;
        return CLASS_E_CLASSNOTAVAILABLE;
    }
    return g_Factory.lpVtbl->QueryInterface(&g_Factory, riid, ppv);
}

STDAPI DllCanUnloadNow(void)
{
    return g_cObjects == 0 && g_cLocks == 0 ? S_OK : S_FALSE;
}

static const JEVMON_MONITOR_REGISTRATION g_Registration = {
    &CLSID_LogMon,
    LOGMON_KEY_NAME,
    "LogMon - logs every event monitor callback to a file",
    FALSE, /* no InitOptions: LogMon wants the VM's most general behaviour */
    0,
    (const void *)DllGetClassObject,
};

STDAPI DllRegisterServer(void)
{
    return JevmonRegisterMonitor(&g_Registration);
}

STDAPI DllUnregisterServer(void)
{
    return JevmonUnregisterMonitor(&g_Registration);
}
