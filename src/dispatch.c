/* dispatch.c - brackets callbacks and fans events out to monitors (see dispatch.h). */
#include <stdatomic.h>

#include "dispatch.h"
#include "object.h"
#include "platform/platform.h"

/*
 * Callbacks in flight, counted in stripes a cache line apart: each thread keeps to its
 * own stripe, so the method-call path shares no counter between threads.
 */
#define STRIPES 64

static struct {
    atomic_int count;
    char pad[64 - sizeof(atomic_int)];
} in_flight[STRIPES];
static atomic_uint next_stripe;
static _Thread_local int stripe = -1;
static _Thread_local int depth; /* dispatches this thread is inside */

int jv_dispatching(void)
{
    return depth > 0;
}

void jv_dispatch_begin(jv_dispatch *d, JNIEnv *env)
{
    if (stripe < 0)
        stripe = (int)(atomic_fetch_add(&next_stripe, 1) % STRIPES);
    atomic_fetch_add_explicit(&in_flight[stripe].count, 1, memory_order_acquire);
    depth++;
    d->env = env;
    d->object_mark = jv_objects_scope();
}

void jv_dispatch_end(jv_dispatch *d)
{
    jv_objects_release_scope(d->env, d->object_mark);
    depth--;
    atomic_fetch_sub_explicit(&in_flight[stripe].count, 1, memory_order_release);
}

static int callbacks_in_flight(void)
{
    int n = 0;
    for (int i = 0; i < STRIPES; i++)
        n += atomic_load(&in_flight[i].count);
    return n;
}

void jv_dispatch_quiesce(void)
{
    for (int waited = 0; callbacks_in_flight() > 0 && waited < 2000; waited++)
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
