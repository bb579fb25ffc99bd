/*
 * thread.c - the thread table and shadow stacks (see thread.h), and the IDInfo methods
 * about threads: GetCurrentThread, ThreadInformation.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ids/ids.h"
#include "ids/method.h"
#include "ids/table.h"
#include "ids/thread.h"

static jv_table threads;
static plat_mutex *registering; /* also guards the released entries' queue */
static uint32_t released_first = UINT32_MAX, released_last = UINT32_MAX;
atomic_uint jv_method_epoch = 1;
_Thread_local jv_thread *jv_thread_self;
/* The OS thread's own Java thread: where jv_thread_self returns when a virtual thread unmounts. */
static _Thread_local jv_thread *platform_self;

/* JNI's IsVirtualThread (JNI 21), NULL on older JVMs; VirtualThread.carrierThread. */
typedef jboolean(JNICALL *is_virtual_function)(JNIEnv *env, jobject object);
static is_virtual_function is_virtual_thread;
/* VirtualThread.carrierThread, found from the first virtual thread seen: looking the class up at
 * VMInit would initialize it there, and with it the default scheduler and the lambdas it spins
 * (about 180 classes on JDK 25, loaded before any monitor could see them). */
static _Atomic(jfieldID) carrier_field;
static atomic_int carrier_field_missing;

void jv_threads_init(void)
{
    jv_table_init(&threads, sizeof(jv_thread));
    registering = plat_mutex_create();
}

void jv_threads_destroy(void)
{
    uint32_t n = jv_table_count(&threads);
    for (uint32_t i = 0; i < n; i++) {
        jv_thread *t = jv_table_get(&threads, i);
        free(t->frames);
        free(t->given);
        free(t->last_name);
    }
    jv_table_destroy(&threads);
    plat_mutex_destroy(registering);
}

static void thread_init(void *element, void *arg)
{
    jv_thread *t = element;
    t->ref = arg;
    atomic_store(&t->alive, 1);
}

/* The oldest released entry, taken off the queue; NULL when there is none.  Under registering. */
static jv_thread *take_released(void)
{
    if (released_first == UINT32_MAX)
        return NULL;
    jv_thread *t = jv_table_get(&threads, released_first);
    released_first = t->next_free;
    if (released_first == UINT32_MAX)
        released_last = UINT32_MAX;
    return t;
}

/* A new entry for thread, a released one when one is free.  Under registering. */
static jv_thread *add_entry(JNIEnv *env, jthread thread)
{
    jweak ref = (*env)->NewWeakGlobalRef(env, thread);
    if (!ref)
        return NULL;
    int is_virtual = jv_thread_is_virtual(env, thread);
    jv_thread *t = take_released();
    if (t) {
        t->ref = ref;
        t->os_tid = 0;
        t->sync_epoch = 0;
        t->region_base = 0;
        t->own_call_events = 0;
        atomic_store(&t->announced, 0); /* a new thread: its THREAD_CREATE is still to come */
        atomic_store(&t->alive, 1);
    } else {
        uint32_t index = jv_table_add(&threads, thread_init, ref);
        if (index == UINT32_MAX) {
            (*env)->DeleteWeakGlobalRef(env, ref);
            return NULL;
        }
        t = jv_table_get(&threads, index);
        t->index = index;
    }
    t->is_virtual = (uint8_t)is_virtual;
    (*jv_jvmti)->SetTag(jv_jvmti, thread, (jlong)jv_thread_id(t));
    return t;
}

jv_thread *jv_thread_of(JNIEnv *env, jthread thread)
{
    jlong tag = 0;
    if (!jv_jvmti || !env || !thread)
        return NULL;
    uint32_t index;
    if ((*jv_jvmti)->GetTag(jv_jvmti, thread, &tag) == JVMTI_ERROR_NONE && jv_id_index((UniqueID)tag, JV_ID_THREAD, &index))
        return jv_table_get(&threads, index);
    plat_mutex_lock(registering);
    jv_thread *t = NULL;
    if ((*jv_jvmti)->GetTag(jv_jvmti, thread, &tag) == JVMTI_ERROR_NONE && jv_id_index((UniqueID)tag, JV_ID_THREAD, &index))
        t = jv_table_get(&threads, index);
    else
        t = add_entry(env, thread);
    plat_mutex_unlock(registering);
    return t;
}

jv_thread *jv_thread_register_current(JNIEnv *env, jthread thread)
{
    jthread self = thread;
    if (!self && (!jv_jvmti || (*jv_jvmti)->GetCurrentThread(jv_jvmti, &self) != JVMTI_ERROR_NONE))
        return NULL;
    jv_thread *t = jv_thread_is_virtual(env, self) ? jv_thread_mount(env, self) : jv_thread_of(env, self);
    if (t && !t->is_virtual) {
        if (!t->os_tid)
            t->os_tid = plat_os_thread_id();
        jv_thread_self = platform_self = t;
    }
    if (!thread && self)
        (*env)->DeleteLocalRef(env, self);
    return t;
}

jv_thread *jv_thread_get(ThreadID id)
{
    uint32_t index;
    if (!jv_id_index(id, JV_ID_THREAD, &index))
        return NULL;
    jv_thread *t = jv_table_get(&threads, index);
    return t && atomic_load(&t->alive) ? t : NULL;
}

jthread jv_thread_local_ref(JNIEnv *env, jv_thread *t)
{
    /* Under registering, which jv_thread_release deletes the reference under. */
    plat_mutex_lock(registering);
    jthread thread = atomic_load(&t->alive) && t->ref ? (*env)->NewLocalRef(env, t->ref) : NULL;
    plat_mutex_unlock(registering);
    return thread;
}

ThreadID jv_thread_id(const jv_thread *t)
{
    return t ? jv_id_make(JV_ID_THREAD, t->index) : 0;
}

void jv_threads_start(JNIEnv *env)
{
    if ((*env)->GetVersion(env) < 0x00150000) /* JNI_VERSION_21 */
        return;
    /* jevmon builds against JDK 17's jni.h, whose function table ends at GetModule; JNI 21
     * puts IsVirtualThread right after it. */
    void *const *functions = (void *const *)*env;
    memcpy(&is_virtual_thread, &functions[offsetof(struct JNINativeInterface_, GetModule) / sizeof(void *) + 1],
           sizeof(is_virtual_thread));
}

int jv_thread_mount_transition_class(const char *internal_name)
{
    static const char wrapper[] = "java/lang/VirtualThread$VThreadContinuation";
    return !strcmp(internal_name, "jdk/internal/vm/Continuation") || !strncmp(internal_name, wrapper, strlen(wrapper));
}

static int in_mount_transition_class(JNIEnv *env, jmethodID method)
{
    jclass declaring = NULL;
    char *signature = NULL;
    int transition = 0;
    if ((*jv_jvmti)->GetMethodDeclaringClass(jv_jvmti, method, &declaring) != JVMTI_ERROR_NONE)
        return 0;
    if ((*jv_jvmti)->GetClassSignature(jv_jvmti, declaring, &signature, NULL) == JVMTI_ERROR_NONE && signature) {
        size_t length = strlen(signature);
        if (length > 2 && signature[0] == 'L' && signature[length - 1] == ';') {
            signature[length - 1] = '\0';
            transition = jv_thread_mount_transition_class(signature + 1);
        }
        (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)signature);
    }
    (*env)->DeleteLocalRef(env, declaring);
    return transition;
}

#define MAX_BASE_FRAMES 8

jint jv_thread_base_frames(JNIEnv *env, jthread thread, const jv_thread *t)
{
    jvmtiFrameInfo outermost[MAX_BASE_FRAMES];
    jint count = 0, got = 0, base = 0;
    /* Counted from the top: HotSpot 25 crashes walking an unmounted virtual thread from the bottom
     * (a negative start depth). */
    if (!t || !t->is_virtual || (*jv_jvmti)->GetFrameCount(jv_jvmti, thread, &count) != JVMTI_ERROR_NONE ||
        (*jv_jvmti)->GetStackTrace(jv_jvmti, thread, count > MAX_BASE_FRAMES ? count - MAX_BASE_FRAMES : 0,
                                   MAX_BASE_FRAMES, outermost, &got) != JVMTI_ERROR_NONE)
        return 0;
    /* Innermost first: the outermost frame is the last. */
    while (base < got && in_mount_transition_class(env, outermost[got - 1 - base].method))
        base++;
    return base;
}

int jv_thread_is_virtual(JNIEnv *env, jthread thread)
{
    return is_virtual_thread && thread && is_virtual_thread(env, thread);
}

/* The carrier a virtual thread is mounted on, as a local reference; NULL when unmounted. */
static jthread carrier_of(JNIEnv *env, jthread vthread)
{
    jfieldID field = atomic_load(&carrier_field);
    if (!field && !atomic_load(&carrier_field_missing)) {
        jclass virtual_class = (*env)->GetObjectClass(env, vthread);
        field = virtual_class ? (*env)->GetFieldID(env, virtual_class, "carrierThread", "Ljava/lang/Thread;") : NULL;
        (*env)->DeleteLocalRef(env, virtual_class);
        if (field) {
            atomic_store(&carrier_field, field);
        } else {
            (*env)->ExceptionClear(env);
            if (!atomic_exchange(&carrier_field_missing, 1))
                jv_log("java.lang.VirtualThread has no carrierThread field; a carrier first seen running a virtual "
                       "thread is not told apart from it");
        }
    }
    return field ? (*env)->GetObjectField(env, vthread, field) : NULL;
}

jv_thread *jv_thread_mount(JNIEnv *env, jthread vthread)
{
    if (!platform_self) {
        /* The carrier's first callback: its own entry, for the unmount, its shadow read now.  Read
         * later, on its first call after an unmount, it would be read inside the JVM's unmount
         * transition, where the JVM still shows the virtual thread's frames as the current thread's. */
        jthread carrier = carrier_of(env, vthread);
        jv_thread *own = carrier ? jv_thread_of(env, carrier) : NULL;
        if (own && !own->os_tid)
            own->os_tid = plat_os_thread_id();
        if (own && own->sync_epoch != jv_threads_epoch())
            jv_thread_sync_stack(env, carrier, own, 0);
        platform_self = own;
        if (carrier)
            (*env)->DeleteLocalRef(env, carrier);
    }
    jv_thread *t = jv_thread_of(env, vthread);
    if (t && platform_self) {
        atomic_store(&t->mounted_with, platform_self);
        atomic_store(&platform_self->mounted_with, t);
    }
    return jv_thread_self = t;
}

void jv_thread_unmount(void)
{
    jv_thread *mounted = platform_self ? atomic_exchange(&platform_self->mounted_with, NULL) : NULL;
    if (mounted)
        atomic_store(&mounted->mounted_with, NULL);
    jv_thread_self = platform_self;
}

void jv_thread_release(JNIEnv *env, jv_thread *t, jthread thread)
{
    atomic_store(&t->alive, 0);
    if (t->is_virtual) {
        jv_thread_unmount();
    } else { /* the OS thread ends: nothing of it runs Java again */
        jv_thread *mounted = atomic_exchange(&t->mounted_with, NULL);
        if (mounted)
            atomic_store(&mounted->mounted_with, NULL);
        if (jv_thread_self == t)
            jv_thread_self = NULL;
        if (platform_self == t)
            platform_self = NULL;
    }
    (*jv_jvmti)->SetTag(jv_jvmti, thread, 0);
    plat_mutex_lock(registering);
    free(t->frames);
    free(t->given);
    t->frames = NULL;
    t->given = NULL;
    t->depth = t->capacity = 0;
    free(t->last_name);
    t->last_name = NULL;
    (*env)->DeleteWeakGlobalRef(env, t->ref);
    t->ref = NULL;
    t->next_free = UINT32_MAX;
    if (released_last == UINT32_MAX)
        released_first = t->index;
    else
        ((jv_thread *)jv_table_get(&threads, released_last))->next_free = t->index;
    released_last = t->index;
    plat_mutex_unlock(registering);
}

void jv_threads_new_epoch(void)
{
    atomic_fetch_add(&jv_method_epoch, 1);
}

int jv_thread_grow(jv_thread *t)
{
    uint32_t grown = t->capacity ? t->capacity * 2 : 64;
    MethodID *frames = realloc(t->frames, grown * sizeof(*frames));
    if (!frames)
        return 0;
    t->frames = frames;
    uint32_t *given = realloc(t->given, grown * sizeof(*given));
    if (!given)
        return 0;
    t->given = given;
    t->capacity = grown;
    return 1;
}

void jv_threads_each(void (*fn)(jv_thread *t, void *arg), void *arg)
{
    uint32_t n = jv_table_count(&threads);
    for (uint32_t i = 0; i < n; i++) {
        jv_thread *t = jv_table_get(&threads, i);
        if (t && atomic_load(&t->alive))
            fn(t, arg);
    }
}

int jv_thread_sync_stack(JNIEnv *env, jthread thread, jv_thread *t, int extra)
{
    jint count = 0;
    uint32_t old_depth = t->depth, same = 0; /* the old shadow's frames, and how many still match */
    t->depth = 0;
    t->sync_epoch = jv_threads_epoch();
    if ((*jv_jvmti)->GetFrameCount(jv_jvmti, thread, &count) != JVMTI_ERROR_NONE || count <= extra)
        return count >= 0;
    count -= jv_thread_base_frames(env, thread, t); /* a virtual thread's depths count from above its continuation's */
    if (count <= extra)
        return 1;
    jvmtiFrameInfo *frames = malloc((size_t)count * sizeof(*frames));
    jint got = 0;
    if (!frames || (*jv_jvmti)->GetStackTrace(jv_jvmti, thread, extra, count - extra, frames, &got) != JVMTI_ERROR_NONE) {
        free(frames);
        return 0;
    }
    /* JVMTI lists the innermost frame first; the shadow keeps the outermost first. */
    for (jint i = got - 1; i >= 0; i--) {
        MethodID id = jv_method_id(env, frames[i].method);
        if (same == t->depth && same < old_depth && t->frames[same] == id) {
            t->depth = ++same; /* the same frame, by all the JVM tells: it keeps its receivers */
            continue;
        }
        jv_thread_push(t, id);
    }
    free(frames);
    return 1;
}

HRESULT STDMETHODCALLTYPE idinfo_GetCurrentThread(IJavaEventMonitorIDInfo4 *iface, ThreadID *pthread_id)
{
    (void)iface;
    JNIEnv *env = jv_jni();
    jv_thread *t = env ? jv_thread_current(env, NULL) : NULL;
    if (!pthread_id || !t)
        return E_FAIL;
    *pthread_id = jv_thread_id(t);
    return S_OK;
}

HRESULT STDMETHODCALLTYPE idinfo_ThreadInformation(IJavaEventMonitorIDInfo4 *iface, ThreadID thread_id,
                                                   DWORD *pwin32_thread_id)
{
    (void)iface;
    jv_thread *t = jv_thread_get(thread_id);
    if (t && pwin32_thread_id && t->is_virtual)
        *pwin32_thread_id = 0; /* a virtual thread has no OS thread of its own */
    if (!t || !pwin32_thread_id || !t->os_tid)
        return E_FAIL;
    *pwin32_thread_id = t->os_tid;
    return S_OK;
}
