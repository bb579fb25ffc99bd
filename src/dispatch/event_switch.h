/*
 * event_switch.h - which JVMTI events are on.  Each JVMTI event is switched on only while
 * some monitor's mask needs it (the table in docs/events.md) or a part of the bridge needs it for
 * itself, so an idle category costs nothing.
 *
 * Below the event handlers and the heap monitor, which say what they need here, and above
 * the monitor table, whose masks it reads: no part that changes a mask or a need has to call
 * up into the file that installs the callbacks (jvmti_setup.c).
 */
#ifndef JEVMON_EVENT_SWITCH_H
#define JEVMON_EVENT_SWITCH_H

#include "jevmon.h"
#include "vm/vm.h"

/* At load time, before any update. */
void jv_switch_init(void);
/*
 * The method-call mechanism (docs/initialization.md, "How method calls are delivered"): non-zero switches method
 * calls from JVMTI MethodEntry/MethodExit to bytecode instrumentation (instrument.c).
 * Chosen in Agent_OnLoad before capabilities are added; never changes afterwards.
 */
void jv_switch_instrument_method_calls(int on);
int jv_switch_method_calls_instrumented(void);
/* The event is also on while needed() says so (asked at every update); said once, at start. */
void jv_switch_also_when(jvmtiEvent event, int (*needed)(void));
/* keep() runs under the update lock just before the JVM-wide MethodEntry/MethodExit go off, so
 * that calls already entered can still exit (specific_regions.c); said once, at start. */
void jv_switch_before_method_events_off(void (*keep)(void));
/* Inside a GC callback, where JVMTI switches nothing: work() runs, then the events are switched,
 * on a thread of the bridge's once the collection is over (one work function in all). */
void jv_switch_after_collection(void (*work)(void));
/* Non-zero while the JVM-wide MethodEntry and MethodExit are both on. */
int jv_switch_method_events_on(void);
/* Called when the union of masks or a need may have changed: switches the JVMTI events. */
void jv_switch_update(void);

#endif
