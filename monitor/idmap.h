/*
 * idmap.h - a hash map from a UniqueID (never 0) to a pointer-sized value.
 *
 * For the tables that are looked up by ID off the hot path: method names, class names, the
 * methods a report lists.  Not thread-safe; its owner locks.
 */
#ifndef JEVPROF_IDMAP_H
#define JEVPROF_IDMAP_H

#include <stddef.h>
#include <stdint.h>

#include "jevmon.h"

typedef struct jp_idmap_entry {
    UniqueID key; /* 0: empty */
    uintptr_t value;
} jp_idmap_entry;

typedef struct jp_idmap {
    jp_idmap_entry *entries;
    size_t count, capacity; /* capacity is 0 or a power of two */
} jp_idmap;

void jp_idmap_free(jp_idmap *map);
/* The entry for key, or NULL. */
jp_idmap_entry *jp_idmap_find(const jp_idmap *map, UniqueID key);
/* The entry for key, added with value 0 when missing; NULL when out of memory or key is 0. */
jp_idmap_entry *jp_idmap_insert(jp_idmap *map, UniqueID key);
/* Removes key (a no-op when it is missing); returns its value, or 0. */
uintptr_t jp_idmap_remove(jp_idmap *map, UniqueID key);

#endif /* JEVPROF_IDMAP_H */
