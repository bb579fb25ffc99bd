/* output.c - writing jevprof's files at the end (see output.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collapsed.h"
#include "flame.h"
#include "output.h"

#define NS_PER_US 1000u
#define STDERR_TOP_METHODS 5

static const char *const every_suffix[] = {
    JP_REPORT_SUFFIX,          JP_COLLAPSED_SUFFIX,       JP_FLAME_SUFFIX,
    JP_CALLS_COLLAPSED_SUFFIX, JP_CALLS_FLAME_SUFFIX,      JP_ALLOC_COLLAPSED_SUFFIX,
    JP_ALLOC_FLAME_SUFFIX,     JP_ALLOC_BYTES_COLLAPSED_SUFFIX, JP_ALLOC_BYTES_FLAME_SUFFIX,
};
#define SUFFIXES (sizeof(every_suffix) / sizeof(*every_suffix))
#define PATH_BYTES (sizeof(((jp_config *)0)->output_dir) + sizeof(((jp_config *)0)->file_prefix) + 32)

/* What the end has written so far: the paths, for the line on stderr. */
typedef struct written_files {
    int wrote[SUFFIXES];
    char list[SUFFIXES * 256];
} written_files;

static void file_path(const jp_config *c, const char *suffix, char *path, size_t size)
{
    snprintf(path, size, "%s/%s%s", c->output_dir, c->file_prefix, suffix);
}

int jp_output_prepare(const jp_config *c)
{
    char why[256];
    if (plat_make_directories(c->output_dir, why, sizeof(why)) == 0)
        return 0;
    jv_log("jevprof: cannot create the output directory %s: %s; nothing can be written there at the end "
           "unless it appears meanwhile (set JEVPROF_OUTPUT_DIR)", c->output_dir, why);
    return -1;
}

typedef int (*file_writer)(FILE *out, const jp_report *report, const jp_tree *tree);

/* Writes one file; 0, or -1 after saying why on stderr. */
static int write_file(const jp_report *r, written_files *w, size_t which, file_writer write, const jp_tree *tree)
{
    char path[PATH_BYTES];
    file_path(r->config, every_suffix[which], path, sizeof(path));
    FILE *out = fopen(path, "wb");
    if (!out) {
        jv_log("jevprof: cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    int failed = write(out, r, tree);
    if (fclose(out) || failed) {
        jv_log("jevprof: error writing %s", path);
        remove(path); /* half a file would pass for this run's */
        return -1;
    }
    size_t used = strlen(w->list);
    snprintf(w->list + used, sizeof(w->list) - used, "%s%s", used ? ", " : "", path);
    w->wrote[which] = 1;
    return 0;
}

/* Removes the files of this prefix that this run did not write: an earlier run's. */
static void remove_stale(const jp_config *c, const written_files *w)
{
    char path[PATH_BYTES];
    for (size_t i = 0; i < SUFFIXES; i++) {
        if (w->wrote[i])
            continue;
        file_path(c, every_suffix[i], path, sizeof(path));
        if (remove(path) == 0)
            jv_log("jevprof: removed %s, an earlier run's (this mode does not write it)", path);
    }
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

/* The suffixes' indices in every_suffix. */
enum { REPORT, COLLAPSED, FLAME, CALLS_COLLAPSED, CALLS_FLAME, ALLOC_COLLAPSED, ALLOC_FLAME, BYTES_COLLAPSED,
       BYTES_FLAME };

void jp_output_write_all(const jp_report *r)
{
    const jp_tree *main_profile = r->samples ? r->samples : r->calls;
    written_files w;
    char why[256];
    memset(&w, 0, sizeof(w));
    if (plat_make_directories(r->config->output_dir, why, sizeof(why)))
        jv_log("jevprof: cannot create the output directory %s: %s", r->config->output_dir, why);
    int failed = write_file(r, &w, REPORT, write_report, NULL);
    if (main_profile) {
        failed |= write_file(r, &w, COLLAPSED, write_collapsed, main_profile);
        failed |= write_file(r, &w, FLAME, write_flame, main_profile);
    }
    if (r->samples && r->calls) {
        failed |= write_file(r, &w, CALLS_COLLAPSED, write_collapsed, r->calls);
        failed |= write_file(r, &w, CALLS_FLAME, write_flame, r->calls);
    }
    if (r->allocations) {
        failed |= write_file(r, &w, ALLOC_COLLAPSED, write_collapsed, r->allocations);
        failed |= write_file(r, &w, ALLOC_FLAME, write_flame, r->allocations);
        failed |= write_file(r, &w, BYTES_COLLAPSED, write_collapsed, r->allocated_bytes);
        failed |= write_file(r, &w, BYTES_FLAME, write_flame, r->allocated_bytes);
    }
    remove_stale(r->config, &w);
    jv_log("jevprof: %s %s%s", failed ? "wrote only" : "wrote", w.list[0] ? w.list : "nothing",
           main_profile       ? "; hottest methods:"
           : r->allocations   ? "; most allocated classes:"
                              : "");
    jp_report_top_lines(r, STDERR_TOP_METHODS, log_line, NULL);
}
