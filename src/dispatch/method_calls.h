/*
 * method_calls.h - handing one method entry or exit to the monitors that want it: the
 * step both mechanisms end in (method_call.c for JVMTI events and the general case,
 * instrument.c's fast path for the bridge's common case).  Inline, over the monitor
 * table's flat receivers, because the instrumented path runs it twice per Java call.
 *
 * A call is delivered as a pair or not at all: the receivers given a frame's entry are
 * recorded with the frame on the thread's shadow stack (thread.h's given), and its exit goes to
 * those receivers, whatever their masks and enabled methods have become since (the exit of a
 * call entered before a monitor asked goes to no one who did not see its entry).
 */
#ifndef JEVMON_METHOD_CALLS_H
#define JEVMON_METHOD_CALLS_H

#include "dispatch/dispatch.h"
#include "ids/method.h"

/* Does the monitor want this method's calls (its batches' included)?  The method's entry is looked
 * up only for a monitor that picks methods (SPECIFIC_METHOD_CALLS alone). */
static inline int jv_monitor_wants_calls(const jv_monitor *m, MethodID id)
{
    DWORD mask = atomic_load_explicit(&m->mask, memory_order_relaxed);
    if (mask & JVM_MONITOR_METHOD_CALLS)
        return 1;
    if (!(mask & JVM_MONITOR_SPECIFIC_METHOD_CALLS) || m->index >= 32)
        return 0;
    const jv_method *method = jv_method_entry(id);
    return method && (atomic_load_explicit(&method->specific_monitors, memory_order_relaxed) & (1u << m->index));
}

/* How the monitors that want calls now take them (read once per call by the bridge's natives). */
static inline jv_call_batching jv_method_call_batching(void)
{
    return (jv_call_batching)atomic_load_explicit(&jv_monitors.call_batching, memory_order_relaxed);
}

/* The receivers (bit i: jv_monitors.receivers[i]) that want this method's entry now as MethodEntry:
 * those taking every call one by one, and those that chose it (not those that take batches). */
static inline uint32_t jv_method_call_receivers(MethodID id)
{
    uint32_t given = atomic_load_explicit(&jv_monitors.every_call_receivers, memory_order_relaxed);
    uint32_t chosen = atomic_load_explicit(&jv_monitors.chosen_receivers, memory_order_relaxed);
    if (chosen) {
        const jv_method *method = jv_method_entry(id);
        uint32_t enabled = method ? atomic_load_explicit(&method->specific_monitors, memory_order_relaxed) : 0;
        for (size_t i = 0; i < jv_monitors.receiver_count && chosen >> i; i++)
            if ((chosen & (1u << i)) && (enabled & (1u << jv_monitors.receivers[i].monitor->index)))
                given |= 1u << i;
    }
    return given;
}

/* MethodEntry for the method just pushed at stack, to the receivers given. */
static inline void jv_deliver_method_entry(uint32_t given, MethodID id, StackID stack)
{
    for (size_t i = 0; i < jv_monitors.receiver_count && given >> i; i++) {
        const jv_call_receiver *r = &jv_monitors.receivers[i];
        if (given & (1u << i))
            r->vtbl->MethodEntry(r->mon, id, stack);
    }
}

/* MethodExit2 (or MethodExit) for a frame exiting back to caller, at caller_stack, to the
 * receivers its entry was given to (none once shut down). */
static inline void jv_deliver_method_exit(uint32_t given, MethodID caller, StackID caller_stack)
{
    for (size_t i = 0; i < jv_monitors.receiver_count && given >> i; i++) {
        const jv_call_receiver *r = &jv_monitors.receivers[i];
        if (!(given & (1u << i)) || atomic_load_explicit(&r->monitor->phase, memory_order_relaxed) == JV_PHASE_SHUT_DOWN)
            continue;
        if (r->mon2)
            r->vtbl2->MethodExit2(r->mon2, caller, caller_stack);
        else
            r->vtbl->MethodExit(r->mon, caller_stack);
    }
}

#endif
