/* idmap.c - open addressing with linear probing; removal shifts entries back, so no tombstones. */
#include <stdlib.h>
#include <string.h>

#include "idmap.h"

static size_t slot_of(UniqueID key, size_t capacity)
{
    uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ull; /* IDs are often indices or aligned pointers */
    return (size_t)(h >> 32) & (capacity - 1);
}

void jp_idmap_free(jp_idmap *map)
{
    free(map->entries);
    memset(map, 0, sizeof(*map));
}

jp_idmap_entry *jp_idmap_find(const jp_idmap *map, UniqueID key)
{
    if (!map->capacity || !key)
        return NULL;
    for (size_t i = slot_of(key, map->capacity);; i = (i + 1) & (map->capacity - 1)) {
        if (map->entries[i].key == key)
            return &map->entries[i];
        if (map->entries[i].key == 0)
            return NULL;
    }
}

static int grow(jp_idmap *map)
{
    size_t capacity = map->capacity ? map->capacity * 2 : 64;
    jp_idmap_entry *entries = calloc(capacity, sizeof(*entries));
    if (!entries)
        return -1;
    for (size_t i = 0; i < map->capacity; i++) {
        if (!map->entries[i].key)
            continue;
        size_t j = slot_of(map->entries[i].key, capacity);
        while (entries[j].key)
            j = (j + 1) & (capacity - 1);
        entries[j] = map->entries[i];
    }
    free(map->entries);
    map->entries = entries;
    map->capacity = capacity;
    return 0;
}

jp_idmap_entry *jp_idmap_insert(jp_idmap *map, UniqueID key)
{
    if (!key)
        return NULL;
    jp_idmap_entry *found = jp_idmap_find(map, key);
    if (found)
        return found;
    if ((map->count + 1) * 4 > map->capacity * 3 && grow(map))
        return NULL;
    size_t i = slot_of(key, map->capacity);
    while (map->entries[i].key)
        i = (i + 1) & (map->capacity - 1);
    map->entries[i].key = key;
    map->entries[i].value = 0;
    map->count++;
    return &map->entries[i];
}

uintptr_t jp_idmap_remove(jp_idmap *map, UniqueID key)
{
    jp_idmap_entry *found = jp_idmap_find(map, key);
    if (!found)
        return 0;
    uintptr_t value = found->value;
    size_t mask = map->capacity - 1, hole = (size_t)(found - map->entries);
    /* Move back every later entry of the run whose home slot is not between the hole and it. */
    for (size_t i = (hole + 1) & mask; map->entries[i].key; i = (i + 1) & mask) {
        size_t home = slot_of(map->entries[i].key, map->capacity);
        int stays = hole <= i ? (hole < home && home <= i) : (hole < home || home <= i);
        if (!stays) {
            map->entries[hole] = map->entries[i];
            hole = i;
        }
    }
    map->entries[hole].key = 0;
    map->entries[hole].value = 0;
    map->count--;
    return value;
}
