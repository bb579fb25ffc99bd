/*
 * thread_name.h - THREAD_SET_NAME.  JVMTI has no event for a thread's name changing, so each
 * return of java.lang.Thread.setName (its name field is set by then) compares the names of the
 * live threads with the last ones seen (setName may rename another thread, and reading its
 * receiver would need a JVMTI capability).  Each changed name is reported once.  The returns are
 * seen by a call injected into setName (instrument/watch.c) where the JVM can retransform
 * classes, else by breakpoints at them: while an agent holds the breakpoint capability, HotSpot's
 * C2 keeps every local variable alive in compiled code (javac: a C2 arena of 162 MB instead of
 * 36 MB, measured).  Not a FramePop at setName's return: while an agent holds the FramePop
 * capability, HotSpot's compiled code leaves every exception it throws and catches to the
 * runtime (about 0.2 us a throw, and a quarter more processor time for javac).
 */
#ifndef JEVMON_THREAD_NAME_H
#define JEVMON_THREAD_NAME_H

#include "ids/thread.h"
#include "vm/vm.h"

/* The JVMTI capabilities the breakpoints need, added when a monitor may ask for THREADS and the
 * JVM cannot retransform classes. */
void jv_thread_names_capabilities(jvmtiCapabilities *caps);
/* At VMInit: records the names of the threads alive now; with breakpoints, also sets them. */
void jv_thread_names_start(JNIEnv *env, int breakpoints);
/* Records a thread's name as it starts, without reporting it. */
void jv_thread_name_record(JNIEnv *env, jthread thread, jv_thread *t);
/* setName returned on thread: THREAD_SET_NAME for each thread whose name changed. */
void jv_thread_names_compare(JNIEnv *env, jthread thread);

void JNICALL jv_on_breakpoint(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method, jlocation location);

#endif
