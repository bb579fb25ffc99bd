/*
 * test_jevprof_output.c - jevprof's output directory on real JVMs, as root: one jevprof makes is
 * private whatever the umask; two runs in one directory at once (each keeps its own files; no file
 * of another run is removed); a directory that cannot be written in (said at the start) and a
 * write error (its reason said); then no call lost to the periods of JEVPROF_LOOP, in the reports
 * or in the pprof files (with JEVPROF_MIN_SHARE=0, nothing folded).  Other users' links and
 * directories are test_jevprof_files.c's.
 */
#include <check.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../support/testkit.h"
#include "jevprof_dirs.h"

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

/* An output directory jevprof makes (with its parents) is its user's alone, whatever the umask
 * (002 would make it group-writable, which jevprof refuses): the files go there. */
START_TEST(a_directory_jevprof_makes_is_private)
{
    test_dirs d;
    char out[1200];
    jvmrun_result r;
    make_base(&d);
    snprintf(out, sizeof(out), "%s/made/by/jevprof", d.base);
    mode_t was = umask(002);
    run_workload(jdks[0], &d, out, "sample", &r);
    umask(was);
    ck_assert_msg(!strstr(r.err, "will not write"), "%s", r.err);
    expect_report_in(out, 0755);
    jvmrun_free(&r);
    remove_tree(&d);
}
END_TEST

/* The pid of a process that has ended. */
static pid_t ended_pid(void)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    ck_assert_int_gt(pid, 0);
    ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
    return pid;
}

/*
 * One JVM runs (AttachWorkload, waiting on its input) while another writes into the same
 * directory with the same prefix: the second writes "<prefix>-<its pid>*" and says so; the first
 * then writes its own files and leaves the second's.  A later run in another mode takes over a
 * dead process's lock file, and leaves (naming them) the earlier runs' files it does not write.
 */
START_TEST(runs_at_once_keep_their_own_files)
{
    test_dirs d;
    char out[1200], line[4000], name[256];
    jvmrun_result r;
    make_base(&d);
    make_dir(&d, "out", 0755, 0, out, sizeof(out));
    jvmrun_process first;
    start_waiting(jdks[0], &d, out, &first);
    char *lock = read_in(out, "jevprof.lock");
    ck_assert_int_eq(atoi(lock), first.pid);
    free(lock);

    run_workload(jdks[0], &d, out, "sample", &r);
    const char *said = strstr(r.err, "this run's files are ");
    ck_assert_msg(said, "%s", r.err);
    /* the number after the line's last '-' (not a later line's: a native frame like ld-linux-x86-64's) */
    const char *dash = NULL;
    for (const char *c = said; *c && *c != '\n'; c++)
        if (*c == '-')
            dash = c;
    ck_assert_ptr_nonnull(dash);
    int second = atoi(dash + 1);
    snprintf(line, sizeof(line), "jevmon: jevprof: %s/jevprof* are being written by process %d; this run's files are %s/jevprof-%d*",
             out, first.pid, out, second);
    expect_first(r.err, line);
    snprintf(name, sizeof(name), "jevprof-%d-report.txt", second);
    char *report = read_in(out, name), *firsts = read_in(out, "jevprof-report.txt");
    expect(report, "Program: Workload");
    ck_assert_str_eq(firsts, ""); /* not written yet: the first still runs */
    free(report), free(firsts);
    jvmrun_free(&r);

    jvmrun_send(&first, "quit");
    jvmrun_finish(&first, &r);
    ck_assert_int_eq(r.exit_code, 0);
    firsts = read_in(out, "jevprof-report.txt"), report = read_in(out, name);
    expect(firsts, "Program: AttachWorkload");
    expect(report, "Program: Workload"); /* the first left the second's files */
    lock = read_in(out, "jevprof.lock");
    ck_assert_str_eq(lock, ""); /* gone with the first */
    free(report), free(firsts), free(lock);
    jvmrun_free(&r);

    /* a dead run's lock is taken over; the sample runs' files alloc mode does not write are left */
    snprintf(line, sizeof(line), "%s/jevprof.lock", out);
    FILE *f = fopen(line, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "%d\n", (int)ended_pid());
    fclose(f);
    run_workload(jdks[0], &d, out, "alloc", &r);
    snprintf(line, sizeof(line), "jevmon: jevprof: left %s/jevprof.collapsed, %s/jevprof-flame.html, %s/jevprof.pb.gz as they are",
             out, out, out);
    expect(r.err, line);
    ck_assert_msg(!strstr(r.err, "are being written by process"), "%s", r.err);
    char *collapsed = read_in(out, "jevprof.collapsed"), *alloc = read_in(out, "jevprof-alloc.collapsed");
    ck_assert_ptr_nonnull(collapsed); /* left: AttachWorkload's (it may have used too little processor time for a sample) */
    expect(alloc, "Workload");
    free(collapsed), free(alloc);
    jvmrun_free(&r);
    remove_tree(&d);
}
END_TEST

/*
 * An output directory nobody can write in (immutable: not even root) is said at the start, and
 * the files go to the private directory.  A write that fails (a file size limit standing in for a
 * full disk) says its reason.
 */
START_TEST(write_problems_are_said_with_their_reason)
{
    test_dirs d;
    char locked[1200], out[1200], line[4000], command[1400];
    jvmrun_result r;
    make_base(&d);
    make_dir(&d, "locked", 0755, 0, locked, sizeof(locked));
    snprintf(command, sizeof(command), "chattr +i '%s'", locked);
    ck_assert_msg(system(command) == 0, "%s failed: the immutable flag is needed", command);
    run_workload(jdks[0], &d, locked, "sample", &r);
    snprintf(command, sizeof(command), "chattr -i '%s'", locked);
    ck_assert_int_eq(system(command), 0);
    snprintf(line, sizeof(line), "jevmon: jevprof: cannot write in the output directory %s: Operation not permitted; the files go to %s instead",
             locked, d.private_dir);
    expect_first(r.err, line);
    char *report = read_in(d.private_dir, "jevprof-report.txt");
    expect(report, "jevprof report\n");
    free(report);
    jvmrun_free(&r);

    make_dir(&d, "out", 0755, 0, out, sizeof(out));
    struct rlimit was, limit;
    ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &was), 0);
    limit = was;
    limit.rlim_cur = 2 << 10; /* under any report's size: Hello world's, one sample, took 3.6 KiB */
    void (*handler)(int) = signal(SIGXFSZ, SIG_IGN);
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &limit), 0);
    run_workload(jdks[0], &d, out, "sample", &r);
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &was), 0);
    signal(SIGXFSZ, handler);
    snprintf(line, sizeof(line), "jevmon: jevprof: cannot write %s/jevprof-report.txt: File too large", out);
    expect(r.err, line);
    char *report_part = read_in(out, "jevprof-report.txt");
    ck_assert_str_eq(report_part, ""); /* no half file */
    free(report_part);
    jvmrun_free(&r);
    remove_tree(&d);
}
END_TEST

/* The calls of name in the report's table of methods by total time, summed over its rows (two
 * methods may share a name); 0 when it has none.  Each row's share of the whole must be a share. */
static unsigned long long calls_of(const char *report, const char *name)
{
    const char *table = strstr(report, " methods by total time\n"), *end = table ? strstr(table, "\n\n") : NULL;
    size_t length = strlen(name);
    unsigned long long sum = 0;
    for (const char *line = table ? strchr(table + 1, '\n') + 1 : NULL; line && line < end;) {
        unsigned long long calls;
        double share;
        int at = 0;
        if (sscanf(line, "%*f ms %*f%% %*f ms %lf%% %llu  %n", &share, &calls, &at) == 2 && at > 0 &&
            strncmp(line + at, name, length) == 0 && line[at + length] == '\n') {
            ck_assert_msg(share <= 100, "%.*s", (int)(strchr(line, '\n') - line), line);
            sum += calls;
        }
        line = strchr(line, '\n') + 1;
    }
    return sum;
}

/* The calls of each of names[0..count-1] that go tool pprof counts in a calls-mode pprof file
 * (-top: each function's flat calls) added to calls[]. */
static void add_pprof_calls(const char *dir, const char *file, const char *const *names, unsigned long long *calls,
                            size_t count)
{
    char command[2400], row[4096];
    snprintf(command, sizeof(command), "go tool pprof -top -sample_index=0 -nodecount=100000 -nodefraction=0 '%s/%s' 2>&1", dir, file);
    FILE *top = popen(command, "r");
    ck_assert_ptr_nonnull(top);
    while (fgets(row, sizeof(row), top)) {
        unsigned long long flat;
        int at = 0;
        row[strcspn(row, "\n")] = '\0';
        if (sscanf(row, "%llu %*s %*s %*s %*s %n", &flat, &at) != 1 || at == 0)
            continue;
        for (size_t i = 0; i < count; i++)
            if (strcmp(row + at, names[i]) == 0)
                calls[i] += flat;
    }
    ck_assert_int_eq(pclose(top), 0);
}

/*
 * Calls mode with a period of 1 s (JEVPROF_LOOP) over a run of several (the workers pace their
 * rounds over 3.5 s at least, so that three periods end while they work on any machine), every
 * path kept (JEVPROF_MIN_SHARE=0): the periods' reports together count every call Workload is known to
 * make, none lost while a period's trees are copied; and so do their pprof files, where a call
 * still running at a period's end (each worker's run(), in the first) is not moved into its
 * caller, nor is any other call, though the first period's collapsed file is folded to fit.  The
 * reports' shares are of each period's whole, finished calls under open frames included.
 */
START_TEST(periods_lose_no_call)
{
    static const char *const names[] = {"Workload.hot(long)", "Workload.fib(int)", "Workload$Worker.run()",
                                        "Workload.main(java.lang.String[])"};
    /* 8 threads x 60000 rounds; fib(15), 1973 calls, every 100 rounds; 8 workers; main once,
     * its join of the first worker open for the whole run, no weight in any period but the last */
    static const unsigned long long truth[] = {480000, 8ull * 600 * 1973, 8, 1};
    unsigned long long reported[4] = {0}, in_pprof[4] = {0}, reports = 0;
    int go = system("command -v go >/dev/null") == 0;
    test_dirs d;
    char out[1200];
    jvmrun_result r;
    make_base(&d);
    make_dir(&d, "out", 0755, 0, out, sizeof(out));
    const char *args[] = {"60000", "3.5", NULL}, *settings[] = {"JEVPROF_LOOP=1", "JEVPROF_MIN_SHARE=0", NULL};
    run_in(jdks[_i], &d, out, "calls", "Workload", args, settings, &r);
    ck_assert_msg(r.exit_code == 0, "%s", r.err);
    expect(r.out, "threads 8, rounds 60000\n");
    DIR *dir = opendir(out);
    ck_assert_ptr_nonnull(dir);
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        size_t length = strlen(e->d_name);
        if (length > 11 && strcmp(e->d_name + length - 11, "-report.txt") == 0) {
            char *report = read_in(out, e->d_name);
            for (size_t i = 0; i < 2; i++) /* run() and main have no time in the first period: past its rows */
                reported[i] += calls_of(report, names[i]);
            reports++;
            free(report);
        } else if (go && length > 6 && strcmp(e->d_name + length - 6, ".pb.gz") == 0)
            add_pprof_calls(out, e->d_name, names, in_pprof, 4);
    }
    closedir(dir);
    printf("JDK %d: %llu periods\n", _i, reports);
    ck_assert_uint_ge(reports, 3);
    for (size_t i = 0; i < 4; i++) {
        ck_assert_msg(i >= 2 || reported[i] == truth[i], "%s: %llu calls in the reports, not %llu", names[i],
                      reported[i], truth[i]);
        ck_assert_msg(!go || in_pprof[i] == truth[i], "%s: %llu calls in the pprof files, not %llu", names[i],
                      in_pprof[i], truth[i]);
    }
    if (!go)
        fprintf(stderr, "skipped: no go (golang-go): the pprof files' counts are not read\n");
    jvmrun_free(&r);
    remove_tree(&d);
}
END_TEST

int main(void)
{
    if (!(jdk_count = root_suite_jdks(jdks, "the tests make directories of root's, one immutable")))
        return 0;
    Suite *s = suite_create("jevprof_output");
    TCase *tc = tcase_create("jevprof_output");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, a_directory_jevprof_makes_is_private);
    tcase_add_test(tc, runs_at_once_keep_their_own_files);
    tcase_add_test(tc, write_problems_are_said_with_their_reason);
    tcase_add_loop_test(tc, periods_lose_no_call, 0, jdk_count);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
