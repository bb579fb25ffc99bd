/*
 * table.c - the chunked table with lock-free reads (see table.h): a chunked array
 * (common/chunked_array.h) over the table's directory, with a count that publishes each
 * element once filled and a mutex that serializes adding.
 */
#include <string.h>

#include "common/chunked_array.h"
#include "ids/table.h"

/* The table's elements: constants over its directory, which the inline read folds. */
static inline jv_chunked_array elements_of(jv_table *t)
{
    return (jv_chunked_array)JV_CHUNKED_ARRAY(t->chunks, JV_TABLE_CHUNK_BITS, t->element_size);
}

void jv_table_init(jv_table *t, size_t element_size)
{
    memset(t, 0, sizeof(*t));
    t->element_size = element_size;
    t->lock = plat_mutex_create();
}

void jv_table_destroy(jv_table *t)
{
    jv_chunked_array elements = elements_of(t);
    jv_chunked_array_free(&elements);
    if (t->lock)
        plat_mutex_destroy(t->lock);
    memset(t, 0, sizeof(*t));
}

void *jv_table_get(jv_table *t, uint32_t index)
{
    if (index >= atomic_load_explicit(&t->count, memory_order_acquire))
        return NULL;
    jv_chunked_array elements = elements_of(t);
    return jv_chunked_array_get(&elements, index);
}

uint32_t jv_table_add(jv_table *t, void (*init)(void *element, void *arg), void *arg)
{
    uint32_t index = UINT32_MAX;
    plat_mutex_lock(t->lock);
    uint32_t n = atomic_load(&t->count);
    jv_chunked_array elements = elements_of(t);
    void *element = jv_chunked_array_make(&elements, n);
    if (element) {
        init(element, arg);
        atomic_store_explicit(&t->count, n + 1, memory_order_release);
        index = n;
    }
    plat_mutex_unlock(t->lock);
    return index;
}

uint32_t jv_table_count(jv_table *t)
{
    return atomic_load_explicit(&t->count, memory_order_acquire);
}
