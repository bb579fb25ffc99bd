/* config.c - reading jevprof's settings (see config.h). */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "platform/platform.h"

void jp_config_defaults(jp_config *config)
{
    snprintf(config->output_dir, sizeof(config->output_dir), "%s", JP_DEFAULT_OUTPUT_DIR);
    snprintf(config->file_prefix, sizeof(config->file_prefix), "%s", JP_DEFAULT_FILE_PREFIX);
    config->mode = JP_DEFAULT_MODE;
    config->problems[0] = '\0';
    config->interval_ms = JP_DEFAULT_INTERVAL_MS;
    config->top = JP_DEFAULT_TOP;
    config->min_share = JP_DEFAULT_MIN_SHARE;
    config->wall_time = 0;
    config->loop_seconds = 0; /* one profile, no periods */
    config->exceptions = 0;
    config->native_frames = 1;
    config->vm_threads = 1;
    config->kernel_frames = 1;
    config->duration_seconds = 0;
    config->file_count = 0;
    config->lock_threshold_ns = 0; /* every contended wait */
}

const char *jp_mode_name(jp_mode mode)
{
    static const char *const names[] = {"", "cpu", "calls", "both", "alloc", "cpu,alloc", "calls,alloc", "both,alloc",
                                        "", "wall", "", "wall,calls", "", "wall,alloc", "", "wall,calls,alloc"};
    static const char *const with_lock[] = {"lock", "cpu,lock", "calls,lock", "both,lock", "alloc,lock",
                                            "cpu,alloc,lock", "calls,alloc,lock", "both,alloc,lock", "",
                                            "wall,lock", "", "wall,calls,lock", "", "wall,alloc,lock", "",
                                            "wall,calls,alloc,lock"};
    return (mode & JP_MODE_LOCK ? with_lock : names)[mode & (JP_MODE_ALL | JP_MODE_WALL)];
}

/* Logs one bad setting ("jevprof: " and the text) and keeps the text for the report. */
static void bad_setting(jp_config *config, const char *format, ...)
{
    char line[512];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof(line), format, args);
    va_end(args);
    jv_log("jevprof: %s", line);
    size_t used = strlen(config->problems);
    if (used + strlen(line) + 2 <= sizeof(config->problems))
        snprintf(config->problems + used, sizeof(config->problems) - used, "%s\n", line);
}

/* Each setter takes one setting as text, as the environment gives it; source names where it came
 * from in the diagnostic.  A bad value is logged and the default applied. */
static void set_output_dir(jp_config *config, const char *text, const char *source)
{
    size_t length = strlen(text);
    if (length == 0 || length >= sizeof(config->output_dir) - sizeof(config->file_prefix) - 32) {
        bad_setting(config, "%s is %s; using the default, \"%s\"", source,
                    length ? "too long for a directory name" : "empty", JP_DEFAULT_OUTPUT_DIR);
        snprintf(config->output_dir, sizeof(config->output_dir), "%s", JP_DEFAULT_OUTPUT_DIR);
        return;
    }
    memcpy(config->output_dir, text, length + 1);
}

/* The start of every output file's name: a name, not a path. */
static void set_file_prefix(jp_config *config, const char *text, const char *source)
{
    size_t length = strlen(text);
    const char *why = length == 0 ? "is empty"
                      : length >= sizeof(config->file_prefix) / 2 ? "is too long for a file name"
                      : strpbrk(text, "/\\:") ? "is not a file name (it has /, \\ or :)"
                                               : NULL;
    if (why) {
        bad_setting(config, "%s \"%s\" %s; using the default, \"%s\"", source, text, why, JP_DEFAULT_FILE_PREFIX);
        snprintf(config->file_prefix, sizeof(config->file_prefix), "%s", JP_DEFAULT_FILE_PREFIX);
        return;
    }
    memcpy(config->file_prefix, text, length + 1);
}

/* One word of the mode list; 0 when it is none of them. */
static jp_mode mode_of_word(const char *word, size_t length)
{
    static const struct { const char *name; jp_mode mode; } modes[] = {
        {"cpu", JP_MODE_SAMPLE},  {"sample", JP_MODE_SAMPLE}, {"wall", JP_MODE_SAMPLE | JP_MODE_WALL},
        {"calls", JP_MODE_CALLS}, {"both", JP_MODE_BOTH},      {"alloc", JP_MODE_ALLOC},
        {"lock", JP_MODE_LOCK}};
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
            bad_setting(config, "%s \"%s\" is not cpu, wall, calls, both (cpu and calls), alloc, lock or a list of them "
                        "(\"cpu,alloc\"; sample is cpu's old name); using the default, %s", source, text,
                        jp_mode_name(JP_DEFAULT_MODE));
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

static void set_count(jp_config *config, unsigned *setting, const char *text, const char *source, unsigned min,
                      unsigned max, unsigned fallback, const char *unit)
{
    const char *why = NULL;
    long value = parse_count(text, min, max, &why);
    if (value < 0) {
        bad_setting(config, "%s \"%s\" %s (%u to %u%s); using the default, %u", source, text, why, min, max, unit,
                    fallback);
        *setting = fallback;
        return;
    }
    *setting = (unsigned)value;
}

static void set_interval_ms(jp_config *config, const char *text, const char *source)
{
    set_count(config, &config->interval_ms, text, source, JP_MIN_INTERVAL_MS, JP_MAX_INTERVAL_MS,
              JP_DEFAULT_INTERVAL_MS, " milliseconds");
}

static void set_top(jp_config *config, const char *text, const char *source)
{
    set_count(config, &config->top, text, source, 1, JP_MAX_TOP, JP_DEFAULT_TOP, "");
}

static void set_loop(jp_config *config, const char *text, const char *source)
{
    set_count(config, &config->loop_seconds, text, source, 0, JP_MAX_LOOP_SECONDS, 0, " seconds");
}

static void set_exceptions(jp_config *config, const char *text, const char *source)
{
    set_count(config, &config->exceptions, text, source, 0, 1, 0, "");
}

static void set_time(jp_config *config, const char *text, const char *source)
{
    if (strcmp(text, "cpu") == 0 || strcmp(text, "wall") == 0) {
        config->wall_time = strcmp(text, "wall") == 0;
        return;
    }
    bad_setting(config, "%s \"%s\" is not cpu or wall; using the default, cpu", source, text);
    config->wall_time = 0;
}

/* A setting of two words: *value is 1 for yes, 0 for no; anything else is said and the default (1) kept. */
static void set_either(jp_config *config, int *value, const char *text, const char *source, const char *yes,
                       const char *no)
{
    if (strcmp(text, yes) == 0 || strcmp(text, no) == 0) {
        *value = strcmp(text, yes) == 0;
        return;
    }
    bad_setting(config, "%s \"%s\" is not %s or %s; using the default, %s", source, text, yes, no, yes);
    *value = 1;
}

static void set_cstack(jp_config *config, const char *text, const char *source)
{
    set_either(config, &config->native_frames, text, source, "fp", "no");
}

static void set_kstack(jp_config *config, const char *text, const char *source)
{
    set_either(config, &config->kernel_frames, text, source, "yes", "no");
}

static void set_threads(jp_config *config, const char *text, const char *source)
{
    set_either(config, &config->vm_threads, text, source, "all", "java");
}

static void set_min_share(jp_config *config, const char *text, const char *source)
{
    char *end = NULL;
    double value = isdigit((unsigned char)*text) || *text == '.' ? strtod(text, &end) : -1;
    if (value < 0 || value > 100 || !end || *end) {
        bad_setting(config, "%s \"%s\" is not a percent from 0 to 100 (such as 0.01); using the default, %g", source,
                    text, JP_DEFAULT_MIN_SHARE);
        config->min_share = JP_DEFAULT_MIN_SHARE;
        return;
    }
    config->min_share = value;
}

/* A duration in nanoseconds, as async-profiler's --lock takes it: a whole number, "ns" (the
 * default), "us", "ms" or "s" after it. */
static void set_lock_threshold(jp_config *config, const char *text, const char *source)
{
    static const struct { const char *unit; unsigned long long ns; } units[] = {
        {"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}, {"", 1}};
    char *end = NULL;
    errno = 0;
    unsigned long long value = isdigit((unsigned char)*text) ? strtoull(text, &end, 10) : 0;
    size_t u = 0;
    while (end && u < sizeof(units) / sizeof(*units) && strcmp(end, units[u].unit))
        u++;
    if (!end || errno || u == sizeof(units) / sizeof(*units) || value > JP_MAX_LOCK_THRESHOLD_NS / units[u].ns) {
        bad_setting(config, "%s \"%s\" is not a duration of 0 to 1 hour (nanoseconds, or a whole number with us, ms "
                    "or s after it); using the default, 0 (every wait)", source, text);
        config->lock_threshold_ns = 0;
        return;
    }
    config->lock_threshold_ns = value * units[u].ns;
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
        bad_setting(config, "%s is not a %s; ignored", source, is_dword ? "DWORD" : "REG_SZ");
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
        {"FilePrefix", 0, "JEVPROF_FILE_PREFIX", set_file_prefix},
        {"Mode", 0, "JEVPROF_MODE", set_mode},
        {"IntervalMs", 1, "JEVPROF_INTERVAL_MS", set_interval_ms},
        {"TopN", 1, "JEVPROF_TOP", set_top},
        {"MinShare", 0, "JEVPROF_MIN_SHARE", set_min_share},
        {"Time", 0, "JEVPROF_TIME", set_time},
        {"LoopSeconds", 1, "JEVPROF_LOOP", set_loop},
        {"Exceptions", 1, "JEVPROF_EXCEPTIONS", set_exceptions},
        {"LockThreshold", 0, "JEVPROF_LOCK_THRESHOLD", set_lock_threshold},
        {"CStack", 0, "JEVPROF_CSTACK", set_cstack},
        {"KStack", 0, "JEVPROF_KSTACK", set_kstack},
        {"Threads", 0, "JEVPROF_THREADS", set_threads},
    };
    jp_config_defaults(config);
    for (size_t i = 0; i < sizeof(settings) / sizeof(*settings); i++) {
        load_registry_value(config, settings[i].registry_value, settings[i].is_dword, settings[i].set);
        load_environment_variable(config, settings[i].variable, settings[i].set);
    }
}

/* Writes pattern with %p, %t and %% replaced into out; -1 when it does not fit. */
static int expand(const char *pattern, unsigned long pid, const char *stamp, char *out, size_t size)
{
    size_t n = 0;
    for (const char *c = pattern; *c; c++) {
        char piece[32] = {c[0], '\0'};
        if (c[0] == '%' && c[1] == 'p')
            snprintf(piece, sizeof(piece), "%lu", pid), c++;
        else if (c[0] == '%' && c[1] == 't')
            snprintf(piece, sizeof(piece), "%s", stamp), c++;
        else if (c[0] == '%' && c[1] == '%')
            c++;
        size_t length = strlen(piece);
        if (n + length >= size)
            return -1;
        memcpy(out + n, piece, length);
        n += length;
    }
    out[n] = '\0';
    return 0;
}

void jp_config_expand(jp_config *config, unsigned long pid, time_t started)
{
    char stamp[32] = "00000000-000000", dir[sizeof(config->output_dir)], prefix[sizeof(config->file_prefix)];
    const struct tm *local = localtime(&started);
    if (local)
        strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", local);
    if (expand(config->output_dir, pid, stamp, dir, sizeof(dir) - sizeof(prefix) - 32) == 0) {
        memcpy(config->output_dir, dir, strlen(dir) + 1);
    } else {
        bad_setting(config, "output directory \"%s\" is too long once expanded; using the default, \"%s\"",
                    config->output_dir, JP_DEFAULT_OUTPUT_DIR);
        snprintf(config->output_dir, sizeof(config->output_dir), "%s", JP_DEFAULT_OUTPUT_DIR);
    }
    if (expand(config->file_prefix, pid, stamp, prefix, sizeof(prefix)) == 0) {
        memcpy(config->file_prefix, prefix, strlen(prefix) + 1);
    } else {
        bad_setting(config, "file prefix \"%s\" is too long once expanded; using the default, \"%s\"",
                    config->file_prefix, JP_DEFAULT_FILE_PREFIX);
        snprintf(config->file_prefix, sizeof(config->file_prefix), "%s", JP_DEFAULT_FILE_PREFIX);
    }
    for (unsigned i = 0; i < config->file_count; i++) {
        char path[sizeof(config->files[i].path)];
        if (expand(config->files[i].path, pid, stamp, path, sizeof(path)) == 0)
            memcpy(config->files[i].path, path, strlen(path) + 1);
        else
            bad_setting(config, "file \"%s\" is too long once expanded; written as it is", config->files[i].path);
    }
}

/* ---- settings as text (jp_config_parse) ---------------------------------------------------- */

static void set_duration(jp_config *config, const char *text, const char *source)
{
    set_count(config, &config->duration_seconds, text, source, 0, JP_MAX_LOOP_SECONDS, 0, " seconds");
}

/* The kind of output a path's extension names; -1 when none. */
static int file_kind(const char *path)
{
    static const struct { const char *extension; jp_file_kind kind; } kinds[] = {
        {".html", JP_FILE_FLAME}, {".collapsed", JP_FILE_COLLAPSED}, {".pb.gz", JP_FILE_PPROF},
        {".txt", JP_FILE_REPORT}, {".report", JP_FILE_REPORT}, {".jfr", JP_FILE_JFR}};
    size_t length = strlen(path);
    for (size_t i = 0; i < sizeof(kinds) / sizeof(*kinds); i++) {
        size_t extension = strlen(kinds[i].extension);
        if (length > extension && strcmp(path + length - extension, kinds[i].extension) == 0)
            return (int)kinds[i].kind;
    }
    return -1;
}

static void add_file(jp_config *config, const char *text, const char *source)
{
    int kind = file_kind(text);
    const char *why = config->file_count == JP_MAX_FILES        ? "is one file too many (8 at most)"
                      : strlen(text) >= sizeof(config->files[0].path) ? "is too long for a path"
                      : kind < 0 ? "has none of the extensions .html, .collapsed, .pb.gz, .txt, .report, .jfr"
                                 : NULL;
    if (why) {
        bad_setting(config, "%s \"%s\" %s; ignored", source, text, why);
        return;
    }
    jp_output_file *file = &config->files[config->file_count++];
    snprintf(file->path, sizeof(file->path), "%s", text);
    file->kind = (jp_file_kind)kind;
}

/* interval=10ms is interval=10. */
static void set_interval_text(jp_config *config, const char *text, const char *source)
{
    char number[32];
    size_t length = strlen(text);
    if (length > 2 && length < sizeof(number) && strcmp(text + length - 2, "ms") == 0) {
        memcpy(number, text, length - 2);
        number[length - 2] = '\0';
        text = number;
    }
    set_interval_ms(config, text, source);
}

/* The length of the setting at word: up to a space or tab that no backslash escapes. */
static size_t setting_length(const char *word)
{
    size_t length = 0;
    while (word[length] && word[length] != ' ' && word[length] != '\t')
        length += word[length] == '\\' && word[length + 1] ? 2 : 1;
    return length;
}

/* text's first length characters into value (size bytes), each backslash giving the character after it. */
static void unescape(char *value, size_t size, const char *text, size_t length)
{
    size_t used = 0;
    for (size_t i = 0; i < length && used + 1 < size; i++)
        value[used++] = text[i] == '\\' && i + 1 < length ? text[++i] : text[i];
    value[used] = '\0';
}

void jp_config_parse(jp_config *config, const char *text)
{
    static const struct { const char *name; text_setter set; } settings[] = {
        {"out", set_output_dir},  {"prefix", set_file_prefix}, {"mode", set_mode},
        {"interval", set_interval_text}, {"top", set_top}, {"min-share", set_min_share},
        {"time", set_time},       {"loop", set_loop},          {"exceptions", set_exceptions},
        {"duration", set_duration}, {"file", add_file},       {"cstack", set_cstack},
        {"kstack", set_kstack},   {"threads", set_threads}, {"lock", set_lock_threshold},
    };
    const size_t count = sizeof(settings) / sizeof(*settings);
    const char *first = text + strspn(text, " \t");
    for (const char *word = first; *word; word += strspn(word, " \t")) {
        size_t length = setting_length(word), name_length = strcspn(word, "="), i = 0;
        char value[sizeof(config->files[0].path) + 2], source[64]; /* one more than fits: too long */
        while (name_length < length && i < count &&
               !(strlen(settings[i].name) == name_length && memcmp(word, settings[i].name, name_length) == 0))
            i++;
        if (name_length < length && i < count) {
            unescape(value, sizeof(value), word + name_length + 1, length - name_length - 1);
            snprintf(source, sizeof(source), "setting %s", settings[i].name);
            settings[i].set(config, value, source);
        } else if (word != first || name_length < length) { /* a first word without '=' names the command */
            bad_setting(config, "setting \"%.*s\" is not name=value with a name of: out, prefix, mode, interval, "
                        "top, min-share, time, loop, exceptions, duration, file, cstack, kstack, threads, lock; ignored",
                        (int)length, word);
        }
        word += length;
    }
}
