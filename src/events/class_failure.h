/*
 * class_failure.h - CLASS_LOAD_FAILED: the name of a class that could not be loaded, from
 * breakpoints at the constructors of ClassNotFoundException and NoClassDefFoundError (the class
 * loaders and the VM construct the failure just before they throw it).  Not from Exception
 * events: while an agent holds the capability to receive them, HotSpot's compiled code leaves
 * every exception it throws and catches to the runtime, a cost paid by every throw of the
 * program (about 0.2 us a throw, a quarter more processor time for javac), whether or not the
 * event is on.
 */
#ifndef JEVMON_CLASS_FAILURE_H
#define JEVMON_CLASS_FAILURE_H

#include "vm/vm.h"

/* The JVMTI capabilities this needs, added when a monitor may ask for CLASS_LOADS. */
void jv_class_failures_capabilities(jvmtiCapabilities *caps);
/* At VMInit (or the attach), when a monitor may ask for CLASS_LOADS: sets the breakpoints. */
void jv_class_failures_start(JNIEnv *env);
/* A Breakpoint event: 1 when it was one of the constructors' (CLASS_LOAD_FAILED sent if the
 * failure names its class and a monitor asks for CLASS_LOADS), 0 when it is someone else's. */
int jv_class_failure_breakpoint(JNIEnv *env, jthread thread, jmethodID method);

#endif
