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
    jv_monitors_batching_update();
    if (phase == JV_PHASE_RUNNING)
        jv_switch_update();
    return S_OK;
}


static jv_call_batching batching_now(void)
{
    int batched = 0, single = 0;
    atomic_thread_fence(memory_order_seq_cst); /* every mask and callback stored before is seen */
    for (size_t i = 0; i < jv_monitors.receiver_count; i++) {
        const jv_monitor *m = jv_monitors.receivers[i].monitor;
        if (!(atomic_load(&m->mask) & JV_METHOD_CALL_BITS))
            continue;
        if (jv_monitor_batches_calls(m))
            batched = 1;
        else
            single = 1;
    }
    return !batched ? JV_NO_BATCHES : single ? JV_BATCHES_BESIDE : JV_ONLY_BATCHES;
}

void jv_monitors_batching_update(void)
{
    /* Stored, then found again until it holds: of two changes at once, the one storing last finds
     * the other's change in its second look, so the word ends as the masks and callbacks are. */
    for (;;) {
        jv_call_batching found = batching_now();
        atomic_store(&jv_monitors.call_batching, (int)found);
        if (batching_now() == found)
            return;
    }
}
