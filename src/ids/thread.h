/*
 * thread.h - the thread table: a ThreadID per Java thread, and each thread's shadow
 * of its Java call stack for method-call events.
 *
 * A thread finds its own entry through a thread-local pointer, so the method-call path
 * takes no lock.  Other threads' entries are found by the tag on the Thread object: its ThreadID.
 * The shadow stack (MethodIDs by depth) is touched only by its own thread; it is
 * re-read from the JVM whenever method-call events were off in between (sync_epoch).
 *
 * Virtual threads (JDK 21+) are Java threads with entries of their own.  The thread-local
 * pointer names the Java thread mounted on the OS thread: the virtual thread while one is
 * mounted, the OS thread's own (platform) entry otherwise; jv_thread_mount/unmount switch
 * it when the JVM mounts and unmounts one (vthread.c), so the method-call path stays
 * as it was and a virtual thread's shadow stack moves with it from carrier to carrier.
 * An ended thread's entry, virtual or platform, is released (its frames, name and reference
 * freed) and its index reused, oldest first, by a later thread: the table holds at most the
 * threads alive at once, however many come and go.
 */
#ifndef JEVMON_THREAD_H
#define JEVMON_THREAD_H

#include <stdatomic.h>
#include <stdint.h>

#include "jevmon.h"
#include "vm/vm.h"

typedef struct jv_thread {
    uint32_t index;
    jweak ref;
    DWORD os_tid;          /* 0 when not known (threads started before the agent) */
    _Atomic int alive;
    _Atomic int announced; /* THREAD_CREATE went out (ThreadStart, or the attach's list of live threads) */
    /* Shadow stack: frames[d - 1] is the MethodID at depth d (1 = outermost); given[d - 1] the
     * method-call receivers its entry went to (dispatch/method_calls.h), whom its exit goes to. */
    MethodID *frames;
    uint32_t *given;
    uint32_t depth, capacity;
    unsigned sync_epoch;   /* the method-event epoch the shadow stack is valid for */
    /* A region: every call above the depth it names is counted on the shadow stack, 0 when none.
     * Instrumented SPECIFIC_METHOD_CALLS (instrument.c): the outermost frame of an enabled method.
     * JVMTI events (specific_regions.h): the outermost frame whose entry a monitor was given,
     * so that the thread's MethodExit events stay on until it exits.  Read by other threads. */
    _Atomic uint32_t region_base;
    _Atomic int own_call_events; /* JVMTI MethodEntry/MethodExit are on for this thread alone */
    char *last_name;       /* the name last seen (thread_name.c) */
    uint8_t is_virtual;    /* a virtual thread: no OS thread of its own */
    /* While a virtual thread is mounted: on its entry, the carrier's; on the carrier's, its own. */
    struct jv_thread *_Atomic mounted_with;
    uint32_t next_free;    /* released virtual threads' entries, oldest first (thread.c) */
} jv_thread;

void jv_threads_init(void);
void jv_threads_destroy(void);

/* The calling thread's entry once known (thread.c's, read inline by the method-call path). */
extern _Thread_local jv_thread *jv_thread_self;
/* Finds, and registers when new, the calling thread's entry; thread may be NULL (then looked up). */
jv_thread *jv_thread_register_current(JNIEnv *env, jthread thread);

/* The calling thread's entry, registering it when new; thread may be NULL (then looked up). */
static inline jv_thread *jv_thread_current(JNIEnv *env, jthread thread)
{
    return jv_thread_self ? jv_thread_self : jv_thread_register_current(env, thread);
}
/* The entry of any thread object, registering it when new. */
jv_thread *jv_thread_of(JNIEnv *env, jthread thread);
/* The entry of a live thread, or NULL for an invalid, foreign or destroyed ThreadID. */
jv_thread *jv_thread_get(ThreadID id);
/* A local reference to the entry's thread; NULL once the thread ended (its entry may be reused:
 * the reference is not read while jv_thread_release deletes it). */
jthread jv_thread_local_ref(JNIEnv *env, jv_thread *t);
ThreadID jv_thread_id(const jv_thread *t);

/* Virtual threads.  At VMInit: finds out whether the JVM has them (JDK 21+). */
void jv_threads_start(JNIEnv *env);
/* Non-zero when thread is a virtual thread (always 0 before JDK 21). */
int jv_thread_is_virtual(JNIEnv *env, jthread thread);
/* The virtual thread starts or continues on the calling (carrier) OS thread: its entry,
 * registered when new, becomes the calling thread's; returns it (NULL when it cannot be had). */
jv_thread *jv_thread_mount(JNIEnv *env, jthread vthread);
/* The mounted virtual thread leaves: the carrier's own entry is the calling thread's again. */
void jv_thread_unmount(void);
/* The thread ended (after THREAD_DESTROY): releases its entry; a virtual thread is unmounted,
 * a platform thread's (the calling thread's) entry is its own no more. */
void jv_thread_release(JNIEnv *env, jv_thread *t, jthread thread);
/*
 * A virtual thread's own frames start above its continuation's: Continuation.enter, enter0 and
 * the wrapper that starts the thread, code the JVM runs while it mounts and unmounts the thread,
 * which Thread.getStackTrace does not show either.  The virtual thread's depth 1 is the frame
 * above them (VirtualThread.run).
 */
/* Is the class (internal name) one whose code runs in the JVM's mount and unmount transitions? */
int jv_thread_mount_transition_class(const char *internal_name);
/* How many of the thread's outermost frames are its continuation's (0 for a platform thread). */
jint jv_thread_base_frames(JNIEnv *env, jthread thread, const jv_thread *t);

/* Method-call epochs: bumped whenever method-call events are switched on (read inline). */
extern atomic_uint jv_method_epoch;
void jv_threads_new_epoch(void);
static inline unsigned jv_threads_epoch(void)
{
    return atomic_load_explicit(&jv_method_epoch, memory_order_relaxed);
}
/* Re-reads the calling thread's stack into its shadow; extra = frames the JVM shows that the shadow must not count yet.
 * The frames the shadow held with the same methods at the same depths, from the outermost up to
 * the first that differs, keep the receivers their entries went to; the others went to none. */
int jv_thread_sync_stack(JNIEnv *env, jthread thread, jv_thread *t, int extra);
/* Grows the shadow stack by at least one frame; 0 when out of memory. */
int jv_thread_grow(jv_thread *t);

/* Pushes a frame whose entry went to no receiver yet. */
static inline int jv_thread_push(jv_thread *t, MethodID method)
{
    uint32_t depth = t->depth; /* read once: the stores below could alias it */
    if (depth == t->capacity && !jv_thread_grow(t))
        return 0;
    t->given[depth] = 0;
    t->frames[depth] = method;
    t->depth = depth + 1;
    return 1;
}
/* Calls fn for every live thread's entry (not under a lock: an entry may be ending meanwhile). */
void jv_threads_each(void (*fn)(jv_thread *t, void *arg), void *arg);

/* This concern's methods of the IJavaEventMonitorIDInfo objects (their vtables: idinfo/idinfo.c). */
HRESULT STDMETHODCALLTYPE idinfo_GetCurrentThread(IJavaEventMonitorIDInfo4 *iface, ThreadID *pthread_id);
HRESULT STDMETHODCALLTYPE idinfo_ThreadInformation(IJavaEventMonitorIDInfo4 *iface, ThreadID thread_id, DWORD *pwin32_thread_id);

#endif
