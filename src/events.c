/*
 * events.c - JVMTI capabilities and callbacks, and switching JVMTI events on and off as
 * the monitors' masks change.  Class, thread, GC, JIT and life-cycle events are handled
 * here; method calls in event_method.c, exceptions in exception.c.  Compiled-method and
 * dynamic-code events feed the code map (codemap.c) from VMInit on, whatever the masks.
 */
#include <string.h>

#include "class.h"
#include "codemap.h"
#include "dispatch.h"
#include "event_switch.h"
#include "events.h"
#include "exception.h"
#include "heap.h"
#include "instrument.h"
#include "method.h"
#include "monitors.h"
#include "platform/platform.h"
#include "sample.h"
#include "thread.h"
#include "thread_name.h"
#include "unload.h"


void jv_events_capabilities(DWORD categories, jvmtiCapabilities *caps)
{
    memset(caps, 0, sizeof(*caps));
    caps->can_tag_objects = 1;
    caps->can_get_source_file_name = 1;
    caps->can_get_line_numbers = 1;
    caps->can_get_bytecodes = 1;
    caps->can_get_monitor_info = 1; /* GetMonitorUsage */
    caps->can_generate_compiled_method_load_events = 1; /* the code map */
    if (jv_events_method_calls_instrumented()) {
        if (categories & JV_METHOD_CALL_BITS)
            jv_instrument_capabilities(caps);
        if (categories & JVM_MONITOR_EXCEPTION_UNWIND)
            caps->can_generate_method_exit_events = 1; /* for the unwinds alone */
    } else if (categories & (JV_METHOD_CALL_BITS | JVM_MONITOR_EXCEPTION_UNWIND)) {
        caps->can_generate_method_entry_events = 1;
        caps->can_generate_method_exit_events = 1;
    }
    if (categories & (JVM_MONITOR_EXCEPTIONS | JVM_MONITOR_EXCEPTION_UNWIND | JVM_MONITOR_CLASS_LOADS))
        caps->can_generate_exception_events = 1;
    if (categories & JVM_MONITOR_CLASS_LOADS)
        caps->can_generate_object_free_events = 1;
    if (categories & (JVM_MONITOR_BYTE_CODE_EXECUTION | JVM_MONITOR_SOURCE_LINE_EXECUTION))
        caps->can_generate_single_step_events = 1;
    if (categories & (JVM_MONITOR_GARBAGE_COLLECTIONS | JVM_MONITOR_SAMPLING))
        caps->can_generate_garbage_collection_events = 1;
    if (categories & JVM_MONITOR_THREADS)
        jv_thread_names_capabilities(caps);
    if (categories)
        jv_vthread_capabilities(caps); /* a virtual thread is a Java thread to every category */
}

DWORD jv_events_deliverable(const jvmtiCapabilities *caps)
{
    DWORD d = JVM_MONITOR_THREADS | JVM_MONITOR_SAMPLING;
    if (!caps->can_tag_objects)
        return 0;
    if (caps->can_generate_exception_events)
        d |= JVM_MONITOR_EXCEPTIONS | (caps->can_generate_object_free_events ? JVM_MONITOR_CLASS_LOADS : 0);
    if (jv_events_method_calls_instrumented() ? jv_instrument_possible(caps)
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

/* ---- Class loads ----------------------------------------------------------------------- */

static void JNICALL on_class_file_load_hook(jvmtiEnv *jvmti, JNIEnv *env, jclass class_being_redefined,
                                            jobject loader, const char *name, jobject protection_domain,
                                            jint class_data_len, const unsigned char *class_data,
                                            jint *new_class_data_len, unsigned char **new_class_data)
{
    (void)jvmti, (void)loader, (void)protection_domain;
    if (!class_being_redefined && name) {
        jv_dispatch d;
        jv_dispatch_begin(&d, env);
        jv_notify(JVM_MONITOR_CLASS_LOADS, JVM_EVENT_TYPE_CLASS_LOAD_STARTED, (UniqueID)name);
        jv_dispatch_end(&d);
    }
    if (jv_instrument_active())
        jv_instrument_class_file(env, name, class_data_len, class_data, new_class_data_len, new_class_data);
}

/* Does nothing: HotSpot's AsyncGetCallTrace refuses to walk unless some agent listens to class loads. */
static void JNICALL on_class_load(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jclass klass)
{
    (void)jvmti, (void)env, (void)thread, (void)klass;
}

static void JNICALL on_class_prepare(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jclass klass)
{
    (void)jvmti, (void)thread;
    jv_dispatch d;
    jv_dispatch_begin(&d, env);
    ClassID id = jv_class_id(env, klass);
    if (id)
        jv_notify(JVM_MONITOR_CLASS_LOADS, JVM_EVENT_TYPE_CLASS_LOAD_FINISHED, id);
    jv_dispatch_end(&d);
}

/* ---- JIT, GC, threads ------------------------------------------------------------------ */

static void JNICALL on_compiled_method_load(jvmtiEnv *jvmti, jmethodID method, jint code_size,
                                            const void *code_addr, jint map_length, const jvmtiAddrLocationMap *map,
                                            const void *compile_info)
{
    (void)jvmti, (void)map_length, (void)map, (void)compile_info;
    JNIEnv *env = jv_jni();
    jv_dispatch d;
    jv_dispatch_begin(&d, env);
    jv_codemap_add_compiled(method, code_addr, (size_t)code_size);
    MethodID id = jv_method_id(env, method);
    jv_method_set_code(method, code_addr);
    if (id) {
        /* JVMTI reports only finished compilations: STARTED is delivered right before FINISHED. */
        jv_notify(JVM_MONITOR_JIT_COMPILATION, JVM_EVENT_TYPE_JIT_COMPILE_STARTED, id);
        jv_notify(JVM_MONITOR_JIT_COMPILATION, JVM_EVENT_TYPE_JIT_COMPILE_FINISHED, id);
    }
    jv_dispatch_end(&d);
}

static void JNICALL on_compiled_method_unload(jvmtiEnv *jvmti, jmethodID method, const void *code_addr)
{
    (void)jvmti;
    jv_codemap_remove_compiled(method, code_addr);
}

static void JNICALL on_dynamic_code_generated(jvmtiEnv *jvmti, const char *name, const void *address, jint length)
{
    (void)jvmti;
    jv_codemap_add_stub(name, address, (size_t)length);
}

/* From VMInit (or the attach) on: the code map's events, and what was generated before (GenerateEvents). */
static void start_code_map(jvmtiEnv *jvmti)
{
    static const jvmtiEvent events[] = {JVMTI_EVENT_COMPILED_METHOD_LOAD, JVMTI_EVENT_COMPILED_METHOD_UNLOAD,
                                        JVMTI_EVENT_DYNAMIC_CODE_GENERATED};
    for (size_t i = 0; i < sizeof(events) / sizeof(*events); i++)
        if ((*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, events[i], NULL) != JVMTI_ERROR_NONE &&
            events[i] != JVMTI_EVENT_COMPILED_METHOD_UNLOAD)
            jv_log("the JVM sends no %s events; samples in generated code are not mapped",
                   events[i] == JVMTI_EVENT_COMPILED_METHOD_LOAD ? "CompiledMethodLoad" : "DynamicCodeGenerated");
    (*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
    (*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_COMPILED_METHOD_LOAD);
}

static void JNICALL on_gc_start(jvmtiEnv *jvmti)
{
    (void)jvmti;
    jv_dispatch d;
    jv_sample_gc(1);
    jv_vm_enter_gc_callback();
    jv_dispatch_begin(&d, NULL);
    jv_notify(JVM_MONITOR_GARBAGE_COLLECTIONS, JVM_EVENT_TYPE_GC_STARTED, 0);
    jv_dispatch_end(&d);
    jv_vm_leave_gc_callback();
}

static void JNICALL on_gc_finish(jvmtiEnv *jvmti)
{
    (void)jvmti;
    jv_dispatch d;
    jv_vm_enter_gc_callback();
    jv_dispatch_begin(&d, NULL);
    jv_notify(JVM_MONITOR_GARBAGE_COLLECTIONS, JVM_EVENT_TYPE_GC_FINISHED, 0);
    jv_heap_gc_finished();
    jv_dispatch_end(&d);
    jv_vm_leave_gc_callback();
    jv_sample_gc(0);
}

void jv_events_thread_started(JNIEnv *env, jthread thread, int is_virtual)
{
    jv_dispatch d;
    jv_dispatch_begin(&d, env);
    jv_thread *t = is_virtual ? jv_thread_mount(env, thread) : jv_thread_current(env, thread);
    if (t) {
        jv_thread_name_record(env, thread, t);
        if (!atomic_exchange(&t->announced, 1)) /* an attach may have announced it already */
            jv_notify(JVM_MONITOR_THREADS, JVM_EVENT_TYPE_THREAD_CREATE, jv_thread_id(t));
    }
    jv_dispatch_end(&d);
}

void jv_events_thread_ended(JNIEnv *env, jthread thread, int is_virtual)
{
    jv_dispatch d;
    jv_dispatch_begin(&d, env);
    jv_thread *t = is_virtual ? jv_thread_of(env, thread) : jv_thread_current(env, thread);
    if (t)
        jv_notify(JVM_MONITOR_THREADS, JVM_EVENT_TYPE_THREAD_DESTROY, jv_thread_id(t));
    if (is_virtual && t)
        jv_thread_release(env, t, thread);
    else if (is_virtual)
        jv_thread_unmount();
    else if (t)
        jv_thread_end(env, t);
    jv_dispatch_end(&d);
    if (!is_virtual)
        jv_dispatch_thread_end(); /* the OS thread ends: its dispatch slot may serve another */
}

static void JNICALL on_thread_start(jvmtiEnv *jvmti, JNIEnv *env, jthread thread)
{
    (void)jvmti;
    jv_events_thread_started(env, thread, 0);
}

static void JNICALL on_thread_end(jvmtiEnv *jvmti, JNIEnv *env, jthread thread)
{
    (void)jvmti;
    jv_events_thread_ended(env, thread, 0);
}

/* ---- Life cycle -------------------------------------------------------------------------- */

/* THREAD_CREATE for the threads that run when the agent is loaded into a running JVM. */
static void announce_live_threads(JNIEnv *env)
{
    jint count = 0;
    jthread *threads = NULL;
    if ((*jv_jvmti)->GetAllThreads(jv_jvmti, &count, &threads) != JVMTI_ERROR_NONE) {
        jv_log("could not list the JVM's threads; the threads running before the agent get no THREAD_CREATE");
        return;
    }
    jv_dispatch d;
    jv_dispatch_begin(&d, env);
    for (jint i = 0; i < count; i++) {
        jv_thread *t = jv_thread_of(env, threads[i]);
        if (t && !atomic_exchange(&t->announced, 1))
            jv_notify(JVM_MONITOR_THREADS, JVM_EVENT_TYPE_THREAD_CREATE, jv_thread_id(t));
        (*env)->DeleteLocalRef(env, threads[i]);
    }
    jv_dispatch_end(&d);
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)threads);
}

void jv_events_start_live(JNIEnv *env, jthread thread, int attached)
{
    jvmtiEnv *jvmti = jv_jvmti;
    jint count = 0;
    jclass *loaded = NULL;
    jv_vm_set_live(1);
    jv_heap_start();
    jv_vthread_events_start(jvmti, env);
    jv_thread_current(env, thread);
    if ((*jvmti)->GetLoadedClasses(jvmti, &count, &loaded) == JVMTI_ERROR_NONE) {
        for (jint i = 0; i < count; i++) {
            jint status = 0;
            if ((*jvmti)->GetClassStatus(jvmti, loaded[i], &status) == JVMTI_ERROR_NONE &&
                (status & JVMTI_CLASS_STATUS_PREPARED))
                jv_class_id(env, loaded[i]);
            (*env)->DeleteLocalRef(env, loaded[i]);
        }
        (*jvmti)->Deallocate(jvmti, (unsigned char *)loaded);
    }
    jv_sample_start(env);
    jv_dispatch d;
    jv_dispatch_begin(&d, env);
    for (size_t i = 0; i < jv_monitors.count; i++)
        if (jv_monitors.items[i]->mon2)
            IJavaEventMonitor2_NotifyEvent2(jv_monitors.items[i]->mon2, JVM_EVENT_TYPE2_INITIALIZED, 0, 0);
    jv_dispatch_end(&d);
    if (attached) { /* ThreadStart on first, so that no thread starts unseen; before any call is delivered */
        jv_events_update();
        announce_live_threads(env);
    }
    if (jv_events_method_calls_instrumented() && (jv_monitors.deliverable & JV_METHOD_CALL_BITS))
        jv_instrument_start(env); /* defines the bridge, hooks class files, retransforms what is loaded */
    if (jv_monitors.possible_union & JVM_MONITOR_CLASS_LOADS)
        jv_unloads_start();
    if (jv_monitors.possible_union & jv_monitors.deliverable & JVM_MONITOR_THREADS)
        jv_thread_names_start(env);
    start_code_map(jvmti); /* after INITIALIZED: its replay may notify JIT_COMPILATION monitors */
    jv_events_update();
    jv_heap_flush_sampler(env);
}

static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *env, jthread thread)
{
    (void)jvmti;
    jv_events_start_live(env, thread, 0);
}

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *env)
{
    (void)jvmti, (void)env;
    jv_unloads_stop();
    jv_heap_stop();
    jv_heap_release_callbacks();
    jv_monitors_shutdown(); /* masks off, events off, SHUTDOWN, Release */
    jv_vm_set_live(0);
}

int jv_events_setup(void)
{
    jv_events_switch_init();
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof(cb));
    cb.VMInit = on_vm_init;
    cb.VMDeath = on_vm_death;
    cb.ClassFileLoadHook = on_class_file_load_hook;
    cb.ClassLoad = on_class_load;
    cb.ClassPrepare = on_class_prepare;
    cb.ObjectFree = jv_on_object_free;
    cb.SingleStep = jv_on_single_step;
    cb.MethodEntry = jv_on_method_entry;
    cb.MethodExit = jv_on_method_exit;
    cb.CompiledMethodLoad = on_compiled_method_load;
    cb.CompiledMethodUnload = on_compiled_method_unload;
    cb.DynamicCodeGenerated = on_dynamic_code_generated;
    cb.Exception = jv_on_exception;
    cb.ExceptionCatch = jv_on_exception_catch;
    cb.GarbageCollectionStart = on_gc_start;
    cb.GarbageCollectionFinish = on_gc_finish;
    cb.SampledObjectAlloc = jv_on_sampled_object_alloc;
    cb.Breakpoint = jv_on_breakpoint;
    cb.FramePop = jv_on_frame_pop;
    cb.ThreadStart = on_thread_start;
    cb.ThreadEnd = on_thread_end;
    struct {
        jvmtiEventCallbacks table;
        void *beyond_jdk17[2]; /* VirtualThreadStart/End: JDK 21's table is longer (event_vthread.c) */
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
