/* rollup.c - per-method totals of a tree (see rollup.h). */
#include <stdlib.h>
#include <string.h>

#include "idmap.h"
#include "rollup.h"

typedef struct builder {
    jp_rollup *rollup;
    size_t capacity;
    jp_idmap index; /* MethodID -> 1 + its position in rollup->methods */
} builder;

static jp_method_stats *stats_of(builder *b, MethodID method)
{
    jp_idmap_entry *e = jp_idmap_insert(&b->index, method);
    if (!e)
        return NULL;
    if (!e->value) {
        if (b->rollup->count == b->capacity) {
            size_t capacity = b->capacity ? b->capacity * 2 : 64;
            jp_method_stats *grown = realloc(b->rollup->methods, capacity * sizeof(*grown));
            if (!grown)
                return NULL;
            b->rollup->methods = grown;
            b->capacity = capacity;
        }
        jp_method_stats *s = &b->rollup->methods[b->rollup->count++];
        memset(s, 0, sizeof(*s));
        s->method = method;
        e->value = b->rollup->count;
    }
    return &b->rollup->methods[e->value - 1];
}

/* A node the walk is inside, and its method's stats (by position): one lookup per node. */
typedef struct open_node {
    uint32_t node;
    size_t stats;
} open_node;

int jp_rollup_build(jp_rollup *rollup, const jp_tree *tree)
{
    builder b = {rollup, 0, {0}};
    open_node *path = NULL;
    size_t depth = 0, path_capacity = 0;
    int result = 0;
    memset(rollup, 0, sizeof(*rollup));
    uint32_t node = tree->nodes ? tree->nodes[JP_ROOT].first_child : JP_NO_NODE;
    while (node != JP_NO_NODE) {
        const jp_node *n = &tree->nodes[node];
        jp_method_stats *s = stats_of(&b, n->method);
        if (s && depth == path_capacity) {
            size_t capacity = path_capacity * 2 + 64;
            open_node *grown = realloc(path, capacity * sizeof(*grown));
            path = grown ? grown : path;
            path_capacity = grown ? capacity : path_capacity;
        }
        if (!s || depth == path_capacity) {
            result = -1;
            break;
        }
        s->calls += n->calls;
        s->self += n->self;
        if (s->on_path++ == 0)
            s->total += n->total;
        path[depth++] = (open_node){node, (size_t)(s - rollup->methods)};
        if (n->first_child != JP_NO_NODE) {
            node = n->first_child;
            continue;
        }
        /* Leave finished nodes until one has a next sibling. */
        node = JP_NO_NODE;
        while (depth > 0 && node == JP_NO_NODE) {
            const open_node *done = &path[--depth];
            rollup->methods[done->stats].on_path--;
            node = tree->nodes[done->node].next_sibling;
        }
    }
    free(path);
    jp_idmap_free(&b.index);
    if (result)
        jp_rollup_free(rollup);
    return result;
}

int jp_rollup_build_by_parent(jp_rollup *rollup, const jp_tree *tree)
{
    builder b = {rollup, 0, {0}};
    int result = 0;
    memset(rollup, 0, sizeof(*rollup));
    for (uint32_t i = 1; i < tree->count && result == 0; i++) {
        const jp_node *n = &tree->nodes[i];
        jp_method_stats *s = n->self && n->parent != JP_ROOT ? stats_of(&b, tree->nodes[n->parent].method) : NULL;
        if (s) {
            s->self += n->self;
            s->total += n->self;
        } else if (n->self && n->parent != JP_ROOT) {
            result = -1;
        }
    }
    jp_idmap_free(&b.index);
    if (result)
        jp_rollup_free(rollup);
    return result;
}

void jp_rollup_free(jp_rollup *rollup)
{
    free(rollup->methods);
    memset(rollup, 0, sizeof(*rollup));
}

static int by_self(const void *a, const void *b)
{
    const jp_method_stats *x = a, *y = b;
    if (x->self != y->self)
        return x->self < y->self ? 1 : -1;
    return x->total < y->total ? 1 : x->total > y->total ? -1 : 0;
}

static int by_total(const void *a, const void *b)
{
    const jp_method_stats *x = a, *y = b;
    if (x->total != y->total)
        return x->total < y->total ? 1 : -1;
    return x->self < y->self ? 1 : x->self > y->self ? -1 : 0;
}

void jp_rollup_sort_by_self(jp_rollup *rollup)
{
    if (rollup->count > 1)
        qsort(rollup->methods, rollup->count, sizeof(*rollup->methods), by_self);
}

void jp_rollup_sort_by_total(jp_rollup *rollup)
{
    if (rollup->count > 1)
        qsort(rollup->methods, rollup->count, sizeof(*rollup->methods), by_total);
}
