/*
 * jevmon.h - the Microsoft VM for Java profiler interfaces ("event monitors").
 *
 * The header a profiler written for the Microsoft VM compiles against, on
 * Windows (MinGW-w64, x86 and x64) and on Linux, from C (C89 and later) or C++.
 * Names, signatures and values follow the Microsoft VM's reference, summarized in
 * docs/api.md.
 *
 * Where the original Jevmon.h is not known, the choices are marked RESOLUTION and
 * listed in docs/api.md ("Resolutions"):
 *   - the interface IIDs below are jevmon's own (provisional); they are assigned
 *     here and nowhere else in C, and idl/jevmon.idl repeats them (a test checks
 *     that the two agree).  libjevsdk defines them, as uuid.lib does the system's;
 *     a source that includes <initguid.h> first defines them itself, and both ways
 *     link together;
 *   - vtable order: IUnknown, then the base interface, then each interface's own
 *     methods in alphabetical order (the order the documentation lists them);
 *   - UniqueID is ULONG_PTR: the very type of the original's DWORD (unsigned long) on
 *     Win32, pointer-sized on 64-bit Windows and on Linux;
 *   - JVM_ID_TYPE after JVM_ID_OBJECT continues in the order of the ID typedefs.
 * What the original header is known to have (the opening of the SDK for Java 4.0's
 * jevmon.idl; spec section 0.10) it has here too: the include guard __JEVMON_H__, the
 * ID typedefs in the original's order and JVM_ID_FIRST .. JVM_ID_OBJECT.
 */
#ifndef __JEVMON_H__
#define __JEVMON_H__

#ifdef _WIN32
#include <windows.h>
#include <objbase.h>
#else
#include "jevmon_compat.h"
#endif

/* ---- Interface IIDs (RESOLUTION: provisional, jevmon's own) ---------------------- */
DEFINE_GUID(IID_IJavaEventMonitor, 0x2557978F, 0x1082, 0x4731, 0x9A, 0xB2, 0x07, 0xC0, 0xD1, 0x74, 0x9B, 0x94);
DEFINE_GUID(IID_IJavaEventMonitor2, 0x5714F170, 0xB2DE, 0x42F7, 0xAB, 0xAF, 0xAC, 0x8D, 0x4B, 0x57, 0xA9, 0x58);
DEFINE_GUID(IID_IJavaEventMonitorIDInfo, 0x4F18B196, 0x8A60, 0x4839, 0x85, 0xF7, 0xEE, 0x93, 0x2C, 0xB9, 0x2C, 0xD1);
DEFINE_GUID(IID_IJavaEventMonitorIDInfo2, 0xD3A4C240, 0x2EAB, 0x48D6, 0x95, 0xF4, 0x69, 0xD0, 0x59, 0xA2, 0x4B, 0x5A);
DEFINE_GUID(IID_IJavaEventMonitorIDInfo3, 0x1390244E, 0x8A92, 0x4012, 0xB3, 0xDC, 0x6C, 0x03, 0xDB, 0x4F, 0x60, 0x82);
DEFINE_GUID(IID_IJavaEventMonitorIDInfo4, 0xA5F3D325, 0x3B64, 0x4CF7, 0x8B, 0x30, 0x5D, 0xF5, 0xB7, 0x3B, 0xF4, 0x38);
DEFINE_GUID(IID_IJavaHeapMonitor, 0x8483AA2B, 0x1DB2, 0x4ADE, 0xA7, 0x5E, 0x7E, 0xB3, 0x62, 0xD8, 0x95, 0x35);
DEFINE_GUID(IID_IJavaHeapMonitor2, 0xC3113E92, 0x4355, 0x4C25, 0x8E, 0x6C, 0x36, 0xC8, 0x83, 0x57, 0x13, 0x3D);
DEFINE_GUID(IID_IHeapInfoCallback, 0x61120FE3, 0x2D49, 0x4391, 0xA9, 0xA0, 0xB4, 0x93, 0x9A, 0x54, 0xAD, 0x3E);
DEFINE_GUID(IID_IObjectAllocationCallback, 0xC26482B2, 0xDA55, 0x46BE, 0xA2, 0xF1, 0x53, 0x6F, 0x57, 0xB8, 0x63, 0x30);
DEFINE_GUID(IID_IJevmonSampling, 0xCC2A2404, 0xA033, 0x4AB2, 0x83, 0xF9, 0x98, 0xEA, 0x8B, 0x4E, 0xD1, 0xE1);
DEFINE_GUID(IID_IJevmonSampling2, 0x48E9F2CF, 0xD604, 0x4E08, 0xA7, 0x2A, 0xCD, 0xF2, 0x99, 0x87, 0xD2, 0x93);
DEFINE_GUID(IID_IJevmonSampling3, 0x5D04F96C, 0xC671, 0x4138, 0x9A, 0x4F, 0x28, 0x92, 0x47, 0x32, 0x2E, 0xCF);
DEFINE_GUID(IID_IJevmonSampling4, 0x9B6E1F3A, 0x42C7, 0x4D8E, 0xB1, 0xA5, 0x7C, 0x3D, 0x2E, 0x9F, 0x6A, 0x14);
DEFINE_GUID(IID_IJevmonAllocationSampling, 0x228C9E1D, 0xB71C, 0x4EE6, 0xA2, 0x60, 0x75, 0xEE, 0x53, 0x28, 0x05, 0xF9);
DEFINE_GUID(IID_IJevmonNativeSampling, 0x6E2B8C41, 0x9D37, 0x4F0A, 0xB5, 0x1E, 0x3A, 0x84, 0xC7, 0x2D, 0x95, 0x6B);
DEFINE_GUID(IID_IJevmonCommands, 0x1F197E2A, 0x3FDC, 0x4D41, 0x91, 0x05, 0xC7, 0x51, 0xB3, 0xAE, 0xC7, 0x65);
DEFINE_GUID(IID_IJevmonLockWaits, 0x6C0E8B52, 0x9D3A, 0x4F61, 0xB7, 0x2E, 0x41, 0xA9, 0x0C, 0x5D, 0x83, 0x27);
DEFINE_GUID(IID_IJevmonLockWaitCallback, 0xE47A1D09, 0x2B6C, 0x4A38, 0x8F, 0x13, 0x9C, 0x65, 0xD2, 0x7E, 0x04, 0xB1);
DEFINE_GUID(IID_IJevmonCallBatches, 0xCA8983FC, 0xAFB0, 0x40BF, 0x96, 0x23, 0x62, 0xA7, 0x76, 0x77, 0xE7, 0xBA);
DEFINE_GUID(IID_IJevmonCallBatchCallback, 0x6EBAAB6D, 0xBE65, 0x4FD1, 0xAA, 0x9F, 0xF1, 0xDC, 0x8F, 0x9A, 0x23, 0xD1);
/* Spelling variants used by the documentation. */
#define IID_IHeapInfoCallBack IID_IHeapInfoCallback
#define IID_IObjectAllocationCallBack IID_IObjectAllocationCallback

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Opaque IDs ------------------------------------------------------------------------
 * The original is `typedef DWORD UniqueID;` for a 32-bit VM.  ULONG_PTR is that very type
 * on Win32 (unsigned long), so code that keeps IDs in DWORDs compiles unchanged there, and
 * it is pointer-sized on 64-bit Windows and on Linux (RESOLUTION), where IDs carry more
 * than 32 bits.  The ID types follow in the original's order. */
typedef ULONG_PTR UniqueID;
typedef UniqueID ThreadID;
typedef UniqueID StackID;
typedef UniqueID ObjectID;
typedef UniqueID ObjectHandleID;
typedef UniqueID MethodID;
typedef UniqueID FieldID;
typedef UniqueID ClassID;

/* RESOLUTION: one byte of bytecode. */
typedef unsigned char BYTE_CODE;

/* RESOLUTION: one line-number table entry: bytecode offset and source line. */
typedef struct SourceLineInfo {
    DWORD code_offset;
    DWORD line_number;
} SourceLineInfo;

/* ---- Enumerations -------------------------------------------------------------------- */
typedef enum JVM_STATE_FLAGS {
    JVM_STATE_INTERPRETER_ENABLED = 0x1,
    JVM_STATE_FAST_INTERPRETER_ENABLED = 0x2,
    JVM_STATE_JIT_COMPILER_ENABLED = 0x4,
    JVM_STATE_DEBUGGER_ENABLED = 0x8,
    ALL_JVM_FLAGS = 0xF
} JVM_STATE_FLAGS;
typedef JVM_STATE_FLAGS JAVA_STATE_FLAGS;

typedef enum JAVA_EVENT_CATEGORY {
    JVM_MONITOR_NONE = 0x0,
    JVM_MONITOR_CLASS_LOADS = 0x1,
    JVM_MONITOR_METHOD_CALLS = 0x2,
    JVM_MONITOR_JIT_COMPILATION = 0x4,
    JVM_MONITOR_BYTE_CODE_EXECUTION = 0x8,
    JVM_MONITOR_SOURCE_LINE_EXECUTION = 0x10,
    JVM_MONITOR_EXCEPTIONS = 0x20,
    JVM_MONITOR_GARBAGE_COLLECTIONS = 0x80,
    JVM_MONITOR_THREADS = 0x100,
    JVM_MONITOR_SAMPLING = 0x200,
    JVM_MONITOR_EXCEPTION_UNWIND = 0x400,
    JVM_MONITOR_SPECIFIC_METHOD_CALLS = 0x800,
    JVM_MONITOR_SPECIFIC_METHODS = 0x800,
    ALL_JVM_MONITOR_EVENTS = 0xFFF
} JAVA_EVENT_CATEGORY;
typedef JAVA_EVENT_CATEGORY JVM_EVENT_CATEGORY;
typedef JAVA_EVENT_CATEGORY JAVA_Event_Category;

typedef enum JAVA_EXECUTION_MODEL {
    JVM_EXECUTION_INVALID = -1,
    JVM_EXECUTION_JIT_COMPILED = 0,
    JVM_EXECUTION_NATIVE = 1,
    JVM_EXECUTION_INTERPRETED = 2,
    JVM_EXECUTION_FAST_INTERPRETED = 3,
    JVM_EXECUTION_COM = 4
} JAVA_EXECUTION_MODEL;

typedef enum JVM_EVENT_TYPE {
    JVM_EVENT_TYPE_EXCEPTION_OCCURRED = 0,
    JVM_EVENT_TYPE_THREAD_CREATE = 4,
    JVM_EVENT_TYPE_THREAD_DESTROY = 5,
    JVM_EVENT_TYPE_CLASS_LOAD_STARTED = 6,
    JVM_EVENT_TYPE_CLASS_LOAD_FINISHED = 7,
    JVM_EVENT_TYPE_CLASS_UNLOAD = 8,
    JVM_EVENT_TYPE_JIT_COMPILE_STARTED = 9,
    JVM_EVENT_TYPE_JIT_COMPILE_FINISHED = 10,
    JVM_EVENT_TYPE_GC_STARTED = 11,
    JVM_EVENT_TYPE_GC_FINISHED = 12,
    JVM_EVENT_TYPE_SHUTDOWN = 13, /* RESOLUTION: printed as 12 in the documentation */
    JVM_EVENT_TYPE_RESERVED_14 = 14,
    JVM_EVENT_TYPE_RESERVED_15 = 15,
    JVM_EVENT_TYPE_CLASS_LOAD_FAILED = 17
} JVM_EVENT_TYPE;

typedef enum JVM_EVENT_TYPE2 {
    JVM_EVENT_TYPE2_THREAD_SET_NAME = 1025,
    JVM_EVENT_TYPE2_EXCEPTION_OCCURRED = 1026,
    JVM_EVENT_TYPE2_EXCEPTION_THROWN = 1027,
    JVM_EVENT_TYPE2_EXCEPTION_UNWIND = 1028,
    JVM_EVENT_TYPE2_STACK_TRACE = 1029,
    JVM_EVENT_TYPE2_INITIALIZED = 1030,
    JVM_EVENT_TYPE2_MONITORS_INITIALIZED = 1031
} JVM_EVENT_TYPE2;
typedef JVM_EVENT_TYPE2 JAVA_EVENT_TYPE2;

typedef enum JAVA_MONITOR_INIT_OPTIONS {
    JVM_INIT_OPT_FP_SAFE_METHOD_CALLS = 0x1,
    JVM_INIT_OPT_GC_SAFE_METHOD_CALLS = 0x2,
    JVM_INIT_OPT_RETURN_VALUE_NOT_NEEDED = 0x4,
    JVM_INIT_OPT_WONT_TOGGLE_METHOD_CALL_EVENTS = 0x8,
    JVM_INIT_OPT_DONT_NEED_ALLOCATION_CALLBACK = 0x10, /* RESOLUTION: value not printed */
    JVM_INIT_OPT_DONT_NEED_ALLOCATION_COUNTS = 0x20,   /* RESOLUTION: value not printed */
    ALL_JVM_INIT_OPTIONS = 0x3F
} JAVA_MONITOR_INIT_OPTIONS;

/* jevmon extension: initialization options beyond the Microsoft VM's (docs/initialization.md).  A
 * monitor that ignores THREAD_SET_NAME (CLASS_LOAD_FAILED) says so, and where every monitor that
 * may ask for THREADS (CLASS_LOADS) does, the bridge does not rewrite java.lang.Thread (the failures'
 * constructors) to see them: about a millisecond of the JVM's start. */
#define JEVMON_INIT_OPT_DONT_NEED_THREAD_RENAMES 0x10000
#define JEVMON_INIT_OPT_DONT_NEED_CLASS_LOAD_FAILURES 0x20000

typedef enum JVM_METHOD_CALL_EVENTS_DISPOSITION {
    JVM_PROHIBIT_METHOD_CALL_EVENTS = 1,
    JVM_PERMIT_METHOD_CALL_EVENTS = 2,
    JVM_QUERY_DISPOSITION = 3
} JVM_METHOD_CALL_EVENTS_DISPOSITION;

/* The original's first members, without initializers: JVM_ID_FIRST 0 to JVM_ID_OBJECT 3.
 * The rest was not readable; RESOLUTION: they continue in the order of the ID typedefs
 * (OBJECT_HANDLE 4, METHOD 5, FIELD 6, CLASS 7).  EnableMethodCallEvents goes by the kind
 * of the ID itself, so a monitor built with other values for these still works. */
typedef enum jvm_id_type {
    JVM_ID_FIRST,
    JVM_ID_THREAD,
    JVM_ID_STACK,
    JVM_ID_OBJECT,
    JVM_ID_OBJECT_HANDLE,
    JVM_ID_METHOD,
    JVM_ID_FIELD,
    JVM_ID_CLASS
} JVM_ID_TYPE;

typedef enum JVM_CALLING_CONVENTION {
    JVM_CALL_PASCAL = 1,
    JVM_CALL_CDECL = 2
} JVM_CALLING_CONVENTION;

typedef enum JVM_CALL_FLAGS {
    JVM_CALL_THIS = 1
} JVM_CALL_FLAGS;

typedef enum JVM_CLASS_PROPERTIES {
    JVM_CLS_VARIABLE_SIZE = 1,
    JVM_CLS_HAS_DESCRIPTION = 2,
    ALL_JVM_CLS_PROPERTIES = 3
} JVM_CLASS_PROPERTIES;

typedef enum JAVA_FIELD_FLAGS {
    JVM_FIELD_STATIC = 1,
    JVM_FIELD_OBJECTREF = 2,
    ALL_JVM_FIELD_FLAGS = 3
} JAVA_FIELD_FLAGS;

typedef enum JVM_HEAPMON_CAPABILITIES {
    JVM_HEAPMON_OBJECT_AGE = 1
} JVM_HEAPMON_CAPABILITIES;

typedef enum JVM_OBJECT_FLAGS {
    JVM_OBJ_ALREADY_REPORTED = 0x00001,
    JVM_OBJ_ALREADY_VISITED = 0x00002,
    JVM_OBJ_MORE_REFERENCES = 0x10000,
    ALL_JVM_OBJECT_FLAGS = 0x10003
} JVM_OBJECT_FLAGS;

/* Values 1-7 are documented; the rest are RESOLUTION (containers the prose names). */
typedef enum CONTAINER_TYPE {
    C_BEGIN = 1,
    C_RT_THREAD = 2,
    C_RT_JIT = 3,
    C_RT_NATIVE = 4,
    C_RT_NATIVEGC = 5,
    C_RT_COM = 6,
    C_RT_INTERPRETED = 7,
    C_RT_FASTINTERPRETED = 8,
    C_RT_CLASS = 9,
    C_RT_FINALIZE = 10,
    C_RT_INTERNAL = 11,
    C_RT_JNI_GLOBAL = 12,
    C_HEAP = 13,
    C_END = 14
} CONTAINER_TYPE;

/* ---- SampleThreadLocation ------------------------------------------------------------ */
typedef enum JVM_METHOD_SAMPLE_FLAGS {
    JVM_SAMPLE_STACK_ID = 0x1,
    JVM_SAMPLE_METHOD_ID = 0x2,
    JVM_SAMPLE_LOCATION = 0x4,
    JVM_SAMPLE_GENERATED_CODE = 0x8,
    JVM_SAMPLE_PC = 0x10,
    ALL_JVM_SAMPLE_FIELDS = 0x17,
    ALL_JVM_SAMPLE_FLAGS = 0x1F
} JVM_METHOD_SAMPLE_FLAGS;

typedef enum JVM_METHOD_SAMPLE_ACCURACY {
    JVM_SAMPLE_NONE = 0,
    JVM_SAMPLE_POOR = 1,
    JVM_SAMPLE_EXACT = 100
} JVM_METHOD_SAMPLE_ACCURACY;

typedef enum JVM_METHOD_SAMPLE_LOCATION {
    JVM_LOCATION_UNKNOWN = 0,
    JVM_LOCATION_JIT = 1,
    JVM_LOCATION_NATIVE = 2,
    JVM_LOCATION_GC = 3,
    JVM_LOCATION_COMPILER = 4,
    JVM_LOCATION_LOADER = 5,
    JVM_LOCATION_DEBUGGER = 6,
    JVM_LOCATION_SECURITY = 7,
    JVM_LOCATION_PROFILER = 8,
    JVM_LOCATION_BLOCKING = 9
} JVM_METHOD_SAMPLE_LOCATION;
typedef JVM_METHOD_SAMPLE_LOCATION JVM_METHOD_SAMPLE_LOCATION_TYPES;

/* jevmon extension: IJevmonSampling4's thread states (SampleThreadState). */
typedef enum JEVMON_THREAD_STATE {
    JEVMON_THREAD_RUNNING = 1,  /* runnable in Java code */
    JEVMON_THREAD_NATIVE = 2,   /* runnable in native code: running, or waiting where the JVM cannot tell */
    JEVMON_THREAD_BLOCKED = 3,  /* entering a monitor */
    JEVMON_THREAD_WAITING = 4,  /* Object.wait, LockSupport.park, Thread.join */
    JEVMON_THREAD_SLEEPING = 5  /* Thread.sleep */
} JEVMON_THREAD_STATE;

/* jevmon extension: what a processor-time sample (IJevmonSampling4::NextCpuSample) holds. */
typedef enum JEVMON_CPU_SAMPLE_KIND {
    JEVMON_CPU_SAMPLE_JAVA = 0,           /* the thread's Java stack */
    JEVMON_CPU_SAMPLE_NO_JAVA_FRAMES = 1, /* the thread ran with no Java frame (starting, ending, VM work) */
    JEVMON_CPU_SAMPLE_GC = 2,             /* a collection was under way */
    JEVMON_CPU_SAMPLE_UNWALKABLE = 3      /* in Java code, at a moment its stack cannot be walked */
} JEVMON_CPU_SAMPLE_KIND;

/* jevmon extension: IJevmonSampling4::GetCpuSamplingCounts, since StartCpuSampling. */
typedef struct JEVMON_CPU_SAMPLING_COUNTS {
    ULONGLONG period_ns;       /* the processor time one sample stands for */
    ULONGLONG cpu_ns;          /* processor time the timed threads used while they were timed */
    ULONGLONG expiries;        /* timer expiries, overruns included: the samples asked for */
    ULONGLONG overruns;        /* expiries merged into the next one while its signal was pending: weigh it */
    ULONGLONG lost;            /* expiries that found the sample buffer full: not taken */
    ULONGLONG taken;           /* samples put into the buffer */
    ULONGLONG threads;         /* threads given a timer */
    ULONGLONG untimed_threads; /* threads that could not be given one (OS thread not known, timer refused) */
} JEVMON_CPU_SAMPLING_COUNTS;

/* jevmon extension: IJevmonNativeSampling's settings (SetNativeSampling) and native stacks. */
#define JEVMON_NATIVE_FRAMES 0x1     /* samples carry the native frames the thread ran in */
#define JEVMON_NATIVE_VM_THREADS 0x2 /* processor-time sampling times the JVM's own threads too */
#define JEVMON_NATIVE_KERNEL_FRAMES 0x4 /* processor-time samples carry the kernel frames the thread was in */
#define JEVMON_NATIVE_MAX_FRAMES 128
typedef enum JEVMON_NATIVE_WALK {
    JEVMON_NATIVE_COMPLETE = 0,   /* walked to the thread's outermost frame */
    JEVMON_NATIVE_STOPPED = 1,    /* the walk could not go on: the frames so far, innermost */
    JEVMON_NATIVE_NOT_WALKED = 2, /* no walk: not asked for, or not interrupted where it ran */
    JEVMON_NATIVE_TO_JAVA = 3     /* walked to a frame in Java code: the frames above it */
} JEVMON_NATIVE_WALK;
typedef struct JEVMON_NATIVE_STACK {
    DWORD os_thread; /* the sampled thread's OS id (0: not known) */
    BOOL vm_thread;  /* a thread of the JVM's own (collector, compiler, VM thread), not a Java thread */
    DWORD walk;      /* JEVMON_NATIVE_WALK */
    DWORD count;     /* frames[0..count-1], outermost first: code addresses (a caller's: its call) */
    DWORD kernel;    /* the innermost this many of them are the kernel's (JEVMON_NATIVE_KERNEL_FRAMES) */
    ULONGLONG frames[JEVMON_NATIVE_MAX_FRAMES];
} JEVMON_NATIVE_STACK;
typedef enum JEVMON_KERNEL_FRAMES {
    JEVMON_KERNEL_FRAMES_TAKEN = 0,     /* every timed thread's samples carry them */
    JEVMON_KERNEL_FRAMES_NOT_ASKED = 1, /* JEVMON_NATIVE_KERNEL_FRAMES not set, or no processor-time sampling */
    JEVMON_KERNEL_FRAMES_REFUSED = 2,   /* the kernel refuses them to this process (perf_event_paranoid) */
    JEVMON_KERNEL_FRAMES_NO_TIMERS = 3, /* the timers are not perf events (POSIX timers, Windows) */
    JEVMON_KERNEL_FRAMES_HIDDEN = 4,    /* /proc/kallsyms hides the kernel's addresses (kptr_restrict) */
    JEVMON_KERNEL_FRAMES_NO_BUFFER = 5  /* a timer's ring buffer could not be mapped (perf_event_mlock_kb) */
} JEVMON_KERNEL_FRAMES;
typedef struct JEVMON_KERNEL_FRAME_COUNTS {
    DWORD state;              /* JEVMON_KERNEL_FRAMES: TAKEN, or why the first thread without them has none */
    DWORD reserved;
    ULONGLONG threads;        /* timed threads whose samples carry them */
    ULONGLONG threads_without; /* timed threads whose samples do not (state says why) */
    ULONGLONG skipped;        /* ring-buffer records skipped: malformed, short, another thread's, or lost */
} JEVMON_KERNEL_FRAME_COUNTS;

/* On 64-bit targets ip and sp hold the low 32 bits (RESOLUTION); IJevmonSampling gives all 64. */
typedef struct JVM_METHOD_SAMPLE {
    DWORD flags;
    JVM_METHOD_SAMPLE_ACCURACY accuracy;
    StackID stack_id;
    MethodID method_id;
    JVM_METHOD_SAMPLE_LOCATION location_type;
    DWORD ip;
    DWORD sp;
    DWORD pc_offset;
} JVM_METHOD_SAMPLE;

/* ---- Debugger flags and the names of registry values and environment variables -------- */
#define MSJDBG_FL_REQUIRE_BYTE_CODE_EXECUTION 0x01
#define MSJDBG_FL_ENABLE_PROFILING 0x02
#define MSJDBG_SEND_START_CLASS_EVENTS 0x40

/* jevmon extension: IJevmonSampling3::SampleThreadFrames's offset of a frame that has none known. */
#define JEVMON_NO_PC_OFFSET 0xFFFFFFFF

#define JEVMON_JAVA_VM_KEY "Software\\Microsoft\\Java VM"
#define JEVMON_MONITORS_KEY "Software\\Microsoft\\Java VM\\Monitors"

#ifdef __cplusplus
}
#endif

/* ---- Interfaces ------------------------------------------------------------------------ */

/*
 * JEVMON_INTERFACE declares an interface: in C a struct whose only member points at a
 * const table of functions (the Windows headers make lpVtbl const only with CONST_VTABLE,
 * in a form that warns outside system headers, so C on Windows gets its own spelling).
 */
#if defined(_WIN32) && (!defined(__cplusplus) || defined(CINTERFACE))
#define JEVMON_INTERFACE(iface, baseiface)       \
    typedef interface iface iface;               \
    typedef struct iface##Vtbl iface##Vtbl;      \
    interface iface {                            \
        const iface##Vtbl *lpVtbl;               \
    };                                           \
    struct iface##Vtbl
#else
#define JEVMON_INTERFACE(iface, baseiface) DECLARE_INTERFACE_(iface, baseiface)
#endif

/* Each interface's own methods, in vtable order; derived interfaces repeat their bases' lists. */
#define JEVMON_IUNKNOWN_SLOTS                                                   \
    STDMETHOD(QueryInterface)(THIS_ REFIID riid, void **ppvObject) PURE;        \
    STDMETHOD_(ULONG, AddRef)(THIS) PURE;                                       \
    STDMETHOD_(ULONG, Release)(THIS) PURE;

#define IJavaEventMonitor_SLOTS                                                                                  \
    STDMETHOD(ExecuteByteCode)(THIS_ MethodID method_id, BYTE_CODE *pbyte_code, DWORD byte_code_offset) PURE;  \
    STDMETHOD(ExecuteSourceLine)(THIS_ MethodID method_id, DWORD line_number) PURE;                             \
    STDMETHOD(Initialize)(THIS_ LPCSTR pclass_file_name, IJavaEventMonitorIDInfo *pmonitor_info,                \
                          DWORD java_flags, DWORD *prequested_events) PURE;                                     \
    STDMETHOD(MethodEntry)(THIS_ MethodID method_id, StackID stack_id) PURE;                                    \
    STDMETHOD(MethodExit)(THIS_ StackID stack_id) PURE;                                                         \
    STDMETHOD(NotifyEvent)(THIS_ JVM_EVENT_TYPE event, UniqueID event_id) PURE;

#define IJavaEventMonitor2_SLOTS                                                                                  \
    STDMETHOD(GetPossibleEventCategories)(THIS_ DWORD *ppossible_events) PURE;                                  \
    STDMETHOD(MethodExit2)(THIS_ MethodID method_id, StackID stack_id) PURE;                                    \
    STDMETHOD(NotifyEvent2)(THIS_ JVM_EVENT_TYPE2 event2, UniqueID first_event_id, UniqueID second_event_id) PURE;

#define IJavaEventMonitorIDInfo_SLOTS                                                                              \
    STDMETHOD(ClassInformation)(THIS_ ClassID class_id, LPSTR *ppclass_name, LPSTR *ppsource_file_name,           \
                                int *pmethods, MethodID **ppmethod_ids, __int64 *pobjects_created) PURE;          \
    STDMETHOD(GetEventMask)(THIS_ DWORD *pevents) PURE;                                                           \
    STDMETHOD(GetMonitorUsage)(THIS_ ObjectID object_id, ThreadID *powner_thread, unsigned *pentry_count,          \
                               unsigned *pwaiter_count) PURE;                                                     \
    STDMETHOD(InterpretedMethodInformation)(THIS_ MethodID method_id, unsigned int *pbyte_code_length,            \
                                            BYTE_CODE **ppbyte_codes) PURE;                                       \
    STDMETHOD(JITCompiledMethodInformation)(THIS_ MethodID method_id, unsigned int *pjit_code_length,             \
                                            unsigned char **ppjit_code) PURE;                                     \
    STDMETHOD(MethodInformation)(THIS_ MethodID method_id, LPSTR *ppmethod_name, ClassID *pclass_id,              \
                                 JAVA_EXECUTION_MODEL *pexec, int *psource_line_info_length,                      \
                                 SourceLineInfo **ppsource_line_info) PURE;                                       \
    STDMETHOD(ObjectInformation)(THIS_ ObjectID object_id, ClassID *pclass_id) PURE;                              \
    STDMETHOD(SetEventMask)(THIS_ DWORD events) PURE;

#define IJavaEventMonitorIDInfo2_SLOTS                                                                             \
    STDMETHOD(DescribeObject)(THIS_ ObjectID object_id, LPWSTR *pdescr) PURE;                                     \
    STDMETHOD(FieldInformation)(THIS_ FieldID field_id, LPSTR *pname, DWORD *pflags) PURE;                        \
    STDMETHOD(FreeHandlesToObjects)(THIS_ unsigned int nhandles, ObjectHandleID *pobject_handles) PURE;           \
    STDMETHOD(GetArrayElement)(THIS_ ObjectID object_id, unsigned index, __int64 *pvalue) PURE;                   \
    STDMETHOD(GetClassFields)(THIS_ ClassID class_id, unsigned *pnfields, FieldID **ppfield_ids) PURE;            \
    STDMETHOD(GetClassPath)(THIS_ LPSTR *ppszClassPath) PURE;                                                     \
    STDMETHOD(GetCurrentThread)(THIS_ ThreadID *pthread_id) PURE;                                                 \
    STDMETHOD(GetHandlesToObjects)(THIS_ unsigned nobjects, ObjectID *pobject_ids,                                \
                                   ObjectHandleID *pobject_handles) PURE;                                         \
    STDMETHOD(GetObjectField)(THIS_ ObjectID object_id, FieldID field_id, __int64 *pvalue) PURE;                  \
    STDMETHOD(GetObjectSize)(THIS_ ObjectID object_id, DWORD *psize) PURE;                                        \
    STDMETHOD(GetObjectsFromHandles)(THIS_ unsigned nhandles, ObjectHandleID *pobject_handles,                    \
                                     ObjectID *pobject_ids) PURE;                                                 \
    STDMETHOD(GetProfilingCapabilities)(THIS_ DWORD *pStates, DWORD *pCategories, JAVA_EXECUTION_MODEL *pLastModel, \
                                        JVM_EVENT_TYPE *pLastType, JVM_EVENT_TYPE2 *pLastType2) PURE;             \
    STDMETHOD(GetSpecialClassProperties)(THIS_ unsigned *pnspecial_classes, ClassID **ppclass_ids,                \
                                         DWORD **ppclass_flags) PURE;                                             \
    STDMETHOD(GetStackTrace)(THIS_ ThreadID thread_id) PURE;                                                      \
    STDMETHOD(SampleThreadLocation)(THIS_ ThreadID thread_id, JVM_METHOD_SAMPLE *psample) PURE;                   \
    STDMETHOD(StaticClassInformation)(THIS_ ClassID class_id, DWORD *pStaticDataSize, DWORD *pInstanceSize) PURE; \
    STDMETHOD(ThreadInformation)(THIS_ ThreadID thread_id, DWORD *pwin32_thread_id) PURE;

#define IJavaEventMonitorIDInfo3_SLOTS                                                                             \
    STDMETHOD(ClassInformation2)(THIS_ ClassID class_id, ClassID *psuperclass, ClassID **ppinterfaces,            \
                                 unsigned int *pinterfaces_length, MethodID **ppimplemented_methods,              \
                                 unsigned int *pimplemented_methods_length) PURE;                                 \
    STDMETHOD(EnableMethodCallEvents)(THIS_ ObjectID unique_id, JVM_ID_TYPE idtype,                               \
                                      JVM_METHOD_CALL_EVENTS_DISPOSITION disposition) PURE;                       \
    STDMETHOD(GetMethodEntryParameters)(THIS_ DWORD **ppslots, DWORD **ppreserved,                                \
                                        JVM_CALLING_CONVENTION *pcalling_convention, DWORD *pflags) PURE;         \
    STDMETHOD(GetMethodExitReturnValue)(THIS_ MethodID *preturning_method_id, __int64 **pret_value) PURE;

#define IJavaEventMonitorIDInfo4_SLOTS                                                                             \
    STDMETHOD(GetFinalInitializationOptions)(THIS_ DWORD *poptions) PURE;                                         \
    STDMETHOD(GetMonitorInitializationOptions)(THIS_ DWORD *poptions) PURE;                                       \
    STDMETHOD(SetMonitorInitializationOptions)(THIS_ DWORD options) PURE;

#define IJavaHeapMonitor_SLOTS                                                                                     \
    STDMETHOD(GetContainerDescription)(THIS_ CONTAINER_TYPE type, LPWSTR *pshort, LPWSTR *plong) PURE;            \
    STDMETHOD(GetHeapInfo)(THIS_ IHeapInfoCallback *pihicb) PURE;                                                 \
    STDMETHOD(GetObjectAge)(THIS_ ObjectID object_id, DWORD *pncollections_survived) PURE;                        \
    STDMETHOD(ModifyHeapMonitorCapabilities)(THIS_ DWORD capabilities, BOOL fenable,                              \
                                             DWORD *penabled_capabilities) PURE;                                  \
    STDMETHOD(NotifyOnObjectAllocations)(THIS_ IObjectAllocationCallback *pioacb) PURE;

#define IJavaHeapMonitor2_SLOTS                                                                                    \
    STDMETHOD(RequestHeapDump)(THIS) PURE;

#define IHeapInfoCallback_SLOTS                                                                                    \
    STDMETHOD(BeginContainer)(THIS_ CONTAINER_TYPE type, UniqueID id1, UniqueID id2) PURE;                        \
    STDMETHOD(ObjectReferences)(THIS_ ObjectID id, DWORD objflags, const ObjectID *prefs, unsigned nrefs,         \
                                const DWORD *pflags) PURE;                                                        \
    STDMETHOD(RootReferences)(THIS_ const ObjectID *prefs, unsigned nrefs, const DWORD *pflags) PURE;

#define IObjectAllocationCallback_SLOTS                                                                            \
    STDMETHOD(OnObjectAllocated)(THIS_ ObjectID object_id, ClassID class_id) PURE;

/* jevmon extension: the full 64-bit ip and sp of a sample. */
#define IJevmonSampling_SLOTS                                                                                      \
    STDMETHOD(SampleThreadLocation64)(THIS_ ThreadID thread_id, JVM_METHOD_SAMPLE *psample, ULONGLONG *pip,        \
                                      ULONGLONG *psp) PURE;

/* jevmon extension: a sample and the thread's whole stack at the same moment, outermost frame
 * first as GetStackTrace gives it, into the caller's buffer (docs/sampling.md).  S_OK: the stack
 * is in pframes (none for a thread without Java frames); S_FALSE: the sample alone (no walk of this thread now: GetStackTrace gives its
 * stack, from its next safepoint); E_FAIL as SampleThreadLocation; E_POINTER. */
#define IJevmonSampling2_SLOTS                                                                                     \
    STDMETHOD(SampleThreadStack)(THIS_ ThreadID thread_id, JVM_METHOD_SAMPLE *psample, MethodID *pframes,          \
                                 DWORD max_frames, DWORD *pframe_count, BOOL *ptruncated) PURE;

/* jevmon extension: SampleThreadStack with each frame's bytecode offset (docs/sampling.md):
 * poffsets[i] is what frame pframes[i] executes (a caller: the call), JEVMON_NO_PC_OFFSET where
 * it is not known (a native method, a frame the walk could not place); poffsets may be NULL.
 * The same results as SampleThreadStack. */
#define IJevmonSampling3_SLOTS                                                                                     \
    STDMETHOD(SampleThreadFrames)(THIS_ ThreadID thread_id, JVM_METHOD_SAMPLE *psample, MethodID *pframes,         \
                                  DWORD *poffsets, DWORD max_frames, DWORD *pframe_count, BOOL *ptruncated) PURE;

/* jevmon extension: processor-time sampling (docs/sampling.md).  StartCpuSampling gives every
 * Java thread, and each one started later, a timer on its own processor-time clock that interrupts
 * it every period_ns of the processor time it uses and walks its stack into a buffer; S_OK, or
 * E_NOTIMPL where the system or the JVM has no such timers or walk (then sample on a timer thread,
 * and GetThreadCpuTime tells which threads ran).  NextCpuSample takes one sample out of the buffer
 * (S_OK; S_FALSE when it is empty): its frames outermost first with their bytecode offsets (as
 * SampleThreadFrames; poffsets may be NULL), its kind (JEVMON_CPU_SAMPLE_KIND: no frames unless
 * JAVA) and the periods of processor time it stands for (1; more where the system's timers are
 * coarser than the period and merged expiries into it: Linux checks them at the scheduler tick).  GetCpuSamplingCounts says what was asked for and taken.  GetThreadCpuTime: the processor
 * time a thread has used.  SampleThreadState: SampleThreadFrames, and the thread's state then
 * (JEVMON_THREAD_STATE). */
#define IJevmonSampling4_SLOTS                                                                                     \
    STDMETHOD(StartCpuSampling)(THIS_ ULONGLONG period_ns) PURE;                                                   \
    STDMETHOD(StopCpuSampling)(THIS) PURE;                                                                         \
    STDMETHOD(NextCpuSample)(THIS_ MethodID *pframes, DWORD *poffsets, DWORD max_frames, DWORD *pframe_count,      \
                             BOOL *ptruncated, DWORD *pkind, DWORD *pperiods) PURE;                                \
    STDMETHOD(GetCpuSamplingCounts)(THIS_ JEVMON_CPU_SAMPLING_COUNTS *pcounts) PURE;                               \
    STDMETHOD(GetThreadCpuTime)(THIS_ ThreadID thread_id, ULONGLONG *pcpu_ns) PURE;                                \
    STDMETHOD(SampleThreadState)(THIS_ ThreadID thread_id, JVM_METHOD_SAMPLE *psample, MethodID *pframes,          \
                                 DWORD *poffsets, DWORD max_frames, DWORD *pframe_count, BOOL *ptruncated,         \
                                 DWORD *pstate) PURE;

/* jevmon extension, on the IDInfo object (docs/sampling.md): native frames and the JVM's own
 * threads.  SetNativeSampling(JEVMON_NATIVE_FRAMES | JEVMON_NATIVE_VM_THREADS) takes effect at the
 * next StartCpuSampling (the threads) and the next sample (the frames).  NextCpuSampleNative is
 * IJevmonSampling4::NextCpuSample with the sample's native frames above its innermost Java frame
 * (all of them for a thread with no Java frame) and its thread; SampleThreadNative is
 * SampleThreadState with the same.  GetNativeFrameName: "library`function" of a frame's address
 * (CoTaskMemAlloc'd), S_FALSE and NULL for an address in no library.  GetOsThreadName: the name
 * the system has for an OS thread of the process (CoTaskMemAlloc'd), E_FAIL when it is gone.
 * JEVMON_NATIVE_KERNEL_FRAMES (with JEVMON_NATIVE_FRAMES, at the next StartCpuSampling) adds each
 * processor-time sample's kernel frames innermost (pnative->kernel of them), named "vmlinux`function"
 * ("module`function"); GetKernelFrameCounts says whether they are taken, and why not. */
#define IJevmonNativeSampling_SLOTS                                                                                \
    STDMETHOD(SetNativeSampling)(THIS_ DWORD flags) PURE;                                                          \
    STDMETHOD(NextCpuSampleNative)(THIS_ MethodID *pframes, DWORD *poffsets, DWORD max_frames,                     \
                                   DWORD *pframe_count, BOOL *ptruncated, DWORD *pkind, DWORD *pperiods,           \
                                   JEVMON_NATIVE_STACK *pnative) PURE;                                             \
    STDMETHOD(SampleThreadNative)(THIS_ ThreadID thread_id, JVM_METHOD_SAMPLE *psample, MethodID *pframes,         \
                                  DWORD *poffsets, DWORD max_frames, DWORD *pframe_count, BOOL *ptruncated,        \
                                  DWORD *pstate, JEVMON_NATIVE_STACK *pnative) PURE;                               \
    STDMETHOD(GetNativeFrameName)(THIS_ ULONGLONG address, LPSTR *pname) PURE;                                     \
    STDMETHOD(GetOsThreadName)(THIS_ DWORD os_thread, LPSTR *pname) PURE;                                         \
    STDMETHOD(GetKernelFrameCounts)(THIS_ JEVMON_KERNEL_FRAME_COUNTS *pcounts) PURE;

/* jevmon extension, on the heap monitor object: what each OnObjectAllocated stands for when
 * allocations are sampled (docs/heap-monitor.md). */
#define IJevmonAllocationSampling_SLOTS                                                                            \
    STDMETHOD(GetAllocationSamplingInterval)(THIS_ DWORD *pinterval_bytes) PURE;                                   \
    STDMETHOD(GetAllocationWeight)(THIS_ ObjectID object_id, double *pobjects, ULONGLONG *pbytes) PURE;

/* jevmon extension, offered by a monitor: a command from a later load of the agent into the same JVM
 * (its options), and before Initialize the first load's agent option command= (the monitor's settings
 * for that load; no IDInfo yet).  S_OK: taken; S_FALSE: not this monitor's; a failure: its own command, failed.
 * *panswer: NULL or the answer, CoTaskMemAlloc'd by the monitor, freed by the bridge. */
#define IJevmonCommands_SLOTS                                                                                      \
    STDMETHOD(Command)(THIS_ LPCSTR command, LPSTR *panswer) PURE;

/* jevmon extension: contended lock waits (docs/lock-waits.md).  A monitor gets IJevmonLockWaits by
 * QueryInterface on its IDInfo and registers its callback (NULL unregisters); from then on every
 * wait of at least threshold_ns nanoseconds to enter a contended synchronized block or method
 * (JEVMON_LOCK_WAIT_MONITOR, lock_class: the object's class) and every LockSupport.park on a
 * java.util.concurrent lock (JEVMON_LOCK_WAIT_PARK, lock_class: the blocker's class) is told to
 * OnLockWait once the wait is over, on the thread that waited, while its stack is still at the
 * wait (GetStackTrace of the current thread gives it). */
typedef enum JEVMON_LOCK_WAIT_KIND {
    JEVMON_LOCK_WAIT_MONITOR = 1, /* synchronized: JVMTI MonitorContendedEnter to MonitorContendedEntered */
    JEVMON_LOCK_WAIT_PARK = 2     /* LockSupport.park on an AbstractQueuedSynchronizer or StampedLock */
} JEVMON_LOCK_WAIT_KIND;
#define IJevmonLockWaits_SLOTS                                                                                     \
    STDMETHOD(NotifyOnLockWaits)(THIS_ IJevmonLockWaitCallback *pcallback, ULONGLONG threshold_ns) PURE;
#define IJevmonLockWaitCallback_SLOTS                                                                              \
    STDMETHOD(OnLockWait)(THIS_ DWORD kind, ClassID lock_class, ULONGLONG waited_ns) PURE;

/* jevmon extension: method calls in batches (docs/call-batches.md).  A monitor gets IJevmonCallBatches
 * by QueryInterface on its IDInfo and registers its callback (NULL: MethodEntry and MethodExit2 again);
 * while its mask has METHOD_CALLS, every method's entries and exits are then recorded per thread, each
 * with the time-stamp counter, and handed to OnCallBatch in order instead of MethodEntry, MethodExit
 * and MethodExit2: on the thread when its records fill a batch, before its THREAD_DESTROY, at the
 * program's end, and on the caller's thread by FlushCallBatches. */
typedef enum JEVMON_CALL_KIND {
    JEVMON_CALL_ENTERED = 1,  /* the method was entered */
    JEVMON_CALL_RETURNED = 2, /* it returned; frames above it that are still open left unseen */
    JEVMON_CALL_UNWOUND = 3   /* an exception left it */
} JEVMON_CALL_KIND;
typedef struct JEVMON_CALL_RECORD {
    ULONGLONG ticks; /* the processor's time-stamp counter (rdtsc) when it happened */
    MethodID method; /* the method entered or left */
    DWORD kind;      /* JEVMON_CALL_KIND */
} JEVMON_CALL_RECORD;
#define IJevmonCallBatches_SLOTS                                                                                   \
    STDMETHOD(DeliverCallsInBatches)(THIS_ IJevmonCallBatchCallback *pcallback) PURE;                               \
    STDMETHOD(FlushCallBatches)(THIS) PURE;
#define IJevmonCallBatchCallback_SLOTS                                                                             \
    STDMETHOD(OnCallBatch)(THIS_ ThreadID thread_id, const JEVMON_CALL_RECORD *records, DWORD count) PURE;

#undef INTERFACE
#define INTERFACE IJavaEventMonitorIDInfo
JEVMON_INTERFACE(IJavaEventMonitorIDInfo, IUnknown)
{
    BEGIN_INTERFACE
    JEVMON_IUNKNOWN_SLOTS
    IJavaEventMonitorIDInfo_SLOTS
    END_INTERFACE
};

#undef INTERFACE
#define INTERFACE IJavaEventMonitorIDInfo2
JEVMON_INTERFACE(IJavaEventMonitorIDInfo2, IJavaEventMonitorIDInfo)
{
    BEGIN_INTERFACE
    JEVMON_IUNKNOWN_SLOTS
    IJavaEventMonitorIDInfo_SLOTS
    IJavaEventMonitorIDInfo2_SLOTS
    END_INTERFACE
};

#undef INTERFACE
#define INTERFACE IJavaEventMonitorIDInfo3
JEVMON_INTERFACE(IJavaEventMonitorIDInfo3, IJavaEventMonitorIDInfo2)
{
    BEGIN_INTERFACE
    JEVMON_IUNKNOWN_SLOTS
    IJavaEventMonitorIDInfo_SLOTS
    IJavaEventMonitorIDInfo2_SLOTS
    IJavaEventMonitorIDInfo3_SLOTS
    END_INTERFACE
};

#undef INTERFACE
#define INTERFACE IJavaEventMonitorIDInfo4
JEVMON_INTERFACE(IJavaEventMonitorIDInfo4, IJavaEventMonitorIDInfo3)
{
    BEGIN_INTERFACE
    JEVMON_IUNKNOWN_SLOTS
    IJavaEventMonitorIDInfo_SLOTS
    IJavaEventMonitorIDInfo2_SLOTS
    IJavaEventMonitorIDInfo3_SLOTS
    IJavaEventMonitorIDInfo4_SLOTS
    END_INTERFACE
};

#undef INTERFACE
#define INTERFACE IJavaEventMonitor
JEVMON_INTERFACE(IJavaEventMonitor, IUnknown)
{
    BEGIN_INTERFACE
    JEVMON_IUNKNOWN_SLOTS
    IJavaEventMonitor_SLOTS
    END_INTERFACE
};

#undef INTERFACE
#define INTERFACE IJavaEventMonitor2
JEVMON_INTERFACE(IJavaEventMonitor2, IJavaEventMonitor)
{
    BEGIN_INTERFACE
    JEVMON_IUNKNOWN_SLOTS
    IJavaEventMonitor_SLOTS
    IJavaEventMonitor2_SLOTS
    END_INTERFACE
};

#undef INTERFACE
#define INTERFACE IHeapInfoCallback
JEVMON_INTERFACE(IHeapInfoCallback, IUnknown)
{
    BEGIN_INTERFACE
    JEVMON_IUNKNOWN_SLOTS
    IHeapInfoCallback_SLOTS
    END_INTERFACE
};

#undef INTERFACE
#define INTERFACE IObjectAllocationCallback
JEVMON_INTERFACE(IObjectAllocationCallback, IUnknown)
{
    BEGIN_INTERFACE
    JEVMON_IUNKNOWN_SLOTS
    IObjectAllocationCallback_SLOTS
    END_INTERFACE
};

#undef INTERFACE
#define INTERFACE IJavaHeapMonitor
JEVMON_INTERFACE(IJavaHeapMonitor, IUnknown)
{
    BEGIN_INTERFACE
    JEVMON_IUNKNOWN_SLOTS
    IJavaHeapMonitor_SLOTS
    END_INTERFACE
};

#undef INTERFACE
#define INTERFACE IJavaHeapMonitor2
JEVMON_INTERFACE(IJavaHeapMonitor2, IJavaHeapMonitor)
{
    BEGIN_INTERFACE
    JEVMON_IUNKNOWN_SLOTS
    IJavaHeapMonitor_SLOTS
    IJavaHeapMonitor2_SLOTS
    END_INTERFACE
};

#undef INTERFACE
#define INTERFACE IJevmonSampling
JEVMON_INTERFACE(IJevmonSampling, IUnknown)
{
    BEGIN_INTERFACE
    JEVMON_IUNKNOWN_SLOTS
    IJevmonSampling_SLOTS
    END_INTERFACE
};

#undef INTERFACE
#define INTERFACE IJevmonSampling2
JEVMON_INTERFACE(IJevmonSampling2, IJevmonSampling)
{
    BEGIN_INTERFACE
    JEVMON_IUNKNOWN_SLOTS
    IJevmonSampling_SLOTS
    IJevmonSampling2_SLOTS
    END_INTERFACE
};

#undef INTERFACE
#define INTERFACE IJevmonSampling3
JEVMON_INTERFACE(IJevmonSampling3, IJevmonSampling2)
{
    BEGIN_INTERFACE
    JEVMON_IUNKNOWN_SLOTS
    IJevmonSampling_SLOTS
    IJevmonSampling2_SLOTS
    IJevmonSampling3_SLOTS
    END_INTERFACE
};

#undef INTERFACE
#define INTERFACE IJevmonSampling4
JEVMON_INTERFACE(IJevmonSampling4, IJevmonSampling3)
{
    BEGIN_INTERFACE
    JEVMON_IUNKNOWN_SLOTS
    IJevmonSampling_SLOTS
    IJevmonSampling2_SLOTS
    IJevmonSampling3_SLOTS
    IJevmonSampling4_SLOTS
    END_INTERFACE
};

#undef INTERFACE
#define INTERFACE IJevmonNativeSampling
JEVMON_INTERFACE(IJevmonNativeSampling, IUnknown)
{
    BEGIN_INTERFACE
    JEVMON_IUNKNOWN_SLOTS
    IJevmonNativeSampling_SLOTS
    END_INTERFACE
};

#undef INTERFACE
#define INTERFACE IJevmonAllocationSampling
JEVMON_INTERFACE(IJevmonAllocationSampling, IUnknown)
{
    BEGIN_INTERFACE
    JEVMON_IUNKNOWN_SLOTS
    IJevmonAllocationSampling_SLOTS
    END_INTERFACE
};

#undef INTERFACE
#define INTERFACE IJevmonCommands
JEVMON_INTERFACE(IJevmonCommands, IUnknown)
{
    BEGIN_INTERFACE
    JEVMON_IUNKNOWN_SLOTS
    IJevmonCommands_SLOTS
    END_INTERFACE
};

#undef INTERFACE
#define INTERFACE IJevmonLockWaitCallback
JEVMON_INTERFACE(IJevmonLockWaitCallback, IUnknown)
{
    BEGIN_INTERFACE
    JEVMON_IUNKNOWN_SLOTS
    IJevmonLockWaitCallback_SLOTS
    END_INTERFACE
};

#undef INTERFACE
#define INTERFACE IJevmonLockWaits
JEVMON_INTERFACE(IJevmonLockWaits, IUnknown)
{
    BEGIN_INTERFACE
    JEVMON_IUNKNOWN_SLOTS
    IJevmonLockWaits_SLOTS
    END_INTERFACE
};

#undef INTERFACE
#define INTERFACE IJevmonCallBatchCallback
JEVMON_INTERFACE(IJevmonCallBatchCallback, IUnknown)
{
    BEGIN_INTERFACE
    JEVMON_IUNKNOWN_SLOTS
    IJevmonCallBatchCallback_SLOTS
    END_INTERFACE
};

#undef INTERFACE
#define INTERFACE IJevmonCallBatches
JEVMON_INTERFACE(IJevmonCallBatches, IUnknown)
{
    BEGIN_INTERFACE
    JEVMON_IUNKNOWN_SLOTS
    IJevmonCallBatches_SLOTS
    END_INTERFACE
};
#undef INTERFACE

/* Spelling variants used by the documentation. */
typedef IHeapInfoCallback IHeapInfoCallBack;
typedef IObjectAllocationCallback IObjectAllocationCallBack;

#include "jevmon_cobj.h"

#endif /* __JEVMON_H__ */
