/*
 * heap_alloc.c - allocations reported by the JVM (JVMTI SampledObjectAlloc, and
 * VMObjectAlloc for objects the VM allocates itself) delivered to IObjectAllocationCallback
 * and counted per class for ClassInformation.  The events are on while allocations are
 * tracked (heap.h, events.c); the sampling interval is the setting below.  At interval 0 the
 * sampler reports the VM's own allocations too, so VMObjectAlloc is on only above 0.
 */
#include <stdlib.h>

#include "class.h"
#include "dispatch.h"
#include "heap.h"
#include "object.h"
#include "options.h"
#include "platform/platform.h"

#define INTERVAL_VARIABLE "JEVMON_ALLOCATION_SAMPLING_INTERVAL"

static _Thread_local int flushing; /* jv_heap_flush_sampler's own allocation is not reported */

/*
 * The interval in bytes: the environment variable, else the smallest AllocationSamplingInterval
 * a monitor registered, else 0 (every allocation the JVM can report, as the Microsoft VM
 * reported every allocation).  Read once.
 */
jint jv_heap_sampling_interval(void)
{
    static long long interval = -2;
    if (interval != -2)
        return (jint)interval;
    long long chosen = -1;
    for (size_t i = 0; i < jv_monitors.count; i++) {
        long long mine = jv_monitors.items[i]->sampling_interval;
        if (mine >= 0 && (chosen < 0 || mine < chosen))
            chosen = mine;
    }
    unsigned long long value;
    if (jv_env_number(INTERVAL_VARIABLE, 0, 0x7fffffff, "a number of bytes from 0 to 2147483647 (decimal, no sign)",
                      &value) == 1)
        chosen = (long long)value;
    interval = chosen < 0 ? 0 : chosen > 0x7fffffff ? 0x7fffffff : chosen;
    return (jint)interval;
}

static void report(JNIEnv *env, jobject object, jclass klass)
{
    if (flushing)
        return;
    ClassID class_id = jv_class_id(env, klass);
    jv_class *c = class_id ? jv_class_get(class_id) : NULL;
    if (c)
        atomic_fetch_add_explicit(&c->objects_created, 1, memory_order_relaxed);
    if (jv_heap_ages_kept())
        jv_heap_note_birth(object);
    if (!jv_heap_allocations_wanted())
        return; /* counted only: no callback wants an ObjectID */
    jv_dispatch d;
    jv_dispatch_begin(&d, env);
    ObjectID object_id = jv_object_id(env, object);
    for (size_t i = 0; i < jv_monitors.count; i++) {
        IObjectAllocationCallback *callback = jv_heap_allocation_callback(jv_monitors.items[i]);
        if (callback && object_id && atomic_load_explicit(&jv_monitors.items[i]->phase, memory_order_relaxed) ==
                                          JV_PHASE_RUNNING)
            IObjectAllocationCallback_OnObjectAllocated(callback, object_id, class_id);
    }
    jv_dispatch_end(&d);
}

void JNICALL jv_on_sampled_object_alloc(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jobject object,
                                        jclass klass, jlong size)
{
    (void)jvmti, (void)thread, (void)size;
    report(env, object, klass);
}

void JNICALL jv_on_vm_object_alloc(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jobject object, jclass klass,
                                   jlong size)
{
    (void)jvmti, (void)thread, (void)size;
    report(env, object, klass);
}

/*
 * HotSpot draws each thread's next sampling point when the thread starts, with the interval
 * of that moment, and counts down to it only while the event is on: the main thread, older
 * than the agent, would report nothing until it had allocated about 512 KiB (the default)
 * more.  One big allocation right after the events go on passes that point; it is not
 * reported itself.
 */
void jv_heap_flush_sampler(JNIEnv *env)
{
    if (!env || !jv_heap_allocations_tracked() || jv_heap_sampling_interval() != 0)
        return;
    flushing = 1;
    jbyteArray passing = (*env)->NewByteArray(env, 8 << 20);
    if (passing)
        (*env)->DeleteLocalRef(env, passing);
    (*env)->ExceptionClear(env); /* a heap too small for it: the first samples are late, nothing worse */
    flushing = 0;
}
