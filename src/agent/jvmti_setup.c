/*
 * jvmti_setup.c - the JVMTI side of the agent: the capabilities the categories need, the callback
 * table, the start of everything at VMInit (or at once when attached) and the end at VMDeath.
 * Each callback lives in the file of its kind of event (event_*.c, exception.c, unload.c,
 * heap_alloc.c); which events are on is event_switch.c's business.
 */
#include <string.h>

#include "agent/jvmti_setup.h"
#include "dispatch/dispatch.h"
#include "dispatch/event_switch.h"
#include "events/class_failure.h"
#include "events/events.h"
#include "events/exception.h"
#include "events/lock_wait.h"
#include "events/specific_regions.h"
#include "events/thread_name.h"
#include "events/unload.h"
#include "heap/heap.h"
#include "ids/class.h"
#include "ids/thread.h"
#include "instrument/instrument.h"
#include "instrument/watch.h"
#include "lifecycle/monitors.h"
#include "platform/platform.h"
#include "sampling/thread_sample.h"

/* THREAD_SET_NAME and CLASS_LOAD_FAILED by rewriting (watch.h) rather than breakpoints and
 * access to locals, which make C2 keep every local alive: the JVM can retransform classes. */
static int watch_by_rewriting;

void jv_setup_set_potential(const jvmtiCapabilities *potential)
{
    watch_by_rewriting = jv_watch_possible(potential);
}

void jv_setup_capabilities(DWORD categories, jvmtiCapabilities *caps)
{
    memset(caps, 0, sizeof(*caps));
    caps->can_tag_objects = 1;
    caps->can_get_source_file_name = 1;
    caps->can_get_line_numbers = 1;
    caps->can_get_bytecodes = 1;
    caps->can_get_monitor_info = 1; /* GetMonitorUsage */
    caps->can_generate_compiled_method_load_events = 1; /* the code map */
    if (jv_switch_method_calls_instrumented()) {
        if (categories & JV_METHOD_CALL_BITS)
            jv_instrument_capabilities(caps);
        if (categories & JVM_MONITOR_EXCEPTION_UNWIND)
            caps->can_generate_method_exit_events = 1; /* for the unwinds alone */
    } else if (categories & (JV_METHOD_CALL_BITS | JVM_MONITOR_EXCEPTION_UNWIND)) {
        caps->can_generate_method_entry_events = 1;
        caps->can_generate_method_exit_events = 1;
        if (categories & JVM_MONITOR_SPECIFIC_METHOD_CALLS)
            jv_specific_regions_capabilities(caps);
    }
    if (categories & (JVM_MONITOR_EXCEPTIONS | JVM_MONITOR_EXCEPTION_UNWIND))
        caps->can_generate_exception_events = 1; /* costs every throw, listened to or not: class_failure.h */
    if (categories & JVM_MONITOR_CLASS_LOADS) {
        caps->can_generate_object_free_events = 1; /* unloads */
        if (!watch_by_rewriting)
            jv_class_failures_capabilities(caps);
    }
    if ((categories & (JVM_MONITOR_CLASS_LOADS | JVM_MONITOR_THREADS)) && watch_by_rewriting)
        jv_watch_capabilities(caps);
    if (categories & (JVM_MONITOR_BYTE_CODE_EXECUTION | JVM_MONITOR_SOURCE_LINE_EXECUTION))
        caps->can_generate_single_step_events = 1;
    if (categories & (JVM_MONITOR_GARBAGE_COLLECTIONS | JVM_MONITOR_SAMPLING))
        caps->can_generate_garbage_collection_events = 1;
    if ((categories & JVM_MONITOR_THREADS) && !watch_by_rewriting)
        jv_thread_names_capabilities(caps);
    if (categories)
        jv_vthread_capabilities(caps); /* a virtual thread is a Java thread to every category */
}

DWORD jv_setup_deliverable(const jvmtiCapabilities *caps)
{
    DWORD d = JVM_MONITOR_THREADS | JVM_MONITOR_SAMPLING;
    if (!caps->can_tag_objects)
        return 0;
    if (caps->can_generate_exception_events)
        d |= JVM_MONITOR_EXCEPTIONS;
    if (caps->can_generate_object_free_events)
        d |= JVM_MONITOR_CLASS_LOADS; /* failed loads need two more (class_failure.c says when they are missing) */
    if (jv_switch_method_calls_instrumented() ? jv_instrument_possible(caps)
                     : caps->can_generate_method_entry_events && caps->can_generate_method_exit_events)
        d |= JV_METHOD_CALL_BITS;
    if (caps->can_generate_method_exit_events && caps->can_generate_exception_events)
        d |= JVM_MONITOR_EXCEPTION_UNWIND;
    if (caps->can_generate_compiled_method_load_events)
        d |= JVM_MONITOR_JIT_COMPILATION;
    if (caps->can_generate_garbage_collection_events)
        d |= JVM_MONITOR_GARBAGE_COLLECTIONS;
    if (caps->can_generate_single_step_events && caps->can_get_bytecodes)
        d |= JVM_MONITOR_BYTE_CODE_EXECUTION | (caps->can_get_line_numbers ? JVM_MONITOR_SOURCE_LINE_EXECUTION : 0);
    return d;
}


/* ---- Life cycle -------------------------------------------------------------------------- */

/*
 * The categories for which the classes loaded before VMInit (or the attach) are registered
 * at once: CLASS_UNLOAD needs their tags, and AsyncGetCallTrace (SAMPLING) their jmethodIDs.
 */
#define CLASSES_REGISTERED_AT_START (JVM_MONITOR_CLASS_LOADS | JVM_MONITOR_SAMPLING)

/* Does a monitor that may ask for category need its events that option says a monitor can do without? */
static int needed_by_a_monitor(DWORD category, DWORD dont_need)
{
    for (size_t i = 0; i < jv_monitors.count; i++)
        if ((jv_monitors.items[i]->possible & category) && !(jv_monitors.items[i]->granted_options & dont_need))
            return 1;
    return 0;
}

/* THREAD_SET_NAME and CLASS_LOAD_FAILED (with renames_and_failures, for the monitors that need
 * them): by rewriting where the held capabilities allow it, else by breakpoints (the names of the
 * threads alive are recorded first, so a rename is seen); and lock waits, whose parks are watched
 * by rewriting LockSupport. */
static void watches_start(JNIEnv *env, int renames_and_failures)
{
    unsigned what = 0;
    jvmtiCapabilities held;
    if (renames_and_failures && needed_by_a_monitor(JVM_MONITOR_CLASS_LOADS, JEVMON_INIT_OPT_DONT_NEED_CLASS_LOAD_FAILURES))
        what |= JV_WATCH_CLASS_FAILURES;
    if (renames_and_failures && (jv_monitors.deliverable & JVM_MONITOR_THREADS) &&
        needed_by_a_monitor(JVM_MONITOR_THREADS, JEVMON_INIT_OPT_DONT_NEED_THREAD_RENAMES))
        what |= JV_WATCH_THREAD_NAMES;
    if (jv_lock_waits_wanted()) { /* registered during Initialize */
        jv_lock_waits_start(env);
        what |= JV_WATCH_PARKS;
    }
    int rewriting = watch_by_rewriting && (*jv_jvmti)->GetCapabilities(jv_jvmti, &held) == JVMTI_ERROR_NONE &&
                    jv_watch_possible(&held);
    if (what & JV_WATCH_CLASS_FAILURES)
        jv_class_failures_start(env, !rewriting);
    if (what & JV_WATCH_THREAD_NAMES)
        jv_thread_names_start(env, !rewriting);
    if (rewriting && what)
        jv_watch_start(env, what);
}

void jv_setup_start_live(JNIEnv *env, jthread thread, int attached)
{
    jvmtiEnv *jvmti = jv_jvmti;
    jint count = 0;
    jclass *loaded = NULL;
    jv_vm_set_live(1);
    jv_heap_start();
    jv_vthread_events_start(jvmti, env);
    jv_thread_current(env, thread);
    /* Every other use registers a class on its first ClassID or MethodID (jv_method_id), as
     * for the classes loaded later while ClassPrepare is off: here only those that may unload
     * are (about 10 of a Hello world's 440; all of them took 2 ms of its VMInit). */
    if ((jv_monitors.possible_union & CLASSES_REGISTERED_AT_START) &&
        (*jvmti)->GetLoadedClasses(jvmti, &count, &loaded) == JVMTI_ERROR_NONE) {
        for (jint i = 0; i < count; i++) {
            jint status = 0;
            if ((*jvmti)->GetClassStatus(jvmti, loaded[i], &status) == JVMTI_ERROR_NONE &&
                (status & JVMTI_CLASS_STATUS_PREPARED))
                jv_class_loaded_before(env, loaded[i]);
            (*env)->DeleteLocalRef(env, loaded[i]);
        }
        (*jvmti)->Deallocate(jvmti, (unsigned char *)loaded);
    }
    jv_sample_start(env, attached);
    if (!jv_switch_method_calls_instrumented())
        jv_specific_regions_start(); /* before INITIALIZED, where monitors may enable methods */
    jv_dispatch d;
    jv_dispatch_begin(&d, env);
    for (size_t i = 0; i < jv_monitors.count; i++)
        if (jv_monitors.items[i]->mon2)
            IJavaEventMonitor2_NotifyEvent2(jv_monitors.items[i]->mon2, JVM_EVENT_TYPE2_INITIALIZED, 0, 0);
    jv_dispatch_end(&d);
    if (attached) { /* ThreadStart on first, so that no thread starts unseen; before any call is delivered */
        jv_switch_update();
        jv_threads_announce_live(env);
    }
    int instrumenting = jv_switch_method_calls_instrumented() && (jv_monitors.deliverable & JV_METHOD_CALL_BITS);
    if (instrumenting)
        jv_instrument_start(env); /* defines the bridge, hooks class files, retransforms what is loaded */
    if (jv_monitors.possible_union & JVM_MONITOR_CLASS_LOADS)
        jv_unloads_start();
    /* In a JVM that started without an agent that can retransform, HotSpot recorded no dependencies
     * between compiled methods and classes: its first retransformation deoptimizes every compiled
     * method, and a server runs several times slower until its JIT has compiled it all again.  The
     * watches' rewrite of java.lang.Thread and two exceptions would be that first one: after an
     * attach they run only when the instrumentation retransforms anyway. */
    int renames_and_failures = !attached || instrumenting;
    if (!renames_and_failures && (jv_monitors.possible_union & (JVM_MONITOR_CLASS_LOADS | JVM_MONITOR_THREADS)))
        jv_log("attached: thread renames and failed class loads are not reported (watching them retransforms "
               "java.lang.Thread, which would deoptimize all the program's compiled code)");
    /* Lock waits were asked for by name: their parks are watched even so, said once. */
    if (!renames_and_failures && jv_lock_waits_wanted())
        jv_log("attached: parks on java.util.concurrent locks are watched by rewriting LockSupport, which "
               "deoptimizes the program's compiled code once");
    watches_start(env, renames_and_failures);
    /* After INITIALIZED: its replay may notify JIT_COMPILATION monitors.  Nothing maps a sample or
     * hears of a compilation without a monitor. */
    if (jv_monitors.count)
        jv_jit_events_start(jvmti, (jv_monitors.possible_union & JVM_MONITOR_JIT_COMPILATION) != 0);
    jv_switch_update();
    jv_heap_flush_sampler(env);
}

/* A class file: CLASS_LOAD_STARTED, then the instrumentation's rewrite of it, then the watch's. */
static void JNICALL on_class_file_load_hook(jvmtiEnv *jvmti, JNIEnv *env, jclass class_being_redefined,
                                            jobject loader, const char *name, jobject protection_domain,
                                            jint class_data_len, const unsigned char *class_data,
                                            jint *new_class_data_len, unsigned char **new_class_data)
{
    (void)jvmti, (void)loader, (void)protection_domain;
    if (!class_being_redefined && name)
        jv_class_load_started(env, name);
    if (jv_instrument_active())
        jv_instrument_class_file(env, name, class_data_len, class_data, new_class_data_len, new_class_data);
    jv_watch_class_file(env, name, class_data_len, class_data, new_class_data_len, new_class_data);
}

/* The catch of a handler the instrumentation or the watch injected is no catch: the handler rethrows. */
static void JNICALL on_exception_catch(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method,
                                       jlocation location, jobject exception)
{
    if (jv_instrument_is_handler(method, location) || jv_watch_is_handler(method, location))
        jv_exception_caught_by_handler(env, exception);
    else
        jv_on_exception_catch(jvmti, env, thread, method, location, exception);
}

static void JNICALL on_breakpoint(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method, jlocation location)
{
    if (!jv_specific_regions_breakpoint(env, thread, method, location) &&
        !jv_class_failure_breakpoint(env, thread, method))
        jv_on_breakpoint(jvmti, env, thread, method, location);
}

static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *env, jthread thread)
{
    (void)jvmti;
    jv_setup_start_live(env, thread, 0);
}

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *env)
{
    (void)jvmti, (void)env;
    jv_unloads_stop();
    jv_lock_waits_stop();
    jv_heap_stop();
    jv_monitors_shutdown(); /* masks off, events off, one wait, heap callbacks released, SHUTDOWN, Release */
    jv_vm_set_live(0);
}

int jv_setup_events(void)
{
    jv_switch_init();
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof(cb));
    cb.VMInit = on_vm_init;
    cb.VMDeath = on_vm_death;
    cb.ClassFileLoadHook = on_class_file_load_hook;
    cb.ClassLoad = jv_on_class_load;
    cb.ClassPrepare = jv_on_class_prepare;
    cb.ObjectFree = jv_on_object_free;
    cb.SingleStep = jv_on_single_step;
    cb.MethodEntry = jv_on_method_entry;
    cb.MethodExit = jv_on_method_exit;
    cb.CompiledMethodLoad = jv_on_compiled_method_load;
    cb.CompiledMethodUnload = jv_on_compiled_method_unload;
    cb.DynamicCodeGenerated = jv_on_dynamic_code_generated;
    cb.Exception = jv_on_exception;
    cb.ExceptionCatch = on_exception_catch;
    cb.GarbageCollectionStart = jv_on_gc_start;
    cb.GarbageCollectionFinish = jv_on_gc_finish;
    cb.SampledObjectAlloc = jv_on_sampled_object_alloc;
    cb.Breakpoint = on_breakpoint;
    cb.ThreadStart = jv_on_thread_start;
    cb.ThreadEnd = jv_on_thread_end;
    cb.MonitorContendedEnter = jv_on_monitor_contended_enter;
    cb.MonitorContendedEntered = jv_on_monitor_contended_entered;
    struct {
        jvmtiEventCallbacks table;
        void *beyond_jdk17[2]; /* VirtualThreadStart/End: JDK 21's table is longer (vthread.c) */
    } all;
    memset(&all, 0, sizeof(all));
    all.table = cb;
    jint size = (jint)sizeof(cb);
    jv_vthread_callbacks(&all.table, &size);
    if ((*jv_jvmti)->SetEventCallbacks(jv_jvmti, &all.table, size) != JVMTI_ERROR_NONE)
        return 0;
    (*jv_jvmti)->SetEventNotificationMode(jv_jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL);
    (*jv_jvmti)->SetEventNotificationMode(jv_jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL);
    return 1;
}

