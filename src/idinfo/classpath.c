/*
 * classpath.c - the IDInfo method GetClassPath: the JVM's java.class.path, where the
 * application's classes are searched (the Microsoft VM's CLASSPATH and registry paths
 * played that part; a modern JVM finds its own classes in its runtime image).
 */
#include "idinfo/idinfo.h"
#include "vm/vm.h"

HRESULT STDMETHODCALLTYPE idinfo_GetClassPath(IJavaEventMonitorIDInfo4 *iface, LPSTR *ppszClassPath)
{
    (void)iface;
    char *path = NULL;
    jv_jni(); /* JVMTI refuses threads the JVM has not seen: a monitor's own thread is attached first */
    if (!jv_jvmti || !ppszClassPath ||
        (*jv_jvmti)->GetSystemProperty(jv_jvmti, "java.class.path", &path) != JVMTI_ERROR_NONE)
        return E_FAIL;
    *ppszClassPath = jv_cotask_strdup(path ? path : "");
    if (path)
        (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)path);
    return *ppszClassPath ? S_OK : E_OUTOFMEMORY;
}
