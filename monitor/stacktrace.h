/*
 * stacktrace.h - one Java stack taken with GetStackTrace, for the sampler (another thread's
 * stack) and the allocation recorder (the allocating thread's own).
 *
 * The VM delivers the frames through NotifyEvent2(STACK_TRACE) on the thread that called
 * GetStackTrace, outermost first, before GetStackTrace returns.  A thread-local says which
 * buffer they go to and through which IDInfo they were asked, so that a monitor takes only
 * the frames of its own stacks.  One stack at a time per thread: asking for a stack while
 * one is being taken on the same thread (from a callback the VM makes meanwhile) is refused.
 */
#ifndef JEVPROF_STACKTRACE_H
#define JEVPROF_STACKTRACE_H

#include <stddef.h>

#include "jevmon.h"

#define JP_MAX_STACK_FRAMES 8192

typedef struct jp_stack_trace {
    MethodID *frames; /* outermost first */
    size_t count, capacity;
    int truncated;    /* deeper than JP_MAX_STACK_FRAMES (or out of memory): the outermost frames are kept */
} jp_stack_trace;

/* 0, or -1 when out of memory. */
int jp_stack_trace_init(jp_stack_trace *trace);
void jp_stack_trace_free(jp_stack_trace *trace);

/* Replaces trace's frames with the stack of thread (0: the calling thread).  GetStackTrace's
 * result, or E_UNEXPECTED while another stack is being taken on the calling thread. */
HRESULT jp_stack_trace_take(jp_stack_trace *trace, IJavaEventMonitorIDInfo2 *info, ThreadID thread);

/* Appends a frame: 1, or 0 (and truncated set) when the stack is full or memory ran out. */
int jp_stack_trace_push(jp_stack_trace *trace, MethodID method);

/* NotifyEvent2(STACK_TRACE, method, stack) received from the VM that info belongs to: 1 when
 * the frame is one of a stack being taken on the calling thread through info (it is
 * recorded), 0 when it is not. */
int jp_stack_trace_on_frame(const IJavaEventMonitorIDInfo2 *info, MethodID method);

#endif /* JEVPROF_STACKTRACE_H */
