/*
 * locks.h - lock mode: where threads wait for locks, and for how long.  jevprof registers an
 * IJevmonLockWaitCallback with the VM's IJevmonLockWaits (jevmon's extension, on the IDInfo);
 * the VM tells it each contended wait once the wait is over, on the thread that waited: a
 * synchronized enter that found the monitor held, a LockSupport.park on a java.util.concurrent
 * lock.  The recorder takes that thread's stack (still at the wait) and adds it, with one more
 * frame at its end that stands for the lock's class (classframes.h), to one tree weighted by
 * waits and to a second tree of the same paths weighted by the nanoseconds waited: Go's mutex
 * profile, contentions and delay.  The VM leaves out the waits shorter than the threshold.
 *
 * The trees, their stack buffers and their counts are an allocations recorder's
 * (allocations.h), its sites the waits (one each) and its bytes the nanoseconds.
 */
#ifndef JEVPROF_LOCKS_H
#define JEVPROF_LOCKS_H

#include <stdatomic.h>

#include "allocations.h"

typedef struct jp_locks {
    jp_allocations waits;     /* sites: waits, one each; bytes: nanoseconds waited */
    unsigned long long threshold_ns;
    atomic_ullong monitors;   /* waits told: contended synchronized enters */
    atomic_ullong parks;      /* and parks on java.util.concurrent locks */
} jp_locks;

/* 0, or -1 out of memory. */
int jp_locks_init(jp_locks *l, IJavaEventMonitorIDInfo2 *info, jp_class_frames *classes,
                  unsigned long long threshold_ns);
void jp_locks_free(jp_locks *l);
/* IJevmonLockWaitCallback::OnLockWait, on the thread that waited. */
void jp_locks_record(jp_locks *l, DWORD kind, ClassID lock_class, ULONGLONG waited_ns);

#endif /* JEVPROF_LOCKS_H */
