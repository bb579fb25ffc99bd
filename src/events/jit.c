/*
 * jit.c - compiled code: JIT_COMPILE_STARTED/FINISHED from CompiledMethodLoad, and the
 * code map (codemap.c) fed by CompiledMethodLoad/Unload and DynamicCodeGenerated from VMInit
 * on, whatever the masks, with a replay of what was generated before.
 */
#include "dispatch/dispatch.h"
#include "events/events.h"
#include "ids/codemap.h"
#include "ids/method.h"
#include "platform/platform.h"

void JNICALL jv_on_compiled_method_load(jvmtiEnv *jvmti, jmethodID method, jint code_size,
                                        const void *code_addr, jint map_length, const jvmtiAddrLocationMap *map,
                                        const void *compile_info)
{
    (void)jvmti, (void)map_length, (void)map, (void)compile_info;
    JNIEnv *env = jv_jni();
    jv_dispatch d;
    jv_dispatch_begin(&d, env);
    jv_codemap_add_compiled(method, code_addr, (size_t)code_size);
    MethodID id = jv_method_id(env, method);
    jv_method_set_code(method, code_addr);
    if (id) {
        /* JVMTI reports only finished compilations: STARTED is delivered right before FINISHED. */
        jv_notify(JVM_MONITOR_JIT_COMPILATION, JVM_EVENT_TYPE_JIT_COMPILE_STARTED, id);
        jv_notify(JVM_MONITOR_JIT_COMPILATION, JVM_EVENT_TYPE_JIT_COMPILE_FINISHED, id);
    }
    jv_dispatch_end(&d);
}

void JNICALL jv_on_compiled_method_unload(jvmtiEnv *jvmti, jmethodID method, const void *code_addr)
{
    (void)jvmti;
    jv_codemap_remove_compiled(method, code_addr);
}

void JNICALL jv_on_dynamic_code_generated(jvmtiEnv *jvmti, const char *name, const void *address, jint length)
{
    (void)jvmti;
    jv_codemap_add_stub(name, address, (size_t)length);
}

/* From VMInit (or the attach) on: the code map's events, and what was generated before (GenerateEvents). */
void jv_jit_events_start(jvmtiEnv *jvmti)
{
    static const jvmtiEvent events[] = {JVMTI_EVENT_COMPILED_METHOD_LOAD, JVMTI_EVENT_COMPILED_METHOD_UNLOAD,
                                        JVMTI_EVENT_DYNAMIC_CODE_GENERATED};
    for (size_t i = 0; i < sizeof(events) / sizeof(*events); i++)
        if ((*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, events[i], NULL) != JVMTI_ERROR_NONE &&
            events[i] != JVMTI_EVENT_COMPILED_METHOD_UNLOAD)
            jv_log("the JVM sends no %s events; samples in generated code are not mapped",
                   events[i] == JVMTI_EVENT_COMPILED_METHOD_LOAD ? "CompiledMethodLoad" : "DynamicCodeGenerated");
    (*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
    (*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_COMPILED_METHOD_LOAD);
}
