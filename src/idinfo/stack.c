/*
 * stack.c - GetStackTrace: one NotifyEvent2(STACK_TRACE, MethodID, StackID) per frame of a
 * thread, outermost frame first, on the calling thread.  A virtual thread, mounted or not, is
 * traced from above its continuation's frames (thread.h), as its method calls count depth.
 * The instrumented path's bridge frames (jevmon/Bridge's natives) are left out.
 */
#include <stdlib.h>

#include "dispatch/monitor_table.h"
#include "idinfo/idinfo.h"
#include "ids/ids.h"
#include "ids/method.h"
#include "ids/original_code.h"
#include "ids/thread.h"

#define MAX_TRACE_FRAMES 4096

HRESULT STDMETHODCALLTYPE idinfo_GetStackTrace(IJavaEventMonitorIDInfo4 *iface, ThreadID thread_id)
{
    jv_monitor *m = jv_idinfo_owner(iface);
    JNIEnv *env = jv_jni();
    if (!m || !m->mon2 || !env)
        return E_FAIL; /* the frames are reported through IJavaEventMonitor2::NotifyEvent2 */
    jv_thread *t = thread_id ? jv_thread_get(thread_id) : jv_thread_current(env, NULL);
    if (!t)
        return E_FAIL;
    jthread thread = jv_thread_local_ref(env, t);
    if (!thread)
        return E_FAIL;
    jvmtiFrameInfo *frames = malloc(MAX_TRACE_FRAMES * sizeof(*frames));
    jint count = 0;
    HRESULT hr = E_FAIL;
    /* JVMTI takes the trace in one handshake with the thread, so it is a consistent snapshot. */
    if (frames &&
        (*jv_jvmti)->GetStackTrace(jv_jvmti, thread, 0, MAX_TRACE_FRAMES, frames, &count) == JVMTI_ERROR_NONE) {
        hr = S_OK;
        jint base = jv_thread_base_frames(env, thread, t); /* a virtual thread's continuation's frames */
        jint kept = 0; /* the bridge's frames (instrumented path) are not the program's */
        for (jint i = 0; i < count - base; i++)
            if (!jv_rewrite_is_bridge_method(frames[i].method))
                frames[kept++] = frames[i];
        count = kept + base;
        for (jint i = count - 1 - base; i >= 0 && hr == S_OK; i--) {
            MethodID method = jv_method_id(env, frames[i].method);
            hr = IJavaEventMonitor2_NotifyEvent2(m->mon2, JVM_EVENT_TYPE2_STACK_TRACE, method,
                                                 jv_stack_id(t->index, (uint32_t)(count - base - i)));
        }
    }
    free(frames);
    (*env)->DeleteLocalRef(env, thread);
    return hr;
}
