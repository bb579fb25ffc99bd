/* monitor_table.c - the table of attached event monitors and their masks (see monitor_table.h). */
#include "dispatch/event_switch.h"
#include "dispatch/monitor_table.h"

jv_monitor_table jv_monitors;

HRESULT jv_monitor_set_mask(jv_monitor *m, DWORD events)
{
    int phase = atomic_load(&m->phase);
    if (phase == JV_PHASE_SHUT_DOWN)
        return E_FAIL;
    DWORD old = atomic_load(&m->mask);
    if (phase == JV_PHASE_RUNNING && (m->granted_options & JVM_INIT_OPT_WONT_TOGGLE_METHOD_CALL_EVENTS) &&
        ((old ^ events) & JV_METHOD_CALL_BITS))
        return E_FAIL; /* the monitor promised not to toggle method-call events */
    /* Categories outside what the monitor said it might use, or that cannot be delivered, have no effect. */
    DWORD allowed = jv_monitors.deliverable & (phase == JV_PHASE_RUNNING ? m->possible : ALL_JVM_MONITOR_EVENTS);
    atomic_store(&m->mask, events & allowed);
    jv_monitors_call_routes_update();
    if (phase == JV_PHASE_RUNNING)
        jv_switch_update();
    return S_OK;
}

/* How calls go now, from the receivers' masks and callbacks. */
typedef struct call_routes {
    jv_call_batching batching;
    unsigned every, chosen; /* the receiver words */
} call_routes;

static call_routes routes_now(void)
{
    int batched = 0;
    call_routes routes = {JV_NO_BATCHES, 0, 0};
    atomic_thread_fence(memory_order_seq_cst); /* every mask and callback stored before is seen */
    for (size_t i = 0; i < jv_monitors.receiver_count; i++) {
        const jv_monitor *m = jv_monitors.receivers[i].monitor;
        DWORD mask = atomic_load(&m->mask);
        if (jv_monitor_batches_calls(m))
            batched = 1;
        else if (mask & JVM_MONITOR_METHOD_CALLS)
            routes.every |= 1u << i;
        else if ((mask & JVM_MONITOR_SPECIFIC_METHOD_CALLS) && m->index < 32)
            routes.chosen |= 1u << i;
    }
    if (batched)
        routes.batching = routes.every | routes.chosen ? JV_BATCHES_BESIDE : JV_ONLY_BATCHES;
    return routes;
}

void jv_monitors_call_routes_update(void)
{
    /* Stored, then found again until it holds: of two changes at once, the one storing last finds
     * the other's change in its second look, so the words end as the masks and callbacks are. */
    for (;;) {
        call_routes found = routes_now(), again;
        atomic_store(&jv_monitors.call_batching, (int)found.batching);
        atomic_store(&jv_monitors.every_call_receivers, found.every);
        atomic_store(&jv_monitors.chosen_receivers, found.chosen);
        again = routes_now();
        if (again.batching == found.batching && again.every == found.every && again.chosen == found.chosen)
            return;
    }
}
