/*
 * test_vthreads.c - virtual threads (JDK 21+) on real JVMs: every JDK under /usr/lib/jvm
 * whose release is 21 or later, on both method-call mechanisms (JVMTI events; bytecode
 * instrumentation, InitOptions 0xa).  The fx_vthreads monitor keeps one shadow stack per
 * ThreadID, the ThreadID being GetCurrentThread in each callback, as a 1999 profiler would.
 *
 *   - VThreadWorkload calls: 60 virtual threads on 2 carriers block mid-stack (sleep, park, a
 *     contended ReentrantLock, a blocking queue, a loopback socket) and so move between
 *     carriers: exact entry counts; every MethodExit2 names the frame entered just below on
 *     the same ThreadID with its StackID; exits into each method equal returns into it;
 *     THREAD_CREATE / DESTROY once per virtual thread, ThreadInformation names no OS thread,
 *     GetCurrentThread in a callback names the virtual thread, THREAD_SET_NAME for each rename;
 *     GetStackTrace of a virtual thread tracing itself, parked, and spinning mounted agrees
 *     frame by frame with Thread.getStackTrace (less the frames Java hides: see
 *     docs/virtual-threads.md).
 *   - VThreadWorkload busy: 100 virtual threads on 2 carriers, each 9 ms computing in busy() for
 *     every 1 ms asleep, sampled at 100 Hz by fx_sampler (SampleThreadLocation on every ThreadID
 *     from THREAD_CREATE): of the samples of those threads that are not BLOCKING, at least 85% are
 *     in busy() (94-95% measured; of all threads' running samples, start-up and the scheduler's
 *     included, 87-94%);
 *     unmounted threads and carriers running one are BLOCKING.
 *   - VThreadWorkload many: 10^6 short virtual threads, 10^4 alive at most, under a THREADS
 *     monitor: the agent's memory stays within the bound docs/virtual-threads.md states per
 *     live thread.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/testkit.h"
#include "support/jvmrun.h"

#define FX_VTHREADS "{3C1E7A52-96B4-4D0F-A17E-5B22C9804F61}"
#define THREADS_HEX "FXVT_REQUEST=40" /* JVM_MONITOR_THREADS */
#define CARRIERS "JDK_JAVA_OPTIONS=-Djdk.virtualThreadScheduler.parallelism=2 -Xmx256m"
#define WORKERS 60
#define TRACED 3 /* the virtual threads traces() starts */

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

static void run_workload(const char *jdk, int instrumented, const char *const *extra_env, const char *const *args,
                         jvmrun_result *r)
{
    const char *env[8] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX_VTHREADS, "FXVT_CLASS=VThreadWorkload.",
                          CARRIERS, instrumented ? "FXMON_OPTIONS=a" : "FXMON_OPTIONS=0"};
    for (int i = 0; extra_env && extra_env[i] && i < 2; i++)
        env[5 + i] = extra_env[i];
    jvmrun_main(jdk, "VThreadWorkload", instrumented ? "" : "methods=jvmti", env, args, r);
    if (r->exit_code != 0 || !strstr(r->out, "done"))
        printf("exit %d\nstdout:\n%s\nstderr:\n%.4000s\n", r->exit_code, r->out, r->err);
}

/* Monitor frames ("a/b/C.m(sig)|...") as Java prints them ("a.b.C.m|..."), less what Java hides. */
static void as_java_frames(const char *monitor, char *out, size_t size)
{
    static const char *const hidden[] = {"java.lang.Thread.runWith", "java.lang.VirtualThread.yieldContinuation",
                                         "jevmon.Bridge.", "$$Lambda"};
    char copy[8192];
    snprintf(copy, sizeof(copy), "%s", monitor);
    out[0] = '\0';
    for (char *save = NULL, *frame = strtok_r(copy, "|", &save); frame; frame = strtok_r(NULL, "|", &save)) {
        char *paren = strchr(frame, '(');
        if (paren)
            *paren = '\0';
        for (char *c = frame; *c; c++)
            if (*c == '/')
                *c = '.';
        int skip = 0;
        for (size_t i = 0; i < sizeof(hidden) / sizeof(*hidden); i++)
            skip |= strstr(frame, hidden[i]) != NULL;
        if (!skip)
            snprintf(out + strlen(out), size - strlen(out), "%s%s", out[0] ? "|" : "", frame);
    }
}

/* The rest of the first line starting with start (up to the newline), copied into out. */
static int line_after(const char *text, const char *start, char *out, size_t size)
{
    const char *at = text ? strstr(text, start) : NULL;
    while (at && at != text && at[-1] != '\n')
        at = strstr(at + 1, start);
    if (!at)
        return 0;
    at += strlen(start);
    const char *end = strchr(at, '\n');
    snprintf(out, size, "%.*s", (int)(end ? end - at : (long)strlen(at)), at);
    return 1;
}

static void check_trace(const jvmrun_result *r, const char *monitor_start, const char *java_start)
{
    char monitor[8192], java[8192], converted[8192];
    ck_assert_msg(line_after(r->log, monitor_start, monitor, sizeof(monitor)), "no monitor line %s", monitor_start);
    ck_assert_msg(line_after(r->out, java_start, java, sizeof(java)), "no java line %s", java_start);
    ck_assert_msg(!strncmp(monitor, "hr=0x00000000 ", 14), "GetStackTrace failed: %s", monitor);
    as_java_frames(monitor + 14, converted, sizeof(converted));
    ck_assert_msg(!strcmp(converted, java), "%s\n  GetStackTrace: %s\n  Java:          %s", monitor_start, converted, java);
}

/* Mode 0 .. 2*jdk_count-1: JDK mode % jdk_count, instrumented when mode >= jdk_count. */
START_TEST(calls_pair_per_virtual_thread_as_they_move_between_carriers)
{
    const char *jdk = jdks[_i % jdk_count];
    int instrumented = _i >= jdk_count;
    if (jvmrun_jdk_release(jdk) < 21) {
        printf("%s: no virtual threads before JDK 21\n", jdk);
        return;
    }
    const char *args[] = {"calls", "60", NULL};
    jvmrun_result r;
    run_workload(jdk, instrumented, NULL, args, &r);
    ck_assert_int_eq(r.exit_code, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "done"));
    ck_assert_int_eq(jvmrun_count(r.err, instrumented ? "via bytecode instrumentation" : "via bytecode"), instrumented);

    /* Entries, exactly. */
    ck_assert_int_eq(jvmrun_field(r.log, "entries VThreadWorkload.vtask(", ")V "), WORKERS);
    ck_assert_int_eq(jvmrun_field(r.log, "entries VThreadWorkload.level(", ")I "), 4 * WORKERS);
    ck_assert_int_eq(jvmrun_field(r.log, "entries VThreadWorkload.leaf(", ")I "), 7 * WORKERS);
    ck_assert_int_eq(jvmrun_field(r.log, "entries VThreadWorkload.block(", ")V "), WORKERS);
    /* Pairing per ThreadID, and exits into each method equal to returns into it. */
    for (const char *p = r.log; p && (p = strstr(p, "-exit ")); p++) { /* what went wrong, if anything did */
        const char *line = p, *end = strchr(p, '\n');
        while (line > r.log && line[-1] != '\n')
            line--;
        printf("%.*s\n", (int)((end ? end : p + strlen(p)) - line), line);
    }
    ck_assert_int_eq(jvmrun_field(r.log, "bad-exits", "bad-exits "), 0);
    ck_assert_int_eq(jvmrun_field(r.log, "bad-exits", "virtual-orphan-exits "), 0);
    const char *into[] = {"into VThreadWorkload.vtask(", "into VThreadWorkload.level(", "into VThreadWorkload.block("};
    for (size_t i = 0; i < sizeof(into) / sizeof(*into); i++) {
        ck_assert_int_gt(jvmrun_field(r.log, into[i], "exits="), 0);
        ck_assert_int_eq(jvmrun_field(r.log, into[i], "exits="), jvmrun_field(r.log, into[i], "returns="));
    }
    /* Threads: every virtual thread created and destroyed once, without an OS thread of its own;
     * the JDK's own (the socket pollers) may still run at the end. */
    long long created = jvmrun_field(r.log, "threads", "vcreate="), destroyed = jvmrun_field(r.log, "threads", "vdestroy=");
    ck_assert_int_eq(destroyed, WORKERS + TRACED);
    ck_assert_int_ge(created, destroyed);
    ck_assert_int_le(created, destroyed + 8);
    ck_assert_int_eq(jvmrun_field(r.log, "threads", "bad-destroy="), 0);
    ck_assert_int_eq(jvmrun_field(r.log, "threads", "dup-create="), 0);
    ck_assert_int_eq(jvmrun_field(r.log, "threads", "vnames="), WORKERS);
    ck_assert_int_eq(jvmrun_field(r.log, "vtask", "ok="), WORKERS);
    ck_assert_int_eq(jvmrun_field(r.log, "vtask", "bad="), 0);
    /* Stack traces: the thread itself (in traceSelf), parked (unmounted), spinning (mounted). */
    check_trace(&r, "trace self ", "java-trace self ");
    check_trace(&r, "trace parked ", "java-trace parked ");
    check_trace(&r, "trace spinner ", "java-trace spinner ");
    jvmrun_free(&r);
}
END_TEST

#define FX_SAMPLER "{821E1225-5E6E-41E1-87BE-6280CCB05DAD}"

START_TEST(sampling_finds_busy_virtual_threads_in_their_method)
{
    if (jvmrun_jdk_release(jdks[_i]) < 21) {
        printf("%s: no virtual threads before JDK 21\n", jdks[_i]);
        return;
    }
    const char *args[] = {"busy", "100", "6000", NULL};
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX_SAMPLER, "FXSAMPLE_HZ=100", CARRIERS, NULL};
    jvmrun_result r;
    jvmrun_main(jdks[_i], "VThreadWorkload", "", env, args, &r);
    ck_assert_int_eq(r.exit_code, 0);
    /* Two passes: the busy virtual threads are the threads with samples in busy(); the main thread's
     * start-up and the scheduler's work on the carriers are not theirs. */
    unsigned long busy_threads[256];
    size_t busy_thread_count = 0;
    unsigned long long busy = 0, running = 0, all_running = 0, blocking = 0;
    for (int pass = 0; pass < 2; pass++)
        for (const char *p = r.log; p && *p;) {
            const char *end = strchr(p, '\n');
            char method[1024];
            unsigned long thread;
            int location, accuracy, has_ip;
            unsigned long long n;
            if (sscanf(p, "sample %lx %1023s loc=%d acc=%d ip=%d n=%llu", &thread, method, &location, &accuracy,
                       &has_ip, &n) == 6) {
                int in_busy = strstr(method, "VThreadWorkload.busy(") != NULL, known = 0;
                for (size_t i = 0; i < busy_thread_count; i++)
                    known |= busy_threads[i] == thread;
                if (pass == 0 && in_busy && !known && busy_thread_count < 256)
                    busy_threads[busy_thread_count++] = thread;
                if (pass == 1 && location == 9) /* BLOCKING */
                    blocking += n;
                else if (pass == 1 && location != 8 && strcmp(method, "-")) { /* 8: PROFILER, the sampler */
                    all_running += n;
                    running += known ? n : 0;
                    busy += in_busy ? n : 0;
                }
            }
            p = end ? end + 1 : NULL;
        }
    printf("%s: %zu virtual threads ran busy(): %llu of their %llu running samples there (%.1f%%; %.1f%% of all "
           "%llu running samples); %llu BLOCKING\n",
           jdks[_i], busy_thread_count, busy, running, running ? 100.0 * (double)busy / (double)running : 0.0,
           all_running ? 100.0 * (double)busy / (double)all_running : 0.0, all_running, blocking);
    fflush(stdout); /* the figures stay in the log when a check below fails */
    /* Counts, not chance: 6 s at 100 Hz with two carriers mounted give about 1,200 running samples
     * (every tick samples every thread), spread over the 100 threads as they take turns.  The
     * sampler's ticks are far fewer when the machine is loaded: each samples all 100 threads, and
     * 4 s gave 70 running samples with stress-ng --cpu 2 (load 16) and 40 beside two `make check`
     * runs (load 9); 20 are asked.  20 samples over 100 threads taking turns fall on about 18 of
     * them (100 * (1 - e^-0.2)), 10 asked. */
    ck_assert_uint_ge(busy_thread_count, 10);
    ck_assert_uint_gt(running, 20);
    /* A mounted busy thread is in busy() but for its loop's few instructions and the sleep's
     * unmounting (well under 1% of its 9 ms): with n > 20 running samples, 85% is over 6 sigma
     * (sqrt(.01 * .99 / 20) = 2.2 points) below the truth, a chance below 10^-9. */
    ck_assert_uint_ge(100 * busy, 85 * running);
    /* Not chance: each tick samples all 100 threads, of which 98 wait (2 carriers): about 49 times
     * as many BLOCKING samples as running ones. */
    ck_assert_uint_gt(blocking, 10 * running);
    jvmrun_free(&r);
}
END_TEST

/*
 * docs/virtual-threads.md: an ended virtual thread's entry is released and its index reused.
 * 10^6 threads, 10^4 alive at most, are told as 10^6 thread starts naming at most about 10^4
 * distinct ThreadIDs (a thread's end comes a little after its task lets the next one start: the limit
 * leaves it 10^4 more), where entries never released would name 10^6.  The count is the
 * bridge's own: the process's memory moves on a loaded machine by more than the entries weigh.
 */
#define MANY "1000000"
#define DISTINCT_LIMIT 20000

START_TEST(million_short_virtual_threads_release_their_entries)
{
    if (jvmrun_jdk_release(jdks[_i]) < 21) {
        printf("%s: no virtual threads before JDK 21\n", jdks[_i]);
        return;
    }
    const char *args[] = {"many", MANY, NULL};
    const char *env[] = {"FXVT_REQUEST=100", /* THREADS */
                         "JDK_JAVA_OPTIONS=-Djdk.virtualThreadScheduler.parallelism=2 -Xms256m -Xmx256m -XX:+AlwaysPreTouch",
                         NULL};
    jvmrun_result r;
    run_workload(jdks[_i], 0, env, args, &r);
    ck_assert_int_eq(r.exit_code, 0);
    long long distinct = jvmrun_field(r.log, "threads", "distinct=");
    printf("%s: 10^6 virtual threads named %lld distinct ThreadIDs\n", jdks[_i], distinct);
    ck_assert_int_gt(distinct, 0);
    ck_assert_int_le(distinct, DISTINCT_LIMIT);
    ck_assert_int_eq(jvmrun_field(r.log, "threads", "vcreate="), 1000000);
    ck_assert_int_eq(jvmrun_field(r.log, "threads", "vdestroy="), 1000000);
    jvmrun_free(&r);
}
END_TEST

int main(void)
{
    if (!(jdk_count = jvmrun_suite_jdks(jdks)))
        return EXIT_SUCCESS;
    int with_virtual_threads = 0;
    for (int i = 0; i < jdk_count; i++)
        with_virtual_threads += jvmrun_jdk_release(jdks[i]) >= 21;
    if (!with_virtual_threads) {
        printf("skipped: no JDK 21 or later under /usr/lib/jvm\n");
        return EXIT_SUCCESS;
    }
    Suite *s = suite_create("vthreads");
    TCase *tc = tcase_create("vthreads");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, calls_pair_per_virtual_thread_as_they_move_between_carriers, 0, 2 * jdk_count);
    tcase_add_loop_test(tc, sampling_finds_busy_virtual_threads_in_their_method, 0, jdk_count);
    tcase_add_loop_test(tc, million_short_virtual_threads_release_their_entries, 0, jdk_count);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
