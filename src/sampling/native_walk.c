/*
 * native_walk.c - the native frames of a sampled thread, and IJevmonNativeSampling's naming.
 *
 * The walk runs inside the sampling signal handler, on the interrupted thread (async-signal-safe):
 * it copies the top of the stack (JV_NATIVE_TOP bytes from the stack pointer, as far as they are
 * mapped) and, from the interrupted ip, sp and frame pointer, follows the chain of saved frame
 * pointers, each frame's return address beside it, recording each frame pointer too.  Memory is
 * read through plat_read_memory (a system call that fails instead of faulting): the top in one
 * call, frames beyond it a window of JV_NATIVE_WINDOW bytes at a time, so a walk costs one or two
 * system calls, not one a frame (3.8 us each on this project's test machine).  A frame pointer
 * must lie above the last one within a stack's reach, so a frame pointer that is not one (a
 * library built without them uses the register for data) ends the chain.  HotSpot's libjvm keeps
 * frame pointers, and so does the interpreter.  The chain stops at the thread's outermost frame (a
 * frame pointer of 0: the C library zeroes it where a thread starts) or after JV_NATIVE_DEPTH
 * frames.  An ip in HotSpot's code heaps (compiled code, the interpreter, a stub) is where the
 * unwind below ends at once: then nothing is copied, which spares most Java threads' samples a
 * system call.
 *
 * Off the signal path (jv_native_stack_out), the stack is unwound again from the same registers
 * with each function's call frame information (plat_native_unwind_rule, libdw from the libraries'
 * .eh_frame; a function without any is taken to keep a frame pointer), reading what the handler
 * kept: the top of the stack, and the frames the chain read beyond it.  That finds the callers a
 * frame-pointer chain misses or loses (a leaf, or any function of a library built without frame
 * pointers, Debian's C library among them) as long as their frames lie in the copied top, and
 * goes on along the chain's frames beyond it.  It ends at the first frame in the JVM's generated
 * code (the code map's, or code in no library the loader mapped: the JIT's, whose methods the
 * code map may not keep): compiled methods and the interpreter are Java frames, which
 * AsyncGetCallTrace names, and JIT-compiled code keeps no frame pointer; a VM stub there (an
 * adapter, a vtable stub) is kept as the last native frame, named as the VM names it.  A step
 * whose memory was not kept, or that goes down the stack, ends the walk as stopped.  Naming a
 * frame (GetNativeFrameName) reads the library's ELF symbols (plat_native_symbol) off the signal
 * path.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "ids/codemap.h"
#include "platform/platform.h"
#include "sampling/native_walk.h"
#include "vm/hotspot_code.h"

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

/* The 16 bytes at address (a frame pointer, the return address), from the top or the window,
 * which is read again from address when they are in neither; 0 when they cannot be read. */
static int read_frame(jv_native_stack *stack, uint64_t address, uint64_t frame[2])
{
    if (address >= stack->sp && address + 16 <= stack->sp + stack->top_length) {
        memcpy(frame, stack->top + (address - stack->sp), 16);
        return 1;
    }
    if ((address < stack->window_at || address + 16 > stack->window_at + stack->window_length) &&
        !read_window(stack, address))
        return 0;
    memcpy(frame, stack->window + (address - stack->window_at), 16);
    return 1;
}

void jv_native_not_walked(jv_native_stack *stack, DWORD os_tid)
{
    stack->count = stack->kernel_count = 0;
    stack->window_at = stack->window_length = 0;
    stack->top_length = 0;
    stack->end = JV_NATIVE_NOT_WALKED;
    stack->os_tid = os_tid;
}

void jv_native_walk(const void *context, jv_native_stack *stack)
{
    uint64_t ip, sp, fp;
    jv_native_not_walked(stack, plat_os_thread_id());
    if (!(atomic_load(&flags) & JEVMON_NATIVE_FRAMES) || !plat_context_frame(context, &ip, &sp, &fp))
        return;
    stack->pcs[0] = ip, stack->fps[0] = fp, stack->count = 1;
    stack->sp = sp;
    if (jv_hotspot_code_at((uintptr_t)ip, NULL) > JV_HEAP_OUTSIDE) {
        stack->end = JV_NATIVE_IN_JAVA; /* the unwind ends at ip, and reads no memory */
        return;
    }
    stack->end = JV_NATIVE_BROKEN;
    stack->top_length = plat_read_memory_prefix(sp, stack->top, sizeof(stack->top));
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
        stack->pcs[stack->count] = frame[1] - 1; /* the call, not the instruction after it */
        stack->fps[stack->count++] = frame[0];
        sp = fp + sizeof(frame);
        fp = frame[0];
    }
    stack->end = JV_NATIVE_TOO_DEEP;
}

void jv_native_kernel(jv_native_stack *stack, const uint64_t *kernel, int count)
{
    if (!(atomic_load(&flags) & JEVMON_NATIVE_FRAMES))
        return;
    stack->kernel_count = count < JV_KERNEL_DEPTH ? count : JV_KERNEL_DEPTH;
    if (stack->kernel_count > 0)
        memcpy(stack->kernel, kernel, (size_t)stack->kernel_count * sizeof(*kernel));
}

/* The 8 bytes at address as the handler kept them: in the top of the stack, or in a frame the
 * chain read (fps[i + 1], then pcs[i + 1] + 1, at fps[i]); 0 when it kept none there. */
static int kept_word(const jv_native_stack *stack, uint64_t address, uint64_t *value)
{
    if (address >= stack->sp && address - stack->sp + 8 <= stack->top_length) {
        memcpy(value, stack->top + (address - stack->sp), 8);
        return 1;
    }
    for (int i = 0; i + 1 < stack->count; i++)
        if (address == stack->fps[i] || address == stack->fps[i] + 8) {
            *value = address == stack->fps[i] ? stack->fps[i + 1] : stack->pcs[i + 1] + 1;
            return 1;
        }
    return 0;
}

/* How a function that keeps a frame pointer finds its caller: the rule of one without call frame
 * information, and of one whose own rule needs memory the handler did not keep (a large frame
 * beyond the top: the chain of frame pointers goes on past a function that leaves the register
 * alone, as the walk in the handler did, without that function's caller). */
static const plat_unwind_rule frame_pointer_rule = {
    .cfa_fp = 1, .ra_saved = 1, .fp_saved = 1, .cfa_offset = 16, .ra_offset = -8, .fp_offset = -16};

/* One step by rule from pc (at sp, fp): the caller's return address, stack and frame pointers. */
static int step(const jv_native_stack *stack, const plat_unwind_rule *rule, uint64_t sp, uint64_t fp, uint64_t *ra,
                uint64_t *caller_sp, uint64_t *caller_fp)
{
    *caller_sp = (rule->cfa_fp ? fp : sp) + (uint64_t)rule->cfa_offset;
    *caller_fp = fp;
    return *caller_sp > sp && kept_word(stack, *caller_sp + (uint64_t)rule->ra_offset, ra) &&
           (!rule->fp_saved || kept_word(stack, *caller_sp + (uint64_t)rule->fp_offset, caller_fp));
}

/*
 * The stack unwound again with the call frame information, over what the handler kept (see the
 * header): its native frames, innermost first, into pcs (JV_NATIVE_DEPTH at most), and how it
 * ended in *end (JV_NATIVE_IN_JAVA at a frame in generated code).  Where a step cannot be taken at
 * the frame where the chain ended (its last frame pointer, its last frame), it ends as the chain did.
 */
static int unwind(const jv_native_stack *stack, uint64_t *pcs, int *end)
{
    uint64_t pc = stack->pcs[0], sp = stack->sp, fp = stack->fps[0];
    int count = 0;
    jv_code_range range;
    *end = JV_NATIVE_TOO_DEEP;
    while (count < JV_NATIVE_DEPTH) {
        plat_unwind_rule rule;
        uint64_t ra = 0, caller_sp, caller_fp;
        jv_code_kind kind = jv_codemap_find((uintptr_t)pc, &range);
        /* the code map's, a code heap's, or in no library (the JIT's): the code heaps are asked
         * first, as they answer at once where the loader's list of libraries is walked */
        if (kind != JV_CODE_NONE || jv_hotspot_code_at((uintptr_t)pc, NULL) > JV_HEAP_OUTSIDE ||
            !plat_native_code((uintptr_t)pc)) {
            /* a VM stub (an adapter, a vtable or itable stub, a runtime routine) is a frame of its
             * own, named as the VM names it; compiled code and the interpreter are Java frames */
            if (kind == JV_CODE_STUB && strcmp(range.name, "Interpreter") != 0)
                pcs[count++] = pc;
            *end = JV_NATIVE_IN_JAVA;
            break;
        }
        pcs[count++] = pc;
        if (!plat_native_unwind_rule(pc, &rule))
            rule = frame_pointer_rule;
        if (!rule.ra_saved) {
            *end = JV_NATIVE_OUTERMOST;
            break;
        }
        if (!step(stack, &rule, sp, fp, &ra, &caller_sp, &caller_fp) &&
            !step(stack, &frame_pointer_rule, sp, fp, &ra, &caller_sp, &caller_fp)) {
            int chain_end = fp == stack->fps[stack->count - 1] && pc == stack->pcs[stack->count - 1];
            *end = chain_end ? stack->end : JV_NATIVE_BROKEN;
            break;
        }
        if (!ra) {
            *end = JV_NATIVE_OUTERMOST;
            break;
        }
        pc = ra - 1; /* the call, not the instruction after it */
        sp = caller_sp;
        fp = caller_fp;
    }
    return count;
}

void jv_native_stack_out(const jv_native_stack *stack, int vm_thread, JEVMON_NATIVE_STACK *out)
{
    uint64_t pcs[JV_NATIVE_DEPTH];
    int end = JV_NATIVE_NOT_WALKED, native = stack->count ? unwind(stack, pcs, &end) : 0;
    int kernel = stack->kernel_count > 0 && stack->kernel_count <= JV_KERNEL_DEPTH ? stack->kernel_count : 0;
    int room = JEVMON_NATIVE_MAX_FRAMES - kernel;
    int kept = native < room ? native : room;
    out->os_thread = stack->os_tid;
    out->vm_thread = vm_thread ? TRUE : FALSE;
    out->count = (DWORD)(kept + kernel);
    out->kernel = (DWORD)kernel;
    for (int i = 0; i < kept; i++) /* outermost first */
        out->frames[i] = pcs[kept - 1 - i];
    for (int i = 0; i < kernel; i++) /* then the kernel's, innermost last */
        out->frames[kept + i] = stack->kernel[kernel - 1 - i];
    out->walk = stack->end == JV_NATIVE_NOT_WALKED ? JEVMON_NATIVE_NOT_WALKED
                : end == JV_NATIVE_IN_JAVA         ? JEVMON_NATIVE_TO_JAVA
                : end == JV_NATIVE_OUTERMOST       ? JEVMON_NATIVE_COMPLETE
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
    jv_code_range range;
    (void)iface;
    int found = pname && plat_native_symbol(address, name, sizeof(name));
    if (pname && !found && jv_codemap_find((uintptr_t)address, &range) == JV_CODE_STUB) {
        snprintf(name, sizeof(name), "%s", range.name); /* a VM stub: the VM's name ("itable stub") */
        found = 1;
    }
    if (pname && !found)
        found = plat_kernel_symbol(address, name, sizeof(name)); /* a kernel frame: "vmlinux`read_zero" */
    /* S_FALSE: in no library nor stub (compiled code), or a system that cannot say */
    return hand_out_name(pname, found, name, S_FALSE);
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
    if (value & ~(DWORD)(JEVMON_NATIVE_FRAMES | JEVMON_NATIVE_VM_THREADS | JEVMON_NATIVE_KERNEL_FRAMES))
        return E_INVALIDARG;
    jv_native_set_flags(value);
    return S_OK;
}
