/*
 * sampler.h - cpu and wall modes: where the program's threads spend processor time, and where
 * they spend wall-clock time and doing what.
 *
 * cpu mode (the default; "sample" is its old name): where the VM offers IJevmonSampling4 and
 * its per-thread processor-time timers, each Java thread is sampled by its own timer every
 * interval of the processor time it uses, its stack walked where it ran (StartCpuSampling), and
 * this thread only drains the samples (NextCpuSample) every 50 ms or sooner: a sample stands for one
 * interval of processor time, and a thread that waits costs nothing and counts nothing.  Where
 * there are no such timers (Windows, another VM) it samples every live thread on its timer as
 * below, leaving out a thread that waits or blocks and, with IJevmonSampling4, one whose
 * processor time (GetThreadCpuTime, GetThreadTimes on Windows) did not advance since the last tick.
 *
 * wall mode: every live thread once per tick, whatever it does, each sample's last frame a
 * pseudo-frame for the thread's state then (JP_STATE_FRAME: running, native, blocked, waiting,
 * sleeping; from IJevmonSampling4::SampleThreadState, else running or waiting by the sample's
 * location): a sample stands for one interval of wall-clock time of one thread.  A thread found
 * standing still (blocked, waiting, sleeping, or without Java frames) whose processor time has not
 * moved since is not looked at again: it has not run, so it is where it was found (where the clock
 * moves whenever a thread runs).
 *
 * The tick sampler:
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
#include <stdio.h>

#include "allocations.h"
#include "eventlog.h"
#include "idmap.h"
#include "jevmon.h"
#include "native.h"
#include "platform/platform.h"
#include "stacktrace.h"
#include "tree.h"

/* Thread states, and the pseudo-frames that stand for them at the end of a wall-mode sample:
 * below the allocated classes' frames (allocations.h), where no VM's MethodID is. */
#define JP_THREAD_STATES (JEVMON_THREAD_SLEEPING + 1)
#define JP_STATE_FRAME(state) (JP_CLASS_FRAME(JP_MAX_CLASS_FRAMES) - 1 - (MethodID)(state))
/* cpu mode: a sample whose stack was not walked stands in the profile as one frame saying why
 * (JEVMON_CPU_SAMPLE_KIND: "[no Java frame]", "[collection under way]", "[not walkable]"), as
 * async-profiler's [no_Java_frame] and [not_walkable_Java] do, so that the profile's samples add
 * up to the processor time the threads used.  Below the state frames (native.h leaves room). */
#define JP_REASON_FRAME(kind) JP_STATE_FRAME(JP_THREAD_STATES + (MethodID)(kind))
/* The state's name ("[waiting]") when method is a state frame, or the reason's when it is a
 * reason frame, else NULL. */
const char *jp_sampler_state_name(MethodID method);
/* The same without the brackets ("waiting"), for pprof's label; NULL when not a state frame. */
const char *jp_sampler_state_label(MethodID method);

typedef struct jp_sampler_counts {
    uint64_t ticks;             /* timer expiries */
    uint64_t samples;           /* thread samples recorded in the profile */
    uint64_t idle;              /* threads waiting or blocked */
    uint64_t failed;            /* threads for which neither call gave anything */
    uint64_t location_failures; /* SampleThreadLocation calls that failed */
    uint64_t truncated;         /* stacks deeper than JP_MAX_STACK_FRAMES (JP_WALKED_FRAMES when walked) */
    uint64_t walked;            /* samples whose stack was walked where the thread ran (SampleThreadStack) */
    uint64_t safepoint;         /* samples whose stack came from GetStackTrace */
    uint64_t asked;             /* tick sampler: thread samples asked for (live threads at each tick) */
    uint64_t not_running;       /* cpu mode's tick sampler: threads that used no processor time since the last tick */
    uint64_t states[JP_THREAD_STATES]; /* wall mode: samples by JEVMON_THREAD_STATE (0: not known) */
    uint64_t still;             /* wall mode: samples of threads that stood still since a look (not looked at) */
    int timed;                  /* cpu mode: the samples came from per-thread processor-time timers */
    uint64_t periods;           /* timers: the intervals of processor time the samples stand for (their weight) */
    uint64_t no_java, gc, unwalkable; /* timers: periods without a Java stack, by why (JEVMON_CPU_SAMPLE_KIND) */
    JEVMON_CPU_SAMPLING_COUNTS cpu;   /* timers: the bridge's counts over the same span */
} jp_sampler_counts;

/* How long a thread's processor time may seem to stand still while it runs: Windows counts it at
 * the clock tick (15.6 ms by default); Linux exactly. */
#define JP_CPU_CLOCK_GRAIN_MS 16u

/* The deepest stack SampleThreadStack is asked for (the bridge walks 1024 frames at most). */
#define JP_WALKED_FRAMES 1024

typedef struct jp_sampler {
    IJavaEventMonitorIDInfo2 *info; /* not owned */
    IJevmonSampling3 *framer;       /* the VM's stack-walking sampler with offsets; NULL when not offered */
    IJevmonSampling2 *walker;       /* without, when only that is offered (framer NULL); else NULL */
    IJevmonSampling4 *timers;       /* processor-time sampling, thread states, processor time; NULL when not offered */
    unsigned interval_ms;
    int wall;                       /* wall mode, else cpu mode */
    int timed;                      /* cpu mode: the timers run (StartCpuSampling succeeded, no E_NOTIMPL since) */
    JEVMON_CPU_SAMPLING_COUNTS cpu_base; /* the bridge's counts when counts was last emptied */
    JEVMON_CPU_SAMPLING_COUNTS cpu_last; /* ... and when they were last read */
    plat_mutex *lock;               /* guards live, profile and counts; held while sampling a thread */
    jp_idmap live;                  /* ThreadID -> 1, or its processor time at the last tick (cpu mode's tick sampler) */
    jp_idmap ran_at;                /* cpu mode's tick sampler: ThreadID -> the tick its processor time last moved at */
    jp_idmap still;                 /* wall mode: ThreadID -> its last sample taken standing still (sampler.c) */
    uintptr_t tick;                 /* ticks since the start */
    jp_tree profile;                /* weights are samples; frames at their offsets */
    jp_sampler_counts counts;
    uint64_t started_ns, stopped_ns;
    plat_thread *thread;
    atomic_int stop;
    plat_event *wake;               /* set with stop */
    plat_event *armed;              /* set by the thread once it has started the timers, or found none */
    /* Used only by the thread sampling: the threads of this tick, and one thread's stack. */
    ThreadID *snapshot;
    size_t snapshot_capacity;
    jp_stack_trace stack;
    MethodID walked[1 + JP_WALKED_FRAMES + 1]; /* [0] for JP_UNKNOWN_CALLERS above a cut stack; a state frame after */
    DWORD offsets[JP_MAX_STACK_FRAMES + 1];     /* of the frames of a walk (from [0] as walked) or a stack */
    jp_native native;               /* native frames and threads (IJevmonNativeSampling), when asked for */
    jp_event_log events;            /* each sample's thread and time, its node in profile */
} jp_sampler;

/* wall: wall mode, else cpu mode. */
int jp_sampler_init(jp_sampler *s, IJavaEventMonitorIDInfo2 *info, unsigned interval_ms, int wall);
/* Between a stop and the next start: the other kind (cpu or wall) or another interval. */
void jp_sampler_reconfigure(jp_sampler *s, unsigned interval_ms, int wall);
/* Starts the timer thread, again after jp_sampler_stop too; -1 when it cannot be started (logged). */
int jp_sampler_start(jp_sampler *s);
/* Until the thread started last has started its timers (or found none), 5 s at most (then logged):
 * an answer saying "recording" waits for it, where a JVM's start-up does not. */
void jp_sampler_wait_armed(jp_sampler *s);
/* cpu mode: the threads given a processor-time timer so far (the bridge's count); 0 without timers. */
uint64_t jp_sampler_timed_threads(jp_sampler *s);
/* Stops and joins the timer thread, if it runs. */
void jp_sampler_stop(jp_sampler *s);
void jp_sampler_free(jp_sampler *s);

/* Copies the profile so far into profile (initialized; its root summed) and its log into events
 * (eventlog.h: zeroed before, to be freed after) and copies the counts, while sampling goes on (a
 * dump).  0, or -1 out of memory. */
int jp_sampler_snapshot(jp_sampler *s, jp_tree *profile, jp_event_log *events, jp_sampler_counts *counts);

/* Continuous mode: moves the profile, its log and counts so far into profile (root summed), events
 * and counts, and goes on into an empty profile.  0, or -1 out of memory (nothing moved). */
int jp_sampler_take(jp_sampler *s, jp_tree *profile, jp_event_log *events, jp_sampler_counts *counts);

/* The Samples section's opening lines: what was asked for, what was taken, why any are missing. */
void jp_sampler_write_counts(FILE *out, const jp_sampler_counts *counts, unsigned interval_ms, double seconds);

void jp_sampler_thread_created(jp_sampler *s, ThreadID thread);
void jp_sampler_thread_destroyed(jp_sampler *s, ThreadID thread);

#endif /* JEVPROF_SAMPLER_H */
