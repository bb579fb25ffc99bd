/* thread_name.c - THREAD_SET_NAME from returns of Thread.setName (see thread_name.h), virtual threads
 * that rename themselves included. */
#include <stdlib.h>
#include <string.h>

#include "classfile/classfile.h"
#include "dispatch/dispatch.h"
#include "events/thread_name.h"
#include "platform/platform.h"

static jmethodID set_name;
static plat_mutex *names_lock; /* every jv_thread's last_name */

void jv_thread_names_capabilities(jvmtiCapabilities *caps)
{
    caps->can_generate_breakpoint_events = 1;
}

/* The thread's current name, malloc'd; NULL when it cannot be had. */
static char *name_of(jthread thread)
{
    jvmtiThreadInfo info;
    if ((*jv_jvmti)->GetThreadInfo(jv_jvmti, thread, &info) != JVMTI_ERROR_NONE)
        return NULL;
    char *name = info.name ? strdup(info.name) : NULL;
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)info.name);
    return name;
}

/* Stores the name; non-zero when it differs from a name stored before. */
static int store_name(jv_thread *t, char *name)
{
    plat_mutex_lock(names_lock);
    int changed = t->last_name && name && strcmp(t->last_name, name) != 0;
    if (name) {
        free(t->last_name);
        t->last_name = name;
    }
    plat_mutex_unlock(names_lock);
    return changed;
}

void jv_thread_name_record(JNIEnv *env, jthread thread, jv_thread *t)
{
    (void)env;
    if (names_lock)
        store_name(t, name_of(thread));
}

/* Sets a breakpoint at every return of setName; NULL, or why not one could be set. */
static const char *watch_returns(void)
{
    jint length = 0;
    unsigned char *code = NULL;
    uint32_t returns[16];
    if ((*jv_jvmti)->GetBytecodes(jv_jvmti, set_name, &length, &code) != JVMTI_ERROR_NONE)
        return "its bytecodes cannot be read";
    long found = cf_return_offsets(code, (uint32_t)length, returns, sizeof(returns) / sizeof(*returns));
    (*jv_jvmti)->Deallocate(jv_jvmti, code);
    if (found <= 0)
        return found < 0 ? "its bytecodes cannot be walked" : "it has no return";
    if ((size_t)found > sizeof(returns) / sizeof(*returns))
        return "it has too many returns";
    for (long i = 0; i < found; i++)
        if ((*jv_jvmti)->SetBreakpoint(jv_jvmti, set_name, (jlocation)returns[i]) != JVMTI_ERROR_NONE) {
            for (long j = 0; j < i; j++)
                (*jv_jvmti)->ClearBreakpoint(jv_jvmti, set_name, (jlocation)returns[j]);
            return "the JVM refused a breakpoint";
        }
    return NULL;
}

void jv_thread_names_start(JNIEnv *env, int breakpoints)
{
    names_lock = plat_mutex_create();
    jint count = 0;
    jthread *threads = NULL;
    if ((*jv_jvmti)->GetAllThreads(jv_jvmti, &count, &threads) == JVMTI_ERROR_NONE) {
        for (jint i = 0; i < count; i++) {
            jv_thread *t = jv_thread_of(env, threads[i]);
            if (t)
                jv_thread_name_record(env, threads[i], t);
            (*env)->DeleteLocalRef(env, threads[i]);
        }
        (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)threads);
    }
    jvmtiCapabilities held;
    if (!breakpoints || (*jv_jvmti)->GetCapabilities(jv_jvmti, &held) != JVMTI_ERROR_NONE ||
        !held.can_generate_breakpoint_events)
        return; /* announced at start (capabilities.c), with the categories that use it */
    jclass thread_class = (*env)->FindClass(env, "java/lang/Thread");
    if (!thread_class) {
        (*env)->ExceptionClear(env);
        return;
    }
    set_name = (*env)->GetMethodID(env, thread_class, "setName", "(Ljava/lang/String;)V");
    (*env)->DeleteLocalRef(env, thread_class);
    if (!set_name) {
        (*env)->ExceptionClear(env);
        jv_log("java.lang.Thread has no setName(String); THREAD_SET_NAME will not be sent");
        return;
    }
    const char *why = watch_returns();
    if (why)
        jv_log("could not watch Thread.setName (%s); THREAD_SET_NAME will not be sent", why);
}

static void notify_if_renamed(JNIEnv *env, jthread thread)
{
    jv_thread *t = jv_thread_of(env, thread);
    if (t && store_name(t, name_of(thread)))
        jv_notify2(JVM_MONITOR_THREADS, JVM_EVENT_TYPE2_THREAD_SET_NAME, jv_thread_id(t), 0);
}

void jv_thread_names_compare(JNIEnv *env, jthread thread)
{
    jint count = 0;
    jthread *threads = NULL;
    if (!names_lock || (*jv_jvmti)->GetAllThreads(jv_jvmti, &count, &threads) != JVMTI_ERROR_NONE)
        return;
    jv_dispatch d;
    jv_dispatch_begin(&d, env);
    for (jint i = 0; i < count; i++) {
        notify_if_renamed(env, threads[i]);
        (*env)->DeleteLocalRef(env, threads[i]);
    }
    /* GetAllThreads lists no virtual threads: one that renamed itself is the one setName returned on. */
    if (jv_thread_is_virtual(env, thread))
        notify_if_renamed(env, thread);
    jv_dispatch_end(&d);
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)threads);
}

void JNICALL jv_on_breakpoint(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method, jlocation location)
{
    (void)jvmti, (void)location; /* one of setName's returns: the name is set */
    if (method == set_name)
        jv_thread_names_compare(env, thread);
}
