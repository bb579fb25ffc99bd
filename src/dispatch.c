/* dispatch.c - brackets callbacks and fans events out to monitors (see dispatch.h). */
#include <stdatomic.h>

#include "dispatch.h"
#include "object.h"
#include "platform/platform.h"

static atomic_int dispatching;

void jv_dispatch_begin(jv_dispatch *d, JNIEnv *env)
{
    atomic_fetch_add_explicit(&dispatching, 1, memory_order_acquire);
    d->env = env;
    d->object_mark = jv_objects_scope();
}

void jv_dispatch_end(jv_dispatch *d)
{
    jv_objects_release_scope(d->env, d->object_mark);
    atomic_fetch_sub_explicit(&dispatching, 1, memory_order_release);
}

void jv_dispatch_quiesce(void)
{
    for (int waited = 0; atomic_load(&dispatching) > 0 && waited < 2000; waited++)
        plat_sleep_ms(1);
}

void jv_notify(DWORD category, JVM_EVENT_TYPE event, UniqueID id)
{
    JV_FOR_EACH_MONITOR(m, category)
    IJavaEventMonitor_NotifyEvent(m->mon, event, id);
}

void jv_notify2(DWORD category, JVM_EVENT_TYPE2 event, UniqueID first, UniqueID second)
{
    JV_FOR_EACH_MONITOR(m, category)
    if (m->mon2)
        IJavaEventMonitor2_NotifyEvent2(m->mon2, event, first, second);
}
