/*
 * method_calls.h - handing one method entry or exit to the monitors that want it: the
 * step both mechanisms end in (method_call.c for JVMTI events and the general case,
 * instrument.c's fast path for the bridge's common case).  Inline, over the monitor
 * table's flat receivers, because the instrumented path runs it twice per Java call.
 */
#ifndef JEVMON_METHOD_CALLS_H
#define JEVMON_METHOD_CALLS_H

#include "dispatch/dispatch.h"
#include "ids/method.h"

/* Does the monitor want call events for this method?  The method's entry is looked up
 * only for a monitor that picks methods (SPECIFIC_METHOD_CALLS alone). */
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

/* MethodEntry for the method just pushed at stack. */
static inline void jv_deliver_method_entry(MethodID id, StackID stack)
{
    for (size_t i = 0; i < jv_monitors.receiver_count; i++) {
        const jv_call_receiver *r = &jv_monitors.receivers[i];
        if (jv_monitor_wants_calls(r->monitor, id))
            r->vtbl->MethodEntry(r->mon, id, stack);
    }
}

/* MethodExit2 (or MethodExit) for the method exiting back to caller, at caller_stack. */
static inline void jv_deliver_method_exit(MethodID exiting, MethodID caller, StackID caller_stack)
{
    for (size_t i = 0; i < jv_monitors.receiver_count; i++) {
        const jv_call_receiver *r = &jv_monitors.receivers[i];
        if (!jv_monitor_wants_calls(r->monitor, exiting))
            continue;
        if (r->mon2)
            r->vtbl2->MethodExit2(r->mon2, caller, caller_stack);
        else
            r->vtbl->MethodExit(r->mon, caller_stack);
    }
}

#endif
