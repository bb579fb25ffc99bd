/*
 * thread_name.h - THREAD_SET_NAME.  JVMTI has no event for a thread's name changing, so a
 * breakpoint at the start of java.lang.Thread.setName asks for the frame's return, and
 * when setName returns, the names of the live threads are compared with the last ones
 * seen (setName may rename another thread, and reading its receiver would need a JVMTI
 * capability that slows compiled code).  Each changed name is reported once.
 */
#ifndef JEVMON_THREAD_NAME_H
#define JEVMON_THREAD_NAME_H

#include "ids/thread.h"
#include "vm/vm.h"

/* The JVMTI capabilities this needs, added when a monitor may ask for THREADS. */
void jv_thread_names_capabilities(jvmtiCapabilities *caps);
/* At VMInit: sets the breakpoint and records the names of the threads alive now. */
void jv_thread_names_start(JNIEnv *env);
/* Records a thread's name as it starts, without reporting it. */
void jv_thread_name_record(JNIEnv *env, jthread thread, jv_thread *t);

void JNICALL jv_on_breakpoint(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method, jlocation location);
void JNICALL jv_on_frame_pop(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method,
                             jboolean was_popped_by_exception);

#endif
