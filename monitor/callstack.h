/*
 * callstack.h - one thread's shadow stack of the frames it is in, recording into its call tree.
 *
 * An entry pushes a frame of its method; an exit names the method leaving (the bridge's call
 * records, docs/call-batches.md), so it ends the innermost open frame of that method and every
 * frame above it: frames that left unseen (a constructor whose super() threw) end with it.  An
 * exit that matches no open frame is of a frame entered before recording began.  Times are passed
 * in, in any one unit (calls.c passes the records' time-stamp counter), so the structure is pure
 * and a thread's steady state allocates nothing.
 *
 * Time the thread spent blocked (calls.c finds it: see calls.h) is handed in as it is found and
 * belongs to the innermost open frame; a frame's recorded time is its elapsed time less the
 * blocked time inside it (its own and its callees'), so the tree holds time on the processor.
 */
#ifndef JEVPROF_CALLSTACK_H
#define JEVPROF_CALLSTACK_H

#include "tree.h"

typedef struct jp_frame {
    MethodID method;     /* what it runs: an exit names it */
    uint32_t node;       /* in the tree; JP_NO_NODE when the frame is not recorded */
    uint32_t last_child; /* the node of the method it called last; JP_NO_NODE before its first call */
    MethodID last_method;
    uint64_t start;
    uint64_t child_time; /* inclusive time of the frames it called, less their blocked time */
    uint64_t blocked;    /* blocked time inside the frame so far, its callees' included */
} jp_frame;

/* A frame remembers the child it entered last: a frame calling one method again (a loop, fib's two
 * calls) finds the node without a lookup.  Else a direct-mapped cache of the tree's children by
 * (parent, method): an entry finds its node with one probe instead of a walk of the caller's
 * children (a method calling many, as a request's parsing loop does, had each entry walk them).
 * Each slot is checked against the node it names, so a slot left over from a tree since emptied
 * is only a miss.  A frame's memory needs no such check: no frame outlives its tree. */
#define JP_CHILD_CACHE_BITS 10

typedef struct jp_callstack {
    jp_tree tree;
    jp_frame *frames;
    size_t depth, capacity;
    size_t unrecorded; /* entries beyond what memory allowed, above frames[depth-1] */
    uint32_t *children; /* 2^JP_CHILD_CACHE_BITS node indices (UINT32_MAX: empty) */
} jp_callstack;

int jp_callstack_init(jp_callstack *cs);
void jp_callstack_free(jp_callstack *cs);

void jp_callstack_enter(jp_callstack *cs, MethodID method, uint64_t now);
/* method left (returned, or an exception left it): ends the innermost open frame of method and
 * every frame above it.  Nothing when no open frame is of method. */
void jp_callstack_leave(jp_callstack *cs, MethodID method, uint64_t now);
/* The thread was blocked for this long in its innermost open frame (nothing when none is open). */
void jp_callstack_blocked(jp_callstack *cs, uint64_t blocked);
/* Ends every open frame at now (the thread ended, or the program is ending). */
void jp_callstack_close(jp_callstack *cs, uint64_t now);

#endif /* JEVPROF_CALLSTACK_H */
