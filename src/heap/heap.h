/*
 * heap.h - the heap monitor (IJavaHeapMonitor and IJavaHeapMonitor2).
 *
 * heap_monitor.c is the COM object a monitor gets by QueryInterface on its IDInfo; it
 * keeps each monitor's registrations here (registrations.c).  heap_alloc.c turns JVMTI
 * SampledObjectAlloc into OnObjectAllocated and weighs each one; heap_dump.c walks the heap
 * after garbage collections (on its own thread, never inside the GC callback) and reports
 * it as containers to IHeapInfoCallback.  Dumps and object ages use the tags of JVMTI
 * environments of their own, so they never disturb the ClassID and ThreadID tags.
 */
#ifndef JEVMON_HEAP_H
#define JEVMON_HEAP_H

#include "dispatch/monitor_table.h"
#include "jevmon.h"
#include "vm/vm.h"

/* At load, before the monitors initialize (they may register callbacks and ask for dumps in
 * Initialize): the JVMTI environments whose tags dumps and ages use. */
void jv_heap_init(JavaVM *vm);
/* At load, after the monitors initialized: the allocation and GC capabilities (none for
 * allocations when every monitor was granted both DONT_NEED_ALLOCATION options). */
void jv_heap_load(void);
/* VMInit / VMDeath: the dump thread runs from VMInit, or from the first dump callback
 * registered after it, until VMDeath (a run without dump callbacks starts none). */
void jv_heap_start(void);
void jv_heap_stop(void);
/* heap_dump.c: starts the dump thread unless it runs (one caller at a time); stops it. */
void jv_heap_dumper_start(void);
void jv_heap_dumper_stop(void);

/* heap_monitor.c: a new IJavaHeapMonitor2 object for the monitor of idinfo, in *ppv. */
HRESULT jv_heap_monitor_create(IJavaEventMonitorIDInfo4 *idinfo, void **ppv);

/* Registrations, per monitor (NULL unregisters; the old one is released). */
HRESULT jv_heap_set_allocation_callback(jv_monitor *m, IObjectAllocationCallback *callback);
HRESULT jv_heap_set_dump_callback(jv_monitor *m, IHeapInfoCallback *callback);
/* The monitor's own reference to its callback (AddRef'd), or NULL. */
IObjectAllocationCallback *jv_heap_allocation_callback(const jv_monitor *m);
IHeapInfoCallback *jv_heap_dump_callback(const jv_monitor *m);
/* Does any monitor have an allocation callback / a dump callback? */
int jv_heap_allocations_wanted(void);
int jv_heap_dumps_wanted(void);
/* Are allocations tracked: some monitor has a callback, or some monitor was not granted
 * DONT_NEED_ALLOCATION_COUNTS and so gets ClassInformation's objects-created counts? */
int jv_heap_allocations_tracked(void);
/* Object ages are kept (JVM_HEAPMON_OBJECT_AGE, switched on during some monitor's Initialize). */
int jv_heap_ages_kept(void);
HRESULT jv_heap_modify_capabilities(jv_monitor *m, DWORD capabilities, BOOL enable, DWORD *enabled);
/* Releases every callback (at shutdown, from jv_monitors_shutdown: after every mask is off and no
 * callback of any kind runs; none is waited for here). */
void jv_heap_release_callbacks(void);

/* heap_alloc.c: the JVMTI callback. */
void JNICALL jv_on_sampled_object_alloc(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jobject object,
                                        jclass klass, jlong size);
/* The allocation sampling interval in bytes (docs/heap-monitor.md: the setting and its sources). */
jint jv_heap_sampling_interval(void);
/* The agent option allocation_interval=: the interval, whatever the environment and the registry say. */
void jv_heap_choose_sampling_interval(jint bytes);
/* IJevmonAllocationSampling::GetAllocationWeight: the objects and bytes the allocation of object
 * stands for, while this thread reports it to OnObjectAllocated; E_INVALIDARG otherwise. */
HRESULT jv_heap_allocation_weight(ObjectID object, double *objects, ULONGLONG *bytes);
/* At VMInit, once the events are on: makes the main thread's next allocation its next
 * sampling point (see heap_alloc.c). */
void jv_heap_flush_sampler(JNIEnv *env);

/* heap_dump.c */
/* After each garbage collection (inside the GC callback: no JNI): counts it and schedules a dump. */
void jv_heap_gc_finished(void);
/* A dump as soon as the dump thread can; E_FAIL when no monitor has a dump callback. */
HRESULT jv_heap_request_dump(void);
/* GCs survived by the object since its allocation was reported, or since it was first asked about. */
HRESULT jv_heap_object_age(jobject object, DWORD *age);
/* Marks a new object's birth for GetObjectAge (allocation events, when ages are kept). */
void jv_heap_note_birth(jobject object);
/* The JVMTI environments whose tags number a dump's objects, mark them for listing, and
 * hold object births; NULL without. */
jvmtiEnv *jv_heap_env(void);
jvmtiEnv *jv_heap_mark_env(void);
jvmtiEnv *jv_heap_age_env(void);

#endif
