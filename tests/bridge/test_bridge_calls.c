/*
 * test_bridge_calls.c - the bridge's method calls end to end, on real JVMs (every JDK under
 * /usr/lib/jvm) and on both mechanisms, JVMTI events and instrumented code: exact counts and
 * pairs, SPECIFIC_METHOD_CALLS, exceptions unwinding frames, masks toggled and the promise not to,
 * bytecodes and lines stepped, return values, stack traces, classes loaded before VMInit, and the
 * first interface's MethodExit.  The test monitor's log says what it received (bridge_run.h).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/testkit.h"
#include "bridge_run.h"

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

/*
 * The method-call cases run twice: _i / jdk_count picks the mechanism.  Mode 0: no
 * promises, JVMTI events.  Mode 1: GC_SAFE | WONT_TOGGLE granted (FXMON_OPTIONS=a), so
 * the bridge instruments classes; the stderr line says which.  extra_env: one more variable, or NULL.
 */
static void run_mode_env(int mode, const char *request, const char *extra_env, const char *const *args,
                         jvmrun_result *r)
{
    run_fx_options(jdks[mode % jdk_count], request, mode / jdk_count ? "a" : NULL, extra_env, args, r);
    const char *line = mode / jdk_count ? VIA_BYTECODE : VIA_JVMTI;
    ck_assert_msg(jvmrun_count(r->err, line) == 1, "expected \"%s\" once in stderr:\n%s", line, r->err);
}

/* The same, and the mechanism's line the only one on stderr. */
static void run_mode(int mode, const char *request, const char *const *args, jvmrun_result *r)
{
    run_mode_env(mode, request, NULL, args, r);
    ck_assert_msg(jvmrun_count(r->err, "jevmon: ") == 1, "%s", r->err);
}

START_TEST(method_calls_exact_counts_and_pairing_with_16_threads)
{
    const char *args[] = {"recursion", "16", "20", NULL};
    jvmrun_result r;
    replay rp;
    run_mode(_i, "2", args, &r);
    ck_assert_int_eq(r.exit_code, 0);
    replay_log(r.log, &rp, 0);
    int workers = 0;
    for (int i = 0; i < rp.threads; i++)
        if (rp.recurse_entries[i]) {
            workers++;
            ck_assert_int_eq(rp.recurse_entries[i], 10 * 21); /* ten calls of recurse(20), 21 frames each */
        }
    ck_assert_int_eq(workers, 16);
    ck_assert_msg(rp.mismatches == 0, "%d of %d exits did not name their caller's StackID", rp.mismatches, rp.exits);
    ck_assert_int_gt(rp.exits, 16 * 210);
    replay_free(&rp);
    jvmrun_free(&r);
}
END_TEST

/*
 * SPECIFIC_METHOD_CALLS alone, the workload's class permitted with EnableMethodCallEvents, the
 * program run by JVMTI events and by instrumented code: the call sequences of both (to free),
 * and the instrumented run's output, once both ran well.
 */
typedef struct specific_runs {
    char *jvmti_calls, *bytecode_calls, *bytecode_out;
} specific_runs;

static specific_runs run_specific_both_ways(const char *jdk, const char *permitted, const char *const *args)
{
    static char permitted_env[128];
    snprintf(permitted_env, sizeof(permitted_env), "FXMON_SPECIFIC=%s", permitted);
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX, "FXMON_REQUEST=801",
                         "FXMON_OPTIONS=a", permitted_env, NULL};
    jvmrun_result by_jvmti, by_bytecode;
    jvmrun(jdk, "methods=jvmti", env, args, &by_jvmti);
    jvmrun(jdk, "", env, args, &by_bytecode);
    ck_assert_int_eq(by_jvmti.exit_code, 0);
    ck_assert_int_eq(by_bytecode.exit_code, 0);
    ck_assert_msg(jvmrun_count(by_bytecode.err, VIA_BYTECODE) == 1, "%s", by_bytecode.err);
    specific_runs runs = {call_sequence(by_jvmti.log), call_sequence(by_bytecode.log), strdup(by_bytecode.out)};
    ck_assert_ptr_nonnull(runs.bytecode_out);
    jvmrun_free(&by_jvmti);
    jvmrun_free(&by_bytecode);
    return runs;
}

static void specific_runs_free(specific_runs *runs)
{
    free(runs->jvmti_calls);
    free(runs->bytecode_calls);
    free(runs->bytecode_out);
}

/* Its calls only (the JDK methods between them unseen), with the same StackIDs, from JVMTI events
 * and from instrumented code whose other methods stop at their flag. */
START_TEST(specific_method_calls_only_for_the_permitted_class)
{
    const char *args[] = {"stack", NULL};
    specific_runs runs = run_specific_both_ways(jdks[_i], "BridgeWorkload", args);
    /* main, stack, stackLevel(3..0), traceHere: nothing of the JDK code they call */
    ck_assert_int_eq(jvmrun_count(runs.bytecode_calls, "entry "), 7);
    ck_assert_int_eq(jvmrun_count(runs.bytecode_calls, "entry BridgeWorkload."), 7);
    ck_assert_int_eq(jvmrun_count(runs.bytecode_calls, "entry BridgeWorkload.stackLevel(I)V"), 4);
    ck_assert_int_eq(jvmrun_count(runs.bytecode_calls, "exit "), 7);
    ck_assert_str_eq(runs.bytecode_calls, runs.jvmti_calls);
    specific_runs_free(&runs);
}
END_TEST

/*
 * The same on deep recursion (300 frames of the permitted class, frames of other classes between
 * every other pair, half the runs unwound by an exception from the bottom), long enough for the
 * JIT: the instrumented path counts the frames between permitted ones without reading the stack
 * per call, even those of methods whose flags were cleared when they first ran outside the
 * permitted class's frames, and every StackID still equals the JVMTI path's.
 */
START_TEST(specific_method_calls_true_depths_on_deep_recursion)
{
    const char *args[] = {"deep", "40", "300", NULL};
    specific_runs runs = run_specific_both_ways(jdks[_i], "BridgeWorkload$Deep", args);
    ck_assert_str_eq(runs.bytecode_out, "deep done, caught 40 warm\n");
    /* 80 times deep(300..0); Step.toString and the JDK's String.valueOf unseen */
    ck_assert_int_eq(jvmrun_count(runs.bytecode_calls, "entry BridgeWorkload$Deep.deep(IZ)"), 80 * 301);
    ck_assert_int_eq(jvmrun_count(runs.bytecode_calls, "entry "), 80 * 301);
    ck_assert_int_eq(jvmrun_count(runs.bytecode_calls, "exit "), 80 * 301);
    ck_assert_msg(strcmp(runs.bytecode_calls, runs.jvmti_calls) == 0, "the instrumented StackIDs differ from JVMTI's");
    specific_runs_free(&runs);
}
END_TEST

START_TEST(exceptions_thrown_unwound_caught)
{
    const char *args[] = {"exceptions", NULL};
    jvmrun_result r;
    replay rp;
    run_mode(_i, "422", args, &r); /* METHOD_CALLS | EXCEPTIONS | EXCEPTION_UNWIND */
    ck_assert_int_eq(r.exit_code, 0);
    ck_assert_str_eq(r.out, "caught 1\n");
    const char *thrown = strstr(r.log, "NotifyEvent2 1027"), *line;
    for (line = r.log; (line = strstr(line, "NotifyEvent2 1027")); line++)
        if (strstr(line, "java.lang.IllegalStateException") < strchr(line, '\n') &&
            strstr(line, "java.lang.IllegalStateException"))
            break;
    thrown = line;
    ck_assert_msg(thrown, "no EXCEPTION_THROWN for IllegalStateException:\n%.4000s", r.log);
    /* thrower(0), thrower(1) and thrower(2) are unwound, each EXCEPTION_UNWIND followed by
     * its frame's exit as on the JVMTI path, then the handler in catcher() runs. */
    int unwinds = 0;
    const char *occurred = NULL;
    for (line = thrown; (line = strchr(line, '\n')) && line[1]; ) {
        line++;
        if (strstr(line, "NotifyEvent2 1028") == strchr(line, ' ') + 1 && strstr(line, "IllegalStateException")) {
            const char *next = strchr(line, '\n');
            ck_assert_msg(next && strstr(next + 1, "MethodExit2") == strchr(next + 1, ' ') + 1,
                          "EXCEPTION_UNWIND not followed by its exit:\n%.300s", line);
            unwinds++;
        }
        if (strstr(line, "NotifyEvent2 1026") == strchr(line, ' ') + 1 && strstr(line, "IllegalStateException")) {
            occurred = line;
            break;
        }
    }
    ck_assert_int_eq(unwinds, 3);
    ck_assert_ptr_nonnull(occurred);
    replay_log(r.log, &rp, 0);
    ck_assert_msg(rp.mismatches == 0, "%d exits did not pair", rp.mismatches);
    replay_free(&rp);
    jvmrun_free(&r);
}
END_TEST

START_TEST(set_event_mask_toggles_method_calls_live)
{
    const char *args[] = {"toggle", NULL};
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX, "FXMON_REQUEST=22",
                         "FXMON_TOGGLE=1", NULL};
    jvmrun_result r;
    replay rp;
    jvmrun(jdks[_i], "", env, args, &r);
    ck_assert_int_eq(r.exit_code, 0);
    ck_assert_int_eq(jvmrun_count(r.log, "SetEventMask(0x20) hr=0x00000000"), 1);
    ck_assert_int_eq(jvmrun_count(r.log, "SetEventMask(0x22) hr=0x00000000"), 1);
    ck_assert_int_eq(jvmrun_count(r.log, "BridgeWorkload.recurse(I)I"), 3 + 4);
    replay_log(r.log, &rp, 1);
    ck_assert_msg(rp.mismatches == 0, "%d exits did not pair after re-enabling", rp.mismatches);
    replay_free(&rp);
    jvmrun_free(&r);
}
END_TEST

/* A monitor that promised not to toggle method calls cannot, on either mechanism. */
START_TEST(toggle_refused_after_wont_toggle)
{
    const char *args[] = {"toggle", NULL};
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX, "FXMON_REQUEST=22",
                         "FXMON_TOGGLE=1", "FXMON_OPTIONS=a", NULL};
    int instrumented = _i / jdk_count;
    jvmrun_result r;
    replay rp;
    jvmrun(jdks[_i % jdk_count], instrumented ? "" : "methods=jvmti", env, args, &r);
    ck_assert_int_eq(r.exit_code, 0);
    ck_assert_msg(jvmrun_count(r.err, instrumented ? VIA_BYTECODE : VIA_JVMTI) == 1, "%s", r.err);
    ck_assert_int_eq(jvmrun_count(r.log, "SetEventMask(0x20) hr=0x80004005"), 1);
    /* (Its later SetEventMask(0x22) changes nothing about method calls, so it succeeds.) */
    ck_assert_int_eq(jvmrun_count(r.log, "BridgeWorkload.recurse(I)I"), 3 + 6 + 4); /* all of them */
    replay_log(r.log, &rp, 0);
    ck_assert_msg(rp.mismatches == 0, "%d exits did not pair", rp.mismatches);
    replay_free(&rp);
    jvmrun_free(&r);
}
END_TEST

/* Only GC_SAFE promised: the monitor may toggle, so JVMTI events stay. */
START_TEST(gc_safe_alone_stays_on_jvmti)
{
    const char *args[] = {"recursion", "1", "3", NULL};
    jvmrun_result r;
    run_fx_options(jdks[_i], "2", "2", NULL, args, &r);
    ck_assert_int_eq(r.exit_code, 0);
    ck_assert_msg(jvmrun_count(r.err, VIA_JVMTI) == 1 && jvmrun_count(r.err, "jevmon: ") == 1, "%s", r.err);
    jvmrun_free(&r);
}
END_TEST

/* The line of the workload's source that contains text. */
static int workload_line(const char *text)
{
    char path[1024], line[512];
    snprintf(path, sizeof(path), "%s/tests/bridge/BridgeWorkload.java", jvmrun_source_dir());
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    int n = 0, found = -1;
    while (found < 0 && fgets(line, sizeof(line), f))
        if (++n && strstr(line, text))
            found = n;
    fclose(f);
    return found;
}

/*
 * The class file's code, on both mechanisms (the instrumented path runs a rewrite of it): each
 * bytecode stepped once at its own offset, the bytecodes and the line table as javac wrote them.
 */
START_TEST(bytecodes_and_source_lines_stepped)
{
    const char *args[] = {"step", NULL};
    jvmrun_result r;
    run_mode_env(_i, "18", "FXMON_STEP_IN=BridgeWorkload.stepped", args, &r);
    ck_assert_int_eq(r.exit_code, 0);
    ck_assert_str_eq(r.out, "stepped 7\n");
    /* iload_0 iconst_1 iadd istore_1 | iload_1 iconst_2 imul istore_2 | iload_2 iload_0 isub ireturn */
    static const unsigned codes[] = {0x1a, 0x04, 0x60, 0x3c, 0x1b, 0x05, 0x68, 0x3d, 0x1c, 0x1a, 0x64, 0xac};
    char expected[4096] = "";
    int first = workload_line("// step line 1");
    ck_assert_int_gt(first, 0);
    for (unsigned i = 0; i < 12; i++) {
        size_t len = strlen(expected);
        if (i % 4 == 0)
            len += (size_t)snprintf(expected + len, sizeof(expected) - len, "ExecuteSourceLine %u\n", first + i / 4);
        snprintf(expected + len, sizeof(expected) - len, "ExecuteByteCode %u 0x%02x\n", i, codes[i]);
    }
    char code[256];
    snprintf(code, sizeof(code), "MethodCode length=12 lines=0:%d,4:%d,8:%d\n", first, first + 1, first + 2);
    ck_assert_msg(jvmrun_count(r.log, code) == 1, "expected %s in:\n%.2000s", code, r.log);
    /* The log's step lines, without the instance tags. */
    char got[4096] = "";
    for (const char *line = r.log; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        const char *body = strchr(line, ' ');
        if (body && (strncmp(body + 1, "ExecuteByteCode", 15) == 0 || strncmp(body + 1, "ExecuteSourceLine", 17) == 0)) {
            size_t len = strlen(got), n = (size_t)(strchr(body, '\n') - body);
            snprintf(got + len, sizeof(got) - len, "%.*s", (int)n, body + 1);
        }
    }
    ck_assert_str_eq(got, expected);
    jvmrun_free(&r);
}
END_TEST

/* GetMethodExitReturnValue inside MethodExit2, with and without the RETURN_VALUE_NOT_NEEDED promise
   (void methods and exits by exception have no value: E_FAIL for those either way). */
START_TEST(return_value_unless_promised_away)
{
    const char *args[] = {"step", NULL};
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX, "FXMON_REQUEST=2",
                         "FXMON_RETVAL=BridgeWorkload.stepped", NULL};
    const char *promised[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX, "FXMON_REQUEST=2",
                              "FXMON_RETVAL=BridgeWorkload.stepped", "FXMON_OPTIONS=4", NULL};
    jvmrun_result r, p;
    jvmrun(jdks[_i], "", env, args, &r);
    jvmrun(jdks[_i], "", promised, args, &p);
    ck_assert_int_eq(r.exit_code, 0);
    ck_assert_int_eq(jvmrun_count(r.log, "ReturnValue BridgeWorkload.stepped(I)I hr=0x00000000 value=7\n"), 1);
    ck_assert_int_gt(jvmrun_count(p.log, "ReturnValue ? hr=0x80004005"), 0);
    ck_assert_int_eq(jvmrun_count(p.log, "hr=0x00000000 value="), 0);
    jvmrun_free(&r);
    jvmrun_free(&p);
}
END_TEST

/*
 * SPECIFIC_METHOD_CALLS on the JVMTI path keeps the JIT for the methods nobody enabled: with
 * sun.invoke.util.Wrapper's methods enabled (they run for the concatenation after the loop, and
 * their calls are delivered), the loop's hot method, called 2 million times outside them, is
 * compiled.  (Main's whole-JVM MethodEntry/MethodExit kept every thread interpreted: no compilation
 * of hot, and the run took 6x as long.)
 */
START_TEST(specific_method_calls_leave_the_jit_on)
{
    const char *args[] = {"jit", NULL};
    jvmrun_result r;
    run_fx_options(jdks[_i], "805" /* CLASS_LOADS | JIT_COMPILATION | SPECIFIC_METHOD_CALLS */, NULL,
                   "FXMON_SPECIFIC=sun.invoke.util.Wrapper", args, &r);
    ck_assert_int_eq(r.exit_code, 0);
    ck_assert_str_eq(r.out, "jit done true\n");
    ck_assert_int_eq(jvmrun_count(r.err, VIA_JVMTI), 1);
    ck_assert_msg(jvmrun_count(r.log, "EnableMethodCallEvents(sun.invoke.util.Wrapper) hr=0x00000000") == 1, "%.3000s",
                  r.log);
    ck_assert_int_gt(jvmrun_count(r.log, " sun/invoke/util/Wrapper."), 0);
    ck_assert_int_eq(jvmrun_count(r.log, "MethodEntry t="), jvmrun_count(r.log, "MethodExit2 t="));
    ck_assert_msg(jvmrun_count(r.log, " BridgeWorkload.hot(J)J\n") > 0, "hot() was never compiled:\n%.3000s", r.log);
    jvmrun_free(&r);
}
END_TEST

/* On both mechanisms: the instrumented path's bridge frames are not the program's. */
START_TEST(stack_trace_agrees_with_java)
{
    const char *args[] = {"stack", NULL};
    jvmrun_result r;
    run_mode_env(_i, "2", "FXMON_TRACE_AT=BridgeWorkload.traceHere", args, &r);
    ck_assert_int_eq(r.exit_code, 0);
    /* Java's view, innermost first, from getStackTrace(); drop getStackTrace itself. */
    char java[2048];
    ck_assert_ptr_nonnull(strstr(r.out, "java stack:"));
    snprintf(java, sizeof(java), "%s", strstr(r.out, "java stack:") + strlen("java stack:"));
    *strchr(java, '\n') = '\0';
    char *frames[64];
    int n = 0;
    for (char *tok = strtok(java, " "); tok && n < 64; tok = strtok(NULL, " "))
        if (!strstr(tok, "getStackTrace"))
            frames[n++] = tok;
    /* The monitor's view from GetStackTrace at traceHere(), outermost first. */
    const char *at = strstr(r.log, "MethodEntry");
    at = strstr(r.log, "BridgeWorkload.traceHere");
    ck_assert_ptr_nonnull(at);
    char trace[64][256];
    int m = 0;
    for (const char *line = at; (line = strstr(line, "NotifyEvent2 1029 ")) && m < 64; line++) {
        char name[256];
        unsigned long mid, sid;
        if (sscanf(line, "NotifyEvent2 1029 %lx %lx %255s", &mid, &sid, name) == 3)
            snprintf(trace[m++], sizeof(trace[0]), "%s", name);
    }
    /* GetStackTrace also shows traceHere, which Java's trace (taken before the call) lacks. */
    ck_assert_int_eq(m, n + 1);
    ck_assert_msg(strncmp(trace[m - 1], "BridgeWorkload.traceHere", 24) == 0, "%s", trace[m - 1]);
    for (int i = 0; i < n; i++) {
        char expected[300];
        snprintf(expected, sizeof(expected), "%s(", frames[i]);
        ck_assert_msg(strncmp(trace[m - 2 - i], expected, strlen(expected)) == 0, "frame %d: %s vs %s", i,
                      trace[m - 2 - i], frames[i]);
    }
    jvmrun_free(&r);
}
END_TEST

START_TEST(v1_monitor_gets_method_exit_and_notify_event)
{
    const char *args[] = {"exceptions", NULL};
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX_V1, "FXMON_REQUEST=22", NULL};
    jvmrun_result r;
    jvmrun(jdks[_i], "", env, args, &r);
    ck_assert_int_eq(r.exit_code, 0);
    ck_assert_int_gt(jvmrun_count(r.log, "MethodExit s="), 0);
    ck_assert_int_eq(jvmrun_count(r.log, "MethodExit2"), 0);
    ck_assert_int_eq(jvmrun_count(r.log, "NotifyEvent2"), 0);
    ck_assert_int_gt(jvmrun_count(r.log, "NotifyEvent 0 "), 0); /* EXCEPTION_OCCURRED, the old form */
    jvmrun_free(&r);
}
END_TEST

/*
 * The classes loaded before VMInit reach the instrumented path only by the retransformation
 * at VMInit, which leaves out those with no bytecode: a default method of java.util.Map (an
 * interface loaded while the JVM boots) is counted as often as the JVMTI path counts it.
 */
START_TEST(calls_into_classes_loaded_before_vminit_counted)
{
    const char *args[] = {"default", "250", NULL};
    int counts[2];
    for (int instrumented = 0; instrumented < 2; instrumented++) {
        const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX, "FXMON_REQUEST=2",
                             instrumented ? "FXMON_OPTIONS=a" : "FXMON_OPTIONS=0", NULL};
        jvmrun_result r;
        jvmrun_main(jdks[_i], "StartupWorkload", "", env, args, &r);
        ck_assert_int_eq(r.exit_code, 0);
        ck_assert_str_eq(r.out, "sum 250\n");
        const char *line = instrumented ? VIA_BYTECODE : VIA_JVMTI;
        ck_assert_msg(jvmrun_count(r.err, line) == 1, "expected \"%s\" in stderr:\n%s", line, r.err);
        counts[instrumented] = jvmrun_count(r.log, " java/util/Map.getOrDefault(");
        jvmrun_free(&r);
    }
    ck_assert_int_eq(counts[0], 250);
    ck_assert_int_eq(counts[1], 250);
}
END_TEST

int main(void)
{
    if (!(jdk_count = jvmrun_suite_jdks(jdks)))
        return EXIT_SUCCESS;
    Suite *s = suite_create("bridge_calls");
    TCase *tc = tcase_create("bridge_calls");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, method_calls_exact_counts_and_pairing_with_16_threads, 0, 2 * jdk_count);
    tcase_add_loop_test(tc, specific_method_calls_only_for_the_permitted_class, 0, jdk_count);
    tcase_add_loop_test(tc, specific_method_calls_true_depths_on_deep_recursion, 0, jdk_count);
    tcase_add_loop_test(tc, exceptions_thrown_unwound_caught, 0, 2 * jdk_count);
    tcase_add_loop_test(tc, toggle_refused_after_wont_toggle, 0, 2 * jdk_count);
    tcase_add_loop_test(tc, gc_safe_alone_stays_on_jvmti, 0, jdk_count);
    tcase_add_loop_test(tc, set_event_mask_toggles_method_calls_live, 0, jdk_count);
    tcase_add_loop_test(tc, bytecodes_and_source_lines_stepped, 0, 2 * jdk_count);
    tcase_add_loop_test(tc, return_value_unless_promised_away, 0, jdk_count);
    tcase_add_loop_test(tc, specific_method_calls_leave_the_jit_on, 0, jdk_count);
    tcase_add_loop_test(tc, stack_trace_agrees_with_java, 0, 2 * jdk_count);
    tcase_add_loop_test(tc, v1_monitor_gets_method_exit_and_notify_event, 0, jdk_count);
    tcase_add_loop_test(tc, calls_into_classes_loaded_before_vminit_counted, 0, jdk_count);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
