/*
 * test_profile_truth.c - jevprof's cpu and wall modes against a known truth, on every JDK under
 * /usr/lib/jvm, through bin/jevprof.
 *
 *   - cpu mode, SamplingWorkload periodic: three threads run rounds of a, b and c lasting the
 *     sampling interval, half of it and twice it, the worst case for a sampler with a fixed period
 *     (each sample would land at the same phase of a round, and the shares would follow the phase);
 *     each thread's a, b and c get 60/30/10% of its samples within 4.9 standard deviations of a
 *     binomial share (about 2 points), each thread a sample per ms of the processor time it says it
 *     used (90% at least), and the three waiting threads 1% of all samples at most; HotSpot's
 *     DebugNonSafepoints is on from the program's start; the report says the samples were asked for by per-thread
 *     processor-time timers and how many were taken; the pprof file's samples are processor
 *     nanoseconds.
 *   - cpu mode, 8 threads spinning on two processors at 1 ms: the samples times the interval are
 *     the processor time the timed threads used, within 2%, and the report says both.
 *   - cpu mode, a compiled caller calling a small compiled callee in a loop: the samples taken while
 *     the callee's frame is set up or taken down (59% of them on both JDKs, where AsyncGetCallTrace
 *     cannot walk) have the callee on top of its caller, and 5% at most stay unwalked: 0-2% did in
 *     eight runs, about 3,000 samples each, so a correct walk passes all but with a chance far below
 *     1 in 10,000 (5% is over ten binomial standard deviations above 2%).
 *   - no run calls the loader (dladdr, dlopen) inside the SIGPROF handler.
 *   - wall mode, SamplingWorkload truth: each of the four threads gets its share of the samples (a
 *     quarter of theirs, within 10%), each labelled with its state: running (main, 90% at least),
 *     native (acceptor, in accept), waiting (waiter), sleeping (sleeper); the sleeper, which sleeps
 *     50 ms in one place then 50 ms in another, has 40 to 60% of its samples in each; the waiter's
 *     samples but its first (90% at least) are counted without a look, as it never runs; the pprof
 *     file's samples are wall nanoseconds with a "thread state" label.
 *
 * The workloads run until their threads have done a set amount of work (rounds counted, or
 * processor time used), so a loaded machine makes them slower, not different.  The truth is what
 * the program counted: iterations of one loop body, not clocks read while it runs.
 */
#include <check.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/jvmrun.h"
#include "../support/testkit.h"

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

/* Runs SamplingWorkload with workload (its mode and arguments) under bin/jevprof (java: the JDK's
 * launcher, given java_options) in a new directory (dir); its collapsed file.  libjevdlwatch.so is
 * preloaded: no sample may call the loader inside its SIGPROF handler (the first walk at a frame's
 * edge looked HotSpot's symbols up there, 11 calls, and could hang its thread). */
static char *run_sampled(const char *java, const char *java_options, const char *mode, const char *interval_ms,
                         const char *workload, char *dir, size_t size)
{
    char arguments[4096], path[1400];
    snprintf(dir, size, "%s", jvmrun_build_path("truth.XXXXXX"));
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(arguments, sizeof(arguments), "--out '%s' --mode %s --interval %s -- '%s' %s -cp '%s' SamplingWorkload %s",
             dir, mode, interval_ms, java, java_options, jvmrun_build_path("java"), workload);
    /* The program's output stays in dir/out.txt: what it says it did is part of the truth. */
    char *err = NULL;
    ck_assert_int_eq(jvmrun_shell(dir, NULL, &err, "LD_PRELOAD=\"${LD_PRELOAD:+$LD_PRELOAD }%s\" '%s/bin/jevprof' %s",
                                  jvmrun_build_path("java/libjevdlwatch.so"), jvmrun_source_dir(), arguments),
                     0);
    ck_assert_msg(!strstr(err, "jevdlwatch:"), "%s", err);
    free(err);
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

/* Processor time of each periodic thread, in seconds at 1 ms: about 12,000 samples each. */
#define PERIODIC_SECONDS "12"
/* Standard deviations a share may be off by: the bound of assert_share_of below. */
#define PERIODIC_SIGMAS 4.9

/* The processor time (ms) the periodic thread name says it used, in the program's output. */
static double periodic_thread_ms(const char *out, const char *name)
{
    char key[64];
    snprintf(key, sizeof(key), "%s: ", name);
    const char *at = strstr(out, key);
    ck_assert_msg(at != NULL, "no \"%s\" in the program's output:\n%s", key, out);
    return strtod(at + strlen(key), NULL) / 1000;
}

/* Each interval's sample falls at a uniform random point of it, so whatever the round's length each
 * sample lands in a with chance 60%, b 30%, c 10%, independently of the others for rounds of the
 * interval and of half of it, anti-correlated (stratified: less spread) for twice it.  So a share of
 * n samples deviates at most as a binomial one, sigma = sqrt(p (1 - p) / n): at n = 12,000 that is
 * 0.447 points for a, 0.418 for b and 0.274 for c.  A share is refused beyond 4.9 sigma (2.19, 2.05
 * and 1.34 points there), which a correct profiler passes but with chance 9.6e-7 each: the 18 checks
 * of the test (3 threads, 3 shares, 2 JDKs) fail with chance 1.7e-5.  A fixed 1 ms period moved a by
 * 3 to 7 points (test_profile_truth before intervals at random). */
static void assert_share_of(const char *what, unsigned long long part, unsigned long long whole, double expected)
{
    double sigma = 100 * sqrt(expected / 100 * (1 - expected / 100) / (double)whole);
    assert_share(what, part, whole, expected, PERIODIC_SIGMAS * sigma);
}

START_TEST(cpu_mode_tells_the_truth_of_a_periodic_program)
{
    static const char *const threads[] = {"SamplingWorkload.periodOne", "SamplingWorkload.periodHalf",
                                          "SamplingWorkload.periodDouble"};
    static const char *const names[] = {"period-one", "period-half", "period-double"};
    char dir[1200];
    char *collapsed = run_sampled(jdks[_i],
                                  "-XX:CompileCommand=quiet -XX:CompileCommand=dontinline,SamplingWorkload::work "
                                  "-XX:+UnlockDiagnosticVMOptions -Djevmon.test.flag=DebugNonSafepoints",
                                  "cpu", "1", "periodic 1 " PERIODIC_SECONDS, dir, sizeof(dir));
    char *out = read_in(dir, "out.txt");
    ck_assert_ptr_nonnull(out);
    /* Set by the sampler itself, before main: compiled code names the lines that run between
     * safepoints without CompiledMethodLoad events, whose service-thread wake-ups cost more. */
    ck_assert_msg(strstr(out, "flag DebugNonSafepoints true") != NULL, "%s", out);
    unsigned long long all = weight(collapsed, NULL, NULL, NULL);
    unsigned long long waiting = weight(collapsed, "SamplingWorkload.acceptor", NULL, NULL) +
                                 weight(collapsed, "SamplingWorkload.waiter", NULL, NULL) +
                                 weight(collapsed, "SamplingWorkload.sleeper", NULL, NULL);
    printf("JDK %d, cpu mode:\n", _i);
    for (size_t i = 0; i < sizeof(threads) / sizeof(*threads); i++) {
        unsigned long long a = weight(collapsed, threads[i], "SamplingWorkload.periodicA", NULL),
                           b = weight(collapsed, threads[i], "SamplingWorkload.periodicB", NULL),
                           c = weight(collapsed, threads[i], "SamplingWorkload.periodicC", NULL);
        double used_ms = periodic_thread_ms(out, names[i]);
        printf(" %s: %.0f ms of processor time, %llu samples in a, b and c\n", threads[i], used_ms, a + b + c);
        /* The rounds were sized from a timing taken before them, so the processor time they used is
         * what the thread says, not PERIODIC_SECONDS.  One sample per 1 ms of it: a few land in the
         * round loop itself, the thread's start or cannot be walked, far from a tenth (11 of 12,094
         * here idle); not a matter of chance. */
        ck_assert_double_ge(used_ms, 6000);
        ck_assert_msg((double)(a + b + c) >= 0.9 * used_ms, "%llu samples in a, b and c for %.0f ms",
                      a + b + c, used_ms);
        assert_share_of("a", a, a + b + c, 60);
        assert_share_of("b", b, a + b + c, 30);
        assert_share_of("c", c, a + b + c, 10);
    }
    /* The waiting threads use no processor time once started: their samples are their start's few
     * (at most a few ms of it each), far below 1% of the 36,000; not a matter of chance. */
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
    free(out);
    free(collapsed);
    remove_run(dir);
}
END_TEST

/* The report's "Processor time sampled: U s used by the timed threads, S s sampled". */
static void sampled_time(const char *report, double *used, double *sampled)
{
    const char *line = strstr(report, "Processor time sampled: ");
    ck_assert_msg(line != NULL, "no processor time line in:\n%s", report);
    ck_assert_int_eq(sscanf(line, "Processor time sampled: %lf s used by the timed threads, %lf s sampled", used,
                            sampled), 2);
}

START_TEST(cpu_samples_stand_for_the_processor_time_used)
{
    char dir[1200];
    /* Eight threads spinning on this machine's processors (two here, shared with other builds), 1 ms. */
    char *collapsed = run_sampled(jdks[_i], "", "cpu", "1", "threads 8 4", dir, sizeof(dir));
    char *report = read_in(dir, "jevprof-report.txt");
    ck_assert_ptr_nonnull(report);
    double used = 0, sampled = 0;
    sampled_time(report, &used, &sampled);
    printf("JDK %d: %.3f s of processor time used, %.3f s sampled (%.2f%%)\n", _i, used, sampled,
           used > 0 ? 100 * sampled / used : 0);
    ck_assert_double_ge(used, 0.5); /* 4 s of 8 busy threads: however loaded, some of two processors */
    /* Not a matter of chance: each interval of a thread's processor time has exactly one sample (with
     * a Java stack, or counted as without one: starting, ending, not walkable), so the samples miss
     * only each thread's last interval, cut short (1 ms of each of a dozen threads at most, under
     * 2.5% of 0.5 s; 0.1% here).  A fixed period re-armed after each signal recorded 98% here, 106%
     * on another machine (the task clock's timer is also restarted at each context switch). */
    ck_assert_msg(sampled >= 0.98 * used && sampled <= 1.02 * used, "%.3f s sampled for %.3f s used",
                  sampled, used);
    /* The sampling thread drains the samples every 50 ms, sooner where all the processors could
     * fill a quarter of the bridge's 512 slots first at 1 ms, never more than once per ms: it woke
     * at every interval (a thousand times a second), each wake-up tens of microseconds. */
    char *out = read_in(dir, "out.txt");
    const char *woke = out ? strstr(out, "jevprof sampler woke ") : NULL;
    unsigned long wake_ups = 0, ms = 0;
    ck_assert_msg(woke && sscanf(woke, "jevprof sampler woke %lu times in %lu ms", &wake_ups, &ms) == 2 && ms >= 1000,
                  "%s", out ? out : "no out.txt");
    cpu_set_t allowed;
    ck_assert_int_eq(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
    double drain_ms = 128.0 / CPU_COUNT(&allowed);
    drain_ms = drain_ms > 50 ? 50 : drain_ms < 1 ? 1 : drain_ms;
    printf("JDK %d: the sampling thread woke %lu times in %lu ms (a drain every %.1f ms)\n", _i, wake_ups, ms, drain_ms);
    ck_assert_msg(wake_ups <= 1.5 * ms / drain_ms + 20, "%lu wake-ups in %lu ms", wake_ups, ms);
    free(out);
    free(report);
    free(collapsed);
    remove_run(dir);
}
END_TEST

/* The number after "what" in the report. */
static unsigned long long report_number(const char *report, const char *what)
{
    const char *at = strstr(report, what);
    ck_assert_msg(at != NULL, "no \"%s\" in:\n%s", what, report);
    return strtoull(at + strlen(what), NULL, 10);
}

START_TEST(short_lived_threads_are_sampled_in_proportion)
{
    char dir[1200];
    /* 5,000 threads of about 0.3 ms of processor time each, at 1 ms. */
    char *collapsed = run_sampled(jdks[_i], "", "cpu", "1", "short 5000", dir, sizeof(dir));
    char *report = read_in(dir, "jevprof-report.txt");
    ck_assert_ptr_nonnull(report);
    unsigned long long asked = report_number(report, "Samples asked for: "),
                       taken = report_number(report, "Samples taken: "),
                       last = report_number(report, "failed, ");
    printf("JDK %d: 5,000 short threads: %llu samples taken of %llu asked for, %llu missing in threads' last "
           "intervals\n", _i, taken, asked, last);
    ck_assert_uint_ge(asked, 500);
    /* Every missing sample has its reason in the report (no Java frame, not walkable ...); what is
     * left are the threads' last intervals.  A thread's first sample falls at a random point of its
     * first interval, so a thread that runs a fraction f of one is sampled with chance f: the samples
     * taken are a sum of 5,000 such draws whose mean is what was asked, the remainder's mean is 0 and
     * its spread sqrt(sum f(1-f)) < sqrt(asked).  4 sqrt(asked) (187 of 2,180 here) is 4 sigma at the
     * widest: a correct profiler fails with chance 3.2e-5.  A timer that expired after a whole
     * interval left half the samples of such threads untaken and unexplained (633 of 1,269 taken);
     * counting the processor time from before the timer was set up left 218 of 2,176 here. */
    ck_assert_msg((double)last <= 4 * sqrt((double)asked), "%llu samples missing in the last intervals of %llu asked",
                  last, asked);
    ck_assert_ptr_nonnull(strstr(report, " in the last interval of a thread (its sample falls at a random point"));
    free(report);
    free(collapsed);
    remove_run(dir);
}
END_TEST

/* SamplingWorkload's spinBlocked: spins for cpu_ns of the thread's processor time with SIGPROF blocked. */
static const char blocking_library[] =
    "#include <jni.h>\n#include <pthread.h>\n#include <signal.h>\n#include <time.h>\n"
    "static long long cpu_ns(void) { struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);\n"
    "    return t.tv_sec * 1000000000LL + t.tv_nsec; }\n"
    "JNIEXPORT void JNICALL Java_SamplingWorkload_spinBlocked(JNIEnv *env, jclass c, jlong ns) {\n"
    "    sigset_t prof, old; volatile unsigned long x = 0; long long start = cpu_ns();\n"
    "    (void)env, (void)c; sigemptyset(&prof); sigaddset(&prof, SIGPROF);\n"
    "    pthread_sigmask(SIG_BLOCK, &prof, &old);\n"
    "    while (cpu_ns() - start < ns) for (int i = 0; i < 10000; i++) x += i;\n"
    "    pthread_sigmask(SIG_SETMASK, &old, NULL);\n}\n";

START_TEST(a_thread_blocking_sigprof_has_its_samples_accounted)
{
    char dir[1200], source[1400], workload[1600], jdk[512];
    snprintf(dir, sizeof(dir), "%s", jvmrun_build_path("blocked.XXXXXX"));
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(source, sizeof(source), "%s/blocked.c", dir);
    FILE *f = fopen(source, "w");
    ck_assert_ptr_nonnull(f);
    fputs(blocking_library, f);
    fclose(f);
    snprintf(jdk, sizeof(jdk), "%s", jdks[_i]);
    *strstr(jdk, "/bin/java") = '\0';
    ck_assert_int_eq(jvmrun_shell(dir, NULL, NULL, "gcc -shared -fPIC -O1 -I'%s/include' -I'%s/include/linux' "
                                                    "-o libblocked.so blocked.c -pthread", jdk, jdk), 0);
    snprintf(workload, sizeof(workload), "blocked '%s/libblocked.so' 3", dir);
    char out[1200];
    char *collapsed = run_sampled(jdks[_i], "", "cpu", "1", workload, out, sizeof(out));
    char *report = read_in(out, "jevprof-report.txt");
    ck_assert_ptr_nonnull(report);
    unsigned long long asked = report_number(report, "Samples asked for: "),
                       taken = report_number(report, "Samples taken: "), last = report_number(report, "failed, ");
    printf("JDK %d: SIGPROF blocked 5 ms of every 6: %llu samples taken of %llu asked for, %llu missing in threads' "
           "last intervals\n", _i, taken, asked, last);
    ck_assert_uint_ge(asked, 2000);
    /* The intervals that went by while the signal was blocked come merged into the sample taken when
     * it is unblocked, and the report says so; nothing is left unexplained but the threads' last
     * intervals (a dozen threads: at most 12, whatever the chance).  Before: 50.1% taken, 1 of the
     * missing half explained. */
    ck_assert_ptr_nonnull(strstr(report, " intervals went by without their own signal and came merged into the next"));
    ck_assert_msg((double)last <= 4 * sqrt((double)asked), "%llu unexplained of %llu", last, asked);
    free(report);
    free(collapsed);
    remove_run(out);
    jvmrun_remove_shell_dir(dir, "blocked.c libblocked.so");
}
END_TEST

START_TEST(samples_at_a_frame_edge_are_walked)
{
    char dir[1200];
    char *collapsed = run_sampled(jdks[_i], "-XX:CompileCommand=quiet -XX:CompileCommand=dontinline,SamplingWorkload::edgeCallee",
                                  "cpu", "1", "edges 3", dir, sizeof(dir));
    unsigned long long main_thread = weight(collapsed, "SamplingWorkload.main", NULL, NULL),
                       unwalked = weight(collapsed, "[not walkable]", NULL, NULL),
                       callee = weight(collapsed, "SamplingWorkload.edgeCallee", NULL, NULL),
                       under_caller = weight(collapsed, "SamplingWorkload.edgeCallee", "SamplingWorkload.edgeCaller", NULL);
    printf("%s: edges: %llu samples in main, callee %llu (%llu on its caller), %llu not walkable\n", jdks[_i], main_thread,
           callee, under_caller, unwalked);
    ck_assert_uint_gt(main_thread, 2000); /* 3 s at 1 ms */
    ck_assert_uint_eq(callee, under_caller);
    ck_assert_msg(unwalked * 20 <= main_thread + unwalked, "%llu of %llu samples not walkable", unwalked,
                  main_thread + unwalked);
    free(collapsed);
    remove_run(dir);
}
END_TEST

/* The samples of the report's "Threads by samples" row named name ("  2998  50.02%  17600  Java  waiter"), or 0. */
static unsigned long long thread_row_samples(const char *report, const char *name)
{
    char row_end[128];
    snprintf(row_end, sizeof(row_end), "  %s\n", name);
    const char *table = strstr(report, "\nThreads by samples"), *table_end = table ? strstr(table, "\n\n") : NULL;
    const char *row = table ? strstr(table, row_end) : NULL;
    if (!row || (table_end && row > table_end))
        return 0;
    while (row[-1] != '\n') /* back to the row's start: the table's heading line is before it */
        row--;
    return strtoull(row, NULL, 10);
}

START_TEST(wall_mode_gives_each_thread_its_share_and_state)
{
    char dir[1200];
    char *collapsed = run_sampled(jdks[_i], "", "wall", "5", "truth 1.5", dir, sizeof(dir));
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
    /* Not a matter of chance: each tick samples every live thread, so the four threads' counts
     * differ only by the ticks before the three idle ones started (the main thread's first few ms)
     * and by samples that failed (none are expected).  1.5 s of processor time at 5 ms: 300 ticks
     * at least, 1,200 samples. */
    ck_assert_uint_ge(sum, 400);
    for (size_t i = 0; i < 4; i++) {
        assert_share(threads[i].frame, each[i], sum, 25, 2.5); /* a quarter, within 10% of it */
        /* The states are read, not sampled at random: an idle thread is in its state at every
         * tick but those of its start and end (2% allows 6 of 300); main is running but while
         * it reads its processor-time clock (a native call, well under 1% of a round) or waits for
         * the collector, 90% allows 30 of 300. */
        unsigned long long in_state = weight(collapsed, threads[i].frame, NULL, threads[i].state);
        printf("  %s: %llu of %llu %s\n", threads[i].frame, in_state, each[i], threads[i].state);
        ck_assert_uint_ge(in_state * 100, each[i] * threads[i].min_percent);
    }
    /* Each sample is where the thread was at its tick, looked at or not: the sleeper's wake-ups
     * move it, and about 20 ticks fall in each round of two sleeps (half an interval off at most at
     * each end of each sleep: 5% of a sleep's ten ticks). */
    unsigned long long here = weight(collapsed, "SamplingWorkload.sleepHere", NULL, NULL),
                       there = weight(collapsed, "SamplingWorkload.sleepThere", NULL, NULL);
    printf("  sleeper: %llu in one place, %llu in the other\n", here, there);
    ck_assert_uint_ge((here + there) * 100, each[3] * 98);
    ck_assert_uint_ge(here * 10, (here + there) * 4);
    ck_assert_uint_ge(there * 10, (here + there) * 4);
    /* A thread that stood still since a look at it is not looked at again (where the clock moves
     * whenever a thread runs, as Linux's does): the waiter never runs after its first sample. */
    char *report = read_in(dir, "jevprof-report.txt");
    ck_assert_ptr_nonnull(report);
    const char *still = strstr(report, "Thread samples counted without a look: ");
    ck_assert_msg(still, "%s", report);
    unsigned long long unlooked = strtoull(still + strlen("Thread samples counted without a look: "), NULL, 10);
    printf("  counted without a look: %llu\n", unlooked);
    ck_assert_uint_ge(unlooked * 10, each[2] * 9);
    /* and the thread table counts those samples too: the waiter's row has its samples in the profile */
    unsigned long long in_table = thread_row_samples(report, "waiter");
    printf("  the waiter's samples in the thread table: %llu\n", in_table);
    ck_assert_uint_ge(in_table * 100, each[2] * 98);
    ck_assert_uint_le(in_table * 100, each[2] * 102);
    free(report);
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
    tcase_set_timeout(tc, 900); /* 36 s of processor time, on a loaded machine a third of a core */
    tcase_add_loop_test(tc, cpu_mode_tells_the_truth_of_a_periodic_program, 0, jdk_count);
    tcase_add_loop_test(tc, wall_mode_gives_each_thread_its_share_and_state, 0, jdk_count);
    tcase_add_loop_test(tc, samples_at_a_frame_edge_are_walked, 0, jdk_count);
    suite_add_tcase(s, tc);
    TCase *time = tcase_create("processor_time");
    tcase_set_timeout(time, 300);
    tcase_add_loop_test(time, cpu_samples_stand_for_the_processor_time_used, 0, jdk_count);
    tcase_add_loop_test(time, short_lived_threads_are_sampled_in_proportion, 0, jdk_count);
    tcase_add_loop_test(time, a_thread_blocking_sigprof_has_its_samples_accounted, 0, jdk_count);
    suite_add_tcase(s, time);
    return tk_run_suite(s);
}
