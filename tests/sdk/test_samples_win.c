/*
 * test_samples_win.c - the sample monitors' registration on Windows (run under Wine with
 * its real registry): `regsvr32 /s` writes the COM class and the Monitors key of each
 * sample DLL, `regsvr32 /u /s` removes them, and `regedit /s` imports the repository's
 * registry/ .reg files.  Keys are read back through the platform layer.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "platform/platform.h"
#include "../support/testkit.h"

typedef struct sample {
    const char *name; /* samples/<name>, build\samples\<name>.dll, Monitors\<name> */
    const char *clsid;
} sample;

static const sample samples[] = {
    {"logmon", "{292AB596-1B36-4388-8086-C8283FA88105}"},
    {"callcount", "{0A2F6C9B-77EC-4D2A-8084-DCAFBC265070}"},
};

static char build_dir[MAX_PATH]; /* JEVMON_BUILD, or the directory above tests\ */
static char src_dir[MAX_PATH];   /* JEVMON_SRC, or the build directory's grandparent */

static void find_directories(void)
{
    char *env = plat_getenv("JEVMON_BUILD");
    if (env)
        snprintf(build_dir, sizeof(build_dir), "%s", env);
    else {
        /* <build>\tests\test_samples_win.exe */
        GetModuleFileNameA(NULL, build_dir, sizeof(build_dir));
        for (int up = 0; up < 2; up++) {
            char *cut = strrchr(build_dir, '\\');
            if (cut)
                *cut = '\0';
        }
    }
    free(env);
    env = plat_getenv("JEVMON_SRC");
    if (env)
        snprintf(src_dir, sizeof(src_dir), "%s", env);
    else
        snprintf(src_dir, sizeof(src_dir), "%.*s\\..\\..", MAX_PATH - 8, build_dir);
    free(env);
}

/*
 * Runs a command line and returns its exit code (-1 if it could not start).  The program
 * is found by the system's search, which for a 32-bit test under WoW64 is the 32-bit
 * regsvr32 / regedit: the one that writes the registry view this test reads.
 */
static int run(const char *command)
{
    char line[3 * MAX_PATH];
    STARTUPINFOA si;
    PROCESS_INFORMATION pi;
    DWORD code = (DWORD)-1;
    snprintf(line, sizeof(line), "%s", command);
    memset(&si, 0, sizeof(si));
    si.cb = sizeof(si);
    if (!CreateProcessA(NULL, line, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi))
        return -1;
    WaitForSingleObject(pi.hProcess, INFINITE);
    GetExitCodeProcess(pi.hProcess, &code);
    CloseHandle(pi.hThread);
    CloseHandle(pi.hProcess);
    return (int)code;
}

static void sample_dll(const sample *s, char *path, size_t size)
{
    snprintf(path, size, "%.*s\\samples\\%s.dll", MAX_PATH - 32, build_dir, s->name);
}

static void class_key(const sample *s, char *key, size_t size)
{
    snprintf(key, size, "CLSID\\%s\\InprocServer32", s->clsid);
}

static void monitor_key(const char *name, char *key, size_t size)
{
    snprintf(key, size, "%s\\%s", JEVMON_MONITORS_KEY, name);
}

static int regsvr32(const char *options, const sample *s)
{
    char dll[MAX_PATH], command[2 * MAX_PATH];
    sample_dll(s, dll, sizeof(dll));
    snprintf(command, sizeof(command), "regsvr32.exe %s \"%s\"", options, dll);
    return run(command);
}

static int regedit_import(const char *reg_file)
{
    char command[2 * MAX_PATH];
    snprintf(command, sizeof(command), "regedit.exe /s \"%.*s\\registry\\%s\"", MAX_PATH, src_dir, reg_file);
    return run(command);
}

/* The string value, or NULL when it is not there (any other status fails the test). */
static char *get_string(plat_hive hive, const char *key, const char *name)
{
    char *value = NULL;
    plat_reg_status status = plat_reg_get_string(hive, key, name, &value);
    ck_assert_msg(status == PLAT_REG_OK || status == PLAT_REG_NOT_FOUND, "%s %s: status %d", key,
                  name ? name : "@", (int)status);
    return status == PLAT_REG_OK ? value : NULL;
}

static void check_string(plat_hive hive, const char *key, const char *name, const char *expected)
{
    char *value = get_string(hive, key, name);
    ck_assert_msg(value != NULL, "%s %s is missing", key, name ? name : "@");
    ck_assert_msg(lstrcmpiA(value, expected) == 0, "%s %s: '%s', expected '%s'", key, name ? name : "@", value,
                  expected);
    free(value);
}

START_TEST(regsvr32_registers_and_unregisters_the_sample)
{
    const sample *s = &samples[_i];
    char dll[MAX_PATH], key[MAX_PATH];
    sample_dll(s, dll, sizeof(dll));

    ck_assert_int_eq(regsvr32("/s", s), 0);
    class_key(s, key, sizeof(key));
    check_string(PLAT_HKCR, key, NULL, dll);
    check_string(PLAT_HKCR, key, "ThreadingModel", "Both");
    monitor_key(s->name, key, sizeof(key));
    check_string(PLAT_HKLM, key, "CLSID", s->clsid);
    char *description = get_string(PLAT_HKLM, key, NULL);
    ck_assert_msg(description && description[0], "%s has no description", key);
    free(description);

    ck_assert_int_eq(regsvr32("/u /s", s), 0);
    class_key(s, key, sizeof(key));
    ck_assert_ptr_null(get_string(PLAT_HKCR, key, NULL));
    monitor_key(s->name, key, sizeof(key));
    ck_assert_ptr_null(get_string(PLAT_HKLM, key, "CLSID"));
}
END_TEST

START_TEST(regedit_imports_the_monitors_keys)
{
    char key[MAX_PATH];
    DWORD options = 0;

    ck_assert_int_eq(regedit_import("logmon.reg"), 0);
    monitor_key("logmon", key, sizeof(key));
    check_string(PLAT_HKLM, key, "CLSID", samples[0].clsid);
    ck_assert_int_eq(plat_reg_delete_tree(PLAT_HKLM, key), PLAT_REG_OK);

    ck_assert_int_eq(regedit_import("callcount.reg"), 0);
    monitor_key("callcount", key, sizeof(key));
    check_string(PLAT_HKLM, key, "CLSID", samples[1].clsid);
    ck_assert_int_eq(plat_reg_get_dword(PLAT_HKLM, key, "InitOptions", &options), PLAT_REG_NOT_FOUND);
    ck_assert_int_eq(plat_reg_delete_tree(PLAT_HKLM, key), PLAT_REG_OK);

    ck_assert_int_eq(regedit_import("callcount-fast.reg"), 0);
    check_string(PLAT_HKLM, key, "CLSID", samples[1].clsid);
    ck_assert_int_eq(plat_reg_get_dword(PLAT_HKLM, key, "InitOptions", &options), PLAT_REG_OK);
    ck_assert_uint_eq(options, 0x3e);
    ck_assert_int_eq(plat_reg_delete_tree(PLAT_HKLM, key), PLAT_REG_OK);
}
END_TEST

START_TEST(regedit_enables_and_disables_profiling)
{
    DWORD before = 0, enabled = 0;
    plat_reg_status had = plat_reg_get_dword(PLAT_HKCU, JEVMON_JAVA_VM_KEY, "EnableEventMonitors", &before);

    ck_assert_int_eq(regedit_import("enable-profiling.reg"), 0);
    ck_assert_int_eq(plat_reg_get_dword(PLAT_HKCU, JEVMON_JAVA_VM_KEY, "EnableEventMonitors", &enabled), PLAT_REG_OK);
    ck_assert_uint_eq(enabled, 1);
    ck_assert_int_eq(regedit_import("disable-profiling.reg"), 0);
    ck_assert_int_eq(plat_reg_get_dword(PLAT_HKCU, JEVMON_JAVA_VM_KEY, "EnableEventMonitors", &enabled), PLAT_REG_OK);
    ck_assert_uint_eq(enabled, 0);

    /* Leave the setting as it was (a value of 0 is what no value means). */
    if (had == PLAT_REG_OK)
        ck_assert_int_eq(plat_reg_set_dword(PLAT_HKCU, JEVMON_JAVA_VM_KEY, "EnableEventMonitors", before),
                         PLAT_REG_OK);
}
END_TEST

int main(void)
{
    find_directories();
    printf("build: %s\nsource: %s\n", build_dir, src_dir);
    Suite *s = suite_create("samples_win");
    TCase *tc = tcase_create("registration");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, regsvr32_registers_and_unregisters_the_sample, 0, sizeof(samples) / sizeof(*samples));
    tcase_add_test(tc, regedit_imports_the_monitors_keys);
    tcase_add_test(tc, regedit_enables_and_disables_profiling);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
