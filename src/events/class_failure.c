/*
 * class_failure.c - CLASS_LOAD_FAILED from the failures' constructors (see class_failure.h).
 *
 * One failed load is one event.  When the VM itself loads a class (new, a field or method of
 * it, a cast) and the loader answers with a ClassNotFoundException, the VM throws a
 * NoClassDefFoundError naming the same class, right after, on the same thread: that second
 * failure is the same load's, so it is not sent again.
 */
#include <stdlib.h>
#include <string.h>

#include "dispatch/dispatch.h"
#include "events/class_failure.h"
#include "platform/platform.h"

enum { CLASS_NOT_FOUND, NO_CLASS_DEF_FOUND };
static const char *const failure_class_names[] = {[CLASS_NOT_FOUND] = "java/lang/ClassNotFoundException",
                                                  [NO_CLASS_DEF_FOUND] = "java/lang/NoClassDefFoundError"};
#define FAILURE_CLASSES (sizeof(failure_class_names) / sizeof(*failure_class_names))
/* The constructors whose first parameter is the message: it names the class that failed.  The
 * others (no message, or only a cause) name none, so they get no breakpoint. */
#define NAMING_DESCRIPTOR_PREFIX "(Ljava/lang/String;"
static jmethodID constructors[16];
static unsigned char constructor_kinds[16]; /* CLASS_NOT_FOUND or NO_CLASS_DEF_FOUND, by constructor */
static size_t constructor_count;

/* The class of this thread's latest ClassNotFoundException sent, until the next failure; "" for
 * none (a name too long to keep is not kept: its NoClassDefFoundError is then sent too). */
static _Thread_local char not_found[512];

void jv_class_failures_capabilities(jvmtiCapabilities *caps)
{
    caps->can_generate_breakpoint_events = 1;
    caps->can_access_local_variables = 1; /* the constructor's message parameter */
}

/* Sets a breakpoint at the start of each constructor of k that takes the message; the number set. */
static size_t watch_constructors(jclass k, unsigned char kind)
{
    jint count = 0;
    size_t set = 0;
    jmethodID *methods = NULL;
    if ((*jv_jvmti)->GetClassMethods(jv_jvmti, k, &count, &methods) != JVMTI_ERROR_NONE)
        return 0;
    for (jint i = 0; i < count && constructor_count < sizeof(constructors) / sizeof(*constructors); i++) {
        char *name = NULL, *descriptor = NULL;
        if ((*jv_jvmti)->GetMethodName(jv_jvmti, methods[i], &name, &descriptor, NULL) != JVMTI_ERROR_NONE)
            continue;
        if (!strcmp(name, "<init>") &&
            !strncmp(descriptor, NAMING_DESCRIPTOR_PREFIX, strlen(NAMING_DESCRIPTOR_PREFIX)) &&
            (*jv_jvmti)->SetBreakpoint(jv_jvmti, methods[i], 0) == JVMTI_ERROR_NONE) {
            constructor_kinds[constructor_count] = kind;
            constructors[constructor_count++] = methods[i];
            set++;
        }
        (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)name);
        (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)descriptor);
    }
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)methods);
    return set;
}

void jv_class_failures_start(JNIEnv *env)
{
    jvmtiCapabilities held;
    if ((*jv_jvmti)->GetCapabilities(jv_jvmti, &held) != JVMTI_ERROR_NONE || !held.can_generate_breakpoint_events ||
        !held.can_access_local_variables)
        return; /* announced at start (capabilities.c), with the categories that use them */
    for (size_t i = 0; i < FAILURE_CLASSES; i++) {
        jclass k = (*env)->FindClass(env, failure_class_names[i]);
        if (!k)
            (*env)->ExceptionClear(env);
        if (!k || !watch_constructors(k, (unsigned char)i))
            jv_log("could not watch the constructors of %s; CLASS_LOAD_FAILED will not be sent for it",
                   failure_class_names[i]);
        if (k)
            (*env)->DeleteLocalRef(env, k);
    }
}

/* The class name in the message, in internal form, malloc'd; NULL when there is none. */
static char *internal_name(JNIEnv *env, jstring message)
{
    const char *utf = (*env)->GetStringUTFChars(env, message, NULL);
    char *name = utf ? strdup(utf) : NULL;
    if (utf)
        (*env)->ReleaseStringUTFChars(env, message, utf);
    else
        (*env)->ExceptionClear(env);
    for (char *p = name; p && *p; p++)
        if (*p == '.')
            *p = '/';
    return name;
}

int jv_class_failure_breakpoint(JNIEnv *env, jthread thread, jmethodID method)
{
    size_t i = 0;
    while (i < constructor_count && constructors[i] != method)
        i++;
    if (i == constructor_count)
        return 0;
    jobject message = NULL;
    if (!(jv_monitors_mask_union() & JVM_MONITOR_CLASS_LOADS) ||
        (*jv_jvmti)->GetLocalObject(jv_jvmti, thread, 0, 1, &message) != JVMTI_ERROR_NONE || !message)
        return 1; /* slot 1: the message, after this */
    jv_dispatch d;
    jv_dispatch_begin(&d, env);
    char *name = internal_name(env, message);
    int same_load = name && constructor_kinds[i] == NO_CLASS_DEF_FOUND && !strcmp(name, not_found);
    if (name && !same_load)
        jv_notify(JVM_MONITOR_CLASS_LOADS, JVM_EVENT_TYPE_CLASS_LOAD_FAILED, (UniqueID)name);
    not_found[0] = '\0';
    if (name && constructor_kinds[i] == CLASS_NOT_FOUND && strlen(name) < sizeof(not_found))
        strcpy(not_found, name);
    free(name);
    jv_dispatch_end(&d);
    (*env)->DeleteLocalRef(env, message);
    return 1;
}
