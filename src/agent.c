/*
 * agent.c - the JVMTI agent's entry points: Agent_OnLoad plays the Microsoft VM's start:
 * decide whether profiling is enabled, find the monitors, create and initialize them,
 * then ask the JVM for the capabilities their categories need.
 */
#include <stdlib.h>
#include <string.h>

#include "class.h"
#include "codemap.h"
#include "discovery.h"
#include "enable.h"
#include "dispatch.h"
#include "events.h"
#include "heap.h"
#include "method.h"
#include "monitors.h"
#include "object.h"
#include "options.h"
#include "platform/platform.h"
#include "thread.h"
#include "vm.h"

/* The start class or jar, as the launcher was given it: the first word of sun.java.command. */
static char *start_class_name(void)
{
    char *command = NULL;
    if ((*jv_jvmti)->GetSystemProperty(jv_jvmti, "sun.java.command", &command) != JVMTI_ERROR_NONE || !command)
        return strdup("");
    size_t len = strcspn(command, " ");
    char *name = malloc(len + 1);
    if (name) {
        memcpy(name, command, len);
        name[len] = '\0';
    }
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)command);
    return name;
}

static DWORD vm_state_flags(void)
{
    DWORD flags = JVM_STATE_INTERPRETER_ENABLED | JVM_STATE_FAST_INTERPRETER_ENABLED;
    char *info = NULL;
    if ((*jv_jvmti)->GetSystemProperty(jv_jvmti, "java.vm.info", &info) == JVMTI_ERROR_NONE && info) {
        if (!strstr(info, "interpreted mode"))
            flags |= JVM_STATE_JIT_COMPILER_ENABLED;
        (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)info);
    }
    return flags;
}

#define INSTRUMENT_OPTIONS (JVM_INIT_OPT_GC_SAFE_METHOD_CALLS | JVM_INIT_OPT_WONT_TOGGLE_METHOD_CALL_EVENTS)

/* May some monitor ever ask for method calls? */
static int method_calls_possible(void)
{
    for (size_t i = 0; i < jv_monitors.count; i++)
        if (jv_monitors.items[i]->possible & JV_METHOD_CALL_BITS)
            return 1;
    return 0;
}

/* The rule of README's "Initialization options": instrument when every monitor that may ask
 * for method calls promised GC-safe calls and never to toggle them, unless methods=jvmti. */
static int instrument_method_calls(const jv_options *opts)
{
    if (opts->methods == JV_METHODS_JVMTI || !method_calls_possible())
        return 0;
    for (size_t i = 0; i < jv_monitors.count; i++) {
        const jv_monitor *m = jv_monitors.items[i];
        if ((m->possible & JV_METHOD_CALL_BITS) && (m->granted_options & INSTRUMENT_OPTIONS) != INSTRUMENT_OPTIONS)
            return 0;
    }
    return 1;
}

/* Adds the capabilities the monitors' possible categories need; returns what can be delivered. */
static DWORD add_capabilities(DWORD potential_deliverable)
{
    jvmtiCapabilities wanted, potential;
    jv_events_capabilities(jv_monitors.possible_union & potential_deliverable, &wanted);
    if ((*jv_jvmti)->AddCapabilities(jv_jvmti, &wanted) != JVMTI_ERROR_NONE) {
        jv_log("the JVM refused the JVMTI capabilities for event categories 0x%x; trying the basic ones",
               (unsigned)jv_monitors.possible_union);
        jv_events_capabilities(0, &wanted);
        if ((*jv_jvmti)->AddCapabilities(jv_jvmti, &wanted) != JVMTI_ERROR_NONE)
            return 0;
    }
    (*jv_jvmti)->GetCapabilities(jv_jvmti, &potential);
    return jv_events_deliverable(&potential);
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    jv_options opts;
    char why[512];
    jvmtiCapabilities potential, all;
    (void)reserved;

    jv_options_parse(options, &opts);
    if ((*vm)->GetEnv(vm, (void **)&jv_jvmti, JVMTI_VERSION_1_2) != JNI_OK) {
        jv_log("this JVM offers no JVMTI 1.2 environment; no monitors loaded");
        return JNI_OK;
    }
    jv_vm = vm;
    if (!jv_profiling_enabled(&opts, why, sizeof(why))) {
        jv_log("event monitors are not enabled (%s); set MSJAVA_ENABLE_MONITORS=1 or use -agentpath:...=enable", why);
        return JNI_OK;
    }
    jv_classes_init();
    jv_dispatch_init();
    jv_heap_init(vm);
    jv_methods_init();
    jv_codemap_init();
    jv_threads_init();
    jv_objects_init();
    plat_com_init();

    jv_events_capabilities(ALL_JVM_MONITOR_EVENTS, &all);
    (*jv_jvmti)->GetPotentialCapabilities(jv_jvmti, &potential);
    DWORD deliverable = jv_events_deliverable(&potential) & jv_events_deliverable(&all);

    jv_monitor_specs specs;
    jv_discover_monitors(&specs);
    if (!specs.count)
        jv_log("event monitors are enabled (%s) but none is registered or listed in MSJAVA_EVENT_MONITORS", why);
    jv_monitors_create(&specs, deliverable, vm_state_flags());
    jv_monitor_specs_free(&specs);

    char *start_class = start_class_name();
    jv_monitors_initialize(start_class ? start_class : "");
    free(start_class);

    jv_events_instrument_method_calls(instrument_method_calls(&opts));
    DWORD added = add_capabilities(deliverable);
    if (jv_events_method_calls_instrumented() && !(added & JV_METHOD_CALL_BITS)) {
        jv_events_instrument_method_calls(0); /* the JVM cannot retransform: JVMTI events after all */
        added = add_capabilities(deliverable);
    }
    jv_monitors.deliverable &= added;
    jv_heap_load();
    if (method_calls_possible() && (jv_monitors.deliverable & JV_METHOD_CALL_BITS))
        jv_log("method calls via %s",
               jv_events_method_calls_instrumented() ? "bytecode instrumentation" : "JVMTI events");
    if (!jv_events_setup())
        jv_log("could not install the JVMTI event callbacks; monitors get no events");
    return JNI_OK;
}

JNIEXPORT void JNICALL Agent_OnUnload(JavaVM *vm)
{
    (void)vm;
}
