/* options.c - parses the agent option string (syntax in options.h). */
#include <string.h>

#include "options.h"
#include "platform/platform.h"

static void apply_word(const char *word, size_t len, jv_options *opts)
{
#define IS(lit) (len == sizeof(lit) - 1 && memcmp(word, lit, len) == 0)
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
    else
        jv_log("agent option \"%.*s\" is unknown; ignored (known: enable, disable, methods=auto, methods=jvmti)",
               (int)len, word);
#undef IS
}

void jv_options_parse(const char *text, jv_options *opts)
{
    opts->profiling = JV_FORCE_NONE;
    opts->methods = JV_METHODS_AUTO;
    if (!text)
        return;
    while (*text) {
        const char *comma = strchr(text, ',');
        size_t len = comma ? (size_t)(comma - text) : strlen(text);
        apply_word(text, len, opts);
        text += len + (comma ? 1 : 0);
    }
}
