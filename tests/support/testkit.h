/*
 * testkit.h - small helpers every test suite may use (linked into every test program):
 * reading a file whole, counting occurrences, capturing jevmon's log lines, running a Check suite.
 */
#ifndef JEVMON_TESTKIT_H
#define JEVMON_TESTKIT_H

#include <check.h>

/* The whole file, NUL-terminated, malloc'd; "" (still malloc'd) when it cannot be read. */
char *tk_read_file(const char *path);
/* How many times what occurs in text. */
int tk_count(const char *text, const char *what);
/* The jevmon: lines logged (jv_log_set_sink) since tk_capture_log: how many, and the first
 * TK_LOG_KEPT of them.  A test may set tk_log_count to 0 to start counting afresh. */
#define TK_LOG_KEPT 64
extern char tk_log_lines[TK_LOG_KEPT][1024];
extern int tk_log_count;
/* Captures the log lines from now on (the suite's teardown ends it: jv_log_set_sink(NULL, NULL)). */
void tk_capture_log(void);
/* How many of the lines kept contain text. */
int tk_logged(const char *text);

/* Runs the suite (printing Check's summary) and returns the program's exit status. */
int tk_run_suite(Suite *suite);

#endif
