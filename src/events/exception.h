/*
 * exception.h - exception events: EXCEPTION_THROWN when an exception is thrown,
 * EXCEPTION_OCCURRED when a handler is about to run (NotifyEvent with the handler
 * frame's StackID for monitors without IJavaEventMonitor2), EXCEPTION_UNWIND for each
 * frame it propagates out of.
 */
#ifndef JEVMON_EXCEPTION_H
#define JEVMON_EXCEPTION_H

#include "jevmon.h"
#include "vm/vm.h"

void JNICALL jv_on_exception(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method, jlocation location,
                             jobject exception, jmethodID catch_method, jlocation catch_location);
void JNICALL jv_on_exception_catch(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method,
                                   jlocation location, jobject exception);
/* Instrumented methods: an injected handler caught the exception (jvmti_setup.c asks the
 * instrumentation at each ExceptionCatch); it rethrows, so neither gets events. */
void jv_exception_caught_by_handler(JNIEnv *env, jobject exception);
/* Called from the method-exit path for a frame popped by the exception in flight. */
void jv_exception_unwind(JNIEnv *env, StackID frame);

#endif
