/* tree.c - the call-path tree shared by call recording and sampling (see tree.h). */
#include <stdlib.h>
#include <string.h>

#include "tree.h"

#define INITIAL_NODES 256u

int jp_tree_init(jp_tree *tree)
{
    tree->nodes = calloc(INITIAL_NODES, sizeof(*tree->nodes));
    if (!tree->nodes)
        return -1;
    tree->capacity = INITIAL_NODES;
    tree->count = 1;
    tree->nodes[JP_ROOT].parent = JP_NO_NODE;
    tree->nodes[JP_ROOT].first_child = JP_NO_NODE;
    tree->nodes[JP_ROOT].next_sibling = JP_NO_NODE;
    return 0;
}

void jp_tree_free(jp_tree *tree)
{
    free(tree->nodes);
    memset(tree, 0, sizeof(*tree));
}

static uint32_t add_node(jp_tree *tree, uint32_t parent, MethodID method, DWORD offset)
{
    if (tree->count == tree->capacity) {
        if (tree->capacity > UINT32_MAX / 2)
            return JP_NO_NODE;
        jp_node *grown = realloc(tree->nodes, (size_t)tree->capacity * 2 * sizeof(*grown));
        if (!grown)
            return JP_NO_NODE;
        tree->nodes = grown;
        tree->capacity *= 2;
    }
    uint32_t index = tree->count++;
    jp_node *node = &tree->nodes[index];
    memset(node, 0, sizeof(*node));
    node->method = method;
    node->offset = offset;
    node->parent = parent;
    node->first_child = JP_NO_NODE;
    node->next_sibling = tree->nodes[parent].first_child;
    tree->nodes[parent].first_child = index;
    return index;
}

static uint32_t find_at(const jp_tree *tree, uint32_t parent, MethodID method, DWORD offset)
{
    if (parent == JP_NO_NODE || !tree->nodes)
        return JP_NO_NODE;
    for (uint32_t child = tree->nodes[parent].first_child; child != JP_NO_NODE; child = tree->nodes[child].next_sibling)
        if (tree->nodes[child].method == method && tree->nodes[child].offset == offset)
            return child;
    return JP_NO_NODE;
}

uint32_t jp_tree_find(const jp_tree *tree, uint32_t parent, MethodID method)
{
    return find_at(tree, parent, method, JP_NO_OFFSET);
}

uint32_t jp_tree_child(jp_tree *tree, uint32_t parent, MethodID method)
{
    return jp_tree_child_at(tree, parent, method, JP_NO_OFFSET);
}

uint32_t jp_tree_child_at(jp_tree *tree, uint32_t parent, MethodID method, DWORD offset)
{
    if (parent == JP_NO_NODE || !tree->nodes)
        return JP_NO_NODE;
    if (method == 0)
        method = JP_UNKNOWN_METHOD;
    jp_node *nodes = tree->nodes;
    uint32_t previous = JP_NO_NODE;
    for (uint32_t i = nodes[parent].first_child; i != JP_NO_NODE; previous = i, i = nodes[i].next_sibling) {
        if (nodes[i].method != method || nodes[i].offset != offset)
            continue;
        if (previous != JP_NO_NODE) {
            nodes[previous].next_sibling = nodes[i].next_sibling;
            nodes[i].next_sibling = nodes[parent].first_child;
            nodes[parent].first_child = i;
        }
        return i;
    }
    return add_node(tree, parent, method, offset);
}

int jp_tree_add_stack(jp_tree *tree, const MethodID *frames, size_t count, uint64_t weight)
{
    return jp_tree_add_located_stack(tree, frames, NULL, count, weight);
}

int jp_tree_add_located_stack(jp_tree *tree, const MethodID *frames, const DWORD *offsets, size_t count,
                              uint64_t weight)
{
    return jp_tree_add_path(tree, frames, offsets, count, weight) == JP_NO_NODE ? -1 : 0;
}

uint32_t jp_tree_add_path(jp_tree *tree, const MethodID *frames, const DWORD *offsets, size_t count, uint64_t weight)
{
    uint32_t node = JP_ROOT;
    for (size_t i = 0; i < count; i++) {
        node = jp_tree_child_at(tree, node, frames[i], offsets ? offsets[i] : JP_NO_OFFSET);
        if (node == JP_NO_NODE)
            return JP_NO_NODE;
        tree->nodes[node].total += weight;
    }
    if (node != JP_ROOT)
        tree->nodes[node].self += weight;
    return node;
}

void jp_tree_add_again(jp_tree *tree, uint32_t node, uint64_t weight)
{
    if (node == JP_ROOT)
        return;
    tree->nodes[node].self += weight;
    for (uint32_t n = node; n != JP_ROOT; n = tree->nodes[n].parent)
        tree->nodes[n].total += weight;
}

int jp_tree_copy(jp_tree *into, const jp_tree *from)
{
    jp_node *nodes = malloc((size_t)(from->count ? from->count : 1) * sizeof(*nodes));
    if (!nodes)
        return -1;
    memcpy(nodes, from->nodes, (size_t)from->count * sizeof(*nodes));
    free(into->nodes);
    into->nodes = nodes;
    into->count = into->capacity = from->count;
    return 0;
}

/* A growable array of node indices, for walks that must not recurse as deep as Java stacks go. */
typedef struct index_stack {
    uint32_t *items;
    size_t count, capacity;
} index_stack;

static int push_index(index_stack *s, uint32_t value)
{
    if (s->count == s->capacity) {
        size_t capacity = s->capacity ? s->capacity * 2 : 64;
        uint32_t *grown = realloc(s->items, capacity * sizeof(*grown));
        if (!grown)
            return -1;
        s->items = grown;
        s->capacity = capacity;
    }
    s->items[s->count++] = value;
    return 0;
}

int jp_tree_merge(jp_tree *into, const jp_tree *from)
{
    /* Pairs (node in from, matching node in into), kept as two parallel stacks. */
    index_stack pending_from = {0}, pending_into = {0};
    int result = 0;
    if (!from->nodes || from->count == 0)
        return 0;
    if (push_index(&pending_from, JP_ROOT) || push_index(&pending_into, JP_ROOT))
        result = -1;
    while (result == 0 && pending_from.count > 0) {
        uint32_t f = pending_from.items[--pending_from.count];
        uint32_t t = pending_into.items[--pending_into.count];
        for (uint32_t c = from->nodes[f].first_child; c != JP_NO_NODE; c = from->nodes[c].next_sibling) {
            const jp_node *source = &from->nodes[c];
            uint32_t target = jp_tree_child_at(into, t, source->method, source->offset);
            if (target == JP_NO_NODE || push_index(&pending_from, c) || push_index(&pending_into, target)) {
                result = -1;
                break;
            }
            into->nodes[target].calls += source->calls;
            into->nodes[target].self += source->self;
            into->nodes[target].total += source->total;
        }
    }
    free(pending_from.items);
    free(pending_into.items);
    return result;
}

int jp_tree_by_method(jp_tree *into, const jp_tree *from)
{
    if (!from->nodes || !into->nodes)
        return -1;
    /* Parents come before their children (lower indices); where[i]: the node of into of from's node i. */
    uint32_t *where = malloc((size_t)from->count * sizeof(*where));
    if (!where)
        return -1;
    where[JP_ROOT] = JP_ROOT;
    into->nodes[JP_ROOT].calls = from->nodes[JP_ROOT].calls;
    into->nodes[JP_ROOT].self = from->nodes[JP_ROOT].self;
    into->nodes[JP_ROOT].total = from->nodes[JP_ROOT].total;
    int result = 0;
    for (uint32_t i = 1; i < from->count; i++) {
        const jp_node *node = &from->nodes[i];
        if ((where[i] = jp_tree_child(into, where[node->parent], node->method)) == JP_NO_NODE) {
            result = -1;
            break;
        }
        into->nodes[where[i]].calls += node->calls;
        into->nodes[where[i]].self += node->self;
        into->nodes[where[i]].total += node->total;
    }
    free(where);
    return result;
}

/* Fills weight[i] (count entries, zeroed) with node i's total, or its children's weights summed
 * when more: a frame still open at a dump has no total of its own yet, but its finished calls have
 * theirs.  weight[JP_ROOT] gets the children's sum. */
static void path_weights(const jp_tree *tree, uint64_t *weight)
{
    for (uint32_t i = tree->count; i-- > 1;) {
        if (weight[i] < tree->nodes[i].total)
            weight[i] = tree->nodes[i].total;
        weight[tree->nodes[i].parent] += weight[i];
    }
}

void jp_tree_sum_root(jp_tree *tree)
{
    if (!tree->nodes)
        return;
    jp_node *root = &tree->nodes[JP_ROOT];
    uint64_t *weight = calloc(tree->count, sizeof(*weight));
    root->total = root->calls = 0;
    for (uint32_t c = root->first_child; c != JP_NO_NODE; c = tree->nodes[c].next_sibling) {
        root->total += tree->nodes[c].total; /* without memory, open frames count as nothing */
        root->calls += tree->nodes[c].calls;
    }
    if (weight) {
        path_weights(tree, weight);
        root->total = weight[JP_ROOT];
        free(weight);
    }
}

void jp_tree_scale(jp_tree *tree, double factor)
{
    for (uint32_t i = 0; tree->nodes && i < tree->count; i++) {
        /* rounded, not truncated: sums of many nodes (a folded path's total against its nodes' self
         * weights) then differ by a few units rather than by one per node.  The factor is measured
         * (ticks into nanoseconds): where x87 keeps extra bits (FLT_EVAL_METHOD 2), a product
         * within a hair of a half may round the other way, one unit inside the factor's own error */
        tree->nodes[i].self = (uint64_t)((double)tree->nodes[i].self * factor + 0.5);
        tree->nodes[i].total = (uint64_t)((double)tree->nodes[i].total * factor + 0.5);
    }
}

uint64_t jp_tree_share(uint64_t whole, double percent)
{
    /* whole * percent / 100 in doubles truncated differently where x87 extended precision is used
     * (FLT_EVAL_METHOD 2: MinGW on x86): 0.03% of 10000 came out 2 there, 3 elsewhere.  The
     * percent becomes parts per billion first, rounded to the nearest (a setting's few decimals
     * are nowhere near a half), then the rest is exact. */
    const uint64_t billion = 1000000000;
    uint64_t parts = (uint64_t)(percent * 1e7 + 0.5);
    return whole / billion * parts + whole % billion * parts / billion;
}

/* jp_tree_fold, keeping what is at least min_total, or (shape not NULL) what shape keeps. */
static int fold(jp_tree *into, const jp_tree *from, uint64_t min_total, const jp_tree *shape)
{
    if (!from->nodes || !into->nodes || (shape && !shape->nodes))
        return -1;
    /* A node's parent always has a lower index (nodes are only appended), so one pass in index
     * order sees every parent first.  where[i]: the node of into that node i is, or is folded into;
     * shaped[i]: the node of shape with node i's path by method. */
    uint32_t *where = malloc((size_t)from->count * sizeof(*where));
    uint32_t *shaped = shape ? malloc((size_t)from->count * sizeof(*shaped)) : NULL;
    unsigned char *kept = calloc(from->count, 1);
    uint64_t *weight = calloc(from->count, sizeof(*weight)); /* path_weights */
    int result = where && kept && weight && (shaped || !shape) ? 0 : -1;
    if (result == 0)
        path_weights(from, weight);
    if (result == 0) {
        if (shaped)
            shaped[JP_ROOT] = JP_ROOT;
        where[JP_ROOT] = JP_ROOT;
        kept[JP_ROOT] = 1;
        into->nodes[JP_ROOT].calls = from->nodes[JP_ROOT].calls;
        into->nodes[JP_ROOT].self = from->nodes[JP_ROOT].self;
        into->nodes[JP_ROOT].total = from->nodes[JP_ROOT].total;
    }
    for (uint32_t i = 1; result == 0 && i < from->count; i++) {
        const jp_node *node = &from->nodes[i];
        uint32_t parent = where[node->parent];
        if (shaped)
            shaped[i] = jp_tree_find(shape, shaped[node->parent], node->method);
        int keep = shaped ? shaped[i] != JP_NO_NODE : weight[i] >= min_total || node->parent == JP_ROOT;
        if (kept[node->parent] && keep) {
            uint32_t copy = add_node(into, parent, node->method, node->offset);
            if (copy == JP_NO_NODE) {
                result = -1;
                break;
            }
            into->nodes[copy].calls = node->calls;
            into->nodes[copy].self = node->self;
            into->nodes[copy].total = node->total;
            where[i] = copy;
            kept[i] = 1;
        } else {
            uint32_t folded = parent;
            if (kept[node->parent]) { /* the outermost node of a folded path carries its whole weight */
                folded = find_at(into, parent, JP_FOLDED_PATHS, JP_NO_OFFSET);
                if (folded == JP_NO_NODE && (folded = add_node(into, parent, JP_FOLDED_PATHS, JP_NO_OFFSET)) == JP_NO_NODE) {
                    result = -1;
                    break;
                }
                into->nodes[folded].self += weight[i];
                into->nodes[folded].total += weight[i];
            }
            into->nodes[folded].calls += node->calls; /* and every call made in it */
            where[i] = folded;
        }
    }
    free(where);
    free(shaped);
    free(kept);
    free(weight);
    return result;
}

int jp_tree_fold(jp_tree *into, const jp_tree *from, uint64_t min_total)
{
    return fold(into, from, min_total, NULL);
}

int jp_tree_fold_as(jp_tree *into, const jp_tree *from, const jp_tree *shape)
{
    return fold(into, from, 0, shape);
}

static uint64_t grown_by(uint64_t later, uint64_t earlier)
{
    return later > earlier ? later - earlier : 0;
}

int jp_tree_difference(jp_tree *into, const jp_tree *later, const jp_tree *earlier)
{
    if (!later->nodes || !into->nodes)
        return -1;
    /* Parents come before their children (lower indices) in both trees.  match[i]: the node of
     * earlier with the path of later's node i; copy[i]: its node in into. */
    uint32_t *match = malloc((size_t)later->count * sizeof(*match));
    uint32_t *copy = malloc((size_t)later->count * sizeof(*copy));
    unsigned char *grew = calloc(later->count, 1);
    int result = match && copy && grew ? 0 : -1;
    if (result == 0)
        match[JP_ROOT] = earlier->nodes ? JP_ROOT : JP_NO_NODE, copy[JP_ROOT] = JP_ROOT;
    for (uint32_t i = 1; result == 0 && i < later->count; i++) {
        const jp_node *node = &later->nodes[i];
        match[i] = find_at(earlier, match[node->parent], node->method, node->offset);
        const jp_node *before = match[i] == JP_NO_NODE ? NULL : &earlier->nodes[match[i]];
        grew[i] = !before || node->calls > before->calls || node->self > before->self || node->total > before->total;
        grew[i] &= node->calls || node->self || node->total;
    }
    for (uint32_t i = later->count; result == 0 && i-- > 1;) /* a path that grew keeps its callers */
        grew[later->nodes[i].parent] |= grew[i];
    for (uint32_t i = 1; result == 0 && i < later->count; i++) {
        if (!grew[i])
            continue;
        const jp_node *node = &later->nodes[i];
        const jp_node *before = match[i] == JP_NO_NODE ? NULL : &earlier->nodes[match[i]];
        if ((copy[i] = add_node(into, copy[node->parent], node->method, node->offset)) == JP_NO_NODE) {
            result = -1;
            break;
        }
        jp_node *added = &into->nodes[copy[i]];
        added->calls = before ? grown_by(node->calls, before->calls) : node->calls;
        added->self = before ? grown_by(node->self, before->self) : node->self;
        added->total = before ? grown_by(node->total, before->total) : node->total;
    }
    free(match), free(copy), free(grew);
    if (result == 0)
        jp_tree_sum_root(into);
    return result;
}

int jp_tree_walk(const jp_tree *tree, jp_tree_visitor visit, void *context)
{
    index_stack path = {0};
    int result = 0;
    if (!tree->nodes)
        return 0;
    uint32_t node = tree->nodes[JP_ROOT].first_child;
    while (node != JP_NO_NODE && result == 0) {
        if (push_index(&path, node)) {
            result = -1;
            break;
        }
        result = visit(tree, path.items, path.count, context);
        if (result)
            break;
        /* Next: the first child, else the next sibling of the nearest node that has one. */
        if (tree->nodes[node].first_child != JP_NO_NODE) {
            node = tree->nodes[node].first_child;
            continue;
        }
        node = JP_NO_NODE;
        while (path.count > 0 && node == JP_NO_NODE)
            node = tree->nodes[path.items[--path.count]].next_sibling;
    }
    free(path.items);
    return result;
}
