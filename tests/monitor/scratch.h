/*
 * scratch.h - a test's scratch directories under the build and the files in them, for the suites
 * of the jevprof command (test_jevprof_cli, test_jevprof_users).
 */
#ifndef JEVMON_TEST_SCRATCH_H
#define JEVMON_TEST_SCRATCH_H

#include <stddef.h>

/* A fresh directory under the build for a test's files: name ends in XXXXXX (mkdtemp). */
void make_directory(char *dir, size_t size, const char *name);

/* Removes dir and all in it. */
void remove_directory(const char *dir);

/* dir/name read whole (malloc'ed), or NULL. */
char *read_file(const char *dir, const char *name);

#endif
