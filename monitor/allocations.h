/*
 * allocations.h - alloc mode: where the program allocates.  For each OnObjectAllocated (which
 * comes on the allocating thread) the recorder takes that thread's stack with GetStackTrace and
 * adds it to one tree, weighted by allocations, with one more frame at its end that stands for
 * the allocated class (classframes.h), and to a second tree of the same paths weighted by the
 * object's size (GetObjectSize, asked while its ObjectID is valid: during the callback).
 *
 * The recorder takes any event of the calling thread that ends in a class and has two weights
 * (jp_allocations_record_weights): lock mode records each contended wait with it (locks.h).
 *
 * Weights: where the VM has jevmon's IJevmonAllocationSampling (on its heap monitor), each
 * reported allocation counts as the objects and bytes it stands for (GetAllocationWeight: at a
 * sampling interval above 0, a sample of size s stands for about interval/s objects).  Elsewhere
 * it counts as one allocation of its GetObjectSize.  Allocations are counted in thousandths
 * (JP_ALLOCATION_COUNT_SCALE) so that a sample standing for 8.5 objects counts 8.5.
 *
 * Cost on the allocating thread: the stack is taken into a buffer borrowed from a pool, with no
 * lock held; the lock covers borrowing the buffer and, later, the tree insert and returning the
 * buffer.  A class met for the first time is named (ClassInformation) with no lock held.  Allocations reported while jevprof is itself inside a call to the VM on the same
 * thread (the VM allocating for it) are counted and not recorded.
 */
#ifndef JEVPROF_ALLOCATIONS_H
#define JEVPROF_ALLOCATIONS_H

#include <stdatomic.h>

#include "classframes.h"
#include "eventlog.h"
#include "jevmon.h"
#include "names.h"
#include "platform/platform.h"
#include "stacktrace.h"
#include "tree.h"

#define JP_ALLOCATION_COUNT_SCALE 1000u /* the sites tree's weight of one allocation */

typedef struct jp_allocation_counts {
    uint64_t recorded;  /* allocations the VM reported, in the tree */
    uint64_t no_stack;  /* of those, the ones whose stack could not be taken: under "(callers unknown)" */
    uint64_t truncated; /* of those, stacks cut at JP_MAX_STACK_FRAMES */
    uint64_t unsized;   /* of those, the ones GetObjectSize could not size: left out of the bytes */
    uint64_t unweighted; /* of those, the ones GetAllocationWeight could not weigh: counted as one */
    uint64_t nested;    /* made for jevprof's own calls to the VM: not recorded */
    uint64_t failed;    /* not recorded: out of memory */
} jp_allocation_counts;

typedef struct jp_allocations {
    IJavaEventMonitorIDInfo2 *info; /* not owned */
    IJevmonAllocationSampling *sampling; /* owned; NULL when the VM does not say how it samples */
    DWORD interval;                 /* the VM's sampling interval in bytes (0: every allocation) */
    jp_class_frames *classes;       /* not owned: the frames of the classes */
    plat_mutex *lock;               /* guards everything below */
    int stopped;
    jp_stack_trace **spare;         /* stack buffers not in use */
    size_t spare_count, spare_capacity;
    jp_tree sites;                  /* weights: allocations, in JP_ALLOCATION_COUNT_SCALE units */
    jp_tree bytes;                  /* the same paths; weights: bytes */
    jp_event_log events;            /* each event's thread and time, its node in sites */
    jp_allocation_counts counts;
} jp_allocations;

/* sampling: the VM's IJevmonAllocationSampling (AddRef'd here), or NULL. */
int jp_allocations_init(jp_allocations *a, IJavaEventMonitorIDInfo2 *info, jp_class_frames *classes,
                        IJevmonAllocationSampling *sampling);
/* Are the totals estimates: allocations sampled at an interval above 0, and weighted? */
int jp_allocations_estimated(const jp_allocations *a);
void jp_allocations_free(jp_allocations *a);

/* OnObjectAllocated, on the allocating thread. */
void jp_allocations_record(jp_allocations *a, ObjectID object, ClassID klass);
/* Any other event ending in klass, on its thread: its stack, weighted first in the sites tree and
 * second in the bytes tree. */
void jp_allocations_record_weights(jp_allocations *a, ClassID klass, uint64_t first, uint64_t second);

/* The end: nothing is recorded afterwards; the roots of sites and bytes hold the sums. */
void jp_allocations_stop(jp_allocations *a);
/* The start command after a stop: recording goes on into empty trees and counts.  0, or -1 out
 * of memory (still stopped). */
int jp_allocations_restart(jp_allocations *a);

/* Copies the sites and bytes so far into sites and bytes (initialized; roots summed), their log
 * into events (zeroed before, to be freed after) and the counts, while recording goes on (a
 * dump).  0, or -1 out of memory. */
int jp_allocations_snapshot(jp_allocations *a, jp_tree *sites, jp_tree *bytes, jp_event_log *events,
                            jp_allocation_counts *counts);

/* Continuous mode: moves the sites, bytes, their log and counts so far out (roots summed), and
 * goes on into empty trees.  0, or -1 out of memory (nothing moved). */
int jp_allocations_take(jp_allocations *a, jp_tree *sites, jp_tree *bytes, jp_event_log *events,
                        jp_allocation_counts *counts);

#endif /* JEVPROF_ALLOCATIONS_H */
