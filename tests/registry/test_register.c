/*
 * test_register.c - JevmonRegisterMonitor / JevmonUnregisterMonitor (libjevsdk) against
 * the registry of each system: on Linux jevmon's registry files, pointed at temporary
 * files through JEVMON_REGISTRY_SYSTEM / JEVMON_REGISTRY_USER; under Windows (Wine) the
 * real registry, which the test leaves as it found it.  Every check reads back through
 * platform.h, as the agent's discovery does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <initguid.h>

#include "../check_com.h"
#include "common/guid.h"
#include "jevmon_register.h"
#include "platform/platform.h"
#include "../support/testkit.h"

DEFINE_GUID(CLSID_RegisterTestMonitor, 0x3C7A5E21, 0x94B0, 0x4D8E, 0x9F, 0x1A, 0x6B, 0x2C, 0x8D, 0x40, 0x11, 0xE7);
#define TEST_CLSID_TEXT "{3C7A5E21-94B0-4D8E-9F1A-6B2C8D4011E7}"
#define TEST_CLASS_KEY "CLSID\\" TEST_CLSID_TEXT
#define TEST_SERVER_KEY TEST_CLASS_KEY "\\InprocServer32"
#define TEST_KEY_NAME "jevmon-test-register"
#define TEST_MONITOR_KEY JEVMON_MONITORS_KEY "\\" TEST_KEY_NAME

static char system_file[512], user_file[512];

/* Anything inside this program: the module registered is the test program itself. */
static void module_anchor(void)
{
}

static JEVMON_MONITOR_REGISTRATION test_registration(void)
{
    JEVMON_MONITOR_REGISTRATION reg = {&CLSID_RegisterTestMonitor, TEST_KEY_NAME, "Register test monitor", TRUE,
                                       JVM_INIT_OPT_FP_SAFE_METHOD_CALLS | JVM_INIT_OPT_RETURN_VALUE_NOT_NEEDED,
                                       (const void *)module_anchor};
    return reg;
}

static void ck_assert_reg_string(plat_hive hive, const char *key, const char *name, const char *expected)
{
    char *value = NULL;
    plat_reg_status st = plat_reg_get_string(hive, key, name, &value);
    ck_assert_msg(st == PLAT_REG_OK, "reading %s value %s: status %d", key, name ? name : "(default)", (int)st);
    ck_assert_str_eq(value, expected);
    free(value);
}

static void ck_assert_reg_missing(plat_hive hive, const char *key, const char *name)
{
    char *value = NULL;
    plat_reg_status st = plat_reg_get_string(hive, key, name, &value);
    ck_assert_msg(st == PLAT_REG_NOT_FOUND, "%s value %s: status %d (\"%s\"), expected not found", key,
                  name ? name : "(default)", (int)st, value ? value : "");
    free(value);
}

static int monitor_is_listed(const char *key_name)
{
    char **names = NULL;
    size_t count = 0;
    int found = 0;
    if (plat_reg_subkeys(PLAT_HKLM, JEVMON_MONITORS_KEY, &names, &count) != PLAT_REG_OK)
        return 0;
    for (size_t i = 0; i < count; i++)
        found |= strcmp(names[i], key_name) == 0;
    plat_free_strings(names, count);
    return found;
}

static void log_counter(const char *line, void *context)
{
    (void)line;
    ++*(int *)context;
}

/* Every test starts and ends with nothing registered under the test's names. */
static void remove_test_registration(void)
{
    JEVMON_MONITOR_REGISTRATION reg = test_registration();
    ck_assert_hr(JevmonUnregisterMonitor(&reg), S_OK);
}

START_TEST(register_writes_the_class)
{
    JEVMON_MONITOR_REGISTRATION reg = test_registration();
    char *module = plat_module_path((const void *)module_anchor);
    ck_assert_ptr_nonnull(module);
    ck_assert_hr(JevmonRegisterMonitor(&reg), S_OK);
    ck_assert_reg_string(PLAT_HKCR, TEST_CLASS_KEY, NULL, "Register test monitor");
    ck_assert_reg_string(PLAT_HKCR, TEST_SERVER_KEY, NULL, module);
    ck_assert_reg_string(PLAT_HKCR, TEST_SERVER_KEY, "ThreadingModel", "Both");
    free(module);
}
END_TEST

START_TEST(register_writes_the_monitor_key)
{
    JEVMON_MONITOR_REGISTRATION reg = test_registration();
    DWORD options = 0;
    ck_assert_hr(JevmonRegisterMonitor(&reg), S_OK);
    ck_assert_reg_string(PLAT_HKLM, TEST_MONITOR_KEY, NULL, "Register test monitor");
    ck_assert_reg_string(PLAT_HKLM, TEST_MONITOR_KEY, "CLSID", TEST_CLSID_TEXT);
    ck_assert_reg(plat_reg_get_dword(PLAT_HKLM, TEST_MONITOR_KEY, "InitOptions", &options), PLAT_REG_OK);
    ck_assert_msg(options == (JVM_INIT_OPT_FP_SAFE_METHOD_CALLS | JVM_INIT_OPT_RETURN_VALUE_NOT_NEEDED),
                  "InitOptions is 0x%lX", (unsigned long)options);
    ck_assert_msg(monitor_is_listed(TEST_KEY_NAME), "%s is not among the subkeys of %s", TEST_KEY_NAME,
                  JEVMON_MONITORS_KEY);
}
END_TEST

START_TEST(register_without_init_options_writes_none)
{
    JEVMON_MONITOR_REGISTRATION reg = test_registration();
    DWORD options;
    reg.has_init_options = FALSE;
    ck_assert_hr(JevmonRegisterMonitor(&reg), S_OK);
    ck_assert_reg(plat_reg_get_dword(PLAT_HKLM, TEST_MONITOR_KEY, "InitOptions", &options), PLAT_REG_NOT_FOUND);
}
END_TEST

/* Registering again without InitOptions drops the earlier registration's value. */
START_TEST(reregister_replaces_the_monitor_key)
{
    JEVMON_MONITOR_REGISTRATION reg = test_registration();
    DWORD options;
    ck_assert_hr(JevmonRegisterMonitor(&reg), S_OK);
    reg.has_init_options = FALSE;
    reg.description = "Renamed";
    ck_assert_hr(JevmonRegisterMonitor(&reg), S_OK);
    ck_assert_reg(plat_reg_get_dword(PLAT_HKLM, TEST_MONITOR_KEY, "InitOptions", &options), PLAT_REG_NOT_FOUND);
    ck_assert_reg_string(PLAT_HKLM, TEST_MONITOR_KEY, NULL, "Renamed");
    ck_assert_reg_string(PLAT_HKCR, TEST_CLASS_KEY, NULL, "Renamed");
}
END_TEST

START_TEST(description_keeps_non_ascii_text)
{
    static const char description[] = "Pr\xC3\xBC" "fmonitor \xE2\x9C\x93 \xE6\x97\xA5\xE6\x9C\xAC";
    JEVMON_MONITOR_REGISTRATION reg = test_registration();
    reg.description = description;
    ck_assert_hr(JevmonRegisterMonitor(&reg), S_OK);
    ck_assert_reg_string(PLAT_HKCR, TEST_CLASS_KEY, NULL, description);
    ck_assert_reg_string(PLAT_HKLM, TEST_MONITOR_KEY, NULL, description);
}
END_TEST

START_TEST(unregister_removes_both_keys)
{
    JEVMON_MONITOR_REGISTRATION reg = test_registration();
    ck_assert_hr(JevmonRegisterMonitor(&reg), S_OK);
    ck_assert_hr(JevmonUnregisterMonitor(&reg), S_OK);
    ck_assert_reg_missing(PLAT_HKCR, TEST_CLASS_KEY, NULL);
    ck_assert_reg_missing(PLAT_HKCR, TEST_SERVER_KEY, NULL);
    ck_assert_reg_missing(PLAT_HKLM, TEST_MONITOR_KEY, "CLSID");
    ck_assert_msg(!monitor_is_listed(TEST_KEY_NAME), "%s is still listed", TEST_KEY_NAME);
}
END_TEST

START_TEST(unregister_of_nothing_succeeds)
{
    JEVMON_MONITOR_REGISTRATION reg = test_registration();
    ck_assert_hr(JevmonUnregisterMonitor(&reg), S_OK);
    ck_assert_hr(JevmonUnregisterMonitor(&reg), S_OK);
}
END_TEST

/* Each kind of bad registration is refused with E_INVALIDARG, one log line, and no write. */
static const struct bad_registration {
    const char *what;
    int null_registration, null_clsid, null_anchor;
    const char *key_name;
} bad_registrations[] = {
    {"no registration", 1, 0, 0, TEST_KEY_NAME},
    {"no CLSID", 0, 1, 0, TEST_KEY_NAME},
    {"no key name", 0, 0, 0, NULL},
    {"an empty key name", 0, 0, 0, ""},
    {"a key name with a backslash", 0, 0, 0, "..\\" TEST_KEY_NAME},
    {"no module anchor", 0, 0, 1, TEST_KEY_NAME},
};

START_TEST(bad_registration_is_refused)
{
    const struct bad_registration *bad = &bad_registrations[_i];
    JEVMON_MONITOR_REGISTRATION reg = test_registration();
    int lines = 0;
    if (bad->null_clsid)
        reg.clsid = NULL;
    if (bad->null_anchor)
        reg.module_anchor = NULL;
    reg.key_name = bad->key_name;
    jv_log_set_sink(log_counter, &lines);
    HRESULT hr = JevmonRegisterMonitor(bad->null_registration ? NULL : &reg);
    jv_log_set_sink(NULL, NULL);
    ck_assert_msg(hr == E_INVALIDARG, "%s: 0x%08lX", bad->what, (unsigned long)hr);
    ck_assert_msg(lines == 1, "%s: %d log lines", bad->what, lines);
    ck_assert_reg_missing(PLAT_HKCR, TEST_CLASS_KEY, NULL);
    if (!bad->null_anchor) { /* unregistering needs no anchor */
        lines = 0;
        jv_log_set_sink(log_counter, &lines);
        hr = JevmonUnregisterMonitor(bad->null_registration ? NULL : &reg);
        jv_log_set_sink(NULL, NULL);
        ck_assert_msg(hr == E_INVALIDARG && lines == 1, "%s, unregistering: 0x%08lX, %d log lines", bad->what,
                      (unsigned long)hr, lines);
    }
}
END_TEST

static Suite *register_suite(void)
{
    Suite *s = suite_create("register");
    TCase *tc = tcase_create("register");
    tcase_add_checked_fixture(tc, remove_test_registration, remove_test_registration);
    tcase_add_test(tc, register_writes_the_class);
    tcase_add_test(tc, register_writes_the_monitor_key);
    tcase_add_test(tc, register_without_init_options_writes_none);
    tcase_add_test(tc, reregister_replaces_the_monitor_key);
    tcase_add_test(tc, description_keeps_non_ascii_text);
    tcase_add_test(tc, unregister_removes_both_keys);
    tcase_add_test(tc, unregister_of_nothing_succeeds);
    tcase_add_loop_test(tc, bad_registration_is_refused, 0, sizeof(bad_registrations) / sizeof(bad_registrations[0]));
    suite_add_tcase(s, tc);
    return s;
}

/* On Linux the registry is two files of this run; Windows ignores the variables. */
static void use_private_registry_files(void)
{
    char *tmp = plat_getenv("TMPDIR");
    snprintf(system_file, sizeof(system_file), "%s/jevmon-test-register-%lu-system.reg", tmp && *tmp ? tmp : "/tmp",
             (unsigned long)plat_os_thread_id());
    snprintf(user_file, sizeof(user_file), "%s/jevmon-test-register-%lu-user.reg", tmp && *tmp ? tmp : "/tmp",
             (unsigned long)plat_os_thread_id());
    free(tmp);
    plat_setenv("JEVMON_REGISTRY_SYSTEM", system_file);
    plat_setenv("JEVMON_REGISTRY_USER", user_file);
}

int main(void)
{
    use_private_registry_files();
    int status = tk_run_suite(register_suite());
    remove(system_file);
    remove(user_file);
    return status;
}
