/*
 * test_jevprof_config.c - jevprof's settings: defaults, the registry values under its
 * Monitors key, environment variables over them, and one "jevprof:" line naming the source
 * and the reason for each bad value, which then falls back to its default.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../monitor/config.h"
#include "platform/platform.h"
#include "../support/testkit.h"

static const char *const variables[] = {"JEVPROF_OUTPUT_DIR", "JEVPROF_MODE", "JEVPROF_INTERVAL_MS", "JEVPROF_TOP",
                                        "JEVPROF_FILE_PREFIX", "JEVPROF_TIME", "JEVPROF_MIN_SHARE", "JEVPROF_LOOP",
                                        "JEVPROF_EXCEPTIONS", "JEVPROF_CSTACK", "JEVPROF_KSTACK", "JEVPROF_THREADS"};

static void setup(void)
{
    char path[1200];
    char *self = plat_module_path((const void *)setup);
    ck_assert_ptr_nonnull(self);
    snprintf(path, sizeof(path), "%s.system.reg", self); /* this suite's own registry file on Linux */
    free(self);
    remove(path);
    plat_setenv("JEVMON_REGISTRY_SYSTEM", path);
    for (size_t i = 0; i < sizeof(variables) / sizeof(*variables); i++)
        plat_setenv(variables[i], NULL);
    plat_reg_delete_tree(PLAT_HKLM, JP_CONFIG_KEY);
    tk_capture_log();
}

static void teardown(void)
{
    jv_log_set_sink(NULL, NULL);
    plat_reg_delete_tree(PLAT_HKLM, JP_CONFIG_KEY); /* under Wine this is the prefix's real registry */
    for (size_t i = 0; i < sizeof(variables) / sizeof(*variables); i++)
        plat_setenv(variables[i], NULL);
    plat_setenv("JEVMON_REGISTRY_SYSTEM", NULL);
}

START_TEST(defaults_without_settings)
{
    jp_config c;
    jp_config_load(&c);
    ck_assert_str_eq(c.output_dir, ".");
    ck_assert_int_eq(c.mode, JP_MODE_SAMPLE);
    ck_assert_uint_eq(c.interval_ms, 10);
    ck_assert_uint_eq(c.top, 20);
    ck_assert_uint_eq(c.loop_seconds, 0); /* no periods */
    ck_assert_uint_eq(c.exceptions, 0);   /* not counted: they would cost every throw a deoptimization */
    ck_assert_int_eq(tk_log_count, 0);
}
END_TEST

START_TEST(registry_values_then_environment_over_them)
{
    jp_config c;
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKLM, JP_CONFIG_KEY, "OutputDir", "from-registry"), PLAT_REG_OK);
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKLM, JP_CONFIG_KEY, "Mode", "calls"), PLAT_REG_OK);
    ck_assert_int_eq(plat_reg_set_dword(PLAT_HKLM, JP_CONFIG_KEY, "IntervalMs", 5), PLAT_REG_OK);
    ck_assert_int_eq(plat_reg_set_dword(PLAT_HKLM, JP_CONFIG_KEY, "TopN", 7), PLAT_REG_OK);
    jp_config_load(&c);
    ck_assert_str_eq(c.output_dir, "from-registry");
    ck_assert_int_eq(c.mode, JP_MODE_CALLS);
    ck_assert_uint_eq(c.interval_ms, 5);
    ck_assert_uint_eq(c.top, 7);
    plat_setenv("JEVPROF_OUTPUT_DIR", "from-env");
    plat_setenv("JEVPROF_MODE", "both");
    plat_setenv("JEVPROF_INTERVAL_MS", "1");
    plat_setenv("JEVPROF_TOP", "1000");
    plat_setenv("JEVPROF_LOOP", "60");
    plat_setenv("JEVPROF_EXCEPTIONS", "1");
    jp_config_load(&c);
    ck_assert_str_eq(c.output_dir, "from-env");
    ck_assert_int_eq(c.mode, JP_MODE_BOTH);
    ck_assert_uint_eq(c.interval_ms, 1);
    ck_assert_uint_eq(c.top, 1000);
    ck_assert_uint_eq(c.loop_seconds, 60);
    ck_assert_uint_eq(c.exceptions, 1);
    ck_assert_int_eq(tk_log_count, 0);
}
END_TEST

static const struct bad_value {
    const char *variable, *value, *reason;
} bad_values[] = {
    {"JEVPROF_MODE", "fast",
     "JEVPROF_MODE \"fast\" is not cpu, wall, calls, both (cpu and calls), alloc, lock or a list of them (\"cpu,alloc\"; "
     "sample is cpu's old name); using the default, cpu"},
    {"JEVPROF_MODE", "", "JEVPROF_MODE \"\" is not cpu, wall, calls, both (cpu and calls), alloc, lock or a list of them"},
    {"JEVPROF_MODE", "sample,", "JEVPROF_MODE \"sample,\" is not cpu"},
    {"JEVPROF_MODE", "sample,,alloc", "JEVPROF_MODE \"sample,,alloc\" is not cpu"},
    {"JEVPROF_MODE", "sample alloc", "JEVPROF_MODE \"sample alloc\" is not cpu"},
    {"JEVPROF_MODE", "alloc,heap", "JEVPROF_MODE \"alloc,heap\" is not cpu"},
    {"JEVPROF_INTERVAL_MS", "0", "JEVPROF_INTERVAL_MS \"0\" is out of range (1 to 60000 milliseconds); using the default, 10"},
    {"JEVPROF_INTERVAL_MS", "0.5", "JEVPROF_INTERVAL_MS \"0.5\" is not a whole number"},
    {"JEVPROF_INTERVAL_MS", "-3", "JEVPROF_INTERVAL_MS \"-3\" is not a whole number"},
    {"JEVPROF_INTERVAL_MS", "10ms", "JEVPROF_INTERVAL_MS \"10ms\" has extra characters after the number"},
    {"JEVPROF_INTERVAL_MS", "99999999999999999999", "is out of range"},
    {"JEVPROF_TOP", "0", "JEVPROF_TOP \"0\" is out of range (1 to 1000); using the default, 20"},
    {"JEVPROF_TOP", "many", "JEVPROF_TOP \"many\" is not a whole number"},
    {"JEVPROF_OUTPUT_DIR", "", "JEVPROF_OUTPUT_DIR is empty; using the default, \".\""},
    {"JEVPROF_FILE_PREFIX", "out/run", "JEVPROF_FILE_PREFIX \"out/run\" is not a file name (it has /, \\ or :); "
                                       "using the default, \"jevprof\""},
    {"JEVPROF_FILE_PREFIX", "", "JEVPROF_FILE_PREFIX \"\" is empty"},
    {"JEVPROF_TIME", "user", "JEVPROF_TIME \"user\" is not cpu or wall; using the default, cpu"},
    {"JEVPROF_MIN_SHARE", "1%", "JEVPROF_MIN_SHARE \"1%\" is not a percent from 0 to 100 (such as 0.01); "
                                "using the default, 0.01"},
    {"JEVPROF_MIN_SHARE", "101", "JEVPROF_MIN_SHARE \"101\" is not a percent"},
    {"JEVPROF_LOOP", "86401", "JEVPROF_LOOP \"86401\" is out of range (0 to 86400 seconds); using the default, 0"},
    {"JEVPROF_LOOP", "1m", "JEVPROF_LOOP \"1m\" has extra characters after the number"},
    {"JEVPROF_EXCEPTIONS", "2", "JEVPROF_EXCEPTIONS \"2\" is out of range (0 to 1); using the default, 0"},
};

START_TEST(bad_value_is_one_line_and_the_default)
{
    const struct bad_value *bad = &bad_values[_i];
    jp_config c;
    /* a good registry value is overridden by the bad variable, which falls back to the default */
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKLM, JP_CONFIG_KEY, "Mode", "both"), PLAT_REG_OK);
    ck_assert_int_eq(plat_reg_set_dword(PLAT_HKLM, JP_CONFIG_KEY, "IntervalMs", 3), PLAT_REG_OK);
    ck_assert_int_eq(plat_reg_set_dword(PLAT_HKLM, JP_CONFIG_KEY, "TopN", 3), PLAT_REG_OK);
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKLM, JP_CONFIG_KEY, "OutputDir", "out"), PLAT_REG_OK);
    plat_setenv(bad->variable, bad->value);
    jp_config_load(&c);
    ck_assert_int_eq(tk_log_count, 1);
    ck_assert_msg(strncmp(tk_log_lines[0], "jevmon: jevprof: ", 17) == 0, "%s", tk_log_lines[0]);
    ck_assert_msg(strstr(tk_log_lines[0], bad->reason) != NULL, "%s", tk_log_lines[0]);
    /* the report's copy: the same line, less "jevmon: jevprof: " */
    ck_assert_msg(strncmp(c.problems, tk_log_lines[0] + 17, strlen(tk_log_lines[0] + 17)) == 0 &&
                      strcmp(c.problems + strlen(tk_log_lines[0] + 17), "\n") == 0, "%s", c.problems);
    jp_config defaults;
    jp_config_defaults(&defaults);
    if (strcmp(bad->variable, "JEVPROF_MODE") == 0)
        ck_assert_int_eq(c.mode, defaults.mode);
    else if (strcmp(bad->variable, "JEVPROF_INTERVAL_MS") == 0)
        ck_assert_uint_eq(c.interval_ms, defaults.interval_ms);
    else if (strcmp(bad->variable, "JEVPROF_TOP") == 0)
        ck_assert_uint_eq(c.top, defaults.top);
    else if (strcmp(bad->variable, "JEVPROF_LOOP") == 0)
        ck_assert_uint_eq(c.loop_seconds, defaults.loop_seconds);
    else if (strcmp(bad->variable, "JEVPROF_EXCEPTIONS") == 0)
        ck_assert_uint_eq(c.exceptions, defaults.exceptions);
    else if (strcmp(bad->variable, "JEVPROF_FILE_PREFIX") == 0)
        ck_assert_str_eq(c.file_prefix, defaults.file_prefix);
    else if (strcmp(bad->variable, "JEVPROF_TIME") == 0)
        ck_assert_int_eq(c.wall_time, defaults.wall_time);
    else if (strcmp(bad->variable, "JEVPROF_MIN_SHARE") == 0)
        ck_assert(c.min_share == defaults.min_share);
    else
        ck_assert_str_eq(c.output_dir, defaults.output_dir);
}
END_TEST

/* The calls' clock and the folding share, as a user writes them. */
START_TEST(time_and_min_share_settings)
{
    jp_config c;
    jp_config_load(&c);
    ck_assert_int_eq(c.wall_time, 0); /* processor time by default */
    /* The cast rounds the literal to a double as the stored setting was: where floating point is
     * evaluated in x87 extended precision (FLT_EVAL_METHOD 2, MinGW on x86), 0.01 alone is a long
     * double that no double equals.  0.5 and 0 below are exact in binary either way. */
    ck_assert(c.min_share == (double)0.01);
    plat_setenv("JEVPROF_TIME", "wall");
    plat_setenv("JEVPROF_MIN_SHARE", "0.5");
    jp_config_load(&c);
    ck_assert_int_eq(c.wall_time, 1);
    ck_assert(c.min_share == 0.5);
    plat_setenv("JEVPROF_MIN_SHARE", "0");
    jp_config_load(&c);
    ck_assert(c.min_share == 0);
    ck_assert_int_eq(tk_log_count, 0);
}
END_TEST

/* %p and %t (async-profiler's) in the directory and the prefix; %% is a percent sign. */
START_TEST(patterns_name_the_process_and_the_start)
{
    jp_config c;
    plat_setenv("JEVPROF_OUTPUT_DIR", "profiles/%p");
    plat_setenv("JEVPROF_FILE_PREFIX", "run-%t-%p-100%%");
    jp_config_load(&c);
    ck_assert_str_eq(c.output_dir, "profiles/%p"); /* kept until recording starts */
    struct tm when = {.tm_year = 126, .tm_mon = 10, .tm_mday = 25, .tm_hour = 9, .tm_min = 8, .tm_sec = 7,
                      .tm_isdst = -1};
    jp_config_expand(&c, 4242, mktime(&when));
    ck_assert_str_eq(c.output_dir, "profiles/4242");
    ck_assert_str_eq(c.file_prefix, "run-20261125-090807-4242-100%");
    ck_assert_int_eq(tk_log_count, 0);
    ck_assert_str_eq(c.problems, "");
}
END_TEST

START_TEST(registry_values_of_the_wrong_type_or_range)
{
    jp_config c;
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKLM, JP_CONFIG_KEY, "IntervalMs", "5"), PLAT_REG_OK);
    ck_assert_int_eq(plat_reg_set_dword(PLAT_HKLM, JP_CONFIG_KEY, "TopN", 5000), PLAT_REG_OK);
    jp_config_load(&c);
    ck_assert_int_eq(tk_log_count, 2);
    ck_assert_ptr_nonnull(strstr(tk_log_lines[0], "registry value IntervalMs of HKLM\\Software\\Microsoft\\Java VM\\Monitors\\jevprof is not a DWORD; ignored"));
    ck_assert_ptr_nonnull(strstr(tk_log_lines[1], "registry value TopN of HKLM\\Software\\Microsoft\\Java VM\\Monitors\\jevprof \"5000\" is out of range"));
    ck_assert_uint_eq(c.interval_ms, 10);
    ck_assert_uint_eq(c.top, 20);
}
END_TEST

START_TEST(mode_names)
{
    ck_assert_str_eq(jp_mode_name(JP_MODE_SAMPLE), "cpu");
    ck_assert_str_eq(jp_mode_name(JP_MODE_SAMPLE | JP_MODE_WALL), "wall");
    ck_assert_str_eq(jp_mode_name(JP_MODE_SAMPLE | JP_MODE_WALL | JP_MODE_CALLS | JP_MODE_ALLOC), "wall,calls,alloc");
    ck_assert_str_eq(jp_mode_name(JP_MODE_CALLS), "calls");
    ck_assert_str_eq(jp_mode_name(JP_MODE_BOTH), "both");
    ck_assert_str_eq(jp_mode_name(JP_MODE_ALLOC), "alloc");
    ck_assert_str_eq(jp_mode_name(JP_MODE_SAMPLE | JP_MODE_ALLOC), "cpu,alloc");
    ck_assert_str_eq(jp_mode_name(JP_MODE_ALL), "both,alloc");
    ck_assert_str_eq(jp_mode_name(JP_MODE_LOCK), "lock");
    ck_assert_str_eq(jp_mode_name(JP_MODE_SAMPLE | JP_MODE_LOCK), "cpu,lock");
    ck_assert_str_eq(jp_mode_name(JP_MODE_SAMPLE | JP_MODE_WALL | JP_MODE_ALLOC | JP_MODE_LOCK), "wall,alloc,lock");
}
END_TEST

/* The lock threshold: nanoseconds, or a unit after the number; anything else is the default, 0. */
START_TEST(lock_threshold_takes_a_duration)
{
    static const struct { const char *text; unsigned long long ns; } cases[] = {
        {"0", 0}, {"250", 250}, {"250ns", 250}, {"100us", 100000}, {"10ms", 10000000}, {"2s", 2000000000},
        {"3600s", 3600000000000ull}, {"3601s", 0}, {"10m", 0}, {"ms", 0}, {"-1", 0}, {"1.5ms", 0}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        jp_config c;
        char text[64];
        jp_config_defaults(&c);
        c.lock_threshold_ns = 7;
        snprintf(text, sizeof(text), "start lock=%s", cases[i].text);
        jp_config_parse(&c, text);
        ck_assert_msg(c.lock_threshold_ns == cases[i].ns, "lock=%s gave %llu", cases[i].text, c.lock_threshold_ns);
    }
}
END_TEST

/* A list's parts add up, in any order, repeated or not; each mode's name reads back as itself. */
static const struct mode_list {
    const char *text;
    jp_mode mode;
} mode_lists[] = {
    {"alloc", JP_MODE_ALLOC},
    {"cpu", JP_MODE_SAMPLE},
    {"sample", JP_MODE_SAMPLE}, /* cpu's old name */
    {"wall", JP_MODE_SAMPLE | JP_MODE_WALL},
    {"wall,calls", JP_MODE_SAMPLE | JP_MODE_WALL | JP_MODE_CALLS},
    {"cpu,alloc", JP_MODE_SAMPLE | JP_MODE_ALLOC},
    {"sample,alloc", JP_MODE_SAMPLE | JP_MODE_ALLOC},
    {"alloc,sample", JP_MODE_SAMPLE | JP_MODE_ALLOC},
    {"calls,alloc", JP_MODE_CALLS | JP_MODE_ALLOC},
    {"sample,calls", JP_MODE_BOTH},
    {"both,alloc", JP_MODE_ALL},
    {"sample,calls,alloc,sample", JP_MODE_ALL},
    {"lock", JP_MODE_LOCK},
    {"cpu,lock", JP_MODE_SAMPLE | JP_MODE_LOCK},
    {"lock,wall,alloc", JP_MODE_SAMPLE | JP_MODE_WALL | JP_MODE_ALLOC | JP_MODE_LOCK},
};

START_TEST(mode_lists_combine)
{
    jp_config c;
    plat_setenv("JEVPROF_MODE", mode_lists[_i].text);
    jp_config_load(&c);
    ck_assert_int_eq(tk_log_count, 0);
    ck_assert_int_eq(c.mode, mode_lists[_i].mode);
    plat_setenv("JEVPROF_MODE", jp_mode_name(c.mode));
    jp_config_load(&c);
    ck_assert_int_eq(c.mode, mode_lists[_i].mode);
}
END_TEST

/* The settings of the agent option command= (or of start after a stop), over the environment. */
START_TEST(settings_as_text_over_the_environment)
{
    jp_config c;
    plat_setenv("JEVPROF_MODE", "calls");
    plat_setenv("JEVPROF_TOP", "7");
    jp_config_load(&c);
    jp_config_parse(&c, "start mode=sample,alloc interval=5ms out=/tmp/o-%p duration=30 file=/tmp/p-%p.html "
                        "file=/tmp/p.pb.gz  file=/tmp/p.collapsed file=/tmp/p.report");
    ck_assert_int_eq(tk_log_count, 0);
    ck_assert_int_eq(c.mode, JP_MODE_SAMPLE | JP_MODE_ALLOC);
    ck_assert_uint_eq(c.interval_ms, 5);
    ck_assert_uint_eq(c.top, 7); /* the environment's, not given in the text */
    ck_assert_uint_eq(c.duration_seconds, 30);
    ck_assert_uint_eq(c.file_count, 4);
    ck_assert_int_eq(c.files[0].kind, JP_FILE_FLAME);
    ck_assert_int_eq(c.files[1].kind, JP_FILE_PPROF);
    ck_assert_int_eq(c.files[2].kind, JP_FILE_COLLAPSED);
    ck_assert_int_eq(c.files[3].kind, JP_FILE_REPORT);
    jp_config_expand(&c, 4242, 0);
    ck_assert_str_eq(c.output_dir, "/tmp/o-4242");
    ck_assert_str_eq(c.files[0].path, "/tmp/p-4242.html");
}
END_TEST

/* A backslash keeps a space (or a backslash) in a value: paths with spaces. */
START_TEST(escaped_spaces_stay_in_values)
{
    jp_config c;
    jp_config_load(&c);
    jp_config_parse(&c, "start out=/home/a\\ b/out\\\\x file=/tmp/my\\ profile.html top=3");
    ck_assert_int_eq(tk_log_count, 0);
    ck_assert_str_eq(c.output_dir, "/home/a b/out\\x");
    ck_assert_uint_eq(c.file_count, 1);
    ck_assert_str_eq(c.files[0].path, "/tmp/my profile.html");
    ck_assert_uint_eq(c.top, 3);
}
END_TEST

/* Each bad word: one line naming it, and the others are taken. */
START_TEST(bad_settings_in_text_are_named)
{
    jp_config c;
    jp_config_load(&c);
    jp_config_parse(&c, "start interval=5s bogus file=/tmp/p.svg flavour=x duration=7");
    ck_assert_int_eq(tk_log_count, 4);
    ck_assert_msg(strstr(tk_log_lines[0], "setting interval \"5s\" has extra characters"), "%s", tk_log_lines[0]);
    ck_assert_msg(strstr(tk_log_lines[1], "setting \"bogus\" is not name=value"), "%s", tk_log_lines[1]);
    ck_assert_msg(strstr(tk_log_lines[2], "setting file \"/tmp/p.svg\" has none of the extensions"), "%s",
                  tk_log_lines[2]);
    ck_assert_msg(strstr(tk_log_lines[3], "setting \"flavour=x\" is not name=value"), "%s", tk_log_lines[3]);
    ck_assert_uint_eq(c.interval_ms, JP_DEFAULT_INTERVAL_MS);
    ck_assert_uint_eq(c.file_count, 0);
    ck_assert_uint_eq(c.duration_seconds, 7);
}
END_TEST

/* Native frames, kernel frames and the JVM's own threads: on by default, off by name; a bad word
 * keeps them on. */
START_TEST(native_frames_and_threads_settings)
{
    jp_config c;
    jp_config_load(&c);
    ck_assert_int_eq(c.native_frames, 1);
    ck_assert_int_eq(c.kernel_frames, 1);
    ck_assert_int_eq(c.vm_threads, 1);
    plat_setenv("JEVPROF_CSTACK", "no");
    plat_setenv("JEVPROF_KSTACK", "no");
    jp_config_load(&c);
    ck_assert_int_eq(c.native_frames, 0);
    ck_assert_int_eq(c.kernel_frames, 0);
    ck_assert_int_eq(c.vm_threads, 1);
    jp_config_parse(&c, "start cstack=fp kstack=yes threads=java");
    ck_assert_int_eq(c.native_frames, 1);
    ck_assert_int_eq(c.kernel_frames, 1);
    ck_assert_int_eq(c.vm_threads, 0);
    ck_assert_int_eq(tk_log_count, 0);
    jp_config_parse(&c, "start cstack=dwarf kstack=no threads=all");
    ck_assert_int_eq(tk_log_count, 1);
    ck_assert_msg(strstr(tk_log_lines[0], "setting cstack \"dwarf\" is not fp or no; using the default, fp"), "%s",
                  tk_log_lines[0]);
    ck_assert_int_eq(c.native_frames, 1);
    ck_assert_int_eq(c.kernel_frames, 0);
    ck_assert_int_eq(c.vm_threads, 1);
    jp_config_parse(&c, "start kstack=fp");
    ck_assert_int_eq(tk_log_count, 2);
    ck_assert_msg(strstr(tk_log_lines[1], "setting kstack \"fp\" is not yes or no; using the default, yes"), "%s",
                  tk_log_lines[1]);
    ck_assert_int_eq(c.kernel_frames, 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("jevprof_config");
    TCase *tc = tcase_create("config");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, defaults_without_settings);
    tcase_add_test(tc, registry_values_then_environment_over_them);
    tcase_add_loop_test(tc, bad_value_is_one_line_and_the_default, 0, (int)(sizeof(bad_values) / sizeof(*bad_values)));
    tcase_add_test(tc, registry_values_of_the_wrong_type_or_range);
    tcase_add_test(tc, patterns_name_the_process_and_the_start);
    tcase_add_test(tc, time_and_min_share_settings);
    tcase_add_test(tc, mode_names);
    tcase_add_test(tc, lock_threshold_takes_a_duration);
    tcase_add_loop_test(tc, mode_lists_combine, 0, (int)(sizeof(mode_lists) / sizeof(*mode_lists)));
    tcase_add_test(tc, settings_as_text_over_the_environment);
    tcase_add_test(tc, bad_settings_in_text_are_named);
    tcase_add_test(tc, native_frames_and_threads_settings);
    tcase_add_test(tc, escaped_spaces_stay_in_values);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
