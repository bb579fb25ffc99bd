/*
 * native_walk.c - the native frames of a sampled thread, and IJevmonNativeSampling's naming.
 *
 * The walk runs inside the sampling signal handler, on the interrupted thread (async-signal-safe):
 * from the interrupted ip, sp and frame pointer it follows the chain of saved frame pointers, each
 * frame's return address beside it.  The stack is read through plat_read_memory (a system call that
 * fails instead of faulting) into a window of JV_NATIVE_WINDOW bytes, first from the stack pointer,
 * then from a frame read outside it; the window usually holds the next frames too (callers' frames
 * lie above), so a walk costs one or two system calls, not one a frame (3.8 us each on this
 * project's test machine).  A frame pointer must lie above the last one within a stack's reach, so
 * a frame pointer that is not one (a library built without them uses the register for data) ends
 * the walk: it is marked broken, and the monitor counts it as not walked.  HotSpot's libjvm keeps
 * frame pointers, and so does the interpreter.  The walk stops at the thread's outermost frame (a
 * frame pointer of 0: the C library zeroes it where a thread starts) or after JV_NATIVE_DEPTH
 * frames.  The handler keeps the registers and the top of the stack too.
 *
 * Off the signal path (jv_native_stack_out), on that copy: the innermost function's caller, which
 * the chain misses when that function set up no frame pointer (a leaf, a C library function), from
 * its call frame information (plat_native_cfa, libdw); then the frames are cut at the first one in
 * the JVM's generated code (the code map's stubs and the interpreter, and code in no library the
 * loader mapped: the JIT's, whose methods the code map may not keep): those are Java frames,
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

/* Reads the window from address: 0 when not even 16 bytes can be read. */
static int read_window(jv_native_stack *stack, uint64_t address)
{
    stack->window_length = 0;
    /* A read that crosses into memory that is not mapped fails whole: then only 16 bytes. */
    if (plat_read_memory(address, stack->window, sizeof(stack->window)))
        stack->window_length = sizeof(stack->window);
    else if (plat_read_memory(address, stack->window, 16))
        stack->window_length = 16;
    else
        return 0;
    stack->window_at = address;
    return 1;
}

/* The 16 bytes at address (a frame pointer, the return address), from the window, which is read
 * again from address when they are not in it; 0 when they cannot be read. */
static int read_frame(jv_native_stack *stack, uint64_t address, uint64_t frame[2])
{
    if ((address < stack->window_at || address + 16 > stack->window_at + stack->window_length) &&
        !read_window(stack, address))
        return 0;
    memcpy(frame, stack->window + (address - stack->window_at), 16);
    return 1;
}

void jv_native_walk(const void *context, jv_native_stack *stack)
{
    uint64_t ip, sp, fp;
    stack->count = 0;
    stack->window_at = stack->window_length = 0;
    stack->end = JV_NATIVE_NOT_WALKED;
    stack->os_tid = plat_os_thread_id();
    if (!(atomic_load(&flags) & JEVMON_NATIVE_FRAMES) || !plat_context_frame(context, &ip, &sp, &fp))
        return;
    stack->pcs[stack->count++] = ip;
    stack->end = JV_NATIVE_BROKEN;
    stack->sp = sp, stack->fp = fp, stack->top_length = 0;
    if (read_window(stack, sp)) { /* the top of the stack, whose first frames it usually holds too */
        stack->top_length = stack->window_length < sizeof(stack->top) ? stack->window_length : sizeof(stack->top);
        memcpy(stack->top, stack->window, stack->top_length);
    }
    while (stack->count < JV_NATIVE_DEPTH) {
        uint64_t frame[2]; /* the caller's frame pointer, the return address */
        if (!fp) {
            stack->end = JV_NATIVE_OUTERMOST;
            return;
        }
        if (fp < sp || (fp & 7) || fp - sp > MAX_FRAME_SPAN || !read_frame(stack, fp, frame))
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

/*
 * The innermost function's caller where the frame-pointer walk missed it: a function that set up
 * no frame pointer (a leaf, a C library function) leaves the frame pointer its caller's, so the
 * walk's second frame is its caller's caller.  Its call frame information (plat_native_cfa) says
 * where its return address is, read from the top of the stack the handler copied; 0 when that is
 * not known or the walk has it already.
 */
static uint64_t missed_caller(const jv_native_stack *stack)
{
    int fp_based = 0;
    int64_t offset = 0;
    uint64_t return_address = 0;
    if (stack->count < 1 || !plat_native_cfa(stack->pcs[0], &fp_based, &offset))
        return 0;
    uint64_t at = (fp_based ? stack->fp : stack->sp) + (uint64_t)offset - 8;
    if (at < stack->sp || at + 8 > stack->sp + stack->top_length)
        return 0;
    memcpy(&return_address, stack->top + (at - stack->sp), 8);
    if (!return_address || (stack->count > 1 && return_address - 1 == stack->pcs[1]))
        return 0;
    return return_address - 1;
}

/* Is the address in the JVM's generated code (the interpreter, a stub, a compiled method)?  The
 * code map has the stubs; a compiled method it has only while its compiled methods are kept
 * (codemap.h), and code in no library the loader mapped is the JIT's. */
static int generated(uintptr_t address)
{
    jv_code_range range;
    return jv_codemap_find(address, &range) != JV_CODE_NONE || !plat_native_code(address);
}

void jv_native_stack_out(const jv_native_stack *stack, int vm_thread, JEVMON_NATIVE_STACK *out)
{
    uint64_t pcs[JV_NATIVE_DEPTH + 1];
    int count = stack->count, native = 0, java = 0;
    if (count && !generated((uintptr_t)stack->pcs[0]) && (pcs[1] = missed_caller(stack))) {
        pcs[0] = stack->pcs[0];
        memcpy(pcs + 2, stack->pcs + 1, (size_t)(count - 1) * sizeof(*pcs));
        count++;
    } else {
        memcpy(pcs, stack->pcs, (size_t)count * sizeof(*pcs));
    }
    while (native < count && !(java = generated((uintptr_t)pcs[native])))
        native++;
    int kept = native < JEVMON_NATIVE_MAX_FRAMES ? native : JEVMON_NATIVE_MAX_FRAMES;
    out->os_thread = stack->os_tid;
    out->vm_thread = vm_thread ? TRUE : FALSE;
    out->count = (DWORD)kept;
    for (int i = 0; i < kept; i++) /* outermost first */
        out->frames[i] = pcs[kept - 1 - i];
    out->walk = stack->end == JV_NATIVE_NOT_WALKED ? JEVMON_NATIVE_NOT_WALKED
                : java                             ? JEVMON_NATIVE_TO_JAVA
                : stack->end == JV_NATIVE_OUTERMOST ? JEVMON_NATIVE_COMPLETE
                                                   : JEVMON_NATIVE_STOPPED;
    if (kept < native)
        out->walk = JEVMON_NATIVE_STOPPED;
}

/* ---- IJevmonNativeSampling: naming ---------------------------------------------------------- */

/* A name the platform found (found), handed out CoTaskMemAlloc'd; missing when it found none. */
static HRESULT hand_out_name(LPSTR *pname, int found, const char *name, HRESULT missing)
{
    if (!pname)
        return E_POINTER;
    *pname = NULL;
    if (!found)
        return missing;
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
    /* S_FALSE: in no library (generated code), or a system that cannot say */
    return hand_out_name(pname, pname && plat_native_symbol(address, name, sizeof(name)), name, S_FALSE);
}

HRESULT STDMETHODCALLTYPE native_GetOsThreadName(IJevmonNativeSampling *iface, DWORD os_thread, LPSTR *pname)
{
    char name[256];
    (void)iface;
    return hand_out_name(pname, pname && plat_os_thread_name(os_thread, name, sizeof(name)), name, E_FAIL);
}

HRESULT STDMETHODCALLTYPE native_SetNativeSampling(IJevmonNativeSampling *iface, DWORD value)
{
    (void)iface;
    if (value & ~(DWORD)(JEVMON_NATIVE_FRAMES | JEVMON_NATIVE_VM_THREADS))
        return E_INVALIDARG;
    jv_native_set_flags(value);
    return S_OK;
}
