/*
 * vthread.c - virtual threads (JDK 21+): JVMTI VirtualThreadStart / VirtualThreadEnd
 * give THREAD_CREATE / THREAD_DESTROY, and HotSpot's extension events VirtualThreadMount /
 * VirtualThreadUnmount switch the carrier's current Java thread (thread.h), which is all the
 * method-call paths need: they run as before, on the mounted thread's entry and shadow stack.
 *
 * jevmon builds against JDK 17's jvmti.h, which names neither the capability nor the two
 * events: their places follow SampledObjectAlloc's in the capability bits, the event numbers
 * and the callback table (JVMTI 21), and are found from it.  A JVM without virtual threads
 * does not offer the capability, and nothing here is switched on.
 */
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include "events/call_batch.h"
#include "events/events.h"
#include "ids/thread.h"
#include "platform/platform.h"

#define VIRTUAL_THREAD_START ((jvmtiEvent)(JVMTI_EVENT_SAMPLED_OBJECT_ALLOC + 1))
#define VIRTUAL_THREAD_END ((jvmtiEvent)(JVMTI_EVENT_SAMPLED_OBJECT_ALLOC + 2))
#define MOUNT_EVENT "com.sun.hotspot.events.VirtualThreadMount"
#define UNMOUNT_EVENT "com.sun.hotspot.events.VirtualThreadUnmount"

typedef void(JNICALL *virtual_thread_callback)(jvmtiEnv *jvmti, JNIEnv *env, jthread vthread);

/* The bit of can_support_virtual_threads: the one after can_generate_sampled_object_alloc_events. */
static size_t capability_bit(void)
{
    jvmtiCapabilities probe;
    memset(&probe, 0, sizeof(probe));
    probe.can_generate_sampled_object_alloc_events = 1;
    const unsigned char *bytes = (const unsigned char *)&probe;
    size_t bit = 0;
    while (bit < sizeof(probe) * 8 && !(bytes[bit / 8] & (1u << (bit % 8))))
        bit++;
    return bit + 1;
}

static int has_capability(const jvmtiCapabilities *caps)
{
    size_t bit = capability_bit();
    return bit < sizeof(*caps) * 8 && (((const unsigned char *)caps)[bit / 8] & (1u << (bit % 8)));
}

void jv_vthread_capabilities(jvmtiCapabilities *caps)
{
    jvmtiCapabilities potential;
    size_t bit = capability_bit();
    if (jv_jvmti && (*jv_jvmti)->GetPotentialCapabilities(jv_jvmti, &potential) == JVMTI_ERROR_NONE &&
        has_capability(&potential))
        ((unsigned char *)caps)[bit / 8] |= (unsigned char)(1u << (bit % 8));
}

static void JNICALL on_virtual_thread_start(jvmtiEnv *jvmti, JNIEnv *env, jthread vthread)
{
    (void)jvmti;
    jv_events_thread_started(env, vthread, 1);
}

static void JNICALL on_virtual_thread_end(jvmtiEnv *jvmti, JNIEnv *env, jthread vthread)
{
    (void)jvmti;
    jv_events_thread_ended(env, vthread, 1);
}

/* Extension events are variadic in jvmti.h; these two pass (jvmtiEnv *, JNIEnv *, jthread). */
static void JNICALL on_mount(jvmtiEnv *jvmti, ...)
{
    va_list ap;
    va_start(ap, jvmti);
    JNIEnv *env = va_arg(ap, JNIEnv *);
    jthread vthread = va_arg(ap, jthread);
    va_end(ap);
    jv_thread_mount(env, vthread);
}

static void JNICALL on_unmount(jvmtiEnv *jvmti, ...)
{
    (void)jvmti;
    jv_call_batches_deliver_own(0); /* the carrier keeps no records of a thread it does not run */
    jv_thread_unmount();
}

void jv_vthread_callbacks(jvmtiEventCallbacks *callbacks, jint *size)
{
    /* The table is an array of function pointers in event order from VMInit on. */
    size_t at = offsetof(jvmtiEventCallbacks, SampledObjectAlloc) + sizeof(void *);
    virtual_thread_callback start = on_virtual_thread_start, end = on_virtual_thread_end;
    memcpy((char *)callbacks + at, &start, sizeof(start));
    memcpy((char *)callbacks + at + sizeof(void *), &end, sizeof(end));
    *size = (jint)(at + 2 * sizeof(void *));
}

/* Sets the callback of the extension event named id and enables it; 0 when the JVM has no such event. */
static int set_extension_event(jvmtiEnv *jvmti, const char *id, jvmtiExtensionEvent callback)
{
    jint count = 0;
    jvmtiExtensionEventInfo *events = NULL;
    int found = 0;
    if ((*jvmti)->GetExtensionEvents(jvmti, &count, &events) != JVMTI_ERROR_NONE)
        return 0;
    for (jint i = 0; i < count; i++) {
        if (!found && !strcmp(events[i].id, id)) { /* HotSpot posts it only once it is enabled as well */
            jint index = events[i].extension_event_index;
            found = (*jvmti)->SetExtensionEventCallback(jvmti, index, callback) == JVMTI_ERROR_NONE &&
                    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, (jvmtiEvent)index, NULL) == JVMTI_ERROR_NONE;
        }
        for (jint p = 0; p < events[i].param_count; p++)
            (*jvmti)->Deallocate(jvmti, (unsigned char *)events[i].params[p].name);
        (*jvmti)->Deallocate(jvmti, (unsigned char *)events[i].params);
        (*jvmti)->Deallocate(jvmti, (unsigned char *)events[i].id);
        (*jvmti)->Deallocate(jvmti, (unsigned char *)events[i].short_description);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)events);
    return found;
}

void jv_vthread_events_start(jvmtiEnv *jvmti, JNIEnv *env)
{
    jvmtiCapabilities caps;
    if ((*jvmti)->GetCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE || !has_capability(&caps))
        return;
    jv_threads_start(env);
    if ((*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, VIRTUAL_THREAD_START, NULL) != JVMTI_ERROR_NONE ||
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, VIRTUAL_THREAD_END, NULL) != JVMTI_ERROR_NONE)
        jv_log("the JVM sends no VirtualThreadStart/End events; virtual threads are not told from their carriers");
    else if (!set_extension_event(jvmti, MOUNT_EVENT, (jvmtiExtensionEvent)on_mount) ||
             !set_extension_event(jvmti, UNMOUNT_EVENT, (jvmtiExtensionEvent)on_unmount))
        jv_log("the JVM has no %s/Unmount events; a virtual thread that blocks and continues is taken for its carrier",
               MOUNT_EVENT);
}
