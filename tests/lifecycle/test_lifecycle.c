/*
 * test_lifecycle.c - finding, creating and initializing monitors as the Microsoft VM did,
 * driven the way Agent_OnLoad drives it, without a JVM.  Runs natively against the
 * registry files and under Wine against the real registry and CoCreateInstance.
 *
 * The monitors are tests/bridge/fx_monitor's classes; they log every call they get
 * to a file this suite reads back.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lifecycle/discovery.h"
#include "lifecycle/enable.h"
#include "lifecycle/monitors.h"
#include "platform/platform.h"
#include "vm/options.h"
#include "../support/testkit.h"

#define FX "{63DAD816-1308-449B-AC11-1E702EB2D15F}"
#define FX_V1 "{8A05A603-576C-454C-A8A9-8A406868B147}"
#define FX_FAIL_INIT "{D0911CAE-8815-4E18-91BC-CD8E80D1ECD7}"
#define FX_NO_INTERFACE "{7178B72E-D6B9-4CAE-AC7C-889FB10849AA}"
#define FX_NO_FACTORY "{9D18DD5C-E041-46B5-BCAF-C94CA9988CDC}"
#define FX_CREATE_FAILS "{8D41E7B0-CC27-413D-9098-5766BDB6CA96}"
#define UNREGISTERED "{0B5E1F2A-96C4-4C1B-9C0E-3F1D2A4B5C6D}"
#define MONITORS JEVMON_MONITORS_KEY
#define ALL_BUT_STEPPING (ALL_JVM_MONITOR_EVENTS & ~(DWORD)(JVM_MONITOR_BYTE_CODE_EXECUTION | JVM_MONITOR_SOURCE_LINE_EXECUTION))

static char build_dir[512], sep[2] = "/";
static char log_path[1200], fixture_path[1200];
static void find_build_dir(void)
{
    char *env = plat_getenv("JEVMON_BUILD");
    if (env) {
        snprintf(build_dir, sizeof(build_dir), "%s", env);
        free(env);
    } else {
        /* <build>/tests/test_lifecycle or <build>/asan/tests/test_lifecycle */
        char *self = plat_module_path((const void *)find_build_dir);
        ck_assert_ptr_nonnull(self);
        snprintf(build_dir, sizeof(build_dir), "%s", self);
        free(self);
        for (int i = 0; i < 2; i++)
            *strrchr(build_dir, strchr(build_dir, '\\') ? '\\' : '/') = '\0';
        size_t len = strlen(build_dir);
        if (len > 5 && strcmp(build_dir + len - 5, "/asan") == 0)
            build_dir[len - 5] = '\0';
    }
    if (strchr(build_dir, '\\'))
        sep[0] = '\\';
}

static void path_in_build(char *out, size_t size, const char *name)
{
    snprintf(out, size, "%s%s%s", build_dir, sep, name);
}

static void register_class(const char *clsid, const char *server)
{
    char key[128];
    snprintf(key, sizeof(key), "CLSID\\%s\\InprocServer32", clsid);
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKCR, key, NULL, server), PLAT_REG_OK);
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKCR, key, "ThreadingModel", "Both"), PLAT_REG_OK);
}

static void register_monitor(const char *name, const char *clsid)
{
    char key[256];
    snprintf(key, sizeof(key), "%s\\%s", MONITORS, name);
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKLM, key, NULL, "a test monitor"), PLAT_REG_OK);
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKLM, key, "CLSID", clsid), PLAT_REG_OK);
}

static void setup(void)
{
    char path[1200];
    static const char *const fixture_clsids[] = {FX, FX_V1, FX_FAIL_INIT, FX_NO_INTERFACE, FX_NO_FACTORY,
                                                 FX_CREATE_FAILS};
    find_build_dir();
    path_in_build(path, sizeof(path), "test_lifecycle.system.reg");
    remove(path);
    plat_setenv("JEVMON_REGISTRY_SYSTEM", path);
    path_in_build(path, sizeof(path), "test_lifecycle.user.reg");
    remove(path);
    plat_setenv("JEVMON_REGISTRY_USER", path);
    plat_setenv("JEVMON_REGISTRY_FILES", NULL);
    path_in_build(log_path, sizeof(log_path), "test_lifecycle.fxmon.log");
    remove(log_path);
    plat_setenv("FXMON_LOG", log_path);
    static const char *const cleared[] = {"MSJAVA_EVENT_MONITORS", "MSJAVA_ENABLE_MONITORS", "MSJAVA_DEBUGGING_FLAGS",
                                          "FXMON_REQUEST", "FXMON_POSSIBLE", "FXMON_OPTIONS"};
    for (size_t i = 0; i < sizeof(cleared) / sizeof(*cleared); i++)
        plat_setenv(cleared[i], NULL);
    /* Under Wine the registry outlives the process: start from nothing. */
    plat_reg_delete_tree(PLAT_HKLM, MONITORS);
    plat_reg_delete_tree(PLAT_HKCU, JEVMON_JAVA_VM_KEY);
    plat_reg_delete_tree(PLAT_HKLM, JEVMON_JAVA_VM_KEY);

    char fixture_name[64];
    snprintf(fixture_name, sizeof(fixture_name), "fixtures%sfx_monitor.so", sep);
    path_in_build(fixture_path, sizeof(fixture_path), fixture_name);
    FILE *f = fopen(fixture_path, "rb");
    if (f)
        fclose(f);
    else
        strcpy(strrchr(fixture_path, '.'), ".dll");
    for (size_t i = 0; i < sizeof(fixture_clsids) / sizeof(*fixture_clsids); i++)
        register_class(fixture_clsids[i], fixture_path);
    tk_capture_log();
}

static void teardown(void)
{
    jv_log_set_sink(NULL, NULL);
    plat_reg_delete_tree(PLAT_HKLM, MONITORS);
}

/* What Agent_OnLoad does, minus the JVM, with the agent's options (NULL: none); returns the monitor log. */
static char *load_listed_and_run(DWORD deliverable, const char *options)
{
    jv_monitor_specs specs;
    jv_options opts;
    jv_options_parse(options, &opts);
    ck_assert(SUCCEEDED(plat_com_init()));
    jv_discover_monitors(&specs, opts.monitors, opts.monitors_len);
    jv_monitor_specs_use_servers(&specs, &opts);
    jv_monitors_create(&specs, deliverable, JVM_STATE_INTERPRETER_ENABLED | JVM_STATE_JIT_COMPILER_ENABLED);
    jv_monitor_specs_free(&specs);
    jv_monitors_initialize("Main");
    jv_monitors_shutdown();
    plat_com_uninit();
    return tk_read_file(log_path);
}

static char *load_and_run(DWORD deliverable)
{
    return load_listed_and_run(deliverable, NULL);
}

START_TEST(registry_monitor_full_life_cycle)
{
    register_monitor("fx", FX);
    plat_setenv("FXMON_REQUEST", "101");
    plat_setenv("FXMON_POSSIBLE", "181");
    char *log = load_and_run(ALL_BUT_STEPPING);
    const char *order[] = {"v2#1 Initialize class=Main flags=0x5", "v2#1 GetPossibleEventCategories 0x181",
                           "v2#1 NotifyEvent2 1031 1 181",
                           "v2#1 GetFinalInitializationOptions hr=0x00000000 options=0x0",
                           "v2#1 SetMonitorInitializationOptions after Initialize hr=0x80004005",
                           "v2#1 SetEventMask toggling METHOD_CALLS hr=0x00000000", "v2#1 GetEventMask 0x101",
                           "v2#1 NotifyEvent 13 0", "v2#1 Released"};
    const char *at = log;
    for (size_t i = 0; i < sizeof(order) / sizeof(*order); i++) {
        const char *found = strstr(at, order[i]);
        ck_assert_msg(found, "missing or out of order: \"%s\" in:\n%s", order[i], log);
        at = found + 1;
    }
    ck_assert_int_eq(tk_count(log, "Released"), 1);
    ck_assert_int_eq(tk_log_count, 0);
    free(log);
}
END_TEST

START_TEST(registry_first_then_environment_and_duplicates_kept)
{
    register_monitor("fx", FX);
    plat_setenv("MSJAVA_EVENT_MONITORS", FX_V1 ";" FX);
    plat_setenv("FXMON_POSSIBLE", "1");
    char *log = load_and_run(ALL_BUT_STEPPING);
    const char *first = strstr(log, "v2#1 Initialize"), *second = strstr(log, "v1#2 Initialize"),
               *third = strstr(log, "v2#3 Initialize");
    ck_assert_msg(first && second && third && first < second && second < third, "order:\n%s", log);
    /* Created first, initialized after: every Initialize comes before the first MONITORS_INITIALIZED. */
    ck_assert(third < strstr(log, "NotifyEvent2 1031"));
    ck_assert_int_eq(tk_count(log, "NotifyEvent2 1031 3 "), 2); /* not to the IJavaEventMonitor-only one */
    ck_assert_int_eq(tk_count(log, "NotifyEvent 13 0"), 3);
    ck_assert_int_eq(tk_count(log, "Released"), 3);
    free(log);
}
END_TEST

/* An answer of GetPossibleEventCategories with bits no category has gets one line; the monitor runs. */
START_TEST(garbage_possible_categories_get_a_line)
{
    register_monitor("fx", FX);
    plat_setenv("FXMON_REQUEST", "100");
    plat_setenv("FXMON_POSSIBLE", "DEADBEEF");
    char *log = load_and_run(ALL_BUT_STEPPING);
    ck_assert_int_eq(tk_log_count, 1);
    ck_assert_msg(tk_logged("GetPossibleEventCategories answered 0xdeadbeef, which holds unknown categories "
                            "0xdeadb000; they are ignored"), "%s", tk_log_lines[0]);
    ck_assert_int_eq(tk_count(log, "NotifyEvent2 1031 1 "), 1); /* initialized all the same */
    ck_assert_int_eq(tk_count(log, "Released"), 1);
    free(log);
}
END_TEST

START_TEST(agent_option_monitors_come_last)
{
    register_monitor("fx", FX);
    plat_setenv("MSJAVA_EVENT_MONITORS", FX);
    plat_setenv("FXMON_POSSIBLE", "1");
    char *log = load_listed_and_run(ALL_BUT_STEPPING, "monitors=" FX_V1 ";{not-a-clsid}");
    const char *first = strstr(log, "v2#1 Initialize"), *second = strstr(log, "v2#2 Initialize"),
               *third = strstr(log, "v1#3 Initialize");
    ck_assert_msg(first && second && third && first < second && second < third, "order:\n%s", log);
    ck_assert_int_eq(tk_log_count, 1);
    ck_assert_int_eq(tk_logged("agent option monitors entry 2 \"{not-a-clsid}\" is not a braced CLSID"), 1);
    free(log);
}
END_TEST

/* A class named by the registry's Monitors key and by monitors= is created once for the load
 * (the duplicate rule is the Microsoft VM's lists'); a monitors= entry named twice, once too. */
START_TEST(agent_option_monitors_already_listed_are_created_once)
{
    register_monitor("fx", FX);
    plat_setenv("FXMON_POSSIBLE", "1");
    char *log = load_listed_and_run(ALL_BUT_STEPPING, "monitors=" FX ";" FX_V1 ";" FX_V1);
    ck_assert_int_eq(tk_count(log, "Initialize class="), 2);
    ck_assert_int_eq(tk_count(log, "v2#1 Initialize"), 1);
    ck_assert_int_eq(tk_count(log, "v1#2 Initialize"), 1);
    ck_assert_int_eq(tk_log_count, 0);
    free(log);
}
END_TEST

/* server={clsid}=path: the class comes from that library for this load, registered or not; a
 * relative path is refused as a registered one is, in one line. */
START_TEST(server_option_names_the_library_of_a_class)
{
    char options[1600], key[128];
    plat_setenv("FXMON_POSSIBLE", "1");
    snprintf(key, sizeof(key), "CLSID\\%s", FX);
    ck_assert_int_eq(plat_reg_delete_tree(PLAT_HKCR, key), PLAT_REG_OK);
    snprintf(options, sizeof(options), "enable,monitors=%s,server=%s=%s", FX, FX, fixture_path);
    char *log = load_listed_and_run(ALL_BUT_STEPPING, options);
    ck_assert_int_eq(tk_count(log, "v2#1 Initialize"), 1);
    ck_assert_int_eq(tk_log_count, 0);
    free(log);
    remove(log_path); /* the second load's log of its own */
    log = load_listed_and_run(ALL_BUT_STEPPING, "monitors=" FX ",server=" FX "=fx_monitor.so");
    ck_assert_int_eq(tk_count(log, "Initialize"), 0);
    ck_assert_int_eq(tk_log_count, 1);
    ck_assert_msg(strstr(tk_log_lines[0], "relative path"), "%s", tk_log_lines[0]);
    free(log);
}
END_TEST

START_TEST(init_options_registry_value_is_a_promise)
{
    char key[256];
    register_monitor("fx", FX);
    snprintf(key, sizeof(key), "%s\\fx", MONITORS);
    ck_assert_int_eq(plat_reg_set_dword(PLAT_HKLM, key, "InitOptions", 0x0C), PLAT_REG_OK);
    plat_setenv("FXMON_REQUEST", "2");
    char *log = load_and_run(ALL_BUT_STEPPING);
    ck_assert_msg(strstr(log, "GetFinalInitializationOptions hr=0x00000000 options=0xc"), "%s", log);
    ck_assert_msg(strstr(log, "SetEventMask toggling METHOD_CALLS hr=0x80004005"), "%s", log);
    free(log);
}
END_TEST

START_TEST(init_options_own_call_during_initialize)
{
    register_monitor("fx", FX);
    plat_setenv("FXMON_OPTIONS", "8");
    plat_setenv("FXMON_REQUEST", "2");
    char *log = load_and_run(ALL_BUT_STEPPING);
    ck_assert_msg(strstr(log, "SetMonitorInitializationOptions(0x8) in Initialize hr=0x00000000"), "%s", log);
    ck_assert_msg(strstr(log, "GetFinalInitializationOptions hr=0x00000000 options=0x8"), "%s", log);
    ck_assert_msg(strstr(log, "SetEventMask toggling METHOD_CALLS hr=0x80004005"), "%s", log);
    free(log);
}
END_TEST

START_TEST(init_options_of_the_wrong_type)
{
    char key[256];
    register_monitor("fx", FX);
    snprintf(key, sizeof(key), "%s\\fx", MONITORS);
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKLM, key, "InitOptions", "12"), PLAT_REG_OK);
    char *log = load_and_run(ALL_BUT_STEPPING);
    ck_assert_int_eq(tk_log_count, 1);
    ck_assert_int_eq(tk_logged("InitOptions is not a DWORD"), 1);
    ck_assert_msg(strstr(log, "GetFinalInitializationOptions hr=0x00000000 options=0x0"), "%s", log);
    free(log);
}
END_TEST

/* One bad input per row: it gets exactly one "jevmon:" line, and the good monitor still loads. */
typedef struct bad_input {
    const char *name;
    const char *env;          /* MSJAVA_EVENT_MONITORS, or NULL */
    const char *registered;   /* a second Monitors subkey's CLSID value, or NULL */
    const char *server;       /* InprocServer32 for UNREGISTERED: NULL = none; "-" = no CLSID key */
    const char *expect;       /* text of the one line */
    int good_monitors;        /* monitors that must still initialize */
} bad_input;

static const bad_input bad_inputs[] = {
    {"malformed env CLSID", "{63DAD816-1308-449B-AC11}", NULL, NULL, "not a braced CLSID", 1},
    {"malformed registry CLSID", NULL, "63DAD816-1308-449B-AC11-1E702EB2D15F", NULL, "not a braced CLSID", 1},
    {"unknown CLSID", UNREGISTERED, NULL, "-", "could not be created", 1},
    {"InprocServer32 missing", UNREGISTERED, NULL, NULL, "could not be created", 1},
    {"InprocServer32 relative", UNREGISTERED, NULL, "no_such_monitor_dll.so", "could not be created", 1},
    {"InprocServer32 not found", UNREGISTERED, NULL, "@build/no_such_monitor.so", "could not be created", 1},
    {"InprocServer32 not loadable", UNREGISTERED, NULL, "@build/test_lifecycle.system.reg", "could not be created", 1},
    {"no DllGetClassObject", UNREGISTERED, NULL, "@agent", "could not be created", 1},
    {"class factory failing", FX_NO_FACTORY, NULL, NULL, "could not be created", 1},
    {"CreateInstance failing", FX_CREATE_FAILS, NULL, NULL, "could not be created", 1},
    {"no IJavaEventMonitor", FX_NO_INTERFACE, NULL, NULL, "could not be created", 1},
    {"Initialize failing", FX_FAIL_INIT, NULL, NULL, "Initialize failed", 1},
    {"empty variable", "", NULL, NULL, "set but empty", 1},
    {"only spaces", "   ", NULL, NULL, "set but empty", 1},
    {"space-padded entry", "  " FX " ", NULL, NULL, "spaces around", 2},
    {"trailing semicolon", FX ";", NULL, NULL, "entry 2 is empty", 2},
    {"doubled semicolon", FX ";;" FX, NULL, NULL, "entry 2 is empty", 3},
    {"registry key without CLSID", NULL, "", NULL, "has no CLSID value", 1},
};

START_TEST(bad_input_one_line_and_the_rest_goes_on)
{
    const bad_input *row = &bad_inputs[_i];
    char key[256], server[1200];
    register_monitor("a_good_one", FX);
    if (row->registered) {
        snprintf(key, sizeof(key), "%s\\z_bad", MONITORS);
        ck_assert_int_eq(plat_reg_set_string(PLAT_HKLM, key, NULL, "bad"), PLAT_REG_OK);
        if (row->registered[0])
            ck_assert_int_eq(plat_reg_set_string(PLAT_HKLM, key, "CLSID", row->registered), PLAT_REG_OK);
    }
    if (row->server && strcmp(row->server, "-") != 0) {
        if (strcmp(row->server, "@agent") == 0) {
            snprintf(server, sizeof(server), "%s", fixture_path);
            char *dir_end = strrchr(server, sep[0]);
            *dir_end = '\0';
            *strrchr(server, sep[0]) = '\0';
            size_t len = strlen(server);
            snprintf(server + len, sizeof(server) - len, "%s%s", sep,
                     strstr(fixture_path, ".dll") ? "jevmon.dll" : "libjevmon.so");
        } else if (row->server[0] == '@')
            path_in_build(server, sizeof(server), row->server + 7);
        else
            snprintf(server, sizeof(server), "%s", row->server);
        register_class(UNREGISTERED, server);
    } else if (!row->server) {
        snprintf(key, sizeof(key), "CLSID\\%s", UNREGISTERED);
        plat_reg_set_string(PLAT_HKCR, key, NULL, "no server");
    }
    if (row->env)
        plat_setenv("MSJAVA_EVENT_MONITORS", row->env);
    char *log = load_and_run(ALL_BUT_STEPPING);
    ck_assert_msg(tk_log_count == 1 && tk_logged(row->expect) == 1, "%s: %d lines, first: %s", row->name, tk_log_count,
                  tk_log_count ? tk_log_lines[0] : "");
    ck_assert_msg(tk_count(log, "v2#") && tk_count(log, " NotifyEvent 13 0") == row->good_monitors,
                  "%s: good monitors:\n%s", row->name, log);
    free(log);
    snprintf(key, sizeof(key), "CLSID\\%s", UNREGISTERED);
    plat_reg_delete_tree(PLAT_HKCR, key);
}
END_TEST

/* Names of any length: the key path was once cut at 512 bytes, and names of 476 characters and more
 * were reported as having no CLSID.  (Windows' registry itself refuses names over 255 characters.) */
START_TEST(long_monitors_subkey_names_load)
{
    static const size_t lengths[] = {255, 475, 476, 600, 2000};
    int written = 0;
    for (size_t i = 0; i < sizeof(lengths) / sizeof(*lengths); i++) {
        char name[2001], key[2100];
        memset(name, 'a' + (int)i, lengths[i]);
        name[lengths[i]] = '\0';
        snprintf(key, sizeof(key), "%s\\%s", MONITORS, name);
        if (plat_reg_set_string(PLAT_HKLM, key, "CLSID", FX) == PLAT_REG_OK)
            written++;
        else
            ck_assert_msg(lengths[i] > 255, "a %u-character key name could not be written", (unsigned)lengths[i]);
    }
    tk_log_count = 0; /* Windows' refusals of the longer names */
    char *log = load_and_run(ALL_BUT_STEPPING);
    ck_assert_msg(tk_log_count == 0, "%d lines, first: %s", tk_log_count, tk_log_count ? tk_log_lines[0] : "");
    ck_assert_msg(tk_count(log, " Initialize class=") == written, "%d monitors registered:\n%s", written, log);
    free(log);
}
END_TEST

START_TEST(undeliverable_categories_are_masked_off)
{
    register_monitor("fx", FX);
    plat_setenv("FXMON_REQUEST", "119"); /* THREADS | BYTE_CODE | SOURCE_LINE | CLASS_LOADS */
    char *log = load_and_run(ALL_BUT_STEPPING);
    ck_assert_int_eq(tk_log_count, 1);
    ck_assert_int_eq(tk_logged("cannot deliver here; masked off"), 1);
    ck_assert_msg(strstr(log, "GetEventMask 0x101"), "%s", log);
    free(log);
}
END_TEST

/* ---- Enabling rules ------------------------------------------------------------------- */
typedef struct enable_row {
    const char *enable_env;    /* MSJAVA_ENABLE_MONITORS or NULL */
    const char *flags_env;     /* MSJAVA_DEBUGGING_FLAGS or NULL */
    long enable_reg;           /* HKCU EnableEventMonitors, -1 = absent */
    long flags_reg;            /* HKLM DebuggingFlags, -1 = absent */
    jv_force force;
    int enabled;
    int log_lines;
} enable_row;

static const enable_row enable_rows[] = {
    {NULL, NULL, -1, -1, JV_FORCE_NONE, 0, 0},  /* default: off */
    {"1", NULL, -1, -1, JV_FORCE_NONE, 1, 0},
    {"0", NULL, 1, -1, JV_FORCE_NONE, 0, 0},    /* the variable overrides EnableEventMonitors */
    {NULL, NULL, 1, -1, JV_FORCE_NONE, 1, 0},
    {NULL, NULL, 0, -1, JV_FORCE_NONE, 0, 0},
    {NULL, "2", -1, -1, JV_FORCE_NONE, 1, 0},   /* MSJDBG_FL_ENABLE_PROFILING */
    {NULL, "0x3", -1, -1, JV_FORCE_NONE, 1, 0},
    {NULL, "1", -1, 2, JV_FORCE_NONE, 0, 0},    /* the variable overrides DebuggingFlags */
    {NULL, NULL, -1, 2, JV_FORCE_NONE, 1, 0},
    {NULL, NULL, -1, 0x40, JV_FORCE_NONE, 0, 0},
    {"0", "2", -1, -1, JV_FORCE_NONE, 1, 0},    /* either switch on is enough */
    {"yes", NULL, 1, -1, JV_FORCE_NONE, 1, 1},  /* unreadable: one line, then the registry decides */
    {NULL, "zz", -1, -1, JV_FORCE_NONE, 0, 1},
    /* Exactly the forms of docs/monitors-and-registry.md: a decimal or hexadecimal DWORD, spaces around it, nothing else. */
    {"4294967295", NULL, -1, -1, JV_FORCE_NONE, 1, 0},
    {" 7\t", NULL, -1, -1, JV_FORCE_NONE, 1, 0},
    {NULL, "0X00000002", -1, -1, JV_FORCE_NONE, 1, 0},
    {NULL, "00000000002", -1, -1, JV_FORCE_NONE, 1, 0}, /* leading zeros are no overflow */
    {"4294967296", NULL, -1, -1, JV_FORCE_NONE, 0, 1},  /* was read as 0 ... */
    {"4294967296", NULL, 1, -1, JV_FORCE_NONE, 1, 1},   /* ... and now counts as unset */
    {"99999999999999999999999", NULL, -1, -1, JV_FORCE_NONE, 0, 1},
    {"-1", NULL, -1, -1, JV_FORCE_NONE, 0, 1},
    {"+1", NULL, -1, -1, JV_FORCE_NONE, 0, 1},
    {"1x", NULL, -1, -1, JV_FORCE_NONE, 0, 1},
    {"0x1", NULL, -1, -1, JV_FORCE_NONE, 0, 1},         /* not decimal */
    {"", NULL, -1, -1, JV_FORCE_NONE, 0, 1},
    {NULL, "-1", -1, -1, JV_FORCE_NONE, 0, 1},          /* was on: -1 wrapped to all bits */
    {NULL, "100000002", -1, -1, JV_FORCE_NONE, 0, 1},   /* was on: bit 1 of an overflowing value */
    {NULL, "fffffffffffffffffffff", -1, -1, JV_FORCE_NONE, 0, 1},
    {NULL, "0x", -1, -1, JV_FORCE_NONE, 0, 1},
    {NULL, "2 2", -1, -1, JV_FORCE_NONE, 0, 1},
    {"1", NULL, -1, -1, JV_FORCE_OFF, 0, 0},    /* agent options win */
    {NULL, NULL, -1, -1, JV_FORCE_ON, 1, 0},
};

START_TEST(enabling_rules)
{
    const enable_row *row = &enable_rows[_i];
    jv_options opts = {.profiling = row->force, .methods = JV_METHODS_AUTO};
    char why[256];
    plat_setenv("MSJAVA_ENABLE_MONITORS", row->enable_env);
    plat_setenv("MSJAVA_DEBUGGING_FLAGS", row->flags_env);
    if (row->enable_reg >= 0)
        plat_reg_set_dword(PLAT_HKCU, JEVMON_JAVA_VM_KEY, "EnableEventMonitors", (DWORD)row->enable_reg);
    if (row->flags_reg >= 0)
        plat_reg_set_dword(PLAT_HKLM, JEVMON_JAVA_VM_KEY, "DebuggingFlags", (DWORD)row->flags_reg);
    ck_assert_msg(jv_profiling_enabled(&opts, why, sizeof(why)) == row->enabled, "row %d: %s", _i, why);
    ck_assert_msg(tk_log_count == row->log_lines, "row %d: %d lines, first: %s", _i, tk_log_count,
                  tk_log_count ? tk_log_lines[0] : "");
    if (row->log_lines)
        ck_assert_msg(strstr(tk_log_lines[0], "; ignored") &&
                          strstr(tk_log_lines[0], row->enable_env ? "not a decimal DWORD" : "not a hexadecimal DWORD"),
                      "row %d: %s", _i, tk_log_lines[0]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lifecycle");
    TCase *tc = tcase_create("lifecycle");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, registry_monitor_full_life_cycle);
    tcase_add_test(tc, registry_first_then_environment_and_duplicates_kept);
    tcase_add_test(tc, agent_option_monitors_come_last);
    tcase_add_test(tc, garbage_possible_categories_get_a_line);
    tcase_add_test(tc, agent_option_monitors_already_listed_are_created_once);
    tcase_add_test(tc, server_option_names_the_library_of_a_class);
    tcase_add_test(tc, init_options_registry_value_is_a_promise);
    tcase_add_test(tc, init_options_own_call_during_initialize);
    tcase_add_test(tc, init_options_of_the_wrong_type);
    tcase_add_loop_test(tc, bad_input_one_line_and_the_rest_goes_on, 0, (int)(sizeof(bad_inputs) / sizeof(*bad_inputs)));
    tcase_add_test(tc, long_monitors_subkey_names_load);
    tcase_add_test(tc, undeliverable_categories_are_masked_off);
    tcase_add_loop_test(tc, enabling_rules, 0, (int)(sizeof(enable_rows) / sizeof(*enable_rows)));
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
