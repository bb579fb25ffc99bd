/*
 * class_failure.h - CLASS_LOAD_FAILED: the name of a class that could not be loaded, from the
 * constructors of ClassNotFoundException and NoClassDefFoundError that take the message (the
 * class loaders and the VM construct the failure just before they throw it).  Where the JVM can
 * retransform classes, a call injected at the constructors' entry hands over the message
 * (instrument/watch.c); else breakpoints there read it with JVMTI's local-variable access: while
 * an agent holds either capability, HotSpot's C2 keeps every local variable alive in compiled
 * code (javac: a C2 arena of 162 MB instead of 36 MB, measured).  Not from Exception events:
 * while an agent holds the capability to receive them, HotSpot's compiled code leaves every
 * exception it throws and catches to the runtime, a cost paid by every throw of the program
 * (about 0.2 us a throw, a quarter more processor time for javac), whether or not the event is on.
 */
#ifndef JEVMON_CLASS_FAILURE_H
#define JEVMON_CLASS_FAILURE_H

#include "vm/vm.h"

/* The failures, by the class the constructor belongs to. */
typedef enum jv_class_failure_kind { JV_CLASS_NOT_FOUND, JV_NO_CLASS_DEF_FOUND, JV_NOT_A_CLASS_FAILURE } jv_class_failure_kind;
jv_class_failure_kind jv_class_failure_kind_of(const char *class_name);
/* Is a constructor of that descriptor one that takes the message?  (The others name no class.) */
int jv_class_failure_takes_message(const char *descriptor);

/* The JVMTI capabilities the breakpoints need, added when a monitor may ask for CLASS_LOADS and
 * the JVM cannot retransform classes. */
void jv_class_failures_capabilities(jvmtiCapabilities *caps);
/* At VMInit (or the attach), when a monitor may ask for CLASS_LOADS; with breakpoints, sets them. */
void jv_class_failures_start(JNIEnv *env, int breakpoints);
/* A constructor taking the message runs on thread (NULL: this one), its caller at depth:
 * CLASS_LOAD_FAILED, if the failure is the load's and a monitor asks for CLASS_LOADS. */
void jv_class_failure_constructed(JNIEnv *env, jthread thread, jv_class_failure_kind kind, jstring message,
                                  jint depth);
/* A Breakpoint event: 1 when it was one of the constructors' (CLASS_LOAD_FAILED sent if the
 * failure names its class and a monitor asks for CLASS_LOADS), 0 when it is someone else's. */
int jv_class_failure_breakpoint(JNIEnv *env, jthread thread, jmethodID method);

#endif
