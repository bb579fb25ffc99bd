/*
 * jit.c - compiled code: JIT_COMPILE_STARTED/FINISHED from CompiledMethodLoad, and the
 * code map (codemap.c) fed by DynamicCodeGenerated from VMInit on, whatever the masks, and by
 * CompiledMethodLoad/Unload from when a monitor may hear of compilations or the map first needs
 * the compiled methods (codemap.h says why not before), each with a replay of what came before.
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

/* The compiled methods' events and what was compiled before, from the code map's first need on. */
static void keep_compiled_methods(void)
{
    jvmtiEnv *jvmti = jv_jvmti;
    if ((*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_COMPILED_METHOD_LOAD, NULL) !=
        JVMTI_ERROR_NONE) {
        jv_log("the JVM sends no CompiledMethodLoad events; samples in compiled code are not mapped to their method");
        return;
    }
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_COMPILED_METHOD_UNLOAD, NULL);
    (*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_COMPILED_METHOD_LOAD);
}

/* From VMInit (or the attach) on: the stubs, and what was generated before (GenerateEvents); the
 * compiled methods when compilations are delivered, else when the code map first needs them. */
void jv_jit_events_start(jvmtiEnv *jvmti, int compilations)
{
    if ((*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_DYNAMIC_CODE_GENERATED, NULL) !=
        JVMTI_ERROR_NONE)
        jv_log("the JVM sends no DynamicCodeGenerated events; samples in generated code are not mapped");
    (*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
    if (compilations)
        jv_codemap_want_compiled();
    jv_codemap_compiled_source(keep_compiled_methods);
}
