/*
 * thread_sample.c - SampleThreadLocation, IJevmonSampling::SampleThreadLocation64,
 * IJevmonSampling2::SampleThreadStack and IJevmonSampling3::SampleThreadFrames: what a thread
 * executes right now, how sure that is (accuracy), what kind of place it is in, and
 * (SampleThreadStack) its stack at that moment, with (SampleThreadFrames) each frame's bytecode
 * offset; IJevmonSampling4::SampleThreadState gives the thread's state with them, for wall-clock
 * profiles.
 *
 * A thread JVMTI shows waiting, sleeping, parked or blocked on a monitor is BLOCKING, and
 * JVMTI's frame for it is exact.  Any other thread is interrupted where it runs
 * (plat_sample_thread): its ip is looked up in the code map, and where the platform runs
 * code on the interrupted thread and the JVM exports AsyncGetCallTrace, its Java stack is
 * walked there, which names the method even inside inlined code and between safepoints.
 * When neither names a method, JVMTI's frame is used: it is taken at the thread's next
 * safepoint, so it is right about the method but biased toward where safepoints are.
 *
 * SampleThreadStack gives the walk's whole stack where the walk named the method, and JVMTI's
 * stack where the thread stands still (its frames are exact then); otherwise no stack (S_FALSE),
 * and the caller may take JVMTI's, biased as above.
 *
 * A virtual thread is sampled on its carrier while mounted.  Unmounted, it runs nowhere (parked,
 * or ready and waiting for a carrier): BLOCKING, at JVMTI's frame.  A carrier running a virtual
 * thread is BLOCKING too: its own frames wait, its time is the virtual thread's.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "dispatch/dispatch.h"
#include "ids/codemap.h"
#include "ids/ids.h"
#include "ids/method.h"
#include "ids/original_code.h"
#include "ids/thread.h"
#include "platform/platform.h"
#include "sampling/agct.h"
#include "sampling/cpu_sample.h"
#include "sampling/native_walk.h"
#include "sampling/thread_sample.h"
#include "vm/hotspot_code.h"

/* Accuracy, from the sources that agree down to JVMTI's safepoint view. */
#define WALK_AND_CODE_AGREE ((int)JVM_SAMPLE_EXACT) /* AsyncGetCallTrace's method owns the code at ip */
#define WALK_ONLY 90       /* ip in other code: an inlining method's, a stub's, the VM's; the walk names the Java frame */
#define COMPILED_CODE 80   /* ip in a compiled method with no walk: an inlined callee may be the one running */
#define SAFEPOINT_VIEW 50  /* JVMTI's frame of a running thread */

/* How long a sampled thread has to answer the signal before JVMTI's view is used instead. */
#define ANSWER_TIMEOUT_MS 50
#define WALK_DEPTH 1024 /* frames walked (16 KiB, on the sampling thread's stack) */
static int can_interrupt;
static int can_walk; /* and walk the interrupted thread's Java stack (AsyncGetCallTrace) */
static atomic_int gc_active;
/* java.lang.ClassLoader's native methods (defineClass1, findBootstrapClass ...): a thread in one is LOADER. */
static jmethodID loader_natives[32];
static int loader_native_count;

void jv_sample_gc(int active)
{
    atomic_store(&gc_active, active);
}

static void find_loader_natives(JNIEnv *env)
{
    jclass loader = (*env)->FindClass(env, "java/lang/ClassLoader");
    jint count = 0;
    jmethodID *methods = NULL;
    if (!loader) {
        (*env)->ExceptionClear(env);
        return;
    }
    if ((*jv_jvmti)->GetClassMethods(jv_jvmti, loader, &count, &methods) == JVMTI_ERROR_NONE) {
        for (jint i = 0; i < count && loader_native_count < (int)(sizeof(loader_natives) / sizeof(*loader_natives)); i++) {
            jboolean native = JNI_FALSE;
            if ((*jv_jvmti)->IsMethodNative(jv_jvmti, methods[i], &native) == JVMTI_ERROR_NONE && native)
                loader_natives[loader_native_count++] = methods[i];
        }
        (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)methods);
    }
    (*env)->DeleteLocalRef(env, loader);
}

void jv_sample_start(JNIEnv *env, int attached)
{
    can_interrupt = plat_sample_init();
    find_loader_natives(env);
    can_walk = can_interrupt && jv_agct_find(env);
    jv_cpu_sample_start(env, can_walk, attached);
}

static int is_loader_native(jmethodID method)
{
    for (int i = 0; i < loader_native_count; i++)
        if (loader_natives[i] == method)
            return 1;
    return 0;
}

/* ---- Interrupting the thread ---------------------------------------------------------------- */

typedef struct walk {
    int walked;      /* AGCT ran; trace.num_frames says how it went */
    int dispatching; /* the thread was inside a callback to a monitor */
    agct_trace trace;
    union {
        agct_frame frames[WALK_DEPTH];        /* the walk's */
        jvmtiFrameInfo standing[WALK_DEPTH]; /* or JVMTI's, of a thread that stands still */
    };
    jv_native_stack native; /* IJevmonNativeSampling's, walked in the same handler */
} walk;

/* SampleThreadStack's buffer: frames outermost first, the innermost kept when it is too small;
 * SampleThreadFrames's offsets beside them (NULL: not wanted). */
typedef struct stack_out {
    MethodID *frames;
    DWORD *offsets;
    DWORD max, count;
    int truncated;
    int taken;   /* a stack was taken at the sample's moment */
    DWORD state; /* JEVMON_THREAD_STATE at the sample */
    JEVMON_NATIVE_STACK *native; /* SampleThreadNative's native frames, or NULL */
} stack_out;

/* Runs on the interrupted thread, inside its signal handler: async-signal-safe only. */
static void walk_interrupted(void *context, void *arg)
{
    walk *w = arg;
    w->dispatching = jv_dispatching();
    w->walked = jv_agct_walk(&w->trace, w->frames, WALK_DEPTH, context);
    jv_native_walk(context, &w->native);
}

typedef struct found {
    jmethodID method;
    jint bci;       /* -1 when not known */
    uint32_t depth; /* of the method's frame, 1 = outermost; 0 when not known */
    JVM_METHOD_SAMPLE_LOCATION location;
    int accuracy;
    int generated;  /* ip in VM-generated code */
    int unwalked;   /* a walk named no method: the code map's answer alone may be stale */
    int walked;     /* the method is the walk's innermost frame: the walk is the thread's stack */
    uint64_t ip, sp;
    int want_depth; /* a StackID is asked for: JVMTI's depth too, where it is the answer (a handshake) */
} found;

static JVM_METHOD_SAMPLE_LOCATION location_of_stub(const char *name)
{
    /* Call-site resolution is the VM's first-call work for a method. */
    if (strstr(name, "resolve") || strstr(name, "wrong_method") || strstr(name, "ic_miss"))
        return JVM_LOCATION_COMPILER;
    return JVM_LOCATION_UNKNOWN; /* the interpreter (the enumeration has no value for it) or another stub */
}

/* The walk's frames without the bridge's (the instrumented path's jevmon/Bridge natives, which
 * are not the program's); their new count.  Runs after the walk, outside the signal handler. */
static jint without_bridge_frames(agct_frame *frames, jint count)
{
    jint kept = 0;
    for (jint i = 0; i < count; i++)
        if (!jv_rewrite_is_bridge_method(frames[i].method_id))
            frames[kept++] = frames[i];
    return kept;
}

/* What the code at ip is: the code map's stubs and, where their events are on, compiled methods;
 * otherwise HotSpot's code heaps.  *owned: 1 when it is walked's compiled code. */
static jv_code_kind code_at(uintptr_t ip, jmethodID walked, jv_code_range *code, int *owned)
{
    jv_code_kind kind = jv_codemap_find(ip, code);
    *owned = kind == JV_CODE_COMPILED && walked && code->method == walked;
    if (kind != JV_CODE_NONE)
        return kind;
    switch (jv_hotspot_code_at(ip, walked)) {
    case JV_HEAP_METHOD_CODE:
        *owned = 1;
        code->method = walked;
        return JV_CODE_COMPILED;
    case JV_HEAP_OTHER_CODE: /* compiled code of a method the walk did not name, or a stub not reported */
        code->method = NULL;
        return JV_CODE_COMPILED;
    case JV_HEAP_UNREADABLE: /* another JVM: the compiled methods' events answer, from the next sample on */
        jv_codemap_want_compiled();
        break;
    case JV_HEAP_OUTSIDE:
        break;
    }
    return JV_CODE_NONE;
}

/* Interrupts the thread; returns 0 when it could not be (then nothing in f is set). */
static int interrupt(DWORD os_tid, walk *w, found *f)
{
    plat_registers regs;
    memset(&w->trace, 0, sizeof(w->trace));
    w->walked = w->dispatching = 0;
    jv_native_not_walked(&w->native, os_tid);
    jv_hotspot_code_prepare(); /* before the walk in the thread's handler, and code_at */
    if (can_walk)
        jv_agct_want_line_detail();
    if (!can_interrupt || !plat_sample_thread(os_tid, ANSWER_TIMEOUT_MS, walk_interrupted, w, &regs))
        return 0;
    f->ip = regs.ip;
    f->sp = regs.sp;
    if (w->walked && w->trace.num_frames > 0)
        w->trace.num_frames = without_bridge_frames(w->frames, w->trace.num_frames);
    jmethodID walked = w->walked && w->trace.num_frames > 0 ? w->frames[0].method_id : NULL;
    jv_code_range code;
    int owned;
    jv_code_kind kind = code_at((uintptr_t)regs.ip, walked, &code, &owned);
    if (kind == JV_CODE_COMPILED && !code.method && !w->walked)
        jv_codemap_want_compiled(); /* no walk names the method: the code map will, from the next sample on */
    f->generated = kind == JV_CODE_STUB;
    f->location = kind == JV_CODE_COMPILED ? JVM_LOCATION_JIT
                  : kind == JV_CODE_STUB   ? location_of_stub(code.name)
                                           : JVM_LOCATION_NATIVE; /* the VM, a library, the system */
    if (w->dispatching)
        f->location = JVM_LOCATION_PROFILER;
    else if (w->walked && w->trace.num_frames == AGCT_GC_ACTIVE)
        f->location = JVM_LOCATION_GC;
    if (walked) {
        f->method = walked;
        f->bci = w->frames[0].lineno >= 0 ? w->frames[0].lineno : -1;
        f->depth = w->trace.num_frames < WALK_DEPTH ? (uint32_t)w->trace.num_frames : 0;
        int agree = owned || (kind == JV_CODE_STUB && strcmp(code.name, "Interpreter") == 0);
        f->accuracy = agree ? WALK_AND_CODE_AGREE : WALK_ONLY;
        f->walked = 1;
    } else if (kind == JV_CODE_COMPILED && code.method && !jv_rewrite_is_bridge_method(code.method)) {
        f->method = code.method;
        f->accuracy = COMPILED_CODE;
        f->unwalked = w->walked;
    }
    return 1;
}

/* JVMTI's view of the thread's innermost frame, for what the interruption did not tell; 1 when
 * JVMTI found the thread with no Java frame. */
static int frame_from_jvmti(jthread thread, int accuracy, found *f)
{
    jint depth = 0, above = 0; /* the bridge's frames above the program's innermost */
    jlocation location = -1;
    do {
        jvmtiError error = (*jv_jvmti)->GetFrameLocation(jv_jvmti, thread, above, &f->method, &location);
        if (error != JVMTI_ERROR_NONE) {
            f->method = NULL;
            return error == JVMTI_ERROR_NO_MORE_FRAMES; /* VM-internal work, or not started yet */
        }
    } while (jv_rewrite_is_bridge_method(f->method) && ++above);
    f->bci = location >= 0 ? (jint)location : -1;
    f->accuracy = accuracy;
    if (f->want_depth && (*jv_jvmti)->GetFrameCount(jv_jvmti, thread, &depth) == JVMTI_ERROR_NONE && depth > above)
        f->depth = (uint32_t)(depth - above);
    return 0;
}

/* One frame of a walk, innermost first: its method, and its bytecode offset (negative: not known). */
typedef jmethodID (*frame_reader)(const walk *w, int i, jlong *offset);

/* A frame's bytecode offset as the method's class file has it (the instrumented path runs a
 * rewrite of it); negative stays: not known. */
static jlong class_file_offset(MethodID method, jlong offset)
{
    const jv_method_code *code =
        offset >= 0 && jv_rewrites_recorded() ? jv_method_code_of(jv_method_entry(method)) : NULL;
    int starts;
    return code ? (jlong)jv_method_code_offset(code, (jlocation)offset, &starts) : offset;
}

/* Copies the innermost frames (outermost first) into out; not taken when a frame has no MethodID. */
static void copy_frames(JNIEnv *env, stack_out *out, int count, frame_reader frame_at, const walk *w, int deeper)
{
    DWORD kept = (DWORD)count < out->max ? (DWORD)count : out->max;
    for (DWORD i = 0; i < kept; i++) {
        jlong offset = -1;
        if (!(out->frames[i] = jv_method_id(env, frame_at(w, (int)(kept - 1 - i), &offset))))
            return;
        offset = class_file_offset(out->frames[i], offset);
        if (out->offsets)
            out->offsets[i] = offset >= 0 && offset < (jlong)JEVMON_NO_PC_OFFSET ? (DWORD)offset : JEVMON_NO_PC_OFFSET;
    }
    out->count = kept;
    out->truncated = deeper || kept < (DWORD)count;
    out->taken = 1;
}

/* AsyncGetCallTrace's lineno is the bci of a Java frame, negative for a native one. */
static jmethodID walked_frame_at(const walk *w, int i, jlong *offset)
{
    *offset = w->frames[i].lineno;
    return w->frames[i].method_id;
}

/* JVMTI's location is the bci, -1 for a native frame. */
static jmethodID standing_frame_at(const walk *w, int i, jlong *offset)
{
    *offset = w->standing[i].location;
    return w->standing[i].method;
}

/* A thread that stands still: JVMTI's stack, one look for the stack and the innermost frame. */
static void stack_from_jvmti(JNIEnv *env, jthread thread, int accuracy, found *f, walk *w, stack_out *out)
{
    jint count = 0, depth = 0;
    f->method = NULL;
    if ((*jv_jvmti)->GetStackTrace(jv_jvmti, thread, 0, WALK_DEPTH, w->standing, &count) != JVMTI_ERROR_NONE)
        return;
    jint kept = 0; /* without the bridge's frames, as without_bridge_frames */
    for (jint i = 0; i < count; i++)
        if (!jv_rewrite_is_bridge_method(w->standing[i].method))
            w->standing[kept++] = w->standing[i];
    jint bridge = count - kept;
    if ((count = kept) <= 0) { /* no Java frame: VM-internal work, or not started yet */
        copy_frames(env, out, 0, standing_frame_at, w, 0); /* an empty stack is the thread's stack */
        return;
    }
    f->method = w->standing[0].method;
    f->bci = w->standing[0].location >= 0 ? (jint)w->standing[0].location : -1;
    f->accuracy = accuracy;
    int deeper = count == WALK_DEPTH;
    if (!deeper)
        f->depth = (uint32_t)count;
    else if (f->want_depth && (*jv_jvmti)->GetFrameCount(jv_jvmti, thread, &depth) == JVMTI_ERROR_NONE &&
             depth > bridge)
        f->depth = (uint32_t)(depth - bridge);
    copy_frames(env, out, count, standing_frame_at, w, deeper);
}

/*
 * The code map alone, where a walk was possible but named no method: HotSpot reports new code and the
 * unloading of old code late (the service thread posts both), so for a moment the map may
 * still name the method whose code used to be at ip.  JVMTI's frame settles it; where the two
 * differ, its answer is kept, at its accuracy.
 */
static void confirm_with_jvmti(jthread thread, found *f)
{
    found jvmti = *f;
    frame_from_jvmti(thread, SAFEPOINT_VIEW, &jvmti);
    if (jvmti.method && jvmti.method != f->method)
        *f = jvmti;
}

/* The thread's innermost frame from JVMTI; with its whole stack too when out asks and the thread
 * stands still (exact), which costs JVMTI one look instead of two. */
static void standing_frame(JNIEnv *env, jthread thread, int accuracy, found *f, walk *w, stack_out *out)
{
    if (out && accuracy == JVM_SAMPLE_EXACT)
        stack_from_jvmti(env, thread, accuracy, f, w, out);
    else
        frame_from_jvmti(thread, accuracy, f);
}

static void locate(JNIEnv *env, DWORD os_tid, int standing, jthread thread, jint state, found *f, walk *w,
                   stack_out *out)
{
    if (standing || (state & (JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER | JVMTI_THREAD_STATE_WAITING))) {
        f->location = JVM_LOCATION_BLOCKING; /* not interrupted: it stays where it is */
        standing_frame(env, thread, JVM_SAMPLE_EXACT, f, w, out);
        return;
    }
    /* The calling thread is the profiler itself, and cannot wait for its own answer everywhere. */
    int self = os_tid && os_tid == plat_os_thread_id();
    if (self || !os_tid || !interrupt(os_tid, w, f)) {
        f->location = self ? JVM_LOCATION_PROFILER
                      : (state & JVMTI_THREAD_STATE_IN_NATIVE) ? JVM_LOCATION_NATIVE
                                                               : JVM_LOCATION_UNKNOWN;
        /* A thread in native code or sampling itself stays at its frame: JVMTI's view is exact. */
        standing_frame(env, thread, self || (state & JVMTI_THREAD_STATE_IN_NATIVE) ? JVM_SAMPLE_EXACT : SAFEPOINT_VIEW,
                       f, w, out);
    } else if (f->walked && out)
        copy_frames(env, out, w->trace.num_frames, walked_frame_at, w, w->trace.num_frames >= WALK_DEPTH);
    else if (!f->method) {
        if (frame_from_jvmti(thread, SAFEPOINT_VIEW, f) && out)
            copy_frames(env, out, 0, walked_frame_at, w, 0); /* no Java frame: the stack is known, empty */
    } else if (f->unwalked)
        confirm_with_jvmti(thread, f);
    if (f->location != JVM_LOCATION_PROFILER && f->location != JVM_LOCATION_GC) {
        if (atomic_load(&gc_active) && !(state & JVMTI_THREAD_STATE_IN_NATIVE))
            f->location = JVM_LOCATION_GC; /* Java code stands still for the collector; native code runs on */
        else if (f->method && f->location != JVM_LOCATION_JIT && is_loader_native(f->method))
            f->location = JVM_LOCATION_LOADER;
    }
}

/* The OS thread running the thread now: a virtual thread's carrier while it is mounted; 0 when none. */
static DWORD os_thread_of(const jv_thread *t)
{
    if (!t->is_virtual)
        return t->os_tid;
    const jv_thread *carrier = atomic_load(&t->mounted_with);
    return carrier && atomic_load(&carrier->mounted_with) == t ? carrier->os_tid : 0;
}

/*
 * A virtual thread's depth counts its own frames (thread.h).  A walk on its carrier counts the
 * carrier's too, so the depth is JVMTI's, and kept only when JVMTI's innermost frame is the
 * sampled method (a thread that moved on has no StackID in its sample).
 */
static void virtual_thread_depth(JNIEnv *env, jthread thread, const jv_thread *t, found *f)
{
    jmethodID top = NULL;
    jlocation location = 0;
    jint count = 0;
    f->depth = 0;
    if (f->method && (*jv_jvmti)->GetFrameLocation(jv_jvmti, thread, 0, &top, &location) == JVMTI_ERROR_NONE &&
        top == f->method && (*jv_jvmti)->GetFrameCount(jv_jvmti, thread, &count) == JVMTI_ERROR_NONE &&
        (count -= jv_thread_base_frames(env, thread, t)) > 0)
        f->depth = (uint32_t)count;
}

/* What a thread does, for a wall-clock profile, from JVMTI's state; standing: a virtual thread
 * not mounted, or a carrier whose own frames wait while it runs one. */
static DWORD run_state(jint state, int standing)
{
    if (standing)
        return JEVMON_THREAD_WAITING;
    if (state & JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER)
        return JEVMON_THREAD_BLOCKED;
    if (state & JVMTI_THREAD_STATE_SLEEPING)
        return JEVMON_THREAD_SLEEPING;
    if (state & JVMTI_THREAD_STATE_WAITING)
        return JEVMON_THREAD_WAITING;
    return state & JVMTI_THREAD_STATE_IN_NATIVE ? JEVMON_THREAD_NATIVE : JEVMON_THREAD_RUNNING;
}

/* out: NULL, or where SampleThreadStack wants the stack (not for virtual threads: see docs/virtual-threads.md). */
static HRESULT sample_thread(ThreadID thread_id, JVM_METHOD_SAMPLE *psample, ULONGLONG *pip, ULONGLONG *psp,
                             stack_out *out)
{
    JNIEnv *env = jv_jni();
    jv_thread *t = jv_thread_get(thread_id);
    if (!psample || !env || !t)
        return E_FAIL;
    DWORD wanted = psample->flags;
    psample->flags = 0;
    psample->accuracy = JVM_SAMPLE_NONE;
    jthread thread = jv_thread_local_ref(env, t);
    if (!thread)
        return E_FAIL;
    jint state = 0;
    found f = {NULL, -1, 0, JVM_LOCATION_UNKNOWN, JVM_SAMPLE_POOR, 0, 0, 0, 0, 0, (wanted & JVM_SAMPLE_STACK_ID) != 0};
    walk w; /* 28 KiB: the sampling thread's stack, not the heap, for every sample */
    DWORD os_tid = os_thread_of(t);
    jv_native_not_walked(&w.native, os_tid);
    /* Unmounted, a virtual thread runs nowhere; a carrier's own frames wait while it runs one.
     * Its state is not asked then: each JVMTI call about a virtual thread holds off its mounting. */
    int standing = t->is_virtual ? !os_tid : atomic_load(&t->mounted_with) != NULL;
    if (!(t->is_virtual && standing) &&
        ((*jv_jvmti)->GetThreadState(jv_jvmti, thread, &state) != JVMTI_ERROR_NONE || !(state & JVMTI_THREAD_STATE_ALIVE))) {
        (*env)->DeleteLocalRef(env, thread);
        return E_FAIL;
    }
    if (out)
        out->state = run_state(state, standing);
    locate(env, os_tid, standing, thread, state, &f, &w, t->is_virtual ? NULL : out);
    if (out && out->native)
        jv_native_stack_out(&w.native, 0, out->native);
    if (t->is_virtual && (wanted & JVM_SAMPLE_STACK_ID))
        virtual_thread_depth(env, thread, t, &f);
    (*env)->DeleteLocalRef(env, thread);

    psample->accuracy = (JVM_METHOD_SAMPLE_ACCURACY)f.accuracy;
    psample->ip = (DWORD)f.ip; /* the low 32 bits on 64-bit systems; SampleThreadLocation64 has them all */
    psample->sp = (DWORD)f.sp;
    if (pip)
        *pip = f.ip;
    if (psp)
        *psp = f.sp;
    if (f.generated)
        psample->flags |= JVM_SAMPLE_GENERATED_CODE;
    if (wanted & JVM_SAMPLE_LOCATION) {
        psample->location_type = f.location;
        psample->flags |= JVM_SAMPLE_LOCATION;
    }
    if (f.method && (wanted & JVM_SAMPLE_METHOD_ID) && (psample->method_id = jv_method_id(env, f.method)))
        psample->flags |= JVM_SAMPLE_METHOD_ID;
    if (f.method && f.depth && (wanted & JVM_SAMPLE_STACK_ID) && (psample->stack_id = jv_stack_id(t->index, f.depth)))
        psample->flags |= JVM_SAMPLE_STACK_ID;
    if (f.method && f.bci >= 0 && (wanted & JVM_SAMPLE_PC)) {
        psample->pc_offset = (DWORD)class_file_offset(jv_method_id(env, f.method), f.bci);
        psample->flags |= JVM_SAMPLE_PC;
    }
    return S_OK;
}

HRESULT STDMETHODCALLTYPE idinfo_SampleThreadLocation(IJavaEventMonitorIDInfo4 *iface, ThreadID thread_id,
                                                      JVM_METHOD_SAMPLE *psample)
{
    (void)iface;
    return sample_thread(thread_id, psample, NULL, NULL, NULL);
}

HRESULT STDMETHODCALLTYPE sampling_SampleThreadLocation64(IJevmonSampling4 *iface, ThreadID thread_id,
                                                          JVM_METHOD_SAMPLE *psample, ULONGLONG *pip, ULONGLONG *psp)
{
    (void)iface;
    return sample_thread(thread_id, psample, pip, psp, NULL);
}

/* SampleThreadState, with the native frames when pnative is not NULL. */
static HRESULT sample_state(ThreadID thread_id, JVM_METHOD_SAMPLE *psample, MethodID *pframes, DWORD *poffsets,
                            DWORD max_frames, DWORD *pframe_count, BOOL *ptruncated, DWORD *pstate,
                            JEVMON_NATIVE_STACK *pnative)
{
    if (!pframe_count || (max_frames && !pframes))
        return E_POINTER;
    *pframe_count = 0;
    if (ptruncated)
        *ptruncated = FALSE;
    stack_out out = {pframes, poffsets, max_frames, 0, 0, 0, 0, pnative};
    HRESULT hr = sample_thread(thread_id, psample, NULL, NULL, &out);
    if (pstate)
        *pstate = out.state;
    if (FAILED(hr) || !out.taken)
        return FAILED(hr) ? hr : S_FALSE;
    *pframe_count = out.count;
    if (ptruncated)
        *ptruncated = out.truncated ? TRUE : FALSE;
    return S_OK;
}

HRESULT STDMETHODCALLTYPE sampling_SampleThreadState(IJevmonSampling4 *iface, ThreadID thread_id,
                                                     JVM_METHOD_SAMPLE *psample, MethodID *pframes, DWORD *poffsets,
                                                     DWORD max_frames, DWORD *pframe_count, BOOL *ptruncated,
                                                     DWORD *pstate)
{
    (void)iface;
    return sample_state(thread_id, psample, pframes, poffsets, max_frames, pframe_count, ptruncated, pstate, NULL);
}

HRESULT STDMETHODCALLTYPE native_SampleThreadNative(IJevmonNativeSampling *iface, ThreadID thread_id,
                                                    JVM_METHOD_SAMPLE *psample, MethodID *pframes, DWORD *poffsets,
                                                    DWORD max_frames, DWORD *pframe_count, BOOL *ptruncated,
                                                    DWORD *pstate, JEVMON_NATIVE_STACK *pnative)
{
    (void)iface;
    if (!pnative)
        return E_POINTER;
    memset(pnative, 0, offsetof(JEVMON_NATIVE_STACK, frames));
    pnative->walk = JEVMON_NATIVE_NOT_WALKED;
    return sample_state(thread_id, psample, pframes, poffsets, max_frames, pframe_count, ptruncated, pstate, pnative);
}

HRESULT STDMETHODCALLTYPE sampling_SampleThreadFrames(IJevmonSampling4 *iface, ThreadID thread_id,
                                                      JVM_METHOD_SAMPLE *psample, MethodID *pframes, DWORD *poffsets,
                                                      DWORD max_frames, DWORD *pframe_count, BOOL *ptruncated)
{
    return sampling_SampleThreadState(iface, thread_id, psample, pframes, poffsets, max_frames, pframe_count,
                                      ptruncated, NULL);
}

HRESULT STDMETHODCALLTYPE sampling_SampleThreadStack(IJevmonSampling4 *iface, ThreadID thread_id,
                                                     JVM_METHOD_SAMPLE *psample, MethodID *pframes, DWORD max_frames,
                                                     DWORD *pframe_count, BOOL *ptruncated)
{
    return sampling_SampleThreadFrames(iface, thread_id, psample, pframes, NULL, max_frames, pframe_count, ptruncated);
}
