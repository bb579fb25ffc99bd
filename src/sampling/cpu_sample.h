/*
 * cpu_sample.h - what processor-time sampling (cpu_sample.c) needs from the rest of the agent:
 * its start at VMInit, and each platform thread's start and end.
 */
#ifndef JEVMON_CPU_SAMPLE_H
#define JEVMON_CPU_SAMPLE_H

#include "ids/thread.h"
#include "vm/vm.h"

/* At VMInit, after the walk was found: can_walk says whether threads can be interrupted and
 * walked (SIGPROF is ours, AsyncGetCallTrace exists); a sampling asked for earlier starts now.
 * attached: the agent was loaded into a running JVM, whose threads' OS ids are not known. */
void jv_cpu_sample_start(JNIEnv *env, int can_walk, int attached);
/* ThreadStart of a platform thread (t registered, on the thread itself) and its ThreadEnd. */
void jv_cpu_sample_thread_started(const jv_thread *t);
void jv_cpu_sample_thread_ended(const jv_thread *t);

#endif
