/* report.c - the text report (see report.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "calls.h"
#include "rollup.h"

#define PATH_SHOWN_FRAMES 12 /* deeper paths show their outermost frame, "...", and the innermost */

/* One profile as the report shows it: samples, or nanoseconds shown as milliseconds. */
typedef struct profile_view {
    const jp_tree *tree;
    int is_time;
    const char *by;   /* "samples" or "time" */
    uint64_t divisor; /* counts: the tree's weights per unit (0 is 1) */
} profile_view;

static void format_weight(char *out, size_t size, const profile_view *v, uint64_t weight)
{
    uint64_t divisor = v->divisor ? v->divisor : 1;
    if (v->is_time)
        snprintf(out, size, "%.3f ms", (double)weight / 1e6);
    else
        snprintf(out, size, "%" PRIu64, (weight + divisor / 2) / divisor);
}

/* For printing only, to two decimals: the last bit x87's extra precision (FLT_EVAL_METHOD 2) may
 * change shows only when a share falls within a hair of a rounding point; nothing compares it. */
static double share(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static const char *name_of(const jp_report *r, MethodID method)
{
    return (r->signature_name ? r->signature_name : r->name)(r->name_context, method);
}

static void write_top_methods(FILE *out, const jp_report *r, const profile_view *v, jp_rollup *rollup, int by_self)
{
    uint64_t whole = v->tree->nodes[JP_ROOT].total;
    char self[32], total[32];
    if (by_self)
        jp_rollup_sort_by_self(rollup);
    else
        jp_rollup_sort_by_total(rollup);
    fprintf(out, "\nTop %u methods by %s %s\n", r->config->top, by_self ? "self" : "total", v->by);
    fprintf(out, "%14s %7s %14s %7s%s  %s\n", "self", "self%", "total", "total%", v->is_time ? "        calls" : "",
            "method");
    for (size_t i = 0; i < rollup->count && i < r->config->top; i++) {
        const jp_method_stats *m = &rollup->methods[i];
        char calls[24] = ""; /* samples do not count calls */
        format_weight(self, sizeof(self), v, m->self);
        format_weight(total, sizeof(total), v, m->total);
        if (v->is_time)
            snprintf(calls, sizeof(calls), " %12" PRIu64, m->calls);
        fprintf(out, "%14s %6.2f%% %14s %6.2f%%%s  %s\n", self, share(m->self, whole), total, share(m->total, whole),
                calls, name_of(r, m->method));
    }
}

static void write_path(FILE *out, const jp_report *r, const jp_tree *tree, uint32_t node)
{
    uint32_t path[PATH_SHOWN_FRAMES];
    size_t depth = 0, shown = 0;
    for (uint32_t n = node; n != JP_ROOT; n = tree->nodes[n].parent) {
        if (shown < PATH_SHOWN_FRAMES - 1)
            path[shown++] = n;
        depth++;
    }
    uint32_t outermost = node;
    while (tree->nodes[outermost].parent != JP_ROOT)
        outermost = tree->nodes[outermost].parent;
    if (depth > shown)
        fprintf(out, "%s > ... > ", name_of(r, tree->nodes[outermost].method));
    for (size_t i = shown; i-- > 0;)
        fprintf(out, "%s%s", name_of(r, tree->nodes[path[i]].method), i ? " > " : "\n");
}

typedef struct weighted_node {
    uint64_t self;
    uint32_t node;
} weighted_node;

/* The top nodes by self weight, heaviest first, without sorting the whole tree (millions of
 * nodes in calls mode): an insertion into a short sorted list only for a node that beats its
 * last.  count of them in hottest[0..top-1]. */
static size_t hottest_nodes(const jp_tree *tree, weighted_node *hottest, size_t top)
{
    size_t count = 0;
    for (uint32_t i = 1; i < tree->count; i++) {
        uint64_t self = tree->nodes[i].self;
        if (!self || (count == top && self <= hottest[count - 1].self))
            continue;
        size_t at = count < top ? count++ : top - 1;
        while (at > 0 && hottest[at - 1].self < self) {
            hottest[at] = hottest[at - 1];
            at--;
        }
        hottest[at] = (weighted_node){self, i};
    }
    return count;
}

static void write_hot_paths(FILE *out, const jp_report *r, const profile_view *v)
{
    const jp_tree *tree = v->tree;
    weighted_node *nodes = malloc(r->config->top * sizeof(*nodes));
    char weight[32];
    if (!nodes)
        return;
    size_t count = hottest_nodes(tree, nodes, r->config->top);
    fprintf(out, "\nHottest call paths by self %s (outermost frame first)\n", v->by);
    for (size_t i = 0; i < count; i++) {
        format_weight(weight, sizeof(weight), v, nodes[i].self);
        fprintf(out, "%14s %6.2f%%  ", weight, share(nodes[i].self, tree->nodes[JP_ROOT].total));
        write_path(out, r, tree, nodes[i].node);
    }
    free(nodes);
}

static void write_profile(FILE *out, const jp_report *r, const profile_view *v)
{
    jp_rollup rollup;
    if (jp_rollup_build(&rollup, v->tree)) {
        fprintf(out, "\n(out of memory: no per-method tables)\n");
        return;
    }
    write_top_methods(out, r, v, &rollup, 1);
    write_top_methods(out, r, v, &rollup, 0);
    write_hot_paths(out, r, v);
    jp_rollup_free(&rollup);
}

static void write_sampling(FILE *out, const jp_report *r)
{
    fprintf(out, "\nSamples\n-------\n");
    jp_sampler_write_counts(out, r->sample_counts, r->config->interval_ms, r->sampling_seconds);
    if (r->native)
        jp_native_write(out, r->native, r->config->top);
    profile_view v = {r->samples, 0, "samples", 1};
    write_profile(out, r, &v);
}

static int most_time_first(const void *a, const void *b)
{
    const jp_thread_summary *x = a, *y = b;
    return x->time < y->time ? 1 : x->time > y->time ? -1 : 0;
}

/* The per-thread view: each thread's time and its heaviest path, most time first. */
static void write_threads(FILE *out, const jp_report *r)
{
    jp_thread_summary *sorted = malloc(r->thread_count * sizeof(*sorted) + 1);
    if (!sorted)
        return;
    memcpy(sorted, r->threads, r->thread_count * sizeof(*sorted));
    qsort(sorted, r->thread_count, sizeof(*sorted), most_time_first);
    fprintf(out, "\nTop %u threads by time (%zu threads; the heaviest path from each one's outermost frame)\n",
            r->config->top, r->thread_count);
    fprintf(out, "%14s %7s %10s  %s\n", "time", "share", "OS thread", "heaviest path");
    for (size_t i = 0; i < r->thread_count && i < r->config->top; i++) {
        fprintf(out, "%11.3f ms %6.2f%% %10lu  ", (double)sorted[i].time / 1e6,
                share(sorted[i].time, r->calls->nodes[JP_ROOT].total), (unsigned long)sorted[i].os_thread);
        for (size_t f = 0; f < sorted[i].depth; f++)
            fprintf(out, "%s%s", f ? " > " : "", name_of(r, sorted[i].path[f]));
        fprintf(out, "%s\n", sorted[i].depth == JP_THREAD_PATH_FRAMES ? " > ..." : "");
    }
    free(sorted);
}

static void write_calls(FILE *out, const jp_report *r)
{
    fprintf(out, "\nCalls\n-----\n");
    fprintf(out, "%s in recorded calls: %.3f ms, summed over every thread's %" PRIu64 " outermost frames\n",
            r->config->wall_time ? "Wall time" : "Processor time", (double)r->calls->nodes[JP_ROOT].total / 1e6,
            r->calls->nodes[JP_ROOT].calls);
    if (r->config->wall_time)
        fprintf(out, "Times are wall time: a thread waiting, sleeping or blocked counts (JEVPROF_TIME=wall)\n");
    else
        fprintf(out, "Times are processor time: waits of %u ms or more (blocked, sleeping, waiting, in I/O) are left "
                     "out, measured by the thread's CPU clock (JEVPROF_TIME=wall for wall time)\n", JP_BLOCKED_GAP_MS);
    if (r->lost_threads)
        fprintf(out, "Threads not recorded (out of memory): %" PRIu64 "\n", r->lost_threads);
    if (r->thread_count)
        write_threads(out, r);
    profile_view v = {r->calls, 1, "time", 1};
    write_profile(out, r, &v);
}

/* How the report shows one of the allocation trees. */
typedef struct site_view {
    const jp_tree *tree;
    const char *what;  /* the tables' title: "Top N <what> by ..." */
    const char *unit;  /* the weight column */
    uint64_t divisor;  /* the tree's weights per unit */
} site_view;

/* One table of allocation sites: rows, a rollup of v's tree whose self weights say how much. */
static void write_site_table(FILE *out, const jp_report *r, const site_view *v, jp_rollup *rows, const char *by)
{
    uint64_t whole = v->tree->nodes[JP_ROOT].total;
    jp_rollup_sort_by_self(rows);
    fprintf(out, "\nTop %u %s by %s\n", r->config->top, v->what, by);
    fprintf(out, "%14s %7s  %s\n", v->unit, "share", by);
    for (size_t i = 0; i < rows->count && i < r->config->top && rows->methods[i].self; i++)
        fprintf(out, "%14" PRIu64 " %6.2f%%  %s\n", (rows->methods[i].self + v->divisor / 2) / v->divisor,
                share(rows->methods[i].self, whole), name_of(r, rows->methods[i].method));
}

/* What the allocation totals are: the VM's own counts, or estimates from weighted samples. */
static void write_allocation_basis(FILE *out, const jp_report *r)
{
    uint64_t reported = r->allocation_counts->recorded;
    if (!r->allocations_weighted)
        fprintf(out, "Allocations recorded: %" PRIu64 ", each counted once (the VM does not say how it samples "
                     "them: with sampling, the counts and bytes below are of the samples, not of the program)\n",
                reported);
    else if (r->allocation_interval == 0)
        fprintf(out, "Allocations recorded: %" PRIu64 ": every allocation (sampling interval 0)\n", reported);
    else
        fprintf(out, "Allocations sampled: %" PRIu64 ", about one per %lu bytes each thread allocates; the totals, "
                     "tables and paths below are ESTIMATES: each sample of size s stands for 1/(1-exp(-s/%lu)) "
                     "allocations and as many times s bytes\n", reported, r->allocation_interval,
                r->allocation_interval);
}

/* "estimated " when the allocation totals are estimates, else "". */
static const char *estimated(const jp_report *r)
{
    return r->allocations_weighted && r->allocation_interval ? "estimated " : "";
}

static void write_allocations(FILE *out, const jp_report *r)
{
    const jp_allocation_counts *c = r->allocation_counts;
    jp_rollup by_class, by_method;
    char sites_what[64], bytes_what[64];
    fprintf(out, "\nAllocations\n-----------\n");
    write_allocation_basis(out, r);
    if (c->no_stack)
        fprintf(out, "Of those without a stack, under (callers unknown): %" PRIu64 "\n", c->no_stack);
    if (c->truncated)
        fprintf(out, "Stacks cut at %d frames: %" PRIu64 "\n", JP_MAX_STACK_FRAMES, c->truncated);
    if (c->unweighted)
        fprintf(out, "Of those the VM could not weigh, counted once: %" PRIu64 "\n", c->unweighted);
    if (c->unsized)
        fprintf(out, "Of those without a size (GetObjectSize failed), left out of the bytes: %" PRIu64 "\n",
                c->unsized);
    if (c->nested)
        fprintf(out, "Allocations the VM made for jevprof's own calls, not recorded: %" PRIu64 "\n", c->nested);
    if (c->failed)
        fprintf(out, "Allocations not recorded (out of memory): %" PRIu64 "\n", c->failed);
    fprintf(out, "Allocations in all (%s): %" PRIu64 "\n", *estimated(r) ? "estimated" : "counted",
            (r->allocations->nodes[JP_ROOT].total + JP_ALLOCATION_COUNT_SCALE / 2) / JP_ALLOCATION_COUNT_SCALE);
    fprintf(out, "Bytes allocated in all (%s): %" PRIu64 "\n", *estimated(r) ? "estimated" : "counted",
            r->allocated_bytes->nodes[JP_ROOT].total);
    snprintf(sites_what, sizeof(sites_what), "%sallocation sites", estimated(r));
    snprintf(bytes_what, sizeof(bytes_what), "%sallocated bytes", estimated(r));
    const site_view views[] = {{r->allocations, sites_what, "allocations", JP_ALLOCATION_COUNT_SCALE},
                               {r->allocated_bytes, bytes_what, "bytes", 1}};
    for (size_t i = 0; i < sizeof(views) / sizeof(*views); i++) {
        if (jp_rollup_build(&by_class, views[i].tree)) {
            fprintf(out, "\n(out of memory: no allocation sites)\n");
            return;
        }
        write_site_table(out, r, &views[i], &by_class, "allocated class");
        jp_rollup_free(&by_class);
        if (jp_rollup_build_by_parent(&by_method, views[i].tree) == 0) {
            write_site_table(out, r, &views[i], &by_method, "allocating method");
            jp_rollup_free(&by_method);
        }
    }
    profile_view v = {r->allocations, 0, *estimated(r) ? "estimated allocations" : "allocations",
                      JP_ALLOCATION_COUNT_SCALE};
    write_hot_paths(out, r, &v);
}

static void write_lock_waits(FILE *out, const jp_report *r)
{
    const jp_allocation_counts *c = r->lock_counts;
    jp_rollup by_class, by_method;
    fprintf(out, "\nLock waits\n----------\n");
    fprintf(out, "Contended waits recorded: %" PRIu64 " (synchronized enters that found the monitor held, parks on "
                 "java.util.concurrent locks), each of %llu ns or more\n", c->recorded, r->lock_threshold_ns);
    if (c->no_stack)
        fprintf(out, "Of those without a stack, under (callers unknown): %" PRIu64 "\n", c->no_stack);
    if (c->truncated)
        fprintf(out, "Stacks cut at %d frames: %" PRIu64 "\n", JP_MAX_STACK_FRAMES, c->truncated);
    if (c->nested)
        fprintf(out, "Waits inside jevprof's own calls, not recorded: %" PRIu64 "\n", c->nested);
    if (c->failed)
        fprintf(out, "Waits not recorded (out of memory): %" PRIu64 "\n", c->failed);
    fprintf(out, "Time waited in all: %.3f ms\n", (double)r->lock_delay->nodes[JP_ROOT].total / 1e6);
    const site_view views[] = {{r->lock_waits, "lock waits", "waits", 1}, {r->lock_delay, "lock delays", "ns", 1}};
    for (size_t i = 0; i < sizeof(views) / sizeof(*views); i++) {
        if (jp_rollup_build(&by_class, views[i].tree)) {
            fprintf(out, "\n(out of memory: no lock waits)\n");
            return;
        }
        write_site_table(out, r, &views[i], &by_class, "lock class");
        jp_rollup_free(&by_class);
        if (jp_rollup_build_by_parent(&by_method, views[i].tree) == 0) {
            write_site_table(out, r, &views[i], &by_method, "waiting method");
            jp_rollup_free(&by_method);
        }
    }
    profile_view v = {r->lock_delay, 1, "time waited", 1};
    write_hot_paths(out, r, &v);
}

static void write_summary(FILE *out, const jp_report *r)
{
    const jp_summary *s = r->summary;
    fprintf(out, "\nSummary\n-------\n");
    fprintf(out, "Classes loaded: %llu (unloaded: %llu)\n", (unsigned long long)s->classes_loaded,
            (unsigned long long)s->classes_unloaded);
    fprintf(out, "Garbage collections: %llu, %.3f ms in all\n", (unsigned long long)s->gc_count,
            (double)s->gc_ns / 1e6);
    fprintf(out, "Threads: %llu created, %llu ended, at most %lld live at once\n",
            (unsigned long long)s->threads_created, (unsigned long long)s->threads_destroyed,
            (long long)s->threads_max_live);
    if (!s->exceptions_counted) {
        fprintf(out, "Exceptions thrown: not counted (JEVPROF_EXCEPTIONS=1 counts them)\n");
        return;
    }
    fprintf(out, "Exceptions thrown: %llu\n", (unsigned long long)s->exceptions_thrown);
    for (size_t i = 0; i < s->exception_classes; i++)
        fprintf(out, "%14" PRIu64 "  %s\n", s->exceptions[i].count, s->exceptions[i].class_name);
}

int jp_report_write(FILE *out, const jp_report *r)
{
    fprintf(out, "jevprof report\n==============\n");
    if (r->config->problems[0])
        fprintf(out, "BAD SETTINGS (each replaced by its default):\n%s\n", r->config->problems);
    fprintf(out, "Program: %s\n", r->program && *r->program ? r->program : "(unknown)");
    fprintf(out, "Mode: %s", jp_mode_name(r->config->mode));
    if (r->config->mode & JP_MODE_SAMPLE)
        fprintf(out, ", a sample every %u ms of %s", r->config->interval_ms,
                r->config->mode & JP_MODE_WALL ? "wall-clock time of every thread" : "each thread's processor time");
    fprintf(out, "\nProfiled for: %.3f s\n", r->seconds);
    fprintf(out, "Collapsed stacks and flame graphs: paths under %g%% of their profile folded into one frame "
                 "under their callers, \"(smaller paths, folded: JEVPROF_MIN_SHARE)\"\n", r->config->min_share);
    if (r->samples)
        write_sampling(out, r);
    if (r->calls)
        write_calls(out, r);
    if (r->allocations)
        write_allocations(out, r);
    if (r->lock_waits)
        write_lock_waits(out, r);
    write_summary(out, r);
    return ferror(out) ? -1 : 0;
}

void jp_report_top_lines(const jp_report *r, unsigned count, jp_line_sink sink, void *context)
{
    const jp_tree *tree = r->samples ? r->samples : r->calls ? r->calls : r->allocations ? r->allocations
                                : r->lock_waits ? r->lock_delay : NULL;
    jp_rollup rollup;
    char line[512];
    if (!tree || jp_rollup_build(&rollup, tree))
        return;
    jp_rollup_sort_by_self(&rollup);
    for (size_t i = 0; i < rollup.count && i < count; i++) {
        snprintf(line, sizeof(line), "%6.2f%% self  %s", share(rollup.methods[i].self, tree->nodes[JP_ROOT].total),
                 name_of(r, rollup.methods[i].method));
        sink(context, line);
    }
    jp_rollup_free(&rollup);
}
