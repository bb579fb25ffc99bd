/*
 * rollup.h - per-method totals of a call-path tree, for the report's top-methods tables.
 *
 * A method's self weight and calls are the sums over its nodes; its total weight counts each
 * path once, at the outermost node of the method on it, so recursion is not counted twice.
 */
#ifndef JEVPROF_ROLLUP_H
#define JEVPROF_ROLLUP_H

#include "tree.h"

typedef struct jp_method_stats {
    MethodID method;
    uint64_t calls, self, total;
    uint32_t on_path; /* while building: how many nodes of the method the walk is inside */
} jp_method_stats;

typedef struct jp_rollup {
    jp_method_stats *methods;
    size_t count;
} jp_rollup;

/* 0, or -1 when out of memory. */
int jp_rollup_build(jp_rollup *rollup, const jp_tree *tree);
/* Per method, the self weight of its nodes' children, as self and total; methods whose
 * children have none are left out.  In the allocation tree, whose weight is all in the class
 * frames, that is what each method allocated itself.  0, or -1 when out of memory. */
int jp_rollup_build_by_parent(jp_rollup *rollup, const jp_tree *tree);
void jp_rollup_free(jp_rollup *rollup);
void jp_rollup_sort_by_self(jp_rollup *rollup);
void jp_rollup_sort_by_total(jp_rollup *rollup);

#endif /* JEVPROF_ROLLUP_H */
