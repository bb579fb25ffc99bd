/*
 * specific_regions.h - SPECIFIC_METHOD_CALLS on the JVMTI path without turning the JIT off.
 *
 * MethodEntry/MethodExit switched on for the whole JVM put every thread in the interpreter for
 * good.  Instead, each method some monitor enabled (EnableMethodCallEvents) gets a breakpoint at
 * its first bytecode; when a thread reaches one outside any enabled frame, a region opens, as on
 * the instrumented path (instrument.c): the thread's stack is read once, MethodEntry and
 * MethodExit are switched on for that thread alone, so every frame above is counted and true
 * StackIDs given (deliveries stay with the enabled methods), and when the enabled frame exits
 * (returning or popped by an exception) they are switched off again.  Methods called outside
 * enabled frames run compiled; an enabled method runs interpreted (a breakpoint keeps it so).
 *
 * The whole-JVM events stay for what breakpoints cannot do: an enabled native method, a JVM
 * without the breakpoint capability, or EXCEPTION_UNWIND asked for beside (its MethodExit
 * events are the JVM's anyway).  Not used when method calls are instrumented.
 *
 * Known limits: a method whose first bytecode already has another part's breakpoint (the
 * constructors class_failure.c watches) is delivered only inside regions; a jump back to the first
 * bytecode of an enabled frame entered before its method was enabled opens a region as an entry.
 */
#ifndef JEVMON_SPECIFIC_REGIONS_H
#define JEVMON_SPECIFIC_REGIONS_H

#include "ids/method.h"
#include "ids/thread.h"
#include "vm/vm.h"

/* The JVMTI capabilities this needs, added when a monitor may ask for SPECIFIC_METHOD_CALLS. */
void jv_specific_regions_capabilities(jvmtiCapabilities *caps);
/* At VMInit, on the JVMTI path: the whole-JVM method events follow the rule above from now on. */
void jv_specific_regions_start(void);
/* After a monitor's bit of m changed: the breakpoint set or cleared to match (JVMTI path only). */
void jv_specific_regions_method_changed(jv_method *m);
/* A breakpoint: 1 when it is a region's (handled), 0 when it is another part's. */
int jv_specific_regions_breakpoint(JNIEnv *env, jthread thread, jmethodID method, jlocation location);
/*
 * Every call a monitor was given the entry of exits once, whatever is switched meanwhile: the
 * outermost frame whose entry went to a monitor opens a region on its thread too (thread.h's
 * region_base), and when the JVM-wide MethodEntry/MethodExit go off (a mask changed, a native
 * method disabled) each thread inside a region keeps them for itself until that frame exits.
 */
/* A frame whose entry goes to some monitor was just pushed on the calling thread (its shadow
 * stack's top), before the entry is delivered. */
void jv_call_region_entered(jthread thread, jv_thread *t);
/* After each MethodEntry/MethodExit event on the calling thread: closes its region once the
 * region's frame has gone, and with it the thread's own events. */
void jv_call_region_check(jthread thread);

#endif
