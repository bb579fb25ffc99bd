/*
 * thread.c - THREAD_CREATE and THREAD_DESTROY for platform threads (ThreadStart,
 * ThreadEnd) and, through vthread.c, virtual ones; and THREAD_CREATE for the threads
 * already running when the agent is loaded into a live JVM.
 */
#include "dispatch/dispatch.h"
#include "events/call_batch.h"
#include "events/events.h"
#include "events/thread_name.h"
#include "ids/thread.h"
#include "platform/platform.h"
#include "sampling/cpu_sample.h"

void jv_events_thread_started(JNIEnv *env, jthread thread, int is_virtual)
{
    jv_dispatch d;
    jv_dispatch_begin(&d, env);
    jv_thread *t = is_virtual ? jv_thread_mount(env, thread) : jv_thread_current(env, thread);
    if (t && !is_virtual)
        jv_cpu_sample_thread_started(t);
    if (t) {
        jv_thread_name_record(env, thread, t);
        jv_events_thread_announce(t); /* an attach or its first call may have announced it already */
    }
    jv_dispatch_end(&d);
}

void jv_events_thread_announce(jv_thread *t)
{
    /* read first: the method-call paths ask on every call, and the exchange is a locked instruction */
    if (t && !atomic_load_explicit(&t->announced, memory_order_relaxed) && !atomic_exchange(&t->announced, 1))
        jv_notify(JVM_MONITOR_THREADS, JVM_EVENT_TYPE_THREAD_CREATE, jv_thread_id(t));
}

void jv_events_thread_ended(JNIEnv *env, jthread thread, int is_virtual)
{
    jv_dispatch d;
    jv_dispatch_begin(&d, env);
    jv_thread *t = is_virtual ? jv_thread_of(env, thread) : jv_thread_current(env, thread);
    jv_call_batches_deliver_own(0); /* no call of a thread comes after its end */
    if (t)
        jv_notify(JVM_MONITOR_THREADS, JVM_EVENT_TYPE_THREAD_DESTROY, jv_thread_id(t));
    if (t && !is_virtual)
        jv_cpu_sample_thread_ended(t); /* its timer goes before its entry */
    if (!is_virtual) /* what the monitors' THREAD_DESTROY ran, under its ThreadID still; the batch freed */
        jv_call_batches_deliver_own(1);
    if (t)
        jv_thread_release(env, t, thread);
    else if (is_virtual)
        jv_thread_unmount();
    jv_dispatch_end(&d);
    if (!is_virtual)
        jv_dispatch_thread_end(); /* the OS thread ends: its dispatch slot may serve another */
}

void JNICALL jv_on_thread_start(jvmtiEnv *jvmti, JNIEnv *env, jthread thread)
{
    (void)jvmti;
    jv_events_thread_started(env, thread, 0);
}

void JNICALL jv_on_thread_end(jvmtiEnv *jvmti, JNIEnv *env, jthread thread)
{
    (void)jvmti;
    jv_events_thread_ended(env, thread, 0);
}

/* THREAD_CREATE for the threads that run when the agent is loaded into a running JVM. */
void jv_threads_announce_live(JNIEnv *env)
{
    jint count = 0;
    jthread *threads = NULL;
    if ((*jv_jvmti)->GetAllThreads(jv_jvmti, &count, &threads) != JVMTI_ERROR_NONE) {
        jv_log("could not list the JVM's threads; the threads running before the agent get no THREAD_CREATE");
        return;
    }
    jv_dispatch d;
    jv_dispatch_begin(&d, env);
    for (jint i = 0; i < count; i++) {
        jv_thread *t = jv_thread_of(env, threads[i]);
        jv_events_thread_announce(t);
        (*env)->DeleteLocalRef(env, threads[i]);
    }
    jv_dispatch_end(&d);
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)threads);
}
