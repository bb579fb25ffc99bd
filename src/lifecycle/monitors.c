/* monitors.c - creates, initializes, shuts down and releases the event monitors (see monitors.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/guid.h"
#include "dispatch/dispatch.h"
#include "dispatch/event_switch.h"
#include "events/call_batch.h"
#include "heap/heap.h"
#include "idinfo/idinfo.h"
#include "lifecycle/monitors.h"
#include "platform/platform.h"

/* The monitor's objects released; the entry itself is kept (jv_monitors_shutdown says why). */
static void monitor_release(jv_monitor *m)
{
    if (m->mon2)
        IJavaEventMonitor2_Release(m->mon2);
    if (m->mon)
        IJavaEventMonitor_Release(m->mon);
    if (m->idinfo)
        jv_idinfo_release(m->idinfo);
    m->mon2 = NULL, m->mon = NULL, m->idinfo = NULL;
}

static void monitor_free(jv_monitor *m)
{
    monitor_release(m);
    free(m->source);
    free(m);
}

/* A table kept by jv_monitors_shutdown, freed when another is made in the same process. */
static void free_kept_table(void)
{
    for (size_t i = 0; i < jv_monitors.kept_count; i++)
        monitor_free(jv_monitors.items[i]);
    free(jv_monitors.items);
    free(jv_monitors.receivers);
}

static jv_monitor *monitor_create(const jv_monitor_spec *spec, unsigned index)
{
    char why[512] = "", clsid_text[40];
    void *object = NULL;
    HRESULT hr;

    jv_guid_format(&spec->clsid, clsid_text);
    hr = spec->server ? plat_create_instance_at(&spec->clsid, spec->server, &IID_IJavaEventMonitor, &object, why,
                                                sizeof(why))
                      : plat_create_instance(&spec->clsid, &IID_IJavaEventMonitor, &object, why, sizeof(why));
    if (FAILED(hr) || !object) {
        jv_log("%s: monitor %s could not be created (hr=0x%08x): %s; monitor not loaded", spec->source, clsid_text,
               (unsigned)hr, why[0] ? why : "no object returned");
        return NULL;
    }
    jv_monitor *m = calloc(1, sizeof(*m));
    if (!m || !(m->source = strdup(spec->source)) || !(m->idinfo = jv_idinfo_create(m))) {
        jv_log("%s: out of memory; monitor not loaded", spec->source);
        IUnknown_Release((IUnknown *)object);
        if (m)
            monitor_free(m);
        return NULL;
    }
    m->index = index;
    m->clsid = spec->clsid;
    m->mon = object;
    m->sampling_interval = spec->has_sampling_interval ? (long long)spec->sampling_interval : -1;
    atomic_store(&m->phase, JV_PHASE_CREATED);
    if (spec->has_init_options) {
        /* As though the monitor had called SetMonitorInitializationOptions with the registry value. */
        if (spec->init_options & ~JV_SUPPORTED_INIT_OPTIONS)
            jv_log("%s: InitOptions 0x%x has unknown bits 0x%x; they are ignored", spec->source,
                   (unsigned)spec->init_options, (unsigned)(spec->init_options & ~JV_SUPPORTED_INIT_OPTIONS));
        m->requested_options = spec->init_options & JV_SUPPORTED_INIT_OPTIONS;
    }
    return m;
}

void jv_monitors_create(const jv_monitor_specs *specs, DWORD deliverable, DWORD state_flags)
{
    free_kept_table();
    memset(&jv_monitors, 0, sizeof(jv_monitors));
    jv_monitors.deliverable = deliverable;
    jv_monitors.state_flags = state_flags;
    if (!specs->count)
        return;
    jv_monitors.items = calloc(specs->count, sizeof(*jv_monitors.items));
    if (!jv_monitors.items) {
        jv_log("out of memory; no monitors loaded");
        return;
    }
    for (size_t i = 0; i < specs->count; i++) {
        jv_monitor *m = monitor_create(&specs->items[i], (unsigned)jv_monitors.count);
        if (m)
            jv_monitors.items[jv_monitors.count++] = m;
    }
}

/* Calls Initialize; on failure the monitor is released and dropped. */
static int monitor_initialize(jv_monitor *m, const char *start_class)
{
    DWORD requested = 0;
    atomic_store(&m->phase, JV_PHASE_INITIALIZING);
    HRESULT hr = IJavaEventMonitor_Initialize(m->mon, start_class, jv_idinfo_interface(m->idinfo),
                                              jv_monitors.state_flags, &requested);
    if (FAILED(hr)) {
        jv_log("%s: Initialize failed (hr=0x%08x); monitor dropped", m->source, (unsigned)hr);
        return 0;
    }
    atomic_store(&m->phase, JV_PHASE_RUNNING);

    void *mon2 = NULL;
    if (SUCCEEDED(IJavaEventMonitor_QueryInterface(m->mon, &IID_IJavaEventMonitor2, &mon2)) && mon2) {
        DWORD possible = 0;
        m->mon2 = mon2;
        hr = IJavaEventMonitor2_GetPossibleEventCategories(m->mon2, &possible);
        if (FAILED(hr)) {
            jv_log("%s: GetPossibleEventCategories failed (hr=0x%08x); assuming every category", m->source,
                   (unsigned)hr);
            possible = ALL_JVM_MONITOR_EVENTS;
        } else if (possible & ~(DWORD)ALL_JVM_MONITOR_EVENTS) {
            jv_log("%s: GetPossibleEventCategories answered 0x%x, which holds unknown categories 0x%x; they are "
                   "ignored", m->source, (unsigned)possible, (unsigned)(possible & ~(DWORD)ALL_JVM_MONITOR_EVENTS));
        }
        m->possible = (possible | requested) & ALL_JVM_MONITOR_EVENTS;
    } else {
        /* A monitor without IJavaEventMonitor2 may turn on anything later with SetEventMask. */
        m->possible = ALL_JVM_MONITOR_EVENTS;
    }
    if (requested & ~(DWORD)ALL_JVM_MONITOR_EVENTS)
        jv_log("%s: requested unknown event categories 0x%x; masked off", m->source,
               (unsigned)(requested & ~(DWORD)ALL_JVM_MONITOR_EVENTS));
    if (requested & ALL_JVM_MONITOR_EVENTS & ~jv_monitors.deliverable)
        jv_log("%s: requested event categories 0x%x that this bridge cannot deliver here; masked off", m->source,
               (unsigned)(requested & ALL_JVM_MONITOR_EVENTS & ~jv_monitors.deliverable));
    /* What it set with SetEventMask during Initialize stands, plus what it requested on return. */
    atomic_store(&m->mask, (atomic_load(&m->mask) | requested) & jv_monitors.deliverable);
    m->granted_options = m->requested_options & JV_SUPPORTED_INIT_OPTIONS;
    return 1;
}

static void make_call_receivers(void)
{
    jv_monitors.receivers = calloc(jv_monitors.count ? jv_monitors.count : 1, sizeof(*jv_monitors.receivers));
    if (!jv_monitors.receivers) {
        jv_log("out of memory: method calls are not delivered");
        return;
    }
    for (size_t i = 0; i < jv_monitors.count; i++) {
        jv_monitor *m = jv_monitors.items[i];
        if ((m->possible & JV_METHOD_CALL_BITS) && jv_monitors.receiver_count == JV_MAX_CALL_RECEIVERS)
            jv_log("%s: more than %d monitors may ask for method calls; this one gets none", m->source,
                   JV_MAX_CALL_RECEIVERS);
        else if (m->possible & JV_METHOD_CALL_BITS)
            jv_monitors.receivers[jv_monitors.receiver_count++] =
                (jv_call_receiver){m, m->mon, m->mon->lpVtbl, m->mon2, m->mon2 ? m->mon2->lpVtbl : NULL};
    }
}

void jv_monitors_initialize(const char *start_class)
{
    size_t kept = 0;
    for (size_t i = 0; i < jv_monitors.count; i++) {
        jv_monitor *m = jv_monitors.items[i];
        if (monitor_initialize(m, start_class)) {
            m->index = (unsigned)kept;
            jv_monitors.items[kept++] = m;
            jv_monitors.possible_union |= m->possible;
        } else
            monitor_free(m);
    }
    jv_monitors.count = kept;
    jv_monitors.initialized_count = (unsigned)kept;
    make_call_receivers();
    jv_monitors_call_routes_update(); /* a monitor may have asked for batches in Initialize */
    for (size_t i = 0; i < jv_monitors.count; i++) {
        jv_monitor *m = jv_monitors.items[i];
        if (m->mon2)
            IJavaEventMonitor2_NotifyEvent2(m->mon2, JVM_EVENT_TYPE2_MONITORS_INITIALIZED,
                                            (UniqueID)jv_monitors.initialized_count,
                                            (UniqueID)jv_monitors.possible_union);
    }
    jv_switch_update();
}

void jv_monitors_restrict(DWORD deliverable)
{
    jv_monitors.deliverable &= deliverable;
    for (size_t i = 0; i < jv_monitors.count; i++) {
        jv_monitor *m = jv_monitors.items[i];
        DWORD lost = atomic_fetch_and(&m->mask, jv_monitors.deliverable) & ~jv_monitors.deliverable;
        if (lost)
            jv_log("%s: event categories 0x%x cannot be delivered with the capabilities this JVM granted; masked off",
                   m->source, (unsigned)lost);
    }
}

void jv_monitors_shutdown(void)
{
    for (size_t i = 0; i < jv_monitors.count; i++) {
        jv_monitor *m = jv_monitors.items[i];
        atomic_store(&m->mask, 0);
        atomic_store(&m->phase, JV_PHASE_SHUT_DOWN);
    }
    jv_monitors_call_routes_update();
    jv_switch_update();
    /* Callbacks still running on other threads finish first, whatever they are (an event's, an
     * allocation's, a heap dump's): one wait, after every mask is off, and nothing of a monitor
     * (its heap callbacks included) is shut down or released under one. */
    char holder[1024];
    snprintf(holder, sizeof(holder), "a callback into %s", jv_monitors.count == 1 ? "the monitor of " : "one of the monitors ");
    for (size_t i = 0; i < jv_monitors.count; i++) {
        size_t used = strlen(holder);
        snprintf(holder + used, sizeof(holder) - used, "%s%s", i ? ", " : "", jv_monitors.items[i]->source);
    }
    if (!jv_dispatch_quiesce(holder)) {
        jv_log("%s still runs after %u s: no monitor is shut down or released (the process ends with them)", holder,
               QUIESCE_GIVE_UP_MS / 1000);
        return;
    }
    jv_heap_release_callbacks();
    jv_call_batches_stop(); /* every thread's last calls, before SHUTDOWN */
    jv_monitors.receiver_count = 0;
    jv_monitors_call_routes_update();
    for (size_t i = 0; i < jv_monitors.count; i++)
        IJavaEventMonitor_NotifyEvent(jv_monitors.items[i]->mon, JVM_EVENT_TYPE_SHUTDOWN, 0);
    /* The table and its entries stay allocated, every mask 0: an event posted after the wait above
     * (the Service Thread posts deferred JVMTI events while the VM exits) may be walking them, and
     * must find no monitor asking, never freed memory. */
    for (size_t i = 0; i < jv_monitors.count; i++)
        monitor_release(jv_monitors.items[i]);
    jv_monitors.kept_count = jv_monitors.count;
    jv_monitors.count = 0;
}
