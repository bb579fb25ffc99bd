/* enable.c - decides whether event monitors are enabled (rules in enable.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jevmon.h"
#include "lifecycle/enable.h"
#include "platform/platform.h"

typedef enum setting_state { SETTING_ABSENT, SETTING_OFF, SETTING_ON } setting_state;

/* Reads an environment number; SETTING_ABSENT when unset or unreadable. */
static setting_state env_setting(const char *name, int hex, DWORD on_bits, char *why, size_t why_len)
{
    unsigned long long value;
    if (jv_env_number(name, hex, 0xFFFFFFFFu,
                      hex ? "a hexadecimal DWORD (1 to 8 significant digits, 0x optional, no sign)"
                          : "a decimal DWORD (0 to 4294967295, no sign)",
                      &value) != 1)
        return SETTING_ABSENT;
    snprintf(why, why_len, hex ? "%s=0x%llx" : "%s=%llu", name, value);
    return ((DWORD)value & on_bits) ? SETTING_ON : SETTING_OFF;
}

static setting_state registry_setting(plat_hive hive, const char *hive_name, const char *value_name,
                                      DWORD on_bits, char *why, size_t why_len)
{
    DWORD value;
    switch (plat_reg_get_dword(hive, JEVMON_JAVA_VM_KEY, value_name, &value)) {
    case PLAT_REG_OK:
        snprintf(why, why_len, "%s\\%s %s=0x%x", hive_name, JEVMON_JAVA_VM_KEY, value_name, (unsigned)value);
        return (value & on_bits) ? SETTING_ON : SETTING_OFF;
    case PLAT_REG_WRONG_TYPE:
        jv_log("registry value %s\\%s\\%s is not a DWORD; ignored", hive_name, JEVMON_JAVA_VM_KEY, value_name);
        return SETTING_ABSENT;
    default:
        return SETTING_ABSENT;
    }
}

/* One switch: the environment variable if set, else the registry value. */
static setting_state switch_state(const char *env_name, int hex, plat_hive hive, const char *hive_name,
                                  const char *value_name, DWORD on_bits, char *why, size_t why_len)
{
    setting_state state = env_setting(env_name, hex, on_bits, why, why_len);
    if (state == SETTING_ABSENT)
        state = registry_setting(hive, hive_name, value_name, on_bits, why, why_len);
    return state;
}

int jv_profiling_enabled(const jv_options *opts, char *why, size_t why_len)
{
    char enable_why[256] = "", flags_why[256] = "";
    if (opts->profiling != JV_FORCE_NONE) {
        snprintf(why, why_len, "agent option %s", opts->profiling == JV_FORCE_ON ? "enable" : "disable");
        return opts->profiling == JV_FORCE_ON;
    }
    setting_state by_enable = switch_state("MSJAVA_ENABLE_MONITORS", 0, PLAT_HKCU, "HKCU", "EnableEventMonitors",
                                           ~(DWORD)0, enable_why, sizeof(enable_why));
    setting_state by_flags = switch_state("MSJAVA_DEBUGGING_FLAGS", 1, PLAT_HKLM, "HKLM", "DebuggingFlags",
                                          MSJDBG_FL_ENABLE_PROFILING, flags_why, sizeof(flags_why));
    if (by_enable == SETTING_ON) {
        snprintf(why, why_len, "%s", enable_why);
        return 1;
    }
    if (by_flags == SETTING_ON) {
        snprintf(why, why_len, "%s", flags_why);
        return 1;
    }
    snprintf(why, why_len, "%s", by_enable == SETTING_OFF ? enable_why
                                 : by_flags == SETTING_OFF ? flags_why
                                                           : "neither MSJAVA_ENABLE_MONITORS, EnableEventMonitors, "
                                                             "MSJAVA_DEBUGGING_FLAGS nor DebuggingFlags is set");
    return 0;
}
