/*
 * object.h - ObjectIDs: handles to Java objects that are valid only inside the callback
 * that supplied them.  A thread outside any callback (a monitor's own thread) keeps the
 * last JV_OBJECTS_OUTSIDE_CALLBACKS it was handed; older ones expire, as the reference
 * lets ObjectIDs change at any garbage collection.
 *
 * Each ObjectID names a slot holding a weak global reference; the slot's generation is
 * part of the ID, so an ID whose slot was released and reused decodes as stale.  Slots
 * taken during a callback are released when the callback returns.  Resolving and
 * releasing take one lock, so a garbage ID that happens to name another thread's slot
 * cannot race that slot's release.
 */
#ifndef JEVMON_OBJECT_H
#define JEVMON_OBJECT_H

#include "jevmon.h"
#include "vm/vm.h"

#define JV_OBJECTS_OUTSIDE_CALLBACKS 4096

void jv_objects_init(void);
void jv_objects_destroy(void);

/* An ObjectID for obj, valid until jv_objects_release_scope() on this thread; 0 for NULL or failure. */
ObjectID jv_object_id(JNIEnv *env, jobject obj);
/* A local reference to the object, or NULL for an invalid, stale or collected ObjectID. */
jobject jv_object_local(JNIEnv *env, ObjectID id);
/* How many ObjectID slots this thread holds (object.c's count, read inline: every callback
 * checks it, and most take none). */
extern _Thread_local unsigned jv_objects_taken;
/* How many callback scopes this thread is inside: outside any, it keeps only its last few ObjectIDs. */
extern _Thread_local unsigned jv_objects_scopes;

/* Marks where a callback's ObjectIDs begin; returns the mark for jv_objects_end_scope. */
static inline unsigned jv_objects_scope(void)
{
    jv_objects_scopes++;
    return jv_objects_taken;
}

/* Releases the ObjectIDs this thread took since mark. */
void jv_objects_release_scope(JNIEnv *env, unsigned mark);

/* The end of a callback's scope: releases what it took, and costs one test when it took nothing. */
static inline void jv_objects_end_scope(JNIEnv *env, unsigned mark)
{
    jv_objects_scopes--;
    if (jv_objects_taken > mark)
        jv_objects_release_scope(env, mark);
}

/* This concern's methods of the IJavaEventMonitorIDInfo objects (their vtables: idinfo/idinfo.c). */
HRESULT STDMETHODCALLTYPE idinfo_GetMonitorUsage(IJavaEventMonitorIDInfo4 *iface, ObjectID object_id, ThreadID *powner_thread, unsigned *pentry_count, unsigned *pwaiter_count);
HRESULT STDMETHODCALLTYPE idinfo_ObjectInformation(IJavaEventMonitorIDInfo4 *iface, ObjectID object_id, ClassID *pclass_id);
HRESULT STDMETHODCALLTYPE idinfo_DescribeObject(IJavaEventMonitorIDInfo4 *iface, ObjectID object_id, LPWSTR *pdescr);
HRESULT STDMETHODCALLTYPE idinfo_FreeHandlesToObjects(IJavaEventMonitorIDInfo4 *iface, unsigned int nhandles, ObjectHandleID *pobject_handles);
HRESULT STDMETHODCALLTYPE idinfo_GetArrayElement(IJavaEventMonitorIDInfo4 *iface, ObjectID object_id, unsigned index, __int64 *pvalue);
HRESULT STDMETHODCALLTYPE idinfo_GetHandlesToObjects(IJavaEventMonitorIDInfo4 *iface, unsigned nobjects, ObjectID *pobject_ids, ObjectHandleID *pobject_handles);
HRESULT STDMETHODCALLTYPE idinfo_GetObjectSize(IJavaEventMonitorIDInfo4 *iface, ObjectID object_id, DWORD *psize);
HRESULT STDMETHODCALLTYPE idinfo_GetObjectsFromHandles(IJavaEventMonitorIDInfo4 *iface, unsigned nhandles, ObjectHandleID *pobject_handles, ObjectID *pobject_ids);
HRESULT STDMETHODCALLTYPE idinfo_GetSpecialClassProperties(IJavaEventMonitorIDInfo4 *iface, unsigned *pnspecial_classes, ClassID **ppclass_ids, DWORD **ppclass_flags);

#endif
