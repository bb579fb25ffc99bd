/*
 * agent.c - the JVMTI agent's entry points.  Agent_OnLoad plays the Microsoft VM's start:
 * decide whether profiling is enabled, find the monitors, create and initialize them,
 * then ask the JVM for the capabilities their categories need; the rest follows at VMInit.
 * Agent_OnAttach does the same in a running JVM and the VMInit part at once; a later load
 * into a JVM whose bridge runs is a command for its monitors (command.c).
 */
#include <stdlib.h>
#include <string.h>

#include "agent/capabilities.h"
#include "agent/command.h"
#include "agent/jvmti_setup.h"
#include "dispatch/dispatch.h"
#include "dispatch/event_switch.h"
#include "events/call_batch.h"
#include "events/lock_wait.h"
#include "heap/heap.h"
#include "ids/class.h"
#include "ids/codemap.h"
#include "ids/method.h"
#include "ids/object.h"
#include "ids/original_code.h"
#include "ids/thread.h"
#include "instrument/instrument.h"
#include "lifecycle/discovery.h"
#include "lifecycle/enable.h"
#include "lifecycle/monitors.h"
#include "platform/platform.h"
#include "vm/options.h"
#include "vm/vm.h"

/* Does name end with suffix? */
static int ends_with(const char *name, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len >= n && !strncmp(name + len - n, suffix, n);
}

/*
 * The start class as the spec's strings name classes, in class-file form ("t3/Turn3Work"): the
 * first word of sun.java.command, the main class the launcher was given ("t3.Turn3Work"), or
 * "module/t3.Turn3Work" after -m, of which the class.  A jar (-jar), a source file (java
 * Main.java) or a module given without its class (-m module) is no class name, so it is passed
 * as the launcher was given it.
 */
static char *start_class_name(void)
{
    char *command = NULL;
    if ((*jv_jvmti)->GetSystemProperty(jv_jvmti, "sun.java.command", &command) != JVMTI_ERROR_NONE || !command)
        return strdup("");
    size_t len = strcspn(command, " ");
    char *module = NULL; /* set by the launcher for -m */
    int launched_module = (*jv_jvmti)->GetSystemProperty(jv_jvmti, "jdk.module.main", &module) == JVMTI_ERROR_NONE &&
                          module;
    if (module)
        (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)module);
    const char *start = command, *slash = memchr(command, '/', len);
    int verbatim = ends_with(command, len, ".jar") || ends_with(command, len, ".java") || (launched_module && !slash);
    if (!verbatim && slash) { /* module/class */
        start = slash + 1;
        len -= (size_t)(start - command);
    }
    char *name = malloc(len + 1);
    if (name) {
        for (size_t i = 0; i < len; i++)
            name[i] = start[i] == '.' && !verbatim ? '/' : start[i];
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

/* The rule of docs/initialization.md, "Initialization options": instrument when every monitor that may ask
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

/* Adds the capabilities the monitors' possible categories use that the JVM can grant; returns what can be delivered. */
static DWORD add_capabilities(DWORD potential_deliverable, const jvmtiCapabilities *potential)
{
    jvmtiCapabilities wanted, granted;
    jv_setup_capabilities(jv_monitors.possible_union & potential_deliverable, &wanted);
    jv_capabilities_intersect(&wanted, potential); /* thread names do without theirs */
    if ((*jv_jvmti)->AddCapabilities(jv_jvmti, &wanted) != JVMTI_ERROR_NONE) {
        jv_log("the JVM refused the JVMTI capabilities for event categories 0x%x; trying the basic ones",
               (unsigned)jv_monitors.possible_union);
        jv_setup_capabilities(0, &wanted);
        if ((*jv_jvmti)->AddCapabilities(jv_jvmti, &wanted) != JVMTI_ERROR_NONE)
            return 0;
    }
    (*jv_jvmti)->GetCapabilities(jv_jvmti, &granted);
    return jv_setup_deliverable(&granted);
}

static int bridge_running; /* set once the monitors run; later loads are commands */

/* After the bridge is set up in a running JVM: what VMInit does at start-up, at once. */
static void start_live(void)
{
    JNIEnv *env = NULL;
    jthread self = NULL;
    if ((*jv_vm)->GetEnv(jv_vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK ||
        (*jv_jvmti)->GetCurrentThread(jv_jvmti, &self) != JVMTI_ERROR_NONE) {
        jv_log("the thread loading the agent has no JNI environment; the monitors get no events");
        return;
    }
    jv_setup_start_live(env, self, 1);
    (*env)->DeleteLocalRef(env, self);
}

/*
 * The start-up both entry points share; live: the agent is loaded into a running JVM.
 * Returns Agent_OnAttach's code (docs/agent-options.md, "Attaching to a running JVM"): JNI_OK once the
 * bridge runs; Agent_OnLoad always returns JNI_OK, so that the JVM starts.
 */
static jint start_bridge(JavaVM *vm, const jv_options *options, int live)
{
    const jv_options opts = *options;
    char why[512];
    jvmtiCapabilities potential, all;

    if ((*vm)->GetEnv(vm, (void **)&jv_jvmti, JVMTI_VERSION_1_2) != JNI_OK) {
        jv_log("this JVM offers no JVMTI 1.2 environment; no monitors loaded");
        return JV_ATTACH_NOT_STARTED;
    }
    jv_vm = vm;
    if (!jv_profiling_enabled(&opts, why, sizeof(why))) {
        jv_log("event monitors are not enabled (%s); set MSJAVA_ENABLE_MONITORS=1 or use -agentpath:...=enable", why);
        return JV_ATTACH_NOT_STARTED;
    }
    jv_classes_init();
    jv_dispatch_init();
    jv_heap_init(vm);
    jv_lock_waits_init();
    jv_call_batches_init();
    jv_methods_init();
    jv_codemap_init();
    jv_rewrites_init();
    jv_threads_init();
    jv_objects_init();
    plat_com_init();

    jv_setup_capabilities(ALL_JVM_MONITOR_EVENTS, &all);
    (*jv_jvmti)->GetPotentialCapabilities(jv_jvmti, &potential);
    jv_setup_set_potential(&potential);
    DWORD deliverable = jv_setup_deliverable(&potential) & jv_setup_deliverable(&all);
    if (opts.methods != JV_METHODS_JVMTI && jv_instrument_possible(&potential))
        deliverable |= JV_METHOD_CALL_BITS; /* by instrumentation, if the monitors allow it (below) */

    jv_monitor_specs specs;
    jv_discover_monitors(&specs, opts.monitors, opts.monitors_len);
    jv_monitor_specs_use_servers(&specs, &opts);
    if (!specs.count)
        jv_log("event monitors are enabled (%s) but none is registered, listed in MSJAVA_EVENT_MONITORS or "
               "named by the agent option monitors=", why);
    jv_monitors_create(&specs, deliverable, vm_state_flags());
    jv_monitor_specs_free(&specs);
    if (opts.command)
        jv_command_settings(opts.command);
    if (opts.allocation_interval >= 0)
        jv_heap_choose_sampling_interval((jint)opts.allocation_interval);

    char *start_class = start_class_name();
    jv_monitors_initialize(start_class ? start_class : "");
    free(start_class);
    if (live && !jv_monitors.count) {
        jv_log("no monitor runs; nothing started, the agent may be loaded again");
        return JV_ATTACH_NO_MONITORS; /* HotSpot unloads the library: no callback is installed yet */
    }

    jv_switch_instrument_method_calls(instrument_method_calls(&opts));
    DWORD added = add_capabilities(deliverable, &potential);
    if (jv_switch_method_calls_instrumented() && !(added & JV_METHOD_CALL_BITS)) {
        jv_switch_instrument_method_calls(0); /* the JVM cannot retransform: JVMTI events after all */
        added = add_capabilities(deliverable, &potential);
    }
    jv_capabilities_announce_missing(jv_monitors.possible_union, &potential, live);
    jv_monitors_restrict(added);
    jv_heap_load();
    if (method_calls_possible() && (jv_monitors.deliverable & JV_METHOD_CALL_BITS))
        jv_log("method calls via %s",
               jv_switch_method_calls_instrumented() ? "bytecode instrumentation" : "JVMTI events");
    if (!jv_setup_events()) {
        jv_log("could not install the JVMTI event callbacks; monitors get no events");
        return JNI_OK;
    }
    bridge_running = 1;
    if (live)
        start_live();
    return JNI_OK;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    jv_options opts;
    (void)reserved;
    jv_command_log_install(); /* a later load's lines go to its caller */
    jv_options_parse(options, &opts);
    start_bridge(vm, &opts, 0);
    return JNI_OK;
}

/* The first load into a running JVM starts the bridge; its caller reads what became of it, and the
 * monitors' status, in the reply file when the options name one. */
JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved)
{
    jv_options opts;
    (void)reserved;
    if (bridge_running) /* HotSpot serializes loads: one thread at a time gets here */
        return jv_command(options);
    jv_command_log_install();
    jv_options_parse(options, &opts);
    if (!jv_reply_begin(opts.reply, opts.reply_len))
        return JV_ATTACH_NO_REPLY;
    jint code = start_bridge(vm, &opts, 1);
    if (bridge_running && opts.reply)
        jv_command_describe();
    jv_reply_end();
    if (code != JNI_OK) /* HotSpot unloads a library whose first Agent_OnAttach fails */
        plat_helpers_join();
    return code;
}

JNIEXPORT void JNICALL Agent_OnUnload(JavaVM *vm)
{
    (void)vm;
}
