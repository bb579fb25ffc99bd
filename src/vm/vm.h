/*
 * vm.h - the JVM this agent runs in: its JVMTI environment, JNI access from any
 * thread, and the phase of its life.
 */
#ifndef JEVMON_VM_H
#define JEVMON_VM_H

#include <stdatomic.h>

#include <jni.h>
#include <jvmti.h>

#include "jevmon.h"

extern JavaVM *jv_vm;
extern jvmtiEnv *jv_jvmti; /* NULL when no JVM is present (the test host) */

/* Non-zero in the live phase (between VMInit and VMDeath); read inline by the method-call path. */
extern atomic_int jv_vm_live_flag;
static inline int jv_vm_live(void)
{
    return atomic_load_explicit(&jv_vm_live_flag, memory_order_acquire);
}
void jv_vm_set_live(int live);

/*
 * The calling thread's JNIEnv.  A native thread of a monitor that calls into IDInfo is
 * attached as a daemon on first use.  NULL when there is no live VM, or on a thread
 * that is inside a garbage-collection callback, where JNI must not be used.
 */
JNIEnv *jv_jni(void);

/* Marks the calling thread as inside a GC callback (JNI and most JVMTI forbidden). */
void jv_vm_enter_gc_callback(void);
void jv_vm_leave_gc_callback(void);
/* Non-zero inside a GC callback on the calling thread (JVMTI and JNI mostly forbidden). */
int jv_vm_in_gc_callback(void);

/* Copies a NUL-terminated string into CoTaskMem; NULL when out of memory. */
char *jv_cotask_strdup(const char *s);

/* A symbol the JVM's library exports (AsyncGetCallTrace, HotSpot's tables), or NULL: none, or no JVM. */
void *jv_jvm_symbol(const char *name);

#endif
