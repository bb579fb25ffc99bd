/*
 * cpu_sample.h - what processor-time sampling (cpu_sample.c) needs from the rest of the agent:
 * its start at VMInit, and each platform thread's start and end.
 */
#ifndef JEVMON_CPU_SAMPLE_H
#define JEVMON_CPU_SAMPLE_H

#include "jevmon.h"
#include "ids/thread.h"
#include "vm/vm.h"

/* At VMInit, after the walk was found: can_walk says whether threads can be interrupted and
 * walked (SIGPROF is ours, AsyncGetCallTrace exists); a sampling asked for earlier starts now.
 * attached: the agent was loaded into a running JVM, whose threads' OS ids are not known. */
void jv_cpu_sample_start(JNIEnv *env, int can_walk, int attached);
/* ThreadStart of a platform thread (t registered, on the thread itself) and its ThreadEnd. */
void jv_cpu_sample_thread_started(const jv_thread *t);
void jv_cpu_sample_thread_ended(const jv_thread *t);

/* This concern's methods of the IJavaEventMonitorIDInfo objects (their vtables: idinfo/idinfo.c). */
HRESULT STDMETHODCALLTYPE sampling_StartCpuSampling(IJevmonSampling4 *iface, ULONGLONG period_ns);
HRESULT STDMETHODCALLTYPE sampling_StopCpuSampling(IJevmonSampling4 *iface);
HRESULT STDMETHODCALLTYPE sampling_NextCpuSample(IJevmonSampling4 *iface, MethodID *pframes, DWORD *poffsets, DWORD max_frames, DWORD *pframe_count, BOOL *ptruncated, DWORD *pkind, DWORD *pperiods);
HRESULT STDMETHODCALLTYPE sampling_GetCpuSamplingCounts(IJevmonSampling4 *iface, JEVMON_CPU_SAMPLING_COUNTS *pcounts);
HRESULT STDMETHODCALLTYPE sampling_GetThreadCpuTime(IJevmonSampling4 *iface, ThreadID thread_id, ULONGLONG *pcpu_ns);
HRESULT STDMETHODCALLTYPE native_NextCpuSampleNative(IJevmonNativeSampling *iface, MethodID *pframes, DWORD *poffsets, DWORD max_frames, DWORD *pframe_count, BOOL *ptruncated, DWORD *pkind, DWORD *pperiods, JEVMON_NATIVE_STACK *pnative);
HRESULT STDMETHODCALLTYPE native_GetKernelFrameCounts(IJevmonNativeSampling *iface, JEVMON_KERNEL_FRAME_COUNTS *pcounts);

#endif
