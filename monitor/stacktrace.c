/* stacktrace.c - taking one stack with GetStackTrace (see stacktrace.h). */
#include <stdlib.h>
#include <string.h>

#include "stacktrace.h"

#define INITIAL_FRAMES 256u

/* The stack being taken on this thread, and the IDInfo it was asked from. */
static _Thread_local jp_stack_trace *taking;
static _Thread_local const IJavaEventMonitorIDInfo2 *taking_from;

int jp_stack_trace_init(jp_stack_trace *trace)
{
    memset(trace, 0, sizeof(*trace));
    trace->frames = malloc(INITIAL_FRAMES * sizeof(*trace->frames));
    if (!trace->frames)
        return -1;
    trace->capacity = INITIAL_FRAMES;
    return 0;
}

void jp_stack_trace_free(jp_stack_trace *trace)
{
    free(trace->frames);
    memset(trace, 0, sizeof(*trace));
}

HRESULT jp_stack_trace_take(jp_stack_trace *trace, IJavaEventMonitorIDInfo2 *info, ThreadID thread)
{
    if (taking)
        return E_UNEXPECTED;
    trace->count = 0;
    trace->truncated = 0;
    taking = trace;
    taking_from = info;
    HRESULT hr = IJavaEventMonitorIDInfo2_GetStackTrace(info, thread);
    taking = NULL;
    taking_from = NULL;
    return hr;
}

int jp_stack_trace_push(jp_stack_trace *trace, MethodID method)
{
    if (trace->count == trace->capacity) {
        size_t capacity = trace->capacity * 2;
        MethodID *grown = capacity <= JP_MAX_STACK_FRAMES ? realloc(trace->frames, capacity * sizeof(*grown)) : NULL;
        if (!grown) {
            trace->truncated = 1;
            return 0;
        }
        trace->frames = grown;
        trace->capacity = capacity;
    }
    trace->frames[trace->count++] = method;
    return 1;
}

int jp_stack_trace_on_frame(const IJavaEventMonitorIDInfo2 *info, MethodID method)
{
    if (!taking || taking_from != info)
        return 0;
    jp_stack_trace_push(taking, method); /* a stack too deep keeps its outermost frames: the paths above stay right */
    return 1;
}
