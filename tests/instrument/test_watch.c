/*
 * test_watch.c - THREAD_SET_NAME and CLASS_LOAD_FAILED without the capabilities that make C2 keep
 * every local variable alive (instrument/watch.h), on every JDK under /usr/lib/jvm:
 *   - another agent loaded first takes can_generate_breakpoint_events, which HotSpot grants one
 *     environment at a time (tests/instrument/fx_capprobe.c): the bridge, which cannot have it,
 *     still reports both renames of BridgeWorkload threads and the failed load of classes, and
 *     says it misses the capability only for SPECIFIC_METHOD_CALLS.  (can_access_local_variables is not granted
 *     one at a time, so a running JVM shows nothing of who holds it: test_capabilities checks
 *     that the bridge asks for neither.)
 *   - the rewritten java.lang.Thread, ClassNotFoundException and NoClassDefFoundError pass
 *     HotSpot's verifier (BytecodeVerificationLocal verifies the boot loader's classes, and their
 *     retransformations): each is verified at its load and again at its retransformation, and
 *     the events still come.
 *   - the catch of the handler injected into setName is no catch: EXCEPTIONS sees the program's.
 *   - rewritten for method calls as well, setName still shows monitors its class file's code.
 *   - a monitor that says it needs neither (jevmon's DONT_NEED_THREAD_RENAMES and
 *     DONT_NEED_CLASS_LOAD_FAILURES) gets neither: nothing was rewritten to see them.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../support/testkit.h"
#include "support/jvmrun.h"

#define FX "{63DAD816-1308-449B-AC11-1E702EB2D15F}"
#define CLASS_LOADS_AND_THREADS "FXMON_REQUEST=101"
#define THREAD_SET_NAME "NotifyEvent2 1025 "
#define CLASS_LOAD_FAILED "NotifyEvent 17 jevmon/test/NoSuchClass\n"

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

/* Runs BridgeWorkload program under the test monitor asking for CLASS_LOADS and THREADS, with
 * java_options in JAVA_TOOL_OPTIONS; checks it ran. */
static void run_watched(const char *jdk, const char *program, const char *java_options, jvmrun_result *r)
{
    static char tool_options[4096];
    snprintf(tool_options, sizeof(tool_options), "JAVA_TOOL_OPTIONS=%s", java_options);
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX, CLASS_LOADS_AND_THREADS,
                         tool_options, "FXMON_TRACE_RENAMES=1", NULL};
    const char *args[] = {program, NULL};
    jvmrun(jdk, "", env, args, r);
    ck_assert_msg(r->exit_code == 0, "exit %d\n%s", r->exit_code, r->err);
}

/* The bridge says of each capability it would use but cannot have which categories use it: the
 * breakpoints only SPECIFIC_METHOD_CALLS (0x800, which the test monitor may ask for), access to
 * locals none. */
static void expect_watch_needs_neither(const char *err)
{
    static const char tail[] = "event categories 0x800 use it";
    const char *breakpoints = strstr(err, "jevmon: can_generate_breakpoint_events:");
    size_t n = breakpoints ? strcspn(breakpoints, "\n") : 0;
    ck_assert_msg(!breakpoints || (n >= strlen(tail) && !strncmp(breakpoints + n - strlen(tail), tail, strlen(tail))),
                  "%s", err);
    ck_assert_msg(!strstr(err, "jevmon: can_access_local_variables"), "%s", err);
}

START_TEST(events_come_without_breakpoints)
{
    char probe[4200];
    snprintf(probe, sizeof(probe), "-agentpath:%s", jvmrun_build_path("fixtures/fx_capprobe.so"));
    jvmrun_result r;
    run_watched(jdks[_i], "threads", probe, &r);
    ck_assert_msg(strstr(r.err, "fx_capprobe: breakpoints taken\n"), "%s", r.err);
    expect_watch_needs_neither(r.err);
    ck_assert_str_eq(r.out, "in renamed-thread\nthreads done\n");
    ck_assert_int_eq(jvmrun_count(r.log, THREAD_SET_NAME), 2);
    jvmrun_free(&r);

    run_watched(jdks[_i], "classes", probe, &r);
    ck_assert_msg(strstr(r.err, "fx_capprobe: breakpoints taken\n"), "%s", r.err);
    expect_watch_needs_neither(r.err);
    ck_assert_int_eq(jvmrun_count(r.log, CLASS_LOAD_FAILED), 1);
    jvmrun_free(&r);
}
END_TEST

/* The rename is told from inside Thread.setName, as breakpoints told it: a monitor asking for the
 * stack there gets setName on top (the fixture logs the innermost frame of the stack it took),
 * never the jevmon/Watch native the injected call entered. */
START_TEST(a_rename_is_told_from_set_name_with_no_bridge_frame)
{
    jvmrun_result r;
    run_watched(jdks[_i], "threads", "", &r);
    ck_assert_int_eq(jvmrun_count(r.log, THREAD_SET_NAME), 2);
    static const char set_name_on_top[] = "GetStackTrace hr=0x00000000 top=java/lang/Thread.setName(Ljava/lang/String;)V\n";
    ck_assert_msg(jvmrun_count(r.log, set_name_on_top) == 2, "setName not on top at both renames:\n%.3000s", r.log);
    ck_assert_msg(!strstr(r.log, "jevmon/Watch"), "a frame of jevmon/Watch: %.160s", strstr(r.log, "jevmon/Watch"));
    jvmrun_free(&r);
}
END_TEST

/* With method calls instrumented too, Thread.setName is rewritten twice (the calls' rewrite, then
 * the watch's): a monitor reading its code at a rename still gets the class file's, as when the
 * watch's rewrite is the only one. */
START_TEST(set_name_shows_its_class_files_code_under_both_rewrites)
{
    jvmrun_result watched, both;
    run_watched(jdks[_i], "threads", "", &watched);
    const char *code = strstr(watched.log, "MethodCode length=");
    ck_assert_msg(code, "no code read at the renames:\n%.2000s", watched.log);
    char line[512];
    snprintf(line, sizeof(line), "%.*s\n", (int)strcspn(code, "\n"), code);
    ck_assert_int_eq(jvmrun_count(watched.log, line), 2);
    /* SPECIFIC_METHOD_CALLS with no method enabled: every class rewritten for calls, none delivered */
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX, "FXMON_REQUEST=901", "FXMON_OPTIONS=a",
                         "FXMON_TRACE_RENAMES=1", NULL};
    const char *args[] = {"threads", NULL};
    jvmrun(jdks[_i], "", env, args, &both);
    ck_assert_msg(both.exit_code == 0, "exit %d\n%s", both.exit_code, both.err);
    ck_assert_msg(strstr(both.err, "jevmon: method calls via bytecode instrumentation\n"), "%s", both.err);
    ck_assert_int_eq(jvmrun_count(both.log, THREAD_SET_NAME), 2);
    ck_assert_msg(jvmrun_count(both.log, line) == 2, "expected %s twice in:\n%.3000s", line, both.log);
    jvmrun_free(&watched);
    jvmrun_free(&both);
}
END_TEST

START_TEST(rewritten_classes_pass_the_verifier)
{
    char dir[] = "/tmp/jevmon-watch-XXXXXX", options[4200], log[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(log, sizeof(log), "%s/verification.log", dir);
    snprintf(options, sizeof(options),
             "-XX:+UnlockDiagnosticVMOptions -XX:+BytecodeVerificationLocal -Xlog:verification=info:file=%s", log);
    jvmrun_result r;
    run_watched(jdks[_i], "threads", options, &r);
    ck_assert_msg(!strstr(r.err, "jevmon: could not") && !strstr(r.err, "jevmon: the JVM refused"), "%s", r.err);
    ck_assert_int_eq(jvmrun_count(r.log, THREAD_SET_NAME), 2);
    jvmrun_free(&r);
    char *verified = tk_read_file(log);
    ck_assert_ptr_nonnull(verified);
    static const char *const classes[] = {"java.lang.Thread", "java.lang.ClassNotFoundException",
                                          "java.lang.NoClassDefFoundError"};
    for (size_t i = 0; i < sizeof(classes) / sizeof(*classes); i++) {
        char line[160];
        snprintf(line, sizeof(line), "Verifying class %s with ", classes[i]);
        ck_assert_msg(jvmrun_count(verified, line) >= 2, "%s verified %d times, not at load and retransformation",
                      classes[i], jvmrun_count(verified, line));
    }
    ck_assert_msg(!strstr(verified, "VerifyError") && !strstr(verified, "Verification for"), "%s", verified);
    free(verified);
    unlink(log);
    rmdir(dir);
}
END_TEST

/* Lines of the log for event (a NotifyEvent2 type) naming the exception class name. */
static int exception_events(const char *log, int event, const char *name)
{
    char start[32];
    int n = 0;
    snprintf(start, sizeof(start), "NotifyEvent2 %d ", event);
    for (const char *line = log; (line = strstr(line, start)); line++) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        n += length > strlen(name) && !strncmp(line + length - strlen(name), name, strlen(name));
    }
    return n;
}

/* setName(null) throws inside setName, where the injected handler catches it to call the bridge and
 * rethrow: an EXCEPTIONS monitor is told of one throw and one catch, the program's. */
START_TEST(injected_handler_catches_nothing)
{
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX, "FXMON_REQUEST=120", NULL};
    const char *args[] = {"null-name", NULL};
    jvmrun_result r;
    jvmrun(jdks[_i], "", env, args, &r);
    ck_assert_msg(r.exit_code == 0, "exit %d\n%s", r.exit_code, r.err);
    ck_assert_str_eq(r.out, "null name refused\n");
    ck_assert_int_eq(exception_events(r.log, 1027, " java.lang.NullPointerException"), 1); /* EXCEPTION_THROWN */
    ck_assert_int_eq(exception_events(r.log, 1026, " java.lang.NullPointerException"), 1); /* EXCEPTION_OCCURRED */
    jvmrun_free(&r);
}
END_TEST

/* The only monitor says it does without renames and failed loads: the bridge watches neither (the
 * events would come if it did, as above), and takes the two options as its own. */
START_TEST(monitors_that_need_neither_are_spared_the_watch)
{
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX, CLASS_LOADS_AND_THREADS,
                         "FXMON_OPTIONS=30000", "FXMON_TRACE_RENAMES=1", NULL};
    const char *threads[] = {"threads", NULL}, *classes[] = {"classes", NULL};
    jvmrun_result r;
    jvmrun(jdks[_i], "", env, threads, &r);
    ck_assert_msg(r.exit_code == 0, "exit %d\n%s", r.exit_code, r.err);
    ck_assert_str_eq(r.out, "in renamed-thread\nthreads done\n");
    ck_assert_msg(strstr(r.log, "SetMonitorInitializationOptions(0x30000) in Initialize hr=0x00000000\n"), "%s", r.log);
    ck_assert_msg(!strstr(r.err, "unknown bits"), "%s", r.err);
    ck_assert_int_eq(jvmrun_count(r.log, THREAD_SET_NAME), 0);
    jvmrun_free(&r);
    jvmrun(jdks[_i], "", env, classes, &r);
    ck_assert_msg(r.exit_code == 0, "exit %d\n%s", r.exit_code, r.err);
    ck_assert_int_eq(jvmrun_count(r.log, CLASS_LOAD_FAILED), 0);
    ck_assert_msg(strstr(r.log, "NotifyEvent 7 "), "no class loads told:\n%.2000s", r.log); /* CLASS_LOAD_FINISHED still */
    jvmrun_free(&r);
}
END_TEST

int main(void)
{
    jdk_count = jvmrun_suite_jdks(jdks);
    if (!jdk_count)
        return 0;
    Suite *s = suite_create("watch");
    TCase *tc = tcase_create("watch");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, events_come_without_breakpoints, 0, jdk_count);
    tcase_add_loop_test(tc, a_rename_is_told_from_set_name_with_no_bridge_frame, 0, jdk_count);
    tcase_add_loop_test(tc, set_name_shows_its_class_files_code_under_both_rewrites, 0, jdk_count);
    tcase_add_loop_test(tc, rewritten_classes_pass_the_verifier, 0, jdk_count);
    tcase_add_loop_test(tc, injected_handler_catches_nothing, 0, jdk_count);
    tcase_add_loop_test(tc, monitors_that_need_neither_are_spared_the_watch, 0, jdk_count);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
