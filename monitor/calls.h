/*
 * calls.h - call mode: every thread's call tree, fed by MethodEntry/MethodExit2.
 *
 * The hot path takes no shared lock and allocates nothing in its steady state: each thread
 * finds its own state through a thread-local cache (keyed by recorder, since a CLSID listed
 * twice makes two jevprof instances in one process) and records into its own tree.  A
 * thread's state is created, folded into the totals (THREAD_DESTROY) and collected (at the
 * end) under the recorder's lock; a per-thread busy flag lets those wait for a callback
 * in progress instead of making every callback lock.  Times are taken with plat_ticks (the
 * clock costs a few times more, twice per call) and turned into nanoseconds at the end, by the
 * ratio of ticks to nanoseconds over the whole recording.
 */
#ifndef JEVPROF_CALLS_H
#define JEVPROF_CALLS_H

#include <stdatomic.h>

#include "callstack.h"
#include "jevmon.h"
#include "platform/platform.h"

typedef struct jp_thread_calls jp_thread_calls;

typedef struct jp_calls {
    unsigned serial; /* tells this recorder's thread-local cache entries from an earlier one's */
    IJavaEventMonitorIDInfo2 *info; /* not owned; for GetCurrentThread */
    plat_mutex *lock;
    jp_thread_calls *threads; /* every thread that recorded and has not been folded */
    jp_tree totals;           /* the trees of threads that ended */
    atomic_int stopped;
    uint64_t lost_threads;    /* threads whose state could not be allocated */
    uint64_t started_ticks, started_ns; /* plat_ticks and plat_now_ns when recording began */
} jp_calls;

int jp_calls_init(jp_calls *calls, IJavaEventMonitorIDInfo2 *info);
/* Frees everything; jp_calls_stop must have run if any thread recorded. */
void jp_calls_free(jp_calls *calls);

void jp_calls_entry(jp_calls *calls, MethodID method, StackID stack);
void jp_calls_exit(jp_calls *calls, StackID caller);
/* THREAD_DESTROY: folds that thread's tree (its open frames end now) into the totals. */
void jp_calls_thread_ended(jp_calls *calls, ThreadID thread);
/* The end: stops recording, waits for callbacks in progress, folds every thread.  Afterwards
 * calls->totals holds the whole program's tree, in nanoseconds.  Later calls do nothing. */
void jp_calls_stop(jp_calls *calls);

#endif /* JEVPROF_CALLS_H */
