/* vm.c - the JVM handles, the live phase, and JNI access from any thread (see vm.h). */
#include <stdatomic.h>
#include <string.h>

#include "vm.h"

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
