/*
 * win32_registry.c - platform.h's registry on Windows: advapi32's W functions, with
 * UTF-8 converted at the edges.
 *
 * PLAT_HKCR is HKEY_CLASSES_ROOT itself: reads see the merged view (HKCU\Software\Classes
 * over HKLM\Software\Classes) and new keys land in HKLM\Software\Classes, as regsvr32's
 * do.  A 32-bit process sees the registry's 32-bit view, as the 32-bit COM runtime does.
 */
#include <stdlib.h>
#include <string.h>

#include "platform/platform.h"
#include "platform/win32_internal.h"

static const char *hive_name(plat_hive hive)
{
    switch (hive) {
    case PLAT_HKLM: return "HKLM";
    case PLAT_HKCU: return "HKCU";
    case PLAT_HKCR: return "HKCR";
    }
    return NULL;
}

static HKEY hive_root(plat_hive hive)
{
    switch (hive) {
    case PLAT_HKLM: return HKEY_LOCAL_MACHINE;
    case PLAT_HKCU: return HKEY_CURRENT_USER;
    case PLAT_HKCR: return HKEY_CLASSES_ROOT;
    }
    return NULL;
}

/* NOT_FOUND for a missing key or value; anything else but success is logged as an ERROR. */
static plat_reg_status status_of(LONG err, const char *doing, plat_hive hive, const char *key, const char *name)
{
    char text[256];
    if (err == ERROR_SUCCESS)
        return PLAT_REG_OK;
    if (err == ERROR_FILE_NOT_FOUND)
        return PLAT_REG_NOT_FOUND;
    jv_log("registry: %s %s\\%s%s%s: %s (error %ld)", doing, hive_name(hive), key, name ? " value " : "",
           name ? (*name ? name : "(default)") : "", win32_error_text((DWORD)err, text, sizeof(text)), (long)err);
    return PLAT_REG_ERROR;
}

/* Opens (or with create, creates) hive\key; every failure but a missing key is logged. */
static plat_reg_status open_key(const char *caller, plat_hive hive, const char *key, REGSAM access, int create,
                                HKEY *hk)
{
    if (!hive_root(hive) || !key) {
        jv_log("%s: %s", caller, key ? "unknown hive" : "no key path");
        return PLAT_REG_ERROR;
    }
    WCHAR *wkey = win32_to_wide(key);
    if (!wkey)
        return PLAT_REG_ERROR;
    LONG err = create ? RegCreateKeyExW(hive_root(hive), wkey, 0, NULL, REG_OPTION_NON_VOLATILE, access, NULL, hk, NULL)
                      : RegOpenKeyExW(hive_root(hive), wkey, 0, access, hk);
    free(wkey);
    return status_of(err, create ? "cannot create" : "cannot open", hive, key, NULL);
}

/* The value's name as RegQueryValueExW/RegSetValueExW take it: NULL for the default value. */
static plat_reg_status value_name(const char *name, WCHAR **wname)
{
    *wname = NULL;
    if (!name || !*name)
        return PLAT_REG_OK;
    *wname = win32_to_wide(name);
    return *wname ? PLAT_REG_OK : PLAT_REG_ERROR;
}

/* Reads a value whatever its type; *data is malloc'd with two zero bytes past *size, so
 * that a string read from it is terminated even when the registry's copy is not. */
static plat_reg_status query_value(const char *caller, plat_hive hive, const char *key, const char *name, DWORD *type,
                                   BYTE **data, DWORD *size)
{
    HKEY hk;
    WCHAR *wname;
    *data = NULL;
    plat_reg_status st = open_key(caller, hive, key, KEY_QUERY_VALUE, 0, &hk);
    if (st != PLAT_REG_OK)
        return st;
    st = value_name(name, &wname);
    LONG err = ERROR_SUCCESS;
    *size = 0;
    /* The value may grow between asking its size and reading it: retry until it fits. */
    while (st == PLAT_REG_OK) {
        err = RegQueryValueExW(hk, wname, NULL, type, NULL, size);
        if (err != ERROR_SUCCESS)
            break;
        free(*data);
        *data = malloc(*size + sizeof(WCHAR));
        if (!*data) {
            jv_log("%s: out of memory reading %s\\%s", caller, hive_name(hive), key);
            st = PLAT_REG_ERROR;
            break;
        }
        DWORD got = *size;
        err = RegQueryValueExW(hk, wname, NULL, type, *data, &got);
        if (err != ERROR_MORE_DATA) {
            *size = got;
            break;
        }
    }
    if (st == PLAT_REG_OK)
        st = status_of(err, "cannot read", hive, key, name ? name : "");
    if (st == PLAT_REG_OK)
        memset(*data + *size, 0, sizeof(WCHAR));
    else {
        free(*data);
        *data = NULL;
    }
    free(wname);
    RegCloseKey(hk);
    return st;
}

plat_reg_status plat_reg_get_string(plat_hive hive, const char *key, const char *name, char **value)
{
    DWORD type, size;
    BYTE *data;
    if (!value) {
        jv_log("plat_reg_get_string: nowhere to store the value");
        return PLAT_REG_ERROR;
    }
    *value = NULL;
    plat_reg_status st = query_value("plat_reg_get_string", hive, key, name, &type, &data, &size);
    if (st != PLAT_REG_OK)
        return st;
    const WCHAR *text = (const WCHAR *)data;
    WCHAR *expanded = NULL;
    if (type == REG_EXPAND_SZ) {
        /* What COM does with an InprocServer32 such as %SystemRoot%\...: expand it. */
        DWORD units = ExpandEnvironmentStringsW(text, NULL, 0);
        expanded = units ? malloc(units * sizeof(WCHAR)) : NULL;
        DWORD got = expanded ? ExpandEnvironmentStringsW(text, expanded, units) : 0;
        if (got && got <= units)
            text = expanded;
        else
            jv_log("registry: cannot expand %s\\%s, keeping it as it is", hive_name(hive), key);
    }
    if (type == REG_SZ || type == REG_EXPAND_SZ) {
        *value = win32_from_wide(text, -1);
        st = *value ? PLAT_REG_OK : PLAT_REG_ERROR;
    } else
        st = PLAT_REG_WRONG_TYPE;
    free(expanded);
    free(data);
    return st;
}

plat_reg_status plat_reg_get_dword(plat_hive hive, const char *key, const char *name, DWORD *value)
{
    DWORD type, size;
    BYTE *data;
    if (!value) {
        jv_log("plat_reg_get_dword: nowhere to store the value");
        return PLAT_REG_ERROR;
    }
    plat_reg_status st = query_value("plat_reg_get_dword", hive, key, name, &type, &data, &size);
    if (st != PLAT_REG_OK)
        return st;
    if (type == REG_DWORD && size == sizeof(DWORD))
        memcpy(value, data, sizeof(DWORD));
    else
        st = PLAT_REG_WRONG_TYPE;
    free(data);
    return st;
}

plat_reg_status plat_reg_subkeys(plat_hive hive, const char *key, char ***names, size_t *count)
{
    HKEY hk;
    if (!names || !count) {
        jv_log("plat_reg_subkeys: nowhere to store the names");
        return PLAT_REG_ERROR;
    }
    *names = NULL;
    *count = 0;
    plat_reg_status st = open_key("plat_reg_subkeys", hive, key, KEY_ENUMERATE_SUB_KEYS, 0, &hk);
    if (st != PLAT_REG_OK)
        return st;
    size_t capacity = 0;
    for (DWORD index = 0; st == PLAT_REG_OK; index++) {
        WCHAR name[256]; /* a key name has at most 255 characters */
        DWORD len = sizeof(name) / sizeof(name[0]);
        LONG err = RegEnumKeyExW(hk, index, name, &len, NULL, NULL, NULL, NULL);
        if (err == ERROR_NO_MORE_ITEMS)
            break;
        st = status_of(err, "cannot list the subkeys of", hive, key, NULL);
        if (st != PLAT_REG_OK)
            break;
        if (*count == capacity) {
            capacity = capacity ? capacity * 2 : 16;
            char **grown = realloc(*names, capacity * sizeof(char *));
            if (!grown) {
                jv_log("plat_reg_subkeys: out of memory listing %s\\%s", hive_name(hive), key);
                st = PLAT_REG_ERROR;
                break;
            }
            *names = grown;
        }
        char *utf8 = win32_from_wide(name, (int)len);
        if (!utf8)
            st = PLAT_REG_ERROR;
        else
            (*names)[(*count)++] = utf8;
    }
    RegCloseKey(hk);
    if (st != PLAT_REG_OK) {
        plat_free_strings(*names, *count);
        *names = NULL;
        *count = 0;
    }
    return st;
}

void plat_free_strings(char **strings, size_t count)
{
    for (size_t i = 0; strings && i < count; i++)
        free(strings[i]);
    free(strings);
}

static plat_reg_status set_value(const char *caller, plat_hive hive, const char *key, const char *name, DWORD type,
                                 const void *data, DWORD size)
{
    HKEY hk;
    WCHAR *wname;
    /* The name first: a name that cannot be written must not leave a new, empty key behind. */
    plat_reg_status st = value_name(name, &wname);
    if (st != PLAT_REG_OK)
        return st;
    st = open_key(caller, hive, key, KEY_SET_VALUE, 1, &hk);
    if (st == PLAT_REG_OK) {
        st = status_of(RegSetValueExW(hk, wname, 0, type, data, size), "cannot write", hive, key, name ? name : "");
        RegCloseKey(hk);
    }
    free(wname);
    return st;
}

plat_reg_status plat_reg_set_string(plat_hive hive, const char *key, const char *name, const char *value)
{
    if (!value) {
        jv_log("plat_reg_set_string: no value to write to %s", key ? key : "(no key)");
        return PLAT_REG_ERROR;
    }
    WCHAR *wvalue = win32_to_wide(value);
    if (!wvalue)
        return PLAT_REG_ERROR;
    DWORD size = (DWORD)((wcslen(wvalue) + 1) * sizeof(WCHAR));
    plat_reg_status st = set_value("plat_reg_set_string", hive, key, name, REG_SZ, wvalue, size);
    free(wvalue);
    return st;
}

plat_reg_status plat_reg_set_dword(plat_hive hive, const char *key, const char *name, DWORD value)
{
    return set_value("plat_reg_set_dword", hive, key, name, REG_DWORD, &value, sizeof(value));
}

plat_reg_status plat_reg_delete_tree(plat_hive hive, const char *key)
{
    /* An empty path would empty the whole hive. */
    if (!hive_root(hive) || !key || !*key) {
        jv_log("plat_reg_delete_tree: %s", hive_root(hive) ? "no key path (refusing to empty the hive)" : "unknown hive");
        return PLAT_REG_ERROR;
    }
    WCHAR *wkey = win32_to_wide(key);
    if (!wkey)
        return PLAT_REG_ERROR;
    LONG err = RegDeleteTreeW(hive_root(hive), wkey);
    free(wkey);
    return status_of(err, "cannot delete", hive, key, NULL);
}
