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

/* This concern's methods of the IJavaEventMonitorIDInfo objects (their vtables: idinfo/idinfo.c). */
HRESULT STDMETHODCALLTYPE idinfo_FieldInformation(IJavaEventMonitorIDInfo4 *iface, FieldID field_id, LPSTR *pname, DWORD *pflags);
HRESULT STDMETHODCALLTYPE idinfo_GetClassFields(IJavaEventMonitorIDInfo4 *iface, ClassID class_id, unsigned *pnfields, FieldID **ppfield_ids);
HRESULT STDMETHODCALLTYPE idinfo_GetObjectField(IJavaEventMonitorIDInfo4 *iface, ObjectID object_id, FieldID field_id, __int64 *pvalue);
HRESULT STDMETHODCALLTYPE idinfo_StaticClassInformation(IJavaEventMonitorIDInfo4 *iface, ClassID class_id, DWORD *pStaticDataSize, DWORD *pInstanceSize);

#endif
