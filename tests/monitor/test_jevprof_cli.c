/*
 * test_jevprof_cli.c - the jevprof command (bin/jevprof) as asprof's users run it, on every
 * JDK under /usr/lib/jvm, against BusyWorkload started with no agent and a registry in which
 * jevprof is not registered:
 *
 *   - `-d 5 -f out.html -f out.pb.gz PID`: both files, in about 5 s, and the JVM runs on; then,
 *     the first profile over, `-e sample -i 5ms -d 3 -f x.collapsed -f x.txt PID` starts a
 *     second with those settings (wall is another branch's mode: sample stands for it here);
 *   - `-e alloc -i 256k -d 5`: the allocation sites at one sample per 262144 bytes;
 *   - jevprof registered with a Monitors key too: `start` loads it once (one status answer);
 *   - `list` names the JVM and that jevprof runs in it;
 *   - a wrapper script in a directory that also holds `java` (as /usr/bin does), and `bash
 *     script.sh`, get the agent through JAVA_TOOL_OPTIONS, not -J;
 *   - bad modes and values stop it before the program starts, a command not found with 127; each
 *     mode name runs;
 *   - attached in cpu or alloc mode, it redefines no class (which would deoptimize all code);
 *   - a library path holding libjevmon.so is not the bridge; an unbalanced quote in
 *     JAVA_TOOL_OPTIONS is refused; paths with spaces work;
 *   - javac in calls mode with `-f out.collapsed`: its profile folded to keep the file under the
 *     cap, and the line saying so names no file this run did not write.
 *
 * Other users' JVMs and root's are test_jevprof_users.c's.
 */
#include <check.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../support/testkit.h"
#include "scratch.h"
#include "support/jvmrun.h"

#define JEVPROF "{75CDC682-D602-4669-A56F-09797AC9C430}"

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Starts BusyWorkload with no agent (env: more of its environment) and waits until it is ready. */
static void start_busy(jvmrun_process *p, const char *jdk, const char *const *env)
{
    const char *args[] = {"150", NULL};
    jvmrun_start(p, jdk, "BusyWorkload", NULL, env, args);
    ck_assert_msg(jvmrun_wait_output(p, "ready", 1, 60000), "the program did not start");
}

/* The program answers: it runs on. */
static void assert_alive(jvmrun_process *p, const char *n)
{
    char line[32], answer[32];
    snprintf(line, sizeof(line), "ping %s", n);
    snprintf(answer, sizeof(answer), "alive %s", n);
    jvmrun_send(p, line);
    ck_assert_msg(jvmrun_wait_output(p, answer, 1, 30000), "the program does not answer after the profile");
}

/* What the last bin/jevprof run by jevprof() printed (its answers: standard error). */
static char *said;

/* bin/jevprof with the arguments (printf-style), in a directory of this process's; its exit
 * status; the seconds it took in *took; what it printed in said. */
static int jevprof(double *took, const char *format, ...) __attribute__((format(printf, 2, 3)));
static int jevprof(double *took, const char *format, ...)
{
    char scratch[1200], arguments[4096];
    va_list args;
    va_start(args, format);
    vsnprintf(arguments, sizeof(arguments), format, args);
    va_end(args);
    make_directory(scratch, sizeof(scratch), "jevprof-cli-run.XXXXXX");
    free(said);
    said = NULL;
    double t0 = now();
    int status = jvmrun_shell(scratch, NULL, &said, "'%s/bin/jevprof' %s", jvmrun_source_dir(), arguments);
    if (took)
        *took = now() - t0;
    remove_directory(scratch);
    return status;
}

/* Does what bin/jevprof printed last hold text count times? */
static void assert_said(const char *text, int count)
{
    ck_assert_msg(tk_count(said, text) == count, "\"%s\" not %d times in what bin/jevprof printed:\n%s", text,
                  count, said);
}

/* Each of the files (names, in dir) is there and holds text. */
static void assert_files_hold(const char *dir, const char *const *names, size_t count, const char *text)
{
    for (size_t i = 0; i < count; i++) {
        char *file = read_file(dir, names[i]);
        ck_assert_msg(file && strstr(file, text), "%s:\n%s", names[i], file);
        free(file);
    }
}

static void finish_busy(jvmrun_process *p, jvmrun_result *r)
{
    jvmrun_send(p, "quit");
    jvmrun_finish(p, r);
    ck_assert_msg(r->exit_code == 0, "exit %d, stderr:\n%s", r->exit_code, r->err);
}

START_TEST(a_duration_and_files_then_another_profile_with_other_settings)
{
    char dir[1200];
    double took;
    jvmrun_process p;
    jvmrun_result r;
    make_directory(dir, sizeof(dir), "jevprof-cli.XXXXXX");
    start_busy(&p, jdks[_i], NULL);
    ck_assert_int_eq(jevprof(&took, "-d 5 -f '%s/out.html' -f '%s/out.pb.gz' %d", dir, dir, p.pid), 0);
    printf("%s: -d 5 took %.1f s\n", jdks[_i], took);
    ck_assert_msg(took >= 5 && took < 45, "-d 5 took %.1f s", took);
    assert_said("jevmon: jevprof: stopped after ", 1);
    char *html = read_file(dir, "out.html"), *pprof = read_file(dir, "out.pb.gz");
    ck_assert_msg(html && strstr(html, "BusyWorkload.busyHot"), "no busyHot in the flame graph");
    ck_assert_msg(pprof && (unsigned char)pprof[0] == 0x1f && (unsigned char)pprof[1] == 0x8b, "not gzip");
    free(html), free(pprof);
    char other[1300]; /* only the files asked for */
    snprintf(other, sizeof(other), "%s/jevprof-report.txt", dir);
    ck_assert_int_ne(access(other, F_OK), 0);
    assert_alive(&p, "1");

    ck_assert_int_eq(jevprof(&took, "-e wall -i 5ms -d 3 -f '%s/x.collapsed' -f '%s/x.txt' %d", dir, dir, p.pid),
                     0);
    char *collapsed = read_file(dir, "x.collapsed"), *report = read_file(dir, "x.txt");
    ck_assert_msg(collapsed && strstr(collapsed, "BusyWorkload.busyHot"), "no busyHot in the collapsed stacks");
    ck_assert_msg(report && strstr(report, "Mode: wall, a sample every 5 ms") &&
                      strstr(report, "Sampled by: a timer thread, every live thread (whatever it does"), "report:\n%s", report);
    free(collapsed), free(report);
    assert_said("jevmon: jevprof: started a new profile", 1);
    assert_said("jevmon: jevprof: stopped after ", 1);
    assert_said("is not ", 0); /* no bad setting */
    assert_alive(&p, "2");
    finish_busy(&p, &r);
    ck_assert_int_eq(tk_count(r.out, "jevmon:"), 0); /* the program's output is its own */
    jvmrun_free(&r);
    remove_directory(dir);
}
END_TEST

START_TEST(alloc_mode_with_an_interval_in_bytes)
{
    char dir[1200];
    jvmrun_process p;
    jvmrun_result r;
    make_directory(dir, sizeof(dir), "jevprof-cli.XXXXXX");
    start_busy(&p, jdks[_i], NULL);
    ck_assert_int_eq(jevprof(NULL, "-e alloc -i 256k -d 5 -f '%s/a.collapsed' -f '%s/a.txt' %d", dir, dir, p.pid),
                     0);
    char *collapsed = read_file(dir, "a.collapsed"), *report = read_file(dir, "a.txt");
    ck_assert_msg(collapsed && strstr(collapsed, "BusyWorkload$Cell"), "collapsed:\n%s", collapsed);
    ck_assert_msg(report && strstr(report, "about one per 262144 bytes each thread allocates"), "report:\n%s", report);
    free(collapsed), free(report);
    assert_alive(&p, "1");
    finish_busy(&p, &r);
    jvmrun_free(&r);
    remove_directory(dir);
}
END_TEST

START_TEST(registered_and_named_it_loads_once)
{
    char dir[1200], reg[1300], registry_env[1400];
    jvmrun_process p;
    jvmrun_result r;
    make_directory(dir, sizeof(dir), "jevprof-cli.XXXXXX");
    snprintf(reg, sizeof(reg), "%s/system.reg", dir); /* as jevmon-regsvr registers it: class and Monitors key */
    FILE *f = fopen(reg, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "Windows Registry Editor Version 5.00\n\n[HKEY_CLASSES_ROOT\\CLSID\\" JEVPROF
               "\\InprocServer32]\n@=\"%s\"\n\"ThreadingModel\"=\"Both\"\n\n"
               "[HKEY_LOCAL_MACHINE\\Software\\Microsoft\\Java VM\\Monitors\\jevprof]\n\"CLSID\"=\"" JEVPROF "\"\n",
            jvmrun_build_path("libjevprof.so"));
    fclose(f);
    snprintf(registry_env, sizeof(registry_env), "JEVMON_REGISTRY_SYSTEM=%s", reg);
    const char *env[] = {registry_env, NULL};
    start_busy(&p, jdks[_i], env);
    ck_assert_int_eq(jevprof(NULL, "--out '%s' start %d", dir, p.pid), 0);
    ck_assert_int_eq(jevprof(NULL, "status %d", p.pid), 0);
    assert_said("jevmon: jevprof: recording ", 1); /* one jevprof */
    ck_assert_int_eq(jevprof(NULL, "stop %d", p.pid), 0);
    assert_said("jevmon: jevprof: stopped after ", 1);
    assert_said("jevmon: jevprof: wrote ", 1);
    finish_busy(&p, &r);
    ck_assert_int_eq(tk_count(r.out, "jevmon:"), 0);
    jvmrun_free(&r);
    remove_directory(dir);
}
END_TEST

START_TEST(list_names_the_jvms_and_jevprof)
{
    char dir[1200], line[1024];
    jvmrun_process p;
    jvmrun_result r;
    make_directory(dir, sizeof(dir), "jevprof-cli.XXXXXX");
    start_busy(&p, jdks[_i], NULL);
    int before = 0, after = 0;
    char command[2048];
    snprintf(command, sizeof(command), "'%s/bin/jevprof' list", jvmrun_source_dir());
    for (int round = 0; round < 2; round++) {
        if (round)
            ck_assert_int_eq(jevprof(NULL, "--out '%s' start %d", dir, p.pid), 0);
        FILE *list = popen(command, "r");
        ck_assert_ptr_nonnull(list);
        char expected[64];
        snprintf(expected, sizeof(expected), "%d\t%s\tBusyWorkload", p.pid, round ? "jevprof" : "-");
        while (fgets(line, sizeof(line), list))
            *(round ? &after : &before) += strncmp(line, expected, strlen(expected)) == 0;
        ck_assert_int_eq(pclose(list), 0);
    }
    ck_assert_int_eq(before, 1);
    ck_assert_int_eq(after, 1);
    finish_busy(&p, &r);
    jvmrun_free(&r);
    remove_directory(dir);
}
END_TEST

/* A wrapper script beside a `java` (as /usr/bin holds both on Debian), and `bash script.sh`: each
 * runs BusyWorkload for 2 s with the agent from JAVA_TOOL_OPTIONS, and jevprof writes its report. */
START_TEST(scripts_get_the_agent_through_java_tool_options)
{
    char dir[1200], path[1400];
    make_directory(dir, sizeof(dir), "jevprof-cli.XXXXXX");
    const char *jdk = jdks[_i];
    snprintf(path, sizeof(path), "%s/bin", dir);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof(path), "%s/bin/java", dir);
    ck_assert_int_eq(symlink(jdk, path), 0);
    snprintf(path, sizeof(path), "%s/bin/clojure-like", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "#!/bin/sh\n# takes its own options, as clojure's script does\n"
               "[ \"$1\" = -e ] || { echo \"clojure-like: unknown option $1\" >&2; exit 1; }\n"
               "sleep 3 | exec \"$(dirname \"$0\")/java\" -cp '%s' BusyWorkload 2\n",
            jvmrun_build_path("java"));
    fclose(f);
    ck_assert_int_eq(chmod(path, 0755), 0);
    snprintf(path, sizeof(path), "%s/run.sh", dir);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "sleep 3 | '%s' -cp '%s' BusyWorkload 2\n", jdk, jvmrun_build_path("java"));
    fclose(f);
    ck_assert_int_eq(jevprof(NULL, "-f '%s/wrapper.txt' -- '%s/bin/clojure-like' -e '(println 1)'", dir, dir), 0);
    ck_assert_int_eq(jevprof(NULL, "-f '%s/bash.txt' bash '%s/run.sh'", dir, dir), 0);
    const char *const reports[] = {"wrapper.txt", "bash.txt"};
    assert_files_hold(dir, reports, 2, "BusyWorkload.busyHot");
    remove_directory(dir);
}
END_TEST

/* javac's calls-mode profile is folded beyond the setting to keep the collapsed file under its
 * cap (12 MB); the line that says so named <prefix>.collapsed and <prefix>-flame.html, files a
 * run given -f writes neither of. */
START_TEST(a_profile_folded_to_fit_names_no_file_it_did_not_write)
{
    char dir[1200], javac[600], path[1400];
    make_directory(dir, sizeof(dir), "jevprof-cli.XXXXXX");
    snprintf(javac, sizeof(javac), "%.*sjavac", (int)(strrchr(jdks[_i], '/') + 1 - jdks[_i]), jdks[_i]);
    snprintf(path, sizeof(path), "%s/H.java", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("class H { public static void main(String[] a) { System.out.println(a.length); } }\n", f);
    fclose(f);
    ck_assert_int_eq(jevprof(NULL, "-e calls -f '%s/out.collapsed' '%s' -d '%s' '%s/H.java' 2>'%s/err'", dir, javac,
                             dir, dir, dir),
                     0);
    char *err = read_file(dir, "err");
    ck_assert_ptr_nonnull(err);
    const char *folded = strstr(err, "jevprof: paths under ");
    ck_assert_msg(folded, "no folding beyond the setting said:\n%.2000s", err);
    ck_assert_msg(!strstr(err, "jevprof.collapsed") && !strstr(err, "jevprof-flame.html"), "%.300s", folded);
    struct stat st;
    snprintf(path, sizeof(path), "%s/out.collapsed", dir);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_le(st.st_size, 12 << 20);
    snprintf(path, sizeof(path), "%s/H.class", dir);
    ck_assert_int_eq(access(path, F_OK), 0);
    free(err);
    remove_directory(dir);
}
END_TEST

/* Attached in cpu or alloc mode, jevprof redefines no class: a JVM started without an agent that
 * can retransform recorded no dependencies of its compiled code, so that its first redefinition
 * deoptimizes every compiled method (a server ran 6 to 8 times slower until recompiled).  The
 * JVM's own log of redefinitions (-Xlog:redefine+class+load) says whether one happened. */
START_TEST(attaching_redefines_no_class)
{
    static const char *const modes[] = {"cpu", "alloc"};
    char dir[1200], options[1400];
    jvmrun_process p;
    jvmrun_result r;
    make_directory(dir, sizeof(dir), "jevprof-cli.XXXXXX");
    snprintf(options, sizeof(options), "JAVA_TOOL_OPTIONS=-Xlog:redefine+class+load=info:file=%s/redefine.log", dir);
    const char *env[] = {options, NULL};
    start_busy(&p, jdks[_i / 2], env);
    ck_assert_int_eq(jevprof(NULL, "-e %s -d 1 -f '%s/p.collapsed' %d", modes[_i % 2], dir, p.pid), 0);
    char *collapsed = read_file(dir, "p.collapsed");
    ck_assert_msg(collapsed && strstr(collapsed, "BusyWorkload"), "collapsed:\n%s\n%s", collapsed, said);
    free(collapsed);
    finish_busy(&p, &r);
    jvmrun_free(&r);
    char *log = read_file(dir, "redefine.log");
    ck_assert_ptr_nonnull(log);
    ck_assert_msg(!strstr(log, "redefined name="), "classes redefined at the attach:\n%s", log);
    free(log);
    remove_directory(dir);
}
END_TEST

/* An unknown mode or a bad value stops the command with one line and status 2, before the program
 * starts; every mode name the help and the check list runs jevprof in that mode, with no line
 * about a bad setting. */
START_TEST(bad_modes_and_values_stop_before_the_program)
{
    static const char *const bad[] = {"-e bogus", "-e cpu -e bogus", "--mode cpu,", "--mode=sample,nope", "--interval 0",
                                      "--top 5000", "--time both", "--min-share 101", "--prefix a/b",
                                      "JEVPROF_MODE=cpus", "JEVPROF_INTERVAL_MS=1s"};
    char command[4096];
    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
        int variable = strchr(bad[i], '=') && bad[i][0] != '-';
        snprintf(command, sizeof(command), "%s '%s/bin/jevprof' %s '%s' -cp '%s' BusyWorkload 1", variable ? bad[i] : "",
                 jvmrun_source_dir(), variable ? "" : bad[i], jdks[_i], jvmrun_build_path("java"));
        char dir[1200], *out = NULL, *err = NULL;
        make_directory(dir, sizeof(dir), "jevprof-cli.XXXXXX");
        ck_assert_int_eq(jvmrun_shell(dir, &out, &err, "%s", command), 2);
        ck_assert_msg(tk_count(err, "\n") == 1 && strncmp(err, "jevprof: ", 9) == 0, "%s:\n%s", bad[i], err);
        ck_assert_msg(!strstr(out, "ready"), "%s: the program started", bad[i]);
        free(out), free(err);
        remove_directory(dir);
    }
    ck_assert_int_eq(jevprof(NULL, "-e bogus true"), 2);
    assert_said("the modes: cpu, wall, calls, both, alloc, lock, or a list: cpu,alloc", 1);
    /* A command found neither on PATH nor at the path given (nor a directory there): 127, as a shell says. */
    static const char *const missing[] = {"jevprof-no-such-command", "./jevprof-no-such-command", "/"};
    for (size_t i = 0; i < sizeof(missing) / sizeof(*missing); i++) {
        ck_assert_int_eq(jevprof(NULL, "%s", missing[i]), 127);
        assert_said("command not found", 1);
        ck_assert_int_eq(tk_count(said, "\n"), 1);
    }
    static const char *const modes[] = {"cpu", "wall", "calls", "both", "alloc", "sample", "cpu,alloc"};
    for (size_t i = 0; i < sizeof(modes) / sizeof(*modes); i++) {
        char dir[1200];
        make_directory(dir, sizeof(dir), "jevprof-cli.XXXXXX");
        ck_assert_int_eq(jevprof(NULL, "-e %s -f '%s/r.txt' '%s' -cp '%s' BusyWorkload 1 </dev/null", modes[i], dir,
                                 jdks[_i], jvmrun_build_path("java")),
                         0);
        assert_said("is not ", 0);
        char *report = read_file(dir, "r.txt");
        ck_assert_msg(report && strstr(report, "Program: BusyWorkload"), "-e %s: report:\n%s", modes[i], report);
        free(report);
        remove_directory(dir);
    }
}
END_TEST

/* A library whose path holds the bridge's (a copy at libjevmon.so.copy) is not the bridge; an
 * unbalanced quote in JAVA_TOOL_OPTIONS is refused, not swallowed with the agent; a working
 * directory and -f files whose paths hold spaces work, for a command and for a PID. */
START_TEST(paths_and_quotes_taken_as_they_are)
{
    char dir[1200], copy[1300], agent[1400], spaced[1300], *err = NULL;
    jvmrun_process p;
    jvmrun_result r;
    make_directory(dir, sizeof(dir), "jevprof-cli.XXXXXX");
    snprintf(copy, sizeof(copy), "%s.copy-%d", jvmrun_build_path("libjevmon.so"), (int)getpid());
    ck_assert_int_eq(jvmrun_shell(dir, NULL, NULL, "cp '%s' '%s'", jvmrun_build_path("libjevmon.so"), copy), 0);
    snprintf(agent, sizeof(agent), "%s=disable", copy); /* mapped, and nothing started */
    char tool_options[1500];
    snprintf(tool_options, sizeof(tool_options), "JAVA_TOOL_OPTIONS=-agentpath:%s", agent);
    const char *env[] = {tool_options, NULL};
    start_busy(&p, jdks[_i], env);
    ck_assert_int_eq(jevprof(NULL, "dump %d", p.pid), 1);
    assert_said("runs no jevmon bridge from ", 1);
    ck_assert_int_eq(jevprof(NULL, "status %d", p.pid), 1);
    assert_said("runs no jevmon bridge from ", 1);
    finish_busy(&p, &r);
    jvmrun_free(&r);
    unlink(copy);

    ck_assert_int_eq(jvmrun_shell(dir, NULL, &err, "JAVA_TOOL_OPTIONS='-Dx=\"a b' '%s/bin/jevprof' bash -c 'echo started'",
                                  jvmrun_source_dir()),
                     2);
    ck_assert_msg(strstr(err, "JAVA_TOOL_OPTIONS has an unbalanced \"") && tk_count(err, "\n") == 1, "%s", err);
    free(err);

    snprintf(spaced, sizeof(spaced), "%s/a b", dir);
    ck_assert_int_eq(mkdir(spaced, 0755), 0);
    ck_assert_int_eq(jvmrun_shell(spaced, NULL, NULL, "'%s/bin/jevprof' -f 'r 1.txt' '%s' -cp '%s' BusyWorkload 1 </dev/null",
                                  jvmrun_source_dir(), jdks[_i], jvmrun_build_path("java")),
                     0);
    ck_assert_int_eq(jvmrun_shell(spaced, NULL, NULL, "'%s/bin/jevprof' '%s' -cp '%s' BusyWorkload 1 </dev/null",
                                  jvmrun_source_dir(), jdks[_i], jvmrun_build_path("java")),
                     0);
    start_busy(&p, jdks[_i], NULL);
    ck_assert_int_eq(jvmrun_shell(spaced, NULL, NULL, "'%s/bin/jevprof' -d 1 -f 'r 2.txt' %d", jvmrun_source_dir(), p.pid),
                     0);
    finish_busy(&p, &r);
    jvmrun_free(&r);
    const char *const written[] = {"a b/r 1.txt", "a b/jevprof-out/jevprof-report.txt", "a b/r 2.txt"};
    assert_files_hold(dir, written, 3, "BusyWorkload");
    remove_directory(dir);
}
END_TEST

int main(void)
{
    signal(SIGPIPE, SIG_IGN); /* a program that ended early must fail a check, not kill the suite */
    if (!(jdk_count = jvmrun_suite_jdks(jdks)))
        return EXIT_SUCCESS;
    Suite *s = suite_create("jevprof_cli");
    TCase *tc = tcase_create("jevprof_cli");
    tcase_set_timeout(tc, 180);
    tcase_add_loop_test(tc, a_duration_and_files_then_another_profile_with_other_settings, 0, jdk_count);
    tcase_add_loop_test(tc, alloc_mode_with_an_interval_in_bytes, 0, jdk_count);
    tcase_add_loop_test(tc, registered_and_named_it_loads_once, 0, jdk_count);
    tcase_add_loop_test(tc, list_names_the_jvms_and_jevprof, 0, jdk_count);
    tcase_add_loop_test(tc, scripts_get_the_agent_through_java_tool_options, 0, jdk_count);
    tcase_add_loop_test(tc, a_profile_folded_to_fit_names_no_file_it_did_not_write, 0, jdk_count);
    tcase_add_loop_test(tc, bad_modes_and_values_stop_before_the_program, 0, jdk_count);
    tcase_add_loop_test(tc, attaching_redefines_no_class, 0, 2 * jdk_count);
    tcase_add_loop_test(tc, paths_and_quotes_taken_as_they_are, 0, jdk_count);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
