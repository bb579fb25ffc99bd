/* arena.c - block allocator behind every class-file model (see arena.h). */
#include "classfile/arena.h"

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

enum { CF_BLOCK_SIZE = 64 * 1024 };

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
        free(arena->blocks);
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
        size_t size_of_block = aligned > CF_BLOCK_SIZE / 4 ? aligned : CF_BLOCK_SIZE;
        b = malloc(sizeof(cf_block) + size_of_block);
        if (!b)
            return NULL;
        b->used = 0;
        b->size = size_of_block;
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
