/* discovery.c - reads the registry and MSJAVA_EVENT_MONITORS into a monitor list (rules in discovery.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/guid.h"
#include "lifecycle/discovery.h"
#include "platform/platform.h"

/* Adds a monitor; registered, when not NULL, holds what its registry key says besides the CLSID. */
static void add_spec(jv_monitor_specs *specs, const char *source, const CLSID *clsid, const jv_monitor_spec *registered)
{
    jv_monitor_spec *grown = realloc(specs->items, (specs->count + 1) * sizeof(*grown));
    char *source_copy = strdup(source);
    if (!grown || !source_copy) {
        free(source_copy);
        if (grown)
            specs->items = grown;
        jv_log("out of memory while listing monitors; %s left out", source);
        return;
    }
    specs->items = grown;
    jv_monitor_spec *spec = &specs->items[specs->count++];
    spec->source = source_copy;
    spec->server = NULL;
    spec->clsid = *clsid;
    if (registered) {
        spec->has_init_options = registered->has_init_options;
        spec->init_options = registered->init_options;
        spec->has_sampling_interval = registered->has_sampling_interval;
        spec->sampling_interval = registered->sampling_interval;
    } else
        spec->has_init_options = spec->has_sampling_interval = 0;
}

/* An optional DWORD of the monitor's key; a value of another type is named and ignored. */
static int registry_dword(const char *key, const char *source, const char *name, DWORD *value)
{
    switch (plat_reg_get_dword(PLAT_HKLM, key, name, value)) {
    case PLAT_REG_OK:
        return 1;
    case PLAT_REG_WRONG_TYPE:
        jv_log("%s: %s is not a DWORD; ignored, the monitor loads without it", source, name);
        return 0;
    default:
        return 0;
    }
}

/* The key and the source are as long as the subkey's name is: no length is too long. */
static void add_registry_monitor(jv_monitor_specs *specs, const char *name)
{
    static const char source_prefix[] = "registry key HKLM\\";
    size_t source_len = sizeof(source_prefix) + strlen(JEVMON_MONITORS_KEY) + 1 + strlen(name);
    char *source = malloc(source_len), *key, *clsid_text = NULL;
    CLSID clsid;
    jv_monitor_spec registered = {0};

    if (!source) {
        jv_log("out of memory while listing monitors; Monitors subkey %.40s... left out", name);
        return;
    }
    snprintf(source, source_len, "%s%s\\%s", source_prefix, JEVMON_MONITORS_KEY, name);
    key = source + sizeof(source_prefix) - 1;
    switch (plat_reg_get_string(PLAT_HKLM, key, "CLSID", &clsid_text)) {
    case PLAT_REG_OK:
        break;
    case PLAT_REG_WRONG_TYPE:
        jv_log("%s: the CLSID value is not a string; monitor not loaded", source);
        goto done;
    default:
        jv_log("%s: has no CLSID value; monitor not loaded", source);
        goto done;
    }
    if (!jv_guid_parse(clsid_text, &clsid)) {
        jv_log("%s: CLSID \"%s\" is not a braced CLSID {xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}; monitor not loaded",
               source, clsid_text);
        goto done;
    }
    registered.has_init_options = registry_dword(key, source, "InitOptions", &registered.init_options);
    registered.has_sampling_interval =
        registry_dword(key, source, "AllocationSamplingInterval", &registered.sampling_interval);
    add_spec(specs, source, &clsid, &registered);
done:
    free(clsid_text);
    free(source);
}

static void add_registry_monitors(jv_monitor_specs *specs)
{
    char **names = NULL;
    size_t count = 0;
    if (plat_reg_subkeys(PLAT_HKLM, JEVMON_MONITORS_KEY, &names, &count) != PLAT_REG_OK)
        return;
    for (size_t i = 0; i < count; i++)
        add_registry_monitor(specs, names[i]);
    plat_free_strings(names, count);
}

static int listed(const jv_monitor_specs *specs, const CLSID *clsid)
{
    for (size_t i = 0; i < specs->count; i++)
        if (IsEqualGUID(&specs->items[i].clsid, clsid))
            return 1;
    return 0;
}

/* One entry of a CLSID list (list names it), without the spaces around it; once: an entry whose
 * CLSID is listed already is left out (the agent option's, not the Microsoft VM's lists). */
static void add_list_entry(jv_monitor_specs *specs, const char *list, const char *entry, size_t len, unsigned position,
                           int once)
{
    char text[128], source[160];
    CLSID clsid;
    size_t trimmed_len = len;
    const char *trimmed = entry;

    while (trimmed_len && (*trimmed == ' ' || *trimmed == '\t'))
        trimmed++, trimmed_len--;
    while (trimmed_len && (trimmed[trimmed_len - 1] == ' ' || trimmed[trimmed_len - 1] == '\t'))
        trimmed_len--;
    snprintf(source, sizeof(source), "%s entry %u", list, position);
    if (trimmed_len == 0) {
        jv_log("%s is empty (doubled, leading or trailing ';'); skipped", source);
        return;
    }
    if (trimmed_len != len)
        jv_log("%s \"%.*s\" has spaces around the CLSID; read as \"%.*s\"", source, (int)len, entry,
               (int)trimmed_len, trimmed);
    if (trimmed_len >= sizeof(text)) {
        jv_log("%s \"%.*s...\" is too long for a CLSID; skipped", source, 40, trimmed);
        return;
    }
    memcpy(text, trimmed, trimmed_len);
    text[trimmed_len] = '\0';
    if (!jv_guid_parse(text, &clsid)) {
        jv_log("%s \"%s\" is not a braced CLSID {xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}; skipped", source, text);
        return;
    }
    if (!(once && listed(specs, &clsid)))
        add_spec(specs, source, &clsid, NULL);
}

/* A ';'-separated CLSID list of len bytes, named list in messages; once: see add_list_entry. */
static void add_list_monitors(jv_monitor_specs *specs, const char *list, const char *text, size_t len, int once)
{
    unsigned position = 1;
    size_t blank = 0;
    while (blank < len && (text[blank] == ' ' || text[blank] == '\t'))
        blank++;
    if (blank == len) {
        jv_log("%s is set but empty; no monitors from it", list);
        return;
    }
    for (;;) {
        const char *semi = memchr(text, ';', len);
        size_t entry_len = semi ? (size_t)(semi - text) : len;
        add_list_entry(specs, list, text, entry_len, position++, once);
        if (!semi)
            break;
        text = semi + 1;
        len -= entry_len + 1;
    }
}

static void add_env_monitors(jv_monitor_specs *specs)
{
    char *value = plat_getenv("MSJAVA_EVENT_MONITORS");
    if (!value)
        return;
    add_list_monitors(specs, "MSJAVA_EVENT_MONITORS", value, strlen(value), 0);
    free(value);
}

void jv_discover_monitors(jv_monitor_specs *specs, const char *option_list, size_t option_len)
{
    specs->items = NULL;
    specs->count = 0;
    add_registry_monitors(specs);
    add_env_monitors(specs);
    if (option_list)
        add_list_monitors(specs, "agent option monitors", option_list, option_len, 1);
}

/* One server= value, "{clsid}=path": the path goes to every listed monitor of that class. */
static void use_server(jv_monitor_specs *specs, const char *value, size_t len)
{
    char text[JV_GUID_TEXT_SIZE];
    CLSID clsid;
    const char *equals = memchr(value, '=', len);
    size_t clsid_len = equals ? (size_t)(equals - value) : len;
    if (equals && clsid_len < sizeof(text)) {
        memcpy(text, value, clsid_len);
        text[clsid_len] = '\0';
    }
    if (!equals || clsid_len >= sizeof(text) || !jv_guid_parse(text, &clsid)) {
        jv_log("agent option server=%.*s is not {clsid}=path (a braced CLSID, '=', the server's absolute path); "
               "ignored", (int)len, value);
        return;
    }
    size_t path_len = len - clsid_len - 1;
    int used = 0;
    for (size_t i = 0; i < specs->count; i++) {
        if (!IsEqualGUID(&specs->items[i].clsid, &clsid))
            continue;
        char *path = malloc(path_len + 1);
        if (path) {
            memcpy(path, equals + 1, path_len);
            path[path_len] = '\0';
        } else
            jv_log("out of memory; %s uses its registered server", specs->items[i].source);
        free(specs->items[i].server);
        specs->items[i].server = path;
        used = 1;
    }
    if (!used)
        jv_log("agent option server=%.*s: no monitor of this load is of class %s (name it in monitors=); ignored",
               (int)len, value, text);
}

void jv_monitor_specs_use_servers(jv_monitor_specs *specs, const jv_options *opts)
{
    for (size_t i = 0; i < opts->server_count; i++)
        use_server(specs, opts->servers[i], opts->servers_len[i]);
}

void jv_monitor_specs_free(jv_monitor_specs *specs)
{
    for (size_t i = 0; i < specs->count; i++)
        free(specs->items[i].source), free(specs->items[i].server);
    free(specs->items);
    specs->items = NULL;
    specs->count = 0;
}
