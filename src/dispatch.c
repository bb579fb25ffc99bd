/* dispatch.c - brackets callbacks and fans events out to monitors (see dispatch.h). */
#include <stdatomic.h>
#include <stdlib.h>

#include "dispatch.h"
#include "object.h"
#include "platform/platform.h"

/*
 * Callbacks in flight, counted per thread: each thread that dispatches owns a slot a
 * cache line wide, so the method-call path shares no counter with other threads.  Where
 * the system has a process-wide barrier, the owner updates its slot with plain stores
 * and jv_dispatch_quiesce issues the barrier before it reads the slots: that pairs the
 * owner's increment with its next read of the masks, which a locked instruction on every
 * callback would otherwise have to do (a quarter of the instrumented call path).
 * Without the barrier, slots are updated with atomic read-modify-writes.
 *
 * A slot goes back to the pool when its Java thread ends (jv_dispatch_thread_end, from
 * ThreadEnd); the few VM threads that dispatch keep theirs.
 */
#define SLOTS_PER_CHUNK 256
#define CHUNKS 1024

typedef struct dispatch_slot {
    atomic_int count;
    atomic_int owned;
    char pad[64 - 2 * sizeof(atomic_int)];
} dispatch_slot;

static dispatch_slot *_Atomic chunks[CHUNKS];
static atomic_uint slots_made;
static int barrier_available;
static _Thread_local dispatch_slot *own_slot;
static _Thread_local int depth; /* dispatches this thread is inside */

void jv_dispatch_init(void)
{
    barrier_available = plat_process_barrier_init();
}

static dispatch_slot *slot_at(unsigned index, int create)
{
    if (index >= (unsigned)CHUNKS * SLOTS_PER_CHUNK)
        return NULL;
    dispatch_slot *chunk = atomic_load(&chunks[index / SLOTS_PER_CHUNK]);
    if (!chunk && create) {
        dispatch_slot *fresh = calloc(SLOTS_PER_CHUNK, sizeof(*fresh));
        if (!fresh)
            return NULL;
        if (atomic_compare_exchange_strong(&chunks[index / SLOTS_PER_CHUNK], &chunk, fresh))
            chunk = fresh;
        else
            free(fresh); /* another thread made it first: chunk holds it */
    }
    return chunk ? &chunk[index % SLOTS_PER_CHUNK] : NULL;
}

/* A free slot, or a new one; NULL only when memory or slots run out. */
static dispatch_slot *claim_slot(void)
{
    unsigned made = atomic_load(&slots_made);
    for (unsigned i = 0; i < made; i++) {
        dispatch_slot *s = slot_at(i, 0);
        int unowned = 0;
        if (s && atomic_compare_exchange_strong(&s->owned, &unowned, 1))
            return s;
    }
    dispatch_slot *s = slot_at(atomic_fetch_add(&slots_made, 1), 1);
    if (s)
        atomic_store(&s->owned, 1);
    return s;
}

/* Threads that found no slot share this one, always with atomic updates. */
static dispatch_slot overflow_slot;

int jv_dispatching(void)
{
    return depth > 0;
}

void jv_dispatch_begin(jv_dispatch *d, JNIEnv *env)
{
    if (!own_slot && !(own_slot = claim_slot()))
        own_slot = &overflow_slot;
    if (barrier_available && own_slot != &overflow_slot) {
        atomic_store_explicit(&own_slot->count, atomic_load_explicit(&own_slot->count, memory_order_relaxed) + 1,
                              memory_order_relaxed);
        atomic_signal_fence(memory_order_seq_cst); /* the count before the masks; quiesce's barrier does the rest */
    } else
        atomic_fetch_add(&own_slot->count, 1);
    depth++;
    d->env = env;
    d->object_mark = jv_objects_scope();
}

void jv_dispatch_end(jv_dispatch *d)
{
    if (jv_objects_taken > d->object_mark)
        jv_objects_release_scope(d->env, d->object_mark);
    depth--;
    if (barrier_available && own_slot != &overflow_slot)
        atomic_store_explicit(&own_slot->count, atomic_load_explicit(&own_slot->count, memory_order_relaxed) - 1,
                              memory_order_release);
    else
        atomic_fetch_sub(&own_slot->count, 1);
}

void jv_dispatch_thread_end(void)
{
    if (own_slot && own_slot != &overflow_slot && !depth) {
        atomic_store(&own_slot->owned, 0);
        own_slot = NULL;
    }
}

static int callbacks_in_flight(void)
{
    int n = atomic_load(&overflow_slot.count);
    unsigned made = atomic_load(&slots_made);
    for (unsigned i = 0; i < made; i++) {
        dispatch_slot *s = slot_at(i, 0);
        n += s ? atomic_load(&s->count) : 0;
    }
    return n;
}

void jv_dispatch_quiesce(void)
{
    if (barrier_available)
        plat_process_barrier();
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
