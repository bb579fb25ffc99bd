/*
 * unload.h - CLASS_UNLOAD.  JVMTI has no class-unload event, but a class's mirror is
 * freed when the class is unloaded, and the mirror carries its ClassID as a tag: the
 * ObjectFree event names it.  ObjectFree runs inside the collector, where neither JNI
 * nor the monitors (who would query the class) may run, so a small thread of the
 * agent delivers CLASS_UNLOAD shortly after.
 */
#ifndef JEVMON_UNLOAD_H
#define JEVMON_UNLOAD_H

#include "vm/vm.h"

void JNICALL jv_on_object_free(jvmtiEnv *jvmti, jlong tag);
/* Starts the delivering thread (at VMInit). */
void jv_unloads_start(void);
/* Delivers what is pending and stops the thread (at VMDeath). */
void jv_unloads_stop(void);

#endif
