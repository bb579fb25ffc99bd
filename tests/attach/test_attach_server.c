/*
 * test_attach_server.c - jevprof attached, as an operator attaches it, to a server that is
 * serving: the embedded Tomcat 10 of tests/attach/tomcat/ (Debian's libtomcat10-java),
 * started with no agent on a loopback port, under wrk, on every JDK under /usr/lib/jvm.
 *
 *   - `bin/jevprof -e cpu -i 1ms -d 8 PID` while wrk drives the server: the profile's samples x
 *     interval are within 5% of the processor time /proc gives the JVM's threads over the same
 *     window (from the command's "recording" line to its exit; the attach listener's, which runs
 *     the profiler's set-up and writing, left out), and the servlet is in it;
 *   - the attach redefines no class (a redefinition deoptimizes every compiled method of a JVM
 *     started without an agent: the cause of an 8x slower server while it was recorded), and once
 *     the profile is written no timer of the profiler is left in the process (the server runs at
 *     its own speed again).  Throughput itself is measured by `make bench BENCH_ONLY=attached`,
 *     not here: a test does not time.
 *
 * Skipped, with a line, where the Tomcat jars or wrk are missing (make deps installs both).
 */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../support/testkit.h"
#include "attach_run.h"

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;
static char classpath[4096];

static const char *const tomcat_jars[] = {"api", "catalina", "coyote", "juli", "util", "util-scan", "servlet-api",
                                          "jaspic-api", "annotations-api", "jni", "el-api"};

/* The Tomcat jars' classpath, the workload's classes last; 0 when a jar or wrk is missing. */
static int tomcat_present(void)
{
    size_t used = 0;
    for (size_t i = 0; i < sizeof(tomcat_jars) / sizeof(*tomcat_jars); i++) {
        char jar[128];
        snprintf(jar, sizeof(jar), "/usr/share/java/tomcat10-%s.jar", tomcat_jars[i]);
        if (access(jar, R_OK) != 0)
            return 0;
        used += (size_t)snprintf(classpath + used, sizeof(classpath) - used, "%s:", jar);
    }
    snprintf(classpath + used, sizeof(classpath) - used, "%s", jvmrun_build_path("attach-server-classes"));
    return system("command -v wrk >/dev/null") == 0;
}

/* Compiles TomcatWorkload (each test: they run in processes of their own; the first JDK's javac, release 17: every JDK here runs it); 0 when it fails. */
static int compile_workload(void)
{
    char javac[600], dir[1200];
    snprintf(javac, sizeof(javac), "%s", jdks[0]);
    strcpy(strrchr(javac, '/') + 1, "javac");
    snprintf(dir, sizeof(dir), "%s", jvmrun_build_path("attach-server.XXXXXX"));
    if (!mkdtemp(dir))
        return 0;
    int status = jvmrun_shell(dir, NULL, NULL, "'%s' --release 17 -nowarn -cp '%s' -d '%s' '%s/tests/attach/tomcat/TomcatWorkload.java'",
                              javac, classpath, jvmrun_build_path("attach-server-classes"), jvmrun_source_dir());
    jvmrun_remove_shell_dir(dir, "");
    return status == 0;
}

typedef struct server {
    pid_t pid;
    int input; /* its standard input: closing it stops the server */
    int port;
    char dir[1200];
} server;

/* Starts Tomcat with no agent (its class redefinitions logged to dir/redefine.log), waits for its port. */
static void start_server(server *s, const char *java)
{
    snprintf(s->dir, sizeof(s->dir), "%s", jvmrun_build_path("attach-server.XXXXXX"));
    ck_assert_ptr_nonnull(mkdtemp(s->dir));
    char log[1400], base[1300], out[1300];
    snprintf(log, sizeof(log), "-Xlog:redefine+class+load=info:file=%s/redefine.log", s->dir);
    snprintf(base, sizeof(base), "%s/base", s->dir);
    snprintf(out, sizeof(out), "%s/out", s->dir);
    int in[2];
    ck_assert_int_eq(pipe(in), 0);
    s->pid = fork();
    ck_assert_int_ge(s->pid, 0);
    if (s->pid == 0) {
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(in[0], 0), dup2(fd, 1), dup2(fd, 2);
        close(in[1]);
        execl(java, java, log, "-cp", classpath, "TomcatWorkload", base, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    s->input = in[1];
    s->port = 0;
    for (int i = 0; i < 600 && !s->port; i++) {
        char *text = tk_read_file(out);
        const char *ready = strstr(text, "ready ");
        if (ready)
            s->port = atoi(ready + 6);
        free(text);
        if (!s->port)
            usleep(100 * 1000);
    }
    ck_assert_msg(s->port > 0, "Tomcat did not serve within 60 s");
}

static void stop_server(server *s)
{
    close(s->input);
    int status = 0;
    for (int i = 0; i < 300 && waitpid(s->pid, &status, WNOHANG) == 0; i++)
        usleep(100 * 1000);
    if (kill(s->pid, 0) == 0) {
        kill(s->pid, SIGKILL);
        waitpid(s->pid, &status, 0);
    }
    char command[1400];
    snprintf(command, sizeof(command), "rm -rf '%s'", s->dir);
    ck_assert_int_eq(system(command), 0);
}

/* wrk on the server for seconds, in the background; its pid. */
static pid_t start_load(const server *s, int seconds)
{
    char url[64], duration[16];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/page", s->port);
    snprintf(duration, sizeof(duration), "%ds", seconds);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1), dup2(null, 2);
        execlp("wrk", "wrk", "-t2", "-c16", "-d", duration, url, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* /proc/PID/name whole, malloc'd ("" when it cannot be read). */
static char *read_proc(pid_t pid, const char *name)
{
    char path[340];
    snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
    return tk_read_file(path);
}

/* The user + system time of a /proc stat file's process or thread, in ms (utime and stime). */
static long long stat_cpu_ms(pid_t pid, const char *name)
{
    char *stat = read_proc(pid, name);
    const char *after_name = strrchr(stat, ')');
    unsigned long long user = 0, system_time = 0;
    ck_assert_ptr_nonnull(after_name);
    /* after ") ": state, then fields 4 to 13, then utime (14) and stime (15) */
    ck_assert_int_eq(sscanf(after_name + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &user, &system_time), 2);
    free(stat);
    return (long long)(user + system_time) * 1000 / sysconf(_SC_CLK_TCK);
}

/* The program's processor time so far, in ms: the process's, less its attach listener's (the
 * thread that runs each load of the agent: jevprof's set-up and the writing of the profile,
 * processor time of the profiler's own, which no timer of the profile covers). */
static long long program_cpu_ms(pid_t pid)
{
    long long ms = stat_cpu_ms(pid, "stat");
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
    DIR *tasks = opendir(path);
    ck_assert_ptr_nonnull(tasks);
    for (struct dirent *e; (e = readdir(tasks));) {
        if (e->d_name[0] == '.')
            continue;
        char name[300];
        snprintf(name, sizeof(name), "task/%s/comm", e->d_name);
        char *comm = read_proc(pid, name);
        if (strcmp(comm, "Attach Listener\n") == 0) {
            snprintf(name, sizeof(name), "task/%s/stat", e->d_name);
            ms -= stat_cpu_ms(pid, name);
        }
        free(comm);
    }
    closedir(tasks);
    return ms;
}

/* The samples of a collapsed file's lines holding frame (NULL: every line): the sum of their last fields. */
static long long collapsed_samples(const char *text, const char *frame)
{
    long long n = 0;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        if (!end)
            end = line + strlen(line);
        const char *space = end;
        while (space > line && space[-1] != ' ')
            space--;
        const char *found = frame ? strstr(line, frame) : line;
        if (found && found < space)
            n += atoll(space);
        line = *end ? end + 1 : end;
    }
    return n;
}

/*
 * One attach of cpu mode at 1 ms for 8 s; wrk keeps the server busy for 5 s of it, from the
 * command's recording line, so that the server idles at the window's edges, where the profile's
 * timers and the reads of /proc cannot start and stop at the same moment.  The accounting bound:
 * the samples are the processor time of every timed thread over random intervals of mean 1 ms;
 * a count of n such samples has a standard deviation under 0.6 sqrt(n).  The tolerance is 5% of
 * the processor time, or 4.5 of those deviations where that is more (n under 3,000: a busy server
 * gives 3,000 to 6,000 samples in 5 s idle, under 2,000 with the machine's two cores loaded by
 * others; at least 1,000 are asked for): a correct profiler fails it with chance under 1 in 10^5.
 * The profiler's own work (its set-up, the writing of the profile) runs on the JVM's attach
 * listener, whose time is left out of the program's.
 */
START_TEST(an_attached_profile_accounts_for_the_servers_processor_time)
{
    server s;
    ck_assert_msg(compile_workload(), "TomcatWorkload did not compile");
    start_server(&s, jdks[_i]);
    pid_t warm_up = start_load(&s, 3);
    int status;
    waitpid(warm_up, &status, 0);
    int timers_before = process_timers(s.pid);
    char command[4096];
    snprintf(command, sizeof(command), "'%s/bin/jevprof' -e cpu -i 1ms -d 8 -f '%s/p.collapsed' -f '%s/p.txt' %d 2>&1",
             jvmrun_source_dir(), s.dir, s.dir, (int)s.pid);
    FILE *jevprof = popen(command, "r");
    ck_assert_ptr_nonnull(jevprof);
    char line[4096], said[16384] = "";
    long long cpu_start = -1;
    pid_t load = -1;
    int timers_recording = 0;
    while (fgets(line, sizeof(line), jevprof)) {
        if (cpu_start < 0 && strstr(line, "jevprof: recording")) {
            cpu_start = program_cpu_ms(s.pid);
            timers_recording = process_timers(s.pid);
            load = start_load(&s, 5);
        }
        strncat(said, line, sizeof(said) - strlen(said) - 1);
    }
    long long cpu_end = program_cpu_ms(s.pid);
    ck_assert_msg(pclose(jevprof) == 0, "jevprof failed:\n%s", said);
    ck_assert_msg(cpu_start >= 0, "no recording line:\n%s", said);
    ck_assert_int_eq(waitpid(load, &status, 0), load);

    char path[1400];
    snprintf(path, sizeof(path), "%s/p.collapsed", s.dir);
    char *collapsed = tk_read_file(path);
    long long samples = collapsed_samples(collapsed, NULL), used = cpu_end - cpu_start;
    printf("%s: %lld samples of 1 ms, the JVM used %lld ms of processor time in the window (%.1f%%)\n", jdks[_i],
           samples, used, used > 0 ? 100.0 * (double)samples / (double)used : 0.0);
    snprintf(path, sizeof(path), "%s/p.txt", s.dir);
    char *report = tk_read_file(path);
    for (const char *line = report; *line; line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != '\0'))
        if (!strncmp(line, "Samples ", 8) || !strncmp(line, "Processor time", 14) || !strncmp(line, "Threads without", 15))
            printf("  %.*s\n", (int)strcspn(line, "\n"), line); /* the report's own accounting, for a failure's reader */
    /* the samples whose stack could not be walked (3% to 5% of a server's) are in the profile, under
     * a frame saying so; left out, they made the profile short of the processor time by as much */
    fflush(stdout); /* before a failure ends the test's process */
    const char *unwalkable = strstr(report, " during a collection, ");
    ck_assert_ptr_nonnull(unwalkable);
    ck_assert_int_eq(collapsed_samples(collapsed, "[not walkable]"), atoll(unwalkable + 22));
    free(report);
    ck_assert_msg(used >= 1000, "the server used only %lld ms of processor time: wrk did not drive it", used);
    double tolerance = fmax(0.05 * (double)used, 4.5 * 0.6 * sqrt((double)used));
    ck_assert_msg((double)llabs(samples - used) <= tolerance, "%lld samples of 1 ms for %lld ms of processor time\n%s",
                  samples, used, said);
    ck_assert_msg(strstr(collapsed, "TomcatWorkload$Page.doGet"), "the servlet is not in the profile");
    free(collapsed);

    ck_assert_msg(timers_recording > timers_before, "%d timers before the attach, %d while recording", timers_before,
                  timers_recording);
    /* Once the profile is written, the timers are deleted as their threads are next seen: within a second. */
    int timers_after = process_timers(s.pid);
    for (int i = 0; i < 20 && timers_after != timers_before; i++) {
        usleep(100 * 1000);
        timers_after = process_timers(s.pid);
    }
    ck_assert_msg(timers_after == timers_before, "%d timers before the attach, %d while recording, %d after the profile",
                  timers_before, timers_recording, timers_after);
    printf("timers: %d before the attach, %d while recording, %d after\n", timers_before, timers_recording, timers_after);
    snprintf(path, sizeof(path), "%s/redefine.log", s.dir);
    char *redefined = tk_read_file(path);
    ck_assert_msg(!strstr(redefined, "redefined name="), "classes redefined by the attach:\n%s", redefined);
    free(redefined);
    stop_server(&s);
}
END_TEST

int main(void)
{
    jdk_count = jvmrun_suite_jdks(jdks);
    if (jdk_count == 0)
        return 0;
    if (!tomcat_present()) {
        printf("skipped: no Tomcat 10 jars in /usr/share/java or no wrk (make deps installs libtomcat10-java and wrk)\n");
        return 0;
    }
    Suite *s = suite_create("attach_server");
    TCase *tc = tcase_create("attached");
    tcase_set_timeout(tc, 180);
    tcase_add_loop_test(tc, an_attached_profile_accounts_for_the_servers_processor_time, 0, jdk_count);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
