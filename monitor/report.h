/*
 * report.h - the text report: what was profiled, the top methods (by self and by total time
 * or samples), the hottest call paths, the top allocation sites (by allocated class and by
 * allocating method), the top lock waits (by lock class and by waiting method), and the summary
 * of classes, GCs, threads, exceptions.
 */
#ifndef JEVPROF_REPORT_H
#define JEVPROF_REPORT_H

#include <stdio.h>

#include "allocations.h"
#include "calls.h"
#include "config.h"
#include "eventlog.h"
#include "javaname.h"
#include "sampler.h"
#include "summary.h"
#include "tree.h"

typedef struct jp_report {
    const char *program;                   /* the start class */
    const jp_config *config;
    double seconds;                        /* from Initialize to the end */
    uint64_t started_unix_ns;              /* Initialize's wall-clock time, ns since 1970 (pprof's time_nanos) */
    uint64_t started_ns;                   /* the same moment by plat_now_ns, the event logs' clock */
    const jp_tree *samples;                /* NULL when not sampling; by method (jp_tree_by_method) */
    const jp_tree *sample_lines;           /* with samples: the same, frames at their offsets (pprof) */
    const jp_sampler_counts *sample_counts;
    const jp_event_log *sample_events;     /* with samples: each one's thread and time, nodes of sample_lines */
    double sampling_seconds;
    jp_native *native;                     /* native frames and threads (cpu and wall modes), or NULL */
    const jp_tree *calls;                  /* NULL when not recording calls; weights in ns */
    uint64_t lost_threads;                 /* threads whose calls could not be recorded */
    const jp_thread_summary *threads;      /* calls: each thread's time and heaviest path */
    size_t thread_count;
    const jp_tree *allocations;            /* NULL when not recording allocations; weights: allocations
                                              in JP_ALLOCATION_COUNT_SCALE units */
    const jp_tree *allocated_bytes;        /* with allocations: the same paths, weights: bytes */
    const jp_allocation_counts *allocation_counts;
    const jp_event_log *allocation_events; /* with allocations: each one's thread and time, its nodes */
    int allocations_weighted;              /* the VM weighs each allocation (IJevmonAllocationSampling) */
    unsigned long allocation_interval;     /* then its sampling interval in bytes (0: every allocation) */
    const jp_tree *lock_waits;             /* NULL when not recording lock waits; weights: waits */
    const jp_tree *lock_delay;             /* with lock_waits: the same paths, weights: nanoseconds waited */
    const jp_allocation_counts *lock_counts;
    const jp_event_log *lock_events;       /* with lock_waits: each wait's thread and time, its nodes */
    unsigned long long lock_threshold_ns;  /* waits shorter than this were not told */
    const jp_summary *summary;
    jp_method_namer name;           /* brief names, the signature where ambiguous (the files) */
    jp_method_namer signature_name; /* always the signature (the report's tables) */
    jp_method_kinder kind;          /* what each method is (the flame graphs' colours) */
    jp_method_sourcer source;       /* each method's source file and first line (pprof) */
    jp_method_liner line;           /* the line of a frame at a bytecode offset (pprof) */
    void *name_context;
} jp_report;

/* 0, or -1 on a write error or out of memory. */
int jp_report_write(FILE *out, const jp_report *report);

/* The first lines of the top-methods table of the main profile (samples, else calls, else
 * allocations, whose self weight is in the allocated classes), for stderr at the end:
 * at most count lines "  45.20%  pkg.Class.method", each written to line. */
typedef void (*jp_line_sink)(void *context, const char *line);
void jp_report_top_lines(const jp_report *report, unsigned count, jp_line_sink sink, void *context);

#endif /* JEVPROF_REPORT_H */
