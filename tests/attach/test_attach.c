/*
 * test_attach.c - loading the agent into a running JVM (every JDK under /usr/lib/jvm), with
 * that JDK's jcmd: `jcmd <pid> JVMTI.agent_load libjevmon.so <options>`.  AttachWorkload
 * waits on its standard input; the fx_attach monitor counts and takes commands.
 *
 *   - attached with the monitor named in the options: Initialize, MONITORS_INITIALIZED,
 *     INITIALIZED, then THREAD_CREATE for the threads already running (the one calling
 *     attachWork among them) and JIT_COMPILE_FINISHED for code compiled before; calls made after the attach counted exactly (instrumented);
 *     the program's own output unchanged; the capabilities a late agent lacks named one line
 *     each; a second load is a command, not a second bridge.
 *   - attached with methods=jvmti, or with a monitor that did not promise what instrumentation
 *     needs: HotSpot grants no method events to a late agent: one line each for the two
 *     capabilities, METHOD_CALLS masked off in one line, no calls delivered.
 *   - a load that starts nothing (monitors disabled, or none to load) returns 1 or 2, and a
 *     later load starts the bridge afresh.
 *   - started with the agent (both method-call paths): loads into it are commands; counts
 *     exact; answers on stdout prefixed, the outcome in jcmd's "return code".
 *   - jevprof started with the program, in calls mode: status, dump twice (each report holding
 *     every call so far, exactly), stop (the files stay as it wrote them), then start: a new
 *     profile, empty, holding exactly the calls made after it.
 *   - JEVPROF_LOOP=1: 60 periods of one second, each its own time-stamped files, the JVM's
 *     resident memory at the last within 10% of the tenth; in calls mode, every call in exactly
 *     one period.
 *   - bin/jevprof --pid: start attaches the bridge with jevprof to a JVM that has neither,
 *     dump and stop drive it, settings are refused, a JVM without the bridge is told apart;
 *     every answer (status, dump, stop, a refused mode or setting, a file not written and why)
 *     is printed by bin/jevprof, a refusal with a non-zero status; the program's output holds
 *     none of them.
 *   - bin/jevprof attaches through the JVM's socket (jevprof-attach), starting no JVM of its
 *     own: it works where no JVM can start; what it cannot attach to (a process that is not a
 *     JVM, -XX:+DisableAttachMechanism, a socket of another user, a JVM that does not answer)
 *     is said in one line with status 1, and neither is sent SIGQUIT when that is known first;
 *     options over 1024 bytes go in protocol 2 (JDK 24 and later), refused in one line before.
 */
#include <check.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../support/testkit.h"
#include "support/jvmrun.h"

#define FX_ATTACH "{D90F8947-5159-428E-9FA8-E9A83B220B7C}"
#define JEVPROF "{75CDC682-D602-4669-A56F-09797AC9C430}"

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

/* `jcmd <pid> JVMTI.agent_load <agent> '<options>'` with the JDK's own jcmd; returns the agent's
 * return code as jcmd prints it, -1 when it printed none. */
static int jcmd_load(const char *jdk, int pid, const char *options)
{
    char command[3 * 4096], line[512];
    snprintf(command, sizeof(command), "'%.*s/jcmd' %d JVMTI.agent_load '%s' '%s' 2>&1", (int)(strrchr(jdk, '/') - jdk),
             jdk, pid, jvmrun_build_path("libjevmon.so"), options);
    FILE *f = popen(command, "r");
    int code = -1, echoed = 0;
    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "return code: %d", &code) != 1 && !(sscanf(line, "%d:", &echoed) == 1 && echoed == pid))
            printf("jcmd: %s", line); /* anything but its echo of the pid and the code */
    if (f)
        pclose(f);
    return code;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The program's output without the bridge's lines. */
static char *own_output(const char *out)
{
    char *own = calloc(1, strlen(out) + 1), *to = own;
    for (const char *line = out; *line;) {
        size_t len = strcspn(line, "\n") + (line[strcspn(line, "\n")] == '\n');
        if (strncmp(line, "jevmon: ", 8) != 0) {
            memcpy(to, line, len);
            to += len;
        }
        line += len;
    }
    return own;
}

/* Does each text appear in text after the one before? */
static void assert_in_order(const char *text, const char *const *items, size_t count)
{
    const char *at = text;
    for (size_t i = 0; i < count; i++) {
        const char *found = strstr(at, items[i]);
        ck_assert_msg(found, "missing or out of order: \"%s\" in:\n%s", items[i], text);
        at = found + strlen(items[i]);
    }
}

static void work(jvmrun_process *p, const char *line, const char *done)
{
    jvmrun_send(p, line);
    ck_assert_msg(jvmrun_wait_output(p, done, 1, 60000), "no \"%s\" from the program", done);
}

static void start_waiting(jvmrun_process *p, const char *jdk, const char *agent_options, const char *const *env)
{
    const char *args[] = {NULL};
    jvmrun_start(p, jdk, "AttachWorkload", agent_options, env, args);
    ck_assert_msg(jvmrun_wait_output(p, "ready", 1, 60000), "the program did not start");
}

START_TEST(attached_monitor_sees_live_threads_and_exact_calls)
{
    const char *env[] = {"FXATTACH_REQUEST=106", NULL}; /* METHOD_CALLS | THREADS | JIT_COMPILATION */
    jvmrun_process p;
    jvmrun_result r;
    start_waiting(&p, jdks[_i], NULL, env);
    double t0 = now();
    ck_assert_int_eq(jcmd_load(jdks[_i], p.pid, "\"enable,monitors=" FX_ATTACH "\""), 0);
    printf("%s: attached in %.0f ms\n", jdks[_i], (now() - t0) * 1000);
    ck_assert_int_eq(jcmd_load(jdks[_i], p.pid, "counts"), 0); /* the second load: a command */
    work(&p, "work 1000", "done 1000 ");
    work(&p, "work 500", "done 500 ");
    ck_assert_int_eq(jcmd_load(jdks[_i], p.pid, "counts"), 0);
    jvmrun_send(&p, "quit");
    jvmrun_finish(&p, &r);

    ck_assert_msg(r.exit_code == 0, "exit %d, stderr:\n%s", r.exit_code, r.err);
    const char *order[] = {"attach Initialize class=AttachWorkload", "attach MONITORS_INITIALIZED 1",
                           "attach INITIALIZED", "attach THREAD_CREATE", "attach Command counts",
                           "attach Command counts", "attach SHUTDOWN counts entries=1500 exits=1500 unannounced=0"};
    assert_in_order(r.log, order, sizeof(order) / sizeof(*order));
    ck_assert_int_eq(tk_count(r.log, "Initialize"), 1);
    const char *first = strstr(r.out, "jevmon: counts entries=0 exits=0 unannounced=0 threads=");
    long threads = 0, compiled = 0;
    ck_assert_msg(first && sscanf(first, "jevmon: counts entries=0 exits=0 unannounced=0 threads=%ld compiled=%ld",
                                  &threads, &compiled) == 2, "stdout:\n%s", r.out);
    printf("%s: at the attach %ld threads announced, %ld compiled methods replayed\n", jdks[_i], threads, compiled);
    ck_assert_int_ge(threads, 5); /* main, attach-sleeper, the Attach Listener and the JDK's own daemons */
    ck_assert_int_gt(compiled, 0);
    ck_assert_msg(strstr(r.out, "jevmon: counts entries=1500 exits=1500 unannounced=0 threads="), "stdout:\n%s", r.out);
    char *own = own_output(r.out);
    ck_assert_str_eq(own, "ready\ndone 1000 1000000\ndone 500 250000\n");
    free(own);
    ck_assert_int_eq(tk_count(r.err, "jevmon: method calls via bytecode instrumentation"), 1);
    /* HotSpot grants breakpoints only at start-up, but THREADS needs none where classes can be
     * retransformed, as they can after an attach: Thread.setName is rewritten (instrument/watch.h). */
    ck_assert_msg(!strstr(r.err, "jevmon: can_generate_breakpoint_events") && !strstr(r.err, "could not rewrite") &&
                      !strstr(r.err, "refused to turn JVMTI event") && !strstr(r.err, "could not watch Thread.setName"),
                  "stderr:\n%s", r.err);
    jvmrun_free(&r);
}
END_TEST

START_TEST(loads_that_start_nothing_leave_nothing_behind)
{
    jvmrun_process p;
    jvmrun_result r;
    start_waiting(&p, jdks[_i], NULL, NULL);
    ck_assert_int_eq(jcmd_load(jdks[_i], p.pid, "disable"), 1);
    ck_assert_int_eq(jcmd_load(jdks[_i], p.pid, "enable"), 2); /* no monitor anywhere */
    ck_assert_int_eq(jcmd_load(jdks[_i], p.pid, "\"enable,monitors=" FX_ATTACH "\""), 0);
    ck_assert_int_eq(jcmd_load(jdks[_i], p.pid, "counts"), 0);
    jvmrun_send(&p, "quit");
    jvmrun_finish(&p, &r);

    ck_assert_msg(r.exit_code == 0, "exit %d, stderr:\n%s", r.exit_code, r.err);
    ck_assert_int_eq(tk_count(r.err, "event monitors are not enabled (agent option disable)"), 1);
    ck_assert_int_eq(tk_count(r.err, "no monitor runs; nothing started"), 1);
    ck_assert_int_eq(tk_count(r.log, "Initialize"), 1);
    ck_assert_int_eq(tk_count(r.out, "jevmon: counts entries=0"), 1);
    jvmrun_free(&r);
}
END_TEST

/* Attached without instrumentation: by the option, or because the monitor made no promises. */
static const struct {
    const char *options, *env, *masked;
} no_instrumentation[] = {
    {"\"enable,methods=jvmti,monitors=" FX_ATTACH "\"", NULL,
     "requested event categories 0x2 that this bridge cannot deliver here; masked off"},
    {"\"enable,monitors=" FX_ATTACH "\"", "FXATTACH_OPTIONS=0",
     "event categories 0x2 cannot be delivered with the capabilities this JVM granted; masked off"},
};

START_TEST(attached_jvmti_path_has_no_method_events)
{
    const char *jdk = jdks[_i / 2];
    const char *env[] = {no_instrumentation[_i % 2].env, NULL};
    jvmrun_process p;
    jvmrun_result r;
    start_waiting(&p, jdk, NULL, env);
    ck_assert_int_eq(jcmd_load(jdk, p.pid, no_instrumentation[_i % 2].options), 0);
    work(&p, "work 100", "done 100 ");
    jvmrun_send(&p, "quit");
    jvmrun_finish(&p, &r);

    ck_assert_msg(r.exit_code == 0, "exit %d, stderr:\n%s", r.exit_code, r.err);
    ck_assert_msg(strstr(r.log, "attach SHUTDOWN counts entries=0 exits=0 unannounced=0"), "log:\n%s", r.log);
    ck_assert_int_eq(tk_count(r.err, no_instrumentation[_i % 2].masked), 1);
    ck_assert_int_eq(tk_count(r.err, "masked off"), 1);
    ck_assert_int_eq(tk_count(r.err, "can_generate_method_entry_events: HotSpot grants it only"), 1);
    ck_assert_int_eq(tk_count(r.err, "can_generate_method_exit_events: HotSpot grants it only"), 1);
    ck_assert_int_eq(tk_count(r.err, "method calls via"), 0);
    jvmrun_free(&r);
}
END_TEST

/* A JVM started with the agent: every load into it is a command, on both method-call paths. */
static const char *const start_options[] = {"methods=auto", "methods=jvmti"};

START_TEST(loads_into_a_bridge_started_with_the_jvm_are_commands)
{
    const char *jdk = jdks[_i / 2], *options = start_options[_i % 2];
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX_ATTACH, NULL};
    jvmrun_process p;
    jvmrun_result r;
    start_waiting(&p, jdk, options, env);
    work(&p, "work 300", "done 300 ");
    ck_assert_int_eq(jcmd_load(jdk, p.pid, "counts"), 0);
    ck_assert_int_eq(jcmd_load(jdk, p.pid, "lines"), 0);
    ck_assert_int_eq(jcmd_load(jdk, p.pid, "not-its-command"), 3);
    ck_assert_int_eq(jcmd_load(jdk, p.pid, "fail"), 4);
    ck_assert_int_eq(jcmd_load(jdk, p.pid, ""), 3);
    work(&p, "work 700", "done 700 ");
    ck_assert_int_eq(jcmd_load(jdk, p.pid, "counts"), 0);
    jvmrun_send(&p, "quit");
    jvmrun_finish(&p, &r);

    ck_assert_msg(r.exit_code == 0, "exit %d, stderr:\n%s", r.exit_code, r.err);
    const char *answers[] = {"jevmon: counts entries=300 exits=300 unannounced=0", "jevmon: first line\njevmon: second line\n",
                             "jevmon: failing as asked\n", "jevmon: counts entries=1000 exits=1000 unannounced=0"};
    assert_in_order(r.out, answers, sizeof(answers) / sizeof(*answers));
    char *own = own_output(r.out);
    ck_assert_str_eq(own, "ready\ndone 300 90000\ndone 700 490000\n");
    free(own);
    ck_assert_int_eq(tk_count(r.log, "Initialize"), 1);
    ck_assert_int_eq(tk_count(r.err, "method calls via"), 1);
    ck_assert_int_eq(tk_count(r.err, "HotSpot grants it only"), 0);
    ck_assert_int_eq(tk_count(r.err, "jevmon: no monitor takes the command \"not-its-command\" (1 of 1 running "
                                     "monitors take commands)"), 1);
    ck_assert_int_eq(tk_count(r.err, "command \"fail\" failed (hr=0x80004005)"), 1);
    ck_assert_int_eq(tk_count(r.err, "and this load gave none"), 1);
    jvmrun_free(&r);
}
END_TEST

static char *read_file(const char *dir, const char *name)
{
    char path[1200];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = calloc(1, 1 << 22);
    size_t n = fread(text, 1, (1 << 22) - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

/* The calls of a method in jevprof's report (its row of the top methods by self time). */
static unsigned long long report_calls(const char *report, const char *method)
{
    char row_end[256];
    snprintf(row_end, sizeof(row_end), "  %s\n", method);
    const char *table = strstr(report, "methods by self time\n"), *row = table ? strstr(table, row_end) : NULL;
    ck_assert_msg(row, "no row for %s in:\n%s", method, report);
    while (row > table && row[-1] != '\n')
        row--;
    unsigned long long calls = 0;
    ck_assert_int_eq(sscanf(row, "%*s %*s %*s %*s %*s %*s %llu", &calls), 1); /* self ms self% total ms total% calls */
    return calls;
}

/* A fresh directory for jevprof's files, holding system.reg, a registry in which jevprof's COM
 * class is registered, and the environment that points the JVM and jevprof there. */
typedef struct jevprof_files {
    char dir[1200], registry_env[1400], output_env[1300];
} jevprof_files;

static void jevprof_directory(jevprof_files *files, const char *name)
{
    char reg[1300];
    snprintf(files->dir, sizeof(files->dir), "%s", jvmrun_build_path(name));
    ck_assert_ptr_nonnull(mkdtemp(files->dir));
    snprintf(reg, sizeof(reg), "%s/system.reg", files->dir);
    FILE *f = fopen(reg, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "Windows Registry Editor Version 5.00\n\n[HKEY_CLASSES_ROOT\\CLSID\\" JEVPROF
               "\\InprocServer32]\n@=\"%s\"\n\"ThreadingModel\"=\"Both\"\n",
            jvmrun_build_path("libjevprof.so"));
    fclose(f);
    snprintf(files->registry_env, sizeof(files->registry_env), "JEVMON_REGISTRY_SYSTEM=%s", reg);
    snprintf(files->output_env, sizeof(files->output_env), "JEVPROF_OUTPUT_DIR=%s", files->dir);
}

/* After a passing test: its directory goes (a failing one stays, to be looked at). */
static void remove_directory(const char *dir)
{
    char command[1400];
    snprintf(command, sizeof(command), "rm -rf '%s'", dir);
    ck_assert_int_eq(system(command), 0);
}

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

/* bin/jevprof with the arguments (printf-style), run in dir; its exit status, what it printed in *err. */
static int script(const char *dir, char **err, const char *format, ...) __attribute__((format(printf, 3, 4)));
static int script(const char *dir, char **err, const char *format, ...)
{
    char arguments[2048];
    va_list args;
    va_start(args, format);
    vsnprintf(arguments, sizeof(arguments), format, args);
    va_end(args);
    free(*err);
    return jvmrun_shell(dir, NULL, err, "'%s/bin/jevprof' %s", jvmrun_source_dir(), arguments);
}

static void assert_said(const char *err, const char *what)
{
    ck_assert_msg(err && strstr(err, what), "\"%s\" not in what bin/jevprof printed:\n%s", what, err);
}

START_TEST(the_script_attaches_jevprof_and_drives_it)
{
    const char *jdk = jdks[_i];
    char *err = NULL;
    jevprof_files files;
    jevprof_directory(&files, "jevprof-pid.XXXXXX"); /* jevprof registered where the JVM looks */
    const char *dir = files.dir;
    const char *env[] = {files.registry_env, files.output_env, "JEVPROF_MODE=calls", "JEVPROF_TOP=1000", NULL};
    jvmrun_process p;
    jvmrun_result r;
    const char *args[] = {NULL};
    jvmrun_start(&p, jdk, "AttachWorkload", NULL, env, args); /* no agent */
    ck_assert_msg(jvmrun_wait_output(&p, "ready", 1, 60000), "the program did not start");
    ck_assert_int_eq(script(dir, &err, "--pid %d dump", p.pid), 1); /* no bridge yet: nothing to dump */
    /* Every answer is printed by the command, the status after a start among them. */
    ck_assert_int_eq(script(dir, &err, "--pid %d start", p.pid), 0);
    assert_said(err, "jevmon: jevprof: recording calls for ");
    work(&p, "work 400", "done 400 ");
    ck_assert_int_eq(script(dir, &err, "--pid %d --mode sample dump", p.pid), 2); /* settings cannot reach it */
    ck_assert_int_eq(script(dir, &err, "--pid %d dump", p.pid), 0);
    assert_said(err, "jevmon: jevprof: dumped the profile so far, recording goes on: ");
    char *report = read_file(dir, "jevprof-report.txt");
    ck_assert_ptr_nonnull(report);
    ck_assert_uint_eq(report_calls(report, "AttachWorkload.attachWork(int)"), 400); /* exact since the attach */
    free(report);
    ck_assert_int_eq(script(dir, &err, "--pid %d status", p.pid), 0);
    assert_said(err, "jevmon: jevprof: recording calls for ");
    /* Refusals: a non-zero status and the reason, here. */
    ck_assert_int_eq(script(dir, &err, "--pid %d -e calls start", p.pid), 1);
    assert_said(err, "the settings are not taken while it records: stop it first");
    ck_assert_int_eq(script(dir, &err, "--pid %d stop", p.pid), 0);
    assert_said(err, "jevmon: jevprof: stopped after ");
    ck_assert_int_eq(script(dir, &err, "--pid %d -e cpu start", p.pid), 1);
    assert_said(err, "mode cpu needs what this jevprof did not set up");
    /* A file that cannot be written: why, and a non-zero status. */
    ck_assert_int_eq(script(dir, &err, "--pid %d -e calls -d 1 -f /proc/no-such-directory/p.txt", p.pid), 1);
    assert_said(err, "jevprof: /proc/no-such-directory/p.txt was not written");
    ck_assert_msg(tk_count(err, "/proc/no-such-directory/p.txt") >= 2, "no reason why:\n%s", err); /* jevprof's */
    ck_assert_int_eq(script(dir, &err, "--pid %d -e calls -d 1 -f '%s/d.txt'", p.pid, dir), 0);
    assert_said(err, "jevmon: jevprof: stopped after ");
    report = read_file(dir, "d.txt");
    ck_assert_ptr_nonnull(report);
    free(report);
    free(err);
    jvmrun_send(&p, "quit");
    jvmrun_finish(&p, &r);
    ck_assert_msg(r.exit_code == 0, "exit %d, stderr:\n%s", r.exit_code, r.err);
    ck_assert_str_eq(r.out, "ready\ndone 400 160000\n"); /* the program's output is its own */
    jvmrun_free(&r);
    remove_directory(dir);
}
END_TEST

/* The one line bin/jevprof printed: status 1, "jevprof: PID: " and what. */
static void assert_refused(int status, const char *err, int pid, const char *what)
{
    char start[64];
    snprintf(start, sizeof(start), "jevprof: %d: ", pid);
    ck_assert_msg(status == 1 && err && strncmp(err, start, strlen(start)) == 0 && strstr(err, what) &&
                      tk_count(err, "\n") == 1,
                  "status %d, wanted 1 and one line \"%s...%s\":\n%s", status, start, what, err);
}

/* Starts AttachWorkload without an agent, jevprof registered in a fresh directory (files->dir),
 * JAVA_TOOL_OPTIONS tool_options (or none). */
static void start_unattached(jvmrun_process *p, const char *jdk, jevprof_files *files, const char *tool_options)
{
    jevprof_directory(files, "jevprof-attach.XXXXXX");
    const char *env[] = {files->registry_env, files->output_env, tool_options, NULL};
    start_waiting(p, jdk, NULL, env);
}

/* Ends what start_unattached started: its exit status 0, its output out (unless NULL), its directory gone. */
static void finish_unattached(jvmrun_process *p, jevprof_files *files, const char *out)
{
    jvmrun_result r;
    jvmrun_send(p, "quit");
    jvmrun_finish(p, &r);
    ck_assert_msg(r.exit_code == 0, "exit %d, stderr:\n%s", r.exit_code, r.err);
    if (out)
        ck_assert_str_eq(r.out, out);
    jvmrun_free(&r);
    remove_directory(files->dir);
}

/* bin/jevprof attaches with its address space limited to 256 MiB, in which no JVM starts (HotSpot
 * reserves its code cache, 240 MiB, and its class space, 1 GiB, before anything else): jcmd
 * cannot have been run, nor any other JVM.  This, not a time limit, tells the native attach from
 * a JVM's: a JVM's start takes a few hundred milliseconds on an idle machine, and a loaded one
 * stretches the native attach to as long, so no time bound tells them apart without failing by
 * chance.  The time is printed (docs/benchmarks.md has the measurements).  Under the sanitizers
 * the limit is not set: their runtime, preloaded into every program, reserves terabytes. */
START_TEST(the_script_attaches_without_starting_a_jvm)
{
    const char *jdk = jdks[_i];
    char *err = NULL;
    jevprof_files files;
    jvmrun_process p;
    start_unattached(&p, jdk, &files, NULL);
    const char *limit = jvmrun_sanitized() ? "" : "ulimit -v 262144 &&";
    double t0 = now();
    ck_assert_int_eq(jvmrun_shell(files.dir, NULL, &err, "%s '%s/bin/jevprof' --pid %d -e cpu start", limit,
                                  jvmrun_source_dir(), p.pid),
                     0);
    printf("%s: bin/jevprof started recording in %.0f ms\n", jdk, (now() - t0) * 1000);
    assert_said(err, "jevmon: jevprof: recording cpu for ");
    work(&p, "work 100", "done 100 ");
    ck_assert_int_eq(script(files.dir, &err, "--pid %d status", p.pid), 0); /* the socket, open now */
    assert_said(err, "jevmon: jevprof: recording cpu for ");
    ck_assert_int_eq(script(files.dir, &err, "--pid %d stop", p.pid), 0);
    assert_said(err, "jevmon: jevprof: stopped after ");
    free(err);
    finish_unattached(&p, &files, "ready\ndone 100 10000\n"); /* no thread dump: SIGQUIT started the attach listener */
}
END_TEST

/* A process that is not a JVM, and a JVM that takes no attach, are refused before any signal:
 * both run on, the JVM's output without a thread dump. */
START_TEST(what_cannot_be_attached_to_is_refused_without_a_signal)
{
    const char *jdk = jdks[_i];
    char *err = NULL;
    jevprof_files files;
    jvmrun_process p;
    pid_t sleeper = fork();
    if (sleeper == 0) {
        execlp("sleep", "sleep", "60", (char *)NULL);
        _exit(127);
    }
    ck_assert_int_gt(sleeper, 0);
    usleep(100000); /* exec'd */
    start_unattached(&p, jdk, &files, "JAVA_TOOL_OPTIONS=-XX:+DisableAttachMechanism");
    int status = script(files.dir, &err, "-e cpu -d 1 -f '%s/p.collapsed' %d", files.dir, (int)sleeper);
    assert_refused(status, err, (int)sleeper, "not a Java virtual machine");
    status = script(files.dir, &err, "--pid %d status", (int)sleeper);
    assert_refused(status, err, (int)sleeper, "not a Java virtual machine");
    ck_assert_int_eq(waitpid(sleeper, NULL, WNOHANG), 0); /* no SIGQUIT: it would have ended it */
    status = script(files.dir, &err, "-e cpu -d 1 -f '%s/p.collapsed' %d", files.dir, p.pid);
    assert_refused(status, err, p.pid, "the JVM runs with -XX:+DisableAttachMechanism");
    free(err);
    kill(sleeper, SIGKILL);
    waitpid(sleeper, NULL, 0);
    finish_unattached(&p, &files, "ready\n");
}
END_TEST

/* A socket of another user at the JVM's socket's name (planted in its /tmp before its listener
 * starts) is not talked to; once it is gone the attach works.  Root only (the socket is given
 * to user nobody). */
START_TEST(a_socket_of_another_user_is_not_used)
{
    if (geteuid() != 0) {
        printf("skipped: not root\n");
        return;
    }
    const char *jdk = jdks[_i];
    char *err = NULL;
    jevprof_files files;
    jvmrun_process p;
    start_unattached(&p, jdk, &files, NULL);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    snprintf(address.sun_path, sizeof(address.sun_path), "/tmp/.java_pid%d", p.pid);
    int planted = socket(AF_UNIX, SOCK_STREAM, 0);
    ck_assert_int_eq(bind(planted, (struct sockaddr *)&address, sizeof(address)), 0);
    ck_assert_int_eq(listen(planted, 1), 0);
    ck_assert_int_eq(chmod(address.sun_path, 0600), 0);
    ck_assert_int_eq(chown(address.sun_path, 65534, 65534), 0);
    int status = script(files.dir, &err, "--pid %d -e cpu start", p.pid);
    assert_refused(status, err, p.pid, "belongs to uid 65534");
    unlink(address.sun_path);
    close(planted);
    ck_assert_int_eq(script(files.dir, &err, "--pid %d -e cpu start", p.pid), 0);
    assert_said(err, "jevmon: jevprof: recording cpu for ");
    free(err);
    finish_unattached(&p, &files, NULL);
}
END_TEST

/* Runs bin/jevprof with the arguments args (PID where %d is) while the JVM of p is stopped, with
 * the environment assignments env before it; its exit status, its standard error in *err, the
 * seconds it took in *waited.  The JVM goes on afterwards. */
static int while_stopped(jvmrun_process *p, const char *dir, char **err, const char *env, const char *args, double *waited)
{
    char arguments[256];
    snprintf(arguments, sizeof(arguments), args, p->pid);
    ck_assert_int_eq(kill(p->pid, SIGSTOP), 0);
    double t0 = now();
    free(*err);
    *err = NULL;
    int status = jvmrun_shell(dir, NULL, err, "%s '%s/bin/jevprof' %s", env, jvmrun_source_dir(), arguments);
    *waited = now() - t0;
    kill(p->pid, SIGCONT);
    return status;
}

/* A JVM that does not answer (stopped) is given up after the bounded wait for its socket, in one
 * line; continued, it runs on. */
START_TEST(a_jvm_that_does_not_answer_is_given_up)
{
    char *err = NULL;
    jevprof_files files;
    jvmrun_process p;
    double waited;
    start_unattached(&p, jdks[_i], &files, NULL);
    int status = while_stopped(&p, files.dir, &err, "", "--pid %d -e cpu start", &waited);
    assert_refused(status, err, p.pid, "within 10 s of SIGQUIT");
    ck_assert_msg(waited >= 10 && waited < 60, "gave up after %.1f s", waited);
    free(err);
    work(&p, "work 10", "done 10 ");
    finish_unattached(&p, &files, NULL);
}
END_TEST

/* A JVM stopped after its attach socket took the connection never answers the load: the client
 * gives up after JEVPROF_ATTACH_WAIT seconds (3 here, 120 unless set) in one line, where it
 * waited without end; continued, the JVM runs the command it was sent and goes on.  A wait that
 * is no number is said in one line, and the default taken. */
START_TEST(a_jvm_stopped_before_its_answer_is_given_up)
{
    char *err = NULL;
    jevprof_files files;
    jvmrun_process p;
    double waited;
    start_unattached(&p, jdks[_i], &files, NULL);
    ck_assert_int_eq(script(files.dir, &err, "--pid %d -e cpu start", p.pid), 0); /* its socket is open */
    int status = while_stopped(&p, files.dir, &err, "JEVPROF_ATTACH_WAIT=3", "status %d", &waited);
    assert_refused(status, err, p.pid, "no answer to the load within 3 s");
    ck_assert_msg(waited >= 3 && waited < 60, "gave up after %.1f s", waited);
    work(&p, "work 10", "done 10 ");
    free(err);
    err = NULL;
    ck_assert_int_eq(jvmrun_shell(files.dir, NULL, &err, "JEVPROF_ATTACH_WAIT=soon '%s/bin/jevprof' status %d",
                                  jvmrun_source_dir(), p.pid),
                     0); /* a wait that is no number: said, and the default taken */
    assert_said(err, "jevprof: JEVPROF_ATTACH_WAIT=soon is not a number of seconds from 1 to 86400: waiting 120 s");
    assert_said(err, "recording cpu");
    free(err);
    finish_unattached(&p, &files, NULL);
}
END_TEST

/* Agent options over 1024 bytes (eight -f files with long names): HotSpot's attach protocol 1
 * takes no longer argument; jevprof-attach sends them in protocol 2, which JDK 24 and later take
 * (every file written), and on an older JDK says so in one line. */
START_TEST(long_options_go_in_protocol_2)
{
    const char *jdk = jdks[_i];
    char *err = NULL, files_options[4096] = "", name[1400];
    jevprof_files files;
    jvmrun_process p;
    start_unattached(&p, jdk, &files, NULL);
    for (int i = 0; i < 8; i++) {
        size_t used = strlen(files_options);
        snprintf(files_options + used, sizeof(files_options) - used, " -f '%s/profile-%d-%0100d.collapsed'", files.dir,
                 i, 0);
    }
    ck_assert_int_gt(strlen(files_options), 1024);
    int status = script(files.dir, &err, "-e cpu -d 1 %s %d", files_options, p.pid);
    if (jvmrun_jdk_release(jdk) >= 24) {
        ck_assert_msg(status == 0, "status %d:\n%s", status, err);
        for (int i = 0; i < 8; i++) {
            snprintf(name, sizeof(name), "%s/profile-%d-%0100d.collapsed", files.dir, i, 0);
            ck_assert_msg(access(name, F_OK) == 0, "%s was not written:\n%s", name, err);
        }
    } else {
        assert_refused(status, err, p.pid, "this JVM takes at most 1024");
    }
    free(err);
    finish_unattached(&p, &files, NULL);
}
END_TEST

int main(void)
{
    signal(SIGPIPE, SIG_IGN); /* a program that ended early must fail a check, not kill the suite */
    if (!(jdk_count = jvmrun_suite_jdks(jdks)))
        return EXIT_SUCCESS;
    Suite *s = suite_create("attach");
    TCase *tc = tcase_create("attach");
    tcase_set_timeout(tc, 180);
    tcase_add_loop_test(tc, attached_monitor_sees_live_threads_and_exact_calls, 0, jdk_count);
    tcase_add_loop_test(tc, loads_that_start_nothing_leave_nothing_behind, 0, jdk_count);
    tcase_add_loop_test(tc, attached_jvmti_path_has_no_method_events, 0, 2 * jdk_count);
    tcase_add_loop_test(tc, loads_into_a_bridge_started_with_the_jvm_are_commands, 0, 2 * jdk_count);
    tcase_add_loop_test(tc, jevprof_takes_status_dump_and_stop, 0, jdk_count);
    tcase_add_loop_test(tc, the_script_attaches_jevprof_and_drives_it, 0, jdk_count);
    tcase_add_loop_test(tc, the_script_attaches_without_starting_a_jvm, 0, jdk_count);
    tcase_add_loop_test(tc, what_cannot_be_attached_to_is_refused_without_a_signal, 0, jdk_count);
    tcase_add_loop_test(tc, a_socket_of_another_user_is_not_used, 0, jdk_count);
    tcase_add_loop_test(tc, a_jvm_that_does_not_answer_is_given_up, 0, jdk_count);
    tcase_add_loop_test(tc, a_jvm_stopped_before_its_answer_is_given_up, 0, jdk_count);
    tcase_add_loop_test(tc, long_options_go_in_protocol_2, 0, jdk_count);
    tcase_add_loop_test(tc, continuous_profiles_keep_memory_flat, 0, jdk_count);
    tcase_add_loop_test(tc, continuous_calls_hold_each_call_once, 0, jdk_count);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
