/*
 * class.h - the class table: every class the bridge has seen gets a ClassID.
 *
 * A class is registered when it is prepared (or found loaded at VM start); its mirror
 * is tagged with its ClassID so a jclass finds its entry again, and the entry keeps a
 * weak reference so the table does not keep classes alive.  MethodIDs of the class's
 * methods are registered at the same time.
 */
#ifndef JEVMON_CLASS_H
#define JEVMON_CLASS_H

#include <stdatomic.h>

#include "jevmon.h"
#include "vm/vm.h"

typedef enum jv_class_state {
    JV_CLASS_LIVE,
    JV_CLASS_UNLOADING, /* gone from the JVM; its CLASS_UNLOAD is being delivered, the ID still answers */
    JV_CLASS_UNLOADED   /* the ID has expired */
} jv_class_state;

typedef struct jv_class {
    jweak mirror;         /* weak global reference to the java.lang.Class */
    char *signature;      /* JVM signature as the class file has it, e.g. "Ljava/lang/String;" */
    char *source_file;    /* SourceFile attribute, or NULL */
    MethodID *methods;    /* the class's own methods */
    unsigned method_count;
    _Atomic int state;    /* jv_class_state */
    _Atomic long long objects_created;
} jv_class;

void jv_classes_init(void);
void jv_classes_destroy(void);

/* The ClassID of klass, registering it (and its methods) when new; 0 on failure. */
ClassID jv_class_id(JNIEnv *env, jclass klass);
/* A class loaded before the bridge started: registered now (jv_class_id) when it may unload, for its
 * CLASS_UNLOAD needs its tag; one that never unloads only has its jmethodIDs made, which
 * AsyncGetCallTrace's frames need, and is registered at its first use. */
void jv_class_loaded_before(JNIEnv *env, jclass klass);
/* The entry of a live class, or NULL for an invalid, foreign or unloaded ClassID. */
jv_class *jv_class_get(ClassID id);
/* Marks a class whose mirror was freed: CLASS_UNLOAD is due (called inside GC: no JNI). */
void jv_class_unloading(ClassID id);
/* The classes marked unloading since the last call (the caller frees the array), which stay
 * valid until each is passed to jv_class_unloaded: the ID then expires, its mirror is released. */
ClassID *jv_classes_take_unloading(size_t *count);
void jv_class_unloaded(JNIEnv *env, ClassID id);
/* A local reference to the class, or NULL; the caller deletes it. */
jclass jv_class_local(JNIEnv *env, jv_class *c);

/* This concern's methods of the IJavaEventMonitorIDInfo objects (their vtables: idinfo/idinfo.c). */
HRESULT STDMETHODCALLTYPE idinfo_ClassInformation(IJavaEventMonitorIDInfo4 *iface, ClassID class_id, LPSTR *ppclass_name, LPSTR *ppsource_file_name, int *pmethods, MethodID **ppmethod_ids, __int64 *pobjects_created);
HRESULT STDMETHODCALLTYPE idinfo_ClassInformation2(IJavaEventMonitorIDInfo4 *iface, ClassID class_id, ClassID *psuperclass, ClassID **ppinterfaces, unsigned int *pinterfaces_length, MethodID **ppimplemented_methods, unsigned int *pimplemented_methods_length);

#endif
