/* unload.c - delivers CLASS_UNLOAD from freed class mirrors (see unload.h). */
#include <stdatomic.h>

#include "class.h"
#include "ids.h"
#include "platform/platform.h"
#include "unload.h"

#define POLL_MS 20

static atomic_int pending;
static plat_thread *deliverer;
static plat_stop *stop; /* VMDeath wakes the thread rather than wait for its nap to end */

void JNICALL jv_on_object_free(jvmtiEnv *jvmti, jlong tag)
{
    uint32_t index;
    (void)jvmti;
    if (jv_id_index((UniqueID)tag, JV_ID_CLASS, &index)) {
        jv_class_unloading((ClassID)tag);
        atomic_store(&pending, 1);
    }
}

static void deliver_loop(void *arg)
{
    (void)arg;
    while (!plat_stop_wait(stop, POLL_MS)) {
        if (atomic_exchange(&pending, 0))
            jv_classes_deliver_unloads(jv_jni());
    }
    if (jv_vm)
        (*jv_vm)->DetachCurrentThread(jv_vm);
}

void jv_unloads_start(void)
{
    if (!deliverer && (!(stop = plat_stop_create()) || !(deliverer = plat_thread_start(deliver_loop, NULL))))
        jv_log("could not start the thread that reports class unloading; CLASS_UNLOAD will not be sent");
}

void jv_unloads_stop(void)
{
    if (!deliverer)
        return;
    plat_stop_signal(stop);
    plat_thread_join(deliverer);
    deliverer = NULL;
    plat_stop_destroy(stop);
    stop = NULL;
    if (atomic_exchange(&pending, 0))
        jv_classes_deliver_unloads(jv_jni());
}
