/*
 * dispatch.h - delivering one event to the monitors whose masks ask for it.
 *
 * Every JVMTI callback that calls monitors brackets its work with jv_dispatch_begin /
 * jv_dispatch_end: they mark the calling thread as dispatching (so shutdown can wait
 * for callbacks in flight before it releases the monitors) and release the ObjectIDs
 * handed out during the callback.
 */
#ifndef JEVMON_DISPATCH_H
#define JEVMON_DISPATCH_H

#include <stdatomic.h>

#include "dispatch/monitor_table.h"
#include "ids/object.h"
#include "vm/vm.h"

typedef struct jv_dispatch {
    JNIEnv *env;
    unsigned object_mark;
} jv_dispatch;

/*
 * A thread's count of callbacks in flight, a cache line of its own (dispatch.c).  The
 * bracket is inline: the instrumented method-call path runs it twice per Java call.
 */
typedef struct jv_dispatch_slot {
    atomic_int count;
    atomic_int owned;
    atomic_int bridge; /* 1 while the instrumented bridge handles a call on the owner (below) */
    char pad[64 - 3 * sizeof(atomic_int)];
} jv_dispatch_slot;

extern _Thread_local jv_dispatch_slot *jv_dispatch_own_slot; /* NULL until the thread's first dispatch */
extern _Thread_local int jv_dispatch_depth;                  /* dispatches this thread is inside */
extern int jv_dispatch_plain_counts; /* the system has a process-wide barrier: slots take plain stores */
extern jv_dispatch_slot jv_dispatch_overflow_slot; /* shared, always atomic: for threads that found no slot */

/* Once, before any callback: finds out whether the system has a process-wide barrier. */
void jv_dispatch_init(void);
/* The calling thread's slot, claimed on its first dispatch. */
jv_dispatch_slot *jv_dispatch_claim_slot(void);

/* The calling thread's slot, claimed on first use: its own, or the shared overflow slot. */
static inline jv_dispatch_slot *jv_dispatch_slot_of_thread(void)
{
    jv_dispatch_slot *slot = jv_dispatch_own_slot;
    return slot ? slot : (jv_dispatch_own_slot = jv_dispatch_claim_slot());
}

/*
 * Where the system has a process-wide barrier, the owner updates its slot with plain
 * stores and jv_dispatch_quiesce issues the barrier before it reads the slots: that
 * pairs the owner's increment with its next read of the masks, which a locked
 * instruction on every callback would otherwise have to do.
 */
static inline void jv_dispatch_begin(jv_dispatch *d, JNIEnv *env)
{
    jv_dispatch_slot *slot = jv_dispatch_slot_of_thread();
    if (jv_dispatch_plain_counts && slot != &jv_dispatch_overflow_slot) {
        atomic_store_explicit(&slot->count, atomic_load_explicit(&slot->count, memory_order_relaxed) + 1,
                              memory_order_relaxed);
        atomic_signal_fence(memory_order_seq_cst); /* the count before the masks; quiesce's barrier does the rest */
    } else
        atomic_fetch_add(&slot->count, 1);
    jv_dispatch_depth++;
    d->env = env;
    d->object_mark = jv_objects_scope();
}

static inline void jv_dispatch_end(jv_dispatch *d)
{
    jv_objects_end_scope(d->env, d->object_mark);
    jv_dispatch_depth--;
    jv_dispatch_slot *slot = jv_dispatch_own_slot;
    if (jv_dispatch_plain_counts && slot != &jv_dispatch_overflow_slot)
        atomic_store_explicit(&slot->count, atomic_load_explicit(&slot->count, memory_order_relaxed) - 1,
                              memory_order_release);
    else
        atomic_fetch_sub(&slot->count, 1);
}

/* The calling thread's own slot, claimed on first use; NULL when it shares the overflow slot. */
static inline jv_dispatch_slot *jv_dispatch_own(void)
{
    jv_dispatch_slot *slot = jv_dispatch_slot_of_thread();
    return slot == &jv_dispatch_overflow_slot ? NULL : slot;
}

/*
 * The instrumented bridge's bracket (instrument.c), twice per Java call, in a thread's own
 * slot.  The bridge never nests (it ignores calls made from inside it), so a flag does
 * what the count does elsewhere, written with stores alone: a count's read-modify-write
 * on every call chains each call to the one before.  Its ObjectIDs the bridge releases itself.
 */
static inline int jv_dispatch_in_bridge(const jv_dispatch_slot *slot)
{
    return atomic_load_explicit(&slot->bridge, memory_order_relaxed);
}

static inline void jv_dispatch_bridge_begin(jv_dispatch_slot *slot)
{
    if (jv_dispatch_plain_counts) {
        atomic_store_explicit(&slot->bridge, 1, memory_order_relaxed);
        atomic_signal_fence(memory_order_seq_cst);
    } else
        atomic_store(&slot->bridge, 1);
}

static inline void jv_dispatch_bridge_end(jv_dispatch_slot *slot)
{
    atomic_store_explicit(&slot->bridge, 0, memory_order_release);
}

/* Non-zero while the calling thread is inside a dispatch, or in the bridge. */
static inline int jv_dispatching(void)
{
    return jv_dispatch_depth > 0 || (jv_dispatch_own_slot && jv_dispatch_in_bridge(jv_dispatch_own_slot));
}
/* The calling thread ends: its in-flight counter may serve another thread. */
void jv_dispatch_thread_end(void);
/*
 * With every mask off, waits until each callback into a monitor running on another thread
 * has returned, however long it takes: nothing may be freed under one.  After
 * QUIESCE_SAY_AFTER_MS by the monotonic clock one line says the exit waits for holder ("a callback
 * into ..."); after QUIESCE_GIVE_UP_MS (within a millisecond or so) it returns 0, the callback still
 * running, so that a monitor stuck in a callback cannot hang the exit (the caller then frees
 * nothing).  Returns 1 once none runs.  Called once, at VMDeath, for everything the exit frees.
 */
#define QUIESCE_SAY_AFTER_MS 1000u
#define QUIESCE_GIVE_UP_MS 60000u
int jv_dispatch_quiesce(const char *holder);

/* Monitors in the table whose mask has any of the bits (the empty branch lets the body have an else). */
#define JV_FOR_EACH_MONITOR(m, bits)                                                          \
    for (size_t jv_i_ = 0; jv_i_ < jv_monitors.count; jv_i_++)                              \
        for (jv_monitor *m = jv_monitors.items[jv_i_]; m; m = NULL)                          \
            if (!(atomic_load_explicit(&m->mask, memory_order_relaxed) & (bits))) {              \
            } else

/* NotifyEvent to every monitor asking for the category. */
void jv_notify(DWORD category, JVM_EVENT_TYPE event, UniqueID id);
/* NotifyEvent2 to every IJavaEventMonitor2 monitor asking for the category. */
void jv_notify2(DWORD category, JVM_EVENT_TYPE2 event, UniqueID first, UniqueID second);

#endif
