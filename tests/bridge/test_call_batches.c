/*
 * test_call_batches.c - method calls in batches (IJevmonCallBatches, docs/call-batches.md) end to
 * end, on real JVMs (every JDK under /usr/lib/jvm) and on both mechanisms, instrumented code and
 * JVMTI events (methods=jvmti): exact counts of entries, returns and unwinds, batches flushed from
 * another thread, thread ends, and a legacy monitor beside the batched one.
 *
 * The batched monitor is fx_batches.c: it counts the records OnCallBatch hands it by method and
 * kind, checks the design's promises as they come (ticks in order per thread, no batch after its
 * thread's end, one batch of a thread at a time) and reports at SHUTDOWN in the log.  The programs
 * are CallBatchWorkload, whose calls are known in number, and BridgeWorkload's churn and recursion.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/testkit.h"
#include "bridge_run.h"

#define FX_BATCHES "{BD3CFA34-DC97-41CB-B5A5-BE48428D8CEF}"
/* The batch the design fills before handing it over on the thread itself. */
#define BATCH_RECORDS 1024

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

/* How many calls fib(n) makes: 2 fib(n + 1) - 1. */
static long long calls_of_fib(int n)
{
    long long previous = 0, current = 1; /* fib(0), fib(1) */
    for (int i = 1; i < n + 1; i++) {
        long long next = previous + current;
        previous = current;
        current = next;
    }
    return 2 * current - 1;
}

/* fx_batches' lines of the log (the legacy monitor's are many), for failure messages: the first
 * 3000 bytes, as a Check message over 4096 ends the test without its text. */
static const char *batch_lines(const char *log)
{
    static char lines[3000];
    size_t used = 0;
    lines[0] = '\0';
    for (const char *line = log; line && *line && used < sizeof(lines) - 1;) {
        const char *end = strchr(line, '\n');
        int length = end ? (int)(end - line) : (int)strlen(line);
        if (strncmp(line, "batches ", 8) == 0)
            used += (size_t)snprintf(lines + used, sizeof(lines) - used, "%.*s\n", length, line);
        line = end ? end + 1 : NULL;
    }
    return lines;
}

/*
 * Runs main_class with args under the monitors MSJAVA_EVENT_MONITORS lists, fx_batches reporting
 * the methods whose names start with the prefixes of methods (FXBATCH_METHODS), with the variables
 * of more_env (NULL-terminated, or NULL).  Loop iteration i picks the JDK and the mechanism: the first
 * jdk_count instrumented (every monitor promises what that needs), the next JVMTI events.  The
 * program must end well, and the bridge say which mechanism it took.
 */
static void run_monitors(int i, const char *monitors, const char *main_class, const char *methods,
                         const char *const *more_env, const char *const *args, jvmrun_result *r)
{
    static char monitors_env[256], methods_env[256];
    const char *env[16] = {"MSJAVA_ENABLE_MONITORS=1", monitors_env, methods_env};
    size_t n = 3;
    snprintf(monitors_env, sizeof(monitors_env), "MSJAVA_EVENT_MONITORS=%s", monitors);
    snprintf(methods_env, sizeof(methods_env), "FXBATCH_METHODS=%s", methods);
    for (const char *const *e = more_env; e && *e && n < 15; e++)
        env[n++] = *e;
    int instrumented = i / jdk_count == 0;
    jvmrun_main(jdks[i % jdk_count], main_class, instrumented ? "" : "methods=jvmti", env, args, r);
    ck_assert_msg(r->exit_code == 0, "exit %d:\n%.3000s", r->exit_code, r->err);
    const char *mechanism = instrumented ? VIA_BYTECODE : VIA_JVMTI;
    ck_assert_msg(jvmrun_count(r->err, mechanism) == 1, "expected \"%s\" once in stderr:\n%.3000s", mechanism, r->err);
}

/* The number after key in fx_batches' line "batches <what> ...", -1 when there is none. */
static long long reported(const jvmrun_result *r, const char *what, const char *key)
{
    char start[512];
    snprintf(start, sizeof(start), "batches %.500s ", what);
    return jvmrun_field(r->log, start, key);
}

/* fx_batches counted method (a MethodInformation name) entered, returned and unwound so often. */
static void assert_calls(const jvmrun_result *r, const char *method, long long entered, long long returned,
                         long long unwound)
{
    char what[512];
    snprintf(what, sizeof(what), "method %s", method);
    long long got_entered = reported(r, what, "entered="), got_returned = reported(r, what, "returned="),
              got_unwound = reported(r, what, "unwound=");
    ck_assert_msg(got_entered == entered && got_returned == returned && got_unwound == unwound,
                  "%s: entered=%lld returned=%lld unwound=%lld, expected %lld %lld %lld; the monitor said:\n%s", method,
                  got_entered, got_returned, got_unwound, entered, returned, unwound, batch_lines(r->log));
}

/*
 * What every run of fx_batches must show, whatever its program: the monitor set up, FlushCallBatches
 * refused inside a batch, no broken promise, and batches of at most a batch's records.
 */
static void assert_promises_kept(const jvmrun_result *r)
{
    const char *said = batch_lines(r->log);
    /* The IDInfo answers IID_IJevmonCallBatches and takes the callback (or no batch comes at all). */
    static const char set_up[] = "batches setup QueryInterface=0x00000000 DeliverCallsInBatches=0x00000000\n";
    ck_assert_msg(jvmrun_count(r->log, set_up) == 1, "not set up:\n%s", said);
    /* FlushCallBatches inside OnCallBatch returns E_UNEXPECTED instead of delivering into the batch. */
    ck_assert_msg(jvmrun_count(r->log, "batches flush-inside hr=0x8000ffff\n") == 1,
                  "FlushCallBatches inside a batch did not return E_UNEXPECTED:\n%s", said);
    /* Every thread's ticks in order within and across its batches, no batch of a thread after its
     * THREAD_DESTROY nor while it is delivered, never two batches of one thread at once, records with a
     * method and a kind, no MethodEntry/MethodExit/MethodExit2 for the batched monitor, and (the
     * "violation" lines come as found, the count at SHUTDOWN) no batch after SHUTDOWN. */
    ck_assert_msg(reported(r, "checked", "violations=") == 0 && jvmrun_count(r->log, "batches violation ") == 0,
                  "a promise broken:\n%s", said);
    /* A thread's batch is handed over when it fills, not kept growing. */
    long long largest = reported(r, "totals", "largest=");
    ck_assert_msg(largest > 0 && largest <= BATCH_RECORDS, "no batch, or one of more than %d records:\n%s",
                  BATCH_RECORDS, said);
}

/*
 * Main and three threads each compute fib(20), 43782 records a thread: each thread's batches fill
 * dozens of times, and the last ones go before the threads' ends.  A daemon thread's few calls, no
 * batch's worth, wait for the program's end.
 */
START_TEST(every_call_counted_once_entered_and_once_returned)
{
    const char *args[] = {"3", "20", "0", NULL};
    const long long threads = 4, fibs = threads * calls_of_fib(20);
    jvmrun_result r;
    run_monitors(_i, FX_BATCHES, "CallBatchWorkload", "CallBatchWorkload", NULL, args, &r);
    assert_promises_kept(&r);
    /* A record lost, delivered twice, or of a wrong kind or MethodID changes these counts. */
    assert_calls(&r, "CallBatchWorkload.fib(I)I", fibs, fibs, 0);
    assert_calls(&r, "CallBatchWorkload.work(II)I", threads, threads, 0);
    /* The workers' last records come before they end ... */
    assert_calls(&r, "CallBatchWorkload$Worker.run()V", threads - 1, threads - 1, 0);
    /* ... main's when it ends (the launcher detaches it), ... */
    assert_calls(&r, "CallBatchWorkload.main([Ljava/lang/String;)V", 1, 1, 0);
    /* ... and those of a thread still alive, less than a batch, at the program's end before SHUTDOWN. */
    assert_calls(&r, "CallBatchWorkload.linger(I)I", 50, 50, 0);
    /* The workers ended after their batches came: the check of no batch after a thread's end ran on them. */
    ck_assert_msg(reported(&r, "threads", "with-records=") >= threads &&
                      reported(&r, "threads", "ended-after-records=") >= threads - 1,
                  "fewer threads with records, or ended after them:\n%s", batch_lines(r.log));
    jvmrun_free(&r);
}
END_TEST

/*
 * Exceptions: thrown through four frames of thrower to catcher, through ThrowingGenerator and a
 * JDK frame (Arrays.setAll) to viaJdk, and caught where thrown, 20 rounds on each of two threads.
 */
START_TEST(a_frame_left_by_an_exception_is_unwound_once)
{
    const char *args[] = {"1", "5", "20", NULL};
    const long long rounds = 2 * 20;
    jvmrun_result r;
    run_monitors(_i, FX_BATCHES, "CallBatchWorkload", "CallBatchWorkload,java/util/Arrays.setAll(", NULL, args, &r);
    assert_promises_kept(&r);
    /* Each frame the exception leaves is reported once, as UNWOUND, never as RETURNED too. */
    assert_calls(&r, "CallBatchWorkload.thrower(I)V", 8 * rounds, 0, 8 * rounds);
    assert_calls(&r, "CallBatchWorkload$ThrowingGenerator.applyAsInt(I)I", rounds, 0, rounds);
    /* ... the JDK's frames on the way as well as the program's ... */
    assert_calls(&r, "java/util/Arrays.setAll([ILjava/util/function/IntUnaryOperator;)V", rounds, 0, rounds);
    /* ... while the frames that catch it return, the one that threw it itself included. */
    assert_calls(&r, "CallBatchWorkload.catcher()I", rounds, rounds, 0);
    assert_calls(&r, "CallBatchWorkload.viaJdk()I", rounds, rounds, 0);
    assert_calls(&r, "CallBatchWorkload.catchesItself(I)I", rounds, rounds, 0);
    jvmrun_free(&r);
}
END_TEST

/*
 * The flusher (fx_batches' own thread calling FlushCallBatches every millisecond) takes the
 * records of threads that are running calls: none is lost or delivered twice in the handover.
 */
START_TEST(counts_exact_while_flushed_from_another_thread)
{
    const char *args[] = {"3", "20", "5", NULL};
    const char *flushing[] = {"FXBATCH_FLUSH_MS=1", NULL};
    const long long threads = 4, fibs = threads * calls_of_fib(20), rounds = threads * 5;
    jvmrun_result r;
    run_monitors(_i, FX_BATCHES, "CallBatchWorkload", "CallBatchWorkload", flushing, args, &r);
    assert_promises_kept(&r);
    assert_calls(&r, "CallBatchWorkload.fib(I)I", fibs, fibs, 0);
    assert_calls(&r, "CallBatchWorkload.thrower(I)V", 8 * rounds, 0, 8 * rounds);
    assert_calls(&r, "CallBatchWorkload.catcher()I", rounds, rounds, 0);
    assert_calls(&r, "CallBatchWorkload.main([Ljava/lang/String;)V", 1, 1, 0);
    /* The flushes succeeded, and handed over records on the flusher's thread: the cross-thread path ran. */
    ck_assert_msg(reported(&r, "flusher", "flushes=") > 0 && reported(&r, "flusher", "failed=") == 0 &&
                      reported(&r, "totals", "by-flusher=") > 0,
                  "no flush, a failed one, or none handed records over:\n%s", batch_lines(r.log));
    jvmrun_free(&r);
}
END_TEST

/*
 * 300 short threads (BridgeWorkload churn: 100 at a time, each recurse(20) deep), flushed from the
 * flusher every millisecond: a thread's records still all come, and none after its end, when the
 * flusher takes them as the thread ends (its ThreadID then reused).
 */
START_TEST(no_record_after_its_thread_ends_while_flushed_from_another_thread)
{
    const char *args[] = {"churn", "300", NULL};
    const char *flushing[] = {"FXBATCH_FLUSH_MS=1", NULL};
    jvmrun_result r;
    run_monitors(_i, FX_BATCHES, "BridgeWorkload", "BridgeWorkload.recurse(", flushing, args, &r);
    /* (batches before THREAD_CREATE, after THREAD_DESTROY and during it are among its violations) */
    assert_promises_kept(&r);
    assert_calls(&r, "BridgeWorkload.recurse(I)I", 300 * 21, 300 * 21, 0);
    /* Every worker ended after its records came, so each was checked. */
    ck_assert_msg(reported(&r, "threads", "ended-after-records=") >= 300 && reported(&r, "flusher", "flushes=") > 0 &&
                      reported(&r, "flusher", "failed=") == 0,
                  "fewer than 300 threads ended after their records, or no flush, or a failed one:\n%s",
                  batch_lines(r.log));
    jvmrun_free(&r);
}
END_TEST

/* What the legacy monitor (fx_monitor) got of BridgeWorkload's recursion: per worker thread, its
 * entries into recurse and the exits of those frames; and the exits not naming their caller. */
typedef struct legacy_calls {
    int workers, mismatches;
    int entries[REPLAY_MAX_THREADS], exits[REPLAY_MAX_THREADS];
} legacy_calls;

static legacy_calls legacy_calls_of(const char *log)
{
    legacy_calls calls = {0};
    replay rp;
    replay_log(log, &rp, 0);
    for (int i = 0; i < rp.threads; i++)
        if (rp.recurse_entries[i]) {
            calls.entries[calls.workers] = rp.recurse_entries[i];
            calls.exits[calls.workers++] = rp.recurse_exits[i];
        }
    calls.mismatches = rp.mismatches;
    replay_free(&rp);
    return calls;
}

/*
 * fx_monitor, a monitor of 1999 taking MethodEntry and MethodExit2, run alone and then beside
 * fx_batches on BridgeWorkload's recursion (four threads, ten recurse(20) each): it gets the same
 * calls both times, every entry and every exit, paired, and fx_batches gets them all too.
 */
START_TEST(a_legacy_monitor_beside_gets_every_call_as_alone)
{
    const char *args[] = {"recursion", "4", "20", NULL};
    const char *legacy[] = {"FXMON_REQUEST=2", "FXMON_OPTIONS=a", NULL};
    jvmrun_result alone, beside;
    run_monitors(_i, FX, "BridgeWorkload", "", legacy, args, &alone);
    run_monitors(_i, FX ";" FX_BATCHES, "BridgeWorkload", "BridgeWorkload.recurse(", legacy, args, &beside);
    legacy_calls calls_alone = legacy_calls_of(alone.log), calls_beside = legacy_calls_of(beside.log);
    /* Alone it gets what test_bridge_calls asserts: each worker's 210 calls, every exit paired. */
    ck_assert_int_eq(calls_alone.workers, 4);
    ck_assert_int_eq(calls_alone.mismatches, 0);
    for (int w = 0; w < calls_alone.workers; w++) {
        ck_assert_int_eq(calls_alone.entries[w], 10 * 21);
        ck_assert_int_eq(calls_alone.exits[w], 10 * 21);
    }
    /* Beside a batched monitor, the same: the recording of batches takes no legacy callback away
     * (entries or exits), and leaves its StackIDs paired as before. */
    ck_assert_int_eq(calls_beside.workers, calls_alone.workers);
    ck_assert_int_eq(calls_beside.mismatches, 0);
    for (int w = 0; w < calls_beside.workers; w++) {
        ck_assert_int_eq(calls_beside.entries[w], calls_alone.entries[w]);
        ck_assert_int_eq(calls_beside.exits[w], calls_alone.exits[w]);
    }
    /* And the batched monitor beside it misses nothing either. */
    assert_promises_kept(&beside);
    assert_calls(&beside, "BridgeWorkload.recurse(I)I", 4 * 10 * 21, 4 * 10 * 21, 0);
    jvmrun_free(&alone);
    jvmrun_free(&beside);
}
END_TEST

/*
 * Virtual threads (JDK 21 and later; VThreadWorkload calls, of tests/vthreads/): 60 of them on two
 * carriers, each blocking mid-stack so that it leaves its carrier and comes back on either, the
 * flusher at work too.  A virtual thread's records are kept on its carrier while it is mounted:
 * they must still come in order, one batch of it at a time, all of them, none after its end.
 */
START_TEST(virtual_threads_calls_exact_as_they_move_between_carriers)
{
    if (jvmrun_jdk_release(jdks[_i % jdk_count]) < 21) {
        printf("%s: no virtual threads before JDK 21\n", jdks[_i % jdk_count]);
        return;
    }
    const char *args[] = {"calls", "60", NULL};
    const char *carriers[] = {"JDK_JAVA_OPTIONS=-Djdk.virtualThreadScheduler.parallelism=2", "FXBATCH_FLUSH_MS=1",
                              NULL};
    jvmrun_result r;
    run_monitors(_i, FX_BATCHES, "VThreadWorkload", "VThreadWorkload.", carriers, args, &r);
    /* (ticks in order and one batch at a time per ThreadID: the virtual thread's, wherever it ran) */
    assert_promises_kept(&r);
    /* vtask, then level(3) .. level(0): two leaf calls in each level but the last, one there, and
     * block, which leaves the carrier, at the bottom. */
    assert_calls(&r, "VThreadWorkload.vtask(I)V", 60, 60, 0);
    assert_calls(&r, "VThreadWorkload.level(II)I", 4 * 60, 4 * 60, 0);
    assert_calls(&r, "VThreadWorkload.leaf(I)I", 7 * 60, 7 * 60, 0);
    assert_calls(&r, "VThreadWorkload.block(I)V", 60, 60, 0);
    /* The virtual threads' ends came after their records. */
    ck_assert_msg(reported(&r, "threads", "ended-after-records=") >= 60,
                  "fewer than 60 virtual threads ended after their records:\n%s", batch_lines(r.log));
    jvmrun_free(&r);
}
END_TEST

int main(void)
{
    if (!(jdk_count = jvmrun_suite_jdks(jdks)))
        return EXIT_SUCCESS;
    Suite *s = suite_create("call_batches");
    TCase *tc = tcase_create("call_batches");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, every_call_counted_once_entered_and_once_returned, 0, 2 * jdk_count);
    tcase_add_loop_test(tc, a_frame_left_by_an_exception_is_unwound_once, 0, 2 * jdk_count);
    tcase_add_loop_test(tc, counts_exact_while_flushed_from_another_thread, 0, 2 * jdk_count);
    tcase_add_loop_test(tc, no_record_after_its_thread_ends_while_flushed_from_another_thread, 0, 2 * jdk_count);
    tcase_add_loop_test(tc, a_legacy_monitor_beside_gets_every_call_as_alone, 0, 2 * jdk_count);
    tcase_add_loop_test(tc, virtual_threads_calls_exact_as_they_move_between_carriers, 0, 2 * jdk_count);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
