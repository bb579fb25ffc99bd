/* options.c - parses the agent option string and the environment's numbers (options.h). */
#include <stdlib.h>
#include <string.h>

#include "platform/platform.h"
#include "vm/options.h"

static int parse_number(const char *text, int hex, unsigned long long max, unsigned long long *value);

#define COMMAND "command="
#define STARTS(lit) (len >= sizeof(lit) - 1 && memcmp(word, lit, sizeof(lit) - 1) == 0)

static void add_server(const char *value, size_t len, jv_options *opts)
{
    if (opts->server_count == JV_MAX_SERVERS) {
        jv_log("agent option server=%.*s: more than %d server= options; ignored", (int)len, value, JV_MAX_SERVERS);
        return;
    }
    opts->servers[opts->server_count] = value;
    opts->servers_len[opts->server_count++] = len;
}

static void set_allocation_interval(const char *value, size_t len, jv_options *opts)
{
    char text[24];
    unsigned long long bytes;
    if (len < sizeof(text)) {
        memcpy(text, value, len);
        text[len] = '\0';
    }
    if (len >= sizeof(text) || !parse_number(text, 0, 0x7fffffff, &bytes)) {
        jv_log("agent option allocation_interval=%.*s is not a number of bytes from 0 to 2147483647 (decimal, no "
               "sign); ignored", (int)len, value);
        return;
    }
    opts->allocation_interval = (long long)bytes;
}

static void apply_word(const char *word, size_t len, jv_options *opts)
{
#define IS(lit) (len == sizeof(lit) - 1 && memcmp(word, lit, len) == 0)
#define VALUE(lit) (word + sizeof(lit) - 1), (len - (sizeof(lit) - 1))
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
    else if (STARTS("monitors=")) {
        opts->monitors = word + sizeof("monitors=") - 1;
        opts->monitors_len = len - (sizeof("monitors=") - 1);
    } else if (STARTS("server="))
        add_server(VALUE("server="), opts);
    else if (STARTS("allocation_interval="))
        set_allocation_interval(VALUE("allocation_interval="), opts);
    else if (STARTS("reply=")) {
        opts->reply = word + sizeof("reply=") - 1;
        opts->reply_len = len - (sizeof("reply=") - 1);
    } else
        jv_log("agent option \"%.*s\" is unknown; ignored (known: enable, disable, methods=auto, methods=jvmti, "
               "monitors={clsid};..., server={clsid}=path, allocation_interval=bytes, reply=path, command=text)",
               (int)len, word);
#undef VALUE
#undef IS
}

const char *jv_options_command(const char *text)
{
    for (const char *word = text; word; word = strchr(word, ',')) {
        word += *word == ',';
        if (strncmp(word, COMMAND, sizeof(COMMAND) - 1) == 0)
            return word + sizeof(COMMAND) - 1;
    }
    return NULL;
}

void jv_options_parse(const char *text, jv_options *opts)
{
    opts->profiling = JV_FORCE_NONE;
    opts->methods = JV_METHODS_AUTO;
    opts->monitors = NULL;
    opts->monitors_len = 0;
    opts->server_count = 0;
    opts->allocation_interval = -1;
    opts->reply = NULL;
    opts->reply_len = 0;
    opts->command = NULL;
    if (!text)
        return;
    opts->command = jv_options_command(text);
    const char *end = opts->command ? opts->command - (sizeof(COMMAND) - 1) : text + strlen(text);
    while (text < end) { /* the words before command=, whose text is the rest */
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
