/*
 * test_sampling.c - SampleThreadLocation on real JVMs (every JDK under /usr/lib/jvm): the
 * fx_sampler monitor samples SamplingWorkload's threads at 1 kHz and logs what it got.
 *
 *   - shares: a, b and c run 60/30/10 of the time; the samples say so within 5 points, and
 *     nearly all are exact (the stack walk and the code's owner agree).  JFR's execution sampler
 *     records the same workload at the same rate; both are printed side by side.
 *   - sampling alone leaves CompiledMethodLoad off: HotSpot's service thread is not woken for each
 *     method compiled (the 60/30/10 samples are exact without it).
 *   - a sleeping thread is BLOCKING; a thread in System.gc() is GC when sampled there; the
 *     sampler's own thread is PROFILER; a thread defining classes is LOADER in defineClass1.
 *   - every method the JVM reports compiled maps back from its code (JITCompiledMethodInformation
 *     through the code map); IDs that are no threads' fail cleanly.
 *   - 16 threads sampled from 2 sampler threads for 10 s: the JVM ends normally, and no
 *     thread's samples name another thread's method.
 *   - IJevmonSampling2::SampleThreadStack: for a parked thread and a spinning one, each in a known
 *     stack, its frames are GetStackTrace's, taken right after.
 *   - IJevmonSampling3::SampleThreadFrames: the same two threads' frames with their bytecode
 *     offsets, which MethodInformation's line table puts on the lines of SamplingWorkload.java that
 *     run: the spinning loop, the calls in each caller (not the methods' first lines); on both
 *     mechanisms (JVMTI events, instrumentation), the offsets are instructions javap lists.
 */
#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../support/testkit.h"
#include "support/jvmrun.h"

#define FX_SAMPLER "{821E1225-5E6E-41E1-87BE-6280CCB05DAD}"

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

/* extra_env, more_env: variables to add, or NULL. */
static void run_sampled_with(const char *jdk, const char *extra_env, const char *more_env, const char *const *args,
                             jvmrun_result *r)
{
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX_SAMPLER, "FXSAMPLE_HZ=1000",
                         extra_env, more_env, NULL};
    jvmrun_main(jdk, "SamplingWorkload", "", env, args, r);
    if (r->exit_code != 0)
        printf("exit %d\nstdout:\n%s\nstderr:\n%s\n", r->exit_code, r->out, r->err);
}

static void run_sampled(const char *jdk, const char *extra_env, const char *const *args, jvmrun_result *r)
{
    run_sampled_with(jdk, extra_env, NULL, args, r);
}

/* One "sample" line of the monitor's log. */
typedef struct sample_line {
    unsigned long thread;
    char method[1024];
    int location, accuracy, has_ip;
    unsigned long long n;
} sample_line;

/* Calls fn for every sample line of the log. */
static void each_sample(const char *log, void (*fn)(const sample_line *line, void *arg), void *arg)
{
    for (const char *p = log; p && *p;) {
        const char *end = strchr(p, '\n');
        sample_line l;
        if (strncmp(p, "sample ", 7) == 0 &&
            sscanf(p, "sample %lx %1023s loc=%d acc=%d ip=%d n=%llu", &l.thread, l.method, &l.location, &l.accuracy,
                   &l.has_ip, &l.n) == 6)
            fn(&l, arg);
        p = end ? end + 1 : NULL;
    }
}

/* Runs a SamplingWorkload mode under the sampler, checks it ended well, and folds its samples with fn. */
static void sample_workload(const char *jdk, const char *extra_env, const char *const *args,
                            void (*fn)(const sample_line *line, void *arg), void *arg)
{
    jvmrun_result r;
    run_sampled(jdk, extra_env, args, &r);
    ck_assert_int_eq(r.exit_code, 0);
    each_sample(r.log, fn, arg);
    jvmrun_free(&r);
}

/* ---- 60/30/10 ------------------------------------------------------------------------------ */

static const char *const share_methods[] = {"SamplingWorkload.a(", "SamplingWorkload.b(", "SamplingWorkload.c("};
static const double share_truth[] = {60, 30, 10};

typedef struct shares {
    double n[3];
    double exact; /* of those, samples with accuracy EXACT */
} shares;

static void add_share(const sample_line *l, void *arg)
{
    shares *s = arg;
    for (int i = 0; i < 3; i++)
        if (strncmp(l->method, share_methods[i], strlen(share_methods[i])) == 0) {
            s->n[i] += (double)l->n;
            if (l->accuracy == 100 && l->has_ip)
                s->exact += (double)l->n;
        }
}

/* JFR's view: the top frames of jdk.ExecutionSample events in `jfr print` output. */
static void jfr_shares(const char *jdk, const char *recording, shares *s)
{
    char command[2048];
    snprintf(command, sizeof(command), "%.*s/jfr print --events jdk.ExecutionSample %s",
             (int)(strrchr(jdk, '/') - jdk), jdk, recording);
    FILE *out = popen(command, "r");
    ck_assert_ptr_nonnull(out);
    char line[4096];
    int top_next = 0;
    while (fgets(line, sizeof(line), out)) {
        const char *text = line + strspn(line, " \t");
        if (top_next) {
            for (int i = 0; i < 3; i++) /* frames print as "SamplingWorkload.a(long) line: 12" */
                if (strncmp(text, share_methods[i], strlen(share_methods[i])) == 0)
                    s->n[i]++;
            top_next = 0;
        }
        top_next = strstr(text, "stackTrace = [") == text;
    }
    pclose(out);
}

static double share_of(const shares *s, int i)
{
    double total = s->n[0] + s->n[1] + s->n[2];
    return total > 0 ? 100 * s->n[i] / total : 0;
}

START_TEST(shares_60_30_10_within_5_points_beside_jfr)
{
    /* 10 s of the main thread's processor time, however long that takes on a loaded machine. */
    const char *args[] = {"shares", "10", NULL};
    shares ours = {{0}, 0}, jfr = {{0}, 0};
    /* A monitor that can only ask for samples: the compiled methods' events stay off (see below), and
     * the owner of compiled code comes from HotSpot's code heaps. */
    sample_workload(jdks[_i], "FXSAMPLE_POSSIBLE=300" /* THREADS | SAMPLING */, args, add_share, &ours);

    /* JFR at the same rate, without the agent. */
    jvmrun_result r;
    char dir[600], jfc[700], recording[700], options[1600];
    snprintf(dir, sizeof(dir), "%s", jvmrun_build_path("jfr.XXXXXX"));
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(jfc, sizeof(jfc), "%s/sampling.jfc", dir);
    snprintf(recording, sizeof(recording), "%s/run.jfr", dir);
    FILE *f = fopen(jfc, "w");
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<configuration version=\"2.0\">\n"
               "  <event name=\"jdk.ExecutionSample\"><setting name=\"enabled\">true</setting>"
               "<setting name=\"period\">1 ms</setting></event>\n</configuration>\n");
    fclose(f);
    snprintf(options, sizeof(options), "JAVA_TOOL_OPTIONS=-XX:StartFlightRecording=filename=%s,settings=%s", recording,
             jfc);
    const char *jfr_env[] = {options, NULL};
    jvmrun_main(jdks[_i], "SamplingWorkload", NULL, jfr_env, args, &r);
    ck_assert_int_eq(r.exit_code, 0);
    jvmrun_free(&r);
    jfr_shares(jdks[_i], recording, &jfr);
    unlink(recording);
    unlink(jfc);
    rmdir(dir);

    printf("JDK %d: 60/30/10 workload sampled at 1 kHz for 10 s\n", _i);
    printf("  %-6s %6s %16s %16s\n", "method", "truth", "jevmon", "JFR");
    for (int i = 0; i < 3; i++)
        printf("  %-6c %5.0f%% %7.1f%% (%5.0f) %7.1f%% (%5.0f)\n", "abc"[i], share_truth[i], share_of(&ours, i),
               ours.n[i], share_of(&jfr, i), jfr.n[i]);
    double total = ours.n[0] + ours.n[1] + ours.n[2];
    printf("  jevmon: %.0f samples in a, b, c, %.1f%% of them exact\n", total, total > 0 ? 100 * ours.exact / total : 0);
    /* 10 s at 1 kHz, minus warm-up; at least 1,600 samples: a share of n samples
     * at random has sigma sqrt(p(1-p)/n), 1.22 points for a (60%) at n = 1,600, 1.15 for b, 0.75 for
     * c, so 5 points are 4.1, 4.4 and 6.7 sigma: a correct profiler fails these checks with chance
     * 4.5e-5 + 1.2e-5 + 2e-11 (under 1 in 10,000). */
    ck_assert_double_ge(total, 1600);
    for (int i = 0; i < 3; i++)
        ck_assert_msg(fabs(share_of(&ours, i) - share_truth[i]) <= 5, "%c: %.1f%% measured, %.0f%% true", "abc"[i],
                      share_of(&ours, i), share_truth[i]);
    /* The stack walk and the code's owner agreed: a JVMTI-only sampler would score 50 here. */
    ck_assert_double_ge(ours.exact, 0.9 * total);
}
END_TEST

/* ---- Sampling without the compiled methods' events --------------------------------------------- */

/* The workload's last line: how often HotSpot's service thread was woken. */
static long long service_wakeups(const jvmrun_result *r)
{
    const char *line = r->out ? strstr(r->out, "service-thread-wakeups ") : NULL;
    long long n = -1;
    ck_assert_msg(line && sscanf(line, "service-thread-wakeups %lld", &n) == 1, "%s", r->out ? r->out : "");
    return n;
}

START_TEST(sampling_does_not_wake_the_jit_event_thread)
{
    /* -Xcomp compiles every method the program runs, a few thousand.  With CompiledMethodLoad on,
     * HotSpot's service thread wakes to post them (2,045-2,350 times in this run here); sampling
     * alone names compiled code from HotSpot's code heaps, and the thread wakes for its other work
     * (111-211 times).  A count of wake-ups, not a timing: a quarter of the events' count leaves a
     * margin of twice what was seen on either side. */
    const char *args[] = {"shares", "1", NULL};
    const char *options = "JAVA_TOOL_OPTIONS=-Xcomp -XX:TieredStopAtLevel=1 -Djevmon.test.service=true";
    jvmrun_result sampled, with_events;
    run_sampled_with(jdks[_i], "FXSAMPLE_POSSIBLE=300" /* THREADS | SAMPLING */, options, args, &sampled);
    ck_assert_int_eq(sampled.exit_code, 0);
    run_sampled_with(jdks[_i], "FXSAMPLE_REQUEST=304", options, args, &with_events); /* and JIT_COMPILATION */
    ck_assert_int_eq(with_events.exit_code, 0);
    long long quiet = service_wakeups(&sampled), woken = service_wakeups(&with_events);
    printf("JDK %d: service thread woken %lld times sampling, %lld with the JIT's events\n", _i, quiet, woken);
    ck_assert_msg(quiet * 4 < woken, "sampling: %lld wake-ups, with the JIT's events: %lld", quiet, woken);
    jvmrun_free(&sampled);
    jvmrun_free(&with_events);
}
END_TEST

/* ---- BLOCKING and GC -------------------------------------------------------------------------- */

typedef struct places {
    unsigned long long sleep_all, sleep_blocking, gc_all, gc_in_gc, gc_anywhere, profiler;
} places;

static void add_place(const sample_line *l, void *arg)
{
    places *p = arg;
    if (strstr(l->method, "java/lang/Thread.sleep")) {
        p->sleep_all += l->n;
        p->sleep_blocking += l->location == 9 ? l->n : 0;
    }
    if (strstr(l->method, "java/lang/Runtime.gc(")) {
        p->gc_all += l->n;
        p->gc_in_gc += l->location == 3 ? l->n : 0;
    }
    p->gc_anywhere += l->location == 3 ? l->n : 0;
    p->profiler += l->location == 8 ? l->n : 0;
}

START_TEST(sleeping_is_blocking_and_collecting_is_gc)
{
    const char *args[] = {"sleep-gc", "5", NULL};
    places p = {0, 0, 0, 0, 0, 0};
    sample_workload(jdks[_i], "FXSAMPLE_SAMPLERS=1", args, add_place, &p);
    printf("JDK %d: Thread.sleep %llu samples, %llu BLOCKING; Runtime.gc %llu samples, %llu GC; GC in all %llu\n", _i,
           p.sleep_all, p.sleep_blocking, p.gc_all, p.gc_in_gc, p.gc_anywhere);
    ck_assert_uint_gt(p.sleep_all, 100);
    /* The others are the thread running Thread.sleep's own code around the wait: microseconds of
     * each 20 ms sleep on an idle machine (under 0.1%), stretched by preemption on a loaded one
     * (5.4% with stress-ng --cpu 2 and a load of 16: the thread is taken off the processor in that
     * code and the sample sees it there).  Not chance but the scheduler: asked is that the
     * sleeping thread is BLOCKING for most of its samples, which a sampler that did not tell the
     * wait apart (0% BLOCKING) fails whatever the load. */
    ck_assert_uint_ge(p.sleep_blocking * 2, p.sleep_all);
    ck_assert_uint_gt(p.gc_all, 20);
    ck_assert_uint_gt(p.gc_in_gc, 0);
    ck_assert_uint_gt(p.profiler, 0); /* the sampler thread, sampling itself among the threads it knows */
}
END_TEST

typedef struct defining {
    unsigned long long in_define, loader;
} defining;

static void add_defining(const sample_line *l, void *arg)
{
    defining *d = arg;
    if (strstr(l->method, "java/lang/ClassLoader.defineClass1(")) {
        d->in_define += l->n;
        d->loader += l->location == 5 ? l->n : 0;
    }
}

START_TEST(defining_classes_is_loader)
{
    const char *args[] = {"define", "4", NULL};
    defining d = {0, 0};
    sample_workload(jdks[_i], "FXSAMPLE_SAMPLERS=1", args, add_defining, &d);
    printf("JDK %d: ClassLoader.defineClass1 %llu samples, %llu LOADER\n", _i, d.in_define, d.loader);
    ck_assert_uint_gt(d.in_define, 10);
    ck_assert_uint_ge(d.loader, d.in_define * 9 / 10); /* the rest: GC, while a collection runs */
}
END_TEST

/* The "stacks" line of the thread whose usual stack contains innermost; NULL when there is none. */
static const char *stacks_line(const char *log, const char *innermost, char *line, size_t size)
{
    for (const char *p = log; p && *p;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (strncmp(p, "stacks ", 7) == 0 && len < size) {
            memcpy(line, p, len);
            line[len] = '\0';
            if (strstr(line, innermost))
                return line;
        }
        p = end ? end + 1 : NULL;
    }
    return NULL;
}

/* The stack and its counts for one thread: most samples give a stack GetStackTrace agrees with. */
static void expect_agreeing_stacks(const char *log, const char *innermost, const char *path)
{
    char line[8192];
    unsigned long long equal = 0, differ = 0, none = 0;
    ck_assert_msg(stacks_line(log, innermost, line, sizeof(line)), "no stacks line for %s in:\n%s", innermost, log);
    printf("%s\n", line);
    ck_assert_int_eq(sscanf(strstr(line, "equal="), "equal=%llu differ=%llu none=%llu", &equal, &differ, &none), 3);
    /* 2 s of the spinning thread's processor time at 1 kHz of wall time: 2,000 ticks at least */
    ck_assert_uint_gt(equal, 200);
    /* Not chance: the two stacks stay the same all run, so a walk and GetStackTrace differ only where
     * the walk fails (a collection, a stub): a few in a thousand. */
    ck_assert_uint_le(differ + none, equal / 10);
    ck_assert_msg(strstr(line, path), "expected %s in %s", path, line);
}

/* SamplingWorkload's two stacks for 2 s under the sampler in a mode (extra_env) whose interface the
 * VM must offer (the log says unavailable when not). */
static void run_stacks(const char *jdk, const char *extra_env, const char *mechanism_env, const char *unavailable,
                       jvmrun_result *r)
{
    const char *args[] = {"stacks", "2", NULL};
    run_sampled_with(jdk, extra_env, mechanism_env, args, r);
    ck_assert_int_eq(r->exit_code, 0);
    ck_assert_ptr_null(strstr(r->log, unavailable));
}

START_TEST(sample_thread_stack_gives_get_stack_traces_frames)
{
    jvmrun_result r;
    run_stacks(jdks[_i], "FXSAMPLE_STACKS=1", NULL, "stacks unavailable", &r);
    expect_agreeing_stacks(r.log, "SamplingWorkload.parkedC(J)V",
                           "SamplingWorkload.parkedA(J)V>SamplingWorkload.parkedB(J)V>SamplingWorkload.parkedC(J)V>"
                           "java/util/concurrent/locks/LockSupport.parkNanos(J)V>");
    expect_agreeing_stacks(r.log, "SamplingWorkload.spinC(J)J",
                           "SamplingWorkload.spinA(J)J>SamplingWorkload.spinB(J)J>SamplingWorkload.spinC(J)J");
    jvmrun_free(&r);
}
END_TEST

/* The samples in which a frame of method (inner: innermost, or a caller) was at a line from first to
 * last, from the "frame" lines of the log. */
static unsigned long long frame_samples(const char *log, const char *method, int inner, unsigned long first,
                                        unsigned long last)
{
    char prefix[512];
    unsigned long long n = 0;
    snprintf(prefix, sizeof(prefix), "frame %s inner=%d offset=", method, inner);
    for (const char *p = strstr(log, prefix); p; p = strstr(p + 1, prefix)) {
        unsigned long line = 0;
        unsigned long long count = 0;
        const char *at = strstr(p, " line=");
        if (at && sscanf(at, " line=%lu n=%llu", &line, &count) == 2 && line >= first && line <= last)
            n += count;
    }
    return n;
}

/* SamplingWorkload.java's lines (tests/sampling/): spinC's first line, its loop, the calls. */
#define PARKED_C_FIRST 159ul /* while (System.nanoTime() < end) */
#define PARKED_C_CALL 160ul  /* LockSupport.parkNanos(...) */
#define SPIN_C_FIRST 166ul   /* long x = 0; */
#define SPIN_C_LOOP 167ul    /* for (rounds), for (k), x = x * 31 + k; (169) */
#define SPIN_C_BODY 169ul
#define SPIN_B_CALL 172ul
#define SPIN_A_CALL 173ul

/* The offsets javap (beside the JDK's java) lists for SamplingWorkload's method whose declaration line is declaration:
 * offsets[pc] set for each instruction; *call the offset of its first invokestatic (0: none). */
static void javap_offsets(const char *java, const char *declaration, char offsets[256], unsigned *call)
{
    char command[2048], line[512];
    snprintf(command, sizeof(command), "%sp -c -p -cp %s SamplingWorkload", java, jvmrun_build_path("java"));
    FILE *p = popen(command, "r");
    ck_assert_ptr_nonnull(p);
    int in = 0;
    memset(offsets, 0, 256);
    *call = 0;
    while (fgets(line, sizeof(line), p)) {
        unsigned pc;
        char op[64];
        if (strstr(line, declaration))
            in = 1;
        else if (in && sscanf(line, " %u: %63s", &pc, op) == 2 && pc < 256) {
            offsets[pc] = 1;
            if (!*call && strcmp(op, "invokestatic") == 0)
                *call = pc;
        } else if (in && line[0] == '\n')
            in = 0;
    }
    pclose(p);
}

/* Every offset the log's frames of method (inner: innermost, or a caller) have is in offsets,
 * and (call non-zero) is call; how many samples there were. */
static unsigned long long expect_class_file_offsets(const char *log, const char *method, int inner,
                                                    const char offsets[256], unsigned call)
{
    char prefix[512];
    unsigned long long n = 0;
    snprintf(prefix, sizeof(prefix), "frame %s inner=%d offset=", method, inner);
    for (const char *p = strstr(log, prefix); p; p = strstr(p + 1, prefix)) {
        unsigned offset = 0;
        unsigned long long count = 0;
        if (p[strlen(prefix)] == '-')
            continue; /* not known */
        ck_assert_int_eq(sscanf(p + strlen(prefix), "%u line=%*u n=%llu", &offset, &count), 2);
        ck_assert_msg(offset < 256 && offsets[offset] && (!call || offset == call), "%s at offset %u", method, offset);
        n += count;
    }
    return n;
}

/*
 * On both mechanisms (_i / jdk_count: 1 puts the VM on the instrumented path, which runs a rewrite
 * of every method): the frames' offsets are the class file's, instructions javap lists.
 */
START_TEST(sample_thread_frames_give_the_lines_that_run)
{
    jvmrun_result r;
    const char *jdk = jdks[_i % jdk_count];
    run_stacks(jdk, "FXSAMPLE_FRAMES=1", _i / jdk_count ? "FXSAMPLE_OPTIONS=a" : NULL, "frames unavailable", &r);
    ck_assert_msg(strstr(r.err, _i / jdk_count ? "method calls via bytecode instrumentation"
                                               : "method calls via JVMTI events"),
                  "%s", r.err);
    char spin_c[256], spin_b[256];
    unsigned no_call, spin_b_call;
    javap_offsets(jdk, "static long spinC(long);", spin_c, &no_call);
    javap_offsets(jdk, "static long spinB(long);", spin_b, &spin_b_call);
    ck_assert_uint_gt(spin_b_call, 0);
    ck_assert_uint_gt(expect_class_file_offsets(r.log, "SamplingWorkload.spinC(J)J", 1, spin_c, 0), 200);
    ck_assert_uint_gt(expect_class_file_offsets(r.log, "SamplingWorkload.spinB(J)J", 0, spin_b, spin_b_call), 200);
    /* the innermost frame of the spinning thread: its loop's lines, hardly ever its first */
    unsigned long long spin = frame_samples(r.log, "SamplingWorkload.spinC(J)J", 1, 0, ULONG_MAX);
    unsigned long long loop = frame_samples(r.log, "SamplingWorkload.spinC(J)J", 1, SPIN_C_LOOP, SPIN_C_BODY);
    unsigned long long body = frame_samples(r.log, "SamplingWorkload.spinC(J)J", 1, SPIN_C_BODY, SPIN_C_BODY);
    unsigned long long first = frame_samples(r.log, "SamplingWorkload.spinC(J)J", 1, SPIN_C_FIRST, SPIN_C_FIRST);
    printf("JDK %d: spinC %llu samples: %llu in its loop, %llu at x = x * 31 + k, %llu at its first line\n", _i,
           spin, loop, body, first);
    /* 2 s of the spinning thread's processor time, sampled at 1 kHz of wall time: 2,000 ticks at
     * least (a sample waits for a runnable thread to run, so a loaded machine gives fewer a
     * second and the run lasts longer in wall time).  Shares: as in test_jevprof, the loop holds over
     * 99%, so with n > 200 the 90% bound is 14 sigma away (chance below 10^-40), the first line's 5%
     * further still. */
    ck_assert_uint_gt(spin, 200);
    ck_assert_uint_ge(loop * 10, spin * 9);
    ck_assert_uint_le(first * 20, spin);
    /* the callers: each at its call, the parked one's not on its first line */
    unsigned long long b = frame_samples(r.log, "SamplingWorkload.spinB(J)J", 0, 0, ULONG_MAX);
    ck_assert_uint_gt(b, 200);
    ck_assert_uint_eq(frame_samples(r.log, "SamplingWorkload.spinB(J)J", 0, SPIN_B_CALL, SPIN_B_CALL), b);
    ck_assert_uint_eq(frame_samples(r.log, "SamplingWorkload.spinA(J)J", 0, SPIN_A_CALL, SPIN_A_CALL),
                      frame_samples(r.log, "SamplingWorkload.spinA(J)J", 0, 0, ULONG_MAX));
    unsigned long long parked = frame_samples(r.log, "SamplingWorkload.parkedC(J)V", 0, 0, ULONG_MAX);
    ck_assert_uint_gt(parked, 200);
    ck_assert_uint_eq(frame_samples(r.log, "SamplingWorkload.parkedC(J)V", 0, PARKED_C_CALL, PARKED_C_CALL), parked);
    ck_assert_uint_eq(frame_samples(r.log, "SamplingWorkload.parkedC(J)V", 0, PARKED_C_FIRST, PARKED_C_FIRST), 0);
    jvmrun_free(&r);
}
END_TEST

/* ---- The code map through JITCompiledMethodInformation; bad input ------------------------------ */

START_TEST(compiled_methods_map_back_and_bad_ids_fail)
{
    const char *args[] = {"shares", "2", NULL};
    jvmrun_result r;
    run_sampled(jdks[_i], "FXSAMPLE_REQUEST=304" /* THREADS | SAMPLING | JIT_COMPILATION */, args, &r);
    ck_assert_int_eq(r.exit_code, 0);
    unsigned long long compiled = 0, mapped = 0;
    const char *jit = strstr(r.log, "jit compiled ");
    ck_assert_ptr_nonnull(jit);
    ck_assert_int_eq(sscanf(jit, "jit compiled %llu mapped %llu", &compiled, &mapped), 2);
    printf("JDK %d: %llu compiled methods reported, %llu mapped back\n", _i, compiled, mapped);
    ck_assert_uint_gt(compiled, 20);
    ck_assert_uint_eq(mapped, compiled);
    ck_assert_int_eq(jvmrun_count(r.log, "bad-input 6 of 6"), 1);
    ck_assert_int_eq(jvmrun_count(r.log, "identity 1"), 1); /* IJevmonSampling is the IDInfo object's */
    jvmrun_free(&r);
}
END_TEST

/* ---- 16 threads, 2 samplers --------------------------------------------------------------------- */

#define SPINNERS 16

typedef struct attribution {
    unsigned long threads[64];
    unsigned methods[64]; /* bit i: t<i> seen on that thread in an exact sample (accuracy 100) */
    unsigned long long samples[64][SPINNERS]; /* every sample of the thread in t<i>, any accuracy */
    int count;
    unsigned long long spinner_samples;
} attribution;

static void add_attribution(const sample_line *l, void *arg)
{
    attribution *a = arg;
    int which;
    if (sscanf(l->method, "SamplingWorkload.t%d(", &which) != 1 || which < 0 || which >= SPINNERS)
        return;
    a->spinner_samples += l->n;
    int i = 0;
    while (i < a->count && a->threads[i] != l->thread)
        i++;
    if (i == a->count && a->count < 64)
        a->threads[a->count++] = l->thread;
    if (i < 64) {
        a->samples[i][which] += l->n;
        if (l->accuracy == 100)
            a->methods[i] |= 1u << which;
    }
}

/* each_sample's callback printing the samples of one thread (arg: its ThreadID) on stderr. */
static void print_sample_of(const sample_line *l, void *arg)
{
    if (l->thread == *(const unsigned long *)arg)
        fprintf(stderr, "sample %lx %s loc=%d acc=%d ip=%d n=%llu\n", l->thread, l->method, l->location, l->accuracy,
                l->has_ip, l->n);
}

START_TEST(sixteen_threads_two_samplers_each_sample_its_own_thread)
{
    const char *args[] = {"threads", "16", "10", NULL};
    jvmrun_result r;
    run_sampled(jdks[_i], "FXSAMPLE_SAMPLERS=2", args, &r);
    ck_assert_int_eq(r.exit_code, 0);
    ck_assert_int_eq(jvmrun_count(r.out, "threads 16 done"), 1);
    ck_assert_int_eq(jvmrun_count(r.log, "sampled "), 1); /* the samplers stopped: no deadlock */
    attribution a;
    memset(&a, 0, sizeof(a));
    each_sample(r.log, add_attribution, &a);
    unsigned all = 0;
    for (int i = 0; i < a.count; i++) {
        /* The thread's own method is where most of its samples are.  Every exact sample is there;
         * a walk can name another t<i> at accuracy 90 (docs/sampling.md: in compiled code that
         * inlines several, at a pc between their blocks), now and then: seen once in 66 samples. */
        int own = 0;
        unsigned long long total = 0;
        for (int m = 0; m < SPINNERS; m++) {
            total += a.samples[i][m];
            own = a.samples[i][m] > a.samples[i][own] ? m : own;
        }
        unsigned long long others = total - a.samples[i][own];
        int mixed = (a.methods[i] & ~(1u << own)) != 0 || others * 10 > total;
        if (mixed) /* the thread's sample lines, to tell how each was taken */
            each_sample(r.log, print_sample_of, &a.threads[i]);
        ck_assert_msg(!mixed, "thread %lx: most samples in t%d, exact ones in t* methods 0x%x, %llu of %llu in others",
                      a.threads[i], own, a.methods[i], others, total);
        all |= 1u << own;
    }
    printf("JDK %d: %llu samples in the 16 spinners' methods, over %d threads\n", _i, a.spinner_samples, a.count);
    ck_assert_int_eq(a.count, SPINNERS);
    ck_assert_uint_eq(all, (1u << SPINNERS) - 1);
    jvmrun_free(&r);
}
END_TEST

int main(void)
{
    if (!(jdk_count = jvmrun_suite_jdks(jdks)))
        return EXIT_SUCCESS;
    Suite *s = suite_create("sampling");
    TCase *tc = tcase_create("sampling");
    tcase_set_timeout(tc, 180);
    tcase_add_loop_test(tc, shares_60_30_10_within_5_points_beside_jfr, 0, jdk_count);
    tcase_add_loop_test(tc, sampling_does_not_wake_the_jit_event_thread, 0, jdk_count);
    tcase_add_loop_test(tc, sleeping_is_blocking_and_collecting_is_gc, 0, jdk_count);
    tcase_add_loop_test(tc, defining_classes_is_loader, 0, jdk_count);
    tcase_add_loop_test(tc, compiled_methods_map_back_and_bad_ids_fail, 0, jdk_count);
    tcase_add_loop_test(tc, sixteen_threads_two_samplers_each_sample_its_own_thread, 0, jdk_count);
    tcase_add_loop_test(tc, sample_thread_stack_gives_get_stack_traces_frames, 0, jdk_count);
    tcase_add_loop_test(tc, sample_thread_frames_give_the_lines_that_run, 0, 2 * jdk_count);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
