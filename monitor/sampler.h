/*
 * sampler.h - sample mode: a timer thread that samples every live Java thread.
 *
 * Live threads are learned from THREAD_CREATE / THREAD_DESTROY.  A ThreadID must not be used
 * once its THREAD_DESTROY callback has returned (spec 1.8, 1.10), so each thread is sampled
 * under the sampler's lock and jp_sampler_thread_destroyed takes that lock: destruction waits
 * for a sample in progress, and a sample never starts on a destroyed thread.
 *
 * Where the VM offers the jevmon extension IJevmonSampling3, a sample is one SampleThreadFrames:
 * the thread's location and the stack walked where it was interrupted (AsyncGetCallTrace), each
 * frame at its bytecode offset, with no safepoint bias and no JVMTI handshake; IJevmonSampling2's
 * SampleThreadStack, of an agent before it, gives the same stack without the offsets.  Where
 * that gives no stack (S_FALSE: Windows, a walk
 * that failed) or the VM lacks the extension, a sample asks SampleThreadLocation (a waiting
 * thread is counted as idle, not profiled), then GetStackTrace for the stack (stacktrace.h), whose
 * frames arrive through NotifyEvent2(STACK_TRACE) on the sampler thread, taken at the thread's
 * next safepoint.  Either call may fail (E_FAIL, E_NOTIMPL): a stack alone, or the sampled method
 * alone (under JP_UNKNOWN_CALLERS), still makes a sample; the innermost frame then has the
 * sample's pc_offset where the VM gives one, the others none.  The profile's nodes are methods at
 * offsets (tree.h).
 */
#ifndef JEVPROF_SAMPLER_H
#define JEVPROF_SAMPLER_H

#include <stdatomic.h>

#include "idmap.h"
#include "jevmon.h"
#include "platform/platform.h"
#include "stacktrace.h"
#include "tree.h"

typedef struct jp_sampler_counts {
    uint64_t ticks;             /* timer expiries */
    uint64_t samples;           /* thread samples recorded in the profile */
    uint64_t idle;              /* threads waiting or blocked */
    uint64_t failed;            /* threads for which neither call gave anything */
    uint64_t location_failures; /* SampleThreadLocation calls that failed */
    uint64_t truncated;         /* stacks deeper than JP_MAX_STACK_FRAMES (JP_WALKED_FRAMES when walked) */
    uint64_t walked;            /* samples whose stack was walked where the thread ran (SampleThreadStack) */
    uint64_t safepoint;         /* samples whose stack came from GetStackTrace */
} jp_sampler_counts;

/* The deepest stack SampleThreadStack is asked for (the bridge walks 1024 frames at most). */
#define JP_WALKED_FRAMES 1024

typedef struct jp_sampler {
    IJavaEventMonitorIDInfo2 *info; /* not owned */
    IJevmonSampling3 *framer;       /* the VM's stack-walking sampler with offsets; NULL when not offered */
    IJevmonSampling2 *walker;       /* without, when only that is offered (framer NULL); else NULL */
    unsigned interval_ms;
    plat_mutex *lock;               /* guards live, profile and counts; held while sampling a thread */
    jp_idmap live;                  /* ThreadID -> 1 */
    jp_tree profile;                /* weights are samples; frames at their offsets */
    jp_sampler_counts counts;
    uint64_t started_ns, stopped_ns;
    plat_thread *thread;
    atomic_int stop;
    plat_event *wake;               /* set with stop */
    /* Used only by the thread sampling: the threads of this tick, and one thread's stack. */
    ThreadID *snapshot;
    size_t snapshot_capacity;
    jp_stack_trace stack;
    MethodID walked[1 + JP_WALKED_FRAMES]; /* [0] for JP_UNKNOWN_CALLERS above a cut stack */
    DWORD offsets[JP_MAX_STACK_FRAMES];     /* of the frames of a walk (from [0] as walked) or a stack */
} jp_sampler;

int jp_sampler_init(jp_sampler *s, IJavaEventMonitorIDInfo2 *info, unsigned interval_ms);
/* Starts the timer thread, again after jp_sampler_stop too; -1 when it cannot be started (logged). */
int jp_sampler_start(jp_sampler *s);
/* Stops and joins the timer thread, if it runs. */
void jp_sampler_stop(jp_sampler *s);
void jp_sampler_free(jp_sampler *s);

/* Adds the profile so far to profile (initialized; its root summed) and copies the counts, while
 * sampling goes on (a dump).  0, or -1 out of memory. */
int jp_sampler_snapshot(jp_sampler *s, jp_tree *profile, jp_sampler_counts *counts);

/* Continuous mode: moves the profile and counts so far into profile (root summed) and counts,
 * and goes on into an empty profile.  0, or -1 out of memory (nothing moved). */
int jp_sampler_take(jp_sampler *s, jp_tree *profile, jp_sampler_counts *counts);

void jp_sampler_thread_created(jp_sampler *s, ThreadID thread);
void jp_sampler_thread_destroyed(jp_sampler *s, ThreadID thread);

#endif /* JEVPROF_SAMPLER_H */
