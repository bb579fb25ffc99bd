/*
 * jevprof_dirs.h - what the suites of jevprof's files share (test_jevprof_files,
 * test_jevprof_output), run as root: one test's directories, Workload or AttachWorkload run under
 * jevprof with its files in one of them, and what they hold checked.
 */
#ifndef JEVMON_TEST_JEVPROF_DIRS_H
#define JEVMON_TEST_JEVPROF_DIRS_H

#include <stddef.h>
#include <sys/types.h>

#include "support/jvmrun.h"

/* One test's files: base (root's, 0700) holds the registry file, the private directory the
 * files fall back to (XDG_RUNTIME_DIR=base/private) and whatever the test makes. */
typedef struct test_dirs {
    char base[1024];
    char private_dir[1100]; /* base/private/jevprof */
} test_dirs;

/* For a suite's main: jvmrun_suite_jdks, or 0 with a "skipped: not root (why)" line when this
 * process is not root's. */
int root_suite_jdks(char jdks[JVMRUN_MAX_JDKS][512], const char *why);

/* A fresh base under the build, with a registry file that makes jevprof's class creatable. */
void make_base(test_dirs *d);

/* base/name, made with mode (a directory) and given to owner (nobody's or root's). */
void make_dir(const test_dirs *d, const char *name, mode_t mode, uid_t owner, char *path, size_t size);

/* dir/name read whole (malloc'ed), or NULL. */
char *read_in(const char *dir, const char *name);

/* Runs main_class with args under jevprof in mode, its files in out; more: up to two more
 * settings ("NAME=value"), NULL-terminated, or NULL. */
void run_in(const char *jdk, const test_dirs *d, const char *out, const char *mode, const char *main_class,
            const char *const *args, const char *const *more, jvmrun_result *r);

/* Starts AttachWorkload under jevprof in sample mode, its files in out, and waits until it is ready
 * (it then waits for "quit"). */
void start_waiting(const char *jdk, const test_dirs *d, const char *out, jvmrun_process *p);

/* Workload's 200 rounds under jevprof in mode, its files in out: it must end well. */
void run_workload(const char *jdk, const test_dirs *d, const char *out, const char *mode, jvmrun_result *r);

/* Fails, showing the whole text, unless text contains what. */
void expect(const char *text, const char *what);

/* Fails unless text has no "jevmon: jevprof:" line before the first that starts with line. */
void expect_first(const char *text, const char *line);

/* Fails unless dir, of that mode, holds a report. */
void expect_report_in(const char *dir, mode_t mode);

/* Removes the test's base and all in it. */
void remove_tree(const test_dirs *d);

#endif
