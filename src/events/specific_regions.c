/*
 * specific_regions.c - SPECIFIC_METHOD_CALLS on the JVMTI path by regions (see
 * specific_regions.h).  A region is the instrumented path's (thread.h's region_base): the depth
 * of the enabled frame that opened it, 0 when the thread has none.  The breakpoints are set and
 * cleared under one mutex, which also counts the enabled native methods.
 */
#include <stdatomic.h>

#include "dispatch/event_switch.h"
#include "dispatch/monitor_table.h"
#include "events/events.h"
#include "events/specific_regions.h"
#include "ids/thread.h"
#include "platform/platform.h"

enum { NO_WATCH, ENTRY_BREAKPOINT, NATIVE_COUNTED };

static plat_mutex *lock;
static atomic_int started, enabled_natives;

void jv_specific_regions_capabilities(jvmtiCapabilities *caps)
{
    caps->can_generate_breakpoint_events = 1;
}

static int breakpoints_held(void)
{
    jvmtiCapabilities held;
    return (*jv_jvmti)->GetCapabilities(jv_jvmti, &held) == JVMTI_ERROR_NONE && held.can_generate_breakpoint_events;
}

/* Must MethodEntry/MethodExit be on for the whole JVM for SPECIFIC_METHOD_CALLS? */
static int whole_jvm_events_needed(void)
{
    DWORD want = jv_monitors_mask_union();
    return (want & JVM_MONITOR_SPECIFIC_METHOD_CALLS) &&
           (!atomic_load(&started) || atomic_load(&enabled_natives) || (want & JVM_MONITOR_EXCEPTION_UNWIND));
}

void jv_specific_regions_method_changed(jv_method *m)
{
    if (!atomic_load(&started) || jv_switch_method_calls_instrumented())
        return;
    jint modifiers = 0;
    if ((*jv_jvmti)->GetMethodModifiers(jv_jvmti, m->jmethod, &modifiers) != JVMTI_ERROR_NONE ||
        (modifiers & 0x0400 /* ACC_ABSTRACT */))
        return;
    plat_mutex_lock(lock);
    int enabled = atomic_load(&m->specific_monitors) != 0, watch = atomic_load(&m->entry_watch), natives_changed = 0;
    if (enabled && watch == NO_WATCH) {
        if (modifiers & 0x0100 /* ACC_NATIVE */) {
            atomic_fetch_add(&enabled_natives, 1);
            atomic_store(&m->entry_watch, NATIVE_COUNTED);
            natives_changed = 1;
        } else if ((*jv_jvmti)->SetBreakpoint(jv_jvmti, m->jmethod, 0) == JVMTI_ERROR_NONE)
            atomic_store(&m->entry_watch, ENTRY_BREAKPOINT);
        /* else another part's breakpoint is there (class_failure.c): it passes the event on */
    } else if (!enabled && watch != NO_WATCH) {
        if (watch == NATIVE_COUNTED) {
            atomic_fetch_sub(&enabled_natives, 1);
            natives_changed = 1;
        } else
            (*jv_jvmti)->ClearBreakpoint(jv_jvmti, m->jmethod, 0);
        atomic_store(&m->entry_watch, NO_WATCH);
    }
    plat_mutex_unlock(lock);
    if (natives_changed)
        jv_switch_update();
}

/* The thread's own MethodEntry/MethodExit on or off (thread: its Thread object, never NULL). */
static void own_call_events(jthread thread, jv_thread *t, int on)
{
    if (!thread || atomic_exchange(&t->own_call_events, on) == on)
        return;
    jvmtiEventMode mode = on ? JVMTI_ENABLE : JVMTI_DISABLE;
    (*jv_jvmti)->SetEventNotificationMode(jv_jvmti, mode, JVMTI_EVENT_METHOD_ENTRY, thread);
    (*jv_jvmti)->SetEventNotificationMode(jv_jvmti, mode, JVMTI_EVENT_METHOD_EXIT, thread);
}

/*
 * Before the JVM-wide MethodEntry/MethodExit go off: every thread inside a region keeps them
 * for itself until its region's frame exits.  A thread opening a region meanwhile stores its
 * region_base and then reads jv_switch_method_events_on, which was cleared before this reads
 * the region_bases: one of the two sees the other (both may: own_call_events switches once).
 */
static void keep_region(jv_thread *t, void *env)
{
    if (!t->region_base || atomic_load(&t->own_call_events))
        return;
    jthread thread = jv_thread_local_ref(env, t);
    own_call_events(thread, t, 1);
    if (thread)
        (*(JNIEnv *)env)->DeleteLocalRef(env, thread);
}

static void keep_regions(void)
{
    JNIEnv *env = jv_jni();
    if (!env)
        return;
    for (size_t i = 0; i < jv_monitors.receiver_count; i++)
        if (atomic_load(&jv_monitors.receivers[i].monitor->phase) == JV_PHASE_RUNNING) {
            jv_threads_each(keep_region, env); /* not at shutdown: no exit goes out then */
            return;
        }
}

void jv_specific_regions_start(void)
{
    if (!lock)
        lock = plat_mutex_create();
    atomic_store(&started, lock && breakpoints_held());
    jv_switch_also_when(JVMTI_EVENT_METHOD_ENTRY, whole_jvm_events_needed);
    jv_switch_also_when(JVMTI_EVENT_METHOD_EXIT, whole_jvm_events_needed);
    jv_switch_before_method_events_off(keep_regions);
}

void jv_call_region_entered(jthread thread, jv_thread *t)
{
    if (t->region_base || !t->depth)
        return;
    t->region_base = t->depth;
    if (!jv_switch_method_events_on())
        own_call_events(thread, t, 1);
}

void jv_call_region_check(jthread thread)
{
    jv_thread *t = jv_thread_self;
    if (!t)
        return;
    if (t->region_base && t->depth < t->region_base)
        t->region_base = 0;
    if (!t->region_base && atomic_load_explicit(&t->own_call_events, memory_order_relaxed))
        own_call_events(thread, t, 0);
}

int jv_specific_regions_breakpoint(JNIEnv *env, jthread thread, jmethodID method, jlocation location)
{
    MethodID id = location == 0 ? jv_method_id(env, method) : 0;
    jv_method *m = id ? jv_method_entry(id) : NULL;
    if (!m || atomic_load(&m->entry_watch) != ENTRY_BREAKPOINT)
        return 0;
    jv_thread *t = jv_thread_current(env, thread);
    /* Inside a region, or with the JVM's own events on, MethodEntry has delivered it (a jump back
     * to the first bytecode is no call either). */
    if (!t || t->region_base || (jv_monitors_mask_union() & JVM_MONITOR_METHOD_CALLS) ||
        whole_jvm_events_needed() || !jv_method_calls_wanted(id))
        return 1;
    own_call_events(thread, t, 1);
    jv_method_calls_enter(env, thread, id, method, 1, 1); /* the stack below it read once */
    if (!t->region_base)
        t->region_base = t->depth ? t->depth : 1;
    return 1;
}
