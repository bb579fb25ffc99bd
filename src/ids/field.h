/*
 * field.h - the field table: a FieldID per field of a class, made when the class's fields
 * are first asked for (GetClassFields, StaticClassInformation), not when the class loads,
 * since most profilers never look at fields.
 *
 * A class's fields are registered together, in the order JVMTI GetClassFields lists them
 * (on HotSpot the order of the class file), so they occupy consecutive FieldIDs.  A
 * FieldID expires with its declaring class: its entry is found only while that class
 * is live.
 */
#ifndef JEVMON_FIELD_H
#define JEVMON_FIELD_H

#include "jevmon.h"
#include "vm/vm.h"

typedef struct jv_field {
    jfieldID jfield;
    ClassID class_id; /* the declaring class */
    char *name;       /* as the class file has it */
    char type;        /* the first character of the field's signature: Z B C S I J F D L [ */
    int is_static;
} jv_field;

/* The entry of a field whose class is live, or NULL for an invalid, foreign or stale FieldID. */
jv_field *jv_field_get(FieldID id);

#endif
