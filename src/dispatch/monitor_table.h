/*
 * monitor_table.h - the table of attached event monitors as delivery reads it: each monitor's
 * interfaces, masks, promises and phase, the flat list of method-call receivers, and which
 * monitor an IDInfo interface serves (the object itself is idinfo/idinfo.c's).
 *
 * The loader fills the table (monitors.h) before the first JVMTI event and never grows it
 * afterwards, so event dispatch reads it without a lock.  Masks change through
 * jv_monitor_set_mask, which switches the JVMTI events that serve them.
 */
#ifndef JEVMON_MONITOR_TABLE_H
#define JEVMON_MONITOR_TABLE_H

#include <stdatomic.h>
#include <stddef.h>

#include "jevmon.h"

struct jv_idinfo;

typedef enum jv_monitor_phase {
    JV_PHASE_CREATED,      /* instantiated, Initialize not called yet */
    JV_PHASE_INITIALIZING, /* inside Initialize: init-only settings work */
    JV_PHASE_RUNNING,      /* initialized; receives events */
    JV_PHASE_SHUT_DOWN     /* SHUTDOWN delivered; receives nothing more */
} jv_monitor_phase;

typedef struct jv_monitor {
    unsigned index;              /* position in the table, from 0 */
    char *source;                /* where it was found, for messages */
    CLSID clsid;
    IJavaEventMonitor *mon;
    IJavaEventMonitor2 *mon2;    /* NULL when the monitor does not implement it */
    struct jv_idinfo *idinfo;    /* the IDInfo object this monitor was given */
    _Atomic DWORD mask;          /* JAVA_EVENT_CATEGORY bits it receives now */
    DWORD possible;              /* categories it may ever enable */
    DWORD requested_options;     /* JAVA_MONITOR_INIT_OPTIONS it asked for (registry and own calls) */
    DWORD granted_options;       /* what the bridge granted, known after initialization */
    long long sampling_interval; /* its registry AllocationSamplingInterval in bytes, -1 when none */
    _Atomic int phase;           /* jv_monitor_phase */
    /* Takes its method calls in batches (events/call_batch.h); NULL: as MethodEntry and MethodExit2. */
    IJevmonCallBatchCallback *_Atomic batch_callback;
} jv_monitor;

/*
 * What method-call delivery reads on every call, kept flat (method_calls.h): a monitor that
 * may ask for method calls, with its interfaces' vtables read once, after Initialize (a COM
 * object keeps its vtable), so a callback is one load away instead of four.
 */
typedef struct jv_call_receiver {
    jv_monitor *monitor;
    IJavaEventMonitor *mon;
    const IJavaEventMonitorVtbl *vtbl;
    IJavaEventMonitor2 *mon2; /* NULL when the monitor does not implement it */
    const IJavaEventMonitor2Vtbl *vtbl2;
} jv_call_receiver;

/* Method calls go to at most this many monitors: a frame records the ones given its entry in a
 * 32-bit word (method_calls.h). */
#define JV_MAX_CALL_RECEIVERS 32

typedef struct jv_monitor_table {
    jv_monitor **items;
    size_t count;
    jv_call_receiver *receivers; /* the monitors that may ask for method calls */
    size_t receiver_count;
    DWORD deliverable;           /* categories this bridge can deliver in this process */
    DWORD state_flags;           /* JVM_STATE_FLAGS passed to Initialize */
    unsigned initialized_count;  /* monitors attached when the VM started: MONITORS_INITIALIZED's first ID */
    DWORD possible_union;        /* union of every monitor's possible categories */
    /* What jv_monitors_call_routes_update found last, for the call path (method_calls.h): */
    atomic_int call_batching;       /* jv_call_batching */
    atomic_uint every_call_receivers; /* receivers (bit i: receivers[i]) given every call one by one */
    atomic_uint chosen_receivers;   /* receivers given only the calls of the methods they chose */
    size_t kept_count;           /* after shutdown: the entries kept in items (lifecycle/monitors.c) */
} jv_monitor_table;

extern jv_monitor_table jv_monitors;

/* The categories that ask for method calls. */
#define JV_METHOD_CALL_BITS (JVM_MONITOR_METHOD_CALLS | JVM_MONITOR_SPECIFIC_METHOD_CALLS)

/* The initialization options this bridge can honour: the Microsoft VM's and jevmon's. */
#define JV_SUPPORTED_INIT_OPTIONS \
    ((DWORD)ALL_JVM_INIT_OPTIONS | JEVMON_INIT_OPT_DONT_NEED_THREAD_RENAMES | JEVMON_INIT_OPT_DONT_NEED_CLASS_LOAD_FAILURES)

/* How method calls go to the monitors asking for them (events/call_batch.h). */
typedef enum jv_call_batching {
    JV_NO_BATCHES,     /* each one by one (or none wants calls) */
    JV_ONLY_BATCHES,   /* all in batches: no shadow stack is kept */
    JV_BATCHES_BESIDE  /* some in batches, some one by one */
} jv_call_batching;

/* Does the monitor take every method's calls in batches now? */
static inline int jv_monitor_batches_calls(const jv_monitor *m)
{
    return (atomic_load_explicit(&m->mask, memory_order_relaxed) & JVM_MONITOR_METHOD_CALLS) &&
           atomic_load_explicit(&m->batch_callback, memory_order_relaxed);
}

/* Finds call_batching and the receivers' words anew from their masks and batch callbacks: called
 * after every change to one of them, so that the call path reads three words, not every receiver,
 * twice per Java call. */
void jv_monitors_call_routes_update(void);

/* Sets a monitor's mask after initialization; E_FAIL when a promise forbids the change. */
HRESULT jv_monitor_set_mask(jv_monitor *m, DWORD events);

/* The union of every running monitor's mask (inline: the method-call path asks on every call). */
static inline DWORD jv_monitors_mask_union(void)
{
    DWORD all = 0;
    for (size_t i = 0; i < jv_monitors.count; i++)
        all |= atomic_load_explicit(&jv_monitors.items[i]->mask, memory_order_relaxed);
    return all;
}


/*
 * What the layers below the IDInfo object see of it: the interface a monitor was given and the
 * monitor it serves, so that an IDInfo method implemented below idinfo/ (method_call.c) or an
 * object that holds the interface (heap_monitor.c) finds its monitor.  The object itself, its
 * other interface and its reference count are idinfo.c's; it begins with this.
 */
typedef struct jv_idinfo_identity {
    IJavaEventMonitorIDInfo4 IJavaEventMonitorIDInfo4_iface;
    jv_monitor *_Atomic owner; /* NULL once the monitor was shut down */
} jv_idinfo_identity;

/* The monitor an IDInfo interface serves; NULL once that monitor was shut down. */
static inline jv_monitor *jv_idinfo_owner(IJavaEventMonitorIDInfo4 *iface)
{
    jv_idinfo_identity *identity =
        (jv_idinfo_identity *)((char *)iface - offsetof(jv_idinfo_identity, IJavaEventMonitorIDInfo4_iface));
    return atomic_load(&identity->owner);
}

#endif
