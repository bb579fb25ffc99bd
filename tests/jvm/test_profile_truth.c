/*
 * test_profile_truth.c - jevprof's cpu and wall modes against a known truth, on every JDK under
 * /usr/lib/jvm, through bin/jevprof: SamplingWorkload truth, whose main thread spends 60%,
 * 30% and 10% of its processor time in a, b and c while thread "acceptor" blocks in accept,
 * "waiter" in Object.wait and "sleeper" in Thread.sleep.
 *
 *   - cpu mode: a, b and c get 60/30/10% of the samples of the measured rounds (after the warm ones,
 *     which compile them) within 2 points, and the three
 *     waiting threads 1% of all samples at most; the report says the samples were asked for by
 *     per-thread processor-time timers and how many were taken; the pprof file's samples are
 *     processor nanoseconds.
 *   - wall mode: each of the four threads gets its share of the samples (a quarter of theirs, within
 *     10%), each labelled with its state: running (main, 90% at least), native (acceptor, in
 *     accept), waiting (waiter), sleeping (sleeper); the pprof file's samples are wall nanoseconds
 *     with a "thread state" label.
 *
 * The workload runs until its main thread has used a set processor time, so a loaded machine
 * makes it slower, not different.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/jvmrun.h"
#include "../support/testkit.h"

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

/* Runs SamplingWorkload truth under bin/jevprof (java: the JDK's launcher) in a new directory (dir); its
 * collapsed file. */
static char *run_truth(const char *java, const char *mode, const char *interval_ms, const char *cpu_seconds,
                       char *dir, size_t size)
{
    char arguments[4096], path[1400];
    snprintf(dir, size, "%s", jvmrun_build_path("truth.XXXXXX"));
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(arguments, sizeof(arguments),
             "--out '%s' --mode %s --interval %s -- '%s' -cp '%s' SamplingWorkload truth %s", dir, mode,
             interval_ms, java, jvmrun_build_path("java"), cpu_seconds);
    ck_assert_int_eq(jvmrun_jevprof_script(arguments), 0);
    snprintf(path, sizeof(path), "%s/jevprof.collapsed", dir);
    char *collapsed = tk_read_file(path);
    ck_assert_msg(collapsed != NULL, "no %s", path);
    return collapsed;
}

static char *read_in(const char *dir, const char *name)
{
    char path[1400];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return tk_read_file(path);
}

/* Does the collapsed line (up to its weight's space) have frame as one of its frames? */
static int has_frame(const char *line, const char *space, const char *frame)
{
    size_t length = strlen(frame);
    for (const char *at = line; at < space;) {
        const char *end = memchr(at, ';', (size_t)(space - at));
        if (!end)
            end = space;
        if ((size_t)(end - at) == length && memcmp(at, frame, length) == 0)
            return 1;
        at = end + 1;
    }
    return 0;
}

/* The weight of the collapsed lines with frame and also among their frames (NULL: any line) and,
 * when last is not NULL, last as their last frame. */
static unsigned long long weight(const char *collapsed, const char *frame, const char *also, const char *last)
{
    unsigned long long sum = 0;
    for (const char *line = collapsed; *line;) {
        const char *end = strchr(line, '\n'), *space = end ? memrchr(line, ' ', (size_t)(end - line)) : NULL;
        if (!end)
            break;
        if (space && (!frame || has_frame(line, space, frame)) && (!also || has_frame(line, space, also))) {
            size_t length = last ? strlen(last) : 0;
            if (!last || ((size_t)(space - line) >= length && memcmp(space - length, last, length) == 0))
                sum += strtoull(space + 1, NULL, 10);
        }
        line = end + 1;
    }
    return sum;
}

/* What `go tool pprof -raw` says of the file, or NULL when there is no go. */
static char *pprof_raw(const char *dir)
{
    char *out = NULL;
    if (system("command -v go >/dev/null") != 0) {
        fprintf(stderr, "skipped: no go (golang-go): the pprof file is not read back\n");
        return NULL;
    }
    ck_assert_int_eq(jvmrun_shell(dir, &out, NULL, "go tool pprof -raw jevprof.pb.gz"), 0);
    return out;
}

static void remove_run(const char *dir)
{
    static const char *const files[] = {"jevprof-report.txt", "jevprof.collapsed", "jevprof-flame.html",
                                        "jevprof.pb.gz", "out.txt", "err.txt"};
    char path[1400];
    for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
        remove(path);
    }
    remove(dir);
}

static void assert_share(const char *what, unsigned long long part, unsigned long long whole, double expected,
                         double points)
{
    double share = whole ? 100.0 * (double)part / (double)whole : 0;
    printf("  %s: %llu of %llu, %.2f%% (truth %.0f%%)\n", what, part, whole, share, expected);
    ck_assert_msg(share >= expected - points && share <= expected + points, "%s: %.2f%%, not %.0f%% within %.0f points",
                  what, share, expected, points);
}

START_TEST(cpu_mode_tells_the_truth)
{
    char dir[1200];
    char *collapsed = run_truth(jdks[_i], "cpu", "1", "3", dir, sizeof(dir));
    static const char measured[] = "SamplingWorkload.measured";
    unsigned long long a = weight(collapsed, measured, "SamplingWorkload.a", NULL),
                       b = weight(collapsed, measured, "SamplingWorkload.b", NULL),
                       c = weight(collapsed, measured, "SamplingWorkload.c", NULL), all = weight(collapsed, NULL, NULL, NULL);
    unsigned long long waiting = weight(collapsed, "SamplingWorkload.acceptor", NULL, NULL) +
                                 weight(collapsed, "SamplingWorkload.waiter", NULL, NULL) +
                                 weight(collapsed, "SamplingWorkload.sleeper", NULL, NULL);
    printf("JDK %d, cpu mode:\n", _i);
    ck_assert_uint_ge(a + b + c, 2500); /* 3 s of the main thread's processor time at 1 ms */
    assert_share("a", a, a + b + c, 60, 2);
    assert_share("b", b, a + b + c, 30, 2);
    assert_share("c", c, a + b + c, 10, 2);
    ck_assert_msg(waiting * 100 <= all, "%llu of %llu samples in the waiting threads", waiting, all);
    char *report = read_in(dir, "jevprof-report.txt");
    ck_assert_ptr_nonnull(report);
    ck_assert_ptr_nonnull(strstr(report, "Sampled by: a timer on each Java thread's processor-time clock"));
    ck_assert_ptr_nonnull(strstr(report, "Samples asked for: "));
    ck_assert_ptr_nonnull(strstr(report, "Samples taken: "));
    char *raw = pprof_raw(dir);
    if (raw) {
        ck_assert_ptr_nonnull(strstr(raw, "PeriodType: cpu nanoseconds\n"));
        ck_assert_ptr_nonnull(strstr(raw, "samples/count cpu/nanoseconds\n"));
        free(raw);
    }
    free(report);
    free(collapsed);
    remove_run(dir);
}
END_TEST

START_TEST(wall_mode_gives_each_thread_its_share_and_state)
{
    char dir[1200];
    char *collapsed = run_truth(jdks[_i], "wall", "5", "1.5", dir, sizeof(dir));
    static const struct {
        const char *frame, *state;
        unsigned min_percent; /* of its samples in that state */
    } threads[] = {{"SamplingWorkload.truth", "[running]", 90}, /* the rest: reading its processor time */
                   {"SamplingWorkload.acceptor", "[native]", 98}, /* the rest: starting, ending */
                   {"SamplingWorkload.waiter", "[waiting]", 98},
                   {"SamplingWorkload.sleeper", "[sleeping]", 98}};
    unsigned long long each[4], sum = 0;
    printf("JDK %d, wall mode:\n", _i);
    for (size_t i = 0; i < 4; i++)
        sum += each[i] = weight(collapsed, threads[i].frame, NULL, NULL);
    ck_assert_uint_ge(sum, 400);
    for (size_t i = 0; i < 4; i++) {
        assert_share(threads[i].frame, each[i], sum, 25, 2.5); /* a quarter, within 10% of it */
        unsigned long long in_state = weight(collapsed, threads[i].frame, NULL, threads[i].state);
        printf("  %s: %llu of %llu %s\n", threads[i].frame, in_state, each[i], threads[i].state);
        ck_assert_uint_ge(in_state * 100, each[i] * threads[i].min_percent);
    }
    char *raw = pprof_raw(dir);
    if (raw) {
        ck_assert_ptr_nonnull(strstr(raw, "samples/count wall/nanoseconds\n"));
        ck_assert_ptr_nonnull(strstr(raw, "thread state:[sleeping]"));
        ck_assert_ptr_nonnull(strstr(raw, "thread state:[native]"));
        free(raw);
    }
    free(collapsed);
    remove_run(dir);
}
END_TEST

int main(void)
{
    if ((jdk_count = jvmrun_suite_jdks(jdks)) == 0)
        return 0;
    Suite *s = suite_create("profile_truth");
    TCase *tc = tcase_create("truth");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, cpu_mode_tells_the_truth, 0, jdk_count);
    tcase_add_loop_test(tc, wall_mode_gives_each_thread_its_share_and_state, 0, jdk_count);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
