/*
 * posix_activation.c - plat_create_instance on POSIX: what CoCreateInstance does for an
 * in-process server, with a shared library for the DLL.
 *
 *   HKCR\CLSID\{clsid}\InprocServer32, default value: the library's absolute path (or the path
 *   plat_create_instance_at is given: the agent option server=)
 *   refused unless it is a regular file that only root or this user could have put there,
 *   by any step of its path (posix_open_trusted), and loaded from the descriptor checked:
 *   dlopen("/proc/self/fd/N", RTLD_NOW | RTLD_LOCAL), dlsym("DllGetClassObject")
 *   DllGetClassObject(clsid, IID_IClassFactory) -> CreateInstance(NULL, iid) -> Release the factory
 *
 * A library is never closed once its DllGetClassObject has run: objects and factories
 * it made may live on (and DllCanUnloadNow is not asked; the process keeps what it loaded).
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/guid.h"
#include "platform/platform.h"
#include "platform/posix_trust.h"

/* Writes "CLSID {..}: <cause>" into why and returns hr. */
static HRESULT fail(HRESULT hr, char *why, size_t why_len, const char *clsid_text, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static HRESULT fail(HRESULT hr, char *why, size_t why_len, const char *clsid_text, const char *fmt, ...)
{
    if (why && why_len) {
        int n = snprintf(why, why_len, "CLSID %s: ", clsid_text);
        va_list ap;
        va_start(ap, fmt);
        if (n >= 0 && (size_t)n < why_len)
            vsnprintf(why + n, why_len - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return hr;
}

/* The library registered for the class, in *path; a failure HRESULT (why written) when there is none. */
static HRESULT find_server(const char *clsid_text, char **path, char *why, size_t why_len)
{
    char key[80];
    char **subkeys = NULL;
    size_t count = 0;
    snprintf(key, sizeof(key), "CLSID\\%s", clsid_text);
    plat_reg_status status = plat_reg_subkeys(PLAT_HKCR, key, &subkeys, &count);
    plat_free_strings(subkeys, count);
    if (status == PLAT_REG_NOT_FOUND)
        return fail(REGDB_E_CLASSNOTREG, why, why_len, clsid_text, "class not registered (no key HKCR\\%s)", key);
    if (status == PLAT_REG_OK) {
        snprintf(key, sizeof(key), "CLSID\\%s\\InprocServer32", clsid_text);
        status = plat_reg_get_string(PLAT_HKCR, key, NULL, path);
    }
    switch (status) {
    case PLAT_REG_OK:
        return S_OK;
    case PLAT_REG_NOT_FOUND:
        return fail(REGDB_E_CLASSNOTREG, why, why_len, clsid_text,
                    "no in-process server registered (no HKCR\\%s default value)", key);
    case PLAT_REG_WRONG_TYPE:
        return fail(REGDB_E_CLASSNOTREG, why, why_len, clsid_text,
                    "the default value of HKCR\\%s is not a string", key);
    default:
        return fail(REGDB_E_READREGDB, why, why_len, clsid_text, "the registry could not be read (see above)");
    }
}

/*
 * The library at path, loaded and holding DllGetClassObject; a failure HRESULT (why written)
 * otherwise.  It is opened once, refused unless it is a regular file that only root or this
 * user could have put there, by every step of its path (posix_open_trusted: dlopen of a FIFO
 * would block for ever, and a library another user can swap would run as this user), and
 * loaded from that descriptor, so that the file loaded is the file checked.  The descriptor
 * stays open with the library, which is never unloaded: its name, /proc/self/fd/N, keeps
 * leading to the file (plat_module_path).
 */
static HRESULT load_server(const char *clsid_text, const char *path, LPFNGETCLASSOBJECT *get_class_object,
                           char *why, size_t why_len)
{
    char reason[PATH_MAX + 256], fd_path[48];
    if (path[0] != '/')
        return fail(CO_E_DLLNOTFOUND, why, why_len, clsid_text,
                    "InprocServer32 is a relative path: %s (it must be absolute)", path);
    int fd = posix_open_trusted(path, reason, sizeof(reason));
    if (fd < 0)
        return errno == EACCES
                   ? fail(E_ACCESSDENIED, why, why_len, clsid_text, "InprocServer32 %s refused: %s", path, reason)
                   : fail(CO_E_DLLNOTFOUND, why, why_len, clsid_text, "InprocServer32 %s: %s", path, reason);
    snprintf(fd_path, sizeof(fd_path), "/proc/self/fd/%d", fd);
    void *library = dlopen(fd_path, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        fail(CO_E_ERRORINDLL, why, why_len, clsid_text, "InprocServer32 %s cannot be loaded: %s", path, dlerror());
        close(fd);
        return CO_E_ERRORINDLL;
    }
    dlerror();
    void *symbol = dlsym(library, "DllGetClassObject");
    if (!symbol) {
        const char *error = dlerror(); /* valid until the next dl call: used before dlclose */
        fail(CO_E_ERRORINDLL, why, why_len, clsid_text, "InprocServer32 %s has no DllGetClassObject (%s)", path,
             error ? error : "the symbol is NULL");
        dlclose(library); /* nothing of it has run but its initialisers */
        close(fd);
        return CO_E_ERRORINDLL;
    }
    /* POSIX guarantees a function's address round-trips through void *, which dlsym relies on. */
    memcpy(get_class_object, &symbol, sizeof(symbol));
    return S_OK;
}

/* DllGetClassObject of the server at path, its factory, the object: plat_create_instance's rest. */
static HRESULT create_from(const CLSID *clsid, const char *clsid_text, const char *path, const IID *iid, void **ppv,
                           char *why, size_t why_len)
{
    LPFNGETCLASSOBJECT get_class_object = NULL;
    IClassFactory *factory = NULL;
    HRESULT hr = load_server(clsid_text, path, &get_class_object, why, why_len);
    if (FAILED(hr))
        return hr;
    hr = get_class_object(clsid, &IID_IClassFactory, (void **)&factory);
    if (FAILED(hr))
        return fail(hr, why, why_len, clsid_text, "DllGetClassObject of %s failed (hr=0x%08X)", path, (unsigned)hr);
    if (!factory)
        return fail(E_UNEXPECTED, why, why_len, clsid_text, "DllGetClassObject of %s succeeded without a factory",
                    path);
    hr = IClassFactory_CreateInstance(factory, NULL, iid, ppv);
    IClassFactory_Release(factory);
    if (FAILED(hr)) {
        char iid_text[JV_GUID_TEXT_SIZE];
        *ppv = NULL;
        fail(hr, why, why_len, clsid_text, "IClassFactory::CreateInstance for interface %s failed (hr=0x%08X%s)",
             jv_guid_format(iid, iid_text), (unsigned)hr, hr == E_NOINTERFACE ? ", no such interface" : "");
    } else if (!*ppv) {
        hr = fail(E_UNEXPECTED, why, why_len, clsid_text, "IClassFactory::CreateInstance succeeded without an object");
    }
    return hr;
}

/* server: the library to use, or NULL for the registered one. */
static HRESULT create_instance(const CLSID *clsid, const char *server, const IID *iid, void **ppv, char *why,
                               size_t why_len)
{
    char clsid_text[JV_GUID_TEXT_SIZE];
    char *path = NULL;
    HRESULT hr;

    if (why && why_len)
        why[0] = '\0';
    if (!clsid || !iid || !ppv)
        return E_POINTER;
    *ppv = NULL;
    jv_guid_format(clsid, clsid_text);
    if (server)
        return create_from(clsid, clsid_text, server, iid, ppv, why, why_len);
    if (FAILED(hr = find_server(clsid_text, &path, why, why_len)))
        return hr;
    hr = create_from(clsid, clsid_text, path, iid, ppv, why, why_len);
    free(path);
    return hr;
}

HRESULT plat_create_instance(const CLSID *clsid, const IID *iid, void **ppv, char *why, size_t why_len)
{
    return create_instance(clsid, NULL, iid, ppv, why, why_len);
}

HRESULT plat_create_instance_at(const CLSID *clsid, const char *server, const IID *iid, void **ppv, char *why,
                                size_t why_len)
{
    return create_instance(clsid, server ? server : "", iid, ppv, why, why_len);
}
