/*
 * native_walk.h - a thread's native frames (native_walk.c): walked by frame pointers inside the
 * sampling signal handler, cut at the JVM's generated code and handed to monitors off it.
 */
#ifndef JEVMON_NATIVE_WALK_H
#define JEVMON_NATIVE_WALK_H

#include "jevmon.h"

#define JV_NATIVE_DEPTH 128 /* frames walked; JEVMON_NATIVE_MAX_FRAMES kept */
#define JV_NATIVE_WINDOW 2048 /* bytes of stack copied at once by the walk beyond the top */
#define JV_NATIVE_TOP 8192    /* bytes from the stack pointer kept for the unwind off the signal path */
#define JV_KERNEL_DEPTH 64    /* kernel frames kept, the innermost */

enum { JV_NATIVE_NOT_WALKED, JV_NATIVE_OUTERMOST, JV_NATIVE_BROKEN, JV_NATIVE_TOO_DEEP, JV_NATIVE_IN_JAVA };

typedef struct jv_native_stack {
    DWORD os_tid;
    int count, end; /* end: how the walk stopped (JV_NATIVE_...) */
    uint64_t pcs[JV_NATIVE_DEPTH]; /* innermost first: where it ran, then each caller's call (return address - 1) */
    uint64_t fps[JV_NATIVE_DEPTH]; /* each frame's frame pointer: fps[i + 1] and pcs[i + 1] + 1 lie at fps[i] */
    uint64_t window_at, window_length; /* the walk's copy of the stack beyond the top: from window_at */
    unsigned char window[JV_NATIVE_WINDOW];
    uint64_t sp;                       /* where it ran: its stack pointer */
    size_t top_length;                 /* and the top of its stack, from sp */
    unsigned char top[JV_NATIVE_TOP];
    int kernel_count;                  /* the kernel frames it was in, innermost first */
    uint64_t kernel[JV_KERNEL_DEPTH];
} jv_native_stack;

/* SetNativeSampling's flags (JEVMON_NATIVE_FRAMES, JEVMON_NATIVE_VM_THREADS), for the next start. */
void jv_native_set_flags(DWORD flags);
DWORD jv_native_flags(void);
/* A stack of os_tid with no frames, walked or of the kernel (a thread that was not interrupted). */
void jv_native_not_walked(jv_native_stack *stack, DWORD os_tid);
/* Inside the signal handler, on the interrupted thread (async-signal-safe): its native frames
 * from the handler's context when native frames are asked for, else none (JV_NATIVE_NOT_WALKED). */
void jv_native_walk(const void *context, jv_native_stack *stack);
/* Then, in the same handler, the kernel frames the thread was in (innermost first), kept when
 * native frames are asked for. */
void jv_native_kernel(jv_native_stack *stack, const uint64_t *kernel, int count);
/* Off the signal path: the walk as a monitor gets it, unwound again with the libraries' call frame
 * information over what the handler kept, outermost first, up to the first frame in the JVM's
 * generated code (the Java frames' own, which AsyncGetCallTrace names), the kernel frames after
 * them; vm_thread as given. */
void jv_native_stack_out(const jv_native_stack *stack, int vm_thread, JEVMON_NATIVE_STACK *out);

/* This concern's methods of the IJavaEventMonitorIDInfo objects (their vtables: idinfo/idinfo.c). */
HRESULT STDMETHODCALLTYPE native_SetNativeSampling(IJevmonNativeSampling *iface, DWORD flags);
HRESULT STDMETHODCALLTYPE native_GetNativeFrameName(IJevmonNativeSampling *iface, ULONGLONG address, LPSTR *pname);
HRESULT STDMETHODCALLTYPE native_GetOsThreadName(IJevmonNativeSampling *iface, DWORD os_thread, LPSTR *pname);

#endif
