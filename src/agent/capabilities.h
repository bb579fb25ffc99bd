/*
 * capabilities.h - the JVMTI capabilities the bridge asks for, by name: what this JVM
 * can grant, and which ones the monitors' categories would use but cannot have.
 */
#ifndef JEVMON_CAPABILITIES_H
#define JEVMON_CAPABILITIES_H

#include "jevmon.h"
#include "vm/vm.h"

/* Keeps in caps only what also is in allowed. */
void jv_capabilities_intersect(jvmtiCapabilities *caps, const jvmtiCapabilities *allowed);
/*
 * One "jevmon:" line for each capability that the given categories would use (with the
 * method-call mechanism chosen) and that is not in potential, naming the categories that use
 * it.  late: the agent was loaded into a running JVM, where HotSpot withholds the capabilities
 * it grants only at start-up.
 */
void jv_capabilities_announce_missing(DWORD categories, const jvmtiCapabilities *potential, int late);

#endif
