/*
 * exception.c - exception events (see exception.h).
 *
 * While Exception or ExceptionCatch events are on for a thread, HotSpot's compiled code takes
 * a deoptimization trap at every throw so that the interpreter can post them: several
 * microseconds per exception, whoever listens.
 */

#include "dispatch/dispatch.h"
#include "events/exception.h"
#include "ids/ids.h"
#include "ids/object.h"
#include "ids/thread.h"

/* The exception this thread is propagating, between its throw and its catch. */
static _Thread_local jobject in_flight;
/* Instrumented methods: the exception an injected handler caught and is about to rethrow.
 * Its catch and its rethrow are the bridge's, not the program's: no events for them. */
static _Thread_local jobject rethrowing;

static void set_rethrowing(JNIEnv *env, jobject exception)
{
    if (rethrowing)
        (*env)->DeleteGlobalRef(env, rethrowing);
    rethrowing = exception ? (*env)->NewGlobalRef(env, exception) : NULL;
}

void jv_exception_caught_by_handler(JNIEnv *env, jobject exception)
{
    set_rethrowing(env, exception); /* still in flight: the handler calls exit and rethrows */
}

/* The StackID of the calling thread's innermost frame. */
static StackID innermost_frame(JNIEnv *env, jthread thread)
{
    jint count = 0;
    jv_thread *t = jv_thread_current(env, thread);
    if (!t || (*jv_jvmti)->GetFrameCount(jv_jvmti, thread, &count) != JVMTI_ERROR_NONE)
        return 0;
    return jv_stack_id(t->index, (uint32_t)count);
}

static void set_in_flight(JNIEnv *env, jobject exception)
{
    if (in_flight)
        (*env)->DeleteGlobalRef(env, in_flight);
    in_flight = exception ? (*env)->NewGlobalRef(env, exception) : NULL;
}

void JNICALL jv_on_exception(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method, jlocation location,
                             jobject exception, jmethodID catch_method, jlocation catch_location)
{
    (void)jvmti, (void)method, (void)location, (void)catch_method, (void)catch_location;
    if (rethrowing) {
        int again = (*env)->IsSameObject(env, exception, rethrowing);
        set_rethrowing(env, NULL);
        if (again)
            return; /* an injected handler's athrow: the throw was reported already */
    }
    jv_dispatch d;
    jv_dispatch_begin(&d, env);
    DWORD wanted = jv_monitors_mask_union();
    if (wanted & (JVM_MONITOR_EXCEPTIONS | JVM_MONITOR_EXCEPTION_UNWIND))
        set_in_flight(env, exception);
    if (wanted & JVM_MONITOR_EXCEPTIONS)
        jv_notify2(JVM_MONITOR_EXCEPTIONS, JVM_EVENT_TYPE2_EXCEPTION_THROWN, innermost_frame(env, thread),
                   jv_object_id(env, exception));
    jv_dispatch_end(&d);
}

void JNICALL jv_on_exception_catch(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method,
                                   jlocation location, jobject exception)
{
    (void)jvmti, (void)method, (void)location;
    jv_dispatch d;
    jv_dispatch_begin(&d, env);
    StackID handler = innermost_frame(env, thread);
    ObjectID object = jv_object_id(env, exception);
    JV_FOR_EACH_MONITOR(m, JVM_MONITOR_EXCEPTIONS)
    if (m->mon2)
        IJavaEventMonitor2_NotifyEvent2(m->mon2, JVM_EVENT_TYPE2_EXCEPTION_OCCURRED, handler, object);
    else
        IJavaEventMonitor_NotifyEvent(m->mon, JVM_EVENT_TYPE_EXCEPTION_OCCURRED, handler);
    set_in_flight(env, NULL);
    jv_dispatch_end(&d);
}

void jv_exception_unwind(JNIEnv *env, StackID frame)
{
    if (jv_monitors_mask_union() & JVM_MONITOR_EXCEPTION_UNWIND)
        jv_notify2(JVM_MONITOR_EXCEPTION_UNWIND, JVM_EVENT_TYPE2_EXCEPTION_UNWIND, frame,
                   in_flight ? jv_object_id(env, in_flight) : 0);
}
