/*
 * chunked_array.h - an array that grows without moving and is read without a lock.
 *
 * Elements live in chunks of 2^chunk_bits, reached through a fixed directory of chunk
 * pointers.  A chunk is allocated, zeroed, on the first use of one of its elements
 * (jv_chunked_array_make); threads that race to make the same chunk agree through a
 * compare-and-swap, and the loser frees its copy.  An element never moves, so a pointer to it
 * stays valid until jv_chunked_array_free; readers load the chunk's pointer with acquire, which
 * pairs with its publication.  What an element holds, and how its writers and readers agree on
 * it, is the user's business.
 *
 * The descriptor is a few constants over the directory, usually static const, so that the
 * inline read folds them: dispatch.c's per-thread callback counters, instrument.c's MethodID of
 * each method int (read on every instrumented call) and the tables of ids/table.c.
 */
#ifndef JEVMON_COM_CHUNKED_ARRAY_H
#define JEVMON_COM_CHUNKED_ARRAY_H

#include <stdatomic.h>
#include <stddef.h>

typedef struct jv_chunked_array {
    void *_Atomic *chunks; /* the directory: chunk_count pointers, NULL while their chunk is unmade */
    size_t chunk_count;
    unsigned chunk_bits;   /* a chunk holds 2^chunk_bits elements */
    size_t element_size;
} jv_chunked_array;

/* The initializer of a descriptor over directory, an array of void *_Atomic (its length is taken
 * from its type). */
#define JV_CHUNKED_ARRAY(directory, chunk_bits, element_size) \
    {(directory), sizeof(directory) / sizeof(*(directory)), (chunk_bits), (element_size)}

/* The element at index; NULL when index is beyond the directory or its chunk was never made. */
static inline void *jv_chunked_array_get(const jv_chunked_array *a, size_t index)
{
    size_t chunk = index >> a->chunk_bits;
    if (chunk >= a->chunk_count)
        return NULL;
    char *base = atomic_load_explicit(&a->chunks[chunk], memory_order_acquire);
    return base ? base + (index & (((size_t)1 << a->chunk_bits) - 1)) * a->element_size : NULL;
}

/* The element at index, its chunk made when missing; NULL when index is beyond the directory or
 * memory runs out. */
void *jv_chunked_array_make(const jv_chunked_array *a, size_t index);

/* Frees every chunk made, and empties the directory: for when no thread may read any more. */
void jv_chunked_array_free(const jv_chunked_array *a);

#endif
