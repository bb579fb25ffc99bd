/*
 * testkit.h - small helpers every test suite may use (linked into every test program):
 * reading a file whole, counting occurrences, running a Check suite.
 */
#ifndef JEVMON_TESTKIT_H
#define JEVMON_TESTKIT_H

#include <check.h>

/* The whole file, NUL-terminated, malloc'd; "" (still malloc'd) when it cannot be read. */
char *tk_read_file(const char *path);
/* How many times what occurs in text. */
int tk_count(const char *text, const char *what);
/* Runs the suite (printing Check's summary) and returns the program's exit status. */
int tk_run_suite(Suite *suite);

#endif
