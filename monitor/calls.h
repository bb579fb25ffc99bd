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
 *
 * Processor time (the default; wall time is a setting): reading a thread's CPU clock costs a
 * system call (microseconds on some machines), too much for every call, and a blocked thread
 * makes no calls.  So each thread reads its CPU clock only when a gap of JP_BLOCKED_GAP_MS or
 * more has passed since its previous event, and at least every JP_CPU_REFRESH_MS: the wall time
 * since the previous reading that the thread did not spend on a processor is time it was blocked
 * (waiting, sleeping, in I/O, descheduled), up to the gap's length, and it is taken off the frame
 * the thread was in during the gap and off its callers (callstack.h).  Waits shorter than the gap
 * count as processor time.
 */
#ifndef JEVPROF_CALLS_H
#define JEVPROF_CALLS_H

#include <stdatomic.h>

#include "callstack.h"
#include "jevmon.h"
#include "platform/platform.h"

#define JP_BLOCKED_GAP_MS 1u
#define JP_CPU_REFRESH_MS 10u

typedef struct jp_thread_calls jp_thread_calls;

/* One thread's share of the calls, for the report's per-thread view. */
#define JP_THREAD_PATH_FRAMES 4
typedef struct jp_thread_summary {
    ThreadID thread;
    DWORD os_thread;
    uint64_t time;                          /* its outermost frames' time (ns once stopped) */
    MethodID path[JP_THREAD_PATH_FRAMES];   /* its heaviest path from the outermost frame */
    size_t depth;
} jp_thread_summary;

typedef struct jp_calls {
    unsigned serial; /* tells this recorder's thread-local cache entries from an earlier one's */
    IJavaEventMonitorIDInfo2 *info; /* not owned; for GetCurrentThread */
    plat_mutex *lock;
    jp_thread_calls *threads; /* every thread that recorded and has not been folded */
    jp_tree totals;           /* the trees of threads that ended */
    jp_thread_summary *thread_summaries; /* one per thread folded, in the order they were */
    size_t thread_count, thread_capacity;
    atomic_int stopped;
    uint64_t lost_threads;    /* threads whose state could not be allocated */
    uint64_t started_ticks, started_ns; /* plat_ticks and plat_now_ns when recording began */
    int cpu_time;                       /* record processor time, not wall time */
    double ns_per_tick;                 /* measured at the start, for the blocked time */
    double stop_ns_per_tick;            /* what the totals were scaled by at the stop */
    uint64_t gap_ticks, refresh_ticks;  /* JP_BLOCKED_GAP_MS and JP_CPU_REFRESH_MS in ticks */
} jp_calls;

/* cpu_time: record processor time (else wall time). */
int jp_calls_init(jp_calls *calls, IJavaEventMonitorIDInfo2 *info, int cpu_time);
/* Frees everything; jp_calls_stop must have run if any thread recorded. */
void jp_calls_free(jp_calls *calls);

void jp_calls_entry(jp_calls *calls, MethodID method, StackID stack);
void jp_calls_exit(jp_calls *calls, StackID caller);
/* THREAD_DESTROY: folds that thread's tree (its open frames end now) into the totals. */
void jp_calls_thread_ended(jp_calls *calls, ThreadID thread);
/* The end: stops recording, waits for callbacks in progress, folds every thread.  Afterwards
 * calls->totals holds the whole program's tree, in nanoseconds.  Later calls do nothing. */
void jp_calls_stop(jp_calls *calls);
/* The start command after a stop: recording goes on into empty totals (the threads' trees are
 * empty since the stop), its clock from now.  0, or -1 when not stopped or out of memory. */
int jp_calls_restart(jp_calls *calls);

/* Adds the calls so far to into (initialized), in nanoseconds, root summed, while recording goes
 * on (a dump): every thread's finished calls; its open frames count once they end.  A thread's
 * next event waits while its tree is copied (none is lost).  0, or -1 out of memory. */
int jp_calls_snapshot(jp_calls *calls, jp_tree *into);

/* Continuous mode: fills period (initialized, empty) with the calls that ended since before was
 * taken (before: an empty tree at first, kept by the caller between periods, in clock ticks),
 * in nanoseconds, and makes before the calls so far.  After the stop, the last period: what the
 * stop added (the open frames it closed) included.  0, or -1 out of memory (before is kept). */
int jp_calls_take_period(jp_calls *calls, jp_tree *before, jp_tree *period);

#endif /* JEVPROF_CALLS_H */
