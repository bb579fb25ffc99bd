/* unload.c - delivers CLASS_UNLOAD from freed class mirrors (see unload.h). */
#include <stdatomic.h>
#include <stdlib.h>

#include "dispatch/dispatch.h"
#include "events/unload.h"
#include "ids/class.h"
#include "ids/ids.h"
#include "platform/platform.h"

#define IDLE_WAIT_MS 60000u /* the deliverer sleeps until woken; this long at most between looks */

static atomic_int pending;    /* classes wait to be reported */
static atomic_int stop_asked; /* at VMDeath: the deliverer ends at once (the exit waits for it) */
static plat_thread *deliverer;
/* Set when classes wait or the deliverer is to stop.  Made once and kept: ObjectFree may set it at
 * any time, from the collector, even while VMDeath stops the deliverer. */
static plat_event *_Atomic wake;

void JNICALL jv_on_object_free(jvmtiEnv *jvmti, jlong tag)
{
    uint32_t index;
    (void)jvmti;
    if (jv_id_index((UniqueID)tag, JV_ID_CLASS, &index)) {
        jv_class_unloading((ClassID)tag);
        plat_event *e = atomic_load(&wake);
        if (!atomic_exchange(&pending, 1) && e)
            plat_event_set(e); /* a lock held for a moment: allowed here as raw monitors are */
    }
}

/* CLASS_UNLOAD for every class unloaded since the last delivery; each ID is valid during its event. */
static void deliver_unloads(JNIEnv *env)
{
    size_t count;
    ClassID *batch = jv_classes_take_unloading(&count);
    jv_dispatch d;
    jv_dispatch_begin(&d, env);
    for (size_t i = 0; i < count; i++) {
        jv_notify(JVM_MONITOR_CLASS_LOADS, JVM_EVENT_TYPE_CLASS_UNLOAD, batch[i]);
        jv_class_unloaded(env, batch[i]);
    }
    jv_dispatch_end(&d);
    free(batch);
}

/* Wakes when classes wait (no polling: an idle JVM keeps this thread asleep) or to stop. */
static void deliver_loop(void *arg)
{
    plat_event *e = arg;
    while (!atomic_load(&stop_asked)) {
        plat_event_wait_ms(e, IDLE_WAIT_MS);
        plat_event_reset(e); /* before taking pending: an unload after this sets it again */
        if (!atomic_load(&stop_asked) && atomic_exchange(&pending, 0))
            deliver_unloads(jv_jni());
    }
    if (jv_vm)
        (*jv_vm)->DetachCurrentThread(jv_vm);
}

void jv_unloads_start(void)
{
    if (deliverer)
        return;
    plat_event *e = atomic_load(&wake);
    if (!e && (e = plat_event_create()))
        atomic_store(&wake, e);
    atomic_store(&stop_asked, 0);
    if (!e || !(deliverer = plat_thread_start("jevmon unloads", deliver_loop, e)))
        jv_log("could not start the thread that reports class unloading; CLASS_UNLOAD will not be sent");
}

void jv_unloads_stop(void)
{
    if (!deliverer)
        return;
    atomic_store(&stop_asked, 1);
    plat_event_set(atomic_load(&wake));
    plat_thread_join(deliverer);
    deliverer = NULL;
    if (atomic_exchange(&pending, 0))
        deliver_unloads(jv_jni());
}
