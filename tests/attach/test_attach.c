/*
 * test_attach.c - the bridge loaded into a running JVM (every JDK under /usr/lib/jvm), with that
 * JDK's jcmd: `jcmd <pid> JVMTI.agent_load libjevmon.so <options>`.  AttachWorkload waits on its
 * standard input; the fx_attach monitor counts and takes commands.
 *
 *   - attached with the monitor named in the options: Initialize, MONITORS_INITIALIZED,
 *     INITIALIZED, then THREAD_CREATE for the threads already running (the one calling
 *     attachWork among them) and JIT_COMPILE_FINISHED for code compiled before; calls made
 *     after the attach counted exactly (instrumented); the program's own output unchanged; the
 *     capabilities a late agent lacks named one line each; a second load is a command, not a
 *     second bridge.
 *   - attached with methods=jvmti, or with a monitor that did not promise what instrumentation
 *     needs: HotSpot grants no method events to a late agent: one line each for the two
 *     capabilities, METHOD_CALLS masked off in one line, no calls delivered.
 *   - a load that starts nothing (monitors disabled, or none to load) returns 1 or 2, and a
 *     later load starts the bridge afresh.
 *   - started with the agent (both method-call paths): loads into it are commands; counts
 *     exact; answers on stdout prefixed, the outcome in jcmd's "return code".
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/testkit.h"
#include "attach_run.h"

#define FX_ATTACH "{D90F8947-5159-428E-9FA8-E9A83B220B7C}"

static char jdks[JVMRUN_MAX_JDKS][512];

START_TEST(attached_monitor_sees_live_threads_and_exact_calls)
{
    const char *env[] = {"FXATTACH_REQUEST=106", NULL}; /* METHOD_CALLS | THREADS | JIT_COMPILATION */
    jvmrun_process p;
    jvmrun_result r;
    start_waiting(&p, jdks[_i], NULL, env);
    double t0 = now();
    ck_assert_int_eq(jcmd_load(jdks[_i], p.pid, "\"enable,monitors=" FX_ATTACH "\""), 0);
    printf("%s: attached in %.0f ms\n", jdks[_i], (now() - t0) * 1000);
    ck_assert_int_eq(jcmd_load(jdks[_i], p.pid, "counts"), 0); /* the second load: a command */
    work(&p, "work 1000", "done 1000 ");
    work(&p, "work 500", "done 500 ");
    ck_assert_int_eq(jcmd_load(jdks[_i], p.pid, "counts"), 0);
    jvmrun_send(&p, "quit");
    jvmrun_finish(&p, &r);

    ck_assert_msg(r.exit_code == 0, "exit %d, stderr:\n%s", r.exit_code, r.err);
    const char *order[] = {"attach Initialize class=AttachWorkload", "attach MONITORS_INITIALIZED 1",
                           "attach INITIALIZED", "attach THREAD_CREATE", "attach Command counts",
                           "attach Command counts", "attach SHUTDOWN counts entries=1500 exits=1500 unannounced=0"};
    assert_in_order(r.log, order, sizeof(order) / sizeof(*order));
    ck_assert_int_eq(tk_count(r.log, "Initialize"), 1);
    const char *first = strstr(r.out, "jevmon: counts entries=0 exits=0 unannounced=0 threads=");
    long threads = 0, compiled = 0;
    ck_assert_msg(first && sscanf(first, "jevmon: counts entries=0 exits=0 unannounced=0 threads=%ld compiled=%ld",
                                  &threads, &compiled) == 2, "stdout:\n%s", r.out);
    printf("%s: at the attach %ld threads announced, %ld compiled methods replayed\n", jdks[_i], threads, compiled);
    ck_assert_int_ge(threads, 5); /* main, attach-sleeper, the Attach Listener and the JDK's own daemons */
    ck_assert_int_gt(compiled, 0);
    ck_assert_msg(strstr(r.out, "jevmon: counts entries=1500 exits=1500 unannounced=0 threads="), "stdout:\n%s", r.out);
    char *own = own_output(r.out);
    ck_assert_str_eq(own, "ready\ndone 1000 1000000\ndone 500 250000\n");
    free(own);
    ck_assert_int_eq(tk_count(r.err, "jevmon: method calls via bytecode instrumentation"), 1);
    /* HotSpot grants breakpoints only at start-up, but THREADS needs none where classes can be
     * retransformed, as they can after an attach: Thread.setName is rewritten (instrument/watch.h). */
    ck_assert_msg(!strstr(r.err, "jevmon: can_generate_breakpoint_events") && !strstr(r.err, "could not rewrite") &&
                      !strstr(r.err, "refused to turn JVMTI event") && !strstr(r.err, "could not watch Thread.setName"),
                  "stderr:\n%s", r.err);
    jvmrun_free(&r);
}
END_TEST

START_TEST(loads_that_start_nothing_leave_nothing_behind)
{
    jvmrun_process p;
    jvmrun_result r;
    start_waiting(&p, jdks[_i], NULL, NULL);
    ck_assert_int_eq(jcmd_load(jdks[_i], p.pid, "disable"), 1);
    ck_assert_int_eq(jcmd_load(jdks[_i], p.pid, "enable"), 2); /* no monitor anywhere */
    ck_assert_int_eq(jcmd_load(jdks[_i], p.pid, "\"enable,monitors=" FX_ATTACH "\""), 0);
    ck_assert_int_eq(jcmd_load(jdks[_i], p.pid, "counts"), 0);
    jvmrun_send(&p, "quit");
    jvmrun_finish(&p, &r);

    ck_assert_msg(r.exit_code == 0, "exit %d, stderr:\n%s", r.exit_code, r.err);
    ck_assert_int_eq(tk_count(r.err, "event monitors are not enabled (agent option disable)"), 1);
    ck_assert_int_eq(tk_count(r.err, "no monitor runs; nothing started"), 1);
    ck_assert_int_eq(tk_count(r.log, "Initialize"), 1);
    ck_assert_int_eq(tk_count(r.out, "jevmon: counts entries=0"), 1);
    jvmrun_free(&r);
}
END_TEST

/* Attached without instrumentation: by the option, or because the monitor made no promises. */
static const struct {
    const char *options, *env, *masked;
} no_instrumentation[] = {
    {"\"enable,methods=jvmti,monitors=" FX_ATTACH "\"", NULL,
     "requested event categories 0x2 that this bridge cannot deliver here; masked off"},
    {"\"enable,monitors=" FX_ATTACH "\"", "FXATTACH_OPTIONS=0",
     "event categories 0x2 cannot be delivered with the capabilities this JVM granted; masked off"},
};

START_TEST(attached_jvmti_path_has_no_method_events)
{
    const char *jdk = jdks[_i / 2];
    const char *env[] = {no_instrumentation[_i % 2].env, NULL};
    jvmrun_process p;
    jvmrun_result r;
    start_waiting(&p, jdk, NULL, env);
    ck_assert_int_eq(jcmd_load(jdk, p.pid, no_instrumentation[_i % 2].options), 0);
    work(&p, "work 100", "done 100 ");
    jvmrun_send(&p, "quit");
    jvmrun_finish(&p, &r);

    ck_assert_msg(r.exit_code == 0, "exit %d, stderr:\n%s", r.exit_code, r.err);
    ck_assert_msg(strstr(r.log, "attach SHUTDOWN counts entries=0 exits=0 unannounced=0"), "log:\n%s", r.log);
    ck_assert_int_eq(tk_count(r.err, no_instrumentation[_i % 2].masked), 1);
    ck_assert_int_eq(tk_count(r.err, "masked off"), 1);
    ck_assert_int_eq(tk_count(r.err, "can_generate_method_entry_events: HotSpot grants it only"), 1);
    ck_assert_int_eq(tk_count(r.err, "can_generate_method_exit_events: HotSpot grants it only"), 1);
    ck_assert_int_eq(tk_count(r.err, "method calls via"), 0);
    jvmrun_free(&r);
}
END_TEST

/* A JVM started with the agent: every load into it is a command, on both method-call paths. */
static const char *const start_options[] = {"methods=auto", "methods=jvmti"};

START_TEST(loads_into_a_bridge_started_with_the_jvm_are_commands)
{
    const char *jdk = jdks[_i / 2], *options = start_options[_i % 2];
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX_ATTACH, NULL};
    jvmrun_process p;
    jvmrun_result r;
    start_waiting(&p, jdk, options, env);
    work(&p, "work 300", "done 300 ");
    ck_assert_int_eq(jcmd_load(jdk, p.pid, "counts"), 0);
    ck_assert_int_eq(jcmd_load(jdk, p.pid, "lines"), 0);
    ck_assert_int_eq(jcmd_load(jdk, p.pid, "not-its-command"), 3);
    ck_assert_int_eq(jcmd_load(jdk, p.pid, "fail"), 4);
    ck_assert_int_eq(jcmd_load(jdk, p.pid, ""), 3);
    work(&p, "work 700", "done 700 ");
    ck_assert_int_eq(jcmd_load(jdk, p.pid, "counts"), 0);
    jvmrun_send(&p, "quit");
    jvmrun_finish(&p, &r);

    ck_assert_msg(r.exit_code == 0, "exit %d, stderr:\n%s", r.exit_code, r.err);
    const char *answers[] = {"jevmon: counts entries=300 exits=300 unannounced=0", "jevmon: first line\njevmon: second line\n",
                             "jevmon: failing as asked\n", "jevmon: counts entries=1000 exits=1000 unannounced=0"};
    assert_in_order(r.out, answers, sizeof(answers) / sizeof(*answers));
    char *own = own_output(r.out);
    ck_assert_str_eq(own, "ready\ndone 300 90000\ndone 700 490000\n");
    free(own);
    ck_assert_int_eq(tk_count(r.log, "Initialize"), 1);
    ck_assert_int_eq(tk_count(r.err, "method calls via"), 1);
    ck_assert_int_eq(tk_count(r.err, "HotSpot grants it only"), 0);
    ck_assert_int_eq(tk_count(r.err, "jevmon: no monitor takes the command \"not-its-command\" (1 of 1 running "
                                     "monitors take commands)"), 1);
    ck_assert_int_eq(tk_count(r.err, "command \"fail\" failed (hr=0x80004005)"), 1);
    ck_assert_int_eq(tk_count(r.err, "and this load gave none"), 1);
    jvmrun_free(&r);
}
END_TEST

static void add_tests(TCase *tc, int jdk_count)
{
    tcase_add_loop_test(tc, attached_monitor_sees_live_threads_and_exact_calls, 0, jdk_count);
    tcase_add_loop_test(tc, loads_that_start_nothing_leave_nothing_behind, 0, jdk_count);
    tcase_add_loop_test(tc, attached_jvmti_path_has_no_method_events, 0, 2 * jdk_count);
    tcase_add_loop_test(tc, loads_into_a_bridge_started_with_the_jvm_are_commands, 0, 2 * jdk_count);
}

int main(void)
{
    return attach_suite_main("attach", jdks, add_tests);
}
