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
    if (phase == JV_PHASE_RUNNING)
        jv_switch_update();
    return S_OK;
}

