/*
 * specific_calls.c - the IDInfo method EnableMethodCallEvents: which methods a monitor asking
 * for SPECIFIC_METHOD_CALLS hears of.  Each method keeps one bit per monitor (method.h); a
 * method permitted under instrumentation gets its flag raised, so its calls reach the bridge.
 * Here, above the method table and the instrumentation, because it acts for the calling monitor.
 */
#include <stdint.h>
#include <stdlib.h>

#include "dispatch/event_switch.h"
#include "dispatch/monitor_table.h"
#include "events/specific_regions.h"
#include "ids/class.h"
#include "idinfo/idinfo.h"
#include "ids/ids.h"
#include "ids/method.h"
#include "instrument/instrument.h"
#include "platform/platform.h"

/* A method's switches after its bits changed: its breakpoint (JVMTI path), its bridge flag raised
 * while some monitor permits it (instrumented path). */
static void switch_method(jv_method *m)
{
    jv_specific_regions_method_changed(m);
    uint32_t bridge_int = atomic_load(&m->bridge_int);
    if (bridge_int && atomic_load(&m->specific_monitors))
        jv_instrument_flag_raise(jv_jni(), bridge_int - 1);
}

/* Methods changed inside a GC callback, where neither JVMTI nor JNI may switch them: switched
 * by the thread event_switch.c starts once the collection is over. */
typedef struct deferred_method {
    struct deferred_method *next;
    jv_method *method;
} deferred_method;
static deferred_method *_Atomic deferred;

static void switch_deferred(void)
{
    for (deferred_method *d = atomic_exchange(&deferred, NULL), *next; d; d = next) {
        next = d->next;
        switch_method(d->method);
        free(d);
    }
}

/* Sets or clears the monitor's bit on one method: deliveries follow at once, the switches as
 * soon as the JVM allows. */
static void set_specific(jv_method *m, unsigned monitor, int permit)
{
    if (permit)
        atomic_fetch_or(&m->specific_monitors, 1u << monitor);
    else
        atomic_fetch_and(&m->specific_monitors, ~(1u << monitor));
    if (!jv_vm_in_gc_callback()) {
        switch_method(m);
        return;
    }
    deferred_method *d = malloc(sizeof(*d));
    if (!d) {
        jv_log("out of memory: a method enabled or disabled during a collection keeps its breakpoint or flag");
        return;
    }
    d->method = m;
    d->next = atomic_load(&deferred);
    while (!atomic_compare_exchange_weak(&deferred, &d->next, d))
        ;
    jv_switch_after_collection(switch_deferred);
}

/* What an ID of a kind EnableMethodCallEvents cannot act on is, by its kind bits; NULL for
 * ClassIDs, MethodIDs and values of no kind. */
static const char *unsupported_kind_name(UniqueID id)
{
    switch ((jv_id_kind)(id & JV_ID_KIND_MASK)) {
    case JV_ID_FIELD:
        return "a FieldID";
    case JV_ID_THREAD:
        return "a ThreadID";
    case JV_ID_OBJECT:
        return "an ObjectID";
    case JV_ID_HANDLE:
        return "an ObjectHandleID";
    case JV_ID_STACK:
        return "a StackID";
    default:
        return NULL;
    }
}

/* Monitors (bit = index) already told that EnableMethodCallEvents takes only ClassIDs and MethodIDs. */
static _Atomic uint32_t told_unsupported_kind;

/*
 * The ID's own kind decides, whatever idtype says: only JVM_ID_FIRST to JVM_ID_OBJECT are
 * known values of the original, so a monitor built with other values of JVM_ID_METHOD and
 * JVM_ID_CLASS (jevmon's own once were 2 and 1) still gets what it asked for.
 */
HRESULT STDMETHODCALLTYPE idinfo_EnableMethodCallEvents(IJavaEventMonitorIDInfo4 *iface, ObjectID unique_id,
                                                        JVM_ID_TYPE idtype, JVM_METHOD_CALL_EVENTS_DISPOSITION disposition)
{
    (void)idtype;
    jv_monitor *owner = jv_idinfo_owner(iface);
    if (!owner || owner->index >= 32 || !(atomic_load(&owner->mask) & JVM_MONITOR_SPECIFIC_METHOD_CALLS))
        return E_FAIL; /* needs the specific-method-calls category in the monitor's mask */
    if (disposition != JVM_PERMIT_METHOD_CALL_EVENTS && disposition != JVM_PROHIBIT_METHOD_CALL_EVENTS &&
        disposition != JVM_QUERY_DISPOSITION)
        return E_FAIL;
    uint32_t bit = 1u << owner->index;
    jv_method *m = jv_method_get(unique_id);
    if (m) {
        if (disposition == JVM_QUERY_DISPOSITION)
            return (atomic_load(&m->specific_monitors) & bit) ? S_OK : S_FALSE;
        set_specific(m, owner->index, disposition == JVM_PERMIT_METHOD_CALL_EVENTS);
        return S_OK;
    }
    jv_class *c = jv_class_get(unique_id);
    if (!c) {
        const char *kind = unsupported_kind_name(unique_id);
        if (kind && !(atomic_fetch_or(&told_unsupported_kind, bit) & bit))
            jv_log("%s: EnableMethodCallEvents(0x%llx) was given %s; it takes a ClassID or a MethodID, so it "
                   "fails (said once)",
                   owner->source, (unsigned long long)unique_id, kind);
        return E_FAIL; /* another kind, or a ClassID or MethodID that expired */
    }
    /* A class is permitted when every one of its methods is. */
    int all_permitted = 1;
    for (unsigned i = 0; i < c->method_count; i++) {
        jv_method *cm = jv_method_entry(c->methods[i]);
        if (!cm)
            continue;
        if (disposition == JVM_QUERY_DISPOSITION)
            all_permitted &= (atomic_load(&cm->specific_monitors) & bit) != 0;
        else
            set_specific(cm, owner->index, disposition == JVM_PERMIT_METHOD_CALL_EVENTS);
    }
    return disposition == JVM_QUERY_DISPOSITION && !all_permitted ? S_FALSE : S_OK;
}
