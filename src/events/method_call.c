/*
 * method_call.c - the method-call path: MethodEntry, MethodExit and MethodExit2, plus
 * EXCEPTION_UNWIND for frames an exception pops.  Calls come from JVMTI MethodEntry/
 * MethodExit or from the instrumented bridge (instrument.c); both go through
 * jv_method_calls_enter / jv_method_calls_exit, which also store the records of the monitors that
 * take calls in batches (call_batch.h).
 *
 * StackIDs come from the thread's shadow stack (thread.h): the entered frame's depth on
 * entry, the caller's on exit, so each exit names the frame its entry's caller had.
 * No lock is taken: the thread's own entry is thread-local and MethodIDs come from the
 * lock-free index.
 */
#include <string.h>

#include "dispatch/dispatch.h"
#include "dispatch/event_switch.h"
#include "dispatch/method_calls.h"
#include "events/call_batch.h"
#include "events/events.h"
#include "events/exception.h"
#include "events/specific_regions.h"
#include "ids/ids.h"
#include "ids/method.h"
#include "ids/object.h"
#include "ids/thread.h"

/* The method returning on this thread while its MethodExit/MethodExit2 callbacks run. */
typedef struct exit_context {
    int active;
    jmethodID jmethod;
    MethodID method;
    jvalue value;
    jboolean by_exception;
    JNIEnv *env;
    __int64 decoded; /* what GetMethodExitReturnValue points at */
} exit_context;

static _Thread_local exit_context exiting_call;

/*
 * The part both mechanisms share (JVMTI events here, bytecode instrumentation in
 * instrument.c): shadow stack, StackIDs and dispatch.  below: frames on the JVM's stack
 * above the ones the shadow holds when it must be re-read (JVMTI entry: the frame being
 * entered; the bridge's enter: its own native frame too).
 */
int jv_method_calls_wanted(MethodID id)
{
    JV_FOR_EACH_MONITOR(m, JV_METHOD_CALL_BITS)
    if (jv_monitor_wants_calls(m, id))
        return 1;
    return 0;
}

void jv_method_calls_enter(JNIEnv *env, jthread thread, MethodID id, jmethodID method, int below, int resync)
{
    jv_dispatch d;
    jv_dispatch_begin(&d, env);
    jv_thread *t = jv_thread_current(env, thread);
    jv_events_thread_announce(t); /* the thread before its first call */
    if (t) {
        if (!id)
            id = jv_method_id(env, method);
        if (resync || t->sync_epoch != jv_threads_epoch())
            jv_thread_sync_stack(env, thread, t, below); /* the frames below the one being entered */
        jv_call_batching batching = jv_method_call_batching();
        if (jv_thread_push(t, id)) {
            uint32_t given = jv_method_call_receivers(id);
            t->given[t->depth - 1] = given;
            if (given && thread && !jv_switch_method_calls_instrumented())
                jv_call_region_entered(thread, t); /* before a callback can switch events off */
            jv_deliver_method_entry(given, id, jv_stack_id(t->index, t->depth));
        }
        if (batching != JV_NO_BATCHES)
            jv_call_batch_store(t, id, JEVMON_CALL_ENTERED);
    }
    jv_dispatch_end(&d);
}

/*
 * known: the exiting method's MethodID when the caller knows it (the bridge): frames
 * above its innermost shadow frame exited unseen (a constructor whose super() threw
 * reports no exit) and are dropped first.  return_value NULL: not available.
 */
void jv_method_calls_exit(JNIEnv *env, jthread thread, jmethodID method, MethodID known, int below, int resync,
                          jboolean was_popped_by_exception, const jvalue *return_value)
{
    jv_dispatch d;
    jv_dispatch_begin(&d, env);
    jv_thread *t = jv_thread_current(env, thread);
    jv_events_thread_announce(t); /* the thread before its first call */
    if (t) {
        if (resync || t->sync_epoch != jv_threads_epoch())
            jv_thread_sync_stack(env, thread, t, below); /* including the frame that exits */
        if (known && t->depth && t->frames[t->depth - 1] != known) {
            uint32_t d = t->depth - 1;
            while (d > 0 && t->frames[d - 1] != known)
                d--;
            if (d > 0)
                t->depth = d; /* the innermost frame of the exiting method is now on top */
        }
        uint32_t given = t->depth ? t->given[t->depth - 1] : 0; /* an exit unseen in the shadow goes to no one */
        MethodID exiting = t->depth ? t->frames[t->depth - 1] : known ? known : jv_method_id(env, method);
        StackID exiting_stack = jv_stack_id(t->index, t->depth);
        if (t->depth)
            t->depth--;
        if (was_popped_by_exception)
            jv_exception_unwind(env, exiting_stack);
        MethodID caller = t->depth ? t->frames[t->depth - 1] : 0;
        StackID caller_stack = jv_stack_id(t->index, t->depth);
        /* Without a return value (the bridge) GetMethodExitReturnValue fails anyway: no context is set. */
        if (return_value)
            exiting_call = (exit_context){1, method, exiting, *return_value, was_popped_by_exception, env, 0};
        jv_deliver_method_exit(given, caller, caller_stack);
        if (return_value)
            exiting_call.active = 0;
        if (jv_method_call_batching() != JV_NO_BATCHES)
            jv_call_batch_store(t, exiting, was_popped_by_exception ? JEVMON_CALL_UNWOUND : JEVMON_CALL_RETURNED);
    }
    jv_dispatch_end(&d);
}

void jv_method_calls_unwind(JNIEnv *env, int below)
{
    jv_dispatch d;
    jv_dispatch_begin(&d, env);
    jv_thread *t = jv_thread_current(env, NULL);
    jv_events_thread_announce(t);
    jint count = 0;
    if (t && (*jv_jvmti)->GetFrameCount(jv_jvmti, NULL, &count) == JVMTI_ERROR_NONE &&
        (count -= jv_thread_base_frames(env, NULL, t)) > below)
        jv_exception_unwind(env, jv_stack_id(t->index, (uint32_t)(count - below)));
    jv_dispatch_end(&d);
}

void JNICALL jv_on_method_entry(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method)
{
    (void)jvmti;
    jv_method_calls_enter(env, thread, 0, method, 1, 0);
    jv_call_region_check(thread);
}

void JNICALL jv_on_method_exit(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method,
                               jboolean was_popped_by_exception, jvalue return_value)
{
    (void)jvmti;
    jv_method_calls_exit(env, thread, method, 0, 0, 0, was_popped_by_exception, &return_value);
    jv_call_region_check(thread);
}

/* The return value widened to 64 bits by the method's return type; objects as ObjectIDs. */
static HRESULT decode_return_value(exit_context *call)
{
    char *name = NULL, *sig = NULL;
    if ((*jv_jvmti)->GetMethodName(jv_jvmti, call->jmethod, &name, &sig, NULL) != JVMTI_ERROR_NONE)
        return E_FAIL;
    const char *ret = strchr(sig, ')');
    HRESULT hr = S_OK;
    switch (ret ? ret[1] : 'V') {
    case 'Z': call->decoded = call->value.z; break;
    case 'B': call->decoded = call->value.b; break;
    case 'C': call->decoded = call->value.c; break;
    case 'S': call->decoded = call->value.s; break;
    case 'I': call->decoded = call->value.i; break;
    case 'J': call->decoded = call->value.j; break;
    case 'F': memcpy(&call->decoded, &call->value.f, sizeof(call->value.f)); break;
    case 'D': memcpy(&call->decoded, &call->value.d, sizeof(call->value.d)); break;
    case 'L':
    case '[': call->decoded = (__int64)jv_object_id(call->env, call->value.l); break;
    default: hr = E_FAIL; /* void: nothing is returned */
    }
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)name);
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)sig);
    return hr;
}

HRESULT STDMETHODCALLTYPE idinfo_GetMethodExitReturnValue(IJavaEventMonitorIDInfo4 *iface,
                                                          MethodID *preturning_method_id, __int64 **pret_value)
{
    jv_monitor *m = jv_idinfo_owner(iface);
    exit_context *call = &exiting_call;
    /* Only inside MethodExit/MethodExit2, on a normal return, and not after promising not to ask. */
    if (!m || (m->granted_options & JVM_INIT_OPT_RETURN_VALUE_NOT_NEEDED) || !call->active || call->by_exception ||
        !preturning_method_id || !pret_value)
        return E_FAIL;
    HRESULT hr = decode_return_value(call);
    if (FAILED(hr))
        return hr;
    *preturning_method_id = call->method;
    *pret_value = &call->decoded;
    return S_OK;
}

HRESULT STDMETHODCALLTYPE idinfo_GetMethodEntryParameters(IJavaEventMonitorIDInfo4 *iface, DWORD **ppslots,
                                                          DWORD **ppreserved,
                                                          JVM_CALLING_CONVENTION *pcalling_convention, DWORD *pflags)
{
    /* HotSpot exposes no argument slots to agents (see docs/compatibility.md). */
    (void)iface, (void)ppslots, (void)ppreserved, (void)pcalling_convention, (void)pflags;
    return E_FAIL;
}
