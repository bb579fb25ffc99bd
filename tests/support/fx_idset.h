/*
 * fx_idset.h - a set of distinct UniqueIDs that many threads add to at once, for test monitors
 * that count how many different IDs the bridge handed out (an ended thread's ThreadID is reused,
 * so a program that starts 10^6 threads, 10^4 at a time, sees about 10^4 ThreadIDs).
 *
 * Open addressing over FX_IDSET_SLOTS atomic slots, 0 marking a free one (no UniqueID is 0).
 * It holds at most half its slots: past that it is full, and counts every further unseen ID
 * as new, which only makes the count larger.
 */
#ifndef JEVMON_FX_IDSET_H
#define JEVMON_FX_IDSET_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "jevmon.h"

#define FX_IDSET_SLOTS (1u << 17)

typedef struct fx_idset {
    _Atomic UniqueID slots[FX_IDSET_SLOTS];
    _Atomic long distinct;
} fx_idset;

/* A new empty set (NULL when out of memory); free() it. */
static inline fx_idset *fx_idset_new(void)
{
    return calloc(1, sizeof(fx_idset));
}

/* Adds id (not 0) unless the set has it. */
static inline void fx_idset_add(fx_idset *set, UniqueID id)
{
    if (atomic_load(&set->distinct) >= (long)(FX_IDSET_SLOTS / 2)) {
        atomic_fetch_add(&set->distinct, 1);
        return;
    }
    uint32_t slot = (uint32_t)(id * 0x9E3779B97F4A7C15ull >> 47); /* the top 17 bits of a multiplicative hash */
    for (;;) {
        UniqueID seen = 0;
        if (atomic_compare_exchange_strong(&set->slots[slot], &seen, id)) {
            atomic_fetch_add(&set->distinct, 1);
            return;
        }
        if (seen == id)
            return;
        slot = (slot + 1) % FX_IDSET_SLOTS;
    }
}

/* How many distinct IDs were added. */
static inline long fx_idset_count(fx_idset *set)
{
    return atomic_load(&set->distinct);
}

#endif
