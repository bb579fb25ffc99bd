/*
 * test_bridge.c - the bridge end to end, its events other than method calls: real JVMs (every
 * JDK under /usr/lib/jvm) run the BridgeWorkload programs under the agent with the test monitor,
 * whose log says what it received: a silent monitor, bad input, the execution state, class loads
 * and unloads, threads (over churn too), GC, JIT, and the exit waiting for callbacks in flight.
 * Method calls are test_bridge_calls.c's.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/testkit.h"
#include "bridge_run.h"
#include "platform/platform.h"

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

START_TEST(silent_monitor_changes_nothing)
{
    const char *args[] = {"recursion", "2", "5", NULL};
    jvmrun_result plain, profiled;
    jvmrun(jdks[_i], NULL, NULL, args, &plain);
    run_fx(jdks[_i], "0", args, &profiled);
    ck_assert_int_eq(plain.exit_code, 0);
    ck_assert_int_eq(profiled.exit_code, plain.exit_code);
    ck_assert_str_eq(profiled.out, plain.out);
    ck_assert_msg(jvmrun_count(profiled.log, "Initialize class=BridgeWorkload") == 1, "%s", profiled.log);
    ck_assert_int_eq(jvmrun_count(profiled.log, "NotifyEvent2 1030 0 0"), 1); /* INITIALIZED */
    ck_assert_int_eq(jvmrun_count(profiled.log, "NotifyEvent 13 0"), 1);      /* SHUTDOWN */
    ck_assert_int_eq(jvmrun_count(profiled.log, "Released"), 1);
    /* Nothing to complain about: the only line names the method-call mechanism. */
    ck_assert_msg(jvmrun_count(profiled.err, "jevmon: ") == 1 && strstr(profiled.err, VIA_JVMTI), "%s", profiled.err);
    jvmrun_free(&plain);
    jvmrun_free(&profiled);
}
END_TEST

START_TEST(class_loads_started_finished_failed)
{
    const char *args[] = {"classes", NULL};
    jvmrun_result r;
    run_fx(jdks[_i], "1", args, &r);
    ck_assert_int_eq(r.exit_code, 0);
    ck_assert_msg(strstr(r.log, "NotifyEvent 6 BridgeWorkload$LoadedLater"), "no CLASS_LOAD_STARTED");
    ck_assert_msg(strstr(r.log, "NotifyEvent 17 jevmon/test/NoSuchClass"), "no CLASS_LOAD_FAILED");
    ck_assert_int_gt(jvmrun_count(r.log, "NotifyEvent 7 "), 0);
    jvmrun_free(&r);
}
END_TEST

START_TEST(class_unload_reported_with_its_name)
{
    const char *args[] = {"unload", NULL};
    jvmrun_result r;
    run_fx(jdks[_i], "1", args, &r);
    ck_assert_int_eq(r.exit_code, 0);
    ck_assert_msg(strstr(r.log, "NotifyEvent 8 ") && strstr(r.log, "BridgeWorkload$Unloadable\n"),
                  "no CLASS_UNLOAD for the class of the dropped loader");
    /* Two FINISHED for the name (the app loader's copy may not load: at least the defined one). */
    const char *finished = strstr(r.log, "NotifyEvent 7 "), *unloaded = NULL;
    for (const char *p = r.log; (p = strstr(p, "NotifyEvent 8 ")); p++)
        if (strncmp(strchr(p + 14, ' ') + 1, "BridgeWorkload$Unloadable", 25) == 0)
            unloaded = p;
    ck_assert_ptr_nonnull(finished);
    ck_assert_ptr_nonnull(unloaded);
    /* The deliverer sleeps until a class unloads: it polled every 20 ms (50 wake-ups a second). */
    const char *idle = strstr(r.out, "jevmon unloads woke ");
    long woken = idle ? strtol(idle + strlen("jevmon unloads woke "), NULL, 10) : -1;
    ck_assert_msg(woken >= 0 && woken <= 5, "the unloads thread, idle for a second: %s", r.out);
    jvmrun_free(&r);
}
END_TEST

START_TEST(execution_state_flags_follow_the_jvm)
{
    const char *args[] = {"recursion", "1", "1", NULL};
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX, "JAVA_TOOL_OPTIONS=-Xint", NULL};
    jvmrun_result interpreted, mixed;
    jvmrun(jdks[_i], "", env, args, &interpreted);
    run_fx(jdks[_i], "0", args, &mixed);
    ck_assert_int_eq(interpreted.exit_code, 0);
    /* INTERPRETER | FAST_INTERPRETER, and JIT_COMPILER only where the JVM compiles. */
    ck_assert_msg(strstr(interpreted.log, "Initialize class=BridgeWorkload flags=0x3\n"), "%.300s", interpreted.log);
    ck_assert_msg(strstr(mixed.log, "Initialize class=BridgeWorkload flags=0x7\n"), "%.300s", mixed.log);
    jvmrun_free(&interpreted);
    jvmrun_free(&mixed);
}
END_TEST

/* Bad entries get their lines; the good monitor loads; the program runs as without the agent. */
START_TEST(bad_input_leaves_the_jvm_running)
{
    const char *args[] = {"recursion", "2", "3", NULL};
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1",
                         "MSJAVA_EVENT_MONITORS={not-a-clsid};" FX ";;{0B5E1F2A-96C4-4C1B-9C0E-3F1D2A4B5C6D}", NULL};
    jvmrun_result plain, r;
    jvmrun(jdks[_i], NULL, NULL, args, &plain);
    jvmrun(jdks[_i], "bogus-option", env, args, &r);
    ck_assert_int_eq(r.exit_code, 0);
    ck_assert_str_eq(r.out, plain.out);
    ck_assert_int_eq(jvmrun_count(r.err, "jevmon: "), 5);
    ck_assert_int_eq(jvmrun_count(r.err, VIA_JVMTI), 1);
    ck_assert_int_eq(jvmrun_count(r.err, "not a braced CLSID"), 1);
    ck_assert_int_eq(jvmrun_count(r.err, "entry 3 is empty"), 1);
    ck_assert_int_eq(jvmrun_count(r.err, "{0B5E1F2A-96C4-4C1B-9C0E-3F1D2A4B5C6D} could not be created"), 1);
    ck_assert_int_eq(jvmrun_count(r.err, "agent option \"bogus-option\" is unknown"), 1);
    ck_assert_int_eq(jvmrun_count(r.log, "Initialize class=BridgeWorkload"), 1);
    ck_assert_int_eq(jvmrun_count(r.log, "Released"), 1);
    jvmrun_free(&plain);
    jvmrun_free(&r);
}
END_TEST

START_TEST(threads_created_and_destroyed)
{
    const char *args[] = {"recursion", "3", "1", NULL};
    jvmrun_result r;
    run_fx(jdks[_i], "100", args, &r);
    ck_assert_int_eq(r.exit_code, 0);
    ck_assert_int_ge(jvmrun_count(r.log, "NotifyEvent 4 "), 3);
    ck_assert_int_ge(jvmrun_count(r.log, "NotifyEvent 5 "), 3);
    jvmrun_free(&r);
}
END_TEST

/*
 * Ended platform threads give their entries back (thread.h): 20,000 short threads, 100 at a
 * time, each a few calls deep under a monitor of method calls on the JVMTI path (a shadow stack
 * each), are told as 20,000 thread starts naming at most a few hundred distinct ThreadIDs (about
 * 100 threads alive at once, and the JVM's own), where kept entries would name 20,000 (60,000
 * threads took over the 120 s of the test with stress-ng beside them).  The count is the
 * bridge's own, not the process's memory, which other processes on a loaded machine move by more
 * than the entries weigh.
 */
#define FX_SILENT "{5C0E9F3A-2B71-4D8E-9A43-6F15E27BC094}"
#define CHURN_THREADS 20000
#define CHURN_THREADS_TEXT "20000"
#define CHURN_DISTINCT_LIMIT 1000

START_TEST(platform_thread_churn_reuses_thread_entries)
{
    const char *args[] = {"churn", CHURN_THREADS_TEXT, NULL};
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX_SILENT,
                         "FXSILENT_REQUEST=102", /* METHOD_CALLS | THREADS */ NULL};
    jvmrun_result r;
    jvmrun(jdks[_i], "", env, args, &r);
    ck_assert_msg(r.exit_code == 0, "%s", r.err);
    ck_assert_msg(jvmrun_count(r.err, VIA_JVMTI) == 1, "%s", r.err);
    long long starts = jvmrun_field(r.err, "fx_silent: ", "fx_silent: "),
              distinct = jvmrun_field(r.err, "fx_silent: ", "thread starts, ");
    printf("%s: %lld thread starts, %lld distinct ThreadIDs\n", jdks[_i], starts, distinct);
    ck_assert_int_ge(starts, CHURN_THREADS);
    ck_assert_int_gt(distinct, 0);
    ck_assert_int_le(distinct, CHURN_DISTINCT_LIMIT);
    jvmrun_free(&r);
}
END_TEST

START_TEST(thread_set_name_for_each_rename)
{
    const char *args[] = {"threads", NULL};
    jvmrun_result r;
    run_fx(jdks[_i], "100", args, &r);
    ck_assert_int_eq(r.exit_code, 0);
    ck_assert_str_eq(r.out, "in renamed-thread\nthreads done\n");
    /* Two renames, two THREAD_SET_NAMEs: the worker's ThreadID (announced by THREAD_CREATE) and main's. */
    ck_assert_int_eq(jvmrun_count(r.log, "NotifyEvent2 1025 "), 2);
    unsigned long renamed = 0, created = 0;
    const char *first = strstr(r.log, "NotifyEvent2 1025 ");
    ck_assert(sscanf(first, "NotifyEvent2 1025 %lx", &renamed) == 1);
    int announced = 0;
    for (const char *p = r.log; (p = strstr(p, "NotifyEvent 4 ")) && p < first; p++)
        announced |= sscanf(p, "NotifyEvent 4 %lx", &created) == 1 && created == renamed;
    ck_assert_msg(announced, "THREAD_SET_NAME names a thread never created: %lx", renamed);
    jvmrun_free(&r);
}
END_TEST

START_TEST(gc_started_and_finished)
{
    const char *args[] = {"gc", NULL};
    jvmrun_result r;
    run_fx(jdks[_i], "80", args, &r);
    ck_assert_int_eq(r.exit_code, 0);
    const char *start = strstr(r.log, "NotifyEvent 11 0"), *finish = strstr(r.log, "NotifyEvent 12 0");
    ck_assert_msg(start && finish && start < finish, "%s", r.log);
    jvmrun_free(&r);
}
END_TEST

START_TEST(jit_compiles_the_hot_method)
{
    const char *args[] = {"jit", NULL};
    jvmrun_result r;
    run_fx(jdks[_i], "4", args, &r);
    ck_assert_int_eq(r.exit_code, 0);
    ck_assert_int_gt(jvmrun_count(r.log, "NotifyEvent 10 "), 0);
    jvmrun_free(&r);
}
END_TEST

/*
 * A monitor's callback that runs on when main returns holds the exit up: SHUTDOWN and the
 * last Release come after it returns (5 s, longer than the old bound of 2 s),
 * and one stderr line says what the exit waits for: a callback into that monitor (not an
 * allocation callback, which no monitor registered).
 */
START_TEST(exit_waits_for_a_callback_in_flight)
{
    const char *args[] = {"slow-exit", NULL};
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX, "FXMON_REQUEST=2",
                         "FXMON_SLOW_IN=BridgeWorkload.slowCall", NULL};
    jvmrun_result r;
    jvmrun(jdks[_i], "", env, args, &r);
    ck_assert_msg(r.exit_code == 0, "%s", r.err);
    ck_assert_str_eq(r.out, "main returns\n");
    const char *end = strstr(r.log, "Slow end"), *shutdown = strstr(r.log, "NotifyEvent 13 "),
               *released = strstr(r.log, "Released");
    ck_assert_msg(end && shutdown && released, "%s", r.log);
    ck_assert_msg(end < shutdown && shutdown < released, "SHUTDOWN or Release while the callback ran:\n%s",
                  strstr(r.log, "Slow begin"));
    ck_assert_msg(jvmrun_count(r.err, "jevmon: exit waits for") == 1, "%s", r.err);
    ck_assert_msg(jvmrun_count(r.err, "jevmon: exit waits for a callback into the monitor of ") == 1, "%s", r.err);
    jvmrun_free(&r);
}
END_TEST

/*
 * A callback that never returns (10 minutes) holds the exit up for QUIESCE_GIVE_UP_MS, 60 s of the
 * monotonic clock, once (docs/initialization.md): the JVM ends within 70 s of main's return (a
 * wait counted in 1 ms sleeps, once for allocation callbacks and once for the monitors, took 75
 * to 138 s), the monitor is neither shut down nor released, and two lines name the monitor whose
 * callback runs: one after a second, one at 60 s.
 */
START_TEST(exit_waits_for_a_stuck_callback_at_most_its_bound)
{
    const char *args[] = {"slow-exit", NULL};
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX, "FXMON_REQUEST=2",
                         "FXMON_SLOW_IN=BridgeWorkload.slowCall", "FXMON_SLOW_MS=600000", NULL};
    jvmrun_process running;
    jvmrun_result r;
    jvmrun_start(&running, jdks[_i], "BridgeWorkload", "", env, args);
    ck_assert(jvmrun_wait_output(&running, "main returns", 1, 60000));
    uint64_t returned = plat_now_ns();
    jvmrun_finish(&running, &r);
    double seconds = (double)(plat_now_ns() - returned) / 1e9;
    printf("%s: a stuck callback, the JVM ended %.1f s after main returned\n", jdks[_i], seconds);
    ck_assert_msg(r.exit_code == 0, "%s", r.err);
    ck_assert_msg(seconds >= 59 && seconds < 70, "the exit took %.1f s", seconds);
    ck_assert_msg(strstr(r.log, "Slow begin") && !strstr(r.log, "Slow end"), "%s", r.log);
    ck_assert_msg(!strstr(r.log, "NotifyEvent 13 ") && !strstr(r.log, "Released"), "shut down or released under "
                  "its callback:\n%s", strstr(r.log, "Slow begin"));
    ck_assert_msg(jvmrun_count(r.err, "jevmon: exit waits for a callback into the monitor of ") == 1, "%s", r.err);
    ck_assert_msg(jvmrun_count(r.err, "still runs after 60 s: no monitor is shut down or released") == 1, "%s", r.err);
    ck_assert_msg(jvmrun_count(r.err, "jevmon: a callback into the monitor of ") == 1, "%s", r.err);
    ck_assert_msg(jvmrun_count(r.err, "allocation") == 0, "%s", r.err);
    jvmrun_free(&r);
}
END_TEST

int main(void)
{
    if (!(jdk_count = jvmrun_suite_jdks(jdks)))
        return EXIT_SUCCESS;
    Suite *s = suite_create("bridge");
    TCase *tc = tcase_create("bridge");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, silent_monitor_changes_nothing, 0, jdk_count);
    tcase_add_loop_test(tc, class_loads_started_finished_failed, 0, jdk_count);
    tcase_add_loop_test(tc, class_unload_reported_with_its_name, 0, jdk_count);
    tcase_add_loop_test(tc, execution_state_flags_follow_the_jvm, 0, jdk_count);
    tcase_add_loop_test(tc, bad_input_leaves_the_jvm_running, 0, jdk_count);
    tcase_add_loop_test(tc, threads_created_and_destroyed, 0, jdk_count);
    tcase_add_loop_test(tc, platform_thread_churn_reuses_thread_entries, 0, jdk_count);
    tcase_add_loop_test(tc, thread_set_name_for_each_rename, 0, jdk_count);
    tcase_add_loop_test(tc, gc_started_and_finished, 0, jdk_count);
    tcase_add_loop_test(tc, jit_compiles_the_hot_method, 0, jdk_count);
    suite_add_tcase(s, tc);
    TCase *at_exit = tcase_create("exit"); /* CK_RUN_CASE=exit runs these alone */
    tcase_set_timeout(at_exit, 120);
    tcase_add_loop_test(at_exit, exit_waits_for_a_callback_in_flight, 0, jdk_count);
    tcase_add_loop_test(at_exit, exit_waits_for_a_stuck_callback_at_most_its_bound, 0, jdk_count);
    suite_add_tcase(s, at_exit);
    return tk_run_suite(s);
}
