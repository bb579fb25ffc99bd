/*
 * hotspot_flags.h - one of HotSpot's boolean flags turned on from inside the process
 * (hotspot_flags.c), for what JVMTI has no function for.  The sampler uses it for
 * DebugNonSafepoints: AsyncGetCallTrace names the line (and the inlined method) that ran only in
 * code compiled with it, and HotSpot otherwise turns it on only while CompiledMethodLoad events are
 * on, which wake HotSpot's service thread once for every method compiled.
 */
#ifndef JEVMON_HOTSPOT_FLAGS_H
#define JEVMON_HOTSPOT_FLAGS_H

/* Sets the JVM's boolean flag name; 1 when done, 0 when this JVM does not show its flags so
 * (another JVM) or has no such flag. */
int jv_hotspot_flag_on(const char *name);

#endif
