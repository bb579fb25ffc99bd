/*
 * sample.h - what SampleThreadLocation (sample.c) needs from the rest of the agent: its
 * start in the live phase, and the window between GC start and finish.
 */
#ifndef JEVMON_SAMPLE_H
#define JEVMON_SAMPLE_H

#include "jevmon.h"
#include "vm/vm.h"

/* At VMInit (attached: loaded into a running JVM): register sampling, AsyncGetCallTrace if the JVM
 * exports it, the class loader's natives, processor-time sampling. */
void jv_sample_start(JNIEnv *env, int attached);
/* GarbageCollectionStart (active 1) and GarbageCollectionFinish (0). */
void jv_sample_gc(int active);

#endif
