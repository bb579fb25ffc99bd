/*
 * thread_name.h - THREAD_SET_NAME.  JVMTI has no event for a thread's name changing, so
 * breakpoints at the return instructions of java.lang.Thread.setName (its name field is set
 * by then) compare the names of the live threads with the last ones seen (setName may rename
 * another thread, and reading its receiver would need a JVMTI capability).  Each changed name
 * is reported once.  Breakpoints rather than a FramePop at setName's return: while an agent
 * holds the FramePop capability, HotSpot's compiled code leaves every exception it throws and
 * catches to the runtime (about 0.2 us a throw, and a quarter more processor time for javac).
 */
#ifndef JEVMON_THREAD_NAME_H
#define JEVMON_THREAD_NAME_H

#include "ids/thread.h"
#include "vm/vm.h"

/* The JVMTI capabilities this needs, added when a monitor may ask for THREADS. */
void jv_thread_names_capabilities(jvmtiCapabilities *caps);
/* At VMInit: sets the breakpoints and records the names of the threads alive now. */
void jv_thread_names_start(JNIEnv *env);
/* Records a thread's name as it starts, without reporting it. */
void jv_thread_name_record(JNIEnv *env, jthread thread, jv_thread *t);

void JNICALL jv_on_breakpoint(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method, jlocation location);

#endif
