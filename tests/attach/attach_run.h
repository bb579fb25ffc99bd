/*
 * attach_run.h - what the attach suites share (test_attach, test_attach_jevprof, test_attach_client,
 * test_attach_server): AttachWorkload started and fed work, the agent loaded with the JDK's jcmd,
 * what the program and jevprof printed or wrote read back, jevprof's files in a fresh directory,
 * and the sampling timers a process holds.
 */
#ifndef JEVMON_TEST_ATTACH_RUN_H
#define JEVMON_TEST_ATTACH_RUN_H

#include <check.h>
#include <stddef.h>

#include "support/jvmrun.h"

/* jevprof's COM class. */
#define JEVPROF "{75CDC682-D602-4669-A56F-09797AC9C430}"

/* `jcmd <pid> JVMTI.agent_load <agent> '<options>'` with the JDK's own jcmd; returns the agent's
 * return code as jcmd prints it, -1 when it printed none. */
int jcmd_load(const char *jdk, int pid, const char *options);

/* Seconds on the monotonic clock. */
double now(void);

/* The program's output without the bridge's lines (malloc'ed). */
char *own_output(const char *out);

/* Does each text appear in text after the one before? */
void assert_in_order(const char *text, const char *const *items, size_t count);

/* Sends AttachWorkload the line and waits for done in its output. */
void work(jvmrun_process *p, const char *line, const char *done);

/* Starts AttachWorkload (agent_options and env as jvmrun_start takes them) and waits until it is ready. */
void start_waiting(jvmrun_process *p, const char *jdk, const char *agent_options, const char *const *env);

/* The file name in dir (malloc'ed), NULL when it cannot be read. */
char *read_file(const char *dir, const char *name);

/* The calls of a method in jevprof's report (its row of the top methods by self time). */
unsigned long long report_calls(const char *report, const char *method);

/* A fresh directory for jevprof's files, holding system.reg, a registry in which jevprof's COM
 * class is registered, and the environment that points the JVM and jevprof there. */
typedef struct jevprof_files {
    char dir[1200], registry_env[1400], output_env[1300];
} jevprof_files;

/* Makes that directory from name (a mkdtemp template under the build directory). */
void jevprof_directory(jevprof_files *files, const char *name);

/* After a passing test: its directory goes (a failing one stays, to be looked at). */
void remove_directory(const char *dir);

/* The sampling timers of process pid: its perf events (descriptors on anon_inode:[perf_event]) and
 * its POSIX timers (/proc/PID/timers, one "ID:" line each), the two kinds a cpu profile arms. */
int process_timers(int pid);

/* A suite's main: SIGPIPE ignored (a program that ended early must fail a check, not kill the
 * suite), the JDKs found into jdks (none: nothing runs), then the suite name of one test case,
 * three minutes for each test, its tests added by add_tests for that many JDKs. */
int attach_suite_main(const char *name, char jdks[JVMRUN_MAX_JDKS][512], void (*add_tests)(TCase *tc, int jdk_count));

#endif
