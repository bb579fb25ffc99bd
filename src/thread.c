/*
 * thread.c - the thread table and shadow stacks (see thread.h), and the IDInfo methods
 * about threads: GetCurrentThread, ThreadInformation.
 */
#include <stdlib.h>
#include <string.h>

#include "idinfo_methods.h"
#include "ids.h"
#include "method.h"
#include "table.h"
#include "thread.h"

static jv_table threads;
static plat_mutex *registering;
atomic_uint jv_method_epoch = 1;
_Thread_local jv_thread *jv_thread_self;

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
    else {
        jweak ref = (*env)->NewWeakGlobalRef(env, thread);
        index = ref ? jv_table_add(&threads, thread_init, ref) : UINT32_MAX;
        if (index != UINT32_MAX) {
            t = jv_table_get(&threads, index);
            t->index = index;
            (*jv_jvmti)->SetTag(jv_jvmti, thread, (jlong)jv_thread_id(t));
        } else if (ref)
            (*env)->DeleteWeakGlobalRef(env, ref);
    }
    plat_mutex_unlock(registering);
    return t;
}

jv_thread *jv_thread_register_current(JNIEnv *env, jthread thread)
{
    jthread self = thread;
    if (!self && (!jv_jvmti || (*jv_jvmti)->GetCurrentThread(jv_jvmti, &self) != JVMTI_ERROR_NONE))
        return NULL;
    jv_thread *t = jv_thread_of(env, self);
    if (t) {
        if (!t->os_tid)
            t->os_tid = plat_os_thread_id();
        jv_thread_self = t;
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

ThreadID jv_thread_id(const jv_thread *t)
{
    return t ? jv_id_make(JV_ID_THREAD, t->index) : 0;
}

void jv_thread_end(JNIEnv *env, jv_thread *t)
{
    (void)env;
    atomic_store(&t->alive, 0);
    if (jv_thread_self == t)
        jv_thread_self = NULL;
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
    t->capacity = grown;
    return 1;
}

int jv_thread_sync_stack(JNIEnv *env, jthread thread, jv_thread *t, int extra)
{
    jint count = 0;
    t->depth = 0;
    t->sync_epoch = jv_threads_epoch();
    if ((*jv_jvmti)->GetFrameCount(jv_jvmti, thread, &count) != JVMTI_ERROR_NONE || count <= extra)
        return count >= 0;
    jvmtiFrameInfo *frames = malloc((size_t)count * sizeof(*frames));
    jint got = 0;
    if (!frames || (*jv_jvmti)->GetStackTrace(jv_jvmti, thread, extra, count - extra, frames, &got) != JVMTI_ERROR_NONE) {
        free(frames);
        return 0;
    }
    /* JVMTI lists the innermost frame first; the shadow keeps the outermost first. */
    for (jint i = got - 1; i >= 0; i--)
        jv_thread_push(t, jv_method_id(env, frames[i].method));
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
    if (!t || !pwin32_thread_id || !t->os_tid)
        return E_FAIL;
    *pwin32_thread_id = t->os_tid;
    return S_OK;
}
