/*
 * win32_com.c - platform.h's COM on Windows: the multithreaded apartment and in-process
 * activation through CoCreateInstance, with a why text that says what went wrong in the
 * terms of the registration a user can check (the CLSID, its InprocServer32 DLL); and the
 * same from a DLL named for one load (the agent option server=).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/guid.h"
#include "platform/platform.h"
#include "platform/win32_internal.h"

HRESULT plat_com_init(void)
{
    return CoInitializeEx(NULL, COINIT_MULTITHREADED);
}

void plat_com_uninit(void)
{
    CoUninitialize();
}

#define WIN32_HRESULT(code) MAKE_HRESULT(SEVERITY_ERROR, FACILITY_WIN32, code)

/* What activation failures mean for an in-process server; others get the system's text. */
static const struct {
    HRESULT hr;
    const char *meaning;
} activation_errors[] = {
    {REGDB_E_CLASSNOTREG, "class not registered"},
    {REGDB_E_READREGDB, "cannot read the class's registration"},
    {CO_E_DLLNOTFOUND, "InprocServer32 DLL not found"},
    {WIN32_HRESULT(ERROR_MOD_NOT_FOUND), "InprocServer32 DLL or a DLL it needs not found"},
    {WIN32_HRESULT(ERROR_BAD_EXE_FORMAT), "InprocServer32 DLL is not a DLL for this process (32/64-bit mismatch?)"},
    {WIN32_HRESULT(ERROR_PROC_NOT_FOUND), "InprocServer32 DLL does not export DllGetClassObject"},
    {CO_E_ERRORINDLL, "InprocServer32 DLL has a bad image"},
    {CO_E_NOTINITIALIZED, "COM is not initialized on this thread (plat_com_init)"},
    {CLASS_E_CLASSNOTAVAILABLE, "the DLL does not provide this class"},
    {E_NOINTERFACE, "the object does not implement the requested interface"},
    {E_ACCESSDENIED, "access denied, or (under Wine) the DLL could not be loaded"},
    {E_OUTOFMEMORY, "out of memory"},
};

static const char *activation_error_text(HRESULT hr, char *buf, size_t len)
{
    for (size_t i = 0; i < sizeof(activation_errors) / sizeof(activation_errors[0]); i++)
        if (activation_errors[i].hr == hr)
            return activation_errors[i].meaning;
    return win32_error_text((DWORD)hr, buf, len);
}

/* Whether LoadLibrary could find path: absolute, or along the search path. */
static int dll_exists(const char *path)
{
    WCHAR *wpath = win32_to_wide(path);
    int found = wpath && SearchPathW(NULL, wpath, NULL, 0, NULL, NULL) != 0;
    free(wpath);
    return found;
}

/* The why text of a failed activation: the CLSID, the cause, and what the registration says.
 * A registered DLL that is not there is the cause whatever the HRESULT (Wine reports it as
 * E_ACCESSDENIED, Windows as ERROR_MOD_NOT_FOUND). */
static void describe_failure(const CLSID *clsid, HRESULT hr, char *why, size_t why_len)
{
    char clsid_text[JV_GUID_TEXT_SIZE], key[64], buf[256], *server = NULL;
    jv_guid_format(clsid, clsid_text);
    snprintf(key, sizeof(key), "CLSID\\%s\\InprocServer32", clsid_text);
    const char *meaning = activation_error_text(hr, buf, sizeof(buf));
    unsigned long code = (unsigned long)hr;

    plat_reg_status st = plat_reg_get_string(PLAT_HKCR, key, NULL, &server);
    if (st == PLAT_REG_OK && !dll_exists(server))
        snprintf(why, why_len, "class %s: InprocServer32 DLL not found: %s (0x%08lX %s)", clsid_text, server, code,
                 meaning);
    else if (st == PLAT_REG_OK)
        snprintf(why, why_len, "class %s: %s (0x%08lX); InprocServer32 is %s", clsid_text, meaning, code, server);
    else if (st == PLAT_REG_NOT_FOUND)
        snprintf(why, why_len, "class %s: %s (0x%08lX); there is no HKCR\\%s", clsid_text, meaning, code, key);
    else
        snprintf(why, why_len, "class %s: %s (0x%08lX)", clsid_text, meaning, code);
    free(server);
}

HRESULT plat_create_instance(const CLSID *clsid, const IID *iid, void **ppv, char *why, size_t why_len)
{
    char ignored[1];
    if (!why || !why_len) {
        why = ignored;
        why_len = sizeof(ignored);
    }
    why[0] = '\0';
    if (!clsid || !iid || !ppv) {
        const char *missing = !clsid ? "CLSID" : !iid ? "IID" : "place for the object";
        jv_log("plat_create_instance: no %s", missing);
        snprintf(why, why_len, "plat_create_instance: no %s", missing);
        return E_POINTER;
    }
    *ppv = NULL;
    HRESULT hr = CoCreateInstance(clsid, NULL, CLSCTX_INPROC_SERVER, iid, ppv);
    if (FAILED(hr))
        describe_failure(clsid, hr, why, why_len);
    return hr;
}

/* A full path: a drive and a backslash, or a UNC name (LoadLibrary would search for anything else). */
static int absolute_path(const char *path)
{
    return (((path[0] | 0x20) >= 'a' && (path[0] | 0x20) <= 'z' && path[1] == ':' &&
             (path[2] == '\\' || path[2] == '/')) ||
            (path[0] == '\\' && path[1] == '\\'));
}

/* What COM does for a registered in-process server, from the DLL at server.  The DLL stays
 * loaded, as COM keeps a server its objects may still need. */
HRESULT plat_create_instance_at(const CLSID *clsid, const char *server, const IID *iid, void **ppv, char *why,
                                size_t why_len)
{
    char clsid_text[JV_GUID_TEXT_SIZE], buf[256], ignored[1];
    IClassFactory *factory = NULL;
    HRESULT hr;
    if (!why || !why_len)
        why = ignored, why_len = sizeof(ignored);
    why[0] = '\0';
    if (!clsid || !server || !iid || !ppv)
        return E_POINTER;
    *ppv = NULL;
    jv_guid_format(clsid, clsid_text);
    if (!absolute_path(server)) {
        snprintf(why, why_len, "class %s: server %s is a relative path (it must be absolute)", clsid_text, server);
        return CO_E_DLLNOTFOUND;
    }
    WCHAR *wide = win32_to_wide(server);
    HMODULE dll = wide ? LoadLibraryExW(wide, NULL, LOAD_WITH_ALTERED_SEARCH_PATH) : NULL;
    free(wide);
    if (!dll) {
        DWORD code = GetLastError();
        snprintf(why, why_len, "class %s: server %s cannot be loaded: %s", clsid_text, server,
                 win32_error_text(code, buf, sizeof(buf)));
        return WIN32_HRESULT(code);
    }
    FARPROC symbol = GetProcAddress(dll, "DllGetClassObject");
    LPFNGETCLASSOBJECT get_class_object;
    if (!symbol) {
        snprintf(why, why_len, "class %s: server %s has no DllGetClassObject", clsid_text, server);
        FreeLibrary(dll); /* nothing of it has run but its DllMain */
        return CO_E_ERRORINDLL;
    }
    memcpy(&get_class_object, &symbol, sizeof(symbol));
    hr = get_class_object(clsid, &IID_IClassFactory, (void **)&factory);
    if (FAILED(hr) || !factory) {
        snprintf(why, why_len, "class %s: DllGetClassObject of %s failed (0x%08lX)", clsid_text, server,
                 (unsigned long)hr);
        return FAILED(hr) ? hr : E_UNEXPECTED;
    }
    hr = IClassFactory_CreateInstance(factory, NULL, iid, ppv);
    IClassFactory_Release(factory);
    if (FAILED(hr) || !*ppv) {
        *ppv = NULL;
        snprintf(why, why_len, "class %s: IClassFactory::CreateInstance of %s failed (0x%08lX)", clsid_text, server,
                 (unsigned long)hr);
        return FAILED(hr) ? hr : E_UNEXPECTED;
    }
    return S_OK;
}
