/*
 * class_failure.c - CLASS_LOAD_FAILED from the failures' constructors (see class_failure.h).
 *
 * One failed load is one event.  When the VM itself loads a class (new, a field or method of
 * it, a cast) and the loader answers with a ClassNotFoundException, the VM throws a
 * NoClassDefFoundError naming the same class, right after, on the same thread: that second
 * failure is the same load's, so it is not sent again.  And a class loader that fails for a
 * child loader which asked it first (ClassLoader.loadClass's parent delegation) has not failed
 * the load: the child looks for the class next, and constructs its own exception if it fails
 * too, so the parent's is not sent.
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
 * others (no message, or only a cause) name none, so they get no breakpoint.  (loadClass's first
 * parameter is the name too.) */
#define STRING_FIRST "(Ljava/lang/String;"
static jmethodID constructors[16];
static unsigned char constructor_kinds[16]; /* CLASS_NOT_FOUND or NO_CLASS_DEF_FOUND, by constructor */
static size_t constructor_count;

/* The class of this thread's latest ClassNotFoundException sent, until the next failure; "" for
 * none (a name too long to keep is not kept: its NoClassDefFoundError is then sent too). */
static _Thread_local char not_found[512];

static jclass class_loader_class; /* a global reference to java.lang.ClassLoader */
/* How far down the stack a child's loadClass is looked for: delegation chains are short. */
#define DELEGATION_FRAMES 32

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
            !strncmp(descriptor, STRING_FIRST, strlen(STRING_FIRST)) &&
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
    jclass loader = (*env)->FindClass(env, "java/lang/ClassLoader");
    if (loader && !class_loader_class)
        class_loader_class = (*env)->NewGlobalRef(env, loader);
    if (loader)
        (*env)->DeleteLocalRef(env, loader);
    else
        (*env)->ExceptionClear(env);
}

/* The class loader whose loadClass(String...) runs in the frame at depth, as a local
 * reference; NULL when the frame is another method's. */
static jobject loading_loader(JNIEnv *env, jthread thread, jint depth, jmethodID method)
{
    char *name = NULL, *descriptor = NULL;
    jobject loader = NULL;
    if ((*jv_jvmti)->GetMethodName(jv_jvmti, method, &name, &descriptor, NULL) != JVMTI_ERROR_NONE)
        return NULL;
    if (!strcmp(name, "loadClass") && !strncmp(descriptor, STRING_FIRST, strlen(STRING_FIRST)) &&
        (*jv_jvmti)->GetLocalObject(jv_jvmti, thread, depth, 0, &loader) == JVMTI_ERROR_NONE && loader &&
        !(*env)->IsInstanceOf(env, loader, class_loader_class)) { /* slot 0 of a static method */
        (*env)->DeleteLocalRef(env, loader);
        loader = NULL;
    }
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)name);
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)descriptor);
    return loader;
}

/* Is the ClassNotFoundException being constructed (at depth 0) a parent loader's answer to a
 * child: does a loadClass of another loader run further down than the innermost loadClass? */
static int answers_a_child(JNIEnv *env, jthread thread)
{
    jvmtiFrameInfo frames[DELEGATION_FRAMES];
    jint count = 0;
    jobject inner = NULL;
    int child = 0;
    if (!class_loader_class ||
        (*jv_jvmti)->GetStackTrace(jv_jvmti, thread, 1, DELEGATION_FRAMES, frames, &count) != JVMTI_ERROR_NONE)
        return 0;
    for (jint i = 0; i < count && !child; i++) {
        jobject loader = loading_loader(env, thread, i + 1, frames[i].method);
        if (loader && !inner)
            inner = loader;
        else if (loader) {
            child = !(*env)->IsSameObject(env, loader, inner);
            (*env)->DeleteLocalRef(env, loader);
        }
    }
    if (inner)
        (*env)->DeleteLocalRef(env, inner);
    return child;
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
    if (constructor_kinds[i] == CLASS_NOT_FOUND && answers_a_child(env, thread)) {
        (*env)->DeleteLocalRef(env, message);
        return 1;
    }
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
