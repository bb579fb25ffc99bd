/*
 * dispatch.h - delivering one event to the monitors whose masks ask for it.
 *
 * Every JVMTI callback that calls monitors brackets its work with jv_dispatch_begin /
 * jv_dispatch_end: they mark the calling thread as dispatching (so shutdown can wait
 * for callbacks in flight before it releases the monitors) and release the ObjectIDs
 * handed out during the callback.
 */
#ifndef JEVMON_DISPATCH_H
#define JEVMON_DISPATCH_H

#include "monitors.h"
#include "vm.h"

typedef struct jv_dispatch {
    JNIEnv *env;
    unsigned object_mark;
} jv_dispatch;

/* Once, before any callback: finds out whether the system has a process-wide barrier. */
void jv_dispatch_init(void);
void jv_dispatch_begin(jv_dispatch *d, JNIEnv *env);
void jv_dispatch_end(jv_dispatch *d);
/* Non-zero while the calling thread is inside a dispatch. */
int jv_dispatching(void);
/* The calling thread ends: its in-flight counter may serve another thread. */
void jv_dispatch_thread_end(void);
/* Waits (bounded) until no thread is inside a dispatch. */
void jv_dispatch_quiesce(void);

/* Monitors in the table whose mask has any of the bits (the empty branch lets the body have an else). */
#define JV_FOR_EACH_MONITOR(m, bits)                                                          \
    for (size_t jv_i_ = 0; jv_i_ < jv_monitors.count; jv_i_++)                              \
        for (jv_monitor *m = jv_monitors.items[jv_i_]; m; m = NULL)                          \
            if (!(atomic_load_explicit(&m->mask, memory_order_relaxed) & (bits))) {              \
            } else

/* NotifyEvent to every monitor asking for the category. */
void jv_notify(DWORD category, JVM_EVENT_TYPE event, UniqueID id);
/* NotifyEvent2 to every IJavaEventMonitor2 monitor asking for the category. */
void jv_notify2(DWORD category, JVM_EVENT_TYPE2 event, UniqueID first, UniqueID second);

#endif
