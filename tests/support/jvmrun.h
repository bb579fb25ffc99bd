/*
 * jvmrun.h - running a Java workload under the agent for end-to-end suites: the JDKs on
 * this machine, a private registry for the run, the monitor log, the program's output.
 */
#ifndef JEVMON_TEST_JVMRUN_H
#define JEVMON_TEST_JVMRUN_H

#include <stddef.h>

#define JVMRUN_MAX_JDKS 8

typedef struct jvmrun_result {
    int exit_code;
    char *out;   /* the program's stdout */
    char *err;   /* its stderr (the agent's jevmon: lines go there) */
    char *log;   /* what the test monitor logged */
} jvmrun_result;

/* The distinct JDKs under /usr/lib/jvm (real directories with bin/java), only those whose path
 * holds $JEVMON_TEST_JDK when it is set; returns how many. */
int jvmrun_find_jdks(char jdks[JVMRUN_MAX_JDKS][512]);
/* For a suite's main: jvmrun_find_jdks, and prints them, or "skipped: ..." (run-tests.sh's
 * word for a suite with nothing to run) when there is none. */
int jvmrun_suite_jdks(char jdks[JVMRUN_MAX_JDKS][512]);
/* The feature release of the JDK whose java is at path (its release file), 0 when unknown. */
int jvmrun_jdk_release(const char *java);
/* Non-zero when the JVMs run with the sanitizers' runtime preloaded (run-tests.sh's sanitized runs):
 * its allocator keeps freed memory in quarantine, so resident sizes say nothing of leaks then. */
int jvmrun_sanitized(void);
/* <build>/<name>, build being JEVMON_BUILD or derived from the test program's path. */
const char *jvmrun_build_path(const char *name);
/* The project's source tree: JEVMON_SRC, or the tree the build directory is in.  Neither this
 * nor jvmrun_build_path touches the other's buffer, so both may stand in one expression. */
const char *jvmrun_source_dir(void);
/*
 * Runs a shell command line (printf-style) in dir, its stdout and stderr into dir's out.txt and
 * err.txt, without the Make variables of an enclosing `make check` (a `make` in it starts
 * afresh).  *out and *err (either may be NULL) get what it wrote, malloc'd.  Returns its exit
 * status (-1 when it did not exit); when that is not 0, prints the command and what it wrote.
 */
int jvmrun_shell(const char *dir, char **out, char **err, const char *format, ...)
    __attribute__((format(printf, 4, 5)));
/* tools/flamegraph-check.js on dir's jevprof-flame.html and a frame name in it (kind: the legend
 * label the frame must have, or NULL), when node and chromium are installed: 0 when it passed or
 * could not run (a note says so), else non-zero. */
int jvmrun_check_flame_graph(const char *dir, const char *frame, const char *kind);
/* Removes dir: contents (a shell word list of what is in it, for rm -rf), jvmrun_shell's
 * out.txt and err.txt, then dir itself. */
void jvmrun_remove_shell_dir(const char *dir, const char *contents);
/* jevprof's COM class, and a registry file at path (for JEVMON_REGISTRY_FILES) that makes it
 * creatable from <build>/libjevprof.so. */
#define JVMRUN_JEVPROF_CLSID "{75CDC682-D602-4669-A56F-09797AC9C430}"
void jvmrun_write_jevprof_registry(const char *path);
/* Runs bin/jevprof with arguments (a shell word list), its output on stderr; its exit status. */
int jvmrun_jevprof_script(const char *arguments);
/*
 * Runs `java [-agentpath:<agent>=<agent_options>] -cp <build>/java BridgeWorkload <args...>`
 * with the given extra environment ("NAME=value" strings, NULL-terminated), a fresh
 * registry in which the test monitor's classes are registered, and FXMON_LOG set.
 * agent_options NULL runs without the agent.
 */
void jvmrun(const char *jdk, const char *agent_options, const char *const *env, const char *const *args,
            jvmrun_result *r);
/* As jvmrun, with another main class from <build>/java. */
void jvmrun_main(const char *jdk, const char *main_class, const char *agent_options, const char *const *env,
                 const char *const *args, jvmrun_result *r);
void jvmrun_free(jvmrun_result *r);

/* A JVM running in the background (jvmrun_start), its standard input a pipe. */
typedef struct jvmrun_process {
    int pid;
    int input;     /* write end of its standard input; -1 once closed */
    char dir[4096]; /* its files: out, err, monitor.log, the registry */
} jvmrun_process;
/* Starts the program as jvmrun_main runs it, without waiting for it. */
void jvmrun_start(jvmrun_process *p, const char *jdk, const char *main_class, const char *agent_options,
                  const char *const *env, const char *const *args);
/* Writes a line to its standard input. */
void jvmrun_send(jvmrun_process *p, const char *line);
/* Waits up to timeout_ms for its standard output to hold count lines containing what; non-zero when it does. */
int jvmrun_wait_output(jvmrun_process *p, const char *what, int count, int timeout_ms);
/* Closes its standard input, waits for it to end and collects what it wrote into r; removes its files. */
void jvmrun_finish(jvmrun_process *p, jvmrun_result *r);
/* Number of lines of text containing what. */
int jvmrun_count(const char *text, const char *what);
/* The number after key in the first line of text starting with line_start; -1 when absent. */
long long jvmrun_field(const char *text, const char *line_start, const char *key);

#endif
