/*
 * events.h - JVMTI events in, monitor callbacks out.
 *
 * jv_events_setup installs every JVMTI callback at load time; jv_events_update (see
 * monitors.h) switches each JVMTI event on only while some monitor's mask needs it, so
 * an idle category costs nothing.  The mapping from categories to JVMTI events is the
 * table in README.md.
 */
#ifndef JEVMON_EVENTS_H
#define JEVMON_EVENTS_H

#include "jevmon.h"
#include "vm.h"

/* The JVMTI capabilities needed to deliver the given categories. */
void jv_events_capabilities(DWORD categories, jvmtiCapabilities *caps);
/* The categories the capabilities make deliverable. */
DWORD jv_events_deliverable(const jvmtiCapabilities *caps);
/* Installs the callbacks (VMInit and VMDeath always on). */
int jv_events_setup(void);

/* Bytecode and source-line events (event_step.c). */
void JNICALL jv_on_single_step(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method, jlocation location);

/* Method-call events, from JVMTI (event_method.c). */
void JNICALL jv_on_method_entry(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method);
void JNICALL jv_on_method_exit(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method,
                               jboolean was_popped_by_exception, jvalue return_value);

#endif
