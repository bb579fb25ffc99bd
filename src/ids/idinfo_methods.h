/*
 * idinfo_methods.h - the IDInfo methods that query the VM, each implemented in the file of its
 * concern: in ids/ class.c, method.c, field.c, object.c, object_state.c, describe.c, thread.c,
 * handles.c; in sampling/ sample.c, cpu_sample.c and native_walk.c; in events/ method_call.c (the method-call
 * values); in idinfo/ stack.c, specific_calls.c and classpath.c (the methods that act through the
 * calling monitor).
 */
#ifndef JEVMON_IDINFO_METHODS_H
#define JEVMON_IDINFO_METHODS_H

#include "jevmon.h"

HRESULT STDMETHODCALLTYPE idinfo_ClassInformation(IJavaEventMonitorIDInfo4 *iface, ClassID class_id, LPSTR *ppclass_name, LPSTR *ppsource_file_name, int *pmethods, MethodID **ppmethod_ids, __int64 *pobjects_created);
HRESULT STDMETHODCALLTYPE idinfo_GetMonitorUsage(IJavaEventMonitorIDInfo4 *iface, ObjectID object_id, ThreadID *powner_thread, unsigned *pentry_count, unsigned *pwaiter_count);
HRESULT STDMETHODCALLTYPE idinfo_InterpretedMethodInformation(IJavaEventMonitorIDInfo4 *iface, MethodID method_id, unsigned int *pbyte_code_length, BYTE_CODE **ppbyte_codes);
HRESULT STDMETHODCALLTYPE idinfo_JITCompiledMethodInformation(IJavaEventMonitorIDInfo4 *iface, MethodID method_id, unsigned int *pjit_code_length, unsigned char **ppjit_code);
HRESULT STDMETHODCALLTYPE idinfo_MethodInformation(IJavaEventMonitorIDInfo4 *iface, MethodID method_id, LPSTR *ppmethod_name, ClassID *pclass_id, JAVA_EXECUTION_MODEL *pexec, int *psource_line_info_length, SourceLineInfo **ppsource_line_info);
HRESULT STDMETHODCALLTYPE idinfo_ObjectInformation(IJavaEventMonitorIDInfo4 *iface, ObjectID object_id, ClassID *pclass_id);
HRESULT STDMETHODCALLTYPE idinfo_DescribeObject(IJavaEventMonitorIDInfo4 *iface, ObjectID object_id, LPWSTR *pdescr);
HRESULT STDMETHODCALLTYPE idinfo_FieldInformation(IJavaEventMonitorIDInfo4 *iface, FieldID field_id, LPSTR *pname, DWORD *pflags);
HRESULT STDMETHODCALLTYPE idinfo_FreeHandlesToObjects(IJavaEventMonitorIDInfo4 *iface, unsigned int nhandles, ObjectHandleID *pobject_handles);
HRESULT STDMETHODCALLTYPE idinfo_GetArrayElement(IJavaEventMonitorIDInfo4 *iface, ObjectID object_id, unsigned index, __int64 *pvalue);
HRESULT STDMETHODCALLTYPE idinfo_GetClassFields(IJavaEventMonitorIDInfo4 *iface, ClassID class_id, unsigned *pnfields, FieldID **ppfield_ids);
HRESULT STDMETHODCALLTYPE idinfo_GetClassPath(IJavaEventMonitorIDInfo4 *iface, LPSTR *ppszClassPath);
HRESULT STDMETHODCALLTYPE idinfo_GetCurrentThread(IJavaEventMonitorIDInfo4 *iface, ThreadID *pthread_id);
HRESULT STDMETHODCALLTYPE idinfo_GetHandlesToObjects(IJavaEventMonitorIDInfo4 *iface, unsigned nobjects, ObjectID *pobject_ids, ObjectHandleID *pobject_handles);
HRESULT STDMETHODCALLTYPE idinfo_GetObjectField(IJavaEventMonitorIDInfo4 *iface, ObjectID object_id, FieldID field_id, __int64 *pvalue);
HRESULT STDMETHODCALLTYPE idinfo_GetObjectSize(IJavaEventMonitorIDInfo4 *iface, ObjectID object_id, DWORD *psize);
HRESULT STDMETHODCALLTYPE idinfo_GetObjectsFromHandles(IJavaEventMonitorIDInfo4 *iface, unsigned nhandles, ObjectHandleID *pobject_handles, ObjectID *pobject_ids);
HRESULT STDMETHODCALLTYPE idinfo_GetSpecialClassProperties(IJavaEventMonitorIDInfo4 *iface, unsigned *pnspecial_classes, ClassID **ppclass_ids, DWORD **ppclass_flags);
HRESULT STDMETHODCALLTYPE idinfo_GetStackTrace(IJavaEventMonitorIDInfo4 *iface, ThreadID thread_id);
HRESULT STDMETHODCALLTYPE idinfo_SampleThreadLocation(IJavaEventMonitorIDInfo4 *iface, ThreadID thread_id, JVM_METHOD_SAMPLE *psample);
HRESULT STDMETHODCALLTYPE sampling_SampleThreadLocation64(IJevmonSampling4 *iface, ThreadID thread_id, JVM_METHOD_SAMPLE *psample, ULONGLONG *pip, ULONGLONG *psp);
HRESULT STDMETHODCALLTYPE sampling_SampleThreadStack(IJevmonSampling4 *iface, ThreadID thread_id, JVM_METHOD_SAMPLE *psample, MethodID *pframes, DWORD max_frames, DWORD *pframe_count, BOOL *ptruncated);
HRESULT STDMETHODCALLTYPE sampling_SampleThreadFrames(IJevmonSampling4 *iface, ThreadID thread_id, JVM_METHOD_SAMPLE *psample, MethodID *pframes, DWORD *poffsets, DWORD max_frames, DWORD *pframe_count, BOOL *ptruncated);
HRESULT STDMETHODCALLTYPE sampling_StartCpuSampling(IJevmonSampling4 *iface, ULONGLONG period_ns);
HRESULT STDMETHODCALLTYPE sampling_StopCpuSampling(IJevmonSampling4 *iface);
HRESULT STDMETHODCALLTYPE sampling_NextCpuSample(IJevmonSampling4 *iface, MethodID *pframes, DWORD *poffsets, DWORD max_frames, DWORD *pframe_count, BOOL *ptruncated, DWORD *pkind, DWORD *pperiods);
HRESULT STDMETHODCALLTYPE sampling_GetCpuSamplingCounts(IJevmonSampling4 *iface, JEVMON_CPU_SAMPLING_COUNTS *pcounts);
HRESULT STDMETHODCALLTYPE sampling_GetThreadCpuTime(IJevmonSampling4 *iface, ThreadID thread_id, ULONGLONG *pcpu_ns);
HRESULT STDMETHODCALLTYPE sampling_SampleThreadState(IJevmonSampling4 *iface, ThreadID thread_id, JVM_METHOD_SAMPLE *psample, MethodID *pframes, DWORD *poffsets, DWORD max_frames, DWORD *pframe_count, BOOL *ptruncated, DWORD *pstate);
HRESULT STDMETHODCALLTYPE native_SetNativeSampling(IJevmonNativeSampling *iface, DWORD flags);
HRESULT STDMETHODCALLTYPE native_NextCpuSampleNative(IJevmonNativeSampling *iface, MethodID *pframes, DWORD *poffsets, DWORD max_frames, DWORD *pframe_count, BOOL *ptruncated, DWORD *pkind, DWORD *pperiods, JEVMON_NATIVE_STACK *pnative);
HRESULT STDMETHODCALLTYPE native_SampleThreadNative(IJevmonNativeSampling *iface, ThreadID thread_id, JVM_METHOD_SAMPLE *psample, MethodID *pframes, DWORD *poffsets, DWORD max_frames, DWORD *pframe_count, BOOL *ptruncated, DWORD *pstate, JEVMON_NATIVE_STACK *pnative);
HRESULT STDMETHODCALLTYPE native_GetNativeFrameName(IJevmonNativeSampling *iface, ULONGLONG address, LPSTR *pname);
HRESULT STDMETHODCALLTYPE native_GetOsThreadName(IJevmonNativeSampling *iface, DWORD os_thread, LPSTR *pname);
HRESULT STDMETHODCALLTYPE native_GetKernelFrameCounts(IJevmonNativeSampling *iface, JEVMON_KERNEL_FRAME_COUNTS *pcounts);
HRESULT STDMETHODCALLTYPE idinfo_StaticClassInformation(IJavaEventMonitorIDInfo4 *iface, ClassID class_id, DWORD *pStaticDataSize, DWORD *pInstanceSize);
HRESULT STDMETHODCALLTYPE idinfo_ThreadInformation(IJavaEventMonitorIDInfo4 *iface, ThreadID thread_id, DWORD *pwin32_thread_id);
HRESULT STDMETHODCALLTYPE idinfo_ClassInformation2(IJavaEventMonitorIDInfo4 *iface, ClassID class_id, ClassID *psuperclass, ClassID **ppinterfaces, unsigned int *pinterfaces_length, MethodID **ppimplemented_methods, unsigned int *pimplemented_methods_length);
HRESULT STDMETHODCALLTYPE idinfo_EnableMethodCallEvents(IJavaEventMonitorIDInfo4 *iface, ObjectID unique_id, JVM_ID_TYPE idtype, JVM_METHOD_CALL_EVENTS_DISPOSITION disposition);
HRESULT STDMETHODCALLTYPE idinfo_GetMethodEntryParameters(IJavaEventMonitorIDInfo4 *iface, DWORD **ppslots, DWORD **ppreserved, JVM_CALLING_CONVENTION *pcalling_convention, DWORD *pflags);
HRESULT STDMETHODCALLTYPE idinfo_GetMethodExitReturnValue(IJavaEventMonitorIDInfo4 *iface, MethodID *preturning_method_id, __int64 **pret_value);

#endif
