/*
 * test_samples.c - the sample monitors end to end: samples/logmon and samples/callcount,
 * registered the two ways a user registers them on Linux (jevmon-regsvr, or the COM class
 * key plus the repository's registry/ .reg files), profile SampleWorkload on every JDK under
 * /usr/lib/jvm; the tests read what the samples wrote and compare the program's output
 * with a run without the agent.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "samples/samplerun.h"
#include "../support/testkit.h"
#include "support/jvmrun.h"

#define LOGMON_CLSID "{292AB596-1B36-4388-8086-C8283FA88105}"
#define CALLCOUNT_CLSID "{0A2F6C9B-77EC-4D2A-8084-DCAFBC265070}"
#define FIB_NAME "SampleWorkload.fib(I)I"

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

/* How many calls of fib SampleWorkload's fib(n) makes: the same recursion, counted. */
static long fib_calls(int n)
{
    return n < 2 ? 1 : 1 + fib_calls(n - 1) + fib_calls(n - 2);
}

/* Number of lines of text that contain both a and b. */
static int lines_with(const char *text, const char *a, const char *b)
{
    int n = 0;
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char *copy = strndup(line, len);
        n += strstr(copy, a) && strstr(copy, b);
        free(copy);
        line = end ? end + 1 : NULL;
    }
    return n;
}

/* The program's output without the agent, to compare a profiled run's with. */
static char *plain_output(const char *jdk, const char *const *args)
{
    samplerun s;
    samplerun_result r;
    samplerun_begin(&s);
    samplerun_java(&s, jdk, 0, NULL, args, &r);
    ck_assert_int_eq(r.exit_code, 0);
    char *out = strdup(r.out);
    samplerun_free(&r);
    samplerun_end(&s);
    return out;
}

/* A profiled run: exits 0, prints what the program prints alone, and the agent has nothing to complain about. */
static void check_unchanged(const char *jdk, const char *const *args, const samplerun_result *r)
{
    char *plain = plain_output(jdk, args);
    ck_assert_msg(r->exit_code == 0, "exit %d: %s", r->exit_code, r->err);
    ck_assert_str_eq(r->out, plain);
    /* nothing but the line naming the method-call mechanism */
    ck_assert_msg(tk_count(r->err, "jevmon:") == tk_count(r->err, "jevmon: method calls via "), "%s", r->err);
    free(plain);
}

/* ---- logmon ------------------------------------------------------------------------------- */

/* A thread that the log shows both created and destroyed (SampleWorkload's worker, at least). */
static int threads_created_and_destroyed(const char *log)
{
    static const char created[] = "NotifyEvent JVM_EVENT_TYPE_THREAD_CREATE thread=";
    int both = 0;
    for (const char *p = log; (p = strstr(p, created)); p += sizeof(created) - 1) {
        char id[64], destroyed[128];
        if (sscanf(p + sizeof(created) - 1, "%63s", id) != 1)
            continue;
        snprintf(destroyed, sizeof(destroyed), "NotifyEvent JVM_EVENT_TYPE_THREAD_DESTROY thread=%s ", id);
        both += strstr(log, destroyed) != NULL;
    }
    return both;
}

START_TEST(logmon_registered_by_reg_files_logs_classes_threads_gc_exceptions_shutdown)
{
    const char *args[] = {NULL};
    samplerun s;
    samplerun_result r;
    samplerun_begin(&s);
    samplerun_register_class(&s, LOGMON_CLSID, "logmon");
    samplerun_add_reg_file(&s, "registry/logmon.reg");
    samplerun_java(&s, jdks[_i], 1, NULL, args, &r);
    check_unchanged(jdks[_i], args, &r);
    const char *log = r.logmon;

    ck_assert_msg(lines_with(log, "Initialize class=SampleWorkload", "requested_events=0x1a5") == 1, "%s", log);
    ck_assert_int_eq(lines_with(log, "GetPossibleEventCategories", "0x1a5"), 1);
    ck_assert_int_eq(lines_with(log, "NotifyEvent2 JVM_EVENT_TYPE2_MONITORS_INITIALIZED", "monitors=1"), 1);
    /* Class loads: the name while loading, the resolved ClassID once loaded. */
    ck_assert_int_eq(lines_with(log, "JVM_EVENT_TYPE_CLASS_LOAD_STARTED", "name=SampleWorkload$LoadedByWorkload"), 1);
    ck_assert_int_eq(lines_with(log, "JVM_EVENT_TYPE_CLASS_LOAD_FINISHED",
                                " SampleWorkload$LoadedByWorkload (SampleWorkload.java, "), 1);
    ck_assert_int_eq(lines_with(log, "JVM_EVENT_TYPE_CLASS_LOAD_FINISHED", " ?"), 0);
    /* Threads, resolved to their system thread. */
    ck_assert_int_ge(threads_created_and_destroyed(log), 1);
    ck_assert_int_eq(lines_with(log, "JVM_EVENT_TYPE_THREAD_CREATE", "win32 thread "),
                     lines_with(log, "JVM_EVENT_TYPE_THREAD_CREATE", "thread="));
    /* System.gc() */
    ck_assert_int_ge(lines_with(log, "NotifyEvent JVM_EVENT_TYPE_GC_STARTED", ""), 1);
    ck_assert_int_ge(lines_with(log, "NotifyEvent JVM_EVENT_TYPE_GC_FINISHED", ""), 1);
    /* The exception, thrown and caught, with its class. */
    ck_assert_int_ge(lines_with(log, "JVM_EVENT_TYPE2_EXCEPTION_THROWN", " java.lang.IllegalStateException ("), 1);
    ck_assert_int_ge(lines_with(log, "JVM_EVENT_TYPE2_EXCEPTION_OCCURRED", " java.lang.IllegalStateException ("), 1);
    /* The end: SHUTDOWN once, then the VM's last Release. */
    ck_assert_int_eq(lines_with(log, "NotifyEvent JVM_EVENT_TYPE_SHUTDOWN", ""), 1);
    ck_assert_int_eq(lines_with(log, "Release: last reference", ""), 1);
    ck_assert_ptr_nonnull(strstr(strstr(log, "JVM_EVENT_TYPE_SHUTDOWN"), "Release: last reference"));
    samplerun_free(&r);
    samplerun_end(&s);
}
END_TEST

START_TEST(logmon_self_registered_logs_every_method_call_by_name)
{
    const char *args[] = {"12", NULL};
    const char *env[] = {"LOGMON_EVENTS=2", NULL};
    char expected[64];
    samplerun s;
    samplerun_result r;
    samplerun_begin(&s);
    ck_assert_int_eq(samplerun_regsvr(&s, "logmon"), 0);
    char *reg = samplerun_system_reg(&s);
    ck_assert_msg(strstr(reg, "\\Java VM\\Monitors\\logmon]") && strstr(reg, "\"CLSID\"=\"" LOGMON_CLSID "\"") &&
                      strstr(reg, samplerun_sample_path("logmon")),
                  "%s", reg);
    free(reg);

    samplerun_java(&s, jdks[_i], 1, env, args, &r);
    check_unchanged(jdks[_i], args, &r);
    ck_assert_msg(lines_with(r.logmon, "Initialize class=SampleWorkload", "requested_events=0x2") == 1, "%s",
                  r.err);
    snprintf(expected, sizeof(expected), " %s stack=", FIB_NAME);
    ck_assert_int_eq(lines_with(r.logmon, "MethodEntry method=", expected), (int)fib_calls(12));
    ck_assert_int_gt(lines_with(r.logmon, "MethodExit2 method=", ""), 0);
    ck_assert_int_eq(lines_with(r.logmon, "MethodEntry method=", " ? stack="), 0);
    samplerun_free(&r);
    samplerun_end(&s);
}
END_TEST

START_TEST(logmon_takes_its_categories_from_its_registry_key)
{
    const char *args[] = {NULL};
    samplerun s;
    samplerun_result r;
    samplerun_begin(&s);
    samplerun_register_class(&s, LOGMON_CLSID, "logmon");
    samplerun_add_reg_file(&s, "registry/logmon.reg");
    samplerun_write_reg_file(&s, "events.reg",
                             "Windows Registry Editor Version 5.00\n\n"
                             "[HKEY_LOCAL_MACHINE\\Software\\Microsoft\\Java VM\\Monitors\\logmon]\n"
                             "\"Events\"=dword:00000100\n");
    samplerun_java(&s, jdks[_i], 1, NULL, args, &r);
    check_unchanged(jdks[_i], args, &r);
    ck_assert_msg(lines_with(r.logmon, "Initialize class=SampleWorkload", "requested_events=0x100") == 1, "%s",
                  r.logmon);
    ck_assert_int_ge(threads_created_and_destroyed(r.logmon), 1);
    ck_assert_int_eq(lines_with(r.logmon, "JVM_EVENT_TYPE_CLASS_LOAD", ""), 0);
    ck_assert_int_eq(lines_with(r.logmon, "JVM_EVENT_TYPE_GC_", ""), 0);
    samplerun_free(&r);
    samplerun_end(&s);
}
END_TEST

/* ---- callcount ---------------------------------------------------------------------------- */

/* The counts file: a '#' line, then "count name" lines, most calls first. */
static void check_sorted(const char *counts)
{
    unsigned long long previous = ~0ULL, count;
    const char *line = strchr(counts, '\n');
    ck_assert_msg(counts[0] == '#' && line, "%s", counts);
    for (line++; *line; line = strchr(line, '\n') + 1) {
        ck_assert_msg(sscanf(line, "%llu ", &count) == 1, "%.80s", line);
        ck_assert_msg(count <= previous, "%.80s", line);
        previous = count;
    }
}

/* Runs SampleWorkload 15 [threads] and checks callcount's file: its options line and fib's
 * exact count (once on main, and once in each of threads more threads, whose counts the
 * monitor keeps apart and adds up at SHUTDOWN); with threads, also the calls of the class
 * copy the workload unloads.  mechanism: how the agent said it delivers method calls;
 * counted_class: CALLCOUNT_CLASS (the only class whose methods may be counted), or NULL. */
static void check_callcount_run(samplerun *s, const char *jdk, const char *options_line, const char *mechanism,
                                const char *counted_class, int threads)
{
    char threads_arg[16], fib_line[128], class_env[256];
    snprintf(threads_arg, sizeof(threads_arg), "%d", threads);
    const char *args[] = {"15", threads ? threads_arg : NULL, NULL};
    snprintf(class_env, sizeof(class_env), "CALLCOUNT_CLASS=%s", counted_class ? counted_class : "");
    const char *env[] = {class_env, NULL};
    samplerun_result r;
    samplerun_java(s, jdk, 1, env, args, &r);
    check_unchanged(jdk, args, &r);
    ck_assert_msg(strstr(r.err, mechanism), "expected \"%s\" in:\n%s", mechanism, r.err);
    ck_assert_msg(strncmp(r.callcount, options_line, strlen(options_line)) == 0, "%.200s", r.callcount);
    long fibs = (threads + 1) * fib_calls(15);
    snprintf(fib_line, sizeof(fib_line), "\n%ld %s\n", fibs, FIB_NAME);
    ck_assert_msg(strstr(r.callcount, fib_line), "no '%ld %s' in:\n%.2000s", fibs, FIB_NAME, r.callcount);
    ck_assert_int_eq(lines_with(r.callcount, " " FIB_NAME, ""), 1);
    if (threads)
        ck_assert_msg(strstr(r.callcount, "\n100 SampleWorkload$Unloadable.run()V\n"), "%.2000s", r.callcount);
    check_sorted(r.callcount);
    for (const char *line = strchr(r.callcount, '\n'); counted_class && line && line[1]; line = strchr(line + 1, '\n')) {
        const char *name = strchr(line + 1, ' ');
        ck_assert_msg(name && strncmp(name + 1, counted_class, strlen(counted_class)) == 0 &&
                          name[1 + strlen(counted_class)] == '.', "%.200s", line + 1);
    }
    samplerun_free(&r);
}

/* check_callcount_run with callcount registered by one of the registry/ files. */
static void check_callcount_from_reg_file(const char *jdk, const char *reg_file, const char *options_line,
                                          const char *mechanism, const char *counted_class, int threads)
{
    samplerun s;
    samplerun_begin(&s);
    samplerun_register_class(&s, CALLCOUNT_CLSID, "callcount");
    samplerun_add_reg_file(&s, reg_file);
    check_callcount_run(&s, jdk, options_line, mechanism, counted_class, threads);
    samplerun_end(&s);
}

START_TEST(callcount_counts_recursive_calls_exactly)
{
    check_callcount_from_reg_file(jdks[_i], "registry/callcount.reg", "# GetFinalInitializationOptions 0x00000000\n",
                                  "jevmon: method calls via JVMTI events\n", NULL, 0);
}
END_TEST

/* Counts kept per thread add up; the calls of a class that unloads keep their name. */
START_TEST(callcount_adds_up_threads_and_keeps_unloaded_classes)
{
    check_callcount_from_reg_file(jdks[_i], "registry/callcount.reg", "# GetFinalInitializationOptions 0x00000000\n",
                                  "jevmon: method calls via JVMTI events\n", NULL, 4);
}
END_TEST

START_TEST(callcount_fast_adds_up_threads_and_keeps_unloaded_classes)
{
    check_callcount_from_reg_file(jdks[_i], "registry/callcount-fast.reg",
                                  "# GetFinalInitializationOptions 0x0000003e\n",
                                  "jevmon: method calls via bytecode instrumentation\n", NULL, 4);
}
END_TEST

START_TEST(callcount_fast_gets_its_init_options_and_still_counts_exactly)
{
    check_callcount_from_reg_file(jdks[_i], "registry/callcount-fast.reg",
                                  "# GetFinalInitializationOptions 0x0000003e\n",
                                  "jevmon: method calls via bytecode instrumentation\n", NULL, 0);
}
END_TEST

/* CALLCOUNT_CLASS: SPECIFIC_METHOD_CALLS, instrumented: fib counted exactly, nothing outside its class. */
START_TEST(callcount_fast_counts_only_the_class_it_enables)
{
    check_callcount_from_reg_file(jdks[_i], "registry/callcount-fast.reg",
                                  "# GetFinalInitializationOptions 0x0000003e\n",
                                  "jevmon: method calls via bytecode instrumentation\n", "SampleWorkload", 0);
}
END_TEST

START_TEST(callcount_self_registered_counts_exactly)
{
    samplerun s;
    samplerun_begin(&s);
    ck_assert_int_eq(samplerun_regsvr(&s, "callcount"), 0);
    char *reg = samplerun_system_reg(&s);
    ck_assert_msg(strstr(reg, "\\Java VM\\Monitors\\callcount]") &&
                      strstr(reg, "\"CLSID\"=\"" CALLCOUNT_CLSID "\"") && !strstr(reg, "InitOptions"),
                  "%s", reg);
    free(reg);
    check_callcount_run(&s, jdks[_i], "# GetFinalInitializationOptions 0x00000000\n",
                        "jevmon: method calls via JVMTI events\n", NULL, 0);
    samplerun_end(&s);
}
END_TEST

int main(void)
{
    if (!(jdk_count = jvmrun_suite_jdks(jdks)))
        return EXIT_SUCCESS;
    Suite *s = suite_create("samples");
    TCase *tc = tcase_create("samples");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, logmon_registered_by_reg_files_logs_classes_threads_gc_exceptions_shutdown, 0, jdk_count);
    tcase_add_loop_test(tc, logmon_self_registered_logs_every_method_call_by_name, 0, jdk_count);
    tcase_add_loop_test(tc, logmon_takes_its_categories_from_its_registry_key, 0, jdk_count);
    tcase_add_loop_test(tc, callcount_counts_recursive_calls_exactly, 0, jdk_count);
    tcase_add_loop_test(tc, callcount_fast_gets_its_init_options_and_still_counts_exactly, 0, jdk_count);
    tcase_add_loop_test(tc, callcount_self_registered_counts_exactly, 0, jdk_count);
    tcase_add_loop_test(tc, callcount_fast_counts_only_the_class_it_enables, 0, jdk_count);
    tcase_add_loop_test(tc, callcount_adds_up_threads_and_keeps_unloaded_classes, 0, jdk_count);
    tcase_add_loop_test(tc, callcount_fast_adds_up_threads_and_keeps_unloaded_classes, 0, jdk_count);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
