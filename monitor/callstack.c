/* callstack.c - a thread's shadow stack over its call tree (see callstack.h). */
#include <stdlib.h>
#include <string.h>

#include "callstack.h"

#define INITIAL_FRAMES 256u
#define INITIAL_INDEX_BITS 10u

static void clear_index(jp_callstack *cs)
{
    for (size_t i = 0; i < (size_t)1 << cs->index_bits; i++)
        cs->index[i].node = JP_NO_NODE;
    cs->indexed = 0;
}

/* The call order of nodes from.. forgotten. */
static void forget_order(jp_callstack *cs, uint32_t from)
{
    for (uint32_t node = from; node < cs->order_count; node++)
        cs->order[node] = (jp_call_order){{JP_NO_NODE, JP_NO_NODE}, {JP_NO_NODE, JP_NO_NODE}};
}

/* A call order for every node the tree can hold; a tree that outgrows it (out of memory) finds
 * its later nodes' children by lookups. */
static void extend_order(jp_callstack *cs)
{
    uint32_t from = cs->order_count;
    jp_call_order *grown = realloc(cs->order, (size_t)cs->tree.capacity * sizeof(*grown));
    if (!grown)
        return;
    cs->order = grown;
    cs->order_count = cs->tree.capacity;
    forget_order(cs, from);
}

int jp_callstack_init(jp_callstack *cs)
{
    memset(cs, 0, sizeof(*cs));
    cs->frames = malloc(INITIAL_FRAMES * sizeof(*cs->frames));
    cs->index = malloc(sizeof(*cs->index) << INITIAL_INDEX_BITS);
    if (!cs->frames || !cs->index || jp_tree_init(&cs->tree)) {
        free(cs->frames);
        free(cs->index);
        cs->frames = NULL;
        cs->index = NULL;
        return -1;
    }
    cs->index_bits = INITIAL_INDEX_BITS;
    clear_index(cs);
    extend_order(cs);
    cs->capacity = INITIAL_FRAMES;
    return 0;
}

void jp_callstack_free(jp_callstack *cs)
{
    jp_tree_free(&cs->tree);
    free(cs->frames);
    free(cs->index);
    free(cs->order);
    memset(cs, 0, sizeof(*cs));
}

int jp_callstack_empty_tree(jp_callstack *cs)
{
    jp_tree_free(&cs->tree);
    clear_index(cs);
    forget_order(cs, 0);
    return jp_tree_init(&cs->tree);
}

/* The first slot to probe for (parent, method). */
static inline size_t index_home(const jp_callstack *cs, uint32_t parent, MethodID method)
{
    uint64_t key = ((uint64_t)parent << 32 ^ (uint64_t)method) * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(key >> (64 - cs->index_bits));
}

static void index_put(jp_callstack *cs, uint32_t parent, MethodID method, uint32_t node)
{
    size_t mask = ((size_t)1 << cs->index_bits) - 1;
    size_t i = index_home(cs, parent, method);
    while (cs->index[i].node != JP_NO_NODE)
        i = (i + 1) & mask;
    cs->index[i] = (jp_child_slot){method, parent, node};
    cs->indexed++;
}

/* An index of twice the tree's nodes or more, holding every node; -1 out of memory (the index
 * unchanged). */
static int grow_index(jp_callstack *cs)
{
    unsigned bits = cs->index_bits + 1;
    while (((size_t)1 << bits) < (size_t)cs->tree.count * 2)
        bits++;
    jp_child_slot *grown = malloc(sizeof(*grown) << bits);
    if (!grown)
        return -1;
    free(cs->index);
    cs->index = grown;
    cs->index_bits = bits;
    clear_index(cs);
    for (uint32_t node = 1; node < cs->tree.count; node++) /* the root is no one's child */
        index_put(cs, cs->tree.nodes[node].parent, cs->tree.nodes[node].method, node);
    return 0;
}

/* The child of parent for method that the index does not hold: the tree's (found or added), put
 * in the index, which stays at most half full: grown, or when it cannot grow the node is left to
 * a walk of the children. */
static uint32_t add_child(jp_callstack *cs, uint32_t parent, MethodID method)
{
    uint32_t node = jp_tree_child(&cs->tree, parent, method);
    if (node == JP_NO_NODE)
        return node;
    if (cs->order_count < cs->tree.capacity)
        extend_order(cs);
    if ((cs->indexed + 1) * 2 <= (size_t)1 << cs->index_bits)
        index_put(cs, parent, method, node);
    else
        grow_index(cs); /* puts this node too */
    return node;
}

/* The child of parent for method: the index's, else add_child's. */
static inline uint32_t child_of(jp_callstack *cs, uint32_t parent, MethodID method)
{
    if (parent == JP_NO_NODE)
        return JP_NO_NODE;
    if (method == 0)
        method = JP_UNKNOWN_METHOD; /* as the tree records it */
    size_t mask = ((size_t)1 << cs->index_bits) - 1;
    for (size_t i = index_home(cs, parent, method);; i = (i + 1) & mask) {
        const jp_child_slot *slot = &cs->index[i];
        if (slot->node == JP_NO_NODE)
            break;
        if (slot->parent == parent && slot->method == method)
            return slot->node;
    }
    return add_child(cs, parent, method);
}

/* The child of the caller's node for method, its call order tried first (see callstack.h). */
static inline uint32_t next_child(jp_callstack *cs, const jp_frame *caller, MethodID method)
{
    int first = caller->last_child == JP_NO_NODE;
    uint32_t after = first ? caller->node : caller->last_child;
    if (after >= cs->order_count) /* JP_NO_NODE, or beyond what memory allowed */
        return child_of(cs, caller->node, method);
    MethodID wanted = method ? method : JP_UNKNOWN_METHOD;
    uint32_t *guesses = first ? cs->order[after].first : cs->order[after].next;
    /* The order was made under the same caller: only the method can differ. */
    if (guesses[0] != JP_NO_NODE && cs->tree.nodes[guesses[0]].method == wanted)
        return guesses[0];
    uint32_t node = guesses[1];
    if (node == JP_NO_NODE || cs->tree.nodes[node].method != wanted) {
        node = child_of(cs, caller->node, method); /* may move the order (a node added) */
        guesses = first ? cs->order[after].first : cs->order[after].next;
    }
    guesses[1] = guesses[0];
    guesses[0] = node;
    return node;
}

void jp_callstack_enter(jp_callstack *cs, MethodID method, uint64_t now)
{
    if (cs->unrecorded == 0 && cs->depth == cs->capacity) {
        jp_frame *grown = realloc(cs->frames, cs->capacity * 2 * sizeof(*grown));
        if (grown) {
            cs->frames = grown;
            cs->capacity *= 2;
        }
    }
    if (cs->unrecorded > 0 || cs->depth == cs->capacity) {
        cs->unrecorded++;
        return;
    }
    uint32_t node;
    if (cs->depth == 0) {
        node = child_of(cs, JP_ROOT, method);
    } else { /* a frame calls the method it called last, mostly: its node without a lookup */
        jp_frame *caller = &cs->frames[cs->depth - 1];
        if (caller->last_method != method || caller->last_child == JP_NO_NODE) {
            caller->last_child = next_child(cs, caller, method);
            caller->last_method = method;
        }
        node = caller->last_child;
    }
    if (node != JP_NO_NODE)
        cs->tree.nodes[node].calls++;
    jp_frame *f = &cs->frames[cs->depth++];
    f->method = method;
    f->node = node;
    f->last_child = JP_NO_NODE;
    f->start = now - cs->blocked;
    f->child_time = 0;
}

void jp_callstack_blocked(jp_callstack *cs, uint64_t blocked)
{
    if (cs->depth > 0)
        cs->blocked += blocked;
}

static inline void pop_frame(jp_callstack *cs, uint64_t now)
{
    jp_frame *f = &cs->frames[--cs->depth];
    uint64_t running = now - cs->blocked;
    uint64_t elapsed = running > f->start ? running - f->start : 0;
    if (f->node != JP_NO_NODE) {
        jp_node *node = &cs->tree.nodes[f->node];
        node->total += elapsed;
        node->self += elapsed > f->child_time ? elapsed - f->child_time : 0;
    }
    if (cs->depth > 0)
        cs->frames[cs->depth - 1].child_time += elapsed;
}

void jp_callstack_leave(jp_callstack *cs, MethodID method, uint64_t now)
{
    if (cs->unrecorded > 0) {
        /* Deeper than memory allowed: the innermost frame is an unrecorded one, whose method is not kept. */
        cs->unrecorded--;
        return;
    }
    size_t depth = cs->depth; /* down to the innermost open frame of method, frames[depth - 1] */
    while (depth > 0 && cs->frames[depth - 1].method != method)
        depth--;
    if (depth == 0)
        return; /* entered before recording began */
    while (cs->depth >= depth) /* it, and the frames above it that left unseen */
        pop_frame(cs, now);
}

void jp_callstack_close(jp_callstack *cs, uint64_t now)
{
    cs->unrecorded = 0;
    while (cs->depth > 0)
        pop_frame(cs, now);
}
