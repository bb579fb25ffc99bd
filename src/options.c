/* options.c - parses the agent option string (syntax in options.h). */
#include <string.h>

#include "options.h"
#include "platform/platform.h"

static void apply_word(const char *word, size_t len, jv_options *opts)
{
#define IS(lit) (len == sizeof(lit) - 1 && memcmp(word, lit, len) == 0)
#define MONITORS "monitors="
    if (len == 0)
        return;
    if (IS("enable"))
        opts->profiling = JV_FORCE_ON;
    else if (IS("disable"))
        opts->profiling = JV_FORCE_OFF;
    else if (IS("methods=jvmti"))
        opts->methods = JV_METHODS_JVMTI;
    else if (IS("methods=auto"))
        opts->methods = JV_METHODS_AUTO;
    else if (len >= sizeof(MONITORS) - 1 && memcmp(word, MONITORS, sizeof(MONITORS) - 1) == 0) {
        opts->monitors = word + sizeof(MONITORS) - 1;
        opts->monitors_len = len - (sizeof(MONITORS) - 1);
    } else
        jv_log("agent option \"%.*s\" is unknown; ignored (known: enable, disable, methods=auto, methods=jvmti, "
               "monitors={clsid};...)",
               (int)len, word);
#undef MONITORS
#undef IS
}

void jv_options_parse(const char *text, jv_options *opts)
{
    opts->profiling = JV_FORCE_NONE;
    opts->methods = JV_METHODS_AUTO;
    opts->monitors = NULL;
    opts->monitors_len = 0;
    if (!text)
        return;
    while (*text) {
        const char *comma = strchr(text, ',');
        size_t len = comma ? (size_t)(comma - text) : strlen(text);
        apply_word(text, len, opts);
        text += len + (comma ? 1 : 0);
    }
}
