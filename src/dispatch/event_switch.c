/*
 * event_switch.c - which JVMTI events are on (see event_switch.h): the routes from monitor
 * categories to JVMTI events, the method-call mechanism's rows, and the needs of the parts
 * that use JVMTI events for themselves.
 */
#include <stdatomic.h>

#include "dispatch/event_switch.h"
#include "dispatch/monitor_table.h"
#include "ids/thread.h"
#include "platform/platform.h"

/* Which JVMTI events serve which categories: the table in docs/events.md. */
typedef struct event_route {
    jvmtiEvent event;
    DWORD categories;
} event_route;

static event_route routes[] = { /* the method rows change when calls are instrumented */
    {JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, JVM_MONITOR_CLASS_LOADS},
    {JVMTI_EVENT_CLASS_LOAD, JVM_MONITOR_SAMPLING}, /* AsyncGetCallTrace walks only while ClassLoad is on */
    {JVMTI_EVENT_CLASS_PREPARE, JVM_MONITOR_CLASS_LOADS | JVM_MONITOR_SAMPLING}, /* sampling: jmethodIDs for AGCT */
    {JVMTI_EVENT_OBJECT_FREE, JVM_MONITOR_CLASS_LOADS},
    /* SPECIFIC_METHOD_CALLS: per thread, and for the whole JVM only when events/specific_regions.c says */
    {JVMTI_EVENT_METHOD_ENTRY, JVM_MONITOR_METHOD_CALLS},
    {JVMTI_EVENT_METHOD_EXIT, JVM_MONITOR_METHOD_CALLS | JVM_MONITOR_EXCEPTION_UNWIND},
    {JVMTI_EVENT_SINGLE_STEP, JVM_MONITOR_BYTE_CODE_EXECUTION | JVM_MONITOR_SOURCE_LINE_EXECUTION},
    {JVMTI_EVENT_EXCEPTION, JVM_MONITOR_EXCEPTIONS | JVM_MONITOR_EXCEPTION_UNWIND},
    {JVMTI_EVENT_EXCEPTION_CATCH, JVM_MONITOR_EXCEPTIONS | JVM_MONITOR_EXCEPTION_UNWIND},
    {JVMTI_EVENT_GARBAGE_COLLECTION_START, JVM_MONITOR_GARBAGE_COLLECTIONS | JVM_MONITOR_SAMPLING}, /* GC location */
    {JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, JVM_MONITOR_GARBAGE_COLLECTIONS | JVM_MONITOR_SAMPLING}, /* and heap dumps, ages */
    {JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, 0}, /* while allocations are tracked (heap/registrations.c) */
    {JVMTI_EVENT_THREAD_START, JVM_MONITOR_THREADS | JVM_MONITOR_SAMPLING}, /* sampling: each thread's OS id */
    {JVMTI_EVENT_THREAD_END, ALL_JVM_MONITOR_EVENTS}, /* also returns the thread's dispatch slot */
    /* setName; failed class loads; the regions of SPECIFIC_METHOD_CALLS on the JVMTI path */
    {JVMTI_EVENT_BREAKPOINT, JVM_MONITOR_THREADS | JVM_MONITOR_CLASS_LOADS | JVM_MONITOR_SPECIFIC_METHOD_CALLS},
};

static int instrumented;

void jv_switch_instrument_method_calls(int on)
{
    instrumented = on;
    for (size_t i = 0; i < sizeof(routes) / sizeof(*routes); i++) {
        if (routes[i].event == JVMTI_EVENT_METHOD_ENTRY)
            routes[i].categories = on ? 0 : JVM_MONITOR_METHOD_CALLS;
        else if (routes[i].event == JVMTI_EVENT_METHOD_EXIT)
            routes[i].categories = on ? 0 : JVM_MONITOR_METHOD_CALLS | JVM_MONITOR_EXCEPTION_UNWIND; /* the bridge's unwind */
        else if (routes[i].event == JVMTI_EVENT_BREAKPOINT)
            routes[i].categories = JVM_MONITOR_THREADS | JVM_MONITOR_CLASS_LOADS |
                                   (on ? 0 : JVM_MONITOR_SPECIFIC_METHOD_CALLS);
    }
}

int jv_switch_method_calls_instrumented(void)
{
    return instrumented;
}

static DWORD enabled_categories; /* the union the JVMTI events are set for; under the update lock */
static unsigned char route_on[sizeof(routes) / sizeof(*routes)]; /* under the update lock */
static plat_mutex *update_lock;

/* Events that serve something besides the monitors' masks (instrumentation, the heap monitor):
 * the parts that need them say so once, at start, with jv_switch_also_when. */
typedef struct event_need {
    jvmtiEvent event;
    int (*needed)(void);
} event_need;
static event_need needs[6];
static size_t need_count;

void jv_switch_also_when(jvmtiEvent event, int (*needed)(void))
{
    if (need_count < sizeof(needs) / sizeof(*needs))
        needs[need_count++] = (event_need){event, needed};
    else
        jv_log("internal: more event needs than the %u kept; JVMTI event %d is switched by the masks alone",
               (unsigned)(sizeof(needs) / sizeof(*needs)), (int)event);
}

static int wanted_by_others(jvmtiEvent event)
{
    for (size_t i = 0; i < need_count; i++)
        if (needs[i].event == event && needs[i].needed())
            return 1;
    return 0;
}

static void (*before_method_events_off)(void);
static atomic_int method_events_on; /* JVM-wide MethodEntry and MethodExit both on */

int jv_switch_method_events_on(void)
{
    return atomic_load(&method_events_on);
}

void jv_switch_before_method_events_off(void (*keep)(void))
{
    before_method_events_off = keep;
}

static int is_method_event(jvmtiEvent event)
{
    return event == JVMTI_EVENT_METHOD_ENTRY || event == JVMTI_EVENT_METHOD_EXIT;
}

void jv_switch_init(void)
{
    if (!update_lock)
        update_lock = plat_mutex_create();
}

/*
 * A mask changed inside a GC callback, where JVMTI switches no events: a thread of its own
 * switches them once the collection is over (attaching to the JVM waits for it).  GC callbacks
 * come one at a time; each such thread joins the one before it, the last one's handle stays.
 */
static atomic_int update_pending;
static plat_thread *updater;
static void (*_Atomic collection_work)(void);

static void update_after_gc(void *previous)
{
    if (previous)
        plat_thread_join(previous);
    atomic_store(&update_pending, 0);
    void (*work)(void) = atomic_load(&collection_work);
    if (work && jv_jni())
        work();
    jv_switch_update();
    if (jv_vm && jv_vm_live())
        (*jv_vm)->DetachCurrentThread(jv_vm);
}

static void update_later(void)
{
    if (atomic_exchange(&update_pending, 1))
        return;
    plat_thread *started = plat_thread_start("jevmon after GC", update_after_gc, updater);
    if (started)
        updater = started;
    else
        jv_log("cannot start a thread to switch JVMTI events after a collection; they follow the next mask change");
}

void jv_switch_after_collection(void (*work)(void))
{
    atomic_store(&collection_work, work);
    update_later();
}

/*
 * A route the JVM refused to switch keeps its old state, so the next update tries again;
 * the refusal is said once per event.  A monitor's own thread may never have been seen by
 * the JVM (SetEventMask from a timer thread): JVMTI refuses unattached threads, so the
 * thread is attached first, as a daemon, as every IDInfo method does (vm.h).
 */
void jv_switch_update(void)
{
    static unsigned char refusal_said[sizeof(routes) / sizeof(*routes)]; /* under the update lock */
    if (!jv_jvmti || !jv_vm_live() || !update_lock)
        return;
    if (jv_vm_in_gc_callback()) {
        update_later();
        return;
    }
    jv_jni();
    plat_mutex_lock(update_lock);
    DWORD want = jv_monitors_mask_union(), refused = 0;
    int kept = 0;
    if ((want & JV_METHOD_CALL_BITS) && !(enabled_categories & JV_METHOD_CALL_BITS))
        jv_threads_new_epoch(); /* calls happened unseen: shadow stacks must be re-read */
    for (size_t i = 0; i < sizeof(routes) / sizeof(*routes); i++) {
        int on = (want & routes[i].categories) != 0 || wanted_by_others(routes[i].event);
        if (on == route_on[i])
            continue;
        /* Likewise when the JVM-wide MethodEntry comes on: threads outside regions counted nothing. */
        if (on && routes[i].event == JVMTI_EVENT_METHOD_ENTRY)
            jv_threads_new_epoch();
        if (!on && is_method_event(routes[i].event) && !kept) {
            atomic_store(&method_events_on, 0); /* before keep() looks: see specific_regions.c */
            if (before_method_events_off)
                before_method_events_off();
            kept = 1;
        }
        jvmtiError error = (*jv_jvmti)->SetEventNotificationMode(jv_jvmti, on ? JVMTI_ENABLE : JVMTI_DISABLE,
                                                                 routes[i].event, NULL);
        if (error == JVMTI_ERROR_NONE) {
            route_on[i] = (unsigned char)on;
            continue;
        }
        refused |= routes[i].categories;
        /* A capability the JVM did not grant was announced at start with the categories using it. */
        if (!refusal_said[i] && error != JVMTI_ERROR_MUST_POSSESS_CAPABILITY) {
            refusal_said[i] = 1;
            jv_log("the JVM refused to turn JVMTI event %d %s (error %d); tried again at the next event mask change",
                   (int)routes[i].event, on ? "on" : "off", (int)error);
        }
    }
    int entry_on = 0, exit_on = 0;
    for (size_t i = 0; i < sizeof(routes) / sizeof(*routes); i++) {
        entry_on |= routes[i].event == JVMTI_EVENT_METHOD_ENTRY && route_on[i];
        exit_on |= routes[i].event == JVMTI_EVENT_METHOD_EXIT && route_on[i];
    }
    atomic_store(&method_events_on, entry_on && exit_on);
    enabled_categories = want & ~refused;
    plat_mutex_unlock(update_lock);
}

