/*
 * test_tls_churn.c - the cpu sampler's signal handler on threads that load and unload libraries
 * with thread-locals, on every JDK under /usr/lib/jvm: it must not read the JVM's thread-locals
 * (platform.h, plat_jvm_thread_env).
 *
 * NativeWorkload's tls mode runs two Java threads, each loading libjevtls.so (16 KiB of
 * thread-locals), touching them, unloading it, and allocating memory in C, again and again for
 * 2 s of processor time, under jevprof in cpu mode at 1 ms.  After each unload the thread's table
 * of thread-locals is behind and still holds the unloaded library's block, which the thread's next
 * __tls_get_addr frees: a handler reading the JVM's Thread::current() there (GetEnv does) frees it
 * with the allocator's lock held by the code it interrupted, and the thread hangs in the handler
 * for good, or frees it a second time inside the C library's own update of the table, and the C
 * library aborts the JVM.  With GetEnv in the handler, 40 runs of 40 (20 on each JDK) failed so:
 * 24 hung (killed here 5.5 to 9.5 s after the start), 16 aborted ("double free or corruption",
 * 0.4 to 3.1 s after the start).  With the fix, 40 of 40 passed, the JVM ending in 5 to 16 s.
 *
 * The test watches the two threads while they run ("jevtls-churn", named by churnTls): one that
 * gets no processor time for STALL_SECONDS has stopped (a runnable thread gets the processor
 * within the scheduler's period, milliseconds even on a loaded machine, and these two never wait
 * but on the loader's lock or the allocator's, each held for microseconds), and the JVM is killed.
 * Otherwise the JVM must end by itself, exit 0 with both threads' rounds printed, and its profile
 * must hold the samples the handler took in churnTls: at least half the 4000 that 4 s of
 * processor time at 1 ms are (a sample is lost only when the monitor is a quarter second behind:
 * not a matter of chance at this rate), some of them inside the allocator.
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
#define RUN_LIMIT_SECONDS 120 /* about 5 s idle, and every sample's handler takes microseconds */
#define WATCHED_THREADS 16

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
    int read = end && sscanf(end, ") %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", state, &user, &system) == 3;
    free(stat);
    *cpu = user + system;
    return read;
}

/* A thread watched: its processor time when last seen to change, and since when it has been so. */
typedef struct watched {
    long tid;
    unsigned long long cpu;
    double since;
} watched;

/* Waits for the JVM p to end, watching its threads named "jevtls-churn"; 0 when it ended, else
 * why it was killed, in why. */
static int watch(jvmrun_process *p, char *why, size_t size)
{
    watched seen[WATCHED_THREADS];
    int count = 0;
    double start = seconds_now();
    for (;;) {
        siginfo_t info = {0};
        if (waitid(P_PID, (id_t)p->pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == p->pid)
            return 0; /* left for jvmrun_finish to collect */
        double now = seconds_now();
        if (now - start > RUN_LIMIT_SECONDS) {
            snprintf(why, size, "the JVM did not end in %d s", RUN_LIMIT_SECONDS);
            break;
        }
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/task", p->pid);
        DIR *tasks = opendir(path);
        struct dirent *e;
        int stalled = 0;
        while (tasks && (e = readdir(tasks)) && !stalled) {
            char state;
            unsigned long long cpu;
            if (e->d_name[0] == '.' || !thread_named(p->pid, e->d_name, "jevtls-churn\n", &state, &cpu))
                continue;
            int i = 0;
            while (i < count && seen[i].tid != atol(e->d_name))
                i++;
            if (i == count && count < WATCHED_THREADS)
                seen[count++] = (watched){atol(e->d_name), cpu, now};
            else if (i < count && seen[i].cpu != cpu)
                seen[i].cpu = cpu, seen[i].since = now;
            else if (i < count && now - seen[i].since >= STALL_SECONDS) {
                snprintf(why, size, "thread %ld (jevtls-churn) had no processor time for %d s, in state %c: the "
                         "JVM hangs", seen[i].tid, STALL_SECONDS, state);
                stalled = 1;
            }
        }
        if (tasks)
            closedir(tasks);
        if (stalled)
            break;
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
    int killed = watch(&p, why, sizeof(why));
    jvmrun_finish(&p, &r);
    double took = seconds_now() - start;
    printf("JDK %d: %s after %.1f s, exit %d\n%s", _i, killed ? why : "ended", took, r.exit_code, r.out);
    fflush(stdout);
    ck_assert_msg(!killed, "%s, after %.1f s\n%s", why, took, r.err);
    ck_assert_msg(r.exit_code == 0, "exit %d after %.1f s\n%s", r.exit_code, took, r.err);
    ck_assert_int_eq(tk_count(r.out, "tls rounds "), 2);
    ck_assert_ptr_null(strstr(r.out, "tls rounds -1"));
    snprintf(path, sizeof(path), "%s/jevprof.collapsed", dir);
    char *collapsed = tk_read_file(path);
    unsigned long long churning = samples_with(collapsed, "NativeWorkload.churnTls", NULL),
                       allocating = samples_with(collapsed, "NativeWorkload.churnTls", "libc.so.6`_int_");
    printf("JDK %d: %llu samples in churnTls, %llu of them in the allocator's _int_ functions\n", _i, churning,
           allocating);
    ck_assert_uint_ge(churning, 2000);
    ck_assert_uint_ge(allocating, 1);
    free(collapsed);
    jvmrun_free(&r);
    jvmrun_remove_shell_dir(dir, "jevprof.reg jevprof-report.txt jevprof.collapsed jevprof-flame.html jevprof.pb.gz");
}
END_TEST

int main(void)
{
    if ((jdk_count = jvmrun_suite_jdks(jdks)) == 0)
        return 0;
    Suite *s = suite_create("tls_churn");
    TCase *tc = tcase_create("churn");
    tcase_set_timeout(tc, 2 * RUN_LIMIT_SECONDS);
    tcase_add_loop_test(tc, threads_loading_libraries_with_thread_locals_are_sampled, 0, jdk_count);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
