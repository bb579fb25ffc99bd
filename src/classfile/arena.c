/*
 * arena.c - block allocator behind every class-file model (see arena.h).
 *
 * A few standard blocks of destroyed arenas are kept for the next model: rewriting classes
 * one after another (a retransformation of hundreds) would otherwise hand each block back
 * to the system and fault it in again for the next class, which cost more than the
 * rewriting.  The spares are shared by every thread, taken and returned lock-free.
 */
#include "classfile/arena.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef struct cf_block {
    struct cf_block *next;
    size_t used, size;
    max_align_t data[];
} cf_block;

struct cf_arena {
    cf_block *blocks;
};

enum { CF_BLOCK_SIZE = 64 * 1024, CF_SPARE_BLOCKS = 16 };

static _Atomic(cf_block *) spares[CF_SPARE_BLOCKS];

/* A standard block: a spare one if any is left, else a new one; NULL when out of memory. */
static cf_block *standard_block(void)
{
    for (size_t i = 0; i < CF_SPARE_BLOCKS; i++) {
        cf_block *b = atomic_exchange(&spares[i], NULL);
        if (b)
            return b;
    }
    cf_block *b = malloc(sizeof(cf_block) + CF_BLOCK_SIZE);
    if (b)
        b->size = CF_BLOCK_SIZE;
    return b;
}

/* Keeps a standard block for the next arena while there is room; frees anything else. */
static void release_block(cf_block *b)
{
    for (size_t i = 0; b->size == CF_BLOCK_SIZE && i < CF_SPARE_BLOCKS; i++) {
        cf_block *empty = NULL;
        if (atomic_compare_exchange_strong(&spares[i], &empty, b))
            return;
    }
    free(b);
}

cf_arena *cf_arena_create(void)
{
    return calloc(1, sizeof(cf_arena));
}

void cf_arena_destroy(cf_arena *arena)
{
    if (!arena)
        return;
    while (arena->blocks) {
        cf_block *next = arena->blocks->next;
        release_block(arena->blocks);
        arena->blocks = next;
    }
    free(arena);
}

void *cf_arena_alloc(cf_arena *arena, size_t size)
{
    size_t aligned = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    if (aligned < size)
        return NULL;
    cf_block *b = arena->blocks;
    if (!b || b->size - b->used < aligned) {
        /* Large requests get a block of their own so the common small ones keep packing. */
        if (aligned > CF_BLOCK_SIZE / 4) {
            b = malloc(sizeof(cf_block) + aligned);
            if (b)
                b->size = aligned;
        } else
            b = standard_block();
        if (!b)
            return NULL;
        b->used = 0;
        if (arena->blocks && aligned > CF_BLOCK_SIZE / 4) {
            /* keep the partly used block in front for later small requests */
            b->next = arena->blocks->next;
            arena->blocks->next = b;
        } else {
            b->next = arena->blocks;
            arena->blocks = b;
        }
    }
    void *p = (char *)b->data + b->used;
    b->used += aligned;
    memset(p, 0, size);
    return p;
}

void *cf_arena_copy(cf_arena *arena, const void *data, size_t size)
{
    void *p = cf_arena_alloc(arena, size ? size : 1);
    if (p && size)
        memcpy(p, data, size);
    return p;
}
