/*
 * class_load.c - class loads: CLASS_LOAD_STARTED from ClassFileLoadHook (whose class file the
 * instrumentation then rewrites: jvmti_setup.c), CLASS_LOAD_FINISHED from ClassPrepare, when the
 * class's methods exist.  CLASS_UNLOAD is unload.c's, CLASS_LOAD_FAILED exception.c's.
 */
#include "dispatch/dispatch.h"
#include "events/events.h"
#include "ids/class.h"

void jv_class_load_started(JNIEnv *env, const char *name)
{
    jv_dispatch d;
    jv_dispatch_begin(&d, env);
    jv_notify(JVM_MONITOR_CLASS_LOADS, JVM_EVENT_TYPE_CLASS_LOAD_STARTED, (UniqueID)name);
    jv_dispatch_end(&d);
}

/* Does nothing: HotSpot's AsyncGetCallTrace refuses to walk unless some agent listens to class loads. */
void JNICALL jv_on_class_load(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jclass klass)
{
    (void)jvmti, (void)env, (void)thread, (void)klass;
}

void JNICALL jv_on_class_prepare(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jclass klass)
{
    (void)jvmti, (void)thread;
    jv_dispatch d;
    jv_dispatch_begin(&d, env);
    ClassID id = jv_class_id(env, klass);
    if (id)
        jv_notify(JVM_MONITOR_CLASS_LOADS, JVM_EVENT_TYPE_CLASS_LOAD_FINISHED, id);
    jv_dispatch_end(&d);
}
