/*
 * calls.h - call mode: every thread's call tree, fed by the bridge's batches of call records
 * (IJevmonCallBatches, docs/call-batches.md).
 *
 * A batch holds one thread's records, oldest first, and comes on that thread or on another (a
 * flush).  So each batch finds its thread's state by ThreadID, in a table under the recorder's
 * lock, and marks it busy there; it is recorded outside the lock.  Folding a state (THREAD_DESTROY,
 * the end) or copying its tree (a dump, a period's end) holds the lock and waits for a batch in
 * progress, and the next batch waits for them at the lock.  Before it reads the trees, the recorder
 * has the bridge flush its batches, so every call made before is in them.  Times are the records'
 * time-stamp counter (plat_ticks' unit), turned into nanoseconds at the end by the ratio of ticks
 * to nanoseconds over the whole recording.
 *
 * Processor time (the default; wall time is a setting): reading a thread's CPU clock costs a
 * system call (microseconds on some machines), too much for every call, and a blocked thread
 * makes no calls.  So a batch reads its thread's CPU clock only when a gap of JP_BLOCKED_GAP_MS or
 * more separates two of its records (or its first from the previous batch's last, or its last from
 * its delivery), or JP_CPU_REFRESH_MS have passed since the last reading: the wall time since that
 * reading that the thread did not spend on a processor is time it was blocked (waiting, sleeping,
 * in I/O, descheduled).  It goes to the gaps, the longest first, each up to its length, and is
 * taken off the frame the thread was in during the gap and off its callers (callstack.h).  Waits
 * shorter than the gap count as processor time.
 */
#ifndef JEVPROF_CALLS_H
#define JEVPROF_CALLS_H

#include <stdatomic.h>

#include "callstack.h"
#include "idmap.h"
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
    IJavaEventMonitorIDInfo2 *info; /* not owned; for ThreadInformation (NULL: no CPU clock is read) */
    IJevmonCallBatches *batches;    /* the bridge's batches, flushed before the trees are read; NULL: none */
    plat_mutex *lock;
    jp_idmap threads;         /* ThreadID -> jp_thread_calls *: every thread that recorded and has not ended */
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

/* batches: the bridge's, kept (AddRef) to flush; NULL: none.  cpu_time: record processor time (else
 * wall time).  0, or -1 out of memory. */
int jp_calls_init(jp_calls *calls, IJavaEventMonitorIDInfo2 *info, IJevmonCallBatches *batches, int cpu_time);
/* Frees everything; jp_calls_stop must have run if any thread recorded. */
void jp_calls_free(jp_calls *calls);

/* OnCallBatch: records[0..count) of thread, oldest first, into its tree; on any thread, never two
 * batches of one thread at once. */
void jp_calls_batch(jp_calls *calls, ThreadID thread, const JEVMON_CALL_RECORD *records, DWORD count);
/* THREAD_DESTROY, after the thread's last batch: folds its tree (its open frames end now) into the
 * totals and forgets the thread. */
void jp_calls_thread_ended(jp_calls *calls, ThreadID thread);
/* The end: flushes the batches, stops recording, waits for batches in progress, folds every
 * thread.  Afterwards calls->totals holds the whole program's tree, in nanoseconds.  Later calls
 * do nothing. */
void jp_calls_stop(jp_calls *calls);
/* The start command after a stop: recording goes on into empty totals (the threads' trees are
 * empty since the stop), its clock from now.  0, or -1 when not stopped or out of memory. */
int jp_calls_restart(jp_calls *calls);

/* Adds the calls so far to into (initialized), in nanoseconds, root summed, while recording goes
 * on (a dump): every thread's finished calls, the batches flushed first; its open frames count
 * once they end.  A thread's next batch waits while its tree is copied (none is lost).  0, or -1
 * out of memory. */
int jp_calls_snapshot(jp_calls *calls, jp_tree *into);

/* Continuous mode: fills period (initialized, empty) with the calls that ended since before was
 * taken, the batches flushed first (before: an empty tree at first, kept by the caller between
 * periods, in clock ticks),
 * in nanoseconds, and makes before the calls so far.  After the stop, the last period: what the
 * stop added (the open frames it closed) included.  0, or -1 out of memory (before is kept). */
int jp_calls_take_period(jp_calls *calls, jp_tree *before, jp_tree *period);

#endif /* JEVPROF_CALLS_H */
