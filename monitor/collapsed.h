/*
 * collapsed.h - the collapsed-stacks format of Brendan Gregg's FlameGraph (also read by
 * speedscope): one line per call path with self weight, "root;caller;callee weight".
 */
#ifndef JEVPROF_COLLAPSED_H
#define JEVPROF_COLLAPSED_H

#include <stdio.h>

#include "javaname.h"
#include "tree.h"

/* Writes every node with self weight, its weight divided by divisor (1 for samples, 1000 for
 * nanoseconds as microseconds) and rounded; lines that round to 0 are left out.
 * 0, or -1 on a write error or out of memory. */
int jp_collapsed_write(FILE *out, const jp_tree *tree, uint64_t divisor, jp_method_namer name, void *context);

#endif /* JEVPROF_COLLAPSED_H */
