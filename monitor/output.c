/* output.c - writing jevprof's files at the end (see output.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collapsed.h"
#include "flame.h"
#include "output.h"

#define NS_PER_US 1000u
#define STDERR_TOP_METHODS 5

typedef int (*file_writer)(FILE *out, const jp_report *report, const jp_tree *tree);

/* Writes one file; 0, or -1 after saying why on stderr. */
static int write_file(const jp_report *r, const char *file_name, file_writer write, const jp_tree *tree)
{
    char path[sizeof(r->config->output_dir) + 64];
    snprintf(path, sizeof(path), "%s/%s", r->config->output_dir, file_name);
    FILE *out = fopen(path, "wb");
    if (!out) {
        jv_log("jevprof: cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    int failed = write(out, r, tree);
    if (fclose(out) || failed) {
        jv_log("jevprof: error writing %s", path);
        return -1;
    }
    return 0;
}

static int write_report(FILE *out, const jp_report *r, const jp_tree *tree)
{
    (void)tree;
    return jp_report_write(out, r);
}

/* Samples are counted as they are; call time is written in microseconds, allocations in whole ones. */
static uint64_t divisor_for(const jp_report *r, const jp_tree *tree)
{
    return tree == r->calls ? NS_PER_US : tree == r->allocations ? JP_ALLOCATION_COUNT_SCALE : 1;
}

static int write_collapsed(FILE *out, const jp_report *r, const jp_tree *tree)
{
    return jp_collapsed_write(out, tree, divisor_for(r, tree), r->name, r->name_context);
}

static int write_flame(FILE *out, const jp_report *r, const jp_tree *tree)
{
    char title[512], what[160];
    const char *unit = "samples";
    int estimates = r->allocations_weighted && r->allocation_interval > 0;
    snprintf(what, sizeof(what), "samples");
    if (tree == r->calls)
        snprintf(what, sizeof(what), "time in calls (microseconds)"), unit = "us";
    else if (tree == r->allocations || tree == r->allocated_bytes)
        snprintf(what, sizeof(what), "%s by site and class%s", tree == r->allocations ? "allocations" : "allocated bytes",
                 estimates ? ", estimated from samples" : ""),
        unit = tree == r->allocations ? "allocations" : "bytes";
    if (estimates && (tree == r->allocations || tree == r->allocated_bytes))
        snprintf(what + strlen(what), sizeof(what) - strlen(what), " (one per %lu bytes)", r->allocation_interval);
    snprintf(title, sizeof(title), "jevprof: %s, %s", r->program && *r->program ? r->program : "Java program", what);
    return jp_flame_write(out, tree, title, unit, divisor_for(r, tree), r->name, r->name_context);
}

static void log_line(void *context, const char *line)
{
    (void)context;
    jv_log("jevprof:   %s", line);
}

void jp_output_write_all(const jp_report *r)
{
    const jp_tree *main_profile = r->samples ? r->samples : r->calls;
    int failed = write_file(r, JP_REPORT_FILE, write_report, NULL);
    if (main_profile) {
        failed |= write_file(r, JP_COLLAPSED_FILE, write_collapsed, main_profile);
        failed |= write_file(r, JP_FLAME_FILE, write_flame, main_profile);
    }
    if (r->samples && r->calls) {
        failed |= write_file(r, JP_CALLS_COLLAPSED_FILE, write_collapsed, r->calls);
        failed |= write_file(r, JP_CALLS_FLAME_FILE, write_flame, r->calls);
    }
    if (r->allocations) {
        failed |= write_file(r, JP_ALLOC_COLLAPSED_FILE, write_collapsed, r->allocations);
        failed |= write_file(r, JP_ALLOC_FLAME_FILE, write_flame, r->allocations);
        failed |= write_file(r, JP_ALLOC_BYTES_COLLAPSED_FILE, write_collapsed, r->allocated_bytes);
        failed |= write_file(r, JP_ALLOC_BYTES_FLAME_FILE, write_flame, r->allocated_bytes);
    }
    jv_log("jevprof: %s %s/%s%s", failed ? "wrote what it could of" : "wrote", r->config->output_dir,
           JP_REPORT_FILE,
           main_profile        ? " and the flame graph next to it; hottest methods:"
           : r->allocations    ? " and the allocation flame graph next to it; most allocated classes:"
                               : "");
    jp_report_top_lines(r, STDERR_TOP_METHODS, log_line, NULL);
}
