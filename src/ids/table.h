/*
 * table.h - a growable array whose elements never move, read without a lock.
 *
 * Elements live in fixed-size chunks reached through a fixed directory (a chunked array,
 * common/chunked_array.h), so a pointer to an element stays valid for the table's life
 * and readers need no lock: they see an element only after its index is published
 * through the atomic count.  Adding takes the table's mutex.  Used for the class, method,
 * field and thread tables.
 */
#ifndef JEVMON_TABLE_H
#define JEVMON_TABLE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/platform.h"

#define JV_TABLE_CHUNK_BITS 10
#define JV_TABLE_CHUNKS 4096 /* up to 4M elements */

typedef struct jv_table {
    size_t element_size;
    _Atomic uint32_t count;
    void *_Atomic chunks[JV_TABLE_CHUNKS];
    plat_mutex *lock;
} jv_table;

void jv_table_init(jv_table *t, size_t element_size);
void jv_table_destroy(jv_table *t);
/* The element at index, or NULL when index was never added. */
void *jv_table_get(jv_table *t, uint32_t index);
/* Adds a zeroed element, fills it with init(element, arg) before publishing it; returns its index or UINT32_MAX. */
uint32_t jv_table_add(jv_table *t, void (*init)(void *element, void *arg), void *arg);
uint32_t jv_table_count(jv_table *t);

#endif
