/*
 * value.h - a Java value as the profiling API hands it out: widened to __int64.
 *
 * boolean is 0 or 1, byte, short, int and long are sign-extended, char is zero-extended;
 * float and double are their IEEE 754 bit patterns (a float's 32 bits zero-extended), so
 * no value loses precision; a reference is an ObjectID, 0 for null.
 */
#ifndef JEVMON_VALUE_H
#define JEVMON_VALUE_H

#include "jevmon.h"
#include "vm/vm.h"

/* type is the first character of the value's JVM signature: Z B C S I J F D L [. */
__int64 jv_value_widen(JNIEnv *env, char type, jvalue v);
/* Non-zero when a value of this signature type is a reference. */
int jv_type_is_reference(char type);

#endif
