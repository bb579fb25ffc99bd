/*
 * discovery.h - the list of event monitors to load, found as the Microsoft VM found them.
 *
 * Order: first every subkey of HKLM\Software\Microsoft\Java VM\Monitors in the order
 * the registry enumerates them, then every CLSID of MSJAVA_EVENT_MONITORS from left to
 * right, then every CLSID of the agent option monitors= from left to right.  The Microsoft VM's
 * lists are not de-duplicated: a CLSID named twice there is loaded twice; an entry of monitors=
 * whose CLSID is listed already is left out (one monitor per class and load request).  A bad
 * entry gets one "jevmon:" line and is left out; the others are kept.
 */
#ifndef JEVMON_DISCOVERY_H
#define JEVMON_DISCOVERY_H

#include <stddef.h>

#include "jevmon.h"
#include "vm/options.h"

typedef struct jv_monitor_spec {
    char *source;          /* where it was found, for messages: "registry key Monitors\\foo" */
    char *server;          /* the in-process server the agent option server= names for it; NULL: the registered one */
    CLSID clsid;
    int has_init_options;  /* an InitOptions DWORD was registered */
    DWORD init_options;
    int has_sampling_interval; /* an AllocationSamplingInterval DWORD was registered (docs/heap-monitor.md) */
    DWORD sampling_interval;
} jv_monitor_spec;

typedef struct jv_monitor_specs {
    jv_monitor_spec *items;
    size_t count;
} jv_monitor_specs;

/* option_list: the agent option monitors=' value (option_len bytes), NULL when not given. */
void jv_discover_monitors(jv_monitor_specs *specs, const char *option_list, size_t option_len);
/* The agent options' server= paths, each given to the listed monitors of its class (one line for a bad one). */
void jv_monitor_specs_use_servers(jv_monitor_specs *specs, const jv_options *opts);
void jv_monitor_specs_free(jv_monitor_specs *specs);

#endif
