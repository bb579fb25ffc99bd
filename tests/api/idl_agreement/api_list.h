/*
 * api_list.h - every name of the public API that idl/jevmon.idl must repeat, as X-macro
 * lists, and the table each side of tests/api/test_idl_agreement fills from them.
 *
 * from_header.c fills the table from include/jevmon.h, from_idl.c from the header widl
 * generates from idl/jevmon.idl; the two cannot share a translation unit because the
 * names collide.  Adding to jevmon.h means adding here: a name missing from either header
 * then stops the build, and a value that differs fails the test, naming the entry.
 */
#ifndef API_LIST_H
#define API_LIST_H

#include <stddef.h>

#include <windows.h>

/* Interfaces in jevmon.h's order; each one's IID is IID_<interface>. */
#define API_INTERFACES(X)                                                                        \
    X(IJavaEventMonitorIDInfo) X(IJavaEventMonitorIDInfo2) X(IJavaEventMonitorIDInfo3)             \
    X(IJavaEventMonitorIDInfo4) X(IJavaEventMonitor) X(IJavaEventMonitor2) X(IHeapInfoCallback)    \
    X(IObjectAllocationCallback) X(IJavaHeapMonitor) X(IJavaHeapMonitor2) X(IJevmonSampling) \
    X(IJevmonSampling2) X(IJevmonSampling3) X(IJevmonSampling4) X(IJevmonNativeSampling) X(IJevmonAllocationSampling) \
    X(IJevmonCommands) X(IJevmonLockWaitCallback) X(IJevmonLockWaits) X(IJevmonCallBatchCallback) \
    X(IJevmonCallBatches)

/* The documentation's spellings: IID_<alias> and the type <alias>. */
#define API_ALIASES(X) X(IHeapInfoCallBack) X(IObjectAllocationCallBack)

/* Every vtable slot of each interface, in vtable order: the base's slots, then its own. */
#define API_SLOTS_IUnknown(X, i) X(i, QueryInterface) X(i, AddRef) X(i, Release)
#define API_SLOTS_IJavaEventMonitorIDInfo(X, i)                                                  \
    API_SLOTS_IUnknown(X, i)                                                                     \
    X(i, ClassInformation) X(i, GetEventMask) X(i, GetMonitorUsage) X(i, InterpretedMethodInformation) \
    X(i, JITCompiledMethodInformation) X(i, MethodInformation) X(i, ObjectInformation) X(i, SetEventMask)
#define API_SLOTS_IJavaEventMonitorIDInfo2(X, i)                                                 \
    API_SLOTS_IJavaEventMonitorIDInfo(X, i)                                                      \
    X(i, DescribeObject) X(i, FieldInformation) X(i, FreeHandlesToObjects) X(i, GetArrayElement) \
    X(i, GetClassFields) X(i, GetClassPath) X(i, GetCurrentThread) X(i, GetHandlesToObjects)     \
    X(i, GetObjectField) X(i, GetObjectSize) X(i, GetObjectsFromHandles) X(i, GetProfilingCapabilities) \
    X(i, GetSpecialClassProperties) X(i, GetStackTrace) X(i, SampleThreadLocation)               \
    X(i, StaticClassInformation) X(i, ThreadInformation)
#define API_SLOTS_IJavaEventMonitorIDInfo3(X, i)                                                 \
    API_SLOTS_IJavaEventMonitorIDInfo2(X, i)                                                     \
    X(i, ClassInformation2) X(i, EnableMethodCallEvents) X(i, GetMethodEntryParameters)          \
    X(i, GetMethodExitReturnValue)
#define API_SLOTS_IJavaEventMonitorIDInfo4(X, i)                                                 \
    API_SLOTS_IJavaEventMonitorIDInfo3(X, i)                                                     \
    X(i, GetFinalInitializationOptions) X(i, GetMonitorInitializationOptions)                    \
    X(i, SetMonitorInitializationOptions)
#define API_SLOTS_IJavaEventMonitor(X, i)                                                        \
    API_SLOTS_IUnknown(X, i)                                                                     \
    X(i, ExecuteByteCode) X(i, ExecuteSourceLine) X(i, Initialize) X(i, MethodEntry) X(i, MethodExit) \
    X(i, NotifyEvent)
#define API_SLOTS_IJavaEventMonitor2(X, i)                                                       \
    API_SLOTS_IJavaEventMonitor(X, i) X(i, GetPossibleEventCategories) X(i, MethodExit2) X(i, NotifyEvent2)
#define API_SLOTS_IHeapInfoCallback(X, i)                                                        \
    API_SLOTS_IUnknown(X, i) X(i, BeginContainer) X(i, ObjectReferences) X(i, RootReferences)
#define API_SLOTS_IObjectAllocationCallback(X, i) API_SLOTS_IUnknown(X, i) X(i, OnObjectAllocated)
#define API_SLOTS_IJavaHeapMonitor(X, i)                                                         \
    API_SLOTS_IUnknown(X, i)                                                                     \
    X(i, GetContainerDescription) X(i, GetHeapInfo) X(i, GetObjectAge) X(i, ModifyHeapMonitorCapabilities) \
    X(i, NotifyOnObjectAllocations)
#define API_SLOTS_IJavaHeapMonitor2(X, i) API_SLOTS_IJavaHeapMonitor(X, i) X(i, RequestHeapDump)
#define API_SLOTS_IJevmonSampling(X, i) API_SLOTS_IUnknown(X, i) X(i, SampleThreadLocation64)
#define API_SLOTS_IJevmonSampling2(X, i) API_SLOTS_IJevmonSampling(X, i) X(i, SampleThreadStack)
#define API_SLOTS_IJevmonSampling3(X, i) API_SLOTS_IJevmonSampling2(X, i) X(i, SampleThreadFrames)
#define API_SLOTS_IJevmonSampling4(X, i)                                                         \
    API_SLOTS_IJevmonSampling3(X, i) X(i, StartCpuSampling) X(i, StopCpuSampling) X(i, NextCpuSample) \
    X(i, GetCpuSamplingCounts) X(i, GetThreadCpuTime) X(i, SampleThreadState)
#define API_SLOTS_IJevmonNativeSampling(X, i)                                                   \
    API_SLOTS_IUnknown(X, i) X(i, SetNativeSampling) X(i, NextCpuSampleNative) X(i, SampleThreadNative) \
    X(i, GetNativeFrameName) X(i, GetOsThreadName) X(i, GetKernelFrameCounts)
#define API_SLOTS_IJevmonAllocationSampling(X, i)                                                \
    API_SLOTS_IUnknown(X, i) X(i, GetAllocationSamplingInterval) X(i, GetAllocationWeight)
#define API_SLOTS_IJevmonCommands(X, i) API_SLOTS_IUnknown(X, i) X(i, Command)
#define API_SLOTS_IJevmonLockWaitCallback(X, i) API_SLOTS_IUnknown(X, i) X(i, OnLockWait)
#define API_SLOTS_IJevmonLockWaits(X, i) API_SLOTS_IUnknown(X, i) X(i, NotifyOnLockWaits)
#define API_SLOTS_IJevmonCallBatchCallback(X, i) API_SLOTS_IUnknown(X, i) X(i, OnCallBatch)
#define API_SLOTS_IJevmonCallBatches(X, i) API_SLOTS_IUnknown(X, i) X(i, DeliverCallsInBatches) X(i, FlushCallBatches)

#define API_SLOTS(X)                                                                             \
    API_SLOTS_IJavaEventMonitorIDInfo(X, IJavaEventMonitorIDInfo)                                \
    API_SLOTS_IJavaEventMonitorIDInfo2(X, IJavaEventMonitorIDInfo2)                              \
    API_SLOTS_IJavaEventMonitorIDInfo3(X, IJavaEventMonitorIDInfo3)                              \
    API_SLOTS_IJavaEventMonitorIDInfo4(X, IJavaEventMonitorIDInfo4)                              \
    API_SLOTS_IJavaEventMonitor(X, IJavaEventMonitor)                                            \
    API_SLOTS_IJavaEventMonitor2(X, IJavaEventMonitor2)                                          \
    API_SLOTS_IHeapInfoCallback(X, IHeapInfoCallback)                                            \
    API_SLOTS_IObjectAllocationCallback(X, IObjectAllocationCallback)                            \
    API_SLOTS_IJavaHeapMonitor(X, IJavaHeapMonitor)                                              \
    API_SLOTS_IJavaHeapMonitor2(X, IJavaHeapMonitor2)                                            \
    API_SLOTS_IJevmonSampling(X, IJevmonSampling)                                                \
    API_SLOTS_IJevmonSampling2(X, IJevmonSampling2)                                              \
    API_SLOTS_IJevmonSampling3(X, IJevmonSampling3)                                              \
    API_SLOTS_IJevmonSampling4(X, IJevmonSampling4)                                              \
    API_SLOTS_IJevmonNativeSampling(X, IJevmonNativeSampling)                                    \
    API_SLOTS_IJevmonAllocationSampling(X, IJevmonAllocationSampling) \
    API_SLOTS_IJevmonCommands(X, IJevmonCommands)                                                \
    API_SLOTS_IJevmonLockWaitCallback(X, IJevmonLockWaitCallback)                                \
    API_SLOTS_IJevmonLockWaits(X, IJevmonLockWaits)                                              \
    API_SLOTS_IJevmonCallBatchCallback(X, IJevmonCallBatchCallback)                              \
    API_SLOTS_IJevmonCallBatches(X, IJevmonCallBatches)

/* Types: SIZE(type) for every typedef, FIELD(struct, member) for every struct member. */
#define API_LAYOUT(SIZE, FIELD)                                                                  \
    SIZE(UniqueID) SIZE(ClassID) SIZE(MethodID) SIZE(FieldID) SIZE(ObjectID) SIZE(ThreadID)      \
    SIZE(StackID) SIZE(ObjectHandleID) SIZE(BYTE_CODE)                                           \
    SIZE(SourceLineInfo) FIELD(SourceLineInfo, code_offset) FIELD(SourceLineInfo, line_number)   \
    SIZE(JVM_METHOD_SAMPLE) FIELD(JVM_METHOD_SAMPLE, flags) FIELD(JVM_METHOD_SAMPLE, accuracy)   \
    FIELD(JVM_METHOD_SAMPLE, stack_id) FIELD(JVM_METHOD_SAMPLE, method_id)                       \
    FIELD(JVM_METHOD_SAMPLE, location_type) FIELD(JVM_METHOD_SAMPLE, ip) FIELD(JVM_METHOD_SAMPLE, sp) \
    FIELD(JVM_METHOD_SAMPLE, pc_offset)                                                          \
    SIZE(JVM_STATE_FLAGS) SIZE(JAVA_STATE_FLAGS) SIZE(JAVA_EVENT_CATEGORY) SIZE(JVM_EVENT_CATEGORY) \
    SIZE(JAVA_Event_Category) SIZE(JAVA_EXECUTION_MODEL) SIZE(JVM_EVENT_TYPE) SIZE(JVM_EVENT_TYPE2) \
    SIZE(JAVA_EVENT_TYPE2) SIZE(JAVA_MONITOR_INIT_OPTIONS) SIZE(JVM_METHOD_CALL_EVENTS_DISPOSITION) \
    SIZE(JVM_ID_TYPE) SIZE(JVM_CALLING_CONVENTION) SIZE(JVM_CALL_FLAGS) SIZE(JVM_CLASS_PROPERTIES) \
    SIZE(JAVA_FIELD_FLAGS) SIZE(JVM_HEAPMON_CAPABILITIES) SIZE(JVM_OBJECT_FLAGS) SIZE(CONTAINER_TYPE) \
    SIZE(JVM_METHOD_SAMPLE_FLAGS) SIZE(JVM_METHOD_SAMPLE_ACCURACY) SIZE(JVM_METHOD_SAMPLE_LOCATION) \
    SIZE(JVM_METHOD_SAMPLE_LOCATION_TYPES) SIZE(IHeapInfoCallBack) SIZE(IObjectAllocationCallBack) \
    SIZE(JEVMON_THREAD_STATE) SIZE(JEVMON_CPU_SAMPLE_KIND) SIZE(JEVMON_LOCK_WAIT_KIND) SIZE(JEVMON_CPU_SAMPLING_COUNTS)          \
    FIELD(JEVMON_CPU_SAMPLING_COUNTS, period_ns) FIELD(JEVMON_CPU_SAMPLING_COUNTS, cpu_ns)         \
    FIELD(JEVMON_CPU_SAMPLING_COUNTS, expiries) FIELD(JEVMON_CPU_SAMPLING_COUNTS, overruns)        \
    FIELD(JEVMON_CPU_SAMPLING_COUNTS, lost) FIELD(JEVMON_CPU_SAMPLING_COUNTS, taken)               \
    FIELD(JEVMON_CPU_SAMPLING_COUNTS, threads) FIELD(JEVMON_CPU_SAMPLING_COUNTS, untimed_threads) \
    SIZE(JEVMON_NATIVE_WALK) SIZE(JEVMON_NATIVE_STACK) FIELD(JEVMON_NATIVE_STACK, os_thread)         \
    FIELD(JEVMON_NATIVE_STACK, vm_thread) FIELD(JEVMON_NATIVE_STACK, walk) FIELD(JEVMON_NATIVE_STACK, count) \
    FIELD(JEVMON_NATIVE_STACK, kernel) FIELD(JEVMON_NATIVE_STACK, frames) SIZE(JEVMON_KERNEL_FRAMES)       \
    SIZE(JEVMON_KERNEL_FRAME_COUNTS) FIELD(JEVMON_KERNEL_FRAME_COUNTS, state)                     \
    FIELD(JEVMON_KERNEL_FRAME_COUNTS, threads) FIELD(JEVMON_KERNEL_FRAME_COUNTS, threads_without) \
    FIELD(JEVMON_KERNEL_FRAME_COUNTS, skipped) SIZE(JEVMON_CALL_KIND) SIZE(JEVMON_CALL_RECORD)   \
    FIELD(JEVMON_CALL_RECORD, ticks) FIELD(JEVMON_CALL_RECORD, method) FIELD(JEVMON_CALL_RECORD, kind)

/* Integer constants: every enumerator, then the #defines. */
#define API_VALUES(X)                                                                            \
    X(JVM_STATE_INTERPRETER_ENABLED) X(JVM_STATE_FAST_INTERPRETER_ENABLED)                       \
    X(JVM_STATE_JIT_COMPILER_ENABLED) X(JVM_STATE_DEBUGGER_ENABLED) X(ALL_JVM_FLAGS)             \
    X(JVM_MONITOR_NONE) X(JVM_MONITOR_CLASS_LOADS) X(JVM_MONITOR_METHOD_CALLS)                   \
    X(JVM_MONITOR_JIT_COMPILATION) X(JVM_MONITOR_BYTE_CODE_EXECUTION)                            \
    X(JVM_MONITOR_SOURCE_LINE_EXECUTION) X(JVM_MONITOR_EXCEPTIONS) X(JVM_MONITOR_GARBAGE_COLLECTIONS) \
    X(JVM_MONITOR_THREADS) X(JVM_MONITOR_SAMPLING) X(JVM_MONITOR_EXCEPTION_UNWIND)                \
    X(JVM_MONITOR_SPECIFIC_METHOD_CALLS) X(JVM_MONITOR_SPECIFIC_METHODS) X(ALL_JVM_MONITOR_EVENTS) \
    X(JVM_EXECUTION_INVALID) X(JVM_EXECUTION_JIT_COMPILED) X(JVM_EXECUTION_NATIVE)               \
    X(JVM_EXECUTION_INTERPRETED) X(JVM_EXECUTION_FAST_INTERPRETED) X(JVM_EXECUTION_COM)          \
    X(JVM_EVENT_TYPE_EXCEPTION_OCCURRED) X(JVM_EVENT_TYPE_THREAD_CREATE) X(JVM_EVENT_TYPE_THREAD_DESTROY) \
    X(JVM_EVENT_TYPE_CLASS_LOAD_STARTED) X(JVM_EVENT_TYPE_CLASS_LOAD_FINISHED)                   \
    X(JVM_EVENT_TYPE_CLASS_UNLOAD) X(JVM_EVENT_TYPE_JIT_COMPILE_STARTED)                         \
    X(JVM_EVENT_TYPE_JIT_COMPILE_FINISHED) X(JVM_EVENT_TYPE_GC_STARTED) X(JVM_EVENT_TYPE_GC_FINISHED) \
    X(JVM_EVENT_TYPE_SHUTDOWN) X(JVM_EVENT_TYPE_RESERVED_14) X(JVM_EVENT_TYPE_RESERVED_15)       \
    X(JVM_EVENT_TYPE_CLASS_LOAD_FAILED)                                                          \
    X(JVM_EVENT_TYPE2_THREAD_SET_NAME) X(JVM_EVENT_TYPE2_EXCEPTION_OCCURRED)                     \
    X(JVM_EVENT_TYPE2_EXCEPTION_THROWN) X(JVM_EVENT_TYPE2_EXCEPTION_UNWIND) X(JVM_EVENT_TYPE2_STACK_TRACE) \
    X(JVM_EVENT_TYPE2_INITIALIZED) X(JVM_EVENT_TYPE2_MONITORS_INITIALIZED)                       \
    X(JVM_INIT_OPT_FP_SAFE_METHOD_CALLS) X(JVM_INIT_OPT_GC_SAFE_METHOD_CALLS)                    \
    X(JVM_INIT_OPT_RETURN_VALUE_NOT_NEEDED) X(JVM_INIT_OPT_WONT_TOGGLE_METHOD_CALL_EVENTS)       \
    X(JVM_INIT_OPT_DONT_NEED_ALLOCATION_CALLBACK) X(JVM_INIT_OPT_DONT_NEED_ALLOCATION_COUNTS)    \
    X(ALL_JVM_INIT_OPTIONS)                                                                      \
    X(JVM_PROHIBIT_METHOD_CALL_EVENTS) X(JVM_PERMIT_METHOD_CALL_EVENTS) X(JVM_QUERY_DISPOSITION) \
    X(JVM_ID_FIRST) X(JVM_ID_THREAD) X(JVM_ID_STACK) X(JVM_ID_OBJECT) X(JVM_ID_OBJECT_HANDLE)    \
    X(JVM_ID_METHOD) X(JVM_ID_FIELD) X(JVM_ID_CLASS) X(JVM_CALL_PASCAL) X(JVM_CALL_CDECL) X(JVM_CALL_THIS) \
    X(JVM_CLS_VARIABLE_SIZE) X(JVM_CLS_HAS_DESCRIPTION) X(ALL_JVM_CLS_PROPERTIES)                \
    X(JVM_FIELD_STATIC) X(JVM_FIELD_OBJECTREF) X(ALL_JVM_FIELD_FLAGS) X(JVM_HEAPMON_OBJECT_AGE)  \
    X(JVM_OBJ_ALREADY_REPORTED) X(JVM_OBJ_ALREADY_VISITED) X(JVM_OBJ_MORE_REFERENCES)            \
    X(ALL_JVM_OBJECT_FLAGS)                                                                      \
    X(C_BEGIN) X(C_RT_THREAD) X(C_RT_JIT) X(C_RT_NATIVE) X(C_RT_NATIVEGC) X(C_RT_COM)            \
    X(C_RT_INTERPRETED) X(C_RT_FASTINTERPRETED) X(C_RT_CLASS) X(C_RT_FINALIZE) X(C_RT_INTERNAL)  \
    X(C_RT_JNI_GLOBAL) X(C_HEAP) X(C_END)                                                        \
    X(JVM_SAMPLE_STACK_ID) X(JVM_SAMPLE_METHOD_ID) X(JVM_SAMPLE_LOCATION) X(JVM_SAMPLE_GENERATED_CODE) \
    X(JVM_SAMPLE_PC) X(ALL_JVM_SAMPLE_FIELDS) X(ALL_JVM_SAMPLE_FLAGS)                            \
    X(JVM_SAMPLE_NONE) X(JVM_SAMPLE_POOR) X(JVM_SAMPLE_EXACT)                                    \
    X(JVM_LOCATION_UNKNOWN) X(JVM_LOCATION_JIT) X(JVM_LOCATION_NATIVE) X(JVM_LOCATION_GC)        \
    X(JVM_LOCATION_COMPILER) X(JVM_LOCATION_LOADER) X(JVM_LOCATION_DEBUGGER) X(JVM_LOCATION_SECURITY) \
    X(JVM_LOCATION_PROFILER) X(JVM_LOCATION_BLOCKING)                                            \
    X(MSJDBG_FL_REQUIRE_BYTE_CODE_EXECUTION) X(MSJDBG_FL_ENABLE_PROFILING) X(MSJDBG_SEND_START_CLASS_EVENTS) \
    X(JEVMON_NO_PC_OFFSET)                                                                       \
    X(JEVMON_THREAD_RUNNING) X(JEVMON_THREAD_NATIVE) X(JEVMON_THREAD_BLOCKED) X(JEVMON_THREAD_WAITING) \
    X(JEVMON_THREAD_SLEEPING) X(JEVMON_CPU_SAMPLE_JAVA) X(JEVMON_CPU_SAMPLE_NO_JAVA_FRAMES)       \
    X(JEVMON_CPU_SAMPLE_GC) X(JEVMON_CPU_SAMPLE_UNWALKABLE) X(JEVMON_NATIVE_COMPLETE)            \
    X(JEVMON_NATIVE_STOPPED) X(JEVMON_NATIVE_NOT_WALKED) X(JEVMON_NATIVE_TO_JAVA) X(JEVMON_NATIVE_FRAMES)                  \
    X(JEVMON_NATIVE_VM_THREADS) X(JEVMON_NATIVE_KERNEL_FRAMES) X(JEVMON_KERNEL_FRAMES_TAKEN)        \
    X(JEVMON_KERNEL_FRAMES_NOT_ASKED) X(JEVMON_KERNEL_FRAMES_REFUSED) X(JEVMON_KERNEL_FRAMES_NO_TIMERS) \
    X(JEVMON_KERNEL_FRAMES_HIDDEN) X(JEVMON_KERNEL_FRAMES_NO_BUFFER) X(JEVMON_NATIVE_MAX_FRAMES) X(JEVMON_LOCK_WAIT_MONITOR) X(JEVMON_LOCK_WAIT_PARK) \
    X(JEVMON_INIT_OPT_DONT_NEED_THREAD_RENAMES) X(JEVMON_INIT_OPT_DONT_NEED_CLASS_LOAD_FAILURES)  \
    X(JEVMON_CALL_ENTERED) X(JEVMON_CALL_RETURNED) X(JEVMON_CALL_UNWOUND)

/* String constants. */
#define API_STRINGS(X) X(JEVMON_JAVA_VM_KEY) X(JEVMON_MONITORS_KEY)

/* ---- The table: one slot per entry, indexed by the enumerations below --------------- */
#define API_INDEX_IID(name) API_IID_##name,
#define API_INDEX_VTBL(iface) API_VTBL_##iface,
#define API_INDEX_SLOT(iface, method) API_SLOT_##iface##_##method,
#define API_INDEX_SIZE(type) API_SIZE_##type,
#define API_INDEX_FIELD(type, member) API_FIELD_##type##_##member,
#define API_INDEX_VALUE(name) API_VALUE_##name,
#define API_INDEX_STRING(name) API_STRING_##name,
enum { API_INTERFACES(API_INDEX_IID) API_ALIASES(API_INDEX_IID) API_IID_COUNT };
enum { API_INTERFACES(API_INDEX_VTBL) API_VTBL_COUNT };
enum { API_SLOTS(API_INDEX_SLOT) API_SLOT_COUNT };
enum { API_LAYOUT(API_INDEX_SIZE, API_INDEX_FIELD) API_LAYOUT_COUNT };
enum { API_VALUES(API_INDEX_VALUE) API_VALUE_COUNT };
enum { API_STRINGS(API_INDEX_STRING) API_STRING_COUNT };

typedef struct api_table {
    GUID iids[API_IID_COUNT];
    size_t vtbl_sizes[API_VTBL_COUNT];
    size_t slot_offsets[API_SLOT_COUNT];
    size_t layout[API_LAYOUT_COUNT]; /* sizeof and offsetof */
    long long values[API_VALUE_COUNT];
    const char *strings[API_STRING_COUNT];
} api_table;

void api_fill_from_header(api_table *t);
void api_fill_from_idl(api_table *t);

#endif /* API_LIST_H */
