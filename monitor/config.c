/* config.c - reading jevprof's settings (see config.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "platform/platform.h"

void jp_config_defaults(jp_config *config)
{
    snprintf(config->output_dir, sizeof(config->output_dir), "%s", JP_DEFAULT_OUTPUT_DIR);
    config->mode = JP_DEFAULT_MODE;
    config->interval_ms = JP_DEFAULT_INTERVAL_MS;
    config->top = JP_DEFAULT_TOP;
}

const char *jp_mode_name(jp_mode mode)
{
    static const char *const names[] = {"", "sample", "calls", "both", "alloc", "sample,alloc", "calls,alloc",
                                        "both,alloc"};
    return names[mode & JP_MODE_ALL];
}

/* Each setter takes one setting as text, as the environment gives it; source names where it came
 * from in the diagnostic.  A bad value is logged and the default applied. */
static void set_output_dir(jp_config *config, const char *text, const char *source)
{
    size_t length = strlen(text);
    if (length == 0 || length >= sizeof(config->output_dir) - 64) { /* room for a file name */
        jv_log("jevprof: %s is %s; using the default, \"%s\"", source,
               length ? "too long for a directory name" : "empty", JP_DEFAULT_OUTPUT_DIR);
        snprintf(config->output_dir, sizeof(config->output_dir), "%s", JP_DEFAULT_OUTPUT_DIR);
        return;
    }
    memcpy(config->output_dir, text, length + 1);
}

/* One word of the mode list; 0 when it is none of them. */
static jp_mode mode_of_word(const char *word, size_t length)
{
    static const struct { const char *name; jp_mode mode; } modes[] = {
        {"sample", JP_MODE_SAMPLE}, {"calls", JP_MODE_CALLS}, {"both", JP_MODE_BOTH}, {"alloc", JP_MODE_ALLOC}};
    for (size_t i = 0; i < sizeof(modes) / sizeof(*modes); i++)
        if (strlen(modes[i].name) == length && memcmp(word, modes[i].name, length) == 0)
            return modes[i].mode;
    return 0;
}

static void set_mode(jp_config *config, const char *text, const char *source)
{
    jp_mode mode = 0;
    for (const char *word = text;; word++) {
        size_t length = strcspn(word, ",");
        jp_mode part = mode_of_word(word, length);
        if (!part) {
            jv_log("jevprof: %s \"%s\" is not calls, sample, both, alloc or a list of them (\"sample,alloc\"); "
                   "using the default, %s", source, text, jp_mode_name(JP_DEFAULT_MODE));
            config->mode = JP_DEFAULT_MODE;
            return;
        }
        mode |= part;
        word += length;
        if (!*word)
            break;
    }
    config->mode = mode;
}

/* A whole decimal number within [min, max], or -1 with *why set. */
static long parse_count(const char *text, unsigned min, unsigned max, const char **why)
{
    char *end = NULL;
    long value = -1;
    errno = 0;
    if (isdigit((unsigned char)*text))
        value = strtol(text, &end, 10);
    if (value < 0 || *end == '.' || *end == ',')
        *why = "is not a whole number";
    else if (*end)
        *why = "has extra characters after the number";
    else if (errno == ERANGE || value < (long)min || value > (long)max)
        *why = "is out of range";
    else
        return value;
    return -1;
}

static void set_count(unsigned *setting, const char *text, const char *source, unsigned min, unsigned max,
                     unsigned fallback, const char *unit)
{
    const char *why = NULL;
    long value = parse_count(text, min, max, &why);
    if (value < 0) {
        jv_log("jevprof: %s \"%s\" %s (%u to %u%s); using the default, %u", source, text, why, min, max, unit,
               fallback);
        *setting = fallback;
        return;
    }
    *setting = (unsigned)value;
}

static void set_interval_ms(jp_config *config, const char *text, const char *source)
{
    set_count(&config->interval_ms, text, source, JP_MIN_INTERVAL_MS, JP_MAX_INTERVAL_MS,
                     JP_DEFAULT_INTERVAL_MS, " milliseconds");
}

static void set_top(jp_config *config, const char *text, const char *source)
{
    set_count(&config->top, text, source, 1, JP_MAX_TOP, JP_DEFAULT_TOP, "");
}

typedef void (*text_setter)(jp_config *config, const char *text, const char *source);

/* One registry value of the key: a REG_SZ, or a DWORD given to the setter as decimal text. */
static void load_registry_value(jp_config *config, const char *name, int is_dword, text_setter set)
{
    char source[128], *text = NULL, number[16];
    DWORD value = 0;
    plat_reg_status status;
    snprintf(source, sizeof(source), "registry value %s of HKLM\\%s", name, JP_CONFIG_KEY);
    if (is_dword) {
        status = plat_reg_get_dword(PLAT_HKLM, JP_CONFIG_KEY, name, &value);
        snprintf(number, sizeof(number), "%lu", (unsigned long)value);
    } else {
        status = plat_reg_get_string(PLAT_HKLM, JP_CONFIG_KEY, name, &text);
    }
    if (status == PLAT_REG_WRONG_TYPE)
        jv_log("jevprof: %s is not a %s; ignored", source, is_dword ? "DWORD" : "REG_SZ");
    else if (status == PLAT_REG_OK)
        set(config, is_dword ? number : text, source);
    free(text);
}

static void load_environment_variable(jp_config *config, const char *name, text_setter set)
{
    char *text = plat_getenv(name);
    if (text)
        set(config, text, name);
    free(text);
}

void jp_config_load(jp_config *config)
{
    static const struct {
        const char *registry_value;
        int is_dword;
        const char *variable;
        text_setter set;
    } settings[] = {
        {"OutputDir", 0, "JEVPROF_OUTPUT_DIR", set_output_dir},
        {"Mode", 0, "JEVPROF_MODE", set_mode},
        {"IntervalMs", 1, "JEVPROF_INTERVAL_MS", set_interval_ms},
        {"TopN", 1, "JEVPROF_TOP", set_top},
    };
    jp_config_defaults(config);
    for (size_t i = 0; i < sizeof(settings) / sizeof(*settings); i++) {
        load_registry_value(config, settings[i].registry_value, settings[i].is_dword, settings[i].set);
        load_environment_variable(config, settings[i].variable, settings[i].set);
    }
}
