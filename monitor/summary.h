/*
 * summary.h - what jevprof counts in every mode: classes loaded and unloaded, garbage
 * collections and their time, threads, and exceptions thrown by class.  The counters are
 * atomics (GC callbacks run where locks are unwelcome); the exception table takes a lock.
 */
#ifndef JEVPROF_SUMMARY_H
#define JEVPROF_SUMMARY_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/platform.h"

typedef struct jp_exception_count {
    char *class_name;
    uint64_t count;
} jp_exception_count;

typedef struct jp_summary {
    atomic_ullong classes_loaded, classes_unloaded;
    atomic_ullong gc_count, gc_ns, gc_started_ns;
    atomic_ullong threads_created, threads_destroyed;
    atomic_llong threads_live, threads_max_live;
    atomic_ullong exceptions_thrown;
    int exceptions_counted; /* EXCEPTIONS was asked for (the Exceptions setting) */
    plat_mutex *lock; /* guards the exception table */
    jp_exception_count *exceptions;
    size_t exception_classes, exception_capacity;
} jp_summary;

int jp_summary_init(jp_summary *s);
void jp_summary_free(jp_summary *s);

void jp_summary_gc_started(jp_summary *s, uint64_t now_ns);
void jp_summary_gc_finished(jp_summary *s, uint64_t now_ns);
void jp_summary_thread_created(jp_summary *s);
void jp_summary_thread_destroyed(jp_summary *s);
/* class_name NULL: the VM could not say which class; counted as "<unknown class>". */
void jp_summary_exception(jp_summary *s, const char *class_name);
/* Sorts the exception table, most thrown first (at the end, for the report). */
void jp_summary_sort_exceptions(jp_summary *s);

#endif /* JEVPROF_SUMMARY_H */
