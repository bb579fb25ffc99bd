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
    uint64_t start;      /* on the running clock (jp_callstack's blocked) */
    uint64_t child_time; /* inclusive time of the frames it called, less their blocked time */
} jp_frame;

/* Finding an entry's node.  A frame remembers the child it entered last: a frame calling one
 * method again (a loop, fib's two calls) finds the node without a lookup.  Else the call order: a
 * program runs the same paths again and again (a server its requests), so the child a frame enters
 * is mostly one its node's frame entered after the same sibling before (or first), and that node
 * lies near the last in memory.  Two are kept, the later first: a loop whose body calls one method
 * or another in turn (a parser's branches) finds both.  Else the index: every node of the tree by
 * (parent, method), open-addressed, each slot holding its key beside its node, so that a lookup
 * reads one slot, not the caller's children (a request's parsing loop calls hundreds of methods).
 * It grows with the tree, at most half full; a node it could not take (out of memory) is found by
 * a walk of the children. */
typedef struct jp_child_slot {
    MethodID method;
    uint32_t parent;
    uint32_t node; /* JP_NO_NODE: an empty slot */
} jp_child_slot;

/* Of one node: the last two different nodes of each, the later first; JP_NO_NODE: none. */
typedef struct jp_call_order {
    uint32_t first[2]; /* the child its frame entered first */
    uint32_t next[2];  /* the sibling its caller entered after it */
} jp_call_order;

typedef struct jp_callstack {
    jp_tree tree;
    jp_frame *frames;
    size_t depth, capacity;
    size_t unrecorded; /* entries beyond what memory allowed, above frames[depth-1] */
    /* Blocked time handed in so far: the running clock is the time less it, so a frame's time on
     * it is its elapsed time less the blocked time inside it, with nothing handed up at each exit. */
    uint64_t blocked;
    jp_child_slot *index;
    unsigned index_bits; /* 2^index_bits slots */
    size_t indexed;      /* slots in use */
    jp_call_order *order; /* by node, for the first order_count nodes */
    uint32_t order_count;
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
/* Empties the tree (its calls folded elsewhere), every frame closed.  0, or -1 out of memory: the
 * tree then records nothing. */
int jp_callstack_empty_tree(jp_callstack *cs);

#endif /* JEVPROF_CALLSTACK_H */
