/*
 * class.c - the class table (see class.h) and the IDInfo methods about classes:
 * ClassInformation, ClassInformation2.
 */
#include <stdlib.h>
#include <string.h>

#include "ids/class.h"
#include "ids/ids.h"
#include "ids/method.h"
#include "ids/table.h"

static jv_table classes;
static plat_mutex *registering; /* one registration at a time */

void jv_classes_init(void)
{
    jv_table_init(&classes, sizeof(jv_class));
    registering = plat_mutex_create();
}

void jv_classes_destroy(void)
{
    uint32_t n = jv_table_count(&classes);
    for (uint32_t i = 0; i < n; i++) {
        jv_class *c = jv_table_get(&classes, i);
        free(c->signature);
        free(c->source_file);
        free(c->methods);
    }
    jv_table_destroy(&classes);
    plat_mutex_destroy(registering);
}

typedef struct class_init_args {
    jweak mirror;
    char *signature;
    char *source_file;
} class_init_args;

static void class_init(void *element, void *arg)
{
    jv_class *c = element;
    class_init_args *a = arg;
    c->mirror = a->mirror;
    c->signature = a->signature;
    c->source_file = a->source_file;
}

/* A malloc'd copy of a JVMTI-allocated string, which it deallocates; NULL for NULL. */
static char *take_jvmti_string(char *s)
{
    char *copy = s ? strdup(s) : NULL;
    if (s)
        (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)s);
    return copy;
}

/* Whether the class is never unloaded: the boot loader's, and not hidden (JVMTI signs a hidden class
 * "Lname.0x<address>;", a dot no other signature holds; a lambda form's may go with its last use). */
static int permanent_class(JNIEnv *env, jclass klass, const char *signature)
{
    jobject loader = NULL;
    if ((*jv_jvmti)->GetClassLoader(jv_jvmti, klass, &loader) != JVMTI_ERROR_NONE)
        return 0;
    if (loader) {
        (*env)->DeleteLocalRef(env, loader);
        return 0;
    }
    return !strchr(signature, '.');
}

/* Registers the class's methods; done once, before the ClassID is published (jv_class_id). */
static void register_methods(JNIEnv *env, jv_class *c, jclass klass, ClassID class_id)
{
    jint count = 0;
    jmethodID *methods = NULL;
    if ((*jv_jvmti)->GetClassMethods(jv_jvmti, klass, &count, &methods) != JVMTI_ERROR_NONE)
        return;
    MethodID *ids = count ? malloc((size_t)count * sizeof(*ids)) : NULL;
    unsigned kept = 0;
    int permanent = ids && permanent_class(env, klass, c->signature);
    for (jint i = 0; ids && i < count; i++) {
        MethodID id = jv_method_register(methods[i], class_id, permanent);
        if (id)
            ids[kept++] = id;
    }
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)methods);
    c->methods = ids;
    c->method_count = kept;
}

void jv_class_loaded_before(JNIEnv *env, jclass klass)
{
    char *signature = NULL;
    jint count = 0;
    jmethodID *methods = NULL;
    int permanent = (*jv_jvmti)->GetClassSignature(jv_jvmti, klass, &signature, NULL) == JVMTI_ERROR_NONE &&
                    permanent_class(env, klass, signature);
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)signature);
    if (!permanent)
        jv_class_id(env, klass);
    else if ((*jv_jvmti)->GetClassMethods(jv_jvmti, klass, &count, &methods) == JVMTI_ERROR_NONE)
        (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)methods); /* made: HotSpot keeps them */
}

ClassID jv_class_id(JNIEnv *env, jclass klass)
{
    jlong tag = 0;
    if (!jv_jvmti || !klass || (*jv_jvmti)->GetTag(jv_jvmti, klass, &tag) != JVMTI_ERROR_NONE)
        return 0;
    if (tag)
        return (ClassID)tag;

    /* A class racing on two threads gets one ClassID. */
    plat_mutex_lock(registering);
    ClassID id = 0;
    if ((*jv_jvmti)->GetTag(jv_jvmti, klass, &tag) == JVMTI_ERROR_NONE && tag)
        id = (ClassID)tag;
    else {
        char *sig = NULL, *source = NULL;
        class_init_args a = {(*env)->NewWeakGlobalRef(env, klass), NULL, NULL};
        if ((*jv_jvmti)->GetClassSignature(jv_jvmti, klass, &sig, NULL) == JVMTI_ERROR_NONE)
            a.signature = take_jvmti_string(sig);
        if ((*jv_jvmti)->GetSourceFileName(jv_jvmti, klass, &source) == JVMTI_ERROR_NONE)
            a.source_file = take_jvmti_string(source);
        uint32_t index = a.signature && a.mirror ? jv_table_add(&classes, class_init, &a) : UINT32_MAX;
        if (index == UINT32_MAX) {
            free(a.signature);
            free(a.source_file);
            if (a.mirror)
                (*env)->DeleteWeakGlobalRef(env, a.mirror);
        } else {
            /* The methods first, the tag last: a thread that finds the tag takes the ClassID
             * without the lock, and jv_method_id then looks its method up in the index at once.
             * Tagged first, a method not indexed yet had no MethodID for as long as the
             * registration ran on, and the instrumented path dropped such a first call's entry
             * but, once registered, delivered its exit: an exit without an entry (an orphan
             * exit at the bottom of that thread's stack, seen on a loaded machine). */
            id = jv_id_make(JV_ID_CLASS, index);
            jv_class *c = jv_table_get(&classes, index);
            register_methods(env, c, klass, id);
            jvmtiError e = (*jv_jvmti)->SetTag(jv_jvmti, klass, (jlong)id);
            if (e != JVMTI_ERROR_NONE) /* not cached: the next look registers the class again */
                jv_log("the JVM refused to tag class %s with its ClassID (JVMTI error %d); it may get another",
                       c->signature, (int)e);
        }
    }
    plat_mutex_unlock(registering);
    return id;
}

jv_class *jv_class_get(ClassID id)
{
    uint32_t index;
    if (!jv_id_index(id, JV_ID_CLASS, &index))
        return NULL;
    jv_class *c = jv_table_get(&classes, index);
    return c && atomic_load(&c->state) != JV_CLASS_UNLOADED ? c : NULL;
}

/* Classes whose mirrors were freed, waiting for their CLASS_UNLOAD. */
static ClassID *unloads;
static size_t unload_count, unload_capacity;

void jv_class_unloading(ClassID id)
{
    jv_class *c = jv_class_get(id);
    if (!c)
        return;
    atomic_store(&c->state, JV_CLASS_UNLOADING);
    plat_mutex_lock(registering);
    if (unload_count == unload_capacity) {
        size_t grown = unload_capacity ? unload_capacity * 2 : 64;
        ClassID *bigger = realloc(unloads, grown * sizeof(*bigger));
        if (bigger) {
            unloads = bigger;
            unload_capacity = grown;
        }
    }
    if (unload_count < unload_capacity)
        unloads[unload_count++] = id;
    plat_mutex_unlock(registering);
}

ClassID *jv_classes_take_unloading(size_t *count)
{
    plat_mutex_lock(registering);
    ClassID *batch = unloads;
    *count = unload_count;
    unloads = NULL;
    unload_count = unload_capacity = 0;
    plat_mutex_unlock(registering);
    return batch;
}

void jv_class_unloaded(JNIEnv *env, ClassID id)
{
    jv_class *c = jv_class_get(id);
    atomic_store(&c->state, JV_CLASS_UNLOADED);
    if (env && c->mirror)
        (*env)->DeleteWeakGlobalRef(env, c->mirror);
    c->mirror = NULL;
}

jclass jv_class_local(JNIEnv *env, jv_class *c)
{
    return env ? (jclass)(*env)->NewLocalRef(env, c->mirror) : NULL;
}

/* "Ljava/lang/String;" -> "java.lang.String"; arrays keep their descriptor, "[I", with dots. */
static char *dotted_name(const char *signature)
{
    size_t len = strlen(signature);
    const char *start = signature;
    if (signature[0] == 'L' && len >= 2 && signature[len - 1] == ';') {
        start = signature + 1;
        len -= 2;
    }
    char *name = CoTaskMemAlloc(len + 1);
    if (!name)
        return NULL;
    for (size_t i = 0; i < len; i++)
        name[i] = start[i] == '/' ? '.' : start[i];
    name[len] = '\0';
    return name;
}

HRESULT STDMETHODCALLTYPE idinfo_ClassInformation(IJavaEventMonitorIDInfo4 *iface, ClassID class_id,
                                                  LPSTR *ppclass_name, LPSTR *ppsource_file_name, int *pmethods,
                                                  MethodID **ppmethod_ids, __int64 *pobjects_created)
{
    (void)iface;
    jv_class *c = jv_class_get(class_id);
    if (!c)
        return E_FAIL;
    HRESULT hr = S_OK;
    if (ppclass_name && !(*ppclass_name = dotted_name(c->signature)))
        hr = E_OUTOFMEMORY;
    if (ppsource_file_name)
        *ppsource_file_name = c->source_file ? jv_cotask_strdup(c->source_file) : NULL;
    if (pmethods)
        *pmethods = (int)c->method_count;
    if (ppmethod_ids) {
        /* At least one element, so that NULL means out of memory; an array class ([I) has no
         * methods and c->methods is NULL then, which memcpy may not be given even for 0 bytes. */
        *ppmethod_ids = CoTaskMemAlloc((c->method_count ? c->method_count : 1) * sizeof(MethodID));
        if (!*ppmethod_ids)
            hr = E_OUTOFMEMORY;
        else if (c->method_count)
            memcpy(*ppmethod_ids, c->methods, c->method_count * sizeof(MethodID));
    }
    if (pobjects_created)
        *pobjects_created = atomic_load(&c->objects_created);
    return hr;
}

/* Appends id to a CoTaskMem array that grows by doubling. */
static int append_id(UniqueID **array, unsigned *count, unsigned *capacity, UniqueID id)
{
    if (*count == *capacity) {
        unsigned grown = *capacity ? *capacity * 2 : 16;
        UniqueID *bigger = CoTaskMemRealloc(*array, grown * sizeof(UniqueID));
        if (!bigger)
            return 0;
        *array = bigger;
        *capacity = grown;
    }
    (*array)[(*count)++] = id;
    return 1;
}

/* Adds every interface of klass and of its superinterfaces. */
static int collect_interfaces(JNIEnv *env, jclass klass, ClassID **ids, unsigned *count, unsigned *capacity)
{
    jint n = 0;
    jclass *interfaces = NULL;
    int ok = 1;
    if ((*jv_jvmti)->GetImplementedInterfaces(jv_jvmti, klass, &n, &interfaces) != JVMTI_ERROR_NONE)
        return 1;
    for (jint i = 0; i < n; i++) {
        ClassID id = jv_class_id(env, interfaces[i]);
        ok = ok && id && append_id(ids, count, capacity, id) && collect_interfaces(env, interfaces[i], ids, count, capacity);
        (*env)->DeleteLocalRef(env, interfaces[i]);
    }
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)interfaces);
    return ok;
}

HRESULT STDMETHODCALLTYPE idinfo_ClassInformation2(IJavaEventMonitorIDInfo4 *iface, ClassID class_id,
                                                   ClassID *psuperclass, ClassID **ppinterfaces,
                                                   unsigned int *pinterfaces_length, MethodID **ppimplemented_methods,
                                                   unsigned int *pimplemented_methods_length)
{
    (void)iface;
    jv_class *c = jv_class_get(class_id);
    JNIEnv *env = jv_jni();
    if (!c || !env || !psuperclass || !ppinterfaces || !pinterfaces_length || !ppimplemented_methods ||
        !pimplemented_methods_length)
        return E_FAIL;
    jclass klass = jv_class_local(env, c);
    if (!klass)
        return E_FAIL;
    unsigned n_if = 0, cap_if = 0, n_m = 0, cap_m = 0;
    ClassID *interfaces = NULL;
    MethodID *methods = NULL;
    int ok = collect_interfaces(env, klass, &interfaces, &n_if, &cap_if);
    jclass super = (*env)->GetSuperclass(env, klass);
    *psuperclass = super ? jv_class_id(env, super) : 0;
    /* The class's own methods, then every inherited one up the superclass chain. */
    for (jclass k = (*env)->NewLocalRef(env, klass); ok && k;) {
        jv_class *kc = jv_class_get(jv_class_id(env, k));
        for (unsigned i = 0; ok && kc && i < kc->method_count; i++)
            ok = append_id(&methods, &n_m, &cap_m, kc->methods[i]);
        jclass next = (*env)->GetSuperclass(env, k);
        (*env)->DeleteLocalRef(env, k);
        k = next;
    }
    if (super)
        (*env)->DeleteLocalRef(env, super);
    (*env)->DeleteLocalRef(env, klass);
    if (!ok) {
        CoTaskMemFree(interfaces);
        CoTaskMemFree(methods);
        return E_OUTOFMEMORY;
    }
    *ppinterfaces = interfaces;
    *pinterfaces_length = n_if;
    *ppimplemented_methods = methods;
    *pimplemented_methods_length = n_m;
    return S_OK;
}
