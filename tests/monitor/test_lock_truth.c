/*
 * test_lock_truth.c - jevprof's lock mode against a known truth, on every JDK under /usr/lib/jvm,
 * through bin/jevprof -e lock: LockWorkload's N threads each wait once for a lock main holds
 * (until all N wait, then HOLD_MS more), and each measures its own wait with System.nanoTime.
 *
 *   - a synchronized monitor: exactly N waits, each stack ending in the monitor's class
 *     LockWorkload$TruthMonitor under the thread's lambda; the nanoseconds waited within 5% of
 *     the threads' own sum, never above it;
 *   - a ReentrantLock: the same, the stack through LockSupport.park and ending in the lock's
 *     sync, ReentrantLock$NonfairSync;
 *   - the same ReentrantLock from virtual threads (JDK 21 and later);
 *   - a program that takes a monitor and a ReentrantLock millions of times on one thread: no
 *     wait of its own is recorded.
 *
 * The waits' time: each thread's measured wait holds the profiler's (which starts when the JVM
 * has found the lock held and ends when the thread has it), so the profile can only be short by
 * the moments between a thread's clock readings and the JVM's events: scheduling delays on a
 * loaded machine.  With 4 threads waiting 2 s each, 5% is 400 ms: 50 ms at each of the 8 ends
 * of the 4 waits, every one of them together.  No scheduler on a 2-core machine under any load
 * this project sees keeps a runnable thread off the processor that long at 8 points of one
 * 8-second run (the odds of failing a correct program are far below 1 in 10,000).  The count is
 * exact by construction: each thread asks once and releases at once, with no thread left to
 * take the lock before the next waiter.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/jvmrun.h"
#include "../support/testkit.h"

#define THREADS "4"
#define HOLD_MS "2000"
#define TRUTH_MONITOR "LockWorkload$TruthMonitor"
#define REENTRANT_SYNC "java.util.concurrent.locks.ReentrantLock$NonfairSync"
#define PARK "java.util.concurrent.locks.LockSupport.park"

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

static char *read_in(const char *dir, const char *name)
{
    char path[1400];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return tk_read_file(path);
}

/* Runs LockWorkload with args under bin/jevprof -e lock in a new directory (dir); what it printed. */
static char *run_locks(const char *java, const char *args, char *dir, size_t size)
{
    char *out = NULL;
    snprintf(dir, size, "%s", jvmrun_build_path("locks.XXXXXX"));
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(jvmrun_shell(dir, &out, NULL, "'%s/bin/jevprof' -e lock --out '%s' -- '%s' -cp '%s' LockWorkload %s",
                                  jvmrun_source_dir(), dir, java, jvmrun_build_path("java"), args),
                     0);
    return out;
}

/* Is frame one of the frames of the collapsed line (up to its weight's space)? */
static int among_frames(const char *line, const char *space, const char *frame)
{
    char framed[8192], wanted[600];
    snprintf(framed, sizeof(framed), ";%.*s;", (int)(space - line), line);
    snprintf(wanted, sizeof(wanted), ";%s;", frame);
    return strstr(framed, wanted) != NULL;
}

/* The weight of the collapsed lines ending in last with also among their frames (NULL: any);
 * *lines gets how many there are. */
static unsigned long long weight(const char *collapsed, const char *also, const char *last, int *lines)
{
    unsigned long long sum = 0;
    *lines = 0;
    for (const char *line = collapsed; *line;) {
        const char *end = strchr(line, '\n'), *space = end ? memrchr(line, ' ', (size_t)(end - line)) : NULL;
        if (!end)
            break;
        size_t length = strlen(last);
        if (space && (!also || among_frames(line, space, also)) && (size_t)(space - line) > length &&
            space[-(long)length - 1] == ';' && memcmp(space - length, last, length) == 0) {
            sum += strtoull(space + 1, NULL, 10);
            ++*lines;
        }
        line = end + 1;
    }
    return sum;
}

/* Checks a truth run: THREADS waits ending in last (with also among the frames), and their
 * nanoseconds within 5% of the threads' own sum, never above it. */
static void check_truth(const char *dir, const char *out, const char *also, const char *last)
{
    char *waits = read_in(dir, "jevprof-lock.collapsed"), *delay = read_in(dir, "jevprof-lock-delay.collapsed");
    char *report = read_in(dir, "jevprof-report.txt");
    ck_assert_msg(waits && delay && report, "lock mode wrote no lock profile in %s", dir);
    const char *truth = strstr(out, "waited_ns=");
    ck_assert_msg(truth != NULL, "the workload said nothing: %s", out);
    unsigned long long measured = strtoull(truth + strlen("waited_ns="), NULL, 10);
    int lines = 0, delay_lines = 0;
    unsigned long long count = weight(waits, also, last, &lines);
    unsigned long long waited = weight(delay, also, last, &delay_lines);
    printf("  %llu waits in %d paths, %.3f ms waited; the threads measured %.3f ms\n", count, lines, waited / 1e6,
           measured / 1e6);
    ck_assert_msg(count == strtoull(THREADS, NULL, 10), "%llu waits ending in %s, not " THREADS ":\n%s", count, last,
                  waits);
    ck_assert_msg(waited <= measured && waited >= measured / 100 * 95,
                  "%.3f ms waited, not within 5%% under the threads' %.3f ms:\n%s", waited / 1e6, measured / 1e6, delay);
    ck_assert_msg(strstr(report, "Lock waits\n") && strstr(report, last), "the report has no lock waits:\n%s", report);
    free(waits), free(delay), free(report);
}

static void remove_run(const char *dir)
{
    jvmrun_remove_shell_dir(dir, "jevprof-report.txt jevprof-lock.collapsed jevprof-lock-flame.html "
                                 "jevprof-lock-delay.collapsed jevprof-lock-delay-flame.html jevprof-lock.pb.gz");
}

/* Runs a truth case of LockWorkload on this JDK and checks it (check_truth). */
static void truth_case(const char *java, const char *workload, const char *also, const char *last)
{
    char dir[1024], args[256];
    snprintf(args, sizeof(args), "%s " THREADS " " HOLD_MS, workload);
    char *out = run_locks(java, args, dir, sizeof(dir));
    check_truth(dir, out, also, last);
    /* the pprof file is Go's mutex profile: contentions and delay */
    if (system("command -v go >/dev/null") == 0) {
        char *raw = NULL;
        ck_assert_int_eq(jvmrun_shell(dir, &raw, NULL, "go tool pprof -raw jevprof-lock.pb.gz"), 0);
        ck_assert_msg(strstr(raw, "contentions/count delay/nanoseconds"), "pprof says:\n%s", raw);
        free(raw);
    }
    free(out);
    remove_run(dir);
}

START_TEST(monitor_waits_are_counted_and_timed)
{
    truth_case(jdks[_i], "monitor", "LockWorkload.lambda$contend$0", TRUTH_MONITOR);
}
END_TEST

START_TEST(reentrant_lock_waits_are_counted_and_timed)
{
    truth_case(jdks[_i], "reentrant", PARK, REENTRANT_SYNC);
}
END_TEST

START_TEST(virtual_threads_waits_are_counted_and_timed)
{
    char dir[1024], *version = NULL;
    snprintf(dir, sizeof(dir), "%s", jvmrun_build_path("version.XXXXXX"));
    ck_assert_ptr_nonnull(mkdtemp(dir));
    jvmrun_shell(dir, NULL, &version, "'%s' -version", jdks[_i]);
    const char *quote = version ? strchr(version, '"') : NULL;
    int major = quote ? atoi(quote + 1) : 0;
    jvmrun_remove_shell_dir(dir, "");
    free(version);
    if (major < 21) {
        printf("  skipped on %s: no virtual threads before JDK 21\n", jdks[_i]);
        return;
    }
    truth_case(jdks[_i], "virtual", "java.lang.VirtualThread.run", REENTRANT_SYNC);
}
END_TEST

/* Attached to a running JVM (bin/jevprof -e lock -d 2 PID), both kinds of waits are counted: the
 * monitor's from JVMTI, the ReentrantLock's parks from LockSupport rewritten after the attach (none
 * of either before this was fixed).  Four threads wait for their locks nearly all the time, each
 * hold lasting 20 ms: 2 s hold about a hundred waits of each kind; a handful is asked.  Each thread
 * sleeps 1 ms between its holds: without it the monitor's holder took it back before the waiter
 * woke (HotSpot's monitors are not fair), and under load only 4 to 16 monitor waits came. */
START_TEST(an_attached_jevprof_counts_both_kinds_of_waits)
{
    char dir[1200], *err = NULL;
    snprintf(dir, sizeof(dir), "%s", jvmrun_build_path("locks.XXXXXX"));
    ck_assert_ptr_nonnull(mkdtemp(dir));
    int status = jvmrun_shell(dir, NULL, &err,
                              "'%s' -cp '%s' LockWorkload looping 4 20 >program.txt 2>&1 & pid=$!; "
                              "for i in $(seq 1200); do grep -q ready program.txt && break; sleep 0.1; done; "
                              "'%s/bin/jevprof' -e lock -d 2 -f '%s/attached.collapsed' $pid; status=$?; "
                              "kill $pid; wait $pid; exit $status",
                              jdks[_i], jvmrun_build_path("java"), jvmrun_source_dir(), dir);
    ck_assert_msg(status == 0, "%s", err);
    char *collapsed = read_in(dir, "attached.collapsed");
    ck_assert_ptr_nonnull(collapsed);
    int lines = 0;
    unsigned long long monitor = weight(collapsed, NULL, "LockWorkload$TruthMonitor", &lines),
                       parks = weight(collapsed, "java.util.concurrent.locks.LockSupport.park",
                                      "java.util.concurrent.locks.ReentrantLock$NonfairSync", &lines);
    printf("JDK %d, attached: %llu monitor waits, %llu parks\n", _i, monitor, parks);
    ck_assert_uint_ge(monitor, 5);
    ck_assert_uint_ge(parks, 5);
    free(collapsed);
    free(err);
    jvmrun_remove_shell_dir(dir, "attached.collapsed program.txt");
}
END_TEST

START_TEST(an_uncontended_program_has_no_waits_of_its_own)
{
    char dir[1024];
    char *out = run_locks(jdks[_i], "uncontended 2", dir, sizeof(dir));
    char *waits = read_in(dir, "jevprof-lock.collapsed"), *report = read_in(dir, "jevprof-report.txt");
    ck_assert_msg(waits && report, "lock mode wrote no lock profile in %s", dir);
    ck_assert_msg(strstr(out, "operations="), "the workload did not run: %s", out);
    ck_assert_msg(strstr(report, "Lock waits\n"), "the report has no lock section:\n%s", report);
    /* the JVM's own threads may meet now and then; the program's one thread never waits */
    ck_assert_msg(!strstr(waits, "LockWorkload"), "waits of an uncontended program:\n%s", waits);
    free(waits), free(report), free(out);
    remove_run(dir);
}
END_TEST

int main(void)
{
    if ((jdk_count = jvmrun_suite_jdks(jdks)) == 0)
        return 0;
    Suite *s = suite_create("lock_truth");
    TCase *tc = tcase_create("truth");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, monitor_waits_are_counted_and_timed, 0, jdk_count);
    tcase_add_loop_test(tc, reentrant_lock_waits_are_counted_and_timed, 0, jdk_count);
    tcase_add_loop_test(tc, virtual_threads_waits_are_counted_and_timed, 0, jdk_count);
    tcase_add_loop_test(tc, an_uncontended_program_has_no_waits_of_its_own, 0, jdk_count);
    tcase_add_loop_test(tc, an_attached_jevprof_counts_both_kinds_of_waits, 0, jdk_count);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
