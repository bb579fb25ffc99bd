/*
 * flame.h - a self-contained HTML flame graph: one file with its data, script and style
 * inline and no reference to anything outside it, so it opens offline from anywhere.
 * Click a frame to zoom to it (click a frame below it to zoom out); the search box
 * highlights the frames whose names contain the text and shows their share.
 */
#ifndef JEVPROF_FLAME_H
#define JEVPROF_FLAME_H

#include <stdio.h>

#include "javaname.h"
#include "tree.h"

/* title: shown at the top (escaped here); unit: what the weights count ("samples", "us").
 * 0, or -1 on a write error or out of memory. */
int jp_flame_write(FILE *out, const jp_tree *tree, const char *title, const char *unit, uint64_t divisor,
                   jp_method_namer name, void *context);

#endif /* JEVPROF_FLAME_H */
