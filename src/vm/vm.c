/* vm.c - the JVM handles, the live phase, and JNI access from any thread (see vm.h). */
#include <stdatomic.h>
#include <string.h>

#include "platform/platform.h"
#include "vm/vm.h"

JavaVM *jv_vm;
jvmtiEnv *jv_jvmti;
atomic_int jv_vm_live_flag;
static _Thread_local int in_gc_callback;

void jv_vm_set_live(int live)
{
    atomic_store(&jv_vm_live_flag, live);
}

void jv_vm_enter_gc_callback(void)
{
    in_gc_callback = 1;
}

void jv_vm_leave_gc_callback(void)
{
    in_gc_callback = 0;
}

int jv_vm_in_gc_callback(void)
{
    return in_gc_callback;
}

/*
 * A thread the bridge attached, as it ends.  HotSpot's exit waits up to 300 ms for every thread
 * it sees in native code to block (VM_Exit::wait_for_threads_in_native_to_block), and an attached
 * thread that ended without detaching stays one for good: each monitor thread that had called the
 * bridge (a sampling timer) added 0.3 s to the end of every run.
 */
static void detach_ending_thread(void)
{
    JNIEnv *env = NULL;
    if (jv_vm && jv_vm_live() && (*jv_vm)->GetEnv(jv_vm, (void **)&env, JNI_VERSION_1_8) == JNI_OK)
        (*jv_vm)->DetachCurrentThread(jv_vm);
}

JNIEnv *jv_jni(void)
{
    JNIEnv *env = NULL;
    if (!jv_vm || !jv_vm_live() || in_gc_callback)
        return NULL;
    jint rc = (*jv_vm)->GetEnv(jv_vm, (void **)&env, JNI_VERSION_1_8);
    if (rc == JNI_EDETACHED) {
        JavaVMAttachArgs args = {JNI_VERSION_1_8, "jevmon monitor thread", NULL};
        if ((*jv_vm)->AttachCurrentThreadAsDaemon(jv_vm, (void **)&env, &args) != JNI_OK)
            return NULL;
        static atomic_int said;
        if (plat_thread_at_exit(detach_ending_thread) && !atomic_exchange(&said, 1))
            jv_log("cannot have monitor threads detached from the JVM as they end; each may delay the JVM's exit");
    } else if (rc != JNI_OK)
        return NULL;
    return env;
}

char *jv_cotask_strdup(const char *s)
{
    size_t len = strlen(s) + 1;
    char *copy = CoTaskMemAlloc(len);
    if (copy)
        memcpy(copy, s, len);
    return copy;
}

void *jv_jvm_symbol(const char *name)
{
    /* Any JVMTI function's address lies in the JVM's library. */
    return jv_jvmti ? plat_module_symbol((const void *)(*jv_jvmti)->GetVersionNumber, name) : NULL;
}
