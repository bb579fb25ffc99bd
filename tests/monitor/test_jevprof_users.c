/*
 * test_jevprof_users.c - the jevprof command (bin/jevprof) across users, on every JDK under
 * /usr/lib/jvm, against BusyWorkload started with no agent:
 *
 *   - a process of another user is refused in one line, before any jcmd;
 *   - a user other than the tree's owner runs the tree's jevprof (nothing of the tree written);
 *   - root profiles a JVM of user nobody (also one with a /tmp of its own, and one that does not
 *     see the build), its -f files written as root;
 *   - a container's root (fewer privileges than the command's) is refused before anything runs
 *     in it.
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../support/testkit.h"
#include "scratch.h"
#include "support/jvmrun.h"

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

START_TEST(another_users_process_is_refused)
{
    char command[2048], *err = NULL;
    FILE *other = popen("exec setpriv --reuid=65534 --regid=65534 --clear-groups sleep 30", "w");
    ck_assert_ptr_nonnull(other);
    int pid = 0;
    for (int tries = 0; tries < 100 && !pid; tries++) { /* the sleep of uid 65534 that has just started */
        FILE *ps = popen("pgrep -n -u 65534 -x sleep", "r");
        if (ps && fscanf(ps, "%d", &pid) != 1)
            pid = 0;
        if (ps)
            pclose(ps);
        if (!pid)
            usleep(50000);
    }
    ck_assert_int_gt(pid, 0);
    snprintf(command, sizeof(command), "setpriv --reuid=1 --regid=1 --clear-groups '%s/bin/jevprof' -d 1 %d",
             jvmrun_source_dir(), pid); /* as user 1 (daemon): root may profile it */
    char dir[1200];
    make_directory(dir, sizeof(dir), "jevprof-cli.XXXXXX");
    ck_assert_int_eq(jvmrun_shell(dir, NULL, &err, "%s || test $? -eq 1", command), 0);
    ck_assert_msg(strstr(err, "belongs to user") && strstr(err, "jevprof attaches only to JVMs of its own user"),
                  "stderr:\n%s", err);
    ck_assert_int_eq(tk_count(err, "\n"), 1); /* one line, no jcmd error */
    free(err);
    kill(pid, SIGTERM);
    pclose(other);
    remove_directory(dir);
}
END_TEST

START_TEST(another_user_runs_the_trees_jevprof)
{
    char dir[1200], *err = NULL;
    make_directory(dir, sizeof(dir), "jevprof-cli.XXXXXX");
    ck_assert_int_eq(chown(dir, 65534, 65534), 0); /* the other user's files go there: theirs (one anyone could write is refused) */
    ck_assert_int_eq(jvmrun_shell(dir, NULL, &err,
                                  "sleep 2 | setpriv --reuid=65534 --regid=65534 --clear-groups env HOME='%s' "
                                  "'%s/bin/jevprof' -f '%s/r.txt' '%s' -cp '%s' BusyWorkload 1",
                                  dir, jvmrun_source_dir(), dir, jdks[_i], jvmrun_build_path("java")),
                     0);
    char *report = read_file(dir, "r.txt");
    ck_assert_msg(report && strstr(report, "Program: BusyWorkload"), "report:\n%s\nstderr:\n%s", report, err);
    free(report), free(err);
    remove_directory(dir);
}
END_TEST

/* Where start_as_root's JVM runs: beside the test, in a mount namespace with a /tmp of its own
 * (as systemd's PrivateTmp= gives a service), or in one that does not see the build either (as a
 * container does not: its classes copied into its own /tmp). */
enum namespace { SHARED, PRIVATE_TMP, NO_BUILD, NAMESPACES };

/* BusyWorkload started by root through setpriv with the options as (NOBODY: as user nobody, uid
 * 65534), its output in dir/out and dir/err, in the namespace asked for.  With PRIVATE_TMP the build stays where it was (a clone under /tmp,
 * too: it is moved back over the new /tmp, through /mnt of the namespace).  Its pid; *input is
 * its standard input. */
#define NOBODY "--reuid=65534 --regid=65534 --clear-groups"
static pid_t start_as_root(const char *jdk, const char *dir, enum namespace where, const char *as, int *input)
{
    char command[4096], out[1300], namespace[1600], classes[1300];
    int fds[2];
    const char *build = jvmrun_build_path("");
    snprintf(classes, sizeof(classes), "%s", where == NO_BUILD ? "/tmp/classes" : jvmrun_build_path("java"));
    if (where == PRIVATE_TMP)
        snprintf(namespace, sizeof(namespace),
                 "unshare --mount --propagation private sh -c 'mount --rbind \"$0\" /mnt && "
                 "mount -t tmpfs jevprof-test /tmp && mkdir -p \"$0\" && mount --move /mnt \"$0\" && exec \"$@\"' '%s'",
                 build);
    else if (where == NO_BUILD)
        snprintf(namespace, sizeof(namespace),
                 "unshare --mount --propagation private sh -c 'mount -t tmpfs jevprof-test /mnt && cp -r \"$0/java\" "
                 "/mnt/classes && mount -t tmpfs jevprof-test \"$0\" && mkdir -p /tmp && mount --move /mnt /tmp && "
                 "chmod 1777 /tmp && exec \"$@\"' '%s'",
                 build);
    else
        namespace[0] = '\0';
    snprintf(command, sizeof(command),
             "cd '%s' && exec %s setpriv %s env HOME=/nonexistent '%s' -cp '%s' BusyWorkload 150 >out 2>err", dir,
             namespace, as, jdk, classes);
    ck_assert_int_eq(pipe(fds), 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[0], 0);
        close(fds[0]), close(fds[1]);
        execl("/bin/sh", "sh", "-c", command, (char *)NULL);
        _exit(127);
    }
    close(fds[0]);
    *input = fds[1];
    snprintf(out, sizeof(out), "%s/out", dir);
    for (int tries = 0; tries < 600; tries++) { /* each command execs the next: pid is the JVM's */
        char *text = tk_read_file(out);
        int ready = text && strstr(text, "ready") != NULL;
        free(text);
        if (ready)
            return pid;
        usleep(100000);
    }
    ck_abort_msg("the program root started through setpriv %s did not start", as);
    return -1;
}

/* Root profiles a JVM of another user (in namespaces of its own, too, and in one that does not see
 * the build, from copies in its /tmp): the attach as that user, in them; the -f files written as
 * root; the answers here; the program's output its own.  Another unprivileged user is still
 * refused. */
START_TEST(root_profiles_another_users_jvm)
{
    const char *jdk = jdks[_i % jdk_count];
    enum namespace where = (enum namespace)(_i / jdk_count);
    int input;
    if (geteuid() != 0) {
        printf("skipped: not root\n");
        return;
    }
    char dir[1200], path[1300], *err = NULL, *text;
    struct stat st;
    make_directory(dir, sizeof(dir), "jevprof-cli.XXXXXX");
    ck_assert_int_eq(chmod(dir, 0755), 0);
    pid_t pid = start_as_root(jdk, dir, where, NOBODY, &input);
    ck_assert_int_eq(jvmrun_shell(dir, NULL, &err, "'%s/bin/jevprof' -d 2 -f '%s/r.html' -f '%s/r-%%p.txt' %d",
                                  jvmrun_source_dir(), dir, dir, (int)pid),
                     0);
    snprintf(path, sizeof(path), "jevprof: wrote %s/r-%d.txt", dir, (int)pid);
    ck_assert_msg(strstr(err, path) && strstr(err, "jevmon: jevprof: stopped after "), "stderr:\n%s", err);
    snprintf(path, sizeof(path), "%s/r-%d.txt", dir, (int)pid);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_uid, 0); /* the caller's */
    text = read_file(dir, strrchr(path, '/') + 1);
    ck_assert_msg(text && strstr(text, "BusyWorkload.busyHot(long)"), "report:\n%s", text);
    free(text);
    snprintf(path, sizeof(path), "%s/r.html", dir);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_uid, 0);
    free(err);
    err = NULL;
    if (where == NO_BUILD) { /* it runs copies in its /tmp, found again by the next command */
        ck_assert_int_eq(jvmrun_shell(dir, NULL, NULL, "grep -q ' /tmp/jevprof-lib\\.[^/]*/libjevmon.so$' /proc/%d/maps", (int)pid), 0);
        ck_assert_int_eq(jvmrun_shell(dir, NULL, NULL, "'%s/bin/jevprof' status %d", jvmrun_source_dir(), (int)pid), 0);
        ck_assert_int_eq(jvmrun_shell(dir, NULL, NULL, "test $(ls -d /proc/%d/root/tmp/jevprof-lib.* | wc -l) = 1", (int)pid), 0);
    }
    ck_assert_int_eq(jvmrun_shell(dir, NULL, &err, "setpriv --reuid=1 --regid=1 --clear-groups '%s/bin/jevprof' status %d",
                                  jvmrun_source_dir(), (int)pid),
                     1);
    ck_assert_msg(strstr(err, "belongs to user") && tk_count(err, "\n") == 1, "stderr:\n%s", err);
    free(err);
    close(input); /* the end of its input ends it */
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_int_eq(status, 0);
    text = read_file(dir, "out");
    ck_assert_msg(strncmp(text, "ready\n", 6) == 0 && !strstr(text, "jevmon"), "its output:\n%s", text);
    free(text);
    remove_directory(dir);
}
END_TEST

/* A container's root (here: root in a mount namespace of its own, without CAP_SYS_ADMIN) is
 * refused before anything runs in it: root's jevprof would run its /tmp's copies and its programs
 * with the host's privileges.  Nothing is made in its /tmp; a root with every privilege of the
 * command (a service with a private /tmp: root_profiles_another_users_jvm's namespaces, as root)
 * is not refused. */
START_TEST(a_containers_root_is_refused)
{
    const char *jdk = jdks[_i];
    if (geteuid() != 0) {
        printf("skipped: not root\n");
        return;
    }
    char contained[1200], service[1200], *err = NULL;
    int contained_input, service_input, status;
    make_directory(contained, sizeof(contained), "jevprof-cli.XXXXXX");
    make_directory(service, sizeof(service), "jevprof-cli.XXXXXX");
    pid_t pid = start_as_root(jdk, contained, NO_BUILD, "--bounding-set=-sys_admin", &contained_input);
    ck_assert_int_eq(jvmrun_shell(contained, NULL, &err, "'%s/bin/jevprof' -d 1 %d", jvmrun_source_dir(), (int)pid), 1);
    ck_assert_msg(strstr(err, "runs as root with fewer privileges than this command") && tk_count(err, "\n") == 1,
                  "stderr:\n%s", err);
    free(err);
    err = NULL;
    ck_assert_int_eq(jvmrun_shell(contained, NULL, NULL, "test -z \"$(ls -A /proc/%d/root/tmp | grep jevprof)\"", (int)pid),
                     0);
    pid_t privileged = start_as_root(jdk, service, PRIVATE_TMP, "--reuid=0", &service_input);
    ck_assert_int_eq(jvmrun_shell(service, NULL, &err, "'%s/bin/jevprof' -d 1 %d", jvmrun_source_dir(), (int)privileged),
                     0);
    free(err);
    close(contained_input); /* the end of its input ends each */
    close(service_input);
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_int_eq(status, 0);
    ck_assert_int_eq(waitpid(privileged, &status, 0), privileged);
    ck_assert_int_eq(status, 0);
    remove_directory(contained);
    remove_directory(service);
}
END_TEST

int main(void)
{
    signal(SIGPIPE, SIG_IGN); /* a program that ended early must fail a check, not kill the suite */
    if (!(jdk_count = jvmrun_suite_jdks(jdks)))
        return EXIT_SUCCESS;
    Suite *s = suite_create("jevprof_users");
    TCase *tc = tcase_create("jevprof_users");
    tcase_set_timeout(tc, 180);
    tcase_add_test(tc, another_users_process_is_refused);
    tcase_add_loop_test(tc, another_user_runs_the_trees_jevprof, 0, jdk_count);
    tcase_add_loop_test(tc, root_profiles_another_users_jvm, 0, NAMESPACES * jdk_count);
    tcase_add_loop_test(tc, a_containers_root_is_refused, 0, jdk_count);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
