/* callstack.c - a thread's shadow stack over its call tree (see callstack.h). */
#include <stdlib.h>
#include <string.h>

#include "callstack.h"

#define INITIAL_FRAMES 256u

int jp_callstack_init(jp_callstack *cs)
{
    memset(cs, 0, sizeof(*cs));
    cs->frames = malloc(INITIAL_FRAMES * sizeof(*cs->frames));
    cs->children = malloc(sizeof(*cs->children) << JP_CHILD_CACHE_BITS);
    if (!cs->frames || !cs->children || jp_tree_init(&cs->tree)) {
        free(cs->frames);
        free(cs->children);
        cs->frames = NULL;
        cs->children = NULL;
        return -1;
    }
    memset(cs->children, 0xff, sizeof(*cs->children) << JP_CHILD_CACHE_BITS);
    cs->capacity = INITIAL_FRAMES;
    return 0;
}

void jp_callstack_free(jp_callstack *cs)
{
    jp_tree_free(&cs->tree);
    free(cs->frames);
    free(cs->children);
    memset(cs, 0, sizeof(*cs));
}

/* The child of parent for method: the cached node when the slot still names it, else the tree's
 * (found or added), then cached. */
static inline uint32_t child_of(jp_callstack *cs, uint32_t parent, MethodID method)
{
    if (parent == JP_NO_NODE)
        return JP_NO_NODE;
    if (method == 0)
        method = JP_UNKNOWN_METHOD; /* as the tree records it */
    uint64_t key = ((uint64_t)parent << 32 ^ (uint64_t)method) * UINT64_C(0x9E3779B97F4A7C15);
    uint32_t *slot = &cs->children[key >> (64 - JP_CHILD_CACHE_BITS)];
    uint32_t node = *slot;
    if (node < cs->tree.count) {
        const jp_node *n = &cs->tree.nodes[node];
        if (n->parent == parent && n->method == method && n->offset == JP_NO_OFFSET)
            return node;
    }
    node = jp_tree_child(&cs->tree, parent, method);
    *slot = node;
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
            caller->last_child = child_of(cs, caller->node, method);
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
    f->start = now;
    f->child_time = 0;
    f->blocked = 0;
}

void jp_callstack_blocked(jp_callstack *cs, uint64_t blocked)
{
    if (cs->depth > 0)
        cs->frames[cs->depth - 1].blocked += blocked;
}

static inline void pop_frame(jp_callstack *cs, uint64_t now)
{
    jp_frame *f = &cs->frames[--cs->depth];
    uint64_t elapsed = now > f->start ? now - f->start : 0;
    elapsed = elapsed > f->blocked ? elapsed - f->blocked : 0;
    if (f->node != JP_NO_NODE) {
        jp_node *node = &cs->tree.nodes[f->node];
        node->total += elapsed;
        node->self += elapsed > f->child_time ? elapsed - f->child_time : 0;
    }
    if (cs->depth > 0) {
        cs->frames[cs->depth - 1].child_time += elapsed;
        cs->frames[cs->depth - 1].blocked += f->blocked;
    }
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
