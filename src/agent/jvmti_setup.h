/*
 * jvmti_setup.h - the JVMTI side of the agent: the capabilities the categories need, the
 * callback table, the start of everything once the VM is up, and the end at VMDeath.
 */
#ifndef JEVMON_JVMTI_SETUP_H
#define JEVMON_JVMTI_SETUP_H

#include "jevmon.h"
#include "vm/vm.h"

/* What the JVM can grant (GetPotentialCapabilities), told once before the capabilities are
 * chosen: where it can retransform classes, THREADS and CLASS_LOADS need no breakpoints. */
void jv_setup_set_potential(const jvmtiCapabilities *potential);
/* The JVMTI capabilities needed to deliver the given categories. */
void jv_setup_capabilities(DWORD categories, jvmtiCapabilities *caps);
/* The categories the capabilities make deliverable. */
DWORD jv_setup_deliverable(const jvmtiCapabilities *caps);
/* Installs the callbacks (VMInit and VMDeath always on). */
int jv_setup_events(void);
/* The VM is up: INITIALIZED, instrumentation, the code map, events on.  At VMInit, or at once
 * when the agent is loaded into a running JVM (attached: live threads get THREAD_CREATE). */
void jv_setup_start_live(JNIEnv *env, jthread thread, int attached);

#endif
