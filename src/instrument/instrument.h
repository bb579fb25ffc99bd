/*
 * instrument.h - method calls by bytecode instrumentation.
 *
 * When the monitors allow it (docs/initialization.md, "Initialization options"), every class file is
 * rewritten by the class-file instrumenter (classfile/classfile.h) to call the bridge
 * class jevmon/Bridge: static native enter(int) on entry and exit(int) on every exit,
 * the int naming the method.  The natives feed the same shadow-stack and dispatch code
 * as the JVMTI MethodEntry/MethodExit callbacks (method_call.c), so monitors see the
 * same MethodIDs, StackIDs and pairing without HotSpot leaving compiled code.
 */
#ifndef JEVMON_INSTRUMENT_H
#define JEVMON_INSTRUMENT_H

#include <stdint.h>

#include "classfile/classfile.h"
#include "jevmon.h"
#include "vm/vm.h"

/* Adds the capabilities instrumentation needs. */
void jv_instrument_capabilities(jvmtiCapabilities *caps);
/* Do the capabilities allow instrumentation? */
int jv_instrument_possible(const jvmtiCapabilities *caps);
/* At VMInit: defines the bridge class, binds its natives, turns the class-file hook on and
 * retransforms the classes loaded so far.  0 when the bridge could not be set up. */
int jv_instrument_start(JNIEnv *env);
/* Non-zero once the bridge is in place: every class file goes through the hook. */
int jv_instrument_active(void);
/* The ClassFileLoadHook's part: the class rewritten into JVMTI-allocated memory, or left alone. */
void jv_instrument_class_file(JNIEnv *env, const char *name, jint length, const unsigned char *data, jint *new_length,
                              unsigned char **new_data);
/*
 * The flag array (instrument_flags.c): jevmon.Bridge.on, one byte per method int; the
 * injected code calls the bridge only while its byte is set.  start binds the field and
 * installs a first array; cover makes room for method ints below count (called before a
 * rewritten class can run); clear and raise change one method's byte.
 */
int jv_instrument_flags_start(JNIEnv *env, jclass bridge, const char *name, const char *descriptor);
int jv_instrument_flags_cover(JNIEnv *env, uint32_t count);
void jv_instrument_flag_clear(JNIEnv *env, uint32_t n);
void jv_instrument_flag_raise(JNIEnv *env, uint32_t n);
/* Regions (instrument.c): while at least one has begun and not ended, every method's calls reach
 * the bridge (an array with every byte set is in the field); then the array of the bytes clear and
 * raise keep is back.  counting: non-zero while the all-set array is in the field. */
void jv_instrument_flags_region_begin(JNIEnv *env);
void jv_instrument_flags_region_end(JNIEnv *env);
int jv_instrument_flags_counting(void);
/* Defines a class of static natives with the boot loader (name: internal form), binds them, lets
 * the module of the class reader (internal form) read it, or every named module when reader is
 * NULL, and hides its frames from monitors (jv_rewrite_hide_bridge_method); NULL, logged with what
 * is lost, when it cannot. */
jclass jv_instrument_define_bridge(JNIEnv *env, const char *name, const unsigned char *bytes, size_t size,
                                   const JNINativeMethod *natives, jint count, const char *reader, const char *lost);
/* Hands a rewritten class file (malloc'd, freed here) to the ClassFileLoadHook's out parameters. */
void jv_instrument_hand_over(uint8_t *out, size_t out_size, jint *new_length, unsigned char **new_data);
/* Is the handler at location of method one the instrumenter injected (it calls exit and rethrows)?
 * is_handler: for the method-call instrumentation (0 while it is off); handler_at: for any rewrite. */
int jv_instrument_is_handler(jmethodID method, jlocation location);
int jv_instrument_handler_at(jmethodID method, jlocation location);

#endif
