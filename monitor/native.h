/*
 * native.h - cpu and wall modes' native frames and threads, where the VM offers jevmon's
 * IJevmonNativeSampling (docs/sampling.md): each sample's native frames above its innermost Java
 * frame (a JNI library, the C library, the JVM's own code), the whole native stack of a thread
 * with no Java frame, the JVM's own threads (collectors, compilers, the VM thread) in cpu mode, and
 * the samples of each thread by its OS name, and in cpu mode the kernel frames above them where the
 * kernel gives them (a frame "function_[k]", as async-profiler names them).
 *
 * Frames: the tree holds MethodIDs, so a native frame is recorded, as allocations.h records a
 * class, as a frame from the top of the ID range: JP_NATIVE_FRAME(i) for the i-th function met,
 * below the sampler's state frames; a thread as JP_THREAD_FRAME(i), the root of the samples of a
 * thread with no Java frame.  A code address is named (GetNativeFrameName: "library`function")
 * the first time a sample has it, off the signal path, and every address of a function is its one
 * frame: a function's samples spread over its instructions, and per address none would add up.
 *
 * A sample's stack, outermost first: the thread's frame when it has no Java frame, "(callers
 * unknown)" when its native walk stopped short of its outermost frame or reached Java code whose
 * frames the sample has not (AsyncGetCallTrace could not walk there), or its Java stack was cut,
 * its Java frames, "(native frames not walked)" between them and the native frames a walk that
 * stopped gives, its native frames.  Thread-safe (its own lock): the sampler adds while outputs name.
 */
#ifndef JEVPROF_NATIVE_H
#define JEVPROF_NATIVE_H

#include <stdio.h>

#include "allocations.h"
#include "idmap.h"
#include "javaname.h"
#include "jevmon.h"
#include "platform/platform.h"

/* Below the sampler's state frames (sampler.h: JP_STATE_FRAME, 6 of them) with room to spare. */
#define JP_NATIVE_FRAME(index) (JP_CLASS_FRAME(JP_MAX_CLASS_FRAMES) - 64 - (MethodID)(index))
#define JP_MAX_NATIVE_FRAMES (1u << 22) /* functions beyond this many are recorded as the last one */
#define JP_THREAD_FRAME(index) (JP_NATIVE_FRAME(JP_MAX_NATIVE_FRAMES) - 1 - (MethodID)(index))
#define JP_MAX_THREAD_FRAMES (1u << 16)
#define JP_NATIVE_GAP JP_THREAD_FRAME(JP_MAX_THREAD_FRAMES) /* "(native frames not walked)" */

/* The deepest stack composed: a cut Java stack's marker, 2048 Java frames, the gap, the native
 * frames, and one more for the caller (wall mode's state frame). */
#define JP_NATIVE_STACK_ROOM (2 + 2048 + 1 + JEVMON_NATIVE_MAX_FRAMES + 1)

typedef struct jp_native_thread {
    DWORD os_thread;
    int vm_thread;
    uint64_t samples; /* weighed: periods in cpu mode */
    char *name;       /* the OS's name for it (the JVM names its threads), or NULL */
} jp_native_thread;

typedef struct jp_native_counts {
    uint64_t walked;  /* samples whose native walk reached their Java frames or their thread's outermost frame */
    uint64_t stopped; /* samples whose native walk could not go on */
    uint64_t kernel;  /* samples with kernel frames */
} jp_native_counts;

typedef struct jp_native {
    IJevmonNativeSampling *iface; /* NULL: not offered */
    DWORD flags;                  /* asked of the VM (JEVMON_NATIVE_FRAMES, JEVMON_NATIVE_VM_THREADS, ...) */
    const char *no_kernel;        /* why kernel frames are not asked for (a setting, wall mode), or NULL */
    plat_mutex *lock;             /* guards everything below */
    jp_idmap addresses;           /* code address -> 1 + its function's frame index */
    jp_idmap functions;           /* a name's key (name_key, then the next on a collision) -> 1 + its frame index */
    char **names;                 /* by frame index: "library`function" */
    size_t count, capacity;
    jp_idmap thread_index;        /* OS thread -> 1 + its index */
    jp_native_thread *threads;
    size_t thread_count, thread_capacity;
    jp_native_counts counts;
    JEVMON_NATIVE_STACK stack;    /* the sample being taken (the sampler's thread only) */
    MethodID frames[JP_NATIVE_STACK_ROOM];
    DWORD offsets[JP_NATIVE_STACK_ROOM];
} jp_native;

/* 0, or -1 out of memory.  The VM's interface is asked for; no native frames until jp_native_configure. */
int jp_native_init(jp_native *n, IJavaEventMonitorIDInfo2 *info);
void jp_native_free(jp_native *n);
/* Asks the VM for native frames (frames) and, in cpu mode, its own threads (vm_threads) and, with
 * the native frames, the kernel frames unless no_kernel says why not ("kstack no"), before a start. */
void jp_native_configure(jp_native *n, int frames, int vm_threads, const char *no_kernel);
/* The buffer a sample's native frames are asked into, or NULL when none are asked for. */
JEVMON_NATIVE_STACK *jp_native_buffer(jp_native *n);

/* Composes one sample's stack in n->frames / n->offsets from its Java frames (outermost first,
 * already under JP_UNKNOWN_CALLERS when cut; count 0: none) and n->stack; counts it for its thread
 * with weight.  Returns the composed count, 0 when the sample has no frame at all. */
size_t jp_native_compose(jp_native *n, const MethodID *frames, const DWORD *offsets, size_t count, uint64_t weight);

/* Counts weight samples for a Java thread, which the profile has without a stack composed here
 * (wall mode: a thread standing where a look found it, a stack from JVMTI). */
void jp_native_count(jp_native *n, DWORD os_thread, uint64_t weight);

/* The name of a native, thread or gap frame ("libc.so.6`read", "[GC Thread#0]"), or NULL: not one of these. */
const char *jp_native_frame_name(jp_native *n, MethodID method);
/* Is the frame one of n's (a native frame, a thread, the gap)?  Its kind for the flame graph then. */
int jp_native_frame_kind(jp_native *n, MethodID method, jp_frame_kind *kind);

/* The Samples section's lines: how the native walks went, and the threads by samples (top of them). */
void jp_native_write(FILE *out, jp_native *n, unsigned top);

#endif /* JEVPROF_NATIVE_H */
