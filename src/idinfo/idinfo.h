/*
 * idinfo.h - the IJavaEventMonitorIDInfo object (versions 1 to 4) each monitor is given.
 *
 * One object per monitor, because the event mask and the initialization options are
 * per monitor.  It is free-threaded: any thread may call it at any time.  The methods
 * that query the VM live in the files of their concern (class.c, method.c, thread.c,
 * stack.c, object.c, field.c, the samplers), each declared in its concern's header.
 */
#ifndef JEVMON_IDINFO_H
#define JEVMON_IDINFO_H

#include "jevmon.h"

struct jv_monitor;
typedef struct jv_idinfo jv_idinfo;

jv_idinfo *jv_idinfo_create(struct jv_monitor *owner);
/* Detaches the object from its monitor and drops the bridge's reference. */
void jv_idinfo_release(jv_idinfo *info);
IJavaEventMonitorIDInfo *jv_idinfo_interface(jv_idinfo *info);

/* This concern's methods of the IJavaEventMonitorIDInfo objects (their vtables: idinfo/idinfo.c). */
HRESULT STDMETHODCALLTYPE idinfo_GetClassPath(IJavaEventMonitorIDInfo4 *iface, LPSTR *ppszClassPath);
HRESULT STDMETHODCALLTYPE idinfo_GetStackTrace(IJavaEventMonitorIDInfo4 *iface, ThreadID thread_id);
HRESULT STDMETHODCALLTYPE idinfo_EnableMethodCallEvents(IJavaEventMonitorIDInfo4 *iface, ObjectID unique_id, JVM_ID_TYPE idtype, JVM_METHOD_CALL_EVENTS_DISPOSITION disposition);

#endif
