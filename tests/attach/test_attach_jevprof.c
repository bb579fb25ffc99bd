/*
 * test_attach_jevprof.c - jevprof started with the program (every JDK under /usr/lib/jvm) and
 * driven by loads of the agent with that JDK's jcmd, and its continuous profiles.
 *
 *   - jevprof started with the program, in calls mode: status, dump twice (each report holding
 *     every call so far, exactly), stop (the files stay as it wrote them), then start: a new
 *     profile, empty, holding exactly the calls made after it.
 *   - JEVPROF_LOOP=1: 60 periods of one second, each its own time-stamped files, the JVM's
 *     resident memory at the last within 10% of the tenth; in calls mode, every call in exactly
 *     one period.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../support/testkit.h"
#include "attach_run.h"

static char jdks[JVMRUN_MAX_JDKS][512];

/* Starts AttachWorkload with the bridge and jevprof (its COM class registered in a fresh
 * directory named after name, its files there) under settings ("JEVPROF_MODE=calls", ...,
 * NULL), and waits until it is ready. */
static void start_jevprof(jvmrun_process *p, const char *jdk, jevprof_files *files, const char *name,
                          const char *const *settings)
{
    jevprof_directory(files, name);
    const char *env[16] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" JEVPROF, files->registry_env,
                           files->output_env};
    size_t n = 4;
    while (*settings && n < sizeof(env) / sizeof(*env) - 1)
        env[n++] = *settings++;
    env[n] = NULL;
    start_waiting(p, jdk, "", env);
}

START_TEST(jevprof_takes_status_dump_and_stop)
{
    const char *jdk = jdks[_i];
    const char *settings[] = {"JEVPROF_MODE=calls", "JEVPROF_TOP=1000", NULL};
    jevprof_files files;
    jvmrun_process p;
    jvmrun_result r;
    start_jevprof(&p, jdk, &files, "jevprof-attach.XXXXXX", settings);
    const char *dir = files.dir;
    work(&p, "work 300", "done 300 ");
    ck_assert_int_eq(jcmd_load(jdk, p.pid, "status"), 0);
    ck_assert_int_eq(jcmd_load(jdk, p.pid, "dump"), 0);
    char *first = read_file(dir, "jevprof-report.txt");
    ck_assert_ptr_nonnull(first);
    ck_assert_uint_eq(report_calls(first, "AttachWorkload.attachWork(int)"), 300);
    work(&p, "work 700", "done 700 ");
    ck_assert_int_eq(jcmd_load(jdk, p.pid, " dump "), 0);
    char *second = read_file(dir, "jevprof-report.txt");
    ck_assert_ptr_nonnull(second);
    ck_assert_uint_eq(report_calls(second, "AttachWorkload.attachWork(int)"), 1000);
    ck_assert_int_eq(jcmd_load(jdk, p.pid, "stop"), 0);
    work(&p, "work 500", "done 500 "); /* after the stop: not recorded */
    ck_assert_int_eq(jcmd_load(jdk, p.pid, "status"), 0);
    char *stopped = read_file(dir, "jevprof-report.txt");
    ck_assert_ptr_nonnull(stopped);
    ck_assert_uint_eq(report_calls(stopped, "AttachWorkload.attachWork(int)"), 1000);
    ck_assert_int_eq(jcmd_load(jdk, p.pid, "start"), 0); /* a new profile, empty */
    work(&p, "work 200", "done 200 ");
    ck_assert_int_eq(jcmd_load(jdk, p.pid, "dump"), 0);
    char *restarted = read_file(dir, "jevprof-report.txt");
    ck_assert_ptr_nonnull(restarted);
    ck_assert_uint_eq(report_calls(restarted, "AttachWorkload.attachWork(int)"), 200);
    ck_assert_int_eq(jcmd_load(jdk, p.pid, "start"), 0); /* recording: the status */
    jvmrun_send(&p, "quit");
    jvmrun_finish(&p, &r);

    ck_assert_msg(r.exit_code == 0, "exit %d, stderr:\n%s", r.exit_code, r.err);
    char *own = own_output(r.out);
    ck_assert_str_eq(own, "ready\ndone 300 90000\ndone 700 490000\ndone 500 250000\ndone 200 40000\n");
    free(own);
    char wrote_report[2600];
    snprintf(wrote_report, sizeof(wrote_report), "wrote %s/jevprof-report.txt, %s/jevprof.collapsed", dir, dir);
    const char *answers[] = {"jevmon: jevprof: recording calls for ", "jevmon: jevprof: dumped the profile so far, recording goes on: ",
                             wrote_report, "jevmon: jevprof: dumped the profile so far", "jevmon: jevprof: stopped after ",
                             "jevmon: jevprof: stopped after ", "jevmon: jevprof: started a new profile; recording calls for ",
                             "jevmon: jevprof: dumped the profile so far", "jevmon: jevprof: recording calls for "};
    assert_in_order(r.out, answers, sizeof(answers) / sizeof(*answers));
    /* two dumps, the stop and a dump, each in its answer (no reply file: standard output); SHUTDOWN's */
    ck_assert_int_eq(tk_count(r.out, "jevmon: jevprof: wrote "), 4);
    ck_assert_int_eq(tk_count(r.err, "jevmon: jevprof: wrote "), 1);
    char *last = read_file(dir, "jevprof-report.txt");
    ck_assert_ptr_nonnull(last);
    ck_assert_uint_eq(report_calls(last, "AttachWorkload.attachWork(int)"), 200); /* the new profile, at the end */
    char *pprof = read_file(dir, "jevprof.pb.gz");
    ck_assert_ptr_nonnull(pprof);
    free(first), free(second), free(stopped), free(restarted), free(last), free(pprof);
    jvmrun_free(&r);
    remove_directory(dir);
}
END_TEST

/* How many files in dir end with suffix. */
static int files_ending(const char *dir, const char *suffix)
{
    char command[1400], line[64];
    snprintf(command, sizeof(command), "ls '%s' | grep -c -- '%s$'", dir, suffix);
    FILE *f = popen(command, "r");
    int count = f && fgets(line, sizeof(line), f) ? atoi(line) : -1;
    if (f)
        pclose(f);
    return count;
}

/* The process's resident memory in KiB (VmRSS). */
static long resident_kib(int pid)
{
    char path[64], line[256];
    long kib = -1;
    snprintf(path, sizeof(path), "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "VmRSS: %ld", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

START_TEST(continuous_profiles_keep_memory_flat)
{
    const char *jdk = jdks[_i];
    const char *settings[] = {"JEVPROF_MODE=sample,alloc", "JEVPROF_LOOP=1", "JEVMON_ALLOCATION_SAMPLING_INTERVAL=65536",
                              NULL};
    jevprof_files files;
    jvmrun_process p;
    jvmrun_result r;
    start_jevprof(&p, jdk, &files, "jevprof-loop.XXXXXX", settings);
    const char *dir = files.dir;
    long tenth = -1, last = -1;
    int periods = 0, rounds = 0;
    for (double deadline = now() + 150; periods < 60 && now() < deadline; rounds++) {
        work(&p, "work 2000000", "done 2000000 ");
        periods = files_ending(dir, "-report.txt");
        if (periods >= 10 && tenth < 0)
            tenth = resident_kib(p.pid);
        last = resident_kib(p.pid);
        struct timespec pause = {0, 50000000};
        nanosleep(&pause, NULL);
    }
    jvmrun_send(&p, "quit");
    jvmrun_finish(&p, &r);
    ck_assert_msg(r.exit_code == 0, "exit %d, stderr:\n%s", r.exit_code, r.err);
    ck_assert_msg(periods >= 60, "%d periods in 150 s", periods);
    printf("%s: %d periods, resident %ld KiB at the tenth, %ld KiB at the last\n", jdk, periods, tenth, last);
    ck_assert_msg(jvmrun_sanitized() || (tenth > 0 && last <= tenth + tenth / 10), /* see jvmrun_sanitized */
                  "resident %ld KiB at the tenth period, %ld at the last",
                  tenth, last);
    ck_assert_int_eq(files_ending(dir, "-report.txt"), files_ending(dir, "-alloc.pb.gz")); /* each complete */
    char plain[1300];
    snprintf(plain, sizeof(plain), "%s/jevprof-report.txt", dir);
    ck_assert_int_ne(access(plain, F_OK), 0); /* never the plain names */
    char *own = own_output(r.out);
    ck_assert_int_eq(tk_count(own, "done 2000000 "), rounds);
    free(own);
    jvmrun_free(&r);
    remove_directory(dir);
}
END_TEST

/* JEVPROF_LOOP in calls mode: each period holds the calls that ended in it, each call in one
 * period only; periods start empty, and the stop writes the last. */
START_TEST(continuous_calls_hold_each_call_once)
{
    const char *jdk = jdks[_i];
    const char *settings[] = {"JEVPROF_MODE=calls", "JEVPROF_LOOP=1", "JEVPROF_TOP=1000", NULL};
    jevprof_files files;
    jvmrun_process p;
    jvmrun_result r;
    struct timespec over_a_period = {2, 200000000};
    start_jevprof(&p, jdk, &files, "jevprof-loopcalls.XXXXXX", settings);
    const char *dir = files.dir;
    work(&p, "work 300", "done 300 ");
    nanosleep(&over_a_period, NULL); /* a period ends meanwhile */
    work(&p, "work 700", "done 700 ");
    nanosleep(&over_a_period, NULL);
    ck_assert_int_eq(jcmd_load(jdk, p.pid, "stop"), 0);
    jvmrun_send(&p, "quit");
    jvmrun_finish(&p, &r);
    ck_assert_msg(r.exit_code == 0, "exit %d, stderr:\n%s", r.exit_code, r.err);
    ck_assert_msg(!strstr(r.err, "JEVPROF_LOOP"), "%s", r.err); /* calls mode takes the setting */
    char command[1400], name[512];
    snprintf(command, sizeof(command), "ls '%s' | grep -- '-report.txt$'", dir);
    FILE *list = popen(command, "r");
    ck_assert_ptr_nonnull(list);
    unsigned long long sum = 0, most = 0;
    int periods = 0;
    while (fgets(name, sizeof(name), list)) {
        name[strcspn(name, "\n")] = '\0';
        char *report = read_file(dir, name);
        ck_assert_ptr_nonnull(report);
        unsigned long long calls = strstr(report, "  AttachWorkload.attachWork(int)\n")
                                       ? report_calls(report, "AttachWorkload.attachWork(int)") : 0;
        sum += calls, most = calls > most ? calls : most, periods++;
        free(report);
    }
    pclose(list);
    ck_assert_msg(periods >= 3, "%d periods", periods);
    ck_assert_uint_eq(sum, 1000);  /* each call once */
    ck_assert_uint_le(most, 700); /* the periods started empty */
    ck_assert_int_eq(files_ending(dir, "-report.txt"), files_ending(dir, ".pb.gz"));
    char plain[1300];
    snprintf(plain, sizeof(plain), "%s/jevprof-report.txt", dir);
    ck_assert_int_ne(access(plain, F_OK), 0);
    jvmrun_free(&r);
    remove_directory(dir);
}
END_TEST

static void add_tests(TCase *tc, int jdk_count)
{
    tcase_add_loop_test(tc, jevprof_takes_status_dump_and_stop, 0, jdk_count);
    tcase_add_loop_test(tc, continuous_profiles_keep_memory_flat, 0, jdk_count);
    tcase_add_loop_test(tc, continuous_calls_hold_each_call_once, 0, jdk_count);
}

int main(void)
{
    return attach_suite_main("attach_jevprof", jdks, add_tests);
}
