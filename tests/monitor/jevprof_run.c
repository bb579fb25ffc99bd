/*
 * jevprof_run.c - jevprof's end-to-end runs and the reading back of its files (jevprof_run.h).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jevprof_run.h"

char *read_text(const char *dir, const char *name)
{
    char path[1200];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    char *text = calloc(1, (size_t)size + 1);
    if (fread(text, 1, (size_t)size, f) != (size_t)size)
        text[0] = '\0';
    fclose(f);
    return text;
}

void prepare(char *dir, size_t size)
{
    char path[1200];
    snprintf(dir, size, "%s", jvmrun_build_path("jevprof-jvm.XXXXXX"));
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/jevprof.reg", dir);
    jvmrun_write_jevprof_registry(path);
}

void run_jevprof_main(const char *jdk, const char *dir, const char *monitors, const char *mode,
                      const char *main_class, const char *const *args, const char *const *extras,
                      jvmrun_result *r)
{
    static char files_env[1300], dir_env[1300], mode_env[64];
    snprintf(files_env, sizeof(files_env), "JEVMON_REGISTRY_FILES=%s/jevprof.reg", dir);
    snprintf(dir_env, sizeof(dir_env), "JEVPROF_OUTPUT_DIR=%s", dir);
    snprintf(mode_env, sizeof(mode_env), "JEVPROF_MODE=%s", mode);
    const char *env[12] = {"MSJAVA_ENABLE_MONITORS=1", files_env, dir_env, mode_env, "JEVPROF_INTERVAL_MS=2",
                           "JEVPROF_TOP=1000"};
    size_t n = 6;
    if (monitors)
        env[n++] = monitors;
    for (const char *const *e = extras; e && *e && n < 11; e++)
        env[n++] = *e;
    env[n] = NULL;
    jvmrun_main(jdk, main_class, "", env, args, r);
}

void run_jevprof_with(const char *jdk, const char *dir, const char *monitors, const char *mode,
                      const char *rounds, const char *const *extras, jvmrun_result *r)
{
    const char *args[] = {rounds, NULL};
    run_jevprof_main(jdk, dir, monitors, mode, "Workload", args, extras, r);
}

void run_jevprof(const char *jdk, const char *dir, const char *monitors, const char *mode, const char *rounds,
                 const char *extra, jvmrun_result *r)
{
    const char *extras[] = {extra, NULL};
    run_jevprof_with(jdk, dir, monitors, mode, rounds, extras, r);
}

void expect(const char *text, const char *what)
{
    if (!text || !strstr(text, what)) {
        fprintf(stderr, "---- missing \"%s\" in:\n%s\n----\n", what, text ? text : "(no file)");
        ck_assert_msg(0, "missing: %s", what);
    }
}

void remove_outputs(const char *dir)
{
    static const char *const files[] = {"jevprof.reg",          "jevprof-report.txt",       "jevprof.collapsed",
                                        "jevprof-flame.html",   "jevprof-calls.collapsed",  "jevprof-calls-flame.html",
                                        "jevprof-alloc.collapsed", "jevprof-alloc-flame.html",
                                        "jevprof-alloc-bytes.collapsed", "jevprof-alloc-bytes-flame.html",
                                        "jevprof.pb.gz",        "jevprof-calls.pb.gz",      "jevprof-alloc.pb.gz"};
    char path[1300];
    for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
        remove(path);
    }
    remove(dir);
}

unsigned long long self_count(const char *collapsed, const char *leaf)
{
    unsigned long long sum = 0;
    size_t leaf_len = strlen(leaf);
    for (const char *line = collapsed; *line;) {
        const char *end = strchr(line, '\n'), *space = memrchr(line, ' ', (size_t)(end - line));
        if (space && (size_t)(space - line) >= leaf_len && memcmp(space - leaf_len, leaf, leaf_len) == 0 &&
            (space - leaf_len == line || space[-(long)leaf_len - 1] == ';'))
            sum += strtoull(space + 1, NULL, 10);
        line = end + 1;
    }
    return sum;
}

const char *table_row(const char *report, const char *title, const char *name)
{
    char row_end[512];
    const char *table = report ? strstr(report, title) : NULL, *table_end = table ? strstr(table, "\n\n") : NULL;
    snprintf(row_end, sizeof(row_end), "  %s\n", name);
    const char *row = table ? strstr(table, row_end) : NULL;
    if (!row || (table_end && row > table_end))
        return NULL;
    while (row > table && row[-1] != '\n')
        row--;
    return row;
}

unsigned long long table_count(const char *report, const char *title, const char *name)
{
    const char *row = table_row(report, title, name);
    return row ? strtoull(row, NULL, 10) : 0;
}

int read_pprof(const char *dir, const char *file, int index, pprof_view *v)
{
    char command[1600], line[4096];
    memset(v, 0, sizeof(*v));
    if (system("command -v go >/dev/null") != 0) {
        fprintf(stderr, "skipped: no go (golang-go): %s is not read back with go tool pprof\n", file);
        return 0;
    }
    snprintf(command, sizeof(command), "go tool pprof -raw '%s/%s' 2>&1", dir, file);
    FILE *raw = popen(command, "r");
    ck_assert_ptr_nonnull(raw);
    int in_samples = 0, in_locations = 0;
    while (fgets(line, sizeof(line), raw)) {
        if (strncmp(line, "Samples:", 8) == 0) {
            in_samples = 1;
            continue;
        }
        if (strncmp(line, "Locations", 9) == 0)
            in_locations = 1;
        else if (in_locations && strchr(line, ':') && line[0] == ' ')
            v->locations++;
        else if (in_locations)
            in_locations = 0;
        if (in_samples && !strchr(line, ':'))
            in_samples = strchr(line, '/') != NULL; /* the line of sample types, then the samples end */
        else if (in_samples) {
            char *at = line;
            unsigned long long value = 0;
            for (int i = 0; i <= index; i++)
                value = strtoull(at, &at, 10);
            v->total += value;
            v->samples++;
        }
    }
    ck_assert_int_eq(pclose(raw), 0);
    ck_assert_msg(v->samples > 0, "go tool pprof -raw found no samples in %s/%s", dir, file);
    snprintf(command, sizeof(command), "go tool pprof -top -sample_index=%d -nodecount=1 '%s/%s' 2>&1", index, dir, file);
    FILE *top = popen(command, "r");
    ck_assert_ptr_nonnull(top);
    int rows = 0;
    while (fgets(line, sizeof(line), top)) {
        if (strstr(line, "flat  flat%")) {
            rows = 1;
        } else if (rows == 1) {
            int name_at = 0;
            ck_assert_int_eq(sscanf(line, "%llu %*s %*s %*s %*s %n", &v->top_flat, &name_at), 1);
            snprintf(v->top, sizeof(v->top), "%s", line + name_at);
            v->top[strcspn(v->top, "\n")] = '\0';
            rows = 2;
        }
    }
    ck_assert_int_eq(pclose(top), 0);
    ck_assert_msg(rows == 2, "go tool pprof -top showed no function of %s/%s", dir, file);
    return 1;
}

unsigned long long number_after(const char *report, const char *label)
{
    const char *at = strstr(report, label);
    return at ? strtoull(at + strlen(label), NULL, 10) : 0;
}
