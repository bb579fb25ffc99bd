/*
 * test_activation_win.c - the Windows round trip through the real registry: regsvr32
 * registers fixtures/fx_selfreg.dll (its DllRegisterServer is libjevsdk's
 * JevmonRegisterMonitor), plat_create_instance creates its object through
 * CoCreateInstance, regsvr32 /u removes the keys again; and activation failures come
 * back with a why text that names the CLSID and the cause.
 *
 * The build directory is $JEVMON_BUILD (the runner's Windows path of build/win64), or
 * else the directory above this program's tests directory.
 */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <initguid.h>

#include "../check_com.h"
#include "jevmon.h"
#include "platform/platform.h"
#include "../support/testkit.h"

/* fx_selfreg.c's class, and two that no DLL provides. */
DEFINE_GUID(CLSID_FxSelfReg, 0x7E26BB20, 0x3543, 0x4BB4, 0x9C, 0x7F, 0x8B, 0x2C, 0xB2, 0x11, 0xF4, 0x6F);
DEFINE_GUID(CLSID_MissingDll, 0x15C10CB8, 0x4916, 0x4185, 0xB2, 0x82, 0x94, 0x2A, 0x7D, 0x1A, 0xBD, 0x2D);
DEFINE_GUID(CLSID_NotInFixture, 0x4B4E74A7, 0x7959, 0x48B8, 0x9A, 0xC7, 0xB4, 0x2C, 0xE9, 0xD4, 0x5B, 0x25);
#define SELFREG_CLSID_TEXT "{7E26BB20-3543-4BB4-9C7F-8B2CB211F46F}"
#define MISSING_DLL_CLSID_TEXT "{15C10CB8-4916-4185-B282-942A7D1ABD2D}"
#define NOT_IN_FIXTURE_CLSID_TEXT "{4B4E74A7-7959-48B8-9AC7-B42CE9D45B25}"
#define SELFREG_MONITOR_KEY JEVMON_MONITORS_KEY "\\fx_selfreg"

static char fixture_dll[MAX_PATH], missing_dll[MAX_PATH];

static void program_anchor(void)
{
}

/* $JEVMON_BUILD, or this program's directory without its last component (tests). */
static void find_build_dir(char *dir, size_t len)
{
    char *env = plat_getenv("JEVMON_BUILD");
    char *self = env && *env ? NULL : plat_module_path((const void *)program_anchor);
    snprintf(dir, len, "%s", env && *env ? env : self ? self : ".");
    if (self) {
        for (int up = 0; up < 2; up++) { /* ...\tests\test_activation_win.exe -> ... */
            char *sep = strrchr(dir, '\\');
            if (sep)
                *sep = '\0';
        }
    }
    free(env);
    free(self);
}

/* Runs regsvr32 with the arguments and the fixture DLL; its exit code, or -1 if it did not run. */
static long regsvr32(const char *args)
{
    char command[2 * MAX_PATH];
    STARTUPINFOA startup = {.cb = sizeof(startup)};
    PROCESS_INFORMATION process;
    DWORD code;
    snprintf(command, sizeof(command), "regsvr32.exe %s \"%s\"", args, fixture_dll);
    if (!CreateProcessA(NULL, command, NULL, NULL, FALSE, 0, NULL, NULL, &startup, &process))
        return -1;
    WaitForSingleObject(process.hThread, INFINITE);
    WaitForSingleObject(process.hProcess, INFINITE);
    if (!GetExitCodeProcess(process.hProcess, &code))
        code = (DWORD)-1;
    CloseHandle(process.hThread);
    CloseHandle(process.hProcess);
    return (long)code;
}

static void ck_assert_regsvr32(const char *args)
{
    long code = regsvr32(args);
    ck_assert_msg(code == 0, "regsvr32 %s %s exited with %ld", args, fixture_dll, code);
}

static void ck_assert_mentions(const char *why, const char *what)
{
    ck_assert_msg(strstr(why, what) != NULL, "the why text \"%s\" does not mention \"%s\"", why, what);
}

static void ck_assert_reg_absent(plat_hive hive, const char *key, const char *name)
{
    char *value = NULL;
    plat_reg_status st = plat_reg_get_string(hive, key, name, &value);
    ck_assert_msg(st == PLAT_REG_NOT_FOUND, "%s value %s is still there (status %d, \"%s\")", key,
                  name ? name : "(default)", (int)st, value ? value : "");
    free(value);
}

/* Every test starts and ends with none of the test's classes registered.  The keys are
 * deleted directly: a regsvr32 run takes a second under Wine. */
static void unregister_everything(void)
{
    plat_reg_delete_tree(PLAT_HKCR, "CLSID\\" SELFREG_CLSID_TEXT);
    plat_reg_delete_tree(PLAT_HKLM, SELFREG_MONITOR_KEY);
    plat_reg_delete_tree(PLAT_HKCR, "CLSID\\" MISSING_DLL_CLSID_TEXT);
    plat_reg_delete_tree(PLAT_HKCR, "CLSID\\" NOT_IN_FIXTURE_CLSID_TEXT);
}

/* Registers clsid_text by hand as served by server. */
static void register_class_by_hand(const char *clsid_text, const char *server)
{
    char key[80];
    snprintf(key, sizeof(key), "CLSID\\%s\\InprocServer32", clsid_text);
    ck_assert_reg(plat_reg_set_string(PLAT_HKCR, key, NULL, server), PLAT_REG_OK);
    ck_assert_reg(plat_reg_set_string(PLAT_HKCR, key, "ThreadingModel", "Both"), PLAT_REG_OK);
}

START_TEST(regsvr32_writes_the_keys)
{
    char *server = NULL, *clsid = NULL;
    DWORD options = 0;
    ck_assert_regsvr32("/s");
    ck_assert_reg(plat_reg_get_string(PLAT_HKCR, "CLSID\\" SELFREG_CLSID_TEXT "\\InprocServer32", NULL, &server),
                  PLAT_REG_OK);
    ck_assert_msg(lstrcmpiA(server, fixture_dll) == 0, "InprocServer32 is %s, not %s", server, fixture_dll);
    ck_assert_reg(plat_reg_get_string(PLAT_HKLM, SELFREG_MONITOR_KEY, "CLSID", &clsid), PLAT_REG_OK);
    ck_assert_str_eq(clsid, SELFREG_CLSID_TEXT);
    ck_assert_reg(plat_reg_get_dword(PLAT_HKLM, SELFREG_MONITOR_KEY, "InitOptions", &options), PLAT_REG_OK);
    ck_assert_msg(options == JVM_INIT_OPT_GC_SAFE_METHOD_CALLS, "InitOptions is 0x%lX", (unsigned long)options);
    free(server);
    free(clsid);
}
END_TEST

START_TEST(registered_class_activates)
{
    IUnknown *object = NULL, *again = NULL, *monitor = NULL;
    char why[512] = "untouched";
    ck_assert_regsvr32("/s");
    ck_assert_hr(plat_create_instance(&CLSID_FxSelfReg, &IID_IUnknown, (void **)&object, why, sizeof(why)), S_OK);
    ck_assert_str_eq(why, "");
    ck_assert_hr(IUnknown_QueryInterface(object, &IID_IUnknown, (void **)&again), S_OK);
    ck_assert_ptr_eq(again, object);
    ck_assert_hr(IUnknown_QueryInterface(object, &IID_IJavaEventMonitor, (void **)&monitor), E_NOINTERFACE);
    ck_assert_ptr_null(monitor);
    ck_assert_msg(IUnknown_Release(again) == 1, "the object's count is off");
    ck_assert_msg(IUnknown_Release(object) == 0, "the object is still referenced");
}
END_TEST

START_TEST(unregistered_class_is_not_registered)
{
    void *object = NULL;
    char why[512];
    ck_assert_regsvr32("/s");
    ck_assert_regsvr32("/u /s");
    ck_assert_reg_absent(PLAT_HKCR, "CLSID\\" SELFREG_CLSID_TEXT, NULL);
    ck_assert_reg_absent(PLAT_HKCR, "CLSID\\" SELFREG_CLSID_TEXT "\\InprocServer32", NULL);
    ck_assert_reg_absent(PLAT_HKLM, SELFREG_MONITOR_KEY, "CLSID");
    ck_assert_hr(plat_create_instance(&CLSID_FxSelfReg, &IID_IUnknown, &object, why, sizeof(why)), REGDB_E_CLASSNOTREG);
    ck_assert_ptr_null(object);
    ck_assert_mentions(why, SELFREG_CLSID_TEXT);
    ck_assert_mentions(why, "not registered");
}
END_TEST

START_TEST(missing_dll_is_named)
{
    void *object = NULL;
    char why[512];
    register_class_by_hand(MISSING_DLL_CLSID_TEXT, missing_dll);
    HRESULT hr = plat_create_instance(&CLSID_MissingDll, &IID_IUnknown, &object, why, sizeof(why));
    ck_assert_msg(FAILED(hr), "activation of a class whose DLL is missing returned 0x%08lX", (unsigned long)hr);
    ck_assert_ptr_null(object);
    ck_assert_mentions(why, MISSING_DLL_CLSID_TEXT);
    ck_assert_mentions(why, "DLL not found");
    ck_assert_mentions(why, missing_dll);
}
END_TEST

/* The DLL is there but serves other classes: the why names the DLL and says so. */
START_TEST(class_the_dll_does_not_serve_is_explained)
{
    void *object = NULL;
    char why[512];
    register_class_by_hand(NOT_IN_FIXTURE_CLSID_TEXT, fixture_dll);
    ck_assert_hr(plat_create_instance(&CLSID_NotInFixture, &IID_IUnknown, &object, why, sizeof(why)),
                 CLASS_E_CLASSNOTAVAILABLE);
    ck_assert_mentions(why, NOT_IN_FIXTURE_CLSID_TEXT);
    ck_assert_mentions(why, fixture_dll);
    ck_assert_mentions(why, "does not provide this class");
}
END_TEST

static void log_counter(const char *line, void *context)
{
    (void)line;
    ++*(int *)context;
}

START_TEST(missing_arguments_are_refused)
{
    void *object = NULL;
    char why[128];
    int lines = 0;
    jv_log_set_sink(log_counter, &lines);
    HRESULT no_clsid = plat_create_instance(NULL, &IID_IUnknown, &object, why, sizeof(why));
    HRESULT no_out = plat_create_instance(&CLSID_FxSelfReg, &IID_IUnknown, NULL, NULL, 0);
    jv_log_set_sink(NULL, NULL);
    ck_assert_hr(no_clsid, E_POINTER);
    ck_assert_hr(no_out, E_POINTER);
    ck_assert_mentions(why, "no CLSID");
    ck_assert_msg(lines == 2, "%d log lines for two refused calls", lines);
}
END_TEST

static Suite *activation_suite(void)
{
    Suite *s = suite_create("activation_win");
    TCase *tc = tcase_create("regsvr32_and_CoCreateInstance");
    tcase_add_checked_fixture(tc, unregister_everything, unregister_everything);
    tcase_add_test(tc, regsvr32_writes_the_keys);
    tcase_add_test(tc, registered_class_activates);
    tcase_add_test(tc, unregistered_class_is_not_registered);
    tcase_add_test(tc, missing_dll_is_named);
    tcase_add_test(tc, class_the_dll_does_not_serve_is_explained);
    tcase_add_test(tc, missing_arguments_are_refused);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    char build_dir[MAX_PATH];
    find_build_dir(build_dir, sizeof(build_dir));
    snprintf(fixture_dll, sizeof(fixture_dll), "%s\\fixtures\\fx_selfreg.dll", build_dir);
    snprintf(missing_dll, sizeof(missing_dll), "%s\\fixtures\\fx_no_such_server.dll", build_dir);
    if (GetFileAttributesA(fixture_dll) == INVALID_FILE_ATTRIBUTES) {
        fprintf(stderr, "test_activation_win: no fixture at %s (build it, or set JEVMON_BUILD)\n", fixture_dll);
        return EXIT_FAILURE;
    }
    HRESULT hr = plat_com_init();
    if (FAILED(hr)) {
        fprintf(stderr, "test_activation_win: CoInitializeEx failed: 0x%08lX\n", (unsigned long)hr);
        return EXIT_FAILURE;
    }
    int status = tk_run_suite(activation_suite());
    plat_com_uninit();
    return status;
}
