/*
 * test_attach_client.c - bin/jevprof --pid (every JDK under /usr/lib/jvm): jevprof attached to a
 * running JVM and driven from the command line, through the JVM's attach socket (jevprof-attach).
 *
 *   - bin/jevprof --pid: start attaches the bridge with jevprof to a JVM that has neither,
 *     dump and stop drive it, settings are refused, a JVM without the bridge is told apart;
 *     every answer (status, dump, stop, a refused mode or setting, a file not written and why)
 *     is printed by bin/jevprof, a refusal with a non-zero status; the program's output holds
 *     none of them.  A cpu start answers once every thread is timed.
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
#include <unistd.h>

#include "../support/testkit.h"
#include "attach_run.h"

static char jdks[JVMRUN_MAX_JDKS][512];

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
    char going_to[1300]; /* the start's answer names the -f file, the only one written */
    snprintf(going_to, sizeof(going_to), "; files go to %s/d.txt (dump writes them now)", dir);
    assert_said(err, going_to);
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

/* The start's answer, "recording", comes once the profile records: in cpu mode, every thread of the
 * process has its timer by then, and the answer says how many (1,000 sleeping threads and the
 * JVM's own).  The sampling thread arms them once it runs, after it has had the JVM replay its
 * compiled methods (all of them, -Xcomp: a long replay); the answer waits for it.  Without that
 * wait, 2 answers in 6 came first on a loaded machine. */
START_TEST(recording_is_answered_once_every_thread_is_timed)
{
    const char *jdk = jdks[_i];
    char *err = NULL;
    jevprof_files files;
    jvmrun_process p;
    start_unattached(&p, jdk, &files, "JAVA_TOOL_OPTIONS=-Xcomp");
    work(&p, "sleepers 1000", "started 1000");
    ck_assert_int_eq(script(files.dir, &err, "--pid %d -e cpu start", p.pid), 0);
    int timers = process_timers(p.pid);
    assert_said(err, "jevmon: jevprof: recording cpu for ");
    const char *timed = strstr(err, " threads timed");
    while (timed && timed > err && timed[-1] >= '0' && timed[-1] <= '9')
        timed--;
    ck_assert_msg(timed && atoi(timed) > 1000, "the answer does not say 1,000 threads or more are timed:\n%s", err);
    ck_assert_msg(timers >= atoi(timed), "%d timers when bin/jevprof said %d threads were timed", timers, atoi(timed));
    ck_assert_int_eq(script(files.dir, &err, "--pid %d stop", p.pid), 0);
    free(err);
    finish_unattached(&p, &files, NULL);
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

static void add_tests(TCase *tc, int jdk_count)
{
    tcase_add_loop_test(tc, the_script_attaches_jevprof_and_drives_it, 0, jdk_count);
    tcase_add_loop_test(tc, the_script_attaches_without_starting_a_jvm, 0, jdk_count);
    tcase_add_loop_test(tc, recording_is_answered_once_every_thread_is_timed, 0, jdk_count);
    tcase_add_loop_test(tc, what_cannot_be_attached_to_is_refused_without_a_signal, 0, jdk_count);
    tcase_add_loop_test(tc, a_socket_of_another_user_is_not_used, 0, jdk_count);
    tcase_add_loop_test(tc, a_jvm_that_does_not_answer_is_given_up, 0, jdk_count);
    tcase_add_loop_test(tc, a_jvm_stopped_before_its_answer_is_given_up, 0, jdk_count);
    tcase_add_loop_test(tc, long_options_go_in_protocol_2, 0, jdk_count);
}

int main(void)
{
    return attach_suite_main("attach_client", jdks, add_tests);
}
