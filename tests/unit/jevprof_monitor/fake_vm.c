/* fake_vm.c - the stand-in VM of the jevprof monitor suite (see fake_vm.h). */
#include <stddef.h>
#include <string.h>

#include "fake_vm.h"

static _Thread_local ThreadID current_thread;

void fake_vm_set_current_thread(ThreadID thread)
{
    current_thread = thread;
}

static fake_vm *impl(IJavaEventMonitorIDInfo4 *iface)
{
    return (fake_vm *)((char *)iface - offsetof(fake_vm, IJavaEventMonitorIDInfo4_iface));
}

static LPSTR cotask_copy(const char *text)
{
    LPSTR copy = CoTaskMemAlloc(strlen(text) + 1);
    strcpy(copy, text);
    return copy;
}

static const char *const method_names[] = {
    NULL, "demo/Main.main([Ljava/lang/String;)V", "demo/Main.work()V", "demo/Main.hot(I)J", "demo/Main.cold()V",
    "demo/Gone.run()V",
};

/* ---- IUnknown ---- */
static HRESULT STDMETHODCALLTYPE vm_QueryInterface(IJavaEventMonitorIDInfo4 *iface, REFIID riid, void **ppv)
{
    if (IsEqualIID(riid, &IID_IUnknown) || IsEqualIID(riid, &IID_IJavaEventMonitorIDInfo) ||
        IsEqualIID(riid, &IID_IJavaEventMonitorIDInfo2) || IsEqualIID(riid, &IID_IJavaEventMonitorIDInfo3) ||
        IsEqualIID(riid, &IID_IJavaEventMonitorIDInfo4)) {
        *ppv = iface;
        atomic_fetch_add(&impl(iface)->ref, 1);
        return S_OK;
    }
    *ppv = NULL;
    return E_NOINTERFACE;
}
static ULONG STDMETHODCALLTYPE vm_AddRef(IJavaEventMonitorIDInfo4 *iface) { return (ULONG)atomic_fetch_add(&impl(iface)->ref, 1) + 1; }
static ULONG STDMETHODCALLTYPE vm_Release(IJavaEventMonitorIDInfo4 *iface) { return (ULONG)atomic_fetch_sub(&impl(iface)->ref, 1) - 1; }

/* ---- IJavaEventMonitorIDInfo ---- */
static HRESULT STDMETHODCALLTYPE vm_ClassInformation(IJavaEventMonitorIDInfo4 *iface, ClassID class_id, LPSTR *ppclass_name,
                                                     LPSTR *ppsource_file_name, int *pmethods, MethodID **ppmethod_ids,
                                                     __int64 *pobjects_created)
{
    fake_vm *vm = impl(iface);
    if (vm->fail_everything || (class_id != 1000 && class_id != FAKE_GONE_CLASS))
        return E_FAIL;
    *ppclass_name = cotask_copy(class_id == 1000 ? "demo.Oops" : "demo.Gone");
    *ppsource_file_name = cotask_copy("Demo.java");
    *pmethods = class_id == FAKE_GONE_CLASS;
    *ppmethod_ids = CoTaskMemAlloc(sizeof(MethodID));
    (*ppmethod_ids)[0] = FAKE_GONE_RUN;
    *pobjects_created = 0;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE vm_GetEventMask(IJavaEventMonitorIDInfo4 *iface, DWORD *pevents) { (void)iface, (void)pevents; return E_NOTIMPL; }
static HRESULT STDMETHODCALLTYPE vm_GetMonitorUsage(IJavaEventMonitorIDInfo4 *iface, ObjectID o, ThreadID *t, unsigned *e, unsigned *w) { (void)iface, (void)o, (void)t, (void)e, (void)w; return E_NOTIMPL; }
static HRESULT STDMETHODCALLTYPE vm_InterpretedMethodInformation(IJavaEventMonitorIDInfo4 *iface, MethodID m, unsigned int *l, BYTE_CODE **c) { (void)iface, (void)m, (void)l, (void)c; return E_NOTIMPL; }
static HRESULT STDMETHODCALLTYPE vm_JITCompiledMethodInformation(IJavaEventMonitorIDInfo4 *iface, MethodID m, unsigned int *l, unsigned char **c) { (void)iface, (void)m, (void)l, (void)c; return E_NOTIMPL; }
static HRESULT STDMETHODCALLTYPE vm_MethodInformation(IJavaEventMonitorIDInfo4 *iface, MethodID method_id, LPSTR *ppmethod_name,
                                                      ClassID *pclass_id, JAVA_EXECUTION_MODEL *pexec,
                                                      int *psource_line_info_length, SourceLineInfo **ppsource_line_info)
{
    fake_vm *vm = impl(iface);
    if (vm->fail_everything || method_id < FAKE_MAIN || method_id > FAKE_GONE_RUN ||
        (method_id == FAKE_GONE_RUN && vm->unloaded_class))
        return E_FAIL;
    *ppmethod_name = cotask_copy(method_names[method_id]);
    *pclass_id = method_id == FAKE_GONE_RUN ? FAKE_GONE_CLASS : 3000;
    *pexec = JVM_EXECUTION_JIT_COMPILED;
    *psource_line_info_length = 1;
    *ppsource_line_info = CoTaskMemAlloc(sizeof(SourceLineInfo));
    (*ppsource_line_info)[0].code_offset = 0;
    (*ppsource_line_info)[0].line_number = 10;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE vm_ObjectInformation(IJavaEventMonitorIDInfo4 *iface, ObjectID object_id, ClassID *pclass_id)
{
    if (impl(iface)->fail_everything || object_id != FAKE_EXCEPTION_OBJECT)
        return E_FAIL;
    *pclass_id = 1000;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE vm_SetEventMask(IJavaEventMonitorIDInfo4 *iface, DWORD events) { (void)iface, (void)events; return E_NOTIMPL; }

/* ---- IJavaEventMonitorIDInfo2 ---- */
static HRESULT STDMETHODCALLTYPE vm_DescribeObject(IJavaEventMonitorIDInfo4 *iface, ObjectID o, LPWSTR *d) { (void)iface, (void)o, (void)d; return E_NOTIMPL; }
static HRESULT STDMETHODCALLTYPE vm_FieldInformation(IJavaEventMonitorIDInfo4 *iface, FieldID f, LPSTR *n, DWORD *fl) { (void)iface, (void)f, (void)n, (void)fl; return E_NOTIMPL; }
static HRESULT STDMETHODCALLTYPE vm_FreeHandlesToObjects(IJavaEventMonitorIDInfo4 *iface, unsigned int n, ObjectHandleID *h) { (void)iface, (void)n, (void)h; return E_NOTIMPL; }
static HRESULT STDMETHODCALLTYPE vm_GetArrayElement(IJavaEventMonitorIDInfo4 *iface, ObjectID o, unsigned i, __int64 *v) { (void)iface, (void)o, (void)i, (void)v; return E_NOTIMPL; }
static HRESULT STDMETHODCALLTYPE vm_GetClassFields(IJavaEventMonitorIDInfo4 *iface, ClassID c, unsigned *n, FieldID **f) { (void)iface, (void)c, (void)n, (void)f; return E_NOTIMPL; }
static HRESULT STDMETHODCALLTYPE vm_GetClassPath(IJavaEventMonitorIDInfo4 *iface, LPSTR *p) { (void)iface, (void)p; return E_NOTIMPL; }
static HRESULT STDMETHODCALLTYPE vm_GetCurrentThread(IJavaEventMonitorIDInfo4 *iface, ThreadID *pthread_id)
{
    if (impl(iface)->fail_everything || !current_thread)
        return E_FAIL;
    *pthread_id = current_thread;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE vm_GetHandlesToObjects(IJavaEventMonitorIDInfo4 *iface, unsigned n, ObjectID *o, ObjectHandleID *h) { (void)iface, (void)n, (void)o, (void)h; return E_NOTIMPL; }
static HRESULT STDMETHODCALLTYPE vm_GetObjectField(IJavaEventMonitorIDInfo4 *iface, ObjectID o, FieldID f, __int64 *v) { (void)iface, (void)o, (void)f, (void)v; return E_NOTIMPL; }
static HRESULT STDMETHODCALLTYPE vm_GetObjectSize(IJavaEventMonitorIDInfo4 *iface, ObjectID o, DWORD *s) { (void)iface, (void)o, (void)s; return E_NOTIMPL; }
static HRESULT STDMETHODCALLTYPE vm_GetObjectsFromHandles(IJavaEventMonitorIDInfo4 *iface, unsigned n, ObjectHandleID *h, ObjectID *o) { (void)iface, (void)n, (void)h, (void)o; return E_NOTIMPL; }
static HRESULT STDMETHODCALLTYPE vm_GetProfilingCapabilities(IJavaEventMonitorIDInfo4 *iface, DWORD *s, DWORD *c, JAVA_EXECUTION_MODEL *m, JVM_EVENT_TYPE *t, JVM_EVENT_TYPE2 *t2) { (void)iface, (void)s, (void)c, (void)m, (void)t, (void)t2; return E_NOTIMPL; }
static HRESULT STDMETHODCALLTYPE vm_GetSpecialClassProperties(IJavaEventMonitorIDInfo4 *iface, unsigned *n, ClassID **c, DWORD **f) { (void)iface, (void)n, (void)c, (void)f; return E_NOTIMPL; }

static const fake_thread_stack *stack_of(fake_vm *vm, ThreadID thread)
{
    for (int i = 0; i < FAKE_MAX_THREADS; i++)
        if (vm->stacks[i].thread == thread)
            return &vm->stacks[i];
    return NULL;
}

/* Frames outermost first, through the monitor, on the calling thread (spec 4.4). */
static HRESULT STDMETHODCALLTYPE vm_GetStackTrace(IJavaEventMonitorIDInfo4 *iface, ThreadID thread_id)
{
    fake_vm *vm = impl(iface);
    const fake_thread_stack *stack = stack_of(vm, thread_id ? thread_id : current_thread);
    if (vm->fail_everything || !stack || vm->stack_trace_fails) {
        atomic_fetch_add(&vm->stack_traces, vm->stack_trace_fails);
        return E_FAIL;
    }
    HRESULT hr = S_OK;
    for (int i = 0; i < stack->count && hr == S_OK; i++)
        hr = IJavaEventMonitor2_NotifyEvent2(vm->monitor, JVM_EVENT_TYPE2_STACK_TRACE, stack->frames[i],
                                             (StackID)(100 + i + 1));
    atomic_fetch_add(&vm->stack_traces, stack->count > 0);
    return hr;
}
static HRESULT STDMETHODCALLTYPE vm_SampleThreadLocation(IJavaEventMonitorIDInfo4 *iface, ThreadID thread_id,
                                                         JVM_METHOD_SAMPLE *psample)
{
    fake_vm *vm = impl(iface);
    const fake_thread_stack *stack = stack_of(vm, thread_id);
    if (vm->fail_everything)
        return E_FAIL;
    if (!vm->sample_location)
        return E_NOTIMPL;
    if (!stack)
        return E_FAIL;
    psample->flags = JVM_SAMPLE_LOCATION | (stack->count ? JVM_SAMPLE_METHOD_ID : 0);
    psample->accuracy = (JVM_METHOD_SAMPLE_ACCURACY)50;
    psample->location_type = stack->blocking ? JVM_LOCATION_BLOCKING : JVM_LOCATION_UNKNOWN;
    psample->method_id = stack->count ? stack->frames[stack->count - 1] : 0;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE vm_StaticClassInformation(IJavaEventMonitorIDInfo4 *iface, ClassID c, DWORD *s, DWORD *i) { (void)iface, (void)c, (void)s, (void)i; return E_NOTIMPL; }
static HRESULT STDMETHODCALLTYPE vm_ThreadInformation(IJavaEventMonitorIDInfo4 *iface, ThreadID t, DWORD *o) { (void)iface, (void)t, (void)o; return E_NOTIMPL; }

/* ---- IJavaEventMonitorIDInfo3 ---- */
static HRESULT STDMETHODCALLTYPE vm_ClassInformation2(IJavaEventMonitorIDInfo4 *iface, ClassID c, ClassID *s, ClassID **i, unsigned int *il, MethodID **m, unsigned int *ml) { (void)iface, (void)c, (void)s, (void)i, (void)il, (void)m, (void)ml; return E_NOTIMPL; }
static HRESULT STDMETHODCALLTYPE vm_EnableMethodCallEvents(IJavaEventMonitorIDInfo4 *iface, ObjectID u, JVM_ID_TYPE t, JVM_METHOD_CALL_EVENTS_DISPOSITION d) { (void)iface, (void)u, (void)t, (void)d; return E_NOTIMPL; }
static HRESULT STDMETHODCALLTYPE vm_GetMethodEntryParameters(IJavaEventMonitorIDInfo4 *iface, DWORD **s, DWORD **r, JVM_CALLING_CONVENTION *c, DWORD *f) { (void)iface, (void)s, (void)r, (void)c, (void)f; return E_NOTIMPL; }
static HRESULT STDMETHODCALLTYPE vm_GetMethodExitReturnValue(IJavaEventMonitorIDInfo4 *iface, MethodID *m, __int64 **v) { (void)iface, (void)m, (void)v; return E_NOTIMPL; }

/* ---- IJavaEventMonitorIDInfo4 ---- */
static HRESULT STDMETHODCALLTYPE vm_GetFinalInitializationOptions(IJavaEventMonitorIDInfo4 *iface, DWORD *o) { (void)iface, (void)o; return E_NOTIMPL; }
static HRESULT STDMETHODCALLTYPE vm_GetMonitorInitializationOptions(IJavaEventMonitorIDInfo4 *iface, DWORD *o) { (void)iface, (void)o; return E_NOTIMPL; }
static HRESULT STDMETHODCALLTYPE vm_SetMonitorInitializationOptions(IJavaEventMonitorIDInfo4 *iface, DWORD options)
{
    fake_vm *vm = impl(iface);
    if (vm->fail_everything)
        return E_FAIL;
    vm->options = options;
    return S_OK;
}

static const IJavaEventMonitorIDInfo4Vtbl vm_vtbl = {
    vm_QueryInterface, vm_AddRef, vm_Release,
    vm_ClassInformation, vm_GetEventMask, vm_GetMonitorUsage, vm_InterpretedMethodInformation,
    vm_JITCompiledMethodInformation, vm_MethodInformation, vm_ObjectInformation, vm_SetEventMask,
    vm_DescribeObject, vm_FieldInformation, vm_FreeHandlesToObjects, vm_GetArrayElement, vm_GetClassFields,
    vm_GetClassPath, vm_GetCurrentThread, vm_GetHandlesToObjects, vm_GetObjectField, vm_GetObjectSize,
    vm_GetObjectsFromHandles, vm_GetProfilingCapabilities, vm_GetSpecialClassProperties, vm_GetStackTrace,
    vm_SampleThreadLocation, vm_StaticClassInformation, vm_ThreadInformation,
    vm_ClassInformation2, vm_EnableMethodCallEvents, vm_GetMethodEntryParameters, vm_GetMethodExitReturnValue,
    vm_GetFinalInitializationOptions, vm_GetMonitorInitializationOptions, vm_SetMonitorInitializationOptions,
};

void fake_vm_init(fake_vm *vm)
{
    memset(vm, 0, sizeof(*vm));
    vm->IJavaEventMonitorIDInfo4_iface.lpVtbl = &vm_vtbl;
    atomic_store(&vm->ref, 1);
}
