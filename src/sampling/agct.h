/*
 * agct.h - HotSpot's AsyncGetCallTrace (in no header) and its walk (agct.c), for thread_sample.c (a
 * thread interrupted on request) and cpu_sample.c (on its processor-time timer): both run the walk
 * inside the signal handler, on the thread it walks.
 */
#ifndef JEVMON_AGCT_H
#define JEVMON_AGCT_H

#include "vm/vm.h"

/* Frames innermost first, lineno the bci (negative for a native method). */
typedef struct agct_frame {
    jint lineno;
    jmethodID method_id;
} agct_frame;
typedef struct agct_trace {
    JNIEnv *env_id;
    jint num_frames; /* negative: why there is no walk; AGCT_GC_ACTIVE during a collection */
    agct_frame *frames;
} agct_trace;
typedef void (*agct_function)(agct_trace *trace, jint depth, void *ucontext);
/* AsyncGetCallTrace's answers when it gives no frames (HotSpot's forte.cpp): 0 down to -4, no Java
 * frame to walk (no_Java_frame, no_class_load, GC_active, unknown_not_Java, not_walkable_not_Java);
 * -5 down to -10, the thread was in Java code but the walk failed (unknown_Java, not_walkable_Java,
 * unknown_state, thread_exit, deopt, safepoint), except thread_exit: only native frames are left. */
#define AGCT_GC_ACTIVE (-2)
#define AGCT_UNKNOWN_JAVA (-5)
#define AGCT_NOT_WALKABLE_JAVA (-6)
#define AGCT_THREAD_EXIT (-8)

/* At VMInit, on a Java thread (env its JNIEnv): whether the JVM has AsyncGetCallTrace and an
 * interrupted thread's JNIEnv can be found (until then, and otherwise, jv_agct_walk walks nothing). */
int jv_agct_find(JNIEnv *env);

/* AGCT puts a compiled frame at the line (and the inlined method) that ran only where HotSpot
 * recorded debug information at pcs that are not safepoints (DebugNonSafepoints): without it a hot
 * loop's samples all land on its safepoint's line.  The first call sets the flag directly where
 * HotSpot shows its flags, otherwise turns CompiledMethodLoad on, at a wake-up of HotSpot's service
 * thread per compiled method (hotspot_flags.h); it also finds the code heaps' layout, which the
 * walks at a frame's edge read (hotspot_code.h); later calls cost a load.  Not in a signal handler:
 * the events' replay may call monitors, and the layout is found by symbol lookups. */
void jv_agct_want_line_detail(void);

/* Walks the calling thread's Java stack from context (inside its signal handler: async-signal-
 * safe); trace->num_frames says how it went.  0 when there is no walk (no AsyncGetCallTrace, or a
 * thread that is not the JVM's), num_frames left as it was then. */
int jv_agct_walk(agct_trace *trace, agct_frame *frames, jint depth, void *context);

#endif
