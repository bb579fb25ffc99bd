/*
 * test_platform_win.c - the Win32 platform layer (src/platform/win32*.c) under Windows or
 * Wine: environment, module paths, the recursive mutex, threads, the clock, and the
 * registry functions against the real registry, checked where it matters with advapi32
 * directly.  Registry tests work below keys of their own, which they remove again.
 */
#include <windows.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check_com.h"
#include "platform/platform.h"
#include "../support/testkit.h"

#define SCRATCH "Software\\jevmon-test-platform"
#define SCRATCH_CLASS "jevmon-test-platform"
/* "Prüf ✓ 日本" in UTF-8 and UTF-16. */
#define NON_ASCII_UTF8 "Pr\xC3\xBC" "f \xE2\x9C\x93 \xE6\x97\xA5\xE6\x9C\xAC"
#define NON_ASCII_UTF16 L"Pr\x00FC" L"f \x2713 \x65E5\x672C"

static int log_lines;

static void count_log_line(const char *line, void *context)
{
    (void)line;
    (void)context;
    log_lines++;
}

static void remove_scratch_keys(void)
{
    plat_reg_delete_tree(PLAT_HKCU, SCRATCH);
    plat_reg_delete_tree(PLAT_HKLM, SCRATCH);
    plat_reg_delete_tree(PLAT_HKCR, SCRATCH_CLASS);
}

/* Each test starts without scratch keys and with the log lines it causes counted. */
static void start_test(void)
{
    remove_scratch_keys();
    log_lines = 0;
    jv_log_set_sink(count_log_line, NULL);
}

static void end_test(void)
{
    jv_log_set_sink(NULL, NULL);
    remove_scratch_keys();
}

static void ck_assert_log_lines(int expected)
{
    ck_assert_msg(log_lines == expected, "%d log lines, expected %d", log_lines, expected);
}

/* ---- Environment ---------------------------------------------------------------------- */
START_TEST(getenv_returns_a_copy)
{
    ck_assert_msg(plat_setenv("JEVMON_TEST_VAR", "value"), "plat_setenv failed");
    char *value = plat_getenv("JEVMON_TEST_VAR");
    ck_assert_str_eq(value, "value");
    free(value);
    ck_assert_msg(plat_setenv("JEVMON_TEST_VAR", ""), "plat_setenv(\"\") failed");
    value = plat_getenv("JEVMON_TEST_VAR");
    ck_assert_msg(value && !*value, "an empty variable reads as %s", value ? value : "not set");
    free(value);
    ck_assert_msg(plat_setenv("JEVMON_TEST_VAR", NULL), "plat_setenv(NULL) failed");
    ck_assert_ptr_null(plat_getenv("JEVMON_TEST_VAR"));
    ck_assert_ptr_null(plat_getenv("JEVMON_TEST_NEVER_SET"));
    ck_assert_log_lines(0);
}
END_TEST

START_TEST(getenv_converts_to_utf8_and_keeps_empty_values)
{
    ck_assert(SetEnvironmentVariableW(L"JEVMON_TEST_WIDE", NON_ASCII_UTF16));
    ck_assert(SetEnvironmentVariableW(L"JEVMON_TEST_EMPTY", L""));
    char *wide = plat_getenv("JEVMON_TEST_WIDE"), *empty = plat_getenv("JEVMON_TEST_EMPTY");
    ck_assert_str_eq(wide, NON_ASCII_UTF8);
    ck_assert_ptr_nonnull(empty);
    ck_assert_str_eq(empty, "");
    free(wide);
    free(empty);
    SetEnvironmentVariableW(L"JEVMON_TEST_WIDE", NULL);
    SetEnvironmentVariableW(L"JEVMON_TEST_EMPTY", NULL);
}
END_TEST

START_TEST(getenv_without_a_name_is_logged)
{
    ck_assert_ptr_null(plat_getenv(NULL));
    ck_assert_log_lines(1);
}
END_TEST

/* ---- Modules -------------------------------------------------------------------------- */
static void module_anchor(void)
{
}

START_TEST(module_path_of_the_program)
{
    char expected[MAX_PATH];
    char *path = plat_module_path((const void *)module_anchor);
    ck_assert_ptr_nonnull(path);
    ck_assert(GetModuleFileNameA(NULL, expected, sizeof(expected)) > 0);
    ck_assert_msg(lstrcmpiA(path, expected) == 0, "module path %s, expected %s", path, expected);
    ck_assert_msg(path[1] == ':' && path[2] == '\\', "%s is not absolute", path);
    free(path);
}
END_TEST

START_TEST(module_path_of_no_module)
{
    void *heap = calloc(1, 16); /* heap memory belongs to no module */
    ck_assert_ptr_null(plat_module_path(heap));
    ck_assert_ptr_null(plat_module_path(NULL));
    ck_assert_log_lines(2);
    free(heap);
}
END_TEST

/* ---- Locks, threads, time ------------------------------------------------------------- */
typedef struct shared_counter {
    plat_mutex *mutex;
    int value;
    DWORD thread_id;
} shared_counter;

static void count_under_the_lock(void *arg)
{
    shared_counter *c = arg;
    for (int i = 0; i < 1000; i++) {
        plat_mutex_lock(c->mutex);
        plat_mutex_lock(c->mutex); /* recursive */
        c->value++;
        c->thread_id = plat_os_thread_id();
        plat_mutex_unlock(c->mutex);
        plat_mutex_unlock(c->mutex);
    }
}

START_TEST(mutex_is_recursive_and_threads_join)
{
    shared_counter c = {plat_mutex_create(), 0, 0};
    plat_thread *threads[4];
    ck_assert_ptr_nonnull(c.mutex);
    for (int i = 0; i < 4; i++)
        ck_assert_ptr_nonnull(threads[i] = plat_thread_start("test", count_under_the_lock, &c));
    for (int i = 0; i < 4; i++)
        plat_thread_join(threads[i]);
    ck_assert_msg(c.value == 4000, "counted %d, expected 4000", c.value);
    ck_assert_msg(c.thread_id != plat_os_thread_id() && c.thread_id != 0, "the threads reported id %lu",
                  (unsigned long)c.thread_id);
    plat_mutex_destroy(c.mutex);
}
END_TEST

typedef HRESULT(WINAPI *get_thread_description_fn)(HANDLE thread, PWSTR *description);

/* The started thread's own description, as a debugger reads it; "(none)" where the system has none. */
static void read_own_description(void *arg)
{
    WCHAR *seen = arg;
    FARPROC symbol = GetProcAddress(GetModuleHandleW(L"kernel32.dll"), "GetThreadDescription");
    get_thread_description_fn get_description;
    PWSTR description = NULL;
    wcscpy(seen, L"(none)");
    if (!symbol)
        return;
    memcpy(&get_description, &symbol, sizeof(symbol));
    if (SUCCEEDED(get_description(GetCurrentThread(), &description)) && description) {
        wcsncpy(seen, description, 63);
        seen[63] = 0;
        LocalFree(description);
    }
}

START_TEST(threads_are_named)
{
    WCHAR seen[64];
    plat_thread *t = plat_thread_start("jevprof sampler " NON_ASCII_UTF8, read_own_description, seen);
    ck_assert_ptr_nonnull(t);
    plat_thread_join(t);
    ck_assert_msg(wcscmp(seen, L"jevprof sampler " NON_ASCII_UTF16) == 0, "the thread's description is %ls", seen);
}
END_TEST

/* The processors the process may run on, as its affinity mask restricts them. */
START_TEST(processor_count_follows_the_affinity)
{
    DWORD_PTR process_mask = 0, system_mask = 0;
    SYSTEM_INFO info;
    GetSystemInfo(&info);
    ck_assert(GetProcessAffinityMask(GetCurrentProcess(), &process_mask, &system_mask));
    unsigned all = plat_processor_count();
    ck_assert_uint_ge(all, 1);
    ck_assert_uint_le(all, info.dwNumberOfProcessors);
    DWORD_PTR lowest = process_mask & (~process_mask + 1);
    ck_assert(SetProcessAffinityMask(GetCurrentProcess(), lowest));
    unsigned one = plat_processor_count();
    ck_assert(SetProcessAffinityMask(GetCurrentProcess(), process_mask));
    ck_assert_uint_eq(one, 1);
}
END_TEST

START_TEST(thread_without_a_function_is_logged)
{
    ck_assert_ptr_null(plat_thread_start("test", NULL, NULL));
    ck_assert_log_lines(1);
}
END_TEST

START_TEST(os_thread_id_is_the_windows_one)
{
    ck_assert_msg(plat_os_thread_id() == GetCurrentThreadId(), "plat_os_thread_id is not GetCurrentThreadId");
}
END_TEST

START_TEST(clock_is_monotonic_and_sleep_waits)
{
    uint64_t before = plat_now_ns();
    plat_sleep_ms(30);
    uint64_t after = plat_now_ns();
    ck_assert_msg(after - before >= 20000000u && after - before < 5000000000u, "30 ms of sleep took %lu us",
                  (unsigned long)((after - before) / 1000));
    ck_assert_msg(plat_now_ns() >= after, "the clock went back");
}
END_TEST

/* ---- Registry ------------------------------------------------------------------------- */
START_TEST(strings_and_dwords_read_back)
{
    char *value = NULL;
    DWORD number = 0;
    ck_assert_reg(plat_reg_set_string(PLAT_HKCU, SCRATCH "\\a\\b", NULL, "default"), PLAT_REG_OK);
    ck_assert_reg(plat_reg_set_string(PLAT_HKCU, SCRATCH "\\a\\b", "named", NON_ASCII_UTF8), PLAT_REG_OK);
    ck_assert_reg(plat_reg_set_dword(PLAT_HKCU, SCRATCH "\\a\\b", "number", 0xFEEDF00D), PLAT_REG_OK);
    ck_assert_reg(plat_reg_get_string(PLAT_HKCU, SCRATCH "\\a\\b", "", &value), PLAT_REG_OK);
    ck_assert_str_eq(value, "default");
    free(value);
    ck_assert_reg(plat_reg_get_string(PLAT_HKCU, SCRATCH "\\a\\b", "named", &value), PLAT_REG_OK);
    ck_assert_str_eq(value, NON_ASCII_UTF8);
    free(value);
    ck_assert_reg(plat_reg_get_dword(PLAT_HKCU, SCRATCH "\\a\\b", "number", &number), PLAT_REG_OK);
    ck_assert_msg(number == 0xFEEDF00D, "read 0x%lX", (unsigned long)number);
    ck_assert_log_lines(0);
}
END_TEST

/* What regedit wrote, seen through advapi32 and through plat_reg_*, must be the same text. */
START_TEST(non_ascii_key_names_are_utf16_in_the_registry)
{
    HKEY hk;
    char *value = NULL;
    ck_assert_reg(plat_reg_set_string(PLAT_HKCU, SCRATCH "\\" NON_ASCII_UTF8, "v", "x"), PLAT_REG_OK);
    ck_assert_msg(RegOpenKeyExW(HKEY_CURRENT_USER, L"Software\\jevmon-test-platform\\" NON_ASCII_UTF16, 0, KEY_READ,
                                &hk) == ERROR_SUCCESS,
                  "the key is not there under its UTF-16 name");
    RegCloseKey(hk);
    ck_assert_reg(plat_reg_get_string(PLAT_HKCU, SCRATCH "\\" NON_ASCII_UTF8, "v", &value), PLAT_REG_OK);
    ck_assert_str_eq(value, "x");
    free(value);
}
END_TEST

START_TEST(expand_sz_is_expanded)
{
    HKEY hk;
    static const WCHAR unexpanded[] = L"%JEVMON_TEST_DIR%\\server.dll";
    char *value = NULL;
    ck_assert(SetEnvironmentVariableW(L"JEVMON_TEST_DIR", L"C:\\servers"));
    ck_assert(RegCreateKeyExW(HKEY_CURRENT_USER, L"Software\\jevmon-test-platform", 0, NULL, 0, KEY_SET_VALUE, NULL,
                              &hk, NULL) == ERROR_SUCCESS);
    ck_assert(RegSetValueExW(hk, NULL, 0, REG_EXPAND_SZ, (const BYTE *)unexpanded, sizeof(unexpanded)) == ERROR_SUCCESS);
    RegCloseKey(hk);
    ck_assert_reg(plat_reg_get_string(PLAT_HKCU, SCRATCH, NULL, &value), PLAT_REG_OK);
    ck_assert_str_eq(value, "C:\\servers\\server.dll");
    free(value);
    SetEnvironmentVariableW(L"JEVMON_TEST_DIR", NULL);
}
END_TEST

START_TEST(value_of_another_type_is_wrong_type)
{
    char *text = NULL;
    DWORD number;
    ck_assert_reg(plat_reg_set_dword(PLAT_HKCU, SCRATCH, "number", 7), PLAT_REG_OK);
    ck_assert_reg(plat_reg_set_string(PLAT_HKCU, SCRATCH, "text", "7"), PLAT_REG_OK);
    ck_assert_reg(plat_reg_get_string(PLAT_HKCU, SCRATCH, "number", &text), PLAT_REG_WRONG_TYPE);
    ck_assert_ptr_null(text);
    ck_assert_reg(plat_reg_get_dword(PLAT_HKCU, SCRATCH, "text", &number), PLAT_REG_WRONG_TYPE);
    ck_assert_log_lines(0);
}
END_TEST

START_TEST(missing_keys_and_values_are_not_found_quietly)
{
    char *text = NULL, **names = NULL;
    size_t count = 1;
    DWORD number;
    ck_assert_reg(plat_reg_get_string(PLAT_HKCU, SCRATCH "\\none", NULL, &text), PLAT_REG_NOT_FOUND);
    ck_assert_reg(plat_reg_get_dword(PLAT_HKLM, SCRATCH, "none", &number), PLAT_REG_NOT_FOUND);
    ck_assert_reg(plat_reg_subkeys(PLAT_HKCU, SCRATCH, &names, &count), PLAT_REG_NOT_FOUND);
    ck_assert_msg(names == NULL && count == 0, "a missing key listed %u names", (unsigned)count);
    ck_assert_reg(plat_reg_set_string(PLAT_HKCU, SCRATCH, NULL, "x"), PLAT_REG_OK);
    ck_assert_reg(plat_reg_get_string(PLAT_HKCU, SCRATCH, "none", &text), PLAT_REG_NOT_FOUND);
    ck_assert_reg(plat_reg_delete_tree(PLAT_HKCU, SCRATCH "\\none"), PLAT_REG_NOT_FOUND);
    ck_assert_log_lines(0);
}
END_TEST

/* The names, in the order advapi32 itself enumerates them. */
START_TEST(subkeys_come_in_enumeration_order)
{
    static const char *const created[] = {"beta", "Alpha", "gamma", NON_ASCII_UTF8};
    char **names = NULL, expected[256];
    size_t count = 0;
    HKEY hk;
    for (size_t i = 0; i < 4; i++) {
        char key[128];
        snprintf(key, sizeof(key), "%s\\%s", SCRATCH, created[i]);
        ck_assert_reg(plat_reg_set_dword(PLAT_HKLM, key, "n", (DWORD)i), PLAT_REG_OK);
    }
    ck_assert_reg(plat_reg_subkeys(PLAT_HKLM, SCRATCH, &names, &count), PLAT_REG_OK);
    ck_assert_msg(count == 4, "%u subkeys, expected 4", (unsigned)count);
    ck_assert(RegOpenKeyExW(HKEY_LOCAL_MACHINE, L"Software\\jevmon-test-platform", 0, KEY_READ, &hk) == ERROR_SUCCESS);
    for (DWORD i = 0; i < count; i++) {
        WCHAR name[256];
        DWORD len = 256;
        ck_assert(RegEnumKeyExW(hk, i, name, &len, NULL, NULL, NULL, NULL) == ERROR_SUCCESS);
        WideCharToMultiByte(CP_UTF8, 0, name, -1, expected, sizeof(expected), NULL, NULL);
        ck_assert_msg(strcmp(names[i], expected) == 0, "subkey %lu is %s, advapi32 says %s", (unsigned long)i, names[i],
                      expected);
    }
    RegCloseKey(hk);
    plat_free_strings(names, count);
}
END_TEST

START_TEST(key_without_subkeys_lists_none)
{
    char **names = NULL;
    size_t count = 1;
    ck_assert_reg(plat_reg_set_string(PLAT_HKCU, SCRATCH, NULL, "leaf"), PLAT_REG_OK);
    ck_assert_reg(plat_reg_subkeys(PLAT_HKCU, SCRATCH, &names, &count), PLAT_REG_OK);
    ck_assert_msg(count == 0, "%u subkeys", (unsigned)count);
    plat_free_strings(names, count);
}
END_TEST

START_TEST(delete_tree_removes_everything_below)
{
    char *value = NULL;
    ck_assert_reg(plat_reg_set_string(PLAT_HKCU, SCRATCH "\\a\\b\\c", "v", "x"), PLAT_REG_OK);
    ck_assert_reg(plat_reg_set_string(PLAT_HKCU, SCRATCH "\\a", "v", "x"), PLAT_REG_OK);
    ck_assert_reg(plat_reg_set_string(PLAT_HKCU, SCRATCH "\\kept", "v", "x"), PLAT_REG_OK);
    ck_assert_reg(plat_reg_delete_tree(PLAT_HKCU, SCRATCH "\\a"), PLAT_REG_OK);
    ck_assert_reg(plat_reg_get_string(PLAT_HKCU, SCRATCH "\\a\\b\\c", "v", &value), PLAT_REG_NOT_FOUND);
    ck_assert_reg(plat_reg_get_string(PLAT_HKCU, SCRATCH "\\a", "v", &value), PLAT_REG_NOT_FOUND);
    ck_assert_reg(plat_reg_get_string(PLAT_HKCU, SCRATCH "\\kept", "v", &value), PLAT_REG_OK);
    free(value);
    ck_assert_reg(plat_reg_delete_tree(PLAT_HKCU, SCRATCH "\\a"), PLAT_REG_NOT_FOUND);
}
END_TEST

START_TEST(delete_tree_refuses_to_empty_a_hive)
{
    char **names = NULL;
    size_t count = 0;
    ck_assert_reg(plat_reg_delete_tree(PLAT_HKCU, ""), PLAT_REG_ERROR);
    ck_assert_reg(plat_reg_delete_tree(PLAT_HKCU, NULL), PLAT_REG_ERROR);
    ck_assert_log_lines(2);
    ck_assert_reg(plat_reg_subkeys(PLAT_HKCU, "", &names, &count), PLAT_REG_OK);
    ck_assert_msg(count > 0, "HKCU has no keys left");
    plat_free_strings(names, count);
}
END_TEST

START_TEST(classes_root_writes_land_in_machine_classes)
{
    HKEY hk;
    char *value = NULL;
    ck_assert_reg(plat_reg_set_string(PLAT_HKCR, SCRATCH_CLASS "\\sub", NULL, "class"), PLAT_REG_OK);
    ck_assert_msg(RegOpenKeyExW(HKEY_LOCAL_MACHINE, L"Software\\Classes\\jevmon-test-platform\\sub", 0, KEY_READ, &hk) ==
                      ERROR_SUCCESS,
                  "the key is not under HKLM\\Software\\Classes");
    RegCloseKey(hk);
    ck_assert_reg(plat_reg_get_string(PLAT_HKCR, SCRATCH_CLASS "\\sub", NULL, &value), PLAT_REG_OK);
    ck_assert_str_eq(value, "class");
    free(value);
}
END_TEST

START_TEST(bad_arguments_are_logged_once_each)
{
    char *value = NULL, **names = NULL;
    size_t count;
    ck_assert_reg(plat_reg_get_string((plat_hive)42, SCRATCH, NULL, &value), PLAT_REG_ERROR);
    ck_assert_reg(plat_reg_get_string(PLAT_HKCU, NULL, NULL, &value), PLAT_REG_ERROR);
    ck_assert_reg(plat_reg_get_string(PLAT_HKCU, SCRATCH, NULL, NULL), PLAT_REG_ERROR);
    ck_assert_reg(plat_reg_get_dword(PLAT_HKCU, SCRATCH, NULL, NULL), PLAT_REG_ERROR);
    ck_assert_reg(plat_reg_set_dword((plat_hive)-1, SCRATCH, "n", 1), PLAT_REG_ERROR);
    ck_assert_reg(plat_reg_set_string(PLAT_HKCU, SCRATCH, "n", NULL), PLAT_REG_ERROR);
    ck_assert_reg(plat_reg_subkeys(PLAT_HKCU, SCRATCH, NULL, &count), PLAT_REG_ERROR);
    ck_assert_reg(plat_reg_set_string(PLAT_HKCU, SCRATCH, "bad \xFF utf-8", "x"), PLAT_REG_ERROR);
    ck_assert_log_lines(8);
    ck_assert_reg(plat_reg_subkeys(PLAT_HKCU, SCRATCH, &names, &count), PLAT_REG_NOT_FOUND);
}
END_TEST

static Suite *platform_suite(void)
{
    Suite *s = suite_create("platform_win");
    TCase *basics = tcase_create("environment_modules_threads_time");
    tcase_add_checked_fixture(basics, start_test, end_test);
    tcase_add_test(basics, getenv_returns_a_copy);
    tcase_add_test(basics, getenv_converts_to_utf8_and_keeps_empty_values);
    tcase_add_test(basics, getenv_without_a_name_is_logged);
    tcase_add_test(basics, module_path_of_the_program);
    tcase_add_test(basics, module_path_of_no_module);
    tcase_add_test(basics, mutex_is_recursive_and_threads_join);
    tcase_add_test(basics, threads_are_named);
    tcase_add_test(basics, processor_count_follows_the_affinity);
    tcase_add_test(basics, thread_without_a_function_is_logged);
    tcase_add_test(basics, os_thread_id_is_the_windows_one);
    tcase_add_test(basics, clock_is_monotonic_and_sleep_waits);
    suite_add_tcase(s, basics);

    TCase *registry = tcase_create("registry");
    tcase_add_checked_fixture(registry, start_test, end_test);
    tcase_add_test(registry, strings_and_dwords_read_back);
    tcase_add_test(registry, non_ascii_key_names_are_utf16_in_the_registry);
    tcase_add_test(registry, expand_sz_is_expanded);
    tcase_add_test(registry, value_of_another_type_is_wrong_type);
    tcase_add_test(registry, missing_keys_and_values_are_not_found_quietly);
    tcase_add_test(registry, subkeys_come_in_enumeration_order);
    tcase_add_test(registry, key_without_subkeys_lists_none);
    tcase_add_test(registry, delete_tree_removes_everything_below);
    tcase_add_test(registry, delete_tree_refuses_to_empty_a_hive);
    tcase_add_test(registry, classes_root_writes_land_in_machine_classes);
    tcase_add_test(registry, bad_arguments_are_logged_once_each);
    suite_add_tcase(s, registry);
    return s;
}

int main(void)
{
    return tk_run_suite(platform_suite());
}
