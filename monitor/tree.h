/*
 * tree.h - a tree of call paths (a trie of MethodIDs) with weights per node.
 *
 * One structure serves both modes: a per-thread call tree (calls, inclusive and exclusive
 * nanoseconds) and the sampler's stack profile (samples).  A node is a method at a bytecode
 * offset: the sampler's frames carry theirs where the VM gives them (pprof's source lines), every
 * other frame has JP_NO_OFFSET; jp_tree_by_method gives the same paths by method alone, as the
 * report, collapsed stacks and flame graphs show them.  Node 0 is the root; it stands
 * for "all frames" and carries no method.  Nodes live in one array addressed by index, so
 * growing it (by doubling, the only allocation) never invalidates what callers hold, and a
 * thread in its steady state allocates nothing.
 */
#ifndef JEVPROF_TREE_H
#define JEVPROF_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "jevmon.h"

#define JP_ROOT 0u
#define JP_NO_NODE UINT32_MAX /* a node that could not be allocated; its subtree is not recorded */

/* Frames without a usable MethodID.  The tree never holds 0 (the tables keyed by MethodID
 * cannot), so a frame the VM reported as 0 is recorded as JP_UNKNOWN_METHOD; a sample that
 * knows its method but not its callers hangs under JP_UNKNOWN_CALLERS, so that it does not
 * look like an outermost frame. */
#define JP_UNKNOWN_METHOD ((MethodID)-2)
#define JP_UNKNOWN_CALLERS ((MethodID)-1)
/* What folding (jp_tree_fold) leaves of the small paths below a frame: one child of it, named so,
 * that holds their weight, so a profile never shows a frame doing what its callees did. */
#define JP_FOLDED_PATHS ((MethodID)-3)

#define JP_NO_OFFSET ((DWORD)JEVMON_NO_PC_OFFSET) /* a frame whose bytecode offset is not known */

typedef struct jp_node {
    MethodID method;
    DWORD offset;   /* the bytecode offset the frame was at (a caller: its call), or JP_NO_OFFSET */
    uint32_t parent;
    uint32_t first_child;
    uint32_t next_sibling;
    uint64_t calls; /* times the frame was entered (call mode) */
    uint64_t self;  /* exclusive weight: nanoseconds or samples */
    uint64_t total; /* inclusive weight */
} jp_node;

typedef struct jp_tree {
    jp_node *nodes;
    uint32_t count;
    uint32_t capacity;
} jp_tree;

/* 0 on success, -1 when out of memory. */
int jp_tree_init(jp_tree *tree);
void jp_tree_free(jp_tree *tree);

/* The child of parent for method (0 is taken as JP_UNKNOWN_METHOD) at no offset, added when missing; JP_NO_NODE when parent is JP_NO_NODE or
 * memory runs out.  A found child moves to the front of its siblings, so hot calls are found first. */
uint32_t jp_tree_child(jp_tree *tree, uint32_t parent, MethodID method);
/* The same for method at offset. */
uint32_t jp_tree_child_at(jp_tree *tree, uint32_t parent, MethodID method, DWORD offset);

/* The child of parent for method at no offset, or JP_NO_NODE (nothing is added or moved). */
uint32_t jp_tree_find(const jp_tree *tree, uint32_t parent, MethodID method);

/* Adds one stack, outermost frame first: total += weight along the path, self += weight at its end. */
int jp_tree_add_stack(jp_tree *tree, const MethodID *frames, size_t count, uint64_t weight);
/* The same with each frame's offset (offsets[i] for frames[i]; NULL: none known). */
int jp_tree_add_located_stack(jp_tree *tree, const MethodID *frames, const DWORD *offsets, size_t count,
                              uint64_t weight);

/* The same, returning the node of the stack's innermost frame (the root for no frame), or JP_NO_NODE
 * out of memory. */
uint32_t jp_tree_add_path(jp_tree *tree, const MethodID *frames, const DWORD *offsets, size_t count, uint64_t weight);

/* Adds weight to the stack that ends at node (a node jp_tree_add_path returned): total += weight
 * along its path, self += weight at node, as adding that stack again would. */
void jp_tree_add_again(jp_tree *tree, uint32_t node, uint64_t weight);

/* Makes into (initialized, or zeroed) a copy of from, node for node: the same indices, so that
 * what names from's nodes (eventlog.h) names into's.  0, or -1 out of memory (into unchanged). */
int jp_tree_copy(jp_tree *into, const jp_tree *from);

/* Fills into (initialized and empty) with the paths of from by method alone: nodes whose paths
 * differ only in offsets become one, their weights and calls summed; the root's are copied.
 * 0, or -1 out of memory. */
int jp_tree_by_method(jp_tree *into, const jp_tree *from);

/* Adds every node of from to the node with the same path in into.  0, or -1 out of memory. */
int jp_tree_merge(jp_tree *into, const jp_tree *from);

/* The root's weights, which nothing records directly: the sums over its children (a child's total
 * is its own, or its children's when more: a frame still open at a dump has none of its own yet). */
void jp_tree_sum_root(jp_tree *tree);

/* Multiplies every node's self and total by factor, rounded (call mode: clock ticks into nanoseconds). */
void jp_tree_scale(jp_tree *tree, double factor);

/* The weight that is percent (0 to 100) of whole, rounded down, in integer arithmetic: the folding
 * threshold of a share setting (JEVPROF_MIN_SHARE), the same on every target. */
uint64_t jp_tree_share(uint64_t whole, double percent);

/* Fills into (initialized and empty) with the paths of from whose total weight is at least
 * min_total, and every outermost frame: a path below that is folded into its caller's
 * JP_FOLDED_PATHS child, whose self weight takes the path's total, so that the self weights
 * still add up to the root's total, and whose calls take the calls made in the path, so that the
 * calls do too.  A path's total is
 * its node's, or its children's when more (a frame still open at a dump has none of its own
 * yet).  min_total 0 keeps every path.  The root's weights are copied.  0, or -1 out of memory. */
int jp_tree_fold(jp_tree *into, const jp_tree *from, uint64_t min_total);
/* The same, keeping the paths of from (frames at offsets) whose paths by method shape (from by
 * method, folded: jp_tree_by_method, jp_tree_fold) kept: from folded as shape was.  0, or -1. */
int jp_tree_fold_as(jp_tree *into, const jp_tree *from, const jp_tree *shape);

/* Fills into (initialized and empty) with what later holds beyond earlier, path by path: each
 * node's calls, self and total less those of earlier's node with the same path (none below
 * zero), keeping only the paths that grew (and their callers).  Both count the same things in
 * the same units, later taken after earlier from a recording that only adds (continuous mode's
 * call trees).  The root is summed.  0, or -1 out of memory. */
int jp_tree_difference(jp_tree *into, const jp_tree *later, const jp_tree *earlier);

/* Depth-first walk, parents before children.  path[0..depth-1] are the node indices from the
 * root's child down to the node.  Returns the visitor's first non-zero result, or 0. */
typedef int (*jp_tree_visitor)(const jp_tree *tree, const uint32_t *path, size_t depth, void *context);
int jp_tree_walk(const jp_tree *tree, jp_tree_visitor visit, void *context);

#endif /* JEVPROF_TREE_H */
