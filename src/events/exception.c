/*
 * exception.c - exception and failed-class-load events (see exception.h).
 *
 * While Exception or ExceptionCatch events are on for a thread, HotSpot's compiled code takes
 * a deoptimization trap at every throw so that the interpreter can post them: several
 * microseconds per exception, whoever listens.  CLASS_LOADS alone therefore does without
 * them: breakpoints at the constructors of ClassNotFoundException and NoClassDefFoundError
 * turn the Exception event on for the constructing thread only, until a failure is thrown
 * there (the one constructed: the class loaders and the VM throw what they just made).
 * Should the breakpoints not be set, the Exception event serves CLASS_LOADS for every thread.
 */
#include <stdlib.h>
#include <string.h>

#include "dispatch/dispatch.h"
#include "dispatch/event_switch.h"
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

#define FAILURE_CLASSES 2
static const char *const failure_class_names[FAILURE_CLASSES] = {"java/lang/ClassNotFoundException",
                                                                 "java/lang/NoClassDefFoundError"};
static jclass failure_classes[FAILURE_CLASSES]; /* global refs, from jv_class_failures_start */
static jmethodID *failure_constructors;         /* the breakpoints' methods */
static jint failure_constructor_count;
static int failures_watched;
/* The Exception event is on for this thread until the failure constructed here is thrown. */
static _Thread_local int failure_armed;

/* Is the exception a ClassNotFoundException or NoClassDefFoundError? */
static int is_class_failure(JNIEnv *env, jobject exception)
{
    int is_failure = 0;
    for (size_t i = 0; i < FAILURE_CLASSES && !is_failure; i++) {
        jclass k = failure_classes[i] ? failure_classes[i] : (*env)->FindClass(env, failure_class_names[i]);
        if (!k) {
            (*env)->ExceptionClear(env);
            continue;
        }
        is_failure = (*env)->IsInstanceOf(env, exception, k);
        if (k != failure_classes[i])
            (*env)->DeleteLocalRef(env, k);
    }
    return is_failure;
}

/* Sets a breakpoint at the start of every constructor of k; the number set. */
static jint watch_constructors(jclass k)
{
    jint count = 0, set = 0;
    jmethodID *methods = NULL;
    if ((*jv_jvmti)->GetClassMethods(jv_jvmti, k, &count, &methods) != JVMTI_ERROR_NONE)
        return 0;
    jmethodID *grown = realloc(failure_constructors, (size_t)(failure_constructor_count + count) * sizeof(*grown));
    if (grown) {
        failure_constructors = grown;
        for (jint i = 0; i < count; i++) {
            char *name = NULL;
            if ((*jv_jvmti)->GetMethodName(jv_jvmti, methods[i], &name, NULL, NULL) != JVMTI_ERROR_NONE)
                continue;
            if (!strcmp(name, "<init>") && (*jv_jvmti)->SetBreakpoint(jv_jvmti, methods[i], 0) == JVMTI_ERROR_NONE) {
                failure_constructors[failure_constructor_count++] = methods[i];
                set++;
            }
            (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)name);
        }
    }
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)methods);
    return set;
}

void jv_class_failures_start(JNIEnv *env)
{
    int watched = 1;
    for (size_t i = 0; i < FAILURE_CLASSES; i++) {
        jclass k = (*env)->FindClass(env, failure_class_names[i]);
        if (!k) {
            (*env)->ExceptionClear(env);
            watched = 0;
            continue;
        }
        failure_classes[i] = (*env)->NewGlobalRef(env, k);
        watched &= failure_classes[i] && watch_constructors(k) > 0;
        (*env)->DeleteLocalRef(env, k);
    }
    failures_watched = watched;
    if (watched) /* CLASS_LOADS needs no Exception events of its own: the breakpoints arm them per thread */
        jv_events_served_elsewhere(JVMTI_EVENT_EXCEPTION, JVM_MONITOR_CLASS_LOADS);
}

int jv_class_failures_watched(void)
{
    return failures_watched;
}

int jv_class_failure_breakpoint(jthread thread, jmethodID method)
{
    for (jint i = 0; i < failure_constructor_count; i++) {
        if (failure_constructors[i] != method)
            continue;
        if (!failure_armed && failures_watched && (jv_monitors_mask_union() & JVM_MONITOR_CLASS_LOADS) &&
            (*jv_jvmti)->SetEventNotificationMode(jv_jvmti, JVMTI_ENABLE, JVMTI_EVENT_EXCEPTION, thread) ==
                JVMTI_ERROR_NONE)
            failure_armed = 1;
        return 1;
    }
    return 0;
}

/* The class name a ClassNotFoundException or NoClassDefFoundError is about, in internal form. */
static char *failed_class_name(JNIEnv *env, jobject exception)
{
    jclass throwable = (*env)->FindClass(env, "java/lang/Throwable");
    jmethodID get_message = throwable ? (*env)->GetMethodID(env, throwable, "getMessage", "()Ljava/lang/String;") : NULL;
    jstring message = get_message ? (*env)->CallObjectMethod(env, exception, get_message) : NULL;
    char *name = NULL;
    if ((*env)->ExceptionCheck(env))
        (*env)->ExceptionClear(env);
    else if (message) {
        const char *utf = (*env)->GetStringUTFChars(env, message, NULL);
        if (utf && (name = strdup(utf)))
            for (char *p = name; *p; p++)
                if (*p == '.')
                    *p = '/';
        if (utf)
            (*env)->ReleaseStringUTFChars(env, message, utf);
    }
    if (message)
        (*env)->DeleteLocalRef(env, message);
    if (throwable)
        (*env)->DeleteLocalRef(env, throwable);
    return name;
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
    if ((failure_armed || (wanted & JVM_MONITOR_CLASS_LOADS)) && is_class_failure(env, exception)) {
        if (failure_armed) {
            failure_armed = 0;
            (*jv_jvmti)->SetEventNotificationMode(jv_jvmti, JVMTI_DISABLE, JVMTI_EVENT_EXCEPTION, thread);
        }
        char *name = (wanted & JVM_MONITOR_CLASS_LOADS) ? failed_class_name(env, exception) : NULL;
        if (name)
            jv_notify(JVM_MONITOR_CLASS_LOADS, JVM_EVENT_TYPE_CLASS_LOAD_FAILED, (UniqueID)name);
        free(name);
    }
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
