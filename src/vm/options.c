/* options.c - parses the agent option string and the environment's numbers (options.h). */
#include <stdlib.h>
#include <string.h>

#include "platform/platform.h"
#include "vm/options.h"

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

static int digit_value(char c, int hex)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (hex && c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (hex && c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* text as the number jv_env_number describes; 0 when it is not one or exceeds max. */
static int parse_number(const char *text, int hex, unsigned long long max, unsigned long long *value)
{
    const char *p = text;
    unsigned long long v = 0, base = hex ? 16 : 10;
    size_t digits = 0;
    while (*p == ' ' || *p == '\t')
        p++;
    if (hex && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        p += 2;
    for (int d; (d = digit_value(*p, hex)) >= 0; p++, digits++) {
        if (v > (max - (unsigned long long)d) / base)
            return 0; /* beyond max, so also never wraps */
        v = v * base + (unsigned long long)d;
    }
    while (*p == ' ' || *p == '\t')
        p++;
    if (!digits || *p)
        return 0;
    *value = v;
    return 1;
}

int jv_env_number(const char *name, int hex, unsigned long long max, const char *form, unsigned long long *value)
{
    char *text = plat_getenv(name);
    if (!text)
        return 0;
    int ok = parse_number(text, hex, max, value);
    if (!ok)
        jv_log("environment variable %s=\"%s\" is not %s; ignored", name, text, form);
    free(text);
    return ok ? 1 : -1;
}
