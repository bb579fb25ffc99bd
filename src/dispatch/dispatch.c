/* dispatch.c - brackets callbacks and fans events out to monitors (see dispatch.h). */
#include <stdatomic.h>

#include "common/chunked_array.h"
#include "dispatch/dispatch.h"
#include "ids/object.h"
#include "platform/platform.h"

/*
 * Callbacks in flight, counted per thread: each thread that dispatches owns a slot a
 * cache line wide, so the method-call path shares no counter with other threads (the
 * bracket itself is inline, in dispatch.h).  Without a process-wide barrier, slots are
 * updated with atomic read-modify-writes.
 *
 * A slot goes back to the pool when its Java thread ends (jv_dispatch_thread_end, from
 * ThreadEnd); the few VM threads that dispatch keep theirs.
 */
/* The slots, 256 (2^8) a chunk, up to 1024 chunks. */
static void *_Atomic slot_chunks[1024];
static const jv_chunked_array slots = JV_CHUNKED_ARRAY(slot_chunks, 8, sizeof(jv_dispatch_slot));
static atomic_uint slots_made;
int jv_dispatch_plain_counts;
_Thread_local jv_dispatch_slot *jv_dispatch_own_slot;
_Thread_local int jv_dispatch_depth;
jv_dispatch_slot jv_dispatch_overflow_slot;

void jv_dispatch_init(void)
{
    jv_dispatch_plain_counts = plat_process_barrier_init();
}

/* A free slot, or a new one; the shared overflow slot when memory or slots run out. */
jv_dispatch_slot *jv_dispatch_claim_slot(void)
{
    unsigned made = atomic_load(&slots_made);
    for (unsigned i = 0; i < made; i++) {
        jv_dispatch_slot *s = jv_chunked_array_get(&slots, i);
        int unowned = 0;
        if (s && atomic_compare_exchange_strong(&s->owned, &unowned, 1))
            return s;
    }
    jv_dispatch_slot *s = jv_chunked_array_make(&slots, atomic_fetch_add(&slots_made, 1));
    if (!s)
        return &jv_dispatch_overflow_slot;
    atomic_store(&s->owned, 1);
    return s;
}

void jv_dispatch_thread_end(void)
{
    jv_dispatch_slot *slot = jv_dispatch_own_slot;
    if (slot && slot != &jv_dispatch_overflow_slot && !jv_dispatch_depth && !jv_dispatch_in_bridge(slot)) {
        atomic_store(&slot->owned, 0);
        jv_dispatch_own_slot = NULL;
    }
}

/* The slot's callbacks running on threads other than the calling one, which may itself be
 * inside a callback (a monitor that ends the VM from one): its own are never waited for. */
static int busy_elsewhere(jv_dispatch_slot *s)
{
    int n = atomic_load(&s->count) + atomic_load(&s->bridge);
    if (s == jv_dispatch_own_slot)
        n -= jv_dispatch_depth + jv_dispatch_in_bridge(s);
    return n > 0;
}

int jv_dispatch_quiesce(const char *holder)
{
    if (jv_dispatch_plain_counts)
        plat_process_barrier();
    /* Deliveries are off already: a slot seen idle once has finished every callback that
     * could still reach a monitor, however soon its thread dispatches again. */
    unsigned made = atomic_load(&slots_made);
    uint64_t started = plat_now_ns(), waited_ms = 0; /* the clock's: a sleep of 1 ms takes longer under load */
    int said = 0;
    for (unsigned i = 0; i <= made; i++) {
        jv_dispatch_slot *s = i < made ? jv_chunked_array_get(&slots, i) : &jv_dispatch_overflow_slot;
        while (s && busy_elsewhere(s)) {
            if (waited_ms >= QUIESCE_SAY_AFTER_MS && !said++)
                jv_log("exit waits for %s still running on another thread: nothing it may use is released "
                       "before it returns", holder);
            if (waited_ms >= QUIESCE_GIVE_UP_MS)
                return 0;
            plat_sleep_ms(1);
            waited_ms = (plat_now_ns() - started) / 1000000u;
        }
    }
    return 1;
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
