/*
 * jitter.c - uniform random offsets inside sampling intervals (jitter.h).
 *
 * SplitMix64 over one shared atomic counter: each draw takes the counter's next value with one
 * atomic add and mixes it, so concurrent draws (several threads' signal handlers at once) never
 * get the same value and no lock is taken.  The offset is the draw's top 32 bits scaled to the
 * interval: its granularity is interval / 2^32, under a nanosecond for intervals up to 4 s.
 */
#include <stdatomic.h>

#include "common/jitter.h"

#define GOLDEN_GAMMA 0x9E3779B97F4A7C15ull

static _Atomic uint64_t counter = GOLDEN_GAMMA;

void jv_jitter_seed(uint64_t seed)
{
    atomic_fetch_add(&counter, seed * GOLDEN_GAMMA);
}

static uint64_t next_random(void)
{
    uint64_t z = atomic_fetch_add(&counter, GOLDEN_GAMMA) + GOLDEN_GAMMA;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t jv_jitter_offset_ns(uint64_t interval_ns)
{
    uint64_t high = next_random() >> 32;
    if (interval_ns >> 32) /* above 4.29 s: the product below would overflow */
        return (interval_ns >> 32) * high;
    return (interval_ns * high) >> 32;
}
