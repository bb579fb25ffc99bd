/*
 * native_walk.c - the native frames of a sampled thread, and IJevmonNativeSampling's naming.
 *
 * The walk runs inside the sampling signal handler, on the interrupted thread (async-signal-safe):
 * from the interrupted ip, sp and frame pointer it follows the chain of saved frame pointers, each
 * frame's return address beside it.  Every read goes through plat_read_memory (a system call that
 * fails instead of faulting), and a frame pointer must lie above the last one within a stack's
 * reach, so a frame pointer that is not one (a library built without them uses the register for
 * data) ends the walk: it is marked broken, and the monitor counts it as not walked.  HotSpot's
 * libjvm keeps frame pointers, and so does the interpreter.  The walk stops at the thread's
 * outermost frame (a frame pointer of 0: the C library zeroes it where a thread starts) or after
 * JV_NATIVE_DEPTH frames.
 *
 * Off the signal path (jv_native_stack_out) the frames are cut at the first one in the JVM's
 * generated code (the code map: compiled methods, the interpreter, stubs): those are Java frames,
 * which AsyncGetCallTrace names, and JIT-compiled code keeps no frame pointer.  Naming a frame
 * (GetNativeFrameName) reads the library's ELF symbols at dump time (plat_native_symbol).
 */
#include <stdatomic.h>
#include <string.h>

#include "ids/codemap.h"
#include "ids/idinfo_methods.h"
#include "platform/platform.h"
#include "sampling/native_walk.h"

/* A frame pointer further than this above the previous one is not one (8 MiB: a thread's default stack). */
#define MAX_FRAME_SPAN (8u << 20)

static atomic_uint flags;

void jv_native_set_flags(DWORD value)
{
    atomic_store(&flags, value);
}

DWORD jv_native_flags(void)
{
    return atomic_load(&flags);
}

void jv_native_walk(const void *context, jv_native_stack *stack)
{
    uint64_t ip, sp, fp;
    stack->count = 0;
    stack->end = JV_NATIVE_NOT_WALKED;
    stack->os_tid = plat_os_thread_id();
    if (!(atomic_load(&flags) & JEVMON_NATIVE_FRAMES) || !plat_context_frame(context, &ip, &sp, &fp))
        return;
    stack->pcs[stack->count++] = ip;
    stack->end = JV_NATIVE_BROKEN;
    while (stack->count < JV_NATIVE_DEPTH) {
        uint64_t frame[2]; /* the caller's frame pointer, the return address */
        if (!fp) {
            stack->end = JV_NATIVE_OUTERMOST;
            return;
        }
        if (fp < sp || (fp & 7) || fp - sp > MAX_FRAME_SPAN || !plat_read_memory(fp, frame, sizeof(frame)))
            return;
        if (!frame[1]) {
            stack->end = JV_NATIVE_OUTERMOST;
            return;
        }
        stack->pcs[stack->count++] = frame[1] - 1; /* the call, not the instruction after it */
        sp = fp + sizeof(frame);
        fp = frame[0];
    }
    stack->end = JV_NATIVE_TOO_DEEP;
}

void jv_native_stack_out(const jv_native_stack *stack, int vm_thread, JEVMON_NATIVE_STACK *out)
{
    int native = 0, java = 0;
    jv_code_range range;
    while (native < stack->count && !(java = jv_codemap_find((uintptr_t)stack->pcs[native], &range) != JV_CODE_NONE))
        native++;
    int kept = native < JEVMON_NATIVE_MAX_FRAMES ? native : JEVMON_NATIVE_MAX_FRAMES;
    out->os_thread = stack->os_tid;
    out->vm_thread = vm_thread ? TRUE : FALSE;
    out->count = (DWORD)kept;
    for (int i = 0; i < kept; i++) /* outermost first */
        out->frames[i] = stack->pcs[kept - 1 - i];
    out->walk = stack->end == JV_NATIVE_NOT_WALKED ? JEVMON_NATIVE_NOT_WALKED
                : java                             ? JEVMON_NATIVE_TO_JAVA
                : stack->end == JV_NATIVE_OUTERMOST ? JEVMON_NATIVE_COMPLETE
                                                   : JEVMON_NATIVE_STOPPED;
    if (kept < native)
        out->walk = JEVMON_NATIVE_STOPPED;
}

/* ---- IJevmonNativeSampling: naming ---------------------------------------------------------- */

static HRESULT copy_name(const char *name, LPSTR *pname)
{
    size_t length = strlen(name) + 1;
    if (!(*pname = CoTaskMemAlloc(length)))
        return E_OUTOFMEMORY;
    memcpy(*pname, name, length);
    return S_OK;
}

HRESULT STDMETHODCALLTYPE native_GetNativeFrameName(IJevmonNativeSampling *iface, ULONGLONG address, LPSTR *pname)
{
    char name[1024];
    (void)iface;
    if (!pname)
        return E_POINTER;
    *pname = NULL;
    if (!plat_native_symbol(address, name, sizeof(name)))
        return S_FALSE; /* in no library: generated code, or a system that cannot say */
    return copy_name(name, pname);
}

HRESULT STDMETHODCALLTYPE native_GetOsThreadName(IJevmonNativeSampling *iface, DWORD os_thread, LPSTR *pname)
{
    char name[256];
    (void)iface;
    if (!pname)
        return E_POINTER;
    *pname = NULL;
    if (!plat_os_thread_name(os_thread, name, sizeof(name)))
        return E_FAIL;
    return copy_name(name, pname);
}

HRESULT STDMETHODCALLTYPE native_SetNativeSampling(IJevmonNativeSampling *iface, DWORD value)
{
    (void)iface;
    if (value & ~(DWORD)(JEVMON_NATIVE_FRAMES | JEVMON_NATIVE_VM_THREADS))
        return E_INVALIDARG;
    jv_native_set_flags(value);
    return S_OK;
}
