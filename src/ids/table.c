/* table.c - the chunked table with lock-free reads (see table.h). */
#include <stdlib.h>
#include <string.h>

#include "ids/table.h"

#define CHUNK_SIZE (1u << JV_TABLE_CHUNK_BITS)

void jv_table_init(jv_table *t, size_t element_size)
{
    memset(t, 0, sizeof(*t));
    t->element_size = element_size;
    t->lock = plat_mutex_create();
}

void jv_table_destroy(jv_table *t)
{
    for (size_t i = 0; i < JV_TABLE_CHUNKS; i++)
        free(atomic_load(&t->chunks[i]));
    if (t->lock)
        plat_mutex_destroy(t->lock);
    memset(t, 0, sizeof(*t));
}

void *jv_table_get(jv_table *t, uint32_t index)
{
    if (index >= atomic_load_explicit(&t->count, memory_order_acquire))
        return NULL;
    char *chunk = atomic_load_explicit(&t->chunks[index >> JV_TABLE_CHUNK_BITS], memory_order_acquire);
    return chunk + (size_t)(index & (CHUNK_SIZE - 1)) * t->element_size;
}

uint32_t jv_table_add(jv_table *t, void (*init)(void *element, void *arg), void *arg)
{
    uint32_t index = UINT32_MAX;
    plat_mutex_lock(t->lock);
    uint32_t n = atomic_load(&t->count);
    size_t chunk_index = n >> JV_TABLE_CHUNK_BITS;
    if (chunk_index < JV_TABLE_CHUNKS) {
        char *chunk = atomic_load(&t->chunks[chunk_index]);
        if (!chunk) {
            chunk = calloc(CHUNK_SIZE, t->element_size);
            atomic_store(&t->chunks[chunk_index], chunk);
        }
        if (chunk) {
            init(chunk + (size_t)(n & (CHUNK_SIZE - 1)) * t->element_size, arg);
            atomic_store_explicit(&t->count, n + 1, memory_order_release);
            index = n;
        }
    }
    plat_mutex_unlock(t->lock);
    return index;
}

uint32_t jv_table_count(jv_table *t)
{
    return atomic_load_explicit(&t->count, memory_order_acquire);
}
