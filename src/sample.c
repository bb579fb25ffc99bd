/*
 * sample.c - SampleThreadLocation from JVMTI's view of the thread: its state, and the
 * method and bytecode offset of its innermost frame.  JVMTI reports a running thread's
 * frame at its next safepoint, so such samples are marked less than exact.
 */
#include "idinfo_methods.h"
#include "ids.h"
#include "method.h"
#include "thread.h"

/* Accuracy of a JVMTI frame sample: right method, but biased toward safepoints. */
#define SAFEPOINT_ACCURACY ((JVM_METHOD_SAMPLE_ACCURACY)50)

static JVM_METHOD_SAMPLE_LOCATION location_of_state(jint state)
{
    if (state & (JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER | JVMTI_THREAD_STATE_WAITING))
        return JVM_LOCATION_BLOCKING;
    if (state & JVMTI_THREAD_STATE_IN_NATIVE)
        return JVM_LOCATION_NATIVE;
    return JVM_LOCATION_UNKNOWN;
}

HRESULT STDMETHODCALLTYPE idinfo_SampleThreadLocation(IJavaEventMonitorIDInfo4 *iface, ThreadID thread_id,
                                                      JVM_METHOD_SAMPLE *psample)
{
    (void)iface;
    JNIEnv *env = jv_jni();
    jv_thread *t = jv_thread_get(thread_id);
    if (!psample || !env || !t)
        return E_FAIL;
    DWORD wanted = psample->flags;
    psample->flags = 0;
    psample->accuracy = JVM_SAMPLE_NONE;
    jthread thread = (*env)->NewLocalRef(env, t->ref);
    if (!thread)
        return E_FAIL;
    jint state = 0, depth = 0;
    jmethodID method = NULL;
    jlocation location = -1;
    HRESULT hr = E_FAIL;
    if ((*jv_jvmti)->GetThreadState(jv_jvmti, thread, &state) == JVMTI_ERROR_NONE &&
        (state & JVMTI_THREAD_STATE_ALIVE)) {
        hr = S_OK;
        if (wanted & JVM_SAMPLE_LOCATION) {
            psample->location_type = location_of_state(state);
            psample->flags |= JVM_SAMPLE_LOCATION;
        }
        /* A thread with no Java frame (VM-internal work, not started yet) has no method to report. */
        if ((*jv_jvmti)->GetFrameLocation(jv_jvmti, thread, 0, &method, &location) == JVMTI_ERROR_NONE) {
            psample->accuracy = SAFEPOINT_ACCURACY;
            if ((wanted & JVM_SAMPLE_METHOD_ID) && (psample->method_id = jv_method_id(env, method)))
                psample->flags |= JVM_SAMPLE_METHOD_ID;
            if ((wanted & JVM_SAMPLE_STACK_ID) &&
                (*jv_jvmti)->GetFrameCount(jv_jvmti, thread, &depth) == JVMTI_ERROR_NONE &&
                (psample->stack_id = jv_stack_id(t->index, (uint32_t)depth)))
                psample->flags |= JVM_SAMPLE_STACK_ID;
            if ((wanted & JVM_SAMPLE_PC) && location >= 0) {
                psample->pc_offset = (DWORD)location;
                psample->flags |= JVM_SAMPLE_PC;
            }
        } else
            psample->accuracy = JVM_SAMPLE_POOR;
    }
    (*env)->DeleteLocalRef(env, thread);
    return hr;
}
