/*
 * test_bridge.c - the bridge end to end: real JVMs (every JDK under /usr/lib/jvm) run the
 * BridgeWorkload programs under the agent with the test monitor, whose log says what
 * it received.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/testkit.h"
#include "platform/platform.h"
#include "support/jvmrun.h"

#define FX "{63DAD816-1308-449B-AC11-1E702EB2D15F}"
#define FX_V1 "{8A05A603-576C-454C-A8A9-8A406868B147}"

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

/* options: FXMON_OPTIONS (hex initialization options the monitor asks for), NULL for none;
 * extra_env: one more variable, or NULL. */
static void run_fx_options(const char *jdk, const char *request, const char *options, const char *extra_env,
                           const char *const *args, jvmrun_result *r)
{
    static char request_env[64], options_env[64];
    snprintf(request_env, sizeof(request_env), "FXMON_REQUEST=%s", request);
    snprintf(options_env, sizeof(options_env), "FXMON_OPTIONS=%s", options ? options : "0");
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX, request_env, options_env,
                         extra_env, NULL};
    jvmrun(jdk, "", env, args, r);
}

static void run_fx(const char *jdk, const char *request, const char *const *args, jvmrun_result *r)
{
    run_fx_options(jdk, request, NULL, NULL, args, r);
}

#define VIA_JVMTI "jevmon: method calls via JVMTI events\n"
#define VIA_BYTECODE "jevmon: method calls via bytecode instrumentation\n"

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

#define MAX_THREADS 64
#define MAX_DEPTH 4096

typedef struct replay {
    unsigned long thread[MAX_THREADS];
    unsigned long *stack[MAX_THREADS];
    int depth[MAX_THREADS];
    int recurse_entries[MAX_THREADS];
    int threads;
    int entries, exits, mismatches;
} replay;

static int thread_slot(replay *r, unsigned long t)
{
    for (int i = 0; i < r->threads; i++)
        if (r->thread[i] == t)
            return i;
    ck_assert_int_lt(r->threads, MAX_THREADS);
    r->thread[r->threads] = t;
    r->stack[r->threads] = calloc(MAX_DEPTH, sizeof(unsigned long));
    return r->threads++;
}

/* A method event of one log line: its thread, StackID, name (entries) and caller MethodID (exits). */
typedef struct method_event {
    unsigned long thread, stack, caller;
    char name[512];
} method_event;

/* 'e' for a MethodEntry line, 'x' for a MethodExit2 line, 0 for any other. */
static int parse_method_event(const char *line, method_event *e)
{
    /* sscanf reads the line from a copy: on the log itself it measured the whole rest of the log
     * for every line, which made a long log's replay take minutes (the 16 threads' on a loaded machine) */
    char copy[1024];
    size_t length = strcspn(line, "\n");
    if (length >= sizeof(copy))
        return 0;
    memcpy(copy, line, length);
    copy[length] = '\0';
    const char *body = strchr(copy, ' ');
    if (body && sscanf(body + 1, "MethodEntry t=%lx %511s s=%lx", &e->thread, e->name, &e->stack) == 3)
        return 'e';
    if (body && sscanf(body + 1, "MethodExit2 t=%lx m=%lx s=%lx", &e->thread, &e->caller, &e->stack) == 3)
        return 'x';
    return 0;
}

/* The next line of a log, NULL after the last. */
static const char *next_line(const char *line)
{
    line = strchr(line, '\n');
    return line && line[1] ? line + 1 : NULL;
}

/*
 * Replays the method events of a log thread by thread: an entry pushes its StackID, an
 * exit pops it and must name the StackID now on top, its caller's (frames entered before
 * events were on are not in the replay, so an exit that empties it is not checked).
 * With gaps (method calls switched off for a while), frames at or below the depth of an
 * event are dropped first: they returned unseen.  StackIDs of one thread grow with depth.
 */
static void replay_log(const char *log, replay *r, int gaps)
{
    memset(r, 0, sizeof(*r));
    method_event e;
    for (const char *line = *log ? log : NULL; line; line = next_line(line)) {
        int kind = parse_method_event(line, &e);
        if (kind == 'e') {
            int i = thread_slot(r, e.thread);
            while (gaps && r->depth[i] > 0 && r->stack[i][r->depth[i] - 1] >= e.stack)
                r->depth[i]--;
            ck_assert_int_lt(r->depth[i], MAX_DEPTH);
            r->stack[i][r->depth[i]++] = e.stack;
            r->entries++;
            if (strcmp(e.name, "BridgeWorkload.recurse(I)I") == 0)
                r->recurse_entries[i]++;
        } else if (kind == 'x') {
            int i = thread_slot(r, e.thread);
            while (gaps && r->depth[i] > 1 && r->stack[i][r->depth[i] - 2] > e.stack)
                r->depth[i]--;
            r->exits++;
            if (r->depth[i] > 0 && --r->depth[i] > 0 && r->stack[i][r->depth[i] - 1] != e.stack)
                r->mismatches++;
        }
    }
}

static void replay_free(replay *r)
{
    for (int i = 0; i < r->threads; i++)
        free(r->stack[i]);
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

/* The method events of a log, one per line: "entry <name> s=<StackID>" or "exit s=<StackID>". */
static char *call_sequence(const char *log)
{
    size_t size = strlen(log) + 1, used = 0;
    char *out = calloc(1, size);
    ck_assert_ptr_nonnull(out);
    method_event e;
    for (const char *line = *log ? log : NULL; line; line = next_line(line)) {
        int kind = parse_method_event(line, &e);
        if (kind == 'e')
            used += (size_t)snprintf(out + used, size - used, "entry %s s=%lx\n", e.name, e.stack);
        else if (kind == 'x')
            used += (size_t)snprintf(out + used, size - used, "exit s=%lx\n", e.stack);
    }
    return out;
}

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
    Suite *s = suite_create("bridge");
    TCase *tc = tcase_create("bridge");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, silent_monitor_changes_nothing, 0, jdk_count);
    tcase_add_loop_test(tc, method_calls_exact_counts_and_pairing_with_16_threads, 0, 2 * jdk_count);
    tcase_add_loop_test(tc, specific_method_calls_only_for_the_permitted_class, 0, jdk_count);
    tcase_add_loop_test(tc, specific_method_calls_true_depths_on_deep_recursion, 0, jdk_count);
    tcase_add_loop_test(tc, exceptions_thrown_unwound_caught, 0, 2 * jdk_count);
    tcase_add_loop_test(tc, toggle_refused_after_wont_toggle, 0, 2 * jdk_count);
    tcase_add_loop_test(tc, gc_safe_alone_stays_on_jvmti, 0, jdk_count);
    tcase_add_loop_test(tc, class_loads_started_finished_failed, 0, jdk_count);
    tcase_add_loop_test(tc, class_unload_reported_with_its_name, 0, jdk_count);
    tcase_add_loop_test(tc, set_event_mask_toggles_method_calls_live, 0, jdk_count);
    tcase_add_loop_test(tc, bytecodes_and_source_lines_stepped, 0, 2 * jdk_count);
    tcase_add_loop_test(tc, execution_state_flags_follow_the_jvm, 0, jdk_count);
    tcase_add_loop_test(tc, return_value_unless_promised_away, 0, jdk_count);
    tcase_add_loop_test(tc, bad_input_leaves_the_jvm_running, 0, jdk_count);
    tcase_add_loop_test(tc, threads_created_and_destroyed, 0, jdk_count);
    tcase_add_loop_test(tc, platform_thread_churn_reuses_thread_entries, 0, jdk_count);
    tcase_add_loop_test(tc, thread_set_name_for_each_rename, 0, jdk_count);
    tcase_add_loop_test(tc, gc_started_and_finished, 0, jdk_count);
    tcase_add_loop_test(tc, jit_compiles_the_hot_method, 0, jdk_count);
    tcase_add_loop_test(tc, specific_method_calls_leave_the_jit_on, 0, jdk_count);
    tcase_add_loop_test(tc, stack_trace_agrees_with_java, 0, 2 * jdk_count);
    tcase_add_loop_test(tc, v1_monitor_gets_method_exit_and_notify_event, 0, jdk_count);
    tcase_add_loop_test(tc, calls_into_classes_loaded_before_vminit_counted, 0, jdk_count);
    suite_add_tcase(s, tc);
    TCase *at_exit = tcase_create("exit"); /* CK_RUN_CASE=exit runs these alone */
    tcase_set_timeout(at_exit, 120);
    tcase_add_loop_test(at_exit, exit_waits_for_a_callback_in_flight, 0, jdk_count);
    tcase_add_loop_test(at_exit, exit_waits_for_a_stuck_callback_at_most_its_bound, 0, jdk_count);
    suite_add_tcase(s, at_exit);
    return tk_run_suite(s);
}
