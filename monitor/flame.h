/*
 * flame.h - a self-contained HTML flame graph: one file with its data, script and style
 * inline and no reference to anything outside it, so it opens offline from anywhere.
 * Three views: icicle (the outermost frame on top), flame (at the bottom) and reversed (each
 * frame's self weight under its callers in turn: who calls the hottest frames).  Click a frame to
 * zoom to it (click a caller to zoom out); the search box highlights the frames whose names
 * contain the text and shows their share; frames are coloured by what the VM says they are.
 */
#ifndef JEVPROF_FLAME_H
#define JEVPROF_FLAME_H

#include <stdio.h>

#include "javaname.h"
#include "tree.h"

/* What the page says (escaped here): title and subtitle (the totals, the interval) at the top;
 * unit, what the weights count ("samples", "us"). */
typedef struct jp_flame_labels {
    const char *title, *subtitle, *unit;
} jp_flame_labels;

/* Frames are coloured by kind (kind may be NULL: all JP_FRAME_OTHER).  0, or -1 on a write
 * error or out of memory. */
int jp_flame_write(FILE *out, const jp_tree *tree, const jp_flame_labels *labels, uint64_t divisor,
                   jp_method_namer name, jp_method_kinder kind, void *context);

#endif /* JEVPROF_FLAME_H */
