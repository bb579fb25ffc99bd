/*
 * lock_wait.c - contended lock waits timed and told to the monitors' IJevmonLockWaitCallback
 * (see lock_wait.h).  Callbacks are read without a lock when a wait ends: one replaced or
 * unregistered stays referenced until shutdown, so a thread still calling it never calls a
 * released object.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "dispatch/dispatch.h"
#include "events/lock_wait.h"
#include "ids/class.h"
#include "platform/platform.h"

#define LOCK_WAIT_MAX_MONITORS 64

static _Atomic(IJevmonLockWaitCallback *) callbacks[LOCK_WAIT_MAX_MONITORS];
static _Atomic ULONGLONG thresholds[LOCK_WAIT_MAX_MONITORS];
static atomic_int callback_count;
static plat_mutex *registry_lock;
static IJevmonLockWaitCallback **retired; /* replaced callbacks, released at shutdown */
static size_t retired_count, retired_capacity;
static int events_on; /* MonitorContendedEnter/Entered; under the registry lock */

/* The blockers that make a park a lock wait: the synchronizers java.util.concurrent's locks,
 * semaphores and latches are built on, and StampedLock (global references, set at start).
 * A Condition's await parks on its ConditionObject: a wait for a signal, as Object.wait is, not
 * for a lock, and is left out. */
static const char *const lock_classes[] = {"java/util/concurrent/locks/AbstractQueuedSynchronizer",
                                           "java/util/concurrent/locks/AbstractQueuedLongSynchronizer",
                                           "java/util/concurrent/locks/StampedLock"};
#define LOCK_CLASSES (sizeof(lock_classes) / sizeof(*lock_classes))
static _Atomic(jclass) lock_class_refs[LOCK_CLASSES];
static _Atomic(jclass) condition_class_ref; /* AbstractQueuedSynchronizer$ConditionObject */

/* A thread's waits in progress: a park may enter a contended monitor on its way (a virtual thread's). */
typedef struct waits {
    uint64_t monitor_started, park_started; /* plat_now_ns; 0: not waiting */
    ClassID monitor_class, park_class;
} waits;

void jv_lock_waits_init(void)
{
    registry_lock = plat_mutex_create();
}

int jv_lock_waits_wanted(void)
{
    return atomic_load_explicit(&callback_count, memory_order_relaxed) > 0;
}

/* MonitorContendedEnter/Entered on while some monitor has a callback; called with the registry lock. */
static void switch_events(void)
{
    int wanted = jv_lock_waits_wanted();
    if (wanted == events_on)
        return;
    jvmtiEventMode mode = wanted ? JVMTI_ENABLE : JVMTI_DISABLE;
    jvmtiError enter = (*jv_jvmti)->SetEventNotificationMode(jv_jvmti, mode, JVMTI_EVENT_MONITOR_CONTENDED_ENTER, NULL);
    jvmtiError entered =
        (*jv_jvmti)->SetEventNotificationMode(jv_jvmti, mode, JVMTI_EVENT_MONITOR_CONTENDED_ENTERED, NULL);
    if (enter != JVMTI_ERROR_NONE || entered != JVMTI_ERROR_NONE)
        jv_log("the JVM refused to switch contended-monitor events %s (JVMTI errors %d, %d)", wanted ? "on" : "off",
               (int)enter, (int)entered);
    else
        events_on = wanted;
}

HRESULT jv_lock_waits_register(struct jv_monitor *m, IJevmonLockWaitCallback *callback, ULONGLONG threshold_ns)
{
    if (!m || m->index >= LOCK_WAIT_MAX_MONITORS || !registry_lock)
        return E_FAIL;
    if (callback) {
        jvmtiCapabilities caps = {0};
        caps.can_generate_monitor_events = 1;
        jvmtiError e = (*jv_jvmti)->AddCapabilities(jv_jvmti, &caps);
        if (e != JVMTI_ERROR_NONE) {
            jv_log("the JVM cannot report contended monitors (JVMTI error %d); NotifyOnLockWaits fails", (int)e);
            return E_FAIL;
        }
        caps.can_generate_monitor_events = 0;
        caps.can_retransform_classes = 1; /* LockSupport rewritten (instrument/watch.h) */
        if ((e = (*jv_jvmti)->AddCapabilities(jv_jvmti, &caps)) != JVMTI_ERROR_NONE)
            jv_log("the JVM cannot retransform classes (JVMTI error %d); parks are not lock waits, only contended "
                   "monitors are", (int)e);
        IJevmonLockWaitCallback_AddRef(callback);
    }
    plat_mutex_lock(registry_lock);
    if (retired_count == retired_capacity) {
        size_t grown = retired_capacity ? retired_capacity * 2 : 8;
        IJevmonLockWaitCallback **bigger = realloc(retired, grown * sizeof(*bigger));
        if (!bigger) {
            plat_mutex_unlock(registry_lock);
            if (callback)
                IJevmonLockWaitCallback_Release(callback);
            return E_OUTOFMEMORY;
        }
        retired = bigger;
        retired_capacity = grown;
    }
    atomic_store(&thresholds[m->index], threshold_ns);
    IJevmonLockWaitCallback *old = atomic_exchange(&callbacks[m->index], callback);
    atomic_fetch_add(&callback_count, (callback != NULL) - (old != NULL));
    if (old)
        retired[retired_count++] = old;
    if (jv_vm_live())
        switch_events();
    plat_mutex_unlock(registry_lock);
    return S_OK;
}

void jv_lock_waits_start(JNIEnv *env)
{
    if (!registry_lock || !jv_lock_waits_wanted())
        return;
    for (size_t i = 0; i < LOCK_CLASSES; i++) {
        jclass k = (*env)->FindClass(env, lock_classes[i]);
        if (!k) {
            (*env)->ExceptionClear(env);
            jv_log("class %s not found; parks on it are not lock waits", lock_classes[i]);
            continue;
        }
        jclass global = (*env)->NewGlobalRef(env, k);
        jclass unset = NULL;
        if (global && !atomic_compare_exchange_strong(&lock_class_refs[i], &unset, global))
            (*env)->DeleteGlobalRef(env, global);
        (*env)->DeleteLocalRef(env, k);
    }
    jclass k = (*env)->FindClass(env, "java/util/concurrent/locks/AbstractQueuedSynchronizer$ConditionObject");
    if (k) {
        jclass global = (*env)->NewGlobalRef(env, k), unset = NULL;
        if (global && !atomic_compare_exchange_strong(&condition_class_ref, &unset, global))
            (*env)->DeleteGlobalRef(env, global);
        (*env)->DeleteLocalRef(env, k);
    } else {
        (*env)->ExceptionClear(env);
    }
    plat_mutex_lock(registry_lock);
    switch_events();
    plat_mutex_unlock(registry_lock);
}

void jv_lock_waits_stop(void)
{
    if (!registry_lock)
        return;
    plat_mutex_lock(registry_lock);
    for (unsigned i = 0; i < LOCK_WAIT_MAX_MONITORS; i++) {
        IJevmonLockWaitCallback *old = atomic_exchange(&callbacks[i], NULL);
        if (old)
            IJevmonLockWaitCallback_Release(old);
    }
    atomic_store(&callback_count, 0);
    switch_events();
    for (size_t i = 0; i < retired_count; i++)
        IJevmonLockWaitCallback_Release(retired[i]);
    free(retired);
    retired = NULL;
    retired_count = retired_capacity = 0;
    plat_mutex_unlock(registry_lock);
}

/* The calling thread's record of its waits, made when new; NULL when it cannot be had. */
static waits *own_waits(int make)
{
    void *data = NULL;
    if ((*jv_jvmti)->GetThreadLocalStorage(jv_jvmti, NULL, &data) != JVMTI_ERROR_NONE)
        return NULL;
    if (data || !make)
        return data;
    waits *w = calloc(1, sizeof(*w));
    if (w && (*jv_jvmti)->SetThreadLocalStorage(jv_jvmti, NULL, w) != JVMTI_ERROR_NONE) {
        free(w);
        w = NULL;
    }
    return w;
}

/* Forgets the record once neither wait is in progress: a thread keeps nothing between waits. */
static void drop_waits(waits *w)
{
    if (w->monitor_started || w->park_started)
        return;
    if ((*jv_jvmti)->SetThreadLocalStorage(jv_jvmti, NULL, NULL) == JVMTI_ERROR_NONE)
        free(w);
}

/* Tells a wait that is over to every monitor whose threshold it reaches, on the thread that waited. */
static void tell(JNIEnv *env, DWORD kind, ClassID lock_class, uint64_t started)
{
    uint64_t now = plat_now_ns();
    ULONGLONG waited = now > started ? now - started : 0;
    jv_dispatch d;
    jv_dispatch_begin(&d, env);
    for (size_t i = 0; i < jv_monitors.count && i < LOCK_WAIT_MAX_MONITORS; i++) {
        IJevmonLockWaitCallback *callback = atomic_load_explicit(&callbacks[i], memory_order_acquire);
        if (callback && waited >= atomic_load_explicit(&thresholds[i], memory_order_relaxed) &&
            atomic_load_explicit(&jv_monitors.items[i]->phase, memory_order_relaxed) == JV_PHASE_RUNNING)
            IJevmonLockWaitCallback_OnLockWait(callback, kind, lock_class, waited);
    }
    jv_dispatch_end(&d);
}

/* The ClassID of object's class; 0 when it has none. */
static ClassID class_of(JNIEnv *env, jobject object)
{
    jclass k = (*env)->GetObjectClass(env, object);
    ClassID id = k ? jv_class_id(env, k) : 0;
    if (k)
        (*env)->DeleteLocalRef(env, k);
    return id;
}

void JNICALL jv_on_monitor_contended_enter(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jobject object)
{
    (void)jvmti, (void)thread;
    waits *w = jv_lock_waits_wanted() ? own_waits(1) : NULL;
    if (!w)
        return;
    w->monitor_class = class_of(env, object);
    w->monitor_started = plat_now_ns();
}

/* Ends the calling thread's wait of kind (its start in *started, 0: none, as when the wait began
 * before the events went on) and tells it. */
static void end_wait(JNIEnv *env, DWORD kind)
{
    waits *w = own_waits(0);
    uint64_t *started = !w ? NULL : kind == JEVMON_LOCK_WAIT_PARK ? &w->park_started : &w->monitor_started;
    if (!started || !*started)
        return;
    uint64_t start = *started;
    ClassID lock_class = kind == JEVMON_LOCK_WAIT_PARK ? w->park_class : w->monitor_class;
    *started = 0;
    drop_waits(w);
    if (jv_lock_waits_wanted())
        tell(env, kind, lock_class, start);
}

void JNICALL jv_on_monitor_contended_entered(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jobject object)
{
    (void)jvmti, (void)thread, (void)object;
    end_wait(env, JEVMON_LOCK_WAIT_MONITOR);
}

/* Is blocker one of the lock classes' instances (and no ConditionObject)? */
static int is_lock(JNIEnv *env, jobject blocker)
{
    jclass condition = atomic_load_explicit(&condition_class_ref, memory_order_relaxed);
    if (condition && (*env)->IsInstanceOf(env, blocker, condition))
        return 0;
    for (size_t i = 0; i < LOCK_CLASSES; i++) {
        jclass k = atomic_load_explicit(&lock_class_refs[i], memory_order_relaxed);
        if (k && (*env)->IsInstanceOf(env, blocker, k))
            return 1;
    }
    return 0;
}

void jv_lock_wait_park_started(JNIEnv *env, jobject blocker)
{
    if (!blocker || !jv_lock_waits_wanted() || !is_lock(env, blocker))
        return;
    waits *w = own_waits(1);
    if (!w)
        return;
    w->park_class = class_of(env, blocker);
    w->park_started = plat_now_ns();
}

void jv_lock_wait_park_ended(JNIEnv *env)
{
    end_wait(env, JEVMON_LOCK_WAIT_PARK);
}
