/* output.c - writing jevprof's files at the end (see output.h). */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "collapsed.h"
#include "flame.h"
#include "jfr.h"
#include "output.h"
#include "pprof.h"

#define NS_PER_US 1000u
#define STDERR_TOP_METHODS 5
#define JP_MAX_COLLAPSED_BYTES (12u << 20) /* the folding share rises until a collapsed file fits */
#define JP_MAX_PPROF_NODES (4u << 20)      /* beyond which a pprof file is folded as the collapsed file is */

static const char *const every_suffix[] = {
    JP_REPORT_SUFFIX,          JP_COLLAPSED_SUFFIX,       JP_FLAME_SUFFIX,
    JP_CALLS_COLLAPSED_SUFFIX, JP_CALLS_FLAME_SUFFIX,      JP_ALLOC_COLLAPSED_SUFFIX,
    JP_ALLOC_FLAME_SUFFIX,     JP_ALLOC_BYTES_COLLAPSED_SUFFIX, JP_ALLOC_BYTES_FLAME_SUFFIX,
    JP_PPROF_SUFFIX,           JP_CALLS_PPROF_SUFFIX,     JP_ALLOC_PPROF_SUFFIX,
    JP_LOCK_COLLAPSED_SUFFIX,  JP_LOCK_FLAME_SUFFIX,      JP_LOCK_DELAY_COLLAPSED_SUFFIX,
    JP_LOCK_DELAY_FLAME_SUFFIX, JP_LOCK_PPROF_SUFFIX,      JP_JFR_SUFFIX,
};
#define SUFFIXES (sizeof(every_suffix) / sizeof(*every_suffix))
#define NAME_BYTES (sizeof(((jp_config *)0)->file_prefix) + 32)

#define LOCK_SUFFIX ".lock" /* "<prefix>.lock": the process id of the run writing that prefix there */

/* The suffixes' indices in every_suffix. */
enum { REPORT, COLLAPSED, FLAME, CALLS_COLLAPSED, CALLS_FLAME, ALLOC_COLLAPSED, ALLOC_FLAME, BYTES_COLLAPSED,
       BYTES_FLAME, PPROF, CALLS_PPROF, ALLOC_PPROF, LOCK_COLLAPSED, LOCK_FLAME, DELAY_COLLAPSED, DELAY_FLAME,
       LOCK_PPROF, JFR };

/* What the end has written so far: the paths, for the line on stderr. */
typedef struct written_files {
    const char *dir;      /* where they go: the output directory, or the user's private one */
    plat_output_dir *held; /* that directory, checked and open; NULL when neither could be used */
    size_t first[3]; /* the first profile's collapsed file, flame graph and pprof file: what file= names */
    int wrote[SUFFIXES];
    char list[SUFFIXES * 256];
} written_files;

static void file_name(const jp_config *c, const char *suffix, char *name, size_t size)
{
    snprintf(name, size, "%s%s", c->file_prefix, suffix);
}

/* Says problem in one line and opens the user's private directory instead (its path written into
 * dir, sizeof(jp_config.output_dir) bytes); NULL, after a line, when that cannot be used either. */
static plat_output_dir *fall_back(const char *problem, char *dir)
{
    char private_path[sizeof(((jp_config *)0)->output_dir)], why[1024];
    plat_output_dir *d = plat_output_dir_private(private_path, sizeof(private_path), why, sizeof(why));
    if (!d) {
        jv_log("jevprof: %s; nor can a private directory be used (%s): nothing is written", problem, why);
        return NULL;
    }
    jv_log("jevprof: %s; the files go to %s instead", problem, private_path);
    memcpy(dir, private_path, strlen(private_path) + 1);
    return d;
}

/* Opens dir (sizeof(jp_config.output_dir) bytes, "." for the current directory) for writing, what
 * naming it in a line ("the output directory <dir>"; "will not write in" it when refused, "cannot
 * create" it when it cannot be made or reached): made when missing, and held open when only
 * this user (or root) can change it and what leads to it; otherwise the private directory, dir
 * then its path.  NULL when neither can be used (said in one line): nothing may be written, least
 * of all into the directory refused. */
static plat_output_dir *open_directory(char *dir, const char *what)
{
    char why[512], problem[3200];
    plat_output_dir *d = plat_output_dir_open(dir, why, sizeof(why));
    if (d)
        return d;
    snprintf(problem, sizeof(problem), "%s %s: %s", errno == EACCES ? "will not write in" : "cannot create", what, why);
    return fall_back(problem, dir);
}

/* The output directory of c, open (see open_directory); c's path becomes the private directory's
 * when that is used instead. */
static plat_output_dir *open_output_directory(char *dir)
{
    char what[sizeof(((jp_config *)0)->output_dir) + 32];
    snprintf(what, sizeof(what), "the output directory %s", dir);
    return open_directory(dir, what);
}

static int write_text(FILE *out, void *text)
{
    return fputs(text, out) < 0;
}

/* Takes the prefix in the output directory d for this run (see output.h): its lock file made (whole:
 * its process id is in it before its name appears), or a dead run's taken over; a running
 * process's kept, and this run's prefix gets "-<pid>".  -1 when nothing can be created there (the
 * reason in why). */
static int take_prefix(jp_config *c, plat_output_dir *d, char *why, size_t why_len)
{
    char name[NAME_BYTES], pid[32], held[32];
    DWORD holder = 0;
    file_name(c, LOCK_SUFFIX, name, sizeof(name));
    snprintf(pid, sizeof(pid), "%lu\n", (unsigned long)plat_process_id());
    int made = plat_create_new_file(d, name, pid, why, why_len);
    if (made <= 0)
        return made;
    if (plat_read_small_file(d, name, held, sizeof(held)) == 0)
        holder = (DWORD)strtoul(held, NULL, 10);
    if (holder == (DWORD)plat_process_id())
        return 0; /* this run's own, from its start before a restart */
    if (holder && plat_process_running(holder)) {
        size_t used = strlen(c->file_prefix);
        snprintf(c->file_prefix + used, sizeof(c->file_prefix) - used, "-%lu", (unsigned long)plat_process_id());
        jv_log("jevprof: %s/%.*s* are being written by process %lu; this run's files are %s/%s*", c->output_dir,
               (int)used, c->file_prefix, (unsigned long)holder, c->output_dir, c->file_prefix);
        return 0;
    }
    if (plat_write_file(d, name, write_text, pid, why, why_len)) /* a dead run's */
        jv_log("jevprof: cannot take over %s/%s: %s; a run beside this one would not know of it", c->output_dir,
               name, why);
    return 0;
}

int jp_output_prepare(jp_config *c)
{
    char why[256], problem[1400];
    plat_output_dir *d = open_output_directory(c->output_dir);
    if (!d)
        return -1;
    int taken = take_prefix(c, d, why, sizeof(why));
    plat_output_dir_close(d);
    if (taken == 0)
        return 0;
    snprintf(problem, sizeof(problem), "cannot write in the output directory %s: %s", c->output_dir, why);
    if (!(d = fall_back(problem, c->output_dir)))
        return -1;
    taken = take_prefix(c, d, why, sizeof(why));
    plat_output_dir_close(d);
    return taken == 0 ? 0 : -1;
}

void jp_output_release(const jp_config *c)
{
    char name[NAME_BYTES], held[32], why[512];
    plat_output_dir *d = plat_output_dir_open(c->output_dir, why, sizeof(why)); /* no line: said at the start */
    if (!d)
        return;
    file_name(c, LOCK_SUFFIX, name, sizeof(name));
    if (plat_read_small_file(d, name, held, sizeof(held)) == 0 && strtoul(held, NULL, 10) == (unsigned long)plat_process_id())
        plat_remove_file(d, name);
    plat_output_dir_close(d);
}

/* A profile as the collapsed file and the flame graph show it: its tree with the paths under the
 * minimum share (share, percent: the setting, or more to keep the collapsed file within
 * JP_MAX_COLLAPSED_BYTES) folded into their callers. */
typedef struct shown_profile {
    const jp_tree *tree;
    jp_tree folded;
    double share;
} shown_profile;

typedef int (*file_writer)(FILE *out, const jp_report *report, const shown_profile *profile);

/* Samples are counted as they are; call time is written in microseconds, allocations in whole ones. */
static uint64_t divisor_for(const jp_report *r, const jp_tree *tree)
{
    return tree == r->calls ? NS_PER_US : tree == r->allocations ? JP_ALLOCATION_COUNT_SCALE : 1;
}

/* About how many bytes the collapsed file of tree takes: each line is its path's names. */
static uint64_t collapsed_bytes(const jp_report *r, const jp_tree *tree, uint64_t divisor)
{
    uint64_t bytes = 0;
    uint32_t *length = malloc((size_t)tree->count * sizeof(*length)); /* of each node's path */
    if (!length)
        return UINT64_MAX;
    length[JP_ROOT] = 0;
    for (uint32_t i = 1; i < tree->count; i++) { /* parents come first */
        length[i] = length[tree->nodes[i].parent] + (uint32_t)strlen(r->name(r->name_context, tree->nodes[i].method)) + 1;
        if (tree->nodes[i].self >= (divisor + 1) / 2)
            bytes += length[i] + 12;
    }
    free(length);
    return bytes;
}

/* Folds p->tree at share (percent of the whole).  A share of 0 keeps every path, even one of no
 * weight: folding it would move its calls into its caller's, which the report does not count.
 * 0, or -1 out of memory. */
static int fold_at(shown_profile *p, double share)
{
    /* In integers: x87's excess precision must not move the threshold. */
    uint64_t min_total = jp_tree_share(p->tree->nodes[JP_ROOT].total, share);
    p->share = share;
    if (jp_tree_init(&p->folded))
        return -1;
    if (jp_tree_fold(&p->folded, p->tree, min_total || share <= 0 ? min_total : 1)) {
        jp_tree_free(&p->folded);
        return -1;
    }
    return 0;
}

/* Folds p->tree at the minimum share, then at higher shares while the collapsed file would
 * exceed JP_MAX_COLLAPSED_BYTES.  0, or -1 out of memory. */
static int fold(const jp_report *r, shown_profile *p)
{
    uint64_t divisor = divisor_for(r, p->tree);
    double share = r->config->min_share;
    for (;;) {
        if (fold_at(p, share))
            return -1;
        uint64_t bytes = collapsed_bytes(r, &p->folded, divisor);
        if (bytes <= JP_MAX_COLLAPSED_BYTES || share >= 100)
            return 0;
        jp_tree_free(&p->folded);
        double factor = (double)bytes / JP_MAX_COLLAPSED_BYTES;
        share = (share > 0 ? share : 1e-4) * (factor > 2 ? factor : 2);
        if (share > 100)
            share = 100;
    }
}

/* One file's writer with what it writes. */
typedef struct file_contents {
    file_writer write;
    const jp_report *report;
    const shown_profile *profile;
} file_contents;

static int fill_file(FILE *out, void *context)
{
    const file_contents *f = context;
    return f->write(out, f->report, f->profile);
}

/* Writes output which as name in dir (plat_write_file: a new file renamed over the name once
 * complete, so a file that is there is whole: bin/jevprof waits for them); 0, or -1 after
 * saying why on stderr. */
static int write_to(const jp_report *r, written_files *w, size_t which, plat_output_dir *held, const char *dir,
                    const char *name, file_writer write, const shown_profile *profile)
{
    char why[256];
    file_contents contents = {write, r, profile};
    if (!held)
        return -1; /* neither its directory nor the private one could be used: said already */
    if (plat_write_file(held, name, fill_file, &contents, why, sizeof(why))) {
        jv_log("jevprof: cannot write %s/%s: %s", dir, name, why);
        return -1;
    }
    size_t used = strlen(w->list);
    snprintf(w->list + used, sizeof(w->list) - used, "%s%s/%s", used ? ", " : "", dir, name);
    w->wrote[which] = 1;
    return 0;
}

/* The kind of file= that takes output which; -1 for none. */
static int file_kind_of(const written_files *w, size_t which)
{
    return which == REPORT ? JP_FILE_REPORT
           : which == JFR ? JP_FILE_JFR
           : which == w->first[0] ? JP_FILE_COLLAPSED
           : which == w->first[1] ? JP_FILE_FLAME
           : which == w->first[2] ? JP_FILE_PPROF
                                  : -1;
}

/* Writes one output: to its place in the output directory, or with file= settings to each file of
 * its kind (none: not written); 0, or -1 when one failed. */
static int write_file(const jp_report *r, written_files *w, size_t which, file_writer write,
                      const shown_profile *profile)
{
    int failed = 0;
    if (!r->config->file_count) {
        char name[NAME_BYTES];
        file_name(r->config, every_suffix[which], name, sizeof(name));
        return write_to(r, w, which, w->held, w->dir, name, write, profile);
    }
    for (unsigned i = 0; i < r->config->file_count; i++) {
        if ((int)r->config->files[i].kind != file_kind_of(w, which))
            continue;
        /* The directory and name file= gives (a bare name: the JVM's working directory), under
         * the output directory's rule: refused, the file goes to the private directory. */
        const char *path = r->config->files[i].path, *slash = strrchr(path, '/');
        char dir[sizeof(r->config->output_dir)] = ".", what[sizeof(dir) + sizeof(r->config->files[i].path) + 32];
        if (slash) {
            size_t n = slash == path ? 1 : (size_t)(slash - path);
            snprintf(dir, sizeof(dir), "%.*s", (int)n, path);
        }
        snprintf(what, sizeof(what), "%s, the directory of %s", dir, path);
        plat_output_dir *held = open_directory(dir, what);
        failed |= write_to(r, w, which, held, dir, slash ? slash + 1 : path, write, profile);
        plat_output_dir_close(held);
    }
    return failed;
}

/* Names, in one line, the files of this prefix that this run did not write: an earlier run's,
 * left as they are (never removed: only this run's own files are this run's to change). */
static void tell_earlier_files(const jp_config *c, const written_files *w)
{
    char name[NAME_BYTES], list[SUFFIXES * 256] = "", probe[2];
    for (size_t i = 0; i < SUFFIXES; i++) {
        file_name(c, every_suffix[i], name, sizeof(name));
        size_t used = strlen(list);
        if (!w->wrote[i] && w->held && plat_read_small_file(w->held, name, probe, sizeof(probe)) == 0)
            snprintf(list + used, sizeof(list) - used, "%s%s/%s", used ? ", " : "", w->dir, name);
    }
    if (list[0])
        jv_log("jevprof: left %s as they are: an earlier run's (this run does not write them)", list);
}

static int write_report(FILE *out, const jp_report *r, const shown_profile *profile)
{
    (void)profile;
    return jp_report_write(out, r);
}

static int write_collapsed(FILE *out, const jp_report *r, const shown_profile *p)
{
    return jp_collapsed_write(out, &p->folded, divisor_for(r, p->tree), r->name, r->name_context);
}

/* The flame graph's subtitle: the profile's total, what it measures, how it was sampled. */
static void describe_profile(const jp_report *r, const shown_profile *p, char *out, size_t size)
{
    const jp_tree *tree = p->tree;
    double total = (double)tree->nodes[JP_ROOT].total / (double)divisor_for(r, tree);
    int estimates = r->allocations_weighted && r->allocation_interval > 0;
    if (tree == r->samples)
        snprintf(out, size, "%.0f samples in all, one every %u ms of %s", total, r->config->interval_ms,
                 r->config->mode & JP_MODE_WALL ? "wall-clock time of every thread, its state last"
                                                : "each thread's processor time");
    else if (tree == r->calls)
        snprintf(out, size, "%.3f ms of %s time in all, every call", total / 1e3,
                 r->config->wall_time ? "wall" : "processor");
    else if (tree == r->lock_waits || tree == r->lock_delay)
        snprintf(out, size, "%.0f %s in all, every contended wait of %llu ns or more", tree == r->lock_waits ? total : total / 1e6,
                 tree == r->lock_waits ? "waits" : "ms waited", r->lock_threshold_ns);
    else if (estimates)
        snprintf(out, size, "%.0f %s in all, ESTIMATED from samples, about one per %lu bytes allocated", total,
                 tree == r->allocations ? "allocations" : "bytes", r->allocation_interval);
    else
        snprintf(out, size, "%.0f %s in all, %s", total, tree == r->allocations ? "allocations" : "bytes",
                 r->allocations_weighted ? "every allocation" : "as the VM reported them");
    size_t used = strlen(out);
    snprintf(out + used, size - used, "; paths under %.3g%% folded into a frame under their callers", p->share);
}

static int write_flame(FILE *out, const jp_report *r, const shown_profile *p)
{
    char title[512], what[160], subtitle[512];
    const char *unit = "samples";
    const jp_tree *tree = p->tree;
    int estimates = r->allocations_weighted && r->allocation_interval > 0;
    snprintf(what, sizeof(what), "samples");
    if (tree == r->calls)
        snprintf(what, sizeof(what), "time in calls (microseconds)"), unit = "us";
    else if (tree == r->allocations || tree == r->allocated_bytes)
        snprintf(what, sizeof(what), "%s by site and class%s", tree == r->allocations ? "allocations" : "allocated bytes",
                 estimates ? ", estimated from samples" : ""),
        unit = tree == r->allocations ? "allocations" : "bytes";
    else if (tree == r->lock_waits || tree == r->lock_delay)
        snprintf(what, sizeof(what), "%s by waiting stack and lock class",
                 tree == r->lock_waits ? "contended lock waits" : "time waited for locks (nanoseconds)"),
        unit = tree == r->lock_waits ? "waits" : "ns";
    if (estimates && (tree == r->allocations || tree == r->allocated_bytes))
        snprintf(what + strlen(what), sizeof(what) - strlen(what), " (one per %lu bytes)", r->allocation_interval);
    snprintf(title, sizeof(title), "jevprof: %s, %s", r->program && *r->program ? r->program : "Java program", what);
    describe_profile(r, p, subtitle, sizeof(subtitle));
    jp_flame_labels labels = {title, subtitle, unit};
    return jp_flame_write(out, &p->folded, &labels, divisor_for(r, tree), r->name, r->kind, r->name_context);
}

/* The tree as the collapsed file has it (folded alike: the same bound on the file's size), gzip'd;
 * the samples with their frames at their offsets, folded as the collapsed file's paths are (each
 * of its paths, at the lines its frames were at). */
static int write_pprof(FILE *out, const jp_report *r, const shown_profile *p)
{
    jp_tree lines = {0};
    if (p->tree == r->samples && r->sample_lines &&
        (jp_tree_init(&lines) || jp_tree_fold_as(&lines, r->sample_lines, &p->folded))) {
        jp_tree_free(&lines);
        return -1;
    }
    int locks = p->tree == r->lock_waits;
    jp_pprof_profile profile = {
        .kind = p->tree == r->samples ? JP_PPROF_SAMPLES
                : p->tree == r->calls ? JP_PPROF_CALLS
                : locks               ? JP_PPROF_LOCKS
                                      : JP_PPROF_ALLOCATIONS,
        .tree = lines.nodes ? &lines : &p->folded,
        .bytes = locks ? r->lock_delay : r->allocated_bytes,
        .scale = p->tree == r->allocations ? JP_ALLOCATION_COUNT_SCALE : 1,
        .wall_time = p->tree == r->samples ? (r->config->mode & JP_MODE_WALL) != 0 : r->config->wall_time,
        .period = p->tree == r->samples ? (int64_t)r->config->interval_ms * 1000000
                  : locks               ? 1
                                        : (int64_t)r->allocation_interval,
        .time_nanos = (int64_t)r->started_unix_ns,
        .duration_nanos = (int64_t)(r->seconds * 1e9),
        .name = r->signature_name,
        .system_name = r->name,
        .source = r->source,
        .line = r->line,
        .name_context = r->name_context,
    };
    uint8_t *data;
    size_t size;
    int encoded = jp_pprof_encode(&profile, &data, &size);
    jp_tree_free(&lines);
    if (encoded)
        return -1;
    int failed = plat_gzip_write(out, data, size);
    free(data);
    return failed;
}

static int write_jfr(FILE *out, const jp_report *r, const shown_profile *profile)
{
    (void)profile;
    return jp_jfr_write(out, r);
}

static void log_line(void *context, const char *line)
{
    (void)context;
    jv_log("jevprof:   %s", line);
}


/* Writes the collapsed file, the flame graph and the pprof file of tree; 0, or -1 when any failed. */
static int write_profile(const jp_report *r, written_files *w, size_t collapsed, size_t flame, size_t pprof,
                         const jp_tree *tree)
{
    shown_profile p = {tree, {0}, 0}, as_set = {tree, {0}, 0};
    if (fold(r, &p)) {
        jv_log("jevprof: out of memory: no collapsed file, flame graph or pprof file of a profile");
        return -1;
    }
    /* The pprof file counts what the report counts: folded at the setting, not at the share the
     * collapsed file's size needed, unless that would leave it over JP_MAX_PPROF_NODES. */
    const shown_profile *for_pprof = &p;
    if (pprof < SUFFIXES && p.share > r->config->min_share && fold_at(&as_set, r->config->min_share) == 0 &&
        as_set.folded.count <= JP_MAX_PPROF_NODES)
        for_pprof = &as_set;
    if (p.share > r->config->min_share)
        /* kinds, not file names: with file= settings the files are not <prefix><suffix> (the line
         * naming the files written follows); the pprof file may keep the setting (above) */
        jv_log("jevprof: paths under %.3g%% of the profile folded into a frame under their callers in its collapsed "
               "stacks and flame graph (the setting, %g%%, left a collapsed file over %u MB)", p.share,
               r->config->min_share, (unsigned)(JP_MAX_COLLAPSED_BYTES >> 20));
    int failed = write_file(r, w, collapsed, write_collapsed, &p);
    failed |= write_file(r, w, flame, write_flame, &p);
    if (pprof < SUFFIXES)
        failed |= write_file(r, w, pprof, write_pprof, for_pprof);
    jp_tree_free(&p.folded);
    jp_tree_free(&as_set.folded);
    return failed;
}

void jp_output_write_all(const jp_report *r, char *written, size_t size)
{
    const jp_tree *main_profile = r->samples ? r->samples : r->calls;
    written_files w;
    char dir[sizeof(r->config->output_dir)];
    uint64_t started = plat_now_ns();
    memset(&w, 0, sizeof(w));
    memcpy(dir, r->config->output_dir, sizeof(dir));
    if (!r->config->file_count) /* checked again: it may have gone or changed since the start */
        w.held = open_output_directory(dir);
    w.dir = dir;
    int locks_first = !main_profile && !r->allocations && r->lock_waits;
    w.first[0] = main_profile ? COLLAPSED : locks_first ? LOCK_COLLAPSED : ALLOC_COLLAPSED;
    w.first[1] = main_profile ? FLAME : locks_first ? LOCK_FLAME : ALLOC_FLAME;
    w.first[2] = main_profile ? PPROF : locks_first ? LOCK_PPROF : ALLOC_PPROF;
    int failed = write_file(r, &w, REPORT, write_report, NULL);
    if (main_profile)
        failed |= write_profile(r, &w, COLLAPSED, FLAME, PPROF, main_profile);
    if (r->samples && r->calls)
        failed |= write_profile(r, &w, CALLS_COLLAPSED, CALLS_FLAME, CALLS_PPROF, r->calls);
    if (r->allocations) {
        failed |= write_profile(r, &w, ALLOC_COLLAPSED, ALLOC_FLAME, ALLOC_PPROF, r->allocations);
        failed |= write_profile(r, &w, BYTES_COLLAPSED, BYTES_FLAME, SUFFIXES, r->allocated_bytes);
    }
    if (r->lock_waits) {
        failed |= write_profile(r, &w, LOCK_COLLAPSED, LOCK_FLAME, LOCK_PPROF, r->lock_waits);
        failed |= write_profile(r, &w, DELAY_COLLAPSED, DELAY_FLAME, SUFFIXES, r->lock_delay);
    }
    for (unsigned i = 0; i < r->config->file_count; i++)
        if (r->config->files[i].kind == JP_FILE_JFR) { /* only when asked for: every profile in one recording */
            failed |= write_file(r, &w, JFR, write_jfr, NULL);
            break;
        }
    if (!r->config->file_count) /* file= names files of any name: nothing of the prefix is this run's */
        tell_earlier_files(r->config, &w);
    plat_output_dir_close(w.held);
    snprintf(written, size, "%s %s", failed && w.list[0] ? "wrote only" : "wrote", w.list[0] ? w.list : "nothing");
    jv_log("jevprof: %s in %.3f s%s", written,
           (double)(plat_now_ns() - started) / 1e9,
           main_profile       ? "; hottest methods:"
           : r->allocations   ? "; most allocated classes:"
           : r->lock_waits    ? "; most waited-for locks:"
                              : "");
    jp_report_top_lines(r, STDERR_TOP_METHODS, log_line, NULL);
}
