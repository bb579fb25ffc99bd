/*
 * output.h - the files jevprof leaves at the end, in the output directory:
 *
 *   jevprof-report.txt        the text report
 *   jevprof.collapsed         collapsed stacks of the main profile (samples; in calls mode,
 *                             self time in microseconds), for FlameGraph and speedscope
 *   jevprof-flame.html        a self-contained flame graph of the same profile
 *   jevprof-calls.collapsed,  in "both" mode, the same two for the call tree
 *   jevprof-calls-flame.html
 *   jevprof-alloc.collapsed,  in alloc mode, the same two for the allocation sites (allocating
 *   jevprof-alloc-flame.html  stacks ending in the allocated class, weighted by allocations)
 *   jevprof-alloc-bytes.collapsed,  and for the same sites weighted by bytes
 *   jevprof-alloc-bytes-flame.html
 *
 * and, on stderr (never stdout: the program's output stays as it was), one line naming the
 * report and the five hottest methods.
 */
#ifndef JEVPROF_OUTPUT_H
#define JEVPROF_OUTPUT_H

#include "report.h"

#define JP_REPORT_FILE "jevprof-report.txt"
#define JP_COLLAPSED_FILE "jevprof.collapsed"
#define JP_FLAME_FILE "jevprof-flame.html"
#define JP_CALLS_COLLAPSED_FILE "jevprof-calls.collapsed"
#define JP_CALLS_FLAME_FILE "jevprof-calls-flame.html"
#define JP_ALLOC_COLLAPSED_FILE "jevprof-alloc.collapsed"
#define JP_ALLOC_FLAME_FILE "jevprof-alloc-flame.html"
#define JP_ALLOC_BYTES_COLLAPSED_FILE "jevprof-alloc-bytes.collapsed"
#define JP_ALLOC_BYTES_FLAME_FILE "jevprof-alloc-bytes-flame.html"

/* Each file that cannot be written gets one "jevmon: jevprof:" line; the others are written. */
void jp_output_write_all(const jp_report *report);

#endif /* JEVPROF_OUTPUT_H */
