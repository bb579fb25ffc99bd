/*
 * agct.h - HotSpot's AsyncGetCallTrace (in no header), which sample.c finds at VMInit, for the
 * walks of sample.c (a thread interrupted on request) and cpu_sample.c (on its processor-time
 * timer): both run it inside the signal handler, on the thread it walks.
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
#define AGCT_NO_JAVA_FRAME 0     /* ticks_no_Java_frame */
#define AGCT_NOT_JAVA (-1)       /* ticks_unknown_not_Java: a thread outside Java */
#define AGCT_GC_ACTIVE (-2)
#define AGCT_UNKNOWN_JAVA (-5)   /* this and below: the thread was in Java code, but the walk failed */
#define AGCT_NOT_WALKABLE_NOT_JAVA (-8)

/* NULL until VMInit, and on a JVM without it. */
extern agct_function jv_async_get_call_trace;

/* Walks the calling thread's Java stack from context (inside its signal handler: async-signal-
 * safe); trace->num_frames says how it went (AGCT_NOT_JAVA: not a thread of the JVM).  0 when
 * there is no AsyncGetCallTrace, nothing set then. */
int jv_agct_walk(agct_trace *trace, agct_frame *frames, jint depth, void *context);

#endif
