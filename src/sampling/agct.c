/*
 * agct.c - HotSpot's AsyncGetCallTrace, in no header: found at VMInit in the JVM's library, and the
 * walk of an interrupted thread's Java stack that sample.c (a thread interrupted on request) and
 * cpu_sample.c (on its processor-time timer) run inside their signal handler, on the thread walked.
 *
 * AGCT learns which thread it walks from the JNIEnv it is given.  The handler cannot ask the JVM
 * for it (GetEnv reads the JVM's thread-locals, which is not async-signal-safe: platform.h); it
 * takes it from the JVM's record of the thread, through the thread key found here once, on the
 * thread that starts sampling.  Without the key AGCT is not used at all.
 */
#include <stdatomic.h>
#include <string.h>

#include "ids/codemap.h"
#include "platform/platform.h"
#include "sampling/agct.h"
#include "vm/hotspot_code.h"
#include "vm/hotspot_flags.h"

/* How far below a thread's JNIEnv the JVM's record of the thread may start (HotSpot: JavaThread,
 * the JNIEnv one of its fields, under 2 KiB in) for plat_jvm_thread_key_find. */
#define JVM_THREAD_SPAN 16384

static agct_function async_get_call_trace;

int jv_agct_find(JNIEnv *env)
{
    async_get_call_trace = (agct_function)jv_jvm_symbol("AsyncGetCallTrace");
    if (async_get_call_trace && !plat_jvm_thread_key_find(env, JVM_THREAD_SPAN)) {
        jv_log("the JVM's thread key was not found: an interrupted thread's JNIEnv cannot be known safely, so "
               "AsyncGetCallTrace is not used; samples are taken through JVMTI only");
        async_get_call_trace = NULL;
    }
    return async_get_call_trace != NULL;
}

void jv_agct_want_line_detail(void)
{
    static atomic_int asked;
    if (atomic_load_explicit(&asked, memory_order_relaxed) || atomic_exchange(&asked, 1))
        return;
    jv_hotspot_code_prepare(); /* before the first walk: walk_from_frame_edge runs in a handler */
    if (!jv_hotspot_flag_on("DebugNonSafepoints"))
        jv_codemap_want_compiled();
}

/* A vtable or itable stub sets up no frame: AGCT finds no Java frame there, yet the thread is in its
 * compiled caller's call, whose frames AGCT gives from the stub's return (the stub itself is a
 * native frame of the sample: native_walk.c).  Only compiled code calls these stubs: a return
 * into the code map's compiled methods, or into code the map does not have (it keeps compiled
 * methods only once asked for them: codemap.h), not into another stub.  Its own function: the
 * context's copy takes stack only when asked for. */
__attribute__((noinline)) static void walk_from_stub_caller(agct_trace *trace, jint depth, void *context)
{
    unsigned char returned[PLAT_CONTEXT_MAX];
    jv_code_range stub, caller;
    uint64_t ip, sp, fp, return_address;
    if (plat_context_frame(context, &ip, &sp, &fp) && jv_codemap_find((uintptr_t)ip, &stub) == JV_CODE_STUB &&
        (strcmp(stub.name, "vtable stub") == 0 || strcmp(stub.name, "itable stub") == 0) &&
        plat_read_memory(sp, &return_address, sizeof(return_address)) &&
        plat_context_moved(context, return_address, sp + 8, fp, returned) &&
        jv_codemap_find((uintptr_t)return_address, &caller) != JV_CODE_STUB)
        async_get_call_trace(trace, depth, returned);
}

/* A compiled method interrupted while its frame is set up or taken down (its prologue, a stack bang
 * touching a new page; its epilogue, the return's safepoint poll) is where AGCT gives up most in
 * Java code (JDK-8178287).  The walk starts again at the caller, from the return address, and the
 * method itself goes on top, at bytecode 0 (its line is not known there). */
__attribute__((noinline)) static void walk_from_frame_edge(agct_trace *trace, jint depth, void *context)
{
    unsigned char caller[PLAT_CONTEXT_MAX];
    uint64_t ip, sp, fp;
    jv_frame_edge edge;
    jint failed = trace->num_frames;
    agct_frame *frames = trace->frames;
    if (depth < 2 || !plat_context_frame(context, &ip, &sp, &fp) || !jv_hotspot_frame_edge(ip, sp, fp, &edge) ||
        !plat_context_moved(context, edge.caller_ip, edge.caller_sp, edge.fp, caller))
        return;
    trace->frames = frames + 1;
    async_get_call_trace(trace, depth - 1, caller);
    trace->frames = frames;
    if (trace->num_frames <= 0) {
        trace->num_frames = failed;
        return;
    }
    frames[0].lineno = 0;
    frames[0].method_id = edge.method;
    trace->num_frames++;
}

int jv_agct_walk(agct_trace *trace, agct_frame *frames, jint depth, void *context)
{
    if (!async_get_call_trace)
        return 0;
    trace->frames = frames;
    if (!(trace->env_id = plat_jvm_thread_env()))
        return 0;
    async_get_call_trace(trace, depth, context);
    if (trace->num_frames <= 0)
        walk_from_stub_caller(trace, depth, context);
    if (trace->num_frames == AGCT_UNKNOWN_JAVA || trace->num_frames == AGCT_NOT_WALKABLE_JAVA)
        walk_from_frame_edge(trace, depth, context);
    return 1;
}
