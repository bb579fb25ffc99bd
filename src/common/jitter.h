/*
 * jitter.h - where in each sampling interval its sample falls: a uniform random offset, so that
 * no phase of a periodic program is favoured (docs/sampling.md, "Intervals at random").
 *
 * The samplers cut time (a thread's processor time, or wall-clock time) into cells of one
 * interval each and take one sample at a uniform random point of every cell: the number of
 * samples stays the number of intervals, each stands for one interval, and where a sample falls in
 * a program's period is uniform whatever that period is.  Lock-free and async-signal-safe: the
 * processor-time timers draw in their signal handler.
 */
#ifndef JEVMON_COMMON_JITTER_H
#define JEVMON_COMMON_JITTER_H

#include <stdint.h>

/* Mixes seed (a clock's reading, say) into the sequence; any thread, any time. */
void jv_jitter_seed(uint64_t seed);

/* A uniform random offset in [0, interval_ns). */
uint64_t jv_jitter_offset_ns(uint64_t interval_ns);

#endif /* JEVMON_COMMON_JITTER_H */
