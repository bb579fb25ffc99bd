/*
 * arena.h - the memory of one class-file model.
 *
 * Every allocation a model makes (constant pool growth, rewritten code, decoded stack
 * map frames) comes from its arena and is released at once by cf_arena_destroy, so the
 * parser and the rewriter can bail out at any point without tracking what they own.
 */
#ifndef JEVMON_CLASSFILE_ARENA_H
#define JEVMON_CLASSFILE_ARENA_H

#include <stddef.h>

typedef struct cf_arena cf_arena;

cf_arena *cf_arena_create(void);
void cf_arena_destroy(cf_arena *arena);
/* Zero-filled memory that lives until the arena is destroyed; NULL when out of memory. */
void *cf_arena_alloc(cf_arena *arena, size_t size);
/* A copy of size bytes of data, or NULL. */
void *cf_arena_copy(cf_arena *arena, const void *data, size_t size);

#endif /* JEVMON_CLASSFILE_ARENA_H */
