/*
 * watch.h - the methods whose runs the bridge itself needs to see, by bytecode rewriting where the
 * JVM can retransform classes: the returns of java.lang.Thread.setName (THREAD_SET_NAME,
 * events/thread_name.h), the entries of the constructors of ClassNotFoundException and
 * NoClassDefFoundError that take the message (CLASS_LOAD_FAILED, events/class_failure.h), and the
 * entries and returns of LockSupport.park, parkNanos and parkUntil with a blocker (lock waits,
 * events/lock_wait.h: JVMTI has no park event).  The
 * rewriter (classfile/classfile.h) gives each of these methods calls to the static natives of
 * jevmon/Watch, the entry call with the method's first parameter (the name, the message, the blocker):
 * breakpoints and JVMTI's access to locals would do the same, but while an agent merely holds
 * either capability HotSpot's C2 keeps every local variable alive in compiled code.
 *
 * The classes are loaded before VMInit, so they are retransformed at start, the ClassFileLoadHook
 * on only meanwhile (unless the method-call instrumentation keeps it on).
 */
#ifndef JEVMON_WATCH_H
#define JEVMON_WATCH_H

#include "jevmon.h"
#include "vm/vm.h"

typedef enum jv_watched {
    JV_WATCH_THREAD_NAMES = 1,   /* Thread.setName */
    JV_WATCH_CLASS_FAILURES = 2, /* the failures' constructors */
    JV_WATCH_PARKS = 4           /* LockSupport's parks with a blocker (events/lock_wait.h) */
} jv_watched;

/* Does the JVM offer what rewriting needs (potential capabilities)? */
int jv_watch_possible(const jvmtiCapabilities *caps);
/* Adds the capabilities rewriting needs. */
void jv_watch_capabilities(jvmtiCapabilities *caps);
/* At VMInit (or the attach): defines jevmon/Watch and retransforms the classes of what (jv_watched
 * bits) for good; returns the bits now watched, each missing one logged. */
unsigned jv_watch_start(JNIEnv *env, unsigned what);
/* The ClassFileLoadHook's part: a watched class rewritten (the class file in *new_data when an
 * earlier part rewrote it, else at data), or left alone. */
void jv_watch_class_file(JNIEnv *env, const char *name, jint length, const unsigned char *data, jint *new_length,
                         unsigned char **new_data);
/* Is the handler at location of method the one the watch injected (it calls exit and rethrows)? */
int jv_watch_is_handler(jmethodID method, jlocation location);

#endif
