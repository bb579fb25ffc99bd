/* capabilities.c - the bridge's JVMTI capabilities by name (see capabilities.h). */
#include <string.h>

#include "agent/capabilities.h"
#include "agent/jvmti_setup.h"
#include "platform/platform.h"

/* Every capability jv_setup_capabilities and the heap monitor may ask for. */
#define BRIDGE_CAPABILITIES(X)                                                                                  \
    X(can_tag_objects) X(can_get_source_file_name) X(can_get_line_numbers) X(can_get_bytecodes)                 \
    X(can_get_monitor_info) X(can_generate_compiled_method_load_events) X(can_generate_all_class_hook_events)  \
    X(can_retransform_classes) X(can_generate_method_entry_events) X(can_generate_method_exit_events)          \
    X(can_generate_exception_events) X(can_generate_object_free_events) X(can_generate_single_step_events)     \
    X(can_generate_garbage_collection_events) X(can_generate_breakpoint_events) X(can_access_local_variables)

#define GETTER(name)                                                                                            \
    static int has_##name(const jvmtiCapabilities *caps)                                                        \
    {                                                                                                           \
        return caps->name;                                                                                      \
    }
BRIDGE_CAPABILITIES(GETTER)
#undef GETTER

static const struct {
    const char *name;
    int (*has)(const jvmtiCapabilities *caps);
} capabilities[] = {
#define ENTRY(name) {#name, has_##name},
    BRIDGE_CAPABILITIES(ENTRY)
#undef ENTRY
};

void jv_capabilities_intersect(jvmtiCapabilities *caps, const jvmtiCapabilities *allowed)
{
    /* A struct of bit fields and nothing else: byte by byte is bit by bit. */
    unsigned char a[sizeof(*caps)], b[sizeof(*allowed)];
    memcpy(a, caps, sizeof(a));
    memcpy(b, allowed, sizeof(b));
    for (size_t i = 0; i < sizeof(a); i++)
        a[i] &= b[i];
    memcpy(caps, a, sizeof(a));
}

void jv_capabilities_announce_missing(DWORD categories, const jvmtiCapabilities *potential, int late)
{
    jvmtiCapabilities wanted;
    jv_setup_capabilities(categories, &wanted);
    for (size_t i = 0; i < sizeof(capabilities) / sizeof(*capabilities); i++) {
        if (!capabilities[i].has(&wanted) || capabilities[i].has(potential))
            continue;
        DWORD users = 0;
        for (DWORD bit = 1; bit && bit <= categories; bit <<= 1) {
            jvmtiCapabilities one;
            jv_setup_capabilities(bit, &one);
            if ((categories & bit) && capabilities[i].has(&one))
                users |= bit;
        }
        if (late)
            jv_log("%s: HotSpot grants it only to an agent loaded at start-up (-agentpath:), not to one loaded into "
                   "a running JVM; event categories 0x%x use it",
                   capabilities[i].name, (unsigned)users);
        else
            jv_log("%s: this JVM does not offer it; event categories 0x%x use it", capabilities[i].name,
                   (unsigned)users);
    }
}
