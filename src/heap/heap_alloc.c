/*
 * heap_alloc.c - allocations reported by the JVM (JVMTI SampledObjectAlloc) delivered to
 * IObjectAllocationCallback and counted per class for ClassInformation, and the weight each
 * reported allocation carries (IJevmonAllocationSampling).  The event is on while allocations
 * are tracked (heap.h, event_switch.c); the sampling interval is the setting below.  The sampler
 * reports the VM's own allocations (clone, reflection, JNI) like any other, at every interval,
 * so VMObjectAlloc is not used: above 0 it would report those every time beside their samples.
 */
#include <math.h>
#include <stdlib.h>

#include "dispatch/dispatch.h"
#include "heap/heap.h"
#include "ids/class.h"
#include "ids/object.h"
#include "platform/platform.h"
#include "vm/options.h"

#define INTERVAL_VARIABLE "JEVMON_ALLOCATION_SAMPLING_INTERVAL"

static _Thread_local int flushing; /* jv_heap_flush_sampler's own allocation is not reported */

/* The allocation this thread is reporting to the callbacks, for GetAllocationWeight. */
typedef struct reported_allocation {
    ObjectID object;
    jlong size;
} reported_allocation;
static _Thread_local reported_allocation reporting;

static long long interval = -2; /* -2: not chosen yet */

void jv_heap_choose_sampling_interval(jint bytes)
{
    interval = bytes;
}

/*
 * The interval in bytes: the agent option allocation_interval= (jv_heap_choose_sampling_interval),
 * else the environment variable, else the smallest AllocationSamplingInterval a monitor
 * registered, else 0 (every allocation the JVM can report, as the Microsoft VM reported every
 * allocation).  Read once.
 */
jint jv_heap_sampling_interval(void)
{
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

static void report(JNIEnv *env, jobject object, jclass klass, jlong size)
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
    reported_allocation outer = reporting; /* a callback's own allocation is reported inside it */
    reporting = (reported_allocation){object_id, size};
    for (size_t i = 0; i < jv_monitors.count; i++) {
        IObjectAllocationCallback *callback = jv_heap_allocation_callback(jv_monitors.items[i]);
        if (callback && object_id && atomic_load_explicit(&jv_monitors.items[i]->phase, memory_order_relaxed) ==
                                          JV_PHASE_RUNNING)
            IObjectAllocationCallback_OnObjectAllocated(callback, object_id, class_id);
    }
    reporting = outer;
    jv_dispatch_end(&d);
}

void JNICALL jv_on_sampled_object_alloc(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jobject object,
                                        jclass klass, jlong size)
{
    (void)jvmti, (void)thread;
    report(env, object, klass, size);
}

/*
 * HotSpot samples by bytes: each thread counts down an exponentially distributed number of
 * bytes (mean: the interval) and reports the object whose allocation crosses zero.  An object
 * of size s is therefore reported with probability p = 1 - exp(-s/interval), and stands for
 * 1/p objects and s/p bytes in expectation (async-profiler's and JFR's weighting).  Small
 * objects weigh about interval/s each; an object of the interval's size or more weighs a
 * little above 1.
 */
HRESULT jv_heap_allocation_weight(ObjectID object, double *objects, ULONGLONG *bytes)
{
    if (!objects || !bytes)
        return E_POINTER;
    *objects = 0;
    *bytes = 0;
    if (!object || object != reporting.object || reporting.size <= 0)
        return E_INVALIDARG; /* not the allocation this thread is reporting now */
    jint interval = jv_heap_sampling_interval();
    double size = (double)reporting.size, reported = interval > 0 ? -expm1(-size / (double)interval) : 1.0;
    *objects = 1.0 / reported;
    *bytes = (ULONGLONG)llround(size / reported);
    return S_OK;
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
