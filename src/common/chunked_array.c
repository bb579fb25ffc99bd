/* chunked_array.c - making and freeing the chunks of a chunked array (see chunked_array.h). */
#include <stdlib.h>

#include "common/chunked_array.h"

void *jv_chunked_array_make(const jv_chunked_array *a, size_t index)
{
    size_t chunk = index >> a->chunk_bits;
    if (chunk >= a->chunk_count)
        return NULL;
    void *made = atomic_load_explicit(&a->chunks[chunk], memory_order_acquire);
    if (!made) {
        void *fresh = calloc((size_t)1 << a->chunk_bits, a->element_size);
        if (!fresh)
            return NULL;
        if (atomic_compare_exchange_strong(&a->chunks[chunk], &made, fresh))
            made = fresh;
        else
            free(fresh); /* another thread made it first: made holds its chunk */
    }
    return jv_chunked_array_get(a, index);
}

void jv_chunked_array_free(const jv_chunked_array *a)
{
    for (size_t i = 0; i < a->chunk_count; i++)
        free(atomic_exchange(&a->chunks[i], NULL));
}
