/*
 * object_state.c - the IDInfo methods that read the state of one object: GetObjectSize,
 * GetArrayElement, GetMonitorUsage.
 */
#include <string.h>

#include "ids/class.h"
#include "ids/object.h"
#include "ids/thread.h"
#include "ids/value.h"

/* The size JVMTI reports, saturated at 4 GB - 1 since the API's size is a DWORD. */
HRESULT STDMETHODCALLTYPE idinfo_GetObjectSize(IJavaEventMonitorIDInfo4 *iface, ObjectID object_id, DWORD *psize)
{
    (void)iface;
    JNIEnv *env = jv_jni();
    jobject obj = jv_object_local(env, object_id);
    jlong size = 0;
    HRESULT hr = E_FAIL;
    if (obj && psize && (*jv_jvmti)->GetObjectSize(jv_jvmti, obj, &size) == JVMTI_ERROR_NONE) {
        *psize = size > 0xFFFFFFFFll ? 0xFFFFFFFFu : (DWORD)size;
        hr = S_OK;
    }
    if (obj)
        (*env)->DeleteLocalRef(env, obj);
    return hr;
}

/* The element type of an array object (the character after '['), or 0 when obj is no array. */
static char element_type(JNIEnv *env, jobject obj)
{
    jclass klass = (*env)->GetObjectClass(env, obj);
    jv_class *c = jv_class_get(jv_class_id(env, klass));
    (*env)->DeleteLocalRef(env, klass);
    return c && c->signature[0] == '[' ? c->signature[1] : 0;
}

static jvalue read_element(JNIEnv *env, char type, jarray array, jsize i)
{
    jvalue v;
    memset(&v, 0, sizeof(v));
    switch (type) {
    case 'Z': (*env)->GetBooleanArrayRegion(env, array, i, 1, &v.z); break;
    case 'B': (*env)->GetByteArrayRegion(env, array, i, 1, &v.b); break;
    case 'C': (*env)->GetCharArrayRegion(env, array, i, 1, &v.c); break;
    case 'S': (*env)->GetShortArrayRegion(env, array, i, 1, &v.s); break;
    case 'I': (*env)->GetIntArrayRegion(env, array, i, 1, &v.i); break;
    case 'J': (*env)->GetLongArrayRegion(env, array, i, 1, &v.j); break;
    case 'F': (*env)->GetFloatArrayRegion(env, array, i, 1, &v.f); break;
    case 'D': (*env)->GetDoubleArrayRegion(env, array, i, 1, &v.d); break;
    default: v.l = (*env)->GetObjectArrayElement(env, array, i); break;
    }
    return v;
}

HRESULT STDMETHODCALLTYPE idinfo_GetArrayElement(IJavaEventMonitorIDInfo4 *iface, ObjectID object_id, unsigned index,
                                                 __int64 *pvalue)
{
    (void)iface;
    JNIEnv *env = jv_jni();
    jobject array = jv_object_local(env, object_id);
    if (!array)
        return E_FAIL;
    char type = element_type(env, array);
    HRESULT hr = E_FAIL;
    if (type && pvalue && index < (unsigned)(*env)->GetArrayLength(env, array)) {
        jvalue v = read_element(env, type, array, (jsize)index);
        *pvalue = jv_value_widen(env, type, v);
        if (jv_type_is_reference(type) && v.l)
            (*env)->DeleteLocalRef(env, v.l);
        hr = S_OK;
    }
    (*env)->DeleteLocalRef(env, array);
    return hr;
}

/* Counts the threads of the second list that are not in the first too. */
static unsigned count_not_in(JNIEnv *env, const jthread *first, jint first_count, const jthread *second,
                             jint second_count)
{
    unsigned extra = 0;
    for (jint i = 0; i < second_count; i++) {
        int seen = 0;
        for (jint j = 0; j < first_count && !seen; j++)
            seen = (*env)->IsSameObject(env, second[i], first[j]);
        extra += !seen;
    }
    return extra;
}

static void free_thread_list(JNIEnv *env, jthread *threads, jint count)
{
    for (jint i = 0; i < count; i++)
        (*env)->DeleteLocalRef(env, threads[i]);
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)threads);
}

/*
 * The owner's ThreadID (0 when the monitor is free), how many times the owner entered it,
 * and how many threads wait on it: to enter it or in Object.wait().  JDKs before 22
 * count the threads in wait() among JVMTI's waiters too, later ones only among its
 * notify_waiters, so each thread is counted once whichever list it is in.
 */
HRESULT STDMETHODCALLTYPE idinfo_GetMonitorUsage(IJavaEventMonitorIDInfo4 *iface, ObjectID object_id,
                                                 ThreadID *powner_thread, unsigned *pentry_count,
                                                 unsigned *pwaiter_count)
{
    (void)iface;
    JNIEnv *env = jv_jni();
    jobject obj = jv_object_local(env, object_id);
    jvmtiMonitorUsage usage;
    if (!obj || !powner_thread || !pentry_count || !pwaiter_count ||
        (*jv_jvmti)->GetObjectMonitorUsage(jv_jvmti, obj, &usage) != JVMTI_ERROR_NONE) {
        if (obj)
            (*env)->DeleteLocalRef(env, obj);
        return E_FAIL;
    }
    *powner_thread = usage.owner ? jv_thread_id(jv_thread_of(env, usage.owner)) : 0;
    *pentry_count = (unsigned)usage.entry_count;
    *pwaiter_count = (unsigned)usage.waiter_count +
                     count_not_in(env, usage.waiters, usage.waiter_count, usage.notify_waiters,
                                  usage.notify_waiter_count);
    free_thread_list(env, usage.waiters, usage.waiter_count);
    free_thread_list(env, usage.notify_waiters, usage.notify_waiter_count);
    if (usage.owner)
        (*env)->DeleteLocalRef(env, usage.owner);
    (*env)->DeleteLocalRef(env, obj);
    return S_OK;
}
