/*
 * step.c - BYTE_CODE_EXECUTION and SOURCE_LINE_EXECUTION from JVMTI SingleStep.
 *
 * ExecuteSourceLine(MethodID, line) when a thread reaches a new line, then
 * ExecuteByteCode(MethodID, the method's bytecodes, offset) before each bytecode.  The bytecodes and
 * the line table of a method are read from the JVM once and kept with the method, so a
 * step costs a table lookup, not a JVMTI call.  Stepping runs the stepping threads in the
 * interpreter, as the reference says bytecode events turn the JIT off.  On the instrumented
 * path the steps through the injected code are not reported and the others carry the class
 * file's offsets (method.h), so the events are the JVMTI path's.
 */
#include <stdlib.h>
#include <string.h>

#include "dispatch/dispatch.h"
#include "events/events.h"
#include "ids/method.h"

/* What a thread last reported as its source line, so each line is reported once per arrival. */
static _Thread_local MethodID line_method;
static _Thread_local jint line_number = -1;

/* The line of a bytecode offset: the entry with the greatest start at or before it. */
static jint line_at(const jv_method_code *code, jlocation location)
{
    jint line = -1;
    jlocation best = -1;
    for (jint i = 0; i < code->line_count; i++)
        if (code->lines[i].start_location <= location && code->lines[i].start_location > best) {
            best = code->lines[i].start_location;
            line = code->lines[i].line_number;
        }
    return line;
}

void JNICALL jv_on_single_step(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method, jlocation location)
{
    (void)jvmti, (void)thread;
    jv_dispatch d;
    jv_dispatch_begin(&d, env);
    MethodID id = jv_method_id(env, method);
    const jv_method_code *code = id ? jv_method_code_of(jv_method_entry(id)) : NULL;
    int starts = 0;
    if (code)
        location = jv_method_code_offset(code, location, &starts);
    if (starts) { /* not code the instrumenter injected */
        jint line = line_at(code, location);
        if (line >= 0 && (id != line_method || line != line_number)) {
            line_method = id;
            line_number = line;
            JV_FOR_EACH_MONITOR(m, JVM_MONITOR_SOURCE_LINE_EXECUTION)
            IJavaEventMonitor_ExecuteSourceLine(m->mon, id, (DWORD)line);
        }
        JV_FOR_EACH_MONITOR(m, JVM_MONITOR_BYTE_CODE_EXECUTION)
        IJavaEventMonitor_ExecuteByteCode(m->mon, id, code->bytecodes, (DWORD)location);
    }
    jv_dispatch_end(&d);
}
