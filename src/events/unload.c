/* unload.c - delivers CLASS_UNLOAD from freed class mirrors (see unload.h). */
#include <stdatomic.h>
#include <stdlib.h>

#include "dispatch/dispatch.h"
#include "events/unload.h"
#include "ids/class.h"
#include "ids/ids.h"
#include "platform/platform.h"

#define POLL_MS 20

static atomic_int pending;
static plat_thread *deliverer;
static plat_event *stopping; /* set at VMDeath: the deliverer ends at once, not after its poll (the exit waits) */

void JNICALL jv_on_object_free(jvmtiEnv *jvmti, jlong tag)
{
    uint32_t index;
    (void)jvmti;
    if (jv_id_index((UniqueID)tag, JV_ID_CLASS, &index)) {
        jv_class_unloading((ClassID)tag);
        atomic_store(&pending, 1);
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

static void deliver_loop(void *arg)
{
    (void)arg;
    while (!plat_event_wait_ms(stopping, POLL_MS))
        if (atomic_exchange(&pending, 0))
            deliver_unloads(jv_jni());
    if (jv_vm)
        (*jv_vm)->DetachCurrentThread(jv_vm);
}

void jv_unloads_start(void)
{
    if (deliverer)
        return;
    if (!stopping)
        stopping = plat_event_create();
    if (!stopping || !(deliverer = plat_thread_start(deliver_loop, NULL)))
        jv_log("could not start the thread that reports class unloading; CLASS_UNLOAD will not be sent");
}

void jv_unloads_stop(void)
{
    if (!deliverer)
        return;
    plat_event_set(stopping);
    plat_thread_join(deliverer);
    deliverer = NULL;
    plat_event_destroy(stopping);
    stopping = NULL;
    if (atomic_exchange(&pending, 0))
        deliver_unloads(jv_jni());
}
