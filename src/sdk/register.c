/*
 * register.c - self-registration for event monitors (jevmon_register.h), written on
 * platform.h alone: the same code writes the Windows registry under regsvr32 and
 * jevmon's registry files under jevmon-regsvr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/guid.h"
#include "jevmon_register.h"
#include "platform/platform.h"

/* The keys of one registration.  A registry key name has at most 255 characters. */
typedef struct monitor_keys {
    char clsid[JV_GUID_TEXT_SIZE];                      /* {XXXXXXXX-...}, upper case */
    char class_key[sizeof("CLSID\\") + JV_GUID_TEXT_LEN]; /* HKCR */
    char server_key[sizeof("CLSID\\\\InprocServer32") + JV_GUID_TEXT_LEN];
    char monitor_key[sizeof(JEVMON_MONITORS_KEY "\\") + 255]; /* HKLM */
} monitor_keys;

/* Fills keys from reg, or logs (one line) why reg cannot be registered and returns 0. */
static int monitor_keys_of(const char *caller, const JEVMON_MONITOR_REGISTRATION *reg, monitor_keys *keys)
{
    if (!reg || !reg->clsid) {
        jv_log("%s: no %s", caller, reg ? "CLSID" : "registration");
        return 0;
    }
    const char *name = reg->key_name ? reg->key_name : "";
    if (!*name || strchr(name, '\\') || strlen(name) > 255) {
        jv_log("%s: \"%s\" is not a key name (1 to 255 characters, no backslash)", caller, name);
        return 0;
    }
    jv_guid_format(reg->clsid, keys->clsid);
    snprintf(keys->class_key, sizeof(keys->class_key), "CLSID\\%s", keys->clsid);
    snprintf(keys->server_key, sizeof(keys->server_key), "CLSID\\%s\\InprocServer32", keys->clsid);
    snprintf(keys->monitor_key, sizeof(keys->monitor_key), "%s\\%s", JEVMON_MONITORS_KEY, reg->key_name);
    return 1;
}

HRESULT JevmonRegisterMonitor(const JEVMON_MONITOR_REGISTRATION *reg)
{
    monitor_keys keys;
    if (!monitor_keys_of("JevmonRegisterMonitor", reg, &keys))
        return E_INVALIDARG;
    if (!reg->module_anchor) {
        jv_log("JevmonRegisterMonitor: no module anchor for %s", keys.clsid);
        return E_INVALIDARG;
    }
    char *module = plat_module_path(reg->module_anchor);
    if (!module)
        return SELFREG_E_CLASS;
    const char *description = reg->description ? reg->description : "";

    /* The monitor's key is jevmon's alone: written afresh, so that no value of an earlier
     * registration (an InitOptions no longer wanted) survives. */
    plat_reg_status cleared = plat_reg_delete_tree(PLAT_HKLM, keys.monitor_key);
    int ok = (cleared == PLAT_REG_OK || cleared == PLAT_REG_NOT_FOUND) &&
             plat_reg_set_string(PLAT_HKCR, keys.class_key, NULL, description) == PLAT_REG_OK &&
             plat_reg_set_string(PLAT_HKCR, keys.server_key, NULL, module) == PLAT_REG_OK &&
             plat_reg_set_string(PLAT_HKCR, keys.server_key, "ThreadingModel", "Both") == PLAT_REG_OK &&
             plat_reg_set_string(PLAT_HKLM, keys.monitor_key, NULL, description) == PLAT_REG_OK &&
             plat_reg_set_string(PLAT_HKLM, keys.monitor_key, "CLSID", keys.clsid) == PLAT_REG_OK &&
             (!reg->has_init_options ||
              plat_reg_set_dword(PLAT_HKLM, keys.monitor_key, "InitOptions", reg->init_options) == PLAT_REG_OK);
    if (!ok)
        jv_log("JevmonRegisterMonitor: %s (%s) is not fully registered", reg->key_name, keys.clsid);
    free(module);
    return ok ? S_OK : SELFREG_E_CLASS;
}

HRESULT JevmonUnregisterMonitor(const JEVMON_MONITOR_REGISTRATION *reg)
{
    monitor_keys keys;
    if (!monitor_keys_of("JevmonUnregisterMonitor", reg, &keys))
        return E_INVALIDARG;
    /* Both, even when the first fails: leave as little behind as possible. */
    plat_reg_status class_removed = plat_reg_delete_tree(PLAT_HKCR, keys.class_key);
    plat_reg_status monitor_removed = plat_reg_delete_tree(PLAT_HKLM, keys.monitor_key);
    return class_removed == PLAT_REG_ERROR || monitor_removed == PLAT_REG_ERROR ? SELFREG_E_CLASS : S_OK;
}
