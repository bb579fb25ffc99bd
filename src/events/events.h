/*
 * events.h - JVMTI events in, monitor callbacks out: the callbacks of each kind of event, which
 * jvmti_setup.c puts in the JVM's callback table.  Which of them are on is event_switch.h's.
 */
#ifndef JEVMON_EVENTS_H
#define JEVMON_EVENTS_H

#include "ids/thread.h"
#include "jevmon.h"
#include "vm/vm.h"

/* Virtual threads (vthread.c): can_support_virtual_threads when the JVM offers it; the
 * VirtualThreadStart/End callbacks put in the table, *size set to the table's size with them;
 * at VMInit, their events and the mount/unmount extension events on (when the capability was granted). */
void jv_vthread_capabilities(jvmtiCapabilities *caps);
void jv_vthread_callbacks(jvmtiEventCallbacks *callbacks, jint *size);
void jv_vthread_events_start(jvmtiEnv *jvmti, JNIEnv *env);
/* THREAD_CREATE / THREAD_DESTROY for a thread starting or ending on the calling thread (thread.c);
 * a virtual thread is mounted at its start, and its entry released at its end. */
void jv_events_thread_started(JNIEnv *env, jthread thread, int is_virtual);
void jv_events_thread_ended(JNIEnv *env, jthread thread, int is_virtual);

/* Class loads (class_load.c). */
/* CLASS_LOAD_STARTED for a class about to be defined (ClassFileLoadHook, not for a redefinition). */
void jv_class_load_started(JNIEnv *env, const char *name);
void JNICALL jv_on_class_load(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jclass klass);
void JNICALL jv_on_class_prepare(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jclass klass);

/* Compiled code and the code map (jit.c); jv_jit_events_start at VMInit, after INITIALIZED:
 * its replay may notify JIT_COMPILATION monitors (compilations: a monitor may ask for them). */
void JNICALL jv_on_compiled_method_load(jvmtiEnv *jvmti, jmethodID method, jint code_size, const void *code_addr,
                                        jint map_length, const jvmtiAddrLocationMap *map, const void *compile_info);
void JNICALL jv_on_compiled_method_unload(jvmtiEnv *jvmti, jmethodID method, const void *code_addr);
void JNICALL jv_on_dynamic_code_generated(jvmtiEnv *jvmti, const char *name, const void *address, jint length);
void jv_jit_events_start(jvmtiEnv *jvmti, int compilations);

/* Garbage collections (gc.c). */
void JNICALL jv_on_gc_start(jvmtiEnv *jvmti);
void JNICALL jv_on_gc_finish(jvmtiEnv *jvmti);

/* Platform threads (thread.c); jv_threads_announce_live: THREAD_CREATE for the threads that
 * run when the agent is loaded into a running JVM. */
void JNICALL jv_on_thread_start(jvmtiEnv *jvmti, JNIEnv *env, jthread thread);
void JNICALL jv_on_thread_end(jvmtiEnv *jvmti, JNIEnv *env, jthread thread);
void jv_threads_announce_live(JNIEnv *env);
/* THREAD_CREATE for t, once: at its ThreadStart, or before its first call is delivered when Java
 * code runs on it first (an attaching thread constructs its Thread object, as DestroyJavaVM's does
 * at the exit, before the JVM posts its ThreadStart).  Inside a dispatch. */
void jv_events_thread_announce(jv_thread *t);

/* Bytecode and source-line events (step.c). */
void JNICALL jv_on_single_step(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method, jlocation location);

/* Method-call events, from JVMTI (method_call.c). */
void JNICALL jv_on_method_entry(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method);
void JNICALL jv_on_method_exit(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method,
                               jboolean was_popped_by_exception, jvalue return_value);
/* What both mechanisms share; below: JVM frames above the shadow's when it is re-read;
 * resync: re-read it now (the bridge's shadow misses the methods whose flags are clear);
 * known: the exiting MethodID when the caller knows it; return_value NULL when unknown. */
void jv_method_calls_enter(JNIEnv *env, jthread thread, MethodID id, jmethodID method, int below, int resync);
void jv_method_calls_exit(JNIEnv *env, jthread thread, jmethodID method, MethodID known, int below, int resync,
                          jboolean was_popped_by_exception, const jvalue *return_value);
/* EXCEPTION_UNWIND alone for the calling thread's frame below the given number of frames
 * (the instrumented path, for a method whose calls are not delivered). */
void jv_method_calls_unwind(JNIEnv *env, int below);
/* Does some monitor want the method's calls now (METHOD_CALLS, or SPECIFIC_METHOD_CALLS and enabled)? */
int jv_method_calls_wanted(MethodID id);

/* This concern's methods of the IJavaEventMonitorIDInfo objects (their vtables: idinfo/idinfo.c). */
HRESULT STDMETHODCALLTYPE idinfo_GetMethodEntryParameters(IJavaEventMonitorIDInfo4 *iface, DWORD **ppslots, DWORD **ppreserved, JVM_CALLING_CONVENTION *pcalling_convention, DWORD *pflags);
HRESULT STDMETHODCALLTYPE idinfo_GetMethodExitReturnValue(IJavaEventMonitorIDInfo4 *iface, MethodID *preturning_method_id, __int64 **pret_value);

#endif
