/*
 * eventlog.h - who and when, beside a recorder's tree: each sample, allocation or lock wait as it
 * was recorded, with its time, the OS thread it was taken on and the node of the recorder's tree
 * its stack ended at, for the JFR recording (jfr.h), whose events carry a thread and a time.  The
 * tree says what the profile weighs; the log says on which thread and when.
 *
 * Bounded whatever the program runs: at most JP_EVENT_LOG_MAX entries.  A full log keeps every
 * other entry and from then on logs every other event (every fourth after it fills again, and
 * so on): a long run keeps an even share of its events over its whole span, and jfr.c gives each
 * of a path's events the thread and time of the path's entries in proportion to their weights.
 *
 * Threads are the OS's, by OS thread id, named the first time one is logged (while it lives) by
 * IJevmonNativeSampling::GetOsThreadName where the VM offers it: JVMs give a Java thread's OS
 * thread its Java name (Linux keeps its first 15 bytes).  A thread whose OS id is not known (0)
 * is logged as JP_LOG_NO_THREAD.  Thread-safe (its own lock); node indices are the tree's, which
 * its snapshots (jp_tree_copy) and moves keep.
 */
#ifndef JEVPROF_EVENTLOG_H
#define JEVPROF_EVENTLOG_H

#include <stddef.h>
#include <stdint.h>

#include "idmap.h"
#include "jevmon.h"
#include "platform/platform.h"

#define JP_EVENT_LOG_MAX (1u << 18) /* entries: 8 MiB */
#define JP_LOG_NO_THREAD UINT32_MAX /* an entry's thread when its OS thread is not known */

typedef struct jp_logged_event {
    uint64_t time_ns; /* plat_now_ns when it was recorded (a lock wait: when it ended) */
    uint64_t weight;  /* what it added to the tree (periods, allocations in their units, waits) */
    uint64_t second;  /* what it added to the second tree (bytes, nanoseconds waited), or 0 */
    uint32_t thread;  /* index in threads, or JP_LOG_NO_THREAD */
    uint32_t node;    /* the tree's node its stack ended at */
} jp_logged_event;

typedef struct jp_log_thread {
    DWORD os_thread;
    char *name; /* the OS's name for it, or NULL */
} jp_log_thread;

typedef struct jp_event_log {
    IJevmonNativeSampling *namer; /* owned; NULL: threads go unnamed */
    plat_mutex *lock;             /* guards everything below */
    jp_logged_event *events;
    size_t count, capacity;
    uint64_t stride;              /* every stride-th event is logged (1 until the log first fills) */
    uint64_t since_logged;        /* events not logged since the last one that was */
    jp_idmap thread_index;        /* OS thread -> 1 + its index */
    jp_log_thread *threads;
    size_t thread_count, thread_capacity;
} jp_event_log;

/* info: where the thread names come from (NULL: none).  0, or -1 out of memory. */
int jp_event_log_init(jp_event_log *log, IJavaEventMonitorIDInfo2 *info);
void jp_event_log_free(jp_event_log *log);
/* Logs one event now (or counts it towards the next one logged, once the log has filled). */
void jp_event_log_add(jp_event_log *log, DWORD os_thread, uint32_t node, uint64_t weight, uint64_t second);
/* into (zeroed) gets a copy of from's entries and threads, names and all, and no lock: for the
 * outputs.  from_empty: from then starts over empty (its threads kept), as its tree does when
 * moved out.  0, or -1 out of memory (into is left empty and from as it was). */
int jp_event_log_copy(jp_event_log *into, jp_event_log *from, int from_empty);

#endif /* JEVPROF_EVENTLOG_H */
