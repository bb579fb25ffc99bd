/*
 * gc.c - GC_STARTED and GC_FINISHED.  The sampler learns the collection's window (a
 * thread sampled inside it is in the collector) and the heap monitor its end (dumps, ages).
 */
#include "dispatch/dispatch.h"
#include "events/events.h"
#include "heap/heap.h"
#include "sampling/thread_sample.h"

void JNICALL jv_on_gc_start(jvmtiEnv *jvmti)
{
    (void)jvmti;
    jv_dispatch d;
    jv_sample_gc(1);
    jv_vm_enter_gc_callback();
    jv_dispatch_begin(&d, NULL);
    jv_notify(JVM_MONITOR_GARBAGE_COLLECTIONS, JVM_EVENT_TYPE_GC_STARTED, 0);
    jv_dispatch_end(&d);
    jv_vm_leave_gc_callback();
}

void JNICALL jv_on_gc_finish(jvmtiEnv *jvmti)
{
    (void)jvmti;
    jv_dispatch d;
    jv_vm_enter_gc_callback();
    jv_dispatch_begin(&d, NULL);
    jv_notify(JVM_MONITOR_GARBAGE_COLLECTIONS, JVM_EVENT_TYPE_GC_FINISHED, 0);
    jv_heap_gc_finished();
    jv_dispatch_end(&d);
    jv_vm_leave_gc_callback();
    jv_sample_gc(0);
}
