/*
 * lock_wait.h - contended lock waits (IJevmonLockWaits, docs/lock-waits.md): each monitor's
 * registered IJevmonLockWaitCallback and threshold (the COM object that registers them is
 * idinfo/lock_waits.c's), and the waits themselves.  A contended synchronized enter is JVMTI's
 * MonitorContendedEnter to MonitorContendedEntered; a park on a java.util.concurrent lock is
 * LockSupport.park/parkNanos/parkUntil with a blocker, rewritten by instrument/watch.c to call
 * jv_lock_wait_park_started and _ended (JVMTI has no park event).  Each wait is timed on the
 * thread that waits, in a record kept in the JVMTI thread-local storage of that thread (a virtual
 * thread's own, so a wait survives the thread moving to another carrier), and told to the
 * callbacks on that thread when it is over, while its stack is still at the wait.
 */
#ifndef JEVMON_LOCK_WAIT_H
#define JEVMON_LOCK_WAIT_H

#include "jevmon.h"
#include "vm/vm.h"

/* At load: the lock that guards the registrations. */
void jv_lock_waits_init(void);
/* Registers m's callback (NULL unregisters; the old one is kept until shutdown) and its
 * threshold; the JVMTI capability and events switched as needed.  E_FAIL when the JVM cannot
 * report contended monitors. */
struct jv_monitor;
HRESULT jv_lock_waits_register(struct jv_monitor *m, IJevmonLockWaitCallback *callback, ULONGLONG threshold_ns);
/* Does any monitor have a lock-wait callback? */
int jv_lock_waits_wanted(void);
/* At VMInit (or the attach), and at a registration while the VM lives: the classes of the blockers
 * that are locks (the parks are watched by the caller: instrument/watch.h). */
void jv_lock_waits_start(JNIEnv *env);
/* VMDeath: the events off and every callback released. */
void jv_lock_waits_stop(void);

/* The JVMTI callbacks. */
void JNICALL jv_on_monitor_contended_enter(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jobject object);
void JNICALL jv_on_monitor_contended_entered(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jobject object);

/* From the rewritten LockSupport (watch.c): the current thread parks on blocker; it is back. */
void jv_lock_wait_park_started(JNIEnv *env, jobject blocker);
void jv_lock_wait_park_ended(JNIEnv *env);

#endif
