/*
 * win32.c - the Win32 platform layer, part one: environment, modules, threads, locks,
 * time, and the UTF-8/UTF-16 conversions the other parts use (win32_internal.h).
 * The registry is in win32_registry.c, COM activation in win32_com.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include <windows.h>
#include <tlhelp32.h>

#include "platform/platform.h"
#include "platform/win32_internal.h"

/* ---- Text ------------------------------------------------------------------------------ */
WCHAR *win32_to_wide(const char *text)
{
    int units = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, text, -1, NULL, 0);
    if (units <= 0) {
        jv_log("not valid UTF-8: \"%s\"", text);
        return NULL;
    }
    WCHAR *wide = malloc((size_t)units * sizeof(WCHAR));
    if (!wide) {
        jv_log("out of memory converting \"%s\" to UTF-16", text);
        return NULL;
    }
    MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, text, -1, wide, units);
    return wide;
}

char *win32_from_wide(const WCHAR *wide, int len)
{
    /* With an explicit length the result has no NUL of its own: room is made for one. */
    int bytes = len == 0 ? 0 : WideCharToMultiByte(CP_UTF8, 0, wide, len, NULL, 0, NULL, NULL);
    if (len != 0 && bytes <= 0) {
        jv_log("cannot convert a UTF-16 string to UTF-8 (error %lu)", GetLastError());
        return NULL;
    }
    char *text = malloc((size_t)bytes + 1);
    if (!text) {
        jv_log("out of memory converting a UTF-16 string to UTF-8");
        return NULL;
    }
    if (bytes)
        WideCharToMultiByte(CP_UTF8, 0, wide, len, text, bytes, NULL, NULL);
    text[bytes] = '\0';
    return text;
}

const char *win32_error_text(DWORD code, char *buf, size_t len)
{
    DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code, 0, buf,
                             (DWORD)len, NULL);
    if (n == 0) {
        snprintf(buf, len, "no description");
        return buf;
    }
    /* System messages end in ".\r\n"; a log line wants neither. */
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' || buf[n - 1] == '.'))
        buf[--n] = '\0';
    return buf;
}

/* ---- Environment ------------------------------------------------------------------------ */
char *plat_getenv(const char *name)
{
    if (!name || !*name) {
        jv_log("plat_getenv: no variable name");
        return NULL;
    }
    WCHAR *wname = win32_to_wide(name);
    if (!wname)
        return NULL;
    char *value = NULL;
    SetLastError(ERROR_SUCCESS);
    DWORD size = GetEnvironmentVariableW(wname, NULL, 0);
    /* 0 is both "not set" and, on some systems, "set to the empty string". */
    if (size == 0 && GetLastError() != ERROR_ENVVAR_NOT_FOUND)
        value = win32_from_wide(L"", 0);
    /* The value may change between two calls: retry until it fits. */
    while (size > 0) {
        WCHAR *wvalue = malloc(size * sizeof(WCHAR));
        if (!wvalue) {
            jv_log("out of memory reading the environment variable %s", name);
            break;
        }
        DWORD got = GetEnvironmentVariableW(wname, wvalue, size);
        if (got < size)
            value = win32_from_wide(wvalue, (int)got);
        free(wvalue);
        size = got < size ? 0 : got;
    }
    free(wname);
    return value;
}

/* ---- Modules ----------------------------------------------------------------------------- */
char *plat_module_path(const void *addr)
{
    HMODULE module;
    if (!addr || !GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                                     (LPCWSTR)addr, &module)) {
        jv_log("plat_module_path: no module contains the address %p", addr);
        return NULL;
    }
    /* GetModuleFileNameW truncates silently (returning the buffer's size): grow until it fits. */
    for (DWORD size = MAX_PATH;; size *= 2) {
        WCHAR *path = malloc(size * sizeof(WCHAR));
        if (!path) {
            jv_log("out of memory reading a module's path");
            return NULL;
        }
        DWORD len = GetModuleFileNameW(module, path, size);
        if (len == 0) {
            jv_log("GetModuleFileNameW failed (error %lu)", GetLastError());
            free(path);
            return NULL;
        }
        if (len < size) {
            char *utf8 = win32_from_wide(path, (int)len);
            free(path);
            return utf8;
        }
        free(path);
    }
}

void *plat_module_symbol(const void *addr, const char *name)
{
    HMODULE module;
    if (!addr || !GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                                     (LPCWSTR)addr, &module))
        return NULL;
    return (void *)GetProcAddress(module, name);
}

/* ---- Locks ------------------------------------------------------------------------------- */
/* A critical section: recursive, as plat_mutex is on POSIX too (a recursive pthread mutex). */
struct plat_mutex {
    CRITICAL_SECTION section;
};

plat_mutex *plat_mutex_create(void)
{
    plat_mutex *m = malloc(sizeof(*m));
    if (!m) {
        jv_log("out of memory creating a mutex");
        return NULL;
    }
    InitializeCriticalSection(&m->section);
    return m;
}

void plat_mutex_destroy(plat_mutex *m)
{
    if (!m)
        return;
    DeleteCriticalSection(&m->section);
    free(m);
}

void plat_mutex_lock(plat_mutex *m)
{
    EnterCriticalSection(&m->section);
}

void plat_mutex_unlock(plat_mutex *m)
{
    LeaveCriticalSection(&m->section);
}

/* ---- Threads ----------------------------------------------------------------------------- */
struct plat_event {
    HANDLE handle; /* a manual-reset event */
};

plat_event *plat_event_create(void)
{
    plat_event *e = malloc(sizeof(*e));
    if (!e)
        return NULL;
    if (!(e->handle = CreateEventW(NULL, TRUE, FALSE, NULL))) {
        free(e);
        return NULL;
    }
    return e;
}

void plat_event_destroy(plat_event *e)
{
    if (!e)
        return;
    CloseHandle(e->handle);
    free(e);
}

void plat_event_set(plat_event *e)
{
    SetEvent(e->handle);
}

void plat_event_reset(plat_event *e)
{
    ResetEvent(e->handle);
}

int plat_event_wait_ms(plat_event *e, unsigned ms)
{
    return WaitForSingleObject(e->handle, ms) == WAIT_OBJECT_0;
}

#define THREAD_NAME_MAX 64

struct plat_thread {
    HANDLE handle;
    void (*fn)(void *arg);
    void *arg;
    WCHAR name[THREAD_NAME_MAX];
};

typedef HRESULT(WINAPI *set_thread_description_fn)(HANDLE thread, PCWSTR description);

/* SetThreadDescription is Windows 10's (1607): looked up, so that older systems run unnamed threads. */
static void name_this_thread(const WCHAR *name)
{
    HMODULE kernel = GetModuleHandleW(L"kernel32.dll");
    FARPROC symbol = kernel ? GetProcAddress(kernel, "SetThreadDescription") : NULL;
    set_thread_description_fn set_description;
    if (!symbol || !name[0])
        return;
    memcpy(&set_description, &symbol, sizeof(symbol));
    set_description(GetCurrentThread(), name);
}

static DWORD WINAPI thread_main(LPVOID param)
{
    plat_thread *t = param;
    name_this_thread(t->name);
    t->fn(t->arg);
    return 0;
}

plat_thread *plat_thread_start(const char *name, void (*fn)(void *arg), void *arg)
{
    if (!fn) {
        jv_log("plat_thread_start: no thread function");
        return NULL;
    }
    plat_thread *t = malloc(sizeof(*t));
    if (!t) {
        jv_log("out of memory starting a thread");
        return NULL;
    }
    t->fn = fn;
    t->arg = arg;
    if (!MultiByteToWideChar(CP_UTF8, 0, name, -1, t->name, THREAD_NAME_MAX))
        t->name[0] = 0; /* too long, or not UTF-8: unnamed */
    t->handle = CreateThread(NULL, 0, thread_main, t, 0, NULL);
    if (!t->handle) {
        jv_log("CreateThread failed (error %lu)", GetLastError());
        free(t);
        return NULL;
    }
    return t;
}

void plat_thread_join(plat_thread *t)
{
    if (!t)
        return;
    WaitForSingleObject(t->handle, INFINITE);
    CloseHandle(t->handle);
    free(t);
}

static DWORD exit_slot = FLS_OUT_OF_INDEXES;
static INIT_ONCE exit_slot_once = INIT_ONCE_STATIC_INIT;
static void (*volatile exit_fn)(void);

/* Called as a thread ends with its slot set (and for each such thread when the process ends). */
static void WINAPI run_exit_fn(void *marked)
{
    if (marked && exit_fn)
        exit_fn();
}

static BOOL CALLBACK make_exit_slot(INIT_ONCE *once, void *param, void **context)
{
    (void)once, (void)param, (void)context;
    exit_slot = FlsAlloc(run_exit_fn);
    return TRUE;
}

int plat_thread_at_exit(void (*fn)(void))
{
    InitOnceExecuteOnce(&exit_slot_once, make_exit_slot, NULL, NULL);
    if (exit_slot == FLS_OUT_OF_INDEXES ||
        (InterlockedCompareExchangePointer((void *volatile *)&exit_fn, (void *)fn, NULL) != NULL && exit_fn != fn))
        return -1;
    return FlsGetValue(exit_slot) || FlsSetValue(exit_slot, &exit_slot) ? 0 : -1;
}

DWORD plat_os_thread_id(void)
{
    return GetCurrentThreadId();
}

uint64_t plat_thread_cpu_ns(DWORD os_thread)
{
    FILETIME created, exited, kernel, user;
    HANDLE thread = OpenThread(THREAD_QUERY_LIMITED_INFORMATION, FALSE, os_thread);
    if (!thread)
        return UINT64_MAX;
    BOOL ok = GetThreadTimes(thread, &created, &exited, &kernel, &user);
    CloseHandle(thread);
    if (!ok)
        return UINT64_MAX;
    uint64_t hundreds = ((uint64_t)kernel.dwHighDateTime << 32 | kernel.dwLowDateTime) +
                        ((uint64_t)user.dwHighDateTime << 32 | user.dwLowDateTime);
    return hundreds * 100;
}

int plat_thread_cpu_exact(void)
{
    return 0;
}

unsigned plat_processor_count(void)
{
    DWORD_PTR process_mask = 0, system_mask = 0;
    unsigned count = 0;
    if (GetProcessAffinityMask(GetCurrentProcess(), &process_mask, &system_mask))
        for (; process_mask; process_mask &= process_mask - 1)
            count++;
    return count ? count : 1;
}

size_t plat_process_threads(DWORD *ids, size_t max)
{
    size_t count = 0;
    THREADENTRY32 entry = {.dwSize = sizeof(entry)};
    HANDLE all = CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0);
    if (all == INVALID_HANDLE_VALUE)
        return 0;
    for (BOOL more = Thread32First(all, &entry); more; more = Thread32Next(all, &entry)) {
        if (entry.th32OwnerProcessID != GetCurrentProcessId())
            continue;
        if (count < max)
            ids[count] = entry.th32ThreadID;
        count++;
    }
    CloseHandle(all);
    return count;
}

/* ---- Time -------------------------------------------------------------------------------- */
uint64_t plat_ticks(void)
{
    return __rdtsc();
}

uint64_t plat_now_ns(void)
{
    LARGE_INTEGER counter, frequency;
    QueryPerformanceCounter(&counter);
    QueryPerformanceFrequency(&frequency); /* fixed at boot; asking is cheap */
    uint64_t ticks = (uint64_t)counter.QuadPart, hz = (uint64_t)frequency.QuadPart;
    /* Whole seconds and the remainder apart, so that ticks * 10^9 cannot overflow. */
    return ticks / hz * 1000000000u + ticks % hz * 1000000000u / hz;
}

uint64_t plat_unix_ns(void)
{
    FILETIME now; /* 100 ns units since 1601 */
    GetSystemTimeAsFileTime(&now);
    uint64_t since_1601 = (uint64_t)now.dwHighDateTime << 32 | now.dwLowDateTime;
    return (since_1601 - 116444736000000000ull) * 100u;
}

void plat_sleep_ms(unsigned ms)
{
    Sleep(ms);
}

DWORD plat_process_id(void)
{
    return GetCurrentProcessId();
}

int plat_make_directories(const char *path, char *why, size_t why_len)
{
    char *copy = _strdup(path), text[256];
    DWORD error = copy ? 0 : ERROR_OUTOFMEMORY;
    /* Each parent, then the directory; the first refusal other than "exists" is the reason (a
     * drive's root answers "access denied"). */
    for (char *p = copy && *copy ? copy + 1 : NULL; p; p = *p ? p + 1 : NULL) {
        if (*p && *p != '/' && *p != '\\')
            continue;
        char kept = *p;
        *p = '\0';
        DWORD refused = CreateDirectoryA(copy, NULL) ? 0 : GetLastError();
        if (refused && refused != ERROR_ALREADY_EXISTS && refused != ERROR_ACCESS_DENIED && !error)
            error = refused;
        *p = kept;
    }
    free(copy);
    DWORD attributes = GetFileAttributesA(path);
    if (attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_DIRECTORY))
        return 0;
    snprintf(why, why_len, "%s", error                                    ? win32_error_text(error, text, sizeof(text))
                                 : attributes == INVALID_FILE_ATTRIBUTES ? "it cannot be created"
                                                                         : "it is not a directory");
    return -1;
}

int plat_process_barrier_init(void)
{
    return 1;
}

void plat_process_barrier(void)
{
    FlushProcessWriteBuffers();
}

void plat_run_helper(void *(*fn)(void *unused))
{
    fn(NULL);
}

void plat_helpers_join(void)
{
}
