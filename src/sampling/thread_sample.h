/*
 * thread_sample.h - what SampleThreadLocation (thread_sample.c) needs from the rest of the agent: its
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

/* This concern's methods of the IJavaEventMonitorIDInfo objects (their vtables: idinfo/idinfo.c). */
HRESULT STDMETHODCALLTYPE idinfo_SampleThreadLocation(IJavaEventMonitorIDInfo4 *iface, ThreadID thread_id, JVM_METHOD_SAMPLE *psample);
HRESULT STDMETHODCALLTYPE sampling_SampleThreadLocation64(IJevmonSampling4 *iface, ThreadID thread_id, JVM_METHOD_SAMPLE *psample, ULONGLONG *pip, ULONGLONG *psp);
HRESULT STDMETHODCALLTYPE sampling_SampleThreadStack(IJevmonSampling4 *iface, ThreadID thread_id, JVM_METHOD_SAMPLE *psample, MethodID *pframes, DWORD max_frames, DWORD *pframe_count, BOOL *ptruncated);
HRESULT STDMETHODCALLTYPE sampling_SampleThreadFrames(IJevmonSampling4 *iface, ThreadID thread_id, JVM_METHOD_SAMPLE *psample, MethodID *pframes, DWORD *poffsets, DWORD max_frames, DWORD *pframe_count, BOOL *ptruncated);
HRESULT STDMETHODCALLTYPE sampling_SampleThreadState(IJevmonSampling4 *iface, ThreadID thread_id, JVM_METHOD_SAMPLE *psample, MethodID *pframes, DWORD *poffsets, DWORD max_frames, DWORD *pframe_count, BOOL *ptruncated, DWORD *pstate);
HRESULT STDMETHODCALLTYPE native_SampleThreadNative(IJevmonNativeSampling *iface, ThreadID thread_id, JVM_METHOD_SAMPLE *psample, MethodID *pframes, DWORD *poffsets, DWORD max_frames, DWORD *pframe_count, BOOL *ptruncated, DWORD *pstate, JEVMON_NATIVE_STACK *pnative);

#endif
