/*
 * test_jevprof_writers.c - jevprof's outputs from a known tree: display names, the
 * collapsed-stacks file (parsed back: paths and counts), the HTML flame graph (its data,
 * escaping, and nothing fetched from outside), the text report, with its allocation sites, and
 * the JFR recording's events (their threads and times from the log, their bound).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../monitor/collapsed.h"
#include "../../monitor/flame.h"
#include "../../monitor/javaname.h"
#include "../../monitor/jfr.h"
#include "../../monitor/report.h"
#include "../support/testkit.h"

enum { MAIN = 1, WORK, HOT, COLD, ODD, POINT_CLASS, INT_ARRAY_CLASS };

static const char *test_name(void *context, MethodID method)
{
    (void)context;
    switch (method) {
    case MAIN: return "demo.Main.main";
    case WORK: return "demo.Main.work";
    case HOT: return "demo.Main.hot";
    case COLD: return "demo.Main.cold";
    case ODD: return "demo.Odd.<init>&\"quoted\"</script>";
    case POINT_CLASS: return "demo.Point"; /* class frames, as in an allocation tree */
    case INT_ARRAY_CLASS: return "[I";
    default: return "?";
    }
}

static jp_tree tree;

/* main -> work -> hot: 70 samples; main -> work -> cold: 20; main -> work: 5; main: 5 */
static void setup(void)
{
    const MethodID hot[] = {MAIN, WORK, HOT}, cold[] = {MAIN, WORK, COLD}, work[] = {MAIN, WORK}, main_[] = {MAIN};
    ck_assert_int_eq(jp_tree_init(&tree), 0);
    jp_tree_add_stack(&tree, hot, 3, 70);
    jp_tree_add_stack(&tree, cold, 3, 20);
    jp_tree_add_stack(&tree, work, 2, 5);
    jp_tree_add_stack(&tree, main_, 1, 5);
    jp_tree_sum_root(&tree);
}

static void teardown(void)
{
    jp_tree_free(&tree);
}

/* Everything written to f, as a string (free it). */
static char *contents(FILE *f)
{
    long size = ftell(f);
    ck_assert_int_ge(size, 0);
    char *text = malloc((size_t)size + 1);
    rewind(f);
    ck_assert_uint_eq(fread(text, 1, (size_t)size, f), (size_t)size);
    text[size] = '\0';
    return text;
}

/* Method names drop their signature and slashes; class names keep an array's descriptor, less
 * the ';' that would end a collapsed frame; both truncate to fit. */
static const struct display_case {
    void (*display)(const char *vm_name, char *out, size_t out_size);
    const char *vm_name;
    size_t out_size;
    const char *expected;
} display_cases[] = {
    {jp_display_name, "java/lang/Object.hashCode()I", 64, "java.lang.Object.hashCode"},
    {jp_display_name, "Workload$Worker.run()V", 64, "Workload$Worker.run"},
    {jp_display_name, "pkg/A.<init>(Ljava/lang/String;)V", 64, "pkg.A.<init>"},
    {jp_display_name, "noSignature", 64, "noSignature"},
    {jp_display_name, "bad;name\n.x()V", 64, "bad_name_.x"},
    {jp_display_name, "a/very/long/package/Name.method()V", 10, "a.very.lo"},
    {jp_class_display_name, "java.lang.String", 64, "java.lang.String"},
    {jp_class_display_name, "[I", 64, "[I"},
    {jp_class_display_name, "[[Ljava.lang.String;", 64, "[[Ljava.lang.String"},
    {jp_class_display_name, "Odd;Name\n", 64, "Odd_Name_"},
    {jp_class_display_name, "a.very.long.Name", 7, "a.very"},
};

START_TEST(display_names_of_methods_and_classes)
{
    const struct display_case *c = &display_cases[_i];
    char out[64];
    c->display(c->vm_name, out, c->out_size);
    ck_assert_str_eq(out, c->expected);
}
END_TEST

START_TEST(collapsed_lines_parse_back_to_the_tree)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(jp_collapsed_write(f, &tree, 1, test_name, NULL), 0);
    char *text = contents(f);
    unsigned long long sum = 0;
    int lines = 0, hot_seen = 0;
    for (char *line = text, *end; *line; line = end + 1) {
        end = strchr(line, '\n');
        ck_assert_ptr_nonnull(end); /* every line ends with a newline */
        *end = '\0';
        char *space = strrchr(line, ' ');
        ck_assert_ptr_nonnull(space);
        *space = '\0';
        unsigned long long count = strtoull(space + 1, NULL, 10);
        ck_assert_uint_gt(count, 0);
        ck_assert_msg(strncmp(line, "demo.Main.main", 14) == 0, "root first: %s", line);
        if (strcmp(line, "demo.Main.main;demo.Main.work;demo.Main.hot") == 0)
            hot_seen = (count == 70);
        sum += count;
        lines++;
    }
    ck_assert_int_eq(lines, 4);
    ck_assert(hot_seen);
    ck_assert_uint_eq(sum, tree.nodes[JP_ROOT].total);
    free(text);
    fclose(f);
}
END_TEST

START_TEST(collapsed_divides_and_drops_zero_lines)
{
    FILE *f = tmpfile();
    ck_assert_int_eq(jp_collapsed_write(f, &tree, 10, test_name, NULL), 0);
    char *text = contents(f);
    ck_assert_ptr_nonnull(strstr(text, "demo.Main.main;demo.Main.work;demo.Main.hot 7\n"));
    ck_assert_ptr_nonnull(strstr(text, "demo.Main.main;demo.Main.work 1\n")); /* 5/10 rounds to 1 */
    free(text);
    fclose(f);
}
END_TEST

/* demo.Main.main is native, every other method compiled. */
static jp_frame_kind test_kind(void *context, MethodID method)
{
    (void)context;
    return method == MAIN ? JP_FRAME_NATIVE : JP_FRAME_COMPILED;
}

START_TEST(flame_graph_is_self_contained_and_holds_the_data)
{
    const MethodID odd[] = {MAIN, ODD};
    jp_tree_add_stack(&tree, odd, 2, 1);
    FILE *f = tmpfile();
    jp_flame_labels labels = {"test <profile>", "101 samples in all", "samples"};
    ck_assert_int_eq(jp_flame_write(f, &tree, &labels, 1, test_name, test_kind, NULL), 0);
    char *html = contents(f);
    ck_assert_ptr_nonnull(strstr(html, "<!DOCTYPE html>"));
    ck_assert_ptr_nonnull(strstr(html, "\"demo.Main.hot\""));
    ck_assert_ptr_nonnull(strstr(html, "id=\"search\""));
    ck_assert_ptr_nonnull(strstr(html, "onclick"));
    /* nothing from outside the file */
    ck_assert_ptr_null(strstr(html, "http:"));
    ck_assert_ptr_null(strstr(html, "https:"));
    ck_assert_ptr_null(strstr(html, "src="));
    ck_assert_ptr_null(strstr(html, "href"));
    ck_assert_ptr_null(strstr(html, "@import"));
    ck_assert_ptr_null(strstr(html, "url("));
    /* a name cannot end the script: <, >, & and quotes are escaped */
    ck_assert_ptr_nonnull(strstr(html, "demo.Odd.\\u003cinit\\u003e\\u0026\\u0022quoted\\u0022\\u003c/script\\u003e"));
    ck_assert_ptr_nonnull(strstr(html, "test \\u003cprofile\\u003e"));
    ck_assert_ptr_nonnull(strstr(html, "\"subtitle\":\"101 samples in all\""));
    ck_assert_ptr_nonnull(strstr(html, "<option value=\"reversed\">")); /* the three views */
    ck_assert_ptr_nonnull(strstr(html, "<option value=\"flame\">"));
    /* one kind per name, in the names' order: only demo.Main.main is native here */
    const char *names = strstr(html, "\"names\":["), *kinds = strstr(html, "\"kinds\":[");
    ck_assert_ptr_nonnull(names);
    ck_assert_ptr_nonnull(kinds);
    int commas = 0, main_at = -1;
    for (const char *p = names + 9; *p != ']'; p++) {
        if (strncmp(p, "\"demo.Main.main\"", 16) == 0)
            main_at = commas;
        commas += *p == ',';
    }
    ck_assert_int_ge(main_at, 0);
    for (int i = 0; i <= commas; i++)
        ck_assert_int_eq(kinds[9 + 2 * i], i == main_at ? '0' + JP_FRAME_NATIVE : '0' + JP_FRAME_COMPILED);
    /* each kind's legend label and colour, in the kinds' order */
    ck_assert_ptr_nonnull(strstr(html, "\"kindTable\":[[\"other\",0,0],[\"Java\","));
    ck_assert_ptr_nonnull(strstr(html, "[\"compiled\","));
    const char *script_end = strstr(html, "</script>");
    ck_assert_ptr_nonnull(script_end);
    ck_assert_ptr_null(strstr(script_end + 1, "</script>"));
    /* the tree: the root holds everything (101), nested arrays balance */
    ck_assert_ptr_nonnull(strstr(html, "\"root\":[-1,101,0,["));
    const char *data = strstr(html, "var DATA = ");
    int depth = 0, max_depth = 0;
    for (const char *p = data; *p && *p != ';'; p++) {
        depth += (*p == '[') - (*p == ']');
        max_depth = depth > max_depth ? depth : max_depth;
        ck_assert_int_ge(depth, 0);
    }
    ck_assert_int_eq(depth, 0);
    ck_assert_int_eq(max_depth, 2 * 4); /* the root and 3 levels, each [name, total, self, [children]] */
    free(html);
    fclose(f);
}
END_TEST

START_TEST(flame_graph_of_an_empty_profile_is_valid)
{
    jp_tree empty;
    ck_assert_int_eq(jp_tree_init(&empty), 0);
    FILE *f = tmpfile();
    jp_flame_labels labels = {"nothing", NULL, "samples"};
    ck_assert_int_eq(jp_flame_write(f, &empty, &labels, 1, test_name, NULL, NULL), 0);
    char *html = contents(f);
    ck_assert_ptr_nonnull(strstr(html, "\"names\":[],\"kinds\":[],\"kindTable\":["));
    ck_assert_ptr_nonnull(strstr(html, "]],\"root\":[-1,0,0,[]]}"));
    free(html);
    fclose(f);
    jp_tree_free(&empty);
}
END_TEST

static jp_report report_of(jp_config *config, jp_summary *summary, jp_sampler_counts *counts)
{
    jp_report r = {0};
    jp_config_defaults(config);
    config->top = 3;
    r.program = "demo/Main";
    r.config = config;
    r.seconds = 2.5;
    r.samples = &tree;
    r.sample_counts = counts;
    r.sampling_seconds = 2.0;
    r.summary = summary;
    r.name = test_name;
    return r;
}

/* The report r writes, as a string (free it). */
static char *report_text(const jp_report *r)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(jp_report_write(f, r), 0);
    char *text = contents(f);
    fclose(f);
    return text;
}

static char *line_sink_text;
static void collect_line(void *context, const char *line)
{
    (void)context;
    size_t old = line_sink_text ? strlen(line_sink_text) : 0;
    line_sink_text = realloc(line_sink_text, old + strlen(line) + 2);
    strcpy(line_sink_text + old, line);
    strcat(line_sink_text, "\n");
}

START_TEST(report_lists_top_methods_paths_and_summary)
{
    jp_config config;
    jp_summary summary;
    jp_sampler_counts counts = {.ticks = 200, .samples = 100, .idle = 50};
    jp_exception_count thrown[] = {{"java.lang.IllegalStateException", 7}};
    memset(&summary, 0, sizeof(summary));
    summary.classes_loaded = 42;
    summary.gc_count = 3;
    summary.gc_ns = 4500000;
    summary.threads_created = 9;
    summary.threads_max_live = 8;
    summary.exceptions_thrown = 7;
    summary.exceptions_counted = 1;
    summary.exceptions = thrown;
    summary.exception_classes = 1;
    jp_report r = report_of(&config, &summary, &counts);
    char *text = report_text(&r);
    ck_assert_ptr_nonnull(strstr(text, "Program: demo/Main"));
    ck_assert_ptr_nonnull(strstr(text, "Top 3 methods by self samples"));
    const char *by_self = strstr(text, "Top 3 methods by self samples");
    const char *first = strstr(by_self, "demo.Main.hot"), *second = strstr(by_self, "demo.Main.cold");
    ck_assert_ptr_nonnull(first);
    ck_assert(first < second);
    ck_assert_ptr_nonnull(strstr(text, "70  70.00%"));
    ck_assert_ptr_nonnull(strstr(text, "demo.Main.main > demo.Main.work > demo.Main.hot\n"));
    ck_assert_ptr_nonnull(strstr(text, "Classes loaded: 42"));
    ck_assert_ptr_nonnull(strstr(text, "Garbage collections: 3, 4.500 ms"));
    ck_assert_ptr_nonnull(strstr(text, "at most 8 live"));
    ck_assert_ptr_nonnull(strstr(text, "java.lang.IllegalStateException"));
    ck_assert_ptr_nonnull(strstr(text, "100.0 per second"));
    ck_assert_ptr_null(strstr(text, "\nCalls\n"));
    free(text);
    jp_report_top_lines(&r, 2, collect_line, NULL);
    ck_assert_str_eq(line_sink_text, " 70.00% self  demo.Main.hot\n 20.00% self  demo.Main.cold\n");
    free(line_sink_text);
    line_sink_text = NULL;
}
END_TEST

/* The execution samples of a recording (the chunk's events one after another, each its size first):
 * thread, time (ticks) and stack of each, at most max of them.  Returns how many there are. */
typedef struct jfr_sample {
    uint64_t ticks, thread, stack;
} jfr_sample;

static uint64_t varint(const unsigned char **at)
{
    uint64_t value = 0;
    for (int shift = 0; shift < 63; shift += 7) {
        unsigned char byte = *(*at)++;
        value |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80))
            break;
    }
    return value;
}

static size_t jfr_samples(const jp_report *r, jfr_sample *samples, size_t max, uint64_t *start_ticks)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(jp_jfr_write(f, r), 0);
    long size = ftell(f);
    unsigned char *file = malloc((size_t)size);
    rewind(f);
    ck_assert_uint_eq(fread(file, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    ck_assert(!memcmp(file, "FLR", 4));
    *start_ticks = 0;
    for (int i = 48; i < 56; i++)
        *start_ticks = *start_ticks << 8 | file[i];
    size_t n = 0;
    for (const unsigned char *event = file + 68; event < file + size;) {
        const unsigned char *at = event;
        uint64_t length = varint(&at);
        if (varint(&at) == 101) { /* jdk.ExecutionSample: startTime, sampledThread, stackTrace, state */
            jfr_sample sample;
            sample.ticks = varint(&at);
            sample.thread = varint(&at);
            sample.stack = varint(&at);
            if (n < max)
                samples[n] = sample;
            n++;
        }
        ck_assert_uint_gt(length, 0);
        event += length;
    }
    free(file);
    return n;
}

/* hot's three samples on OS threads 7, 9, 7 at 100, 200, 300 ns after the start, cold's one on 9 at
 * 400: each event on its own thread at its own time. */
START_TEST(jfr_events_are_on_their_logged_threads_and_times)
{
    jp_config config;
    jp_summary summary;
    jp_sampler_counts counts = {0};
    jp_tree small;
    const MethodID hot[] = {MAIN, WORK, HOT}, cold[] = {MAIN, WORK, COLD};
    ck_assert_int_eq(jp_tree_init(&small), 0);
    uint32_t hot_node = jp_tree_add_path(&small, hot, NULL, 3, 3), cold_node = jp_tree_add_path(&small, cold, NULL, 3, 1);
    jp_tree_sum_root(&small);
    memset(&summary, 0, sizeof(summary));
    jp_report r = report_of(&config, &summary, &counts);
    r.samples = r.sample_lines = &small;
    r.signature_name = test_name;
    r.started_ns = 1000000;
    r.started_unix_ns = 1700000000000000000ull;
    jp_log_thread threads[] = {{7, "worker-7"}, {9, "worker-9"}};
    jp_logged_event logged[] = {{r.started_ns + 100, 1, 0, 0, hot_node},
                                {r.started_ns + 200, 1, 0, 1, hot_node},
                                {r.started_ns + 300, 1, 0, 0, hot_node},
                                {r.started_ns + 400, 1, 0, 1, cold_node}};
    jp_event_log log = {0};
    log.events = logged, log.count = 4, log.threads = threads, log.thread_count = 2;
    r.sample_events = &log;
    jfr_sample samples[8];
    uint64_t start;
    ck_assert_uint_eq(jfr_samples(&r, samples, 8, &start), 4);
    ck_assert_uint_eq(start, r.started_unix_ns);
    uint64_t thread_at[5] = {0}; /* by time: 100, 200, 300, 400 ns in */
    for (size_t i = 0; i < 4; i++) {
        uint64_t after = samples[i].ticks - start;
        ck_assert(after % 100 == 0 && after >= 100 && after <= 400);
        ck_assert_uint_eq(thread_at[after / 100], 0);
        thread_at[after / 100] = samples[i].thread;
    }
    ck_assert_uint_ge(thread_at[1], 3); /* 1 and 2 stand for the events of no thread known */
    ck_assert_uint_eq(thread_at[1], thread_at[3]);
    ck_assert_uint_eq(thread_at[2], thread_at[4]);
    ck_assert_uint_ne(thread_at[1], thread_at[2]);
    log.count = 2; /* a thinned log: hot's two entries, of weights 2 and 1, share its three events; cold has none */
    logged[0].weight = 2;
    ck_assert_uint_eq(jfr_samples(&r, samples, 8, &start), 4);
    size_t on_first = 0, on_second = 0, unlogged = 0;
    for (size_t i = 0; i < 4; i++) {
        on_first += samples[i].ticks - start == 100;
        on_second += samples[i].ticks - start == 200;
        unlogged += samples[i].thread == 1;
    }
    ck_assert_uint_eq(on_first, 2); /* the events' middles at weights 0.5, 1.5 and 2.5 of 3 */
    ck_assert_uint_eq(on_second, 1);
    ck_assert_uint_eq(unlogged, 1);
    log.count = 4; /* cold's entry on a thread without an OS thread: on the thread that stands for those */
    logged[3].thread = JP_LOG_NO_THREAD;
    ck_assert_uint_eq(jfr_samples(&r, samples, 8, &start), 4);
    for (size_t i = 0; i < 4; i++)
        ck_assert_uint_eq(samples[i].thread == 2, samples[i].ticks - start == 400);
    r.sample_events = NULL; /* without a log: every event on the one thread that stands for them */
    ck_assert_uint_eq(jfr_samples(&r, samples, 8, &start), 4);
    for (size_t i = 0; i < 4; i++)
        ck_assert_uint_eq(samples[i].thread, 1);
    jp_tree_free(&small);
}
END_TEST

/* 3,000,000 samples on one path and 1,000,000 on another: the recording holds JP_JFR_MAX_EVENTS,
 * three quarters and one quarter. */
START_TEST(jfr_recording_is_bounded_by_even_shares)
{
    jp_config config;
    jp_summary summary;
    jp_sampler_counts counts = {0};
    jp_tree big;
    const MethodID hot[] = {MAIN, HOT}, cold[] = {MAIN, COLD};
    ck_assert_int_eq(jp_tree_init(&big), 0);
    jp_tree_add_stack(&big, hot, 2, 3000000);
    jp_tree_add_stack(&big, cold, 2, 1000000);
    jp_tree_sum_root(&big);
    memset(&summary, 0, sizeof(summary));
    jp_report r = report_of(&config, &summary, &counts);
    r.samples = r.sample_lines = &big;
    r.signature_name = test_name;
    uint64_t start;
    jfr_sample *all = malloc(JP_JFR_MAX_EVENTS * sizeof(*all));
    ck_assert_uint_eq(jfr_samples(&r, all, JP_JFR_MAX_EVENTS, &start), JP_JFR_MAX_EVENTS);
    size_t on_first_stack = 0;
    for (size_t i = 0; i < JP_JFR_MAX_EVENTS; i++)
        on_first_stack += all[i].stack == all[0].stack;
    ck_assert(on_first_stack == JP_JFR_MAX_EVENTS / 4 * 3 || on_first_stack == JP_JFR_MAX_EVENTS / 4);
    free(all);
    jp_tree_free(&big);
}
END_TEST

START_TEST(report_of_call_time_shows_milliseconds_and_calls)
{
    jp_config config;
    jp_summary summary;
    jp_sampler_counts counts = {0};
    memset(&summary, 0, sizeof(summary));
    jp_report r = report_of(&config, &summary, &counts);
    config.mode = JP_MODE_CALLS;
    tree.nodes[jp_tree_child(&tree, JP_ROOT, MAIN)].calls = 1;
    r.samples = NULL;
    r.calls = &tree; /* weights read as nanoseconds */
    char *text = report_text(&r);
    ck_assert_ptr_nonnull(strstr(text, "Mode: calls\n"));
    ck_assert_ptr_nonnull(strstr(text, "Top 3 methods by self time"));
    ck_assert_ptr_nonnull(strstr(text, "0.000 ms"));
    ck_assert_ptr_null(strstr(text, "\nSamples\n"));
    free(text);
}
END_TEST

/* The allocation tables the report below must show, whole. */
static const char *const allocation_tables[] = {
    "Top 3 allocation sites by allocated class\n"
    "   allocations   share  allocated class\n"
    "             8  80.00%  demo.Point\n"
    "             2  20.00%  [I\n\n",
    "Top 3 allocation sites by allocating method\n"
    "   allocations   share  allocating method\n"
    "             7  70.00%  demo.Main.work\n"
    "             3  30.00%  demo.Main.main\n\n",
    "Top 3 allocated bytes by allocated class\n"
    "         bytes   share  allocated class\n"
    "           128  84.21%  demo.Point\n"
    "            24  15.79%  [I\n\n",
    "Top 3 allocated bytes by allocating method\n"
    "         bytes   share  allocating method\n"
    "           104  68.42%  demo.Main.work\n"
    "            48  31.58%  demo.Main.main\n\n",
};

/* main -> work allocates 5 Points (16 bytes each) and 2 int[] (one of 24 bytes, one not sized);
 * main allocates 3 Points itself */
START_TEST(report_lists_allocation_sites_by_class_and_method)
{
    jp_config config;
    jp_summary summary;
    jp_sampler_counts counts = {0};
    jp_allocation_counts allocation_counts = {10, 0, 0, 1, 0, 4, 0};
    jp_tree sites, bytes;
    const MethodID points[] = {MAIN, WORK, POINT_CLASS}, ints[] = {MAIN, WORK, INT_ARRAY_CLASS};
    const MethodID own[] = {MAIN, POINT_CLASS};
    ck_assert_int_eq(jp_tree_init(&sites), 0);
    jp_tree_add_stack(&sites, points, 3, 5 * JP_ALLOCATION_COUNT_SCALE);
    jp_tree_add_stack(&sites, ints, 3, 2 * JP_ALLOCATION_COUNT_SCALE);
    jp_tree_add_stack(&sites, own, 2, 3 * JP_ALLOCATION_COUNT_SCALE);
    jp_tree_sum_root(&sites);
    ck_assert_int_eq(jp_tree_init(&bytes), 0);
    jp_tree_add_stack(&bytes, points, 3, 5 * 16);
    jp_tree_add_stack(&bytes, ints, 3, 24);
    jp_tree_add_stack(&bytes, own, 2, 3 * 16);
    jp_tree_sum_root(&bytes);
    memset(&summary, 0, sizeof(summary));
    jp_report r = report_of(&config, &summary, &counts);
    config.mode = JP_MODE_ALLOC;
    r.samples = NULL;
    r.allocations = &sites;
    r.allocated_bytes = &bytes;
    r.allocation_counts = &allocation_counts;
    char *text = report_text(&r);
    ck_assert_ptr_nonnull(strstr(text, "Mode: alloc\n"));
    ck_assert_ptr_nonnull(strstr(text, "Allocations recorded: 10, each counted once (the VM does not say how"));
    ck_assert_ptr_nonnull(strstr(text, "jevprof's own calls, not recorded: 4\n"));
    for (size_t i = 0; i < sizeof(allocation_tables) / sizeof(*allocation_tables); i++)
        ck_assert_msg(strstr(text, allocation_tables[i]), "missing:\n%s\nin:\n%s", allocation_tables[i], text);
    ck_assert_ptr_nonnull(strstr(text, "without a size (GetObjectSize failed), left out of the bytes: 1\n"));
    ck_assert_ptr_nonnull(strstr(text, "Allocations in all (counted): 10\n"));
    ck_assert_ptr_nonnull(strstr(text, "Bytes allocated in all (counted): 152\n"));
    ck_assert_ptr_nonnull(strstr(text, "demo.Main.main > demo.Main.work > demo.Point\n"));
    ck_assert_ptr_null(strstr(text, "\nSamples\n"));
    free(text);
    jp_report_top_lines(&r, 1, collect_line, NULL); /* on stderr: the most allocated class */
    ck_assert_str_eq(line_sink_text, " 80.00% self  demo.Point\n");
    free(line_sink_text);
    line_sink_text = NULL;
    /* Weighted samples (a VM with IJevmonAllocationSampling, at 512 KiB): the same trees read as estimates. */
    r.allocations_weighted = 1;
    r.allocation_interval = 524288;
    text = report_text(&r);
    ck_assert_ptr_nonnull(strstr(text, "Allocations sampled: 10, about one per 524288 bytes each thread allocates; "
                                       "the totals, tables and paths below are ESTIMATES"));
    ck_assert_ptr_nonnull(strstr(text, "Allocations in all (estimated): 10\n"));
    ck_assert_ptr_nonnull(strstr(text, "Top 3 estimated allocation sites by allocated class\n"));
    ck_assert_ptr_nonnull(strstr(text, "Top 3 estimated allocated bytes by allocating method\n"));
    ck_assert_ptr_nonnull(strstr(text, "Hottest call paths by self estimated allocations"));
    free(text);
    jp_tree_free(&sites);
    jp_tree_free(&bytes);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("jevprof_writers");
    TCase *tc = tcase_create("writers");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, display_names_of_methods_and_classes, 0,
                        (int)(sizeof(display_cases) / sizeof(*display_cases)));
    tcase_add_test(tc, collapsed_lines_parse_back_to_the_tree);
    tcase_add_test(tc, collapsed_divides_and_drops_zero_lines);
    tcase_add_test(tc, flame_graph_is_self_contained_and_holds_the_data);
    tcase_add_test(tc, flame_graph_of_an_empty_profile_is_valid);
    tcase_add_test(tc, report_lists_top_methods_paths_and_summary);
    tcase_add_test(tc, report_of_call_time_shows_milliseconds_and_calls);
    tcase_add_test(tc, report_lists_allocation_sites_by_class_and_method);
    tcase_add_test(tc, jfr_events_are_on_their_logged_threads_and_times);
    suite_add_tcase(s, tc);
    TCase *bound = tcase_create("jfr bound"); /* a million events written and read back: seconds under ASan and Wine */
    tcase_set_timeout(bound, 120);
    tcase_add_checked_fixture(bound, setup, teardown);
    tcase_add_test(bound, jfr_recording_is_bounded_by_even_shares);
    suite_add_tcase(s, bound);
    return tk_run_suite(s);
}
