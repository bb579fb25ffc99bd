/*
 * test_jevprof_calls.c - jevprof's calls mode end to end on real JVMs (every JDK under
 * /usr/lib/jvm): exact call counts of samples/java/Workload.java (8 workers, fib(15) every 100
 * rounds, a 3-frame exception unwind every 100 rounds) in its report, collapsed stacks and pprof
 * file; processor and wall time, and overloads told apart, on CallsWorkload; methods named apart
 * or kept named on SpecWorkload (a bridge method and its covariant target, a class unloaded
 * before the report).  Sampling is test_jevprof.c's.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/testkit.h"
#include "jevprof_run.h"

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

START_TEST(call_counts_are_exact)
{
    char dir[1200];
    jvmrun_result r;
    prepare(dir, sizeof(dir));
    run_jevprof(jdks[_i], dir, ATTACHED, "calls", "2000", NULL, &r);
    ck_assert_int_eq(r.exit_code, 0);
    ck_assert_str_eq(r.out, "threads 8, rounds 2000\nchecksum 1605a7c6a06e74ba\nexceptions caught 160\n");
    char *report = read_text(dir, "jevprof-report.txt"), *collapsed = read_text(dir, "jevprof.collapsed");
    ck_assert_ptr_nonnull(report);
    ck_assert_ptr_nonnull(collapsed);
    /* 8 threads x 2000 rounds; fib(15) makes 1973 calls, 20 times a thread; 3 throwers per exception */
    expect(report, "        16000  Workload.hot(long)\n"); /* the report gives every signature */
    expect(report, "        16000  Workload.cold(long)\n");
    expect(report, "       315680  Workload.fib(int)\n");
    expect(report, "          480  Workload.thrower(int, long)\n");
    expect(report, "            8  Workload$Worker.run()\n");
    expect(collapsed, "Workload$Worker.run;Workload.round;Workload.hot ");
    /* Paths under 0.01% are folded into their callers: the JDK's own tiny paths in every run.
     * fib's deepest path (its 160 calls 15 frames down, about 0.006% of the time) is one too, or,
     * when a preemption or a slow clock read landed in one of them, kept whole: not both. */
    expect(collapsed, ";(smaller paths, folded: JEVPROF_MIN_SHARE) ");
    int fib_folded = strstr(collapsed, ";Workload.fib;(smaller paths, folded: JEVPROF_MIN_SHARE) ") != NULL;
    char deepest[16 * sizeof("Workload.fib;")] = "";
    for (int depth = 0; depth < 15; depth++)
        strcat(deepest, ";Workload.fib");
    strcat(deepest, " ");
    ck_assert_msg(fib_folded != (strstr(collapsed, deepest) != NULL), "fib's deepest path: folded %d, kept %d",
                  fib_folded, strstr(collapsed, deepest) != NULL);
    expect(collapsed, "Workload.round;Workload.thrower;Workload.thrower;Workload.thrower;java.lang.IllegalStateException.<init>");
    /* without JEVPROF_EXCEPTIONS=1 jevprof leaves exceptions alone (docs/jevprof.md: what they cost) */
    expect(report, "Exceptions thrown: not counted (JEVPROF_EXCEPTIONS=1 counts them)\n");
    ck_assert_uint_gt(self_count(collapsed, "Workload.hot"), self_count(collapsed, "Workload.cold"));
    /* Folding the paths under 0.01% keeps their time in their callers: the lines (microseconds)
     * add up to the whole, give or take their rounding. */
    unsigned long long sum_us = 0, lines = 0;
    for (const char *line = collapsed; *line; line = strchr(line, '\n') + 1, lines++)
        sum_us += strtoull(memrchr(line, ' ', (size_t)(strchr(line, '\n') - line)) + 1, NULL, 10);
    const char *whole = strstr(report, " in recorded calls: ");
    ck_assert_ptr_nonnull(whole);
    double whole_ms = strtod(whole + strlen(" in recorded calls: "), NULL);
    ck_assert_msg(fabs((double)sum_us / 1000 - whole_ms) <= 0.001 * (double)lines + 0.01,
                  "%llu us in %llu lines, %.3f ms in the report", sum_us, lines, whole_ms);
    /* pprof: the same time in all, and the most called method with its exact count */
    pprof_view calls, time;
    if (read_pprof(dir, "jevprof.pb.gz", 0, &calls) && read_pprof(dir, "jevprof.pb.gz", 1, &time)) {
        /* each path's self time and the whole were scaled from clock ticks apart: 1 ns each */
        ck_assert_msg(fabs((double)time.total - whole_ms * 1e6) <= (double)time.samples + 500,
                      "%llu ns in %llu samples in pprof, %.3f ms in the report", time.total, time.samples, whole_ms);
        ck_assert_str_eq(calls.top, "Workload.fib(int)");
        /* the calls made deep in fib's recursion, in paths under 0.01%, are the folded frame's */
        ck_assert_uint_le(calls.top_flat, 315680);
        ck_assert_uint_ge(calls.top_flat, 315680 - 315680 / 100);
    }
    free(report), free(collapsed);
    jvmrun_free(&r);
    remove_outputs(dir);
}
END_TEST

/* A row of the report's table headed title that ends with "  name": its self and total times
 * (ms) and calls; 0 when the row is missing. */
static int time_row(const char *report, const char *title, const char *name, double *self_ms, double *total_ms,
                    unsigned long long *calls)
{
    const char *row = table_row(report, title, name);
    double self_share, total_share;
    return row && sscanf(row, "%lf ms %lf%% %lf ms %lf%% %llu", self_ms, &self_share, total_ms, &total_share,
                         calls) == 5;
}

#define TOTAL_TIME "Top 1000 methods by total time\n"

/*
 * CallsWorkload: a thread waiting 2 s in idle() beside the main thread computing in spin().
 * Processor time (the default) ranks spin far above idle, whose waits are left out; wall time
 * (JEVPROF_TIME=wall) gives idle its 2 s.  The overloads work(int) and work(long) keep their
 * own rows (1000 and 2000 calls), and their own frames in the collapsed stacks, where a method
 * that is not overloaded keeps its brief name.
 */
START_TEST(calls_take_processor_time_and_tell_overloads_apart)
{
    static const char *const times[] = {NULL, "JEVPROF_TIME=wall"};
    for (int wall = 0; wall < 2; wall++) {
        char dir[1200];
        jvmrun_result r;
        prepare(dir, sizeof(dir));
        static char files_env[1300], dir_env[1300];
        snprintf(files_env, sizeof(files_env), "JEVMON_REGISTRY_FILES=%s/jevprof.reg", dir);
        snprintf(dir_env, sizeof(dir_env), "JEVPROF_OUTPUT_DIR=%s", dir);
        const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", files_env, dir_env, "JEVPROF_MODE=calls", "JEVPROF_TOP=1000",
                             ATTACHED, "JEVPROF_MIN_SHARE=0", times[wall], NULL}; /* every path: work's are short */
        const char *args[] = {"7", NULL};
        jvmrun_main(jdks[_i], "CallsWorkload", "", env, args, &r);
        ck_assert_int_eq(r.exit_code, 0);
        char *report = read_text(dir, "jevprof-report.txt"), *collapsed = read_text(dir, "jevprof.collapsed");
        ck_assert_ptr_nonnull(report);
        ck_assert_ptr_nonnull(collapsed);
        double spin_self, spin_total, idle_self, idle_total, self, total;
        unsigned long long calls;
        ck_assert_msg(time_row(report, TOTAL_TIME, "CallsWorkload.spin(long)", &spin_self, &spin_total, &calls) &&
                          time_row(report, TOTAL_TIME, "CallsWorkload.idle()", &idle_self, &idle_total, &calls),
                      "%s", report);
        printf("JDK %d, %s time: spin %.1f ms, idle %.1f ms\n", _i, wall ? "wall" : "processor", spin_total,
               idle_total);
        if (wall) {
            expect(report, "Times are wall time");
            ck_assert_msg(idle_total >= 1800, "idle: %.1f ms of wall time\n%s", idle_total, report);
        } else {
            expect(report, "Times are processor time");
            ck_assert_msg(idle_total < 200 && spin_total > 5 * idle_total, "spin %.1f ms, idle %.1f ms\n%s",
                          spin_total, idle_total, report);
        }
        ck_assert_msg(time_row(report, TOTAL_TIME, "CallsWorkload.work(int)", &self, &total, &calls) && calls == 1000,
                      "%s", report);
        ck_assert_msg(time_row(report, TOTAL_TIME, "CallsWorkload.work(long)", &self, &total, &calls) && calls == 2000,
                      "%s", report);
        expect(collapsed, "CallsWorkload.main;CallsWorkload.work(int) ");
        expect(collapsed, "CallsWorkload.main;CallsWorkload.work(long) ");
        expect(collapsed, "CallsWorkload.main;CallsWorkload.spin ");
        /* the per-thread view: the main thread's heaviest path is spin's */
        expect(report, "threads by time");
        expect(report, "  CallsWorkload.main(java.lang.String[]) > CallsWorkload.spin(long)\n");
        free(report), free(collapsed);
        jvmrun_free(&r);
        remove_outputs(dir);
    }
}
END_TEST

/* A run of SpecWorkload under jevprof in calls mode, every path kept, and the files it wrote. */
typedef struct spec_calls {
    char dir[1200];
    jvmrun_result r;
    char *report, *collapsed;
} spec_calls;

static void run_spec_calls(const char *jdk, const char *program, spec_calls *run)
{
    const char *args[] = {program, NULL}, *extras[] = {"JEVPROF_MIN_SHARE=0", NULL};
    prepare(run->dir, sizeof(run->dir));
    run_jevprof_main(jdk, run->dir, ATTACHED, "calls", "jevmon.test.SpecWorkload", args, extras, &run->r);
    ck_assert_int_eq(run->r.exit_code, 0);
    run->report = read_text(run->dir, "jevprof-report.txt");
    run->collapsed = read_text(run->dir, "jevprof.collapsed");
    ck_assert_ptr_nonnull(run->report);
    ck_assert_ptr_nonnull(run->collapsed);
}

static void spec_calls_free(spec_calls *run)
{
    free(run->report), free(run->collapsed);
    jvmrun_free(&run->r);
    remove_outputs(run->dir);
}

/* The report's row for name in the table by total time counts expected calls. */
static void expect_calls(const char *report, const char *name, unsigned long long expected)
{
    char row_end[300];
    double self, total;
    unsigned long long calls = 0;
    snprintf(row_end, sizeof(row_end), "  %s\n", name);
    expect(report, row_end);
    ck_assert_msg(time_row(report, TOTAL_TIME, name, &self, &total, &calls) && calls == expected, "%s: %llu calls",
                  name, calls);
}

/*
 * A bridge and the covariant method it calls differ only in their return types: each gets its
 * own row, and the call from one to the other is no recursion.
 */
START_TEST(bridge_and_covariant_methods_named_apart)
{
    spec_calls run;
    run_spec_calls(jdks[_i], "covariant", &run);
    ck_assert_str_eq(run.r.out, "covariant v9\n");
    expect_calls(run.report, "jevmon.test.SpecWorkload$Sup.get(): java.lang.Object", 10);
    expect_calls(run.report, "jevmon.test.SpecWorkload$Sup.get(): java.lang.String", 10);
    expect(run.collapsed, "jevmon.test.SpecWorkload.covariant;jevmon.test.SpecWorkload$Sup.get(): java.lang.Object;"
                          "jevmon.test.SpecWorkload$Sup.get(): java.lang.String");
    ck_assert_msg(!strstr(run.collapsed, "SpecWorkload$Sup.get;"), "a fake recursion of Sup.get");
    spec_calls_free(&run);
}
END_TEST

/* The methods of a class that unloaded before the report keep their names. */
START_TEST(unloaded_classes_methods_keep_their_names)
{
    spec_calls run;
    run_spec_calls(jdks[_i], "unload", &run);
    ck_assert_str_eq(run.r.out, "unloaded\n");
    expect_calls(run.report, "jevmon.test.SpecWorkload$Unloadable.tick(int)", 1000);
    expect(run.collapsed, "jevmon.test.SpecWorkload$Unloadable.run;jevmon.test.SpecWorkload$Unloadable.tick ");
    ck_assert_msg(!strstr(run.report, "<unknown method"), "a method without its name");
    spec_calls_free(&run);
}
END_TEST

int main(void)
{
    jdk_count = jvmrun_find_jdks(jdks);
    Suite *s = suite_create("jevprof_calls");
    TCase *tc = tcase_create("jevprof_calls");
    tcase_set_timeout(tc, 240);
    tcase_add_loop_test(tc, call_counts_are_exact, 0, jdk_count);
    tcase_add_loop_test(tc, calls_take_processor_time_and_tell_overloads_apart, 0, jdk_count);
    tcase_add_loop_test(tc, bridge_and_covariant_methods_named_apart, 0, jdk_count);
    tcase_add_loop_test(tc, unloaded_classes_methods_keep_their_names, 0, jdk_count);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
