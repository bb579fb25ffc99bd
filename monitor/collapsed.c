/* collapsed.c - the collapsed-stacks writer (see collapsed.h). */
#include <inttypes.h>

#include "collapsed.h"

typedef struct collapsed_writer {
    FILE *out;
    uint64_t divisor;
    jp_method_namer name;
    void *context;
} collapsed_writer;

static int write_line(const jp_tree *tree, const uint32_t *path, size_t depth, void *context)
{
    collapsed_writer *w = context;
    uint64_t weight = (tree->nodes[path[depth - 1]].self + w->divisor / 2) / w->divisor;
    if (weight == 0)
        return 0;
    for (size_t i = 0; i < depth; i++) {
        if (i)
            fputc(';', w->out);
        fputs(w->name(w->context, tree->nodes[path[i]].method), w->out);
    }
    return fprintf(w->out, " %" PRIu64 "\n", weight) < 0 ? -1 : 0;
}

int jp_collapsed_write(FILE *out, const jp_tree *tree, uint64_t divisor, jp_method_namer name, void *context)
{
    collapsed_writer w = {out, divisor ? divisor : 1, name, context};
    if (jp_tree_walk(tree, write_line, &w))
        return -1;
    return ferror(out) ? -1 : 0;
}
