/*
 * test_tls_churn.c - the cpu sampler's signal handler on threads that load and unload libraries
 * with thread-locals, on every JDK under /usr/lib/jvm: it must not read the JVM's thread-locals
 * (platform.h, plat_jvm_thread_env).
 *
 * NativeWorkload's tls mode runs two Java threads, each loading libjevtls.so (16 KiB of
 * thread-locals), touching them, unloading it, and allocating memory in C, again and again.  After
 * each unload the thread's table of thread-locals is behind and still holds the unloaded library's
 * block, which the thread's next __tls_get_addr frees: a handler reading the JVM's
 * Thread::current() there (GetEnv does) frees it with the allocator's lock held by the code it
 * interrupted, and the thread hangs in the handler for good, or frees it a second time inside the
 * C library's own update of the table, and the C library aborts the JVM.  Two runs:
 *
 *   - the JVM started under jevprof in cpu mode at 1 ms (its own threads timed too, jevprof's
 *     default), the threads churning for 2 s of processor time each: the JVM must end by itself,
 *     exit 0 with both threads' rounds printed, and its profile must hold at least half the 4000
 *     samples of that time in churnTls (a sample is lost only when the monitor is a quarter
 *     second behind: not a matter of chance at this rate), some inside the allocator;
 *   - jevprof attached to the JVM while the threads churn (bin/jevprof PID, cpu at 1 ms: every
 *     thread of the process timed), until the two have used 4 s more processor time between
 *     them: the same, from 4000 samples.
 *
 * The test watches the two threads while they run ("jevtls-churn", named by churnTls): one that
 * gets no processor time for STALL_SECONDS has stopped (a runnable thread gets the processor
 * within the scheduler's period, milliseconds even on a loaded machine, and these two never wait
 * but on the loader's lock or the allocator's, each held for microseconds), and the JVM is killed.
 *
 * With GetEnv in the handler (the agent before plat_jvm_thread_env), each run failed 40 times of
 * 40 (20 on each JDK): 24 hung (killed here 5.5 to 10.2 s after the start), 16 aborted ("double
 * free or corruption", 0.4 to 5.7 s after the start); with 2 s instead of 4 after the attach, the
 * second failed 38 times of 40.  With plat_jvm_thread_env, both passed every time: 50 and 25 runs
 * on each JDK, 10 and 5 of them beside stress-ng --cpu 2, the JVM ending in 4 to 18 s.
 */
#include <check.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support/jvmrun.h"
#include "../support/testkit.h"

#define STALL_SECONDS 5
#define RUN_LIMIT_SECONDS 120 /* a run takes 4 to 18 s on a loaded machine */
#define WATCHED_THREADS 16
#define ATTACHED_SECONDS 4

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

static double seconds_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* Thread tid of process pid, when it is named name: its state and processor time (clock ticks). */
static int thread_named(int pid, const char *tid, const char *name, char *state, unsigned long long *cpu)
{
    char path[512], comm[64] = "";
    snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", pid, tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int named = fgets(comm, sizeof(comm), f) && strcmp(comm, name) == 0;
    fclose(f);
    snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", pid, tid);
    char *stat = named ? tk_read_file(path) : NULL, *end = stat ? strrchr(stat, ')') : NULL;
    unsigned long long user = 0, system = 0;
    int parsed = end && sscanf(end, ") %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", state, &user,
                               &system) == 3;
    free(stat);
    *cpu = user + system;
    return parsed;
}

/* The threads named "jevtls-churn" seen so far: each one's processor time when last seen to
 * change, and since when it has been so. */
typedef struct watch {
    int count;
    unsigned long long total; /* the processor time of those there at the last look, in clock ticks */
    struct { long tid; unsigned long long cpu; double since; } threads[WATCHED_THREADS];
} watch;

/* Looks at process pid's threads named "jevtls-churn" once: how many there are, or -1 when one of
 * them has had no processor time for STALL_SECONDS (why says which). */
static int churning(int pid, watch *w, char *why, size_t size)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/task", pid);
    DIR *tasks = opendir(path);
    struct dirent *e;
    double now = seconds_now();
    int named = 0;
    w->total = 0;
    while (tasks && (e = readdir(tasks)) && named >= 0) {
        char state;
        unsigned long long cpu;
        long tid = atol(e->d_name);
        if (e->d_name[0] == '.' || !thread_named(pid, e->d_name, "jevtls-churn\n", &state, &cpu))
            continue;
        named++;
        w->total += cpu;
        int i = 0;
        while (i < w->count && w->threads[i].tid != tid)
            i++;
        if (i == w->count && w->count < WATCHED_THREADS) {
            w->threads[w->count].tid = tid;
            w->threads[w->count].cpu = cpu;
            w->threads[w->count++].since = now;
        } else if (i < w->count && w->threads[i].cpu != cpu) {
            w->threads[i].cpu = cpu;
            w->threads[i].since = now;
        } else if (i < w->count && now - w->threads[i].since >= STALL_SECONDS) {
            snprintf(why, size, "thread %ld (jevtls-churn) had no processor time for %d s, in state %c: the JVM hangs",
                     tid, STALL_SECONDS, state);
            named = -1;
        }
    }
    if (tasks)
        closedir(tasks);
    return named;
}

/* Waits for the JVM p to end, watching its threads named "jevtls-churn"; 0 when it ended, else
 * why it was killed, in why.  With *attacher, a process attaching jevprof to it: once that has
 * ended (its status in *attached, *attacher then 0) and the threads have used ATTACHED_SECONDS more
 * processor time, the JVM's standard input is closed. */
static int watch_jvm(jvmrun_process *p, int *attacher, int *attached, char *why, size_t size)
{
    watch w = {0};
    double start = seconds_now();
    unsigned long long attached_at = 0, ticks = ATTACHED_SECONDS * (unsigned long long)sysconf(_SC_CLK_TCK);
    for (;;) {
        siginfo_t info = {0};
        if (waitid(P_PID, (id_t)p->pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == p->pid)
            return 0; /* left for jvmrun_finish to collect */
        if (seconds_now() - start > RUN_LIMIT_SECONDS) {
            snprintf(why, size, "the JVM did not end in %d s", RUN_LIMIT_SECONDS);
            break;
        }
        if (churning(p->pid, &w, why, size) < 0)
            break;
        if (attacher && *attacher > 0 && waitpid(*attacher, attached, WNOHANG) == *attacher) {
            *attacher = 0;
            attached_at = w.total;
        } else if (attacher && *attacher == 0 && p->input >= 0 && w.total >= attached_at + ticks) {
            close(p->input);
            p->input = -1;
        }
        usleep(100000);
    }
    kill(p->pid, SIGKILL);
    return 1;
}

/* The samples of a collapsed file whose stack holds frame, and of those the ones that also hold
 * within (NULL: any). */
static unsigned long long samples_with(const char *collapsed, const char *frame, const char *within)
{
    unsigned long long sum = 0;
    for (const char *line = collapsed; line && *line;) {
        const char *end = strchr(line, '\n');
        char copy[16384];
        snprintf(copy, sizeof(copy), "%.*s", end ? (int)(end - line) : (int)strlen(line), line);
        char *space = strrchr(copy, ' ');
        if (space && strstr(copy, frame) && (!within || strstr(copy, within)))
            sum += strtoull(space + 1, NULL, 10);
        line = end ? end + 1 : NULL;
    }
    return sum;
}

/* A run of the workload ended (killed: why, after took seconds): by itself, with exit 0 and both
 * threads' rounds printed. */
static void check_run(int jdk, int killed, const char *why, double took, const jvmrun_result *r)
{
    printf("JDK %d: %s after %.1f s, exit %d\n%s", jdk, killed ? why : "ended", took, r->exit_code, r->out);
    fflush(stdout);
    ck_assert_msg(!killed, "%s, after %.1f s\n%s", why, took, r->err);
    ck_assert_msg(r->exit_code == 0, "exit %d after %.1f s\n%s", r->exit_code, took, r->err);
    ck_assert_int_eq(tk_count(r->out, "tls rounds "), 2);
    ck_assert_ptr_null(strstr(r->out, "tls rounds -1"));
    ck_assert_ptr_null(strstr(r->err, "thread key was not found")); /* the handler walks the Java frames */
}

/* The collapsed file at dir/name holds at least least samples in churnTls, some in the allocator. */
static void check_samples(int jdk, const char *dir, const char *name, unsigned long long least)
{
    char path[1400];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    char *collapsed = tk_read_file(path);
    unsigned long long churns = samples_with(collapsed, "NativeWorkload.churnTls", NULL),
                       allocating = samples_with(collapsed, "NativeWorkload.churnTls", "libc.so.6`_int_");
    printf("JDK %d: %llu samples in churnTls, %llu of them in the allocator's _int_ functions\n", jdk, churns,
           allocating);
    ck_assert_uint_ge(churns, least);
    ck_assert_uint_ge(allocating, 1);
    free(collapsed);
}

START_TEST(threads_loading_libraries_with_thread_locals_are_sampled)
{
    char dir[1200], path[1400], why[256] = "";
    static char files_env[1500], dir_env[1300];
    snprintf(dir, sizeof(dir), "%s", jvmrun_build_path("tls.XXXXXX"));
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/jevprof.reg", dir);
    jvmrun_write_jevprof_registry(path);
    snprintf(files_env, sizeof(files_env), "JEVMON_REGISTRY_FILES=%s", path);
    snprintf(dir_env, sizeof(dir_env), "JEVPROF_OUTPUT_DIR=%s", dir);
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" JVMRUN_JEVPROF_CLSID, files_env, dir_env,
                         "JEVPROF_MODE=cpu", "JEVPROF_INTERVAL_MS=1", NULL};
    const char *args[] = {"tls", "2", "2", jvmrun_build_path("java"), NULL};
    jvmrun_process p;
    jvmrun_result r;
    double start = seconds_now();
    jvmrun_start(&p, jdks[_i], "NativeWorkload", "", env, args);
    int killed = watch_jvm(&p, NULL, NULL, why, sizeof(why));
    jvmrun_finish(&p, &r);
    check_run(_i, killed, why, seconds_now() - start, &r);
    check_samples(_i, dir, "jevprof.collapsed", 2000);
    jvmrun_free(&r);
    jvmrun_remove_shell_dir(dir, "jevprof.reg jevprof-report.txt jevprof.collapsed jevprof-flame.html jevprof.pb.gz");
}
END_TEST

/* The same threads, churning until their standard input ends, with jevprof attached to their JVM
 * once they churn (bin/jevprof PID: the agent is loaded then, and every thread of the process is
 * timed, the JVM's own too), until they have used ATTACHED_SECONDS more processor time (4000
 * samples at 1 ms); at least half of those, as above. */
START_TEST(threads_loading_libraries_with_thread_locals_are_sampled_after_an_attach)
{
    char dir[1200], command[4096], why[256] = "";
    snprintf(dir, sizeof(dir), "%s", jvmrun_build_path("tls-attach.XXXXXX"));
    ck_assert_ptr_nonnull(mkdtemp(dir));
    const char *env[] = {NULL}, *args[] = {"tls", "2", "60", jvmrun_build_path("java"), "input", NULL};
    jvmrun_process p;
    jvmrun_result r;
    double start = seconds_now();
    jvmrun_start(&p, jdks[_i], "NativeWorkload", NULL, env, args);
    watch w = {0};
    int seen;
    while ((seen = churning(p.pid, &w, why, sizeof(why))) >= 0 && seen < 2 && seconds_now() - start < RUN_LIMIT_SECONDS)
        usleep(20000);
    int attacher = -1, attached = -1, killed = 1;
    if (seen == 2) {
        snprintf(command, sizeof(command), "exec '%s/bin/jevprof' -e cpu -i 1ms -f '%s/attached.collapsed' %d "
                 ">'%s/attach.txt' 2>&1", jvmrun_source_dir(), dir, p.pid, dir);
        if ((attacher = fork()) == 0) {
            execl("/bin/sh", "sh", "-c", command, (char *)NULL);
            _exit(127);
        }
        killed = watch_jvm(&p, &attacher, &attached, why, sizeof(why));
    } else {
        if (seen >= 0)
            snprintf(why, sizeof(why), "the two threads did not start churning");
        kill(p.pid, SIGKILL);
    }
    if (attacher > 0) { /* the JVM ended, or was killed, before jevprof did */
        kill(attacher, SIGKILL);
        waitpid(attacher, &attached, 0);
    }
    jvmrun_finish(&p, &r);
    check_run(_i, killed, why, seconds_now() - start, &r);
    char path[1400];
    snprintf(path, sizeof(path), "%s/attach.txt", dir);
    char *said = tk_read_file(path);
    ck_assert_msg(WIFEXITED(attached) && WEXITSTATUS(attached) == 0, "jevprof's attach: status %d\n%s", attached, said);
    free(said);
    check_samples(_i, dir, "attached.collapsed", 2000);
    jvmrun_free(&r);
    jvmrun_remove_shell_dir(dir, "attached.collapsed attach.txt");
}
END_TEST

int main(void)
{
    if ((jdk_count = jvmrun_suite_jdks(jdks)) == 0)
        return 0;
    Suite *s = suite_create("tls_churn");
    TCase *started = tcase_create("started"), *attached = tcase_create("attached");
    tcase_set_timeout(started, 2 * RUN_LIMIT_SECONDS);
    tcase_set_timeout(attached, 2 * RUN_LIMIT_SECONDS);
    tcase_add_loop_test(started, threads_loading_libraries_with_thread_locals_are_sampled, 0, jdk_count);
    tcase_add_loop_test(attached, threads_loading_libraries_with_thread_locals_are_sampled_after_an_attach, 0,
                        jdk_count);
    suite_add_tcase(s, started);
    suite_add_tcase(s, attached);
    return tk_run_suite(s);
}
