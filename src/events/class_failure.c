/*
 * class_failure.c - CLASS_LOAD_FAILED from the failures' constructors (see class_failure.h).
 *
 * One failed load is one event.  When the VM itself loads a class (new, a field or method of
 * it, a cast) and the loader answers with a ClassNotFoundException, the VM throws a
 * NoClassDefFoundError naming the same class, right after, on the same thread: that second
 * failure is the same load's, so it is not sent again.  And a class loader that fails for a
 * child loader which asked it first (ClassLoader.loadClass's parent delegation) has not failed
 * the load: the child looks for the class next, and constructs its own exception if it fails
 * too, so the parent's is not sent.  The parent's is told from the stack alone (no JVMTI access
 * to locals, whose cost class_failure.h gives): the innermost loadClass is called by
 * java.lang.ClassLoader.loadClass(String, boolean), which asks only the parent that way.
 */
#include <stdlib.h>
#include <string.h>

#include "dispatch/dispatch.h"
#include "events/class_failure.h"
#include "platform/platform.h"

static const char *const failure_class_names[] = {[JV_CLASS_NOT_FOUND] = "java/lang/ClassNotFoundException",
                                                  [JV_NO_CLASS_DEF_FOUND] = "java/lang/NoClassDefFoundError"};
/* The constructors whose first parameter is the message: it names the class that failed.  The
 * others (no message, or only a cause) name none, so they are not watched.  (loadClass's first
 * parameter is the name too.) */
#define STRING_FIRST "(Ljava/lang/String;"
static jmethodID constructors[16];
static unsigned char constructor_kinds[16]; /* by constructor with a breakpoint */
static size_t constructor_count;

/* The class of this thread's latest ClassNotFoundException sent, until the next failure; "" for
 * none (a name too long to keep is not kept: its NoClassDefFoundError is then sent too). */
static _Thread_local char not_found[512];

static jclass class_loader_class; /* a global reference to java.lang.ClassLoader */
static jmethodID delegating_load_class; /* java.lang.ClassLoader.loadClass(String, boolean) */
/* How far down the stack the innermost loadClass is looked for: delegation chains are short. */
#define DELEGATION_FRAMES 32

jv_class_failure_kind jv_class_failure_kind_of(const char *class_name)
{
    for (int kind = 0; kind < JV_NOT_A_CLASS_FAILURE; kind++)
        if (!strcmp(class_name, failure_class_names[kind]))
            return (jv_class_failure_kind)kind;
    return JV_NOT_A_CLASS_FAILURE;
}

static int string_first(const char *descriptor)
{
    return !strncmp(descriptor, STRING_FIRST, strlen(STRING_FIRST));
}

int jv_class_failure_takes_message(const char *descriptor)
{
    return string_first(descriptor);
}

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
        if (!strcmp(name, "<init>") && string_first(descriptor) &&
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

static void set_breakpoints(JNIEnv *env)
{
    jvmtiCapabilities held;
    if ((*jv_jvmti)->GetCapabilities(jv_jvmti, &held) != JVMTI_ERROR_NONE || !held.can_generate_breakpoint_events ||
        !held.can_access_local_variables)
        return; /* announced at start (capabilities.c), with the categories that use them */
    for (size_t i = 0; i < JV_NOT_A_CLASS_FAILURE; i++) {
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

void jv_class_failures_start(JNIEnv *env, int breakpoints)
{
    jclass loader = (*env)->FindClass(env, "java/lang/ClassLoader");
    if (loader && !class_loader_class) {
        class_loader_class = (*env)->NewGlobalRef(env, loader);
        delegating_load_class = (*env)->GetMethodID(env, loader, "loadClass", "(Ljava/lang/String;Z)Ljava/lang/Class;");
    }
    if (loader)
        (*env)->DeleteLocalRef(env, loader);
    if ((*env)->ExceptionCheck(env))
        (*env)->ExceptionClear(env);
    if (breakpoints)
        set_breakpoints(env);
}

/* Is method a class loader's loadClass(String...)? */
static int is_load_class(JNIEnv *env, jmethodID method)
{
    char *name = NULL, *descriptor = NULL;
    jint modifiers = 0;
    jclass declaring = NULL;
    if ((*jv_jvmti)->GetMethodName(jv_jvmti, method, &name, &descriptor, NULL) != JVMTI_ERROR_NONE)
        return 0;
    int is = !strcmp(name, "loadClass") && string_first(descriptor) &&
             (*jv_jvmti)->GetMethodModifiers(jv_jvmti, method, &modifiers) == JVMTI_ERROR_NONE &&
             !(modifiers & 0x0008 /* ACC_STATIC */) &&
             (*jv_jvmti)->GetMethodDeclaringClass(jv_jvmti, method, &declaring) == JVMTI_ERROR_NONE &&
             (*env)->IsAssignableFrom(env, declaring, class_loader_class);
    if (declaring)
        (*env)->DeleteLocalRef(env, declaring);
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)name);
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)descriptor);
    return is;
}

/* Is the ClassNotFoundException being constructed, whose constructor's caller is at depth, a
 * parent loader's answer to a child: is the innermost loadClass called by the delegating one? */
static int answers_a_child(JNIEnv *env, jthread thread, jint depth)
{
    jvmtiFrameInfo frames[DELEGATION_FRAMES];
    jint count = 0;
    if (!class_loader_class || !delegating_load_class ||
        (*jv_jvmti)->GetStackTrace(jv_jvmti, thread, depth, DELEGATION_FRAMES, frames, &count) != JVMTI_ERROR_NONE)
        return 0;
    for (jint i = 0; i < count; i++)
        if (is_load_class(env, frames[i].method))
            return i + 1 < count && frames[i + 1].method == delegating_load_class;
    return 0;
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

void jv_class_failure_constructed(JNIEnv *env, jthread thread, jv_class_failure_kind kind, jstring message,
                                  jint depth)
{
    if (!message || !(jv_monitors_mask_union() & JVM_MONITOR_CLASS_LOADS) ||
        (kind == JV_CLASS_NOT_FOUND && answers_a_child(env, thread, depth)))
        return;
    jv_dispatch d;
    jv_dispatch_begin(&d, env);
    char *name = internal_name(env, message);
    int same_load = name && kind == JV_NO_CLASS_DEF_FOUND && !strcmp(name, not_found);
    if (name && !same_load)
        jv_notify(JVM_MONITOR_CLASS_LOADS, JVM_EVENT_TYPE_CLASS_LOAD_FAILED, (UniqueID)name);
    not_found[0] = '\0';
    if (name && kind == JV_CLASS_NOT_FOUND && strlen(name) < sizeof(not_found))
        strcpy(not_found, name);
    free(name);
    jv_dispatch_end(&d);
}

int jv_class_failure_breakpoint(JNIEnv *env, jthread thread, jmethodID method)
{
    size_t i = 0;
    while (i < constructor_count && constructors[i] != method)
        i++;
    if (i == constructor_count)
        return 0;
    jobject message = NULL;
    if ((jv_monitors_mask_union() & JVM_MONITOR_CLASS_LOADS) &&
        (*jv_jvmti)->GetLocalObject(jv_jvmti, thread, 0, 1, &message) == JVMTI_ERROR_NONE && message) {
        /* slot 1: the message, after this; the constructor's caller is at depth 1 */
        jv_class_failure_constructed(env, thread, (jv_class_failure_kind)constructor_kinds[i], message, 1);
        (*env)->DeleteLocalRef(env, message);
    }
    return 1;
}
