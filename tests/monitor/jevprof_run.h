/*
 * jevprof_run.h - what jevprof's end-to-end suites share (test_jevprof, test_jevprof_calls,
 * test_jevprof_alloc): a program run under jevprof with a private registry and output directory, and its report,
 * collapsed stacks and pprof files read back.
 */
#ifndef JEVMON_TEST_JEVPROF_RUN_H
#define JEVMON_TEST_JEVPROF_RUN_H

#include <stddef.h>

#include "support/jvmrun.h"

#define JEVPROF JVMRUN_JEVPROF_CLSID
/* Attaches jevprof through MSJAVA_EVENT_MONITORS (the registry file names only its COM class). */
#define ATTACHED "MSJAVA_EVENT_MONITORS=" JEVPROF

/* What `go tool pprof` (Debian's golang-go) reads in a pprof file: the sum of one sample value
 * over every sample (-raw), and the function with the most flat weight in that value (-top, the
 * first row), with its weight. */
typedef struct pprof_view {
    unsigned long long total, samples, locations;
    char top[512];
    unsigned long long top_flat;
} pprof_view;

/* dir/name read whole (malloc'ed, NUL-terminated), or NULL when it cannot be opened. */
char *read_text(const char *dir, const char *name);

/* A fresh output directory holding a registry file that makes jevprof's CLSID creatable. */
void prepare(char *dir, size_t size);

/* monitors: ATTACHED, or NULL when the registry file has a monitor key for jevprof; extra, more:
 * more environment variables ("NAME=value"), or NULL. */
void run_jevprof_main(const char *jdk, const char *dir, const char *monitors, const char *mode,
                      const char *main_class, const char *const *args, const char *const *extras,
                      jvmrun_result *r);

/* Workload with one argument, rounds, under jevprof (run_jevprof_main). */
void run_jevprof_with(const char *jdk, const char *dir, const char *monitors, const char *mode,
                      const char *rounds, const char *const *extras, jvmrun_result *r);

/* run_jevprof_with with at most one more environment variable, extra. */
void run_jevprof(const char *jdk, const char *dir, const char *monitors, const char *mode, const char *rounds,
                 const char *extra, jvmrun_result *r);

/* Fails, showing the whole text on stderr, unless text contains what. */
void expect(const char *text, const char *what);

/* After a passing test: its directory goes (a failing one stays, to be looked at). */
void remove_outputs(const char *dir);

/* The sum of the counts of collapsed lines whose last frame is leaf. */
unsigned long long self_count(const char *collapsed, const char *leaf);

/* The row of a report table (the section headed title) that ends with "  name", or NULL. */
const char *table_row(const char *report, const char *title, const char *name);

/* The count that starts such a row; 0 when there is none. */
unsigned long long table_count(const char *report, const char *title, const char *name);

/* 0 when go is missing (a "skipped:" line says so), else 1 with v filled. */
int read_pprof(const char *dir, const char *file, int index, pprof_view *v);

/* The number after label in the report (0 when it is missing). */
unsigned long long number_after(const char *report, const char *label);

#endif
