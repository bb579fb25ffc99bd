/*
 * test_jevprof_tree.c - jevprof's data structures: the call-path tree (children, stacks,
 * merging, copies, walk order), per-method rollups (recursion counted once), the ID map and the
 * event log beside a recorder's tree (bounded, thinned evenly, its threads).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../../monitor/eventlog.h"
#include "../../monitor/idmap.h"
#include "../../monitor/rollup.h"
#include "../../monitor/tree.h"
#include "../support/testkit.h"

START_TEST(child_is_found_again_and_moves_to_front)
{
    jp_tree t;
    ck_assert_int_eq(jp_tree_init(&t), 0);
    uint32_t a = jp_tree_child(&t, JP_ROOT, 10), b = jp_tree_child(&t, JP_ROOT, 20);
    ck_assert_uint_ne(a, b);
    ck_assert_uint_eq(t.nodes[JP_ROOT].first_child, b);
    ck_assert_uint_eq(jp_tree_child(&t, JP_ROOT, 10), a);
    ck_assert_uint_eq(t.nodes[JP_ROOT].first_child, a); /* found: moved to the front */
    ck_assert_uint_eq(t.nodes[a].next_sibling, b);
    ck_assert_uint_eq(t.nodes[b].next_sibling, JP_NO_NODE);
    ck_assert_uint_eq(jp_tree_child(&t, JP_NO_NODE, 10), JP_NO_NODE);
    uint32_t zero = jp_tree_child(&t, JP_ROOT, 0); /* the VM's 0 is kept as "unknown method" */
    ck_assert_uint_eq(t.nodes[zero].method, JP_UNKNOWN_METHOD);
    ck_assert_uint_eq(jp_tree_child(&t, JP_ROOT, JP_UNKNOWN_METHOD), zero);
    jp_tree_free(&t);
}
END_TEST

START_TEST(path_gives_its_node_and_copies_keep_indices)
{
    jp_tree t, copy = {0};
    ck_assert_int_eq(jp_tree_init(&t), 0);
    const MethodID a[] = {1, 2, 3}, b[] = {1, 4};
    uint32_t leaf = jp_tree_add_path(&t, a, NULL, 3, 5);
    ck_assert_uint_ne(leaf, JP_NO_NODE);
    ck_assert_uint_eq(t.nodes[leaf].method, 3);
    ck_assert_uint_eq(jp_tree_add_path(&t, b, NULL, 2, 1), t.count - 1);
    ck_assert_uint_eq(jp_tree_add_path(&t, a, NULL, 3, 2), leaf); /* found again, reordered above it */
    ck_assert_uint_eq(t.nodes[leaf].self, 7);
    ck_assert_uint_eq(jp_tree_add_path(&t, a, NULL, 0, 1), JP_ROOT);
    ck_assert_int_eq(jp_tree_copy(&copy, &t), 0);
    ck_assert_uint_eq(copy.count, t.count);
    for (uint32_t i = 0; i < t.count; i++) /* node for node: the logs' indices name the same paths */
        ck_assert(!memcmp(&copy.nodes[i], &t.nodes[i], sizeof(jp_node)));
    const MethodID c[] = {1, 2, 5};
    ck_assert_uint_ne(jp_tree_add_path(&copy, c, NULL, 3, 1), JP_NO_NODE); /* a copy grows as any tree */
    ck_assert_uint_eq(copy.count, t.count + 1);
    jp_tree_free(&t), jp_tree_free(&copy);
}
END_TEST

START_TEST(event_log_is_bounded_and_thinned_evenly)
{
    jp_event_log log;
    ck_assert_int_eq(jp_event_log_init(&log, NULL), 0);
    for (uint32_t i = 0; i < JP_EVENT_LOG_MAX; i++)
        jp_event_log_add(&log, 7, i, 1, 0);
    ck_assert_uint_eq(log.count, JP_EVENT_LOG_MAX);
    ck_assert_uint_eq(log.stride, 1);
    jp_event_log_add(&log, 7, JP_EVENT_LOG_MAX, 1, 0); /* full: every other one kept, then this one */
    ck_assert_uint_eq(log.count, JP_EVENT_LOG_MAX / 2 + 1);
    ck_assert_uint_eq(log.stride, 2);
    for (uint32_t i = JP_EVENT_LOG_MAX + 1; i < 5 * JP_EVENT_LOG_MAX; i++) /* fills and thins twice more */
        jp_event_log_add(&log, 7, i, 1, 0);
    ck_assert_uint_le(log.count, JP_EVENT_LOG_MAX);
    ck_assert_uint_eq(log.stride, 8);
    ck_assert_uint_eq(log.events[0].node, 0);
    for (size_t i = 1; i < log.count; i++) /* an even share of the whole run: one event in every stride */
        ck_assert_uint_eq(log.events[i].node - log.events[i - 1].node, log.stride);
    ck_assert_uint_lt(5u * JP_EVENT_LOG_MAX - 1 - log.events[log.count - 1].node, log.stride);
    jp_event_log_free(&log);
}
END_TEST

START_TEST(event_log_keeps_threads_and_copies)
{
    jp_event_log log, copy;
    ck_assert_int_eq(jp_event_log_init(&log, NULL), 0);
    jp_event_log_add(&log, 0, 1, 1, 0); /* OS thread not known */
    jp_event_log_add(&log, 7, 2, 3, 40);
    jp_event_log_add(&log, 9, 3, 1, 0);
    jp_event_log_add(&log, 7, 4, 1, 0);
    ck_assert_uint_eq(log.count, 4);
    ck_assert_uint_eq(log.events[0].thread, JP_LOG_NO_THREAD);
    ck_assert_uint_eq(log.events[1].thread, 0);
    ck_assert_uint_eq(log.events[2].thread, 1);
    ck_assert_uint_eq(log.events[3].thread, 0);
    ck_assert_uint_eq(log.thread_count, 2);
    ck_assert_uint_eq(log.threads[1].os_thread, 9);
    ck_assert_ptr_null(log.threads[0].name); /* no VM to name it */
    ck_assert_uint_eq(log.events[1].weight, 3);
    ck_assert_uint_eq(log.events[1].second, 40);
    ck_assert_uint_le(log.events[1].time_ns, log.events[2].time_ns);
    ck_assert_int_eq(jp_event_log_copy(&copy, &log, 0), 0); /* a dump's: the log goes on */
    ck_assert_uint_eq(copy.count, 4);
    ck_assert_uint_eq(log.count, 4);
    jp_event_log_free(&copy);
    ck_assert_int_eq(jp_event_log_copy(&copy, &log, 1), 0); /* a period's end: the log starts over */
    ck_assert_uint_eq(copy.count, 4);
    ck_assert_uint_eq(copy.thread_count, 2);
    ck_assert_uint_eq(copy.events[3].node, 4);
    ck_assert_uint_eq(log.count, 0);
    ck_assert_uint_eq(log.thread_count, 2); /* its threads known still */
    jp_event_log_add(&log, 9, 5, 1, 0);
    ck_assert_uint_eq(log.events[0].thread, 1);
    jp_event_log_free(&copy);
    jp_event_log_free(&log);
}
END_TEST

START_TEST(growing_keeps_every_node)
{
    jp_tree t;
    ck_assert_int_eq(jp_tree_init(&t), 0);
    uint32_t node = JP_ROOT;
    for (MethodID m = 1; m <= 5000; m++) /* a chain deeper than the initial pool */
        node = jp_tree_child(&t, node, m);
    ck_assert_uint_eq(t.count, 5001);
    uint32_t depth = 0;
    for (uint32_t n = node; n != JP_ROOT; n = t.nodes[n].parent)
        ck_assert_uint_eq(t.nodes[n].method, 5000 - depth++);
    ck_assert_uint_eq(depth, 5000);
    jp_tree_free(&t);
}
END_TEST

START_TEST(stacks_add_total_along_the_path_and_self_at_the_end)
{
    jp_tree t;
    const MethodID ab[] = {1, 2}, abc[] = {1, 2, 3};
    ck_assert_int_eq(jp_tree_init(&t), 0);
    ck_assert_int_eq(jp_tree_add_stack(&t, abc, 3, 1), 0);
    ck_assert_int_eq(jp_tree_add_stack(&t, abc, 3, 1), 0);
    ck_assert_int_eq(jp_tree_add_stack(&t, ab, 2, 5), 0);
    uint32_t a = jp_tree_child(&t, JP_ROOT, 1), b = jp_tree_child(&t, a, 2), c = jp_tree_child(&t, b, 3);
    ck_assert_uint_eq(t.nodes[a].total, 7);
    ck_assert_uint_eq(t.nodes[a].self, 0);
    ck_assert_uint_eq(t.nodes[b].total, 7);
    ck_assert_uint_eq(t.nodes[b].self, 5);
    ck_assert_uint_eq(t.nodes[c].total, 2);
    ck_assert_uint_eq(t.nodes[c].self, 2);
    jp_tree_sum_root(&t);
    ck_assert_uint_eq(t.nodes[JP_ROOT].total, 7);
    jp_tree_free(&t);
}
END_TEST

/* Call mode's ticks become nanoseconds: every weight scales, calls do not. */
START_TEST(scaling_multiplies_every_weight_but_not_calls)
{
    jp_tree t;
    const MethodID abc[] = {1, 2, 3};
    ck_assert_int_eq(jp_tree_init(&t), 0);
    ck_assert_int_eq(jp_tree_add_stack(&t, abc, 3, 10), 0);
    uint32_t a = jp_tree_child(&t, JP_ROOT, 1), c = jp_tree_child(&t, jp_tree_child(&t, a, 2), 3);
    t.nodes[c].calls = 4;
    jp_tree_scale(&t, 0.5);
    ck_assert_uint_eq(t.nodes[a].total, 5);
    ck_assert_uint_eq(t.nodes[a].self, 0);
    ck_assert_uint_eq(t.nodes[c].total, 5);
    ck_assert_uint_eq(t.nodes[c].self, 5);
    ck_assert_uint_eq(t.nodes[c].calls, 4);
    jp_tree_free(&t);
    /* rounded to the nearest: 3 halves are 2, not 1 */
    ck_assert_int_eq(jp_tree_init(&t), 0);
    ck_assert_int_eq(jp_tree_add_stack(&t, abc, 1, 3), 0);
    jp_tree_scale(&t, 0.5);
    ck_assert_uint_eq(t.nodes[jp_tree_child(&t, JP_ROOT, 1)].self, 2);
    jp_tree_free(&t);
}
END_TEST

/* The folding threshold of a share setting, exact on every target: in doubles, x87 extended
 * precision (win32, the x87 build) made 0.03% of 10000 two, not three. */
START_TEST(share_of_a_whole_is_exact)
{
    ck_assert_uint_eq(jp_tree_share(10000, 0.03), 3);
    ck_assert_uint_eq(jp_tree_share(20000, 0.03), 6);
    ck_assert_uint_eq(jp_tree_share(10000, 0.01), 1);
    ck_assert_uint_eq(jp_tree_share(9999, 0.01), 0); /* rounded down */
    ck_assert_uint_eq(jp_tree_share(12345, 100), 12345);
    ck_assert_uint_eq(jp_tree_share(12345, 0), 0);
    ck_assert_uint_eq(jp_tree_share(UINT64_MAX, 50), UINT64_MAX / 2);
}
END_TEST

/* Frames at offsets: a node each (kept by merge and fold), one per method by method. */
START_TEST(offsets_split_nodes_until_taken_by_method)
{
    jp_tree t, merged, folded, methods;
    const MethodID ab[] = {1, 2};
    const DWORD at4[] = {7, 4}, at9[] = {7, 9};
    ck_assert_int_eq(jp_tree_init(&t), 0);
    ck_assert_int_eq(jp_tree_add_located_stack(&t, ab, at4, 2, 3), 0);
    ck_assert_int_eq(jp_tree_add_located_stack(&t, ab, at9, 2, 5), 0);
    ck_assert_int_eq(jp_tree_add_stack(&t, ab, 2, 1), 0); /* no offsets: a path of its own */
    jp_tree_sum_root(&t);
    ck_assert_uint_eq(t.count, 6);
    uint32_t a = jp_tree_child_at(&t, JP_ROOT, 1, 7);
    ck_assert_uint_eq(t.nodes[a].total, 8);
    ck_assert_uint_eq(t.nodes[jp_tree_child_at(&t, a, 2, 9)].self, 5);
    ck_assert_uint_eq(t.nodes[jp_tree_child_at(&t, a, 2, 4)].self, 3);
    ck_assert_uint_eq(jp_tree_find(&t, JP_ROOT, 1), jp_tree_child(&t, JP_ROOT, 1));
    ck_assert_int_eq(jp_tree_init(&merged), 0);
    ck_assert_int_eq(jp_tree_merge(&merged, &t), 0);
    ck_assert_uint_eq(merged.count, 6);
    ck_assert_uint_eq(merged.nodes[jp_tree_child_at(&merged, jp_tree_child_at(&merged, JP_ROOT, 1, 7), 2, 9)].self, 5);
    ck_assert_int_eq(jp_tree_init(&folded), 0);
    ck_assert_int_eq(jp_tree_fold(&folded, &t, 4), 0); /* 2 at offset 4 (3) goes under its caller */
    uint32_t folded_a = jp_tree_child_at(&folded, JP_ROOT, 1, 7);
    ck_assert_uint_eq(folded.nodes[folded_a].self, 0);
    ck_assert_uint_eq(folded.nodes[jp_tree_child(&folded, folded_a, JP_FOLDED_PATHS)].self, 3);
    ck_assert_uint_eq(folded.nodes[jp_tree_child_at(&folded, folded_a, 2, 9)].self, 5);
    ck_assert_int_eq(jp_tree_init(&methods), 0);
    ck_assert_int_eq(jp_tree_by_method(&methods, &t), 0);
    ck_assert_uint_eq(methods.count, 3);
    ck_assert_uint_eq(methods.nodes[JP_ROOT].total, 9);
    uint32_t method_a = jp_tree_find(&methods, JP_ROOT, 1);
    ck_assert_uint_eq(methods.nodes[method_a].total, 9);
    ck_assert_uint_eq(methods.nodes[jp_tree_find(&methods, method_a, 2)].self, 9);
    /* folded as the paths by method are: 2 (9 in all) under 10 goes into 1 at every offset */
    jp_tree shape, shaped;
    ck_assert_int_eq(jp_tree_init(&shape), 0);
    ck_assert_int_eq(jp_tree_fold(&shape, &methods, 10), 0);
    ck_assert_int_eq(jp_tree_init(&shaped), 0);
    ck_assert_int_eq(jp_tree_fold_as(&shaped, &t, &shape), 0);
    ck_assert_uint_eq(shaped.count, 5);
    uint32_t shaped_a = jp_tree_child_at(&shaped, JP_ROOT, 1, 7), shaped_1 = jp_tree_find(&shaped, JP_ROOT, 1);
    ck_assert_uint_eq(shaped.nodes[shaped_a].self, 0);
    ck_assert_uint_eq(shaped.nodes[jp_tree_find(&shaped, shaped_a, JP_FOLDED_PATHS)].self, 8);
    ck_assert_uint_eq(shaped.nodes[jp_tree_find(&shaped, shaped_1, JP_FOLDED_PATHS)].self, 1);
    jp_tree_free(&shape), jp_tree_free(&shaped);
    jp_tree_free(&t), jp_tree_free(&merged), jp_tree_free(&folded), jp_tree_free(&methods);
}
END_TEST

START_TEST(merge_adds_matching_paths)
{
    jp_tree x, y;
    const MethodID p1[] = {1, 2}, p2[] = {1, 3}, p3[] = {4};
    ck_assert_int_eq(jp_tree_init(&x), 0);
    ck_assert_int_eq(jp_tree_init(&y), 0);
    jp_tree_add_stack(&x, p1, 2, 1);
    jp_tree_add_stack(&y, p1, 2, 2);
    jp_tree_add_stack(&y, p2, 2, 3);
    jp_tree_add_stack(&y, p3, 1, 4);
    ck_assert_int_eq(jp_tree_merge(&x, &y), 0);
    uint32_t a = jp_tree_child(&x, JP_ROOT, 1);
    ck_assert_uint_eq(x.nodes[a].total, 6);
    ck_assert_uint_eq(x.nodes[jp_tree_child(&x, a, 2)].self, 3);
    ck_assert_uint_eq(x.nodes[jp_tree_child(&x, a, 3)].self, 3);
    ck_assert_uint_eq(x.nodes[jp_tree_child(&x, JP_ROOT, 4)].self, 4);
    ck_assert_uint_eq(x.count, 5);
    jp_tree_free(&x);
    jp_tree_free(&y);
}
END_TEST

/* 1 > 2 > 3 heavy, 1 > 2 > 5 and 1 > 6 light, 7 light but outermost: folding at 10 keeps the
 * heavy path and the outermost frames; the light paths' weight goes to one JP_FOLDED_PATHS frame
 * under their callers, never to the callers' self: the caller did not do that work. */
/* Continuous mode's calls: what a later copy of a growing tree holds beyond an earlier one. */
START_TEST(difference_keeps_what_grew_since)
{
    jp_tree earlier, later, period, none = {0};
    const MethodID ab[] = {1, 2}, ac[] = {1, 3}, d[] = {4};
    ck_assert_int_eq(jp_tree_init(&earlier), 0);
    jp_tree_add_stack(&earlier, ab, 2, 10);
    jp_tree_add_stack(&earlier, d, 1, 5);
    jp_tree_sum_root(&earlier);
    ck_assert_int_eq(jp_tree_init(&later), 0);
    ck_assert_int_eq(jp_tree_merge(&later, &earlier), 0);
    jp_tree_add_stack(&later, ab, 2, 4); /* grew */
    jp_tree_add_stack(&later, ac, 2, 6); /* new */
    later.nodes[jp_tree_find(&later, jp_tree_find(&later, JP_ROOT, 1), 3)].calls = 2;
    jp_tree_sum_root(&later);
    ck_assert_int_eq(jp_tree_init(&period), 0);
    ck_assert_int_eq(jp_tree_difference(&period, &later, &earlier), 0);
    ck_assert_uint_eq(period.count, 4); /* root, 1, 1 > 2, 1 > 3: 4 did not grow */
    uint32_t one = jp_tree_find(&period, JP_ROOT, 1);
    ck_assert_uint_eq(period.nodes[one].total, 10);
    ck_assert_uint_eq(period.nodes[jp_tree_find(&period, one, 2)].self, 4);
    ck_assert_uint_eq(period.nodes[jp_tree_find(&period, one, 3)].self, 6);
    ck_assert_uint_eq(period.nodes[jp_tree_find(&period, one, 3)].calls, 2);
    ck_assert_uint_eq(jp_tree_find(&period, JP_ROOT, 4), JP_NO_NODE);
    ck_assert_uint_eq(period.nodes[JP_ROOT].total, 10);
    jp_tree_free(&period);
    ck_assert_int_eq(jp_tree_init(&period), 0); /* from nothing: a copy */
    ck_assert_int_eq(jp_tree_difference(&period, &later, &none), 0);
    ck_assert_uint_eq(period.count, later.count);
    ck_assert_uint_eq(period.nodes[JP_ROOT].total, later.nodes[JP_ROOT].total);
    jp_tree_free(&period), jp_tree_free(&later), jp_tree_free(&earlier);
}
END_TEST

START_TEST(fold_gathers_small_paths_under_their_callers)
{
    jp_tree full, folded;
    const MethodID heavy[] = {1, 2, 3}, light[] = {1, 2, 5, 8}, light2[] = {1, 6}, outer[] = {7};
    ck_assert_int_eq(jp_tree_init(&full), 0);
    ck_assert_int_eq(jp_tree_init(&folded), 0);
    jp_tree_add_stack(&full, heavy, 3, 50);
    jp_tree_add_stack(&full, light, 4, 4);
    jp_tree_add_stack(&full, light2, 2, 3);
    jp_tree_add_stack(&full, outer, 1, 2);
    jp_tree_add_stack(&full, heavy, 2, 10); /* self in 2 */
    jp_tree_sum_root(&full);
    uint32_t full_two = jp_tree_find(&full, jp_tree_find(&full, JP_ROOT, 1), 2);
    uint32_t full_five = jp_tree_find(&full, full_two, 5);
    full.nodes[full_two].calls = 1, full.nodes[full_five].calls = 3;
    full.nodes[jp_tree_find(&full, full_five, 8)].calls = 7;
    ck_assert_int_eq(jp_tree_fold(&folded, &full, 10), 0);
    ck_assert_uint_eq(folded.count, 7); /* root, 1, 2, 3, 7, and a folded frame under 1 and under 2 */
    ck_assert_uint_eq(folded.nodes[JP_ROOT].total, 69);
    uint32_t one = jp_tree_child(&folded, JP_ROOT, 1), two = jp_tree_child(&folded, one, 2);
    uint32_t under_one = jp_tree_child(&folded, one, JP_FOLDED_PATHS);
    uint32_t under_two = jp_tree_child(&folded, two, JP_FOLDED_PATHS);
    ck_assert_uint_eq(folded.nodes[one].self, 0);
    ck_assert_uint_eq(folded.nodes[under_one].self, 3); /* 1 > 6 */
    ck_assert_uint_eq(folded.nodes[under_one].total, 3);
    ck_assert_uint_eq(folded.nodes[two].self, 10);      /* its own */
    ck_assert_uint_eq(folded.nodes[under_two].self, 4); /* 1 > 2 > 5 > 8 */
    ck_assert_uint_eq(folded.nodes[two].total, 64);
    ck_assert_uint_eq(folded.nodes[two].calls, 1);
    ck_assert_uint_eq(folded.nodes[under_two].calls, 3 + 7); /* the calls made in 1 > 2 > 5 > 8 */
    ck_assert_uint_eq(folded.nodes[jp_tree_child(&folded, two, 3)].self, 50);
    ck_assert_uint_eq(folded.nodes[jp_tree_child(&folded, JP_ROOT, 7)].self, 2);
    ck_assert_uint_eq(folded.count, 7); /* the lookups above added nothing */
    uint64_t self_sum = 0;
    for (uint32_t i = 1; i < folded.count; i++)
        self_sum += folded.nodes[i].self;
    ck_assert_uint_eq(self_sum, 69);
    jp_tree_free(&folded);
    ck_assert_int_eq(jp_tree_init(&folded), 0);
    ck_assert_int_eq(jp_tree_fold(&folded, &full, 1), 0); /* nothing below 1: a copy */
    ck_assert_uint_eq(folded.count, full.count);
    jp_tree_free(&folded);
    jp_tree_free(&full);
}
END_TEST

/* A dump's tree: frames still open (1 > 2, 2's total still 0) above finished calls (3), and an
 * open frame with nothing finished under it (2 > 4: a call, no weight). */
START_TEST(fold_keeps_open_frames_over_finished_calls)
{
    jp_tree dump, folded;
    ck_assert_int_eq(jp_tree_init(&dump), 0);
    ck_assert_int_eq(jp_tree_init(&folded), 0);
    uint32_t one = jp_tree_child(&dump, JP_ROOT, 1), two = jp_tree_child(&dump, one, 2);
    uint32_t three = jp_tree_child(&dump, two, 3), four = jp_tree_child(&dump, two, 4);
    dump.nodes[one].calls = dump.nodes[two].calls = dump.nodes[four].calls = 1;
    dump.nodes[three].calls = 1000;
    dump.nodes[three].self = dump.nodes[three].total = 500;
    jp_tree_sum_root(&dump);
    ck_assert_uint_eq(dump.nodes[JP_ROOT].total, 500); /* the finished calls under the open frames */
    ck_assert_int_eq(jp_tree_fold(&folded, &dump, 100), 0);
    ck_assert_uint_eq(folded.count, 5); /* root, 1, 2, 3, and 4 folded under 2 */
    uint32_t kept_two = jp_tree_find(&folded, jp_tree_find(&folded, JP_ROOT, 1), 2);
    ck_assert_uint_ne(kept_two, JP_NO_NODE);
    ck_assert_uint_eq(folded.nodes[jp_tree_find(&folded, kept_two, 3)].calls, 1000);
    ck_assert_uint_eq(folded.nodes[kept_two].calls, 1);
    ck_assert_uint_eq(folded.nodes[jp_tree_find(&folded, kept_two, JP_FOLDED_PATHS)].calls, 1); /* 4's */
    jp_tree_free(&folded);
    ck_assert_int_eq(jp_tree_init(&folded), 0);
    ck_assert_int_eq(jp_tree_fold(&folded, &dump, 0), 0); /* 0 keeps every path, weightless ones too */
    ck_assert_uint_eq(folded.count, dump.count);
    jp_tree_free(&folded);
    jp_tree_free(&dump);
}
END_TEST

typedef struct visit_log {
    MethodID methods[16];
    size_t depths[16];
    int count;
} visit_log;

static int log_visit(const jp_tree *tree, const uint32_t *path, size_t depth, void *context)
{
    visit_log *log = context;
    log->methods[log->count] = tree->nodes[path[depth - 1]].method;
    log->depths[log->count++] = depth;
    return 0;
}

START_TEST(walk_visits_parents_before_children_with_their_path)
{
    jp_tree t;
    const MethodID p1[] = {1, 2, 3}, p2[] = {4};
    visit_log log = {{0}, {0}, 0};
    ck_assert_int_eq(jp_tree_init(&t), 0);
    jp_tree_add_stack(&t, p1, 3, 1);
    jp_tree_add_stack(&t, p2, 1, 1);
    ck_assert_int_eq(jp_tree_walk(&t, log_visit, &log), 0);
    ck_assert_int_eq(log.count, 4);
    /* 4 was added last, so it is the root's first child */
    ck_assert_uint_eq(log.methods[0], 4);
    ck_assert_uint_eq(log.depths[0], 1);
    ck_assert_uint_eq(log.methods[1], 1);
    ck_assert_uint_eq(log.methods[2], 2);
    ck_assert_uint_eq(log.depths[2], 2);
    ck_assert_uint_eq(log.methods[3], 3);
    ck_assert_uint_eq(log.depths[3], 3);
    jp_tree_free(&t);
}
END_TEST

static const jp_method_stats *stats_for(const jp_rollup *r, MethodID method)
{
    for (size_t i = 0; i < r->count; i++)
        if (r->methods[i].method == method)
            return &r->methods[i];
    return NULL;
}

START_TEST(rollup_counts_recursive_totals_once)
{
    jp_tree t;
    jp_rollup r;
    /* main(1) -> fib(2) -> fib(2) -> fib(2), and main -> other(3) */
    const MethodID deep[] = {1, 2, 2, 2}, mid[] = {1, 2, 2}, other[] = {1, 3};
    ck_assert_int_eq(jp_tree_init(&t), 0);
    jp_tree_add_stack(&t, deep, 4, 10);
    jp_tree_add_stack(&t, mid, 3, 5);
    jp_tree_add_stack(&t, other, 2, 1);
    ck_assert_int_eq(jp_rollup_build(&r, &t), 0);
    ck_assert_uint_eq(r.count, 3);
    const jp_method_stats *fib = stats_for(&r, 2), *main_ = stats_for(&r, 1);
    ck_assert_ptr_nonnull(fib);
    ck_assert_uint_eq(fib->self, 15);
    ck_assert_uint_eq(fib->total, 15); /* not 15 + 15 + 10 */
    ck_assert_uint_eq(main_->total, 16);
    ck_assert_uint_eq(main_->self, 0);
    jp_rollup_sort_by_self(&r);
    ck_assert_uint_eq(r.methods[0].method, 2);
    jp_rollup_sort_by_total(&r);
    ck_assert_uint_eq(r.methods[0].method, 1);
    jp_rollup_free(&r);
    jp_tree_free(&t);
}
END_TEST

START_TEST(idmap_inserts_finds_and_removes_across_collisions)
{
    jp_idmap map = {0};
    for (UniqueID id = 16; id <= 16 * 1000; id += 16) {
        jp_idmap_entry *e = jp_idmap_insert(&map, id);
        ck_assert_ptr_nonnull(e);
        e->value = id * 2;
    }
    ck_assert_uint_eq(map.count, 1000);
    ck_assert_ptr_null(jp_idmap_insert(&map, 0));
    for (UniqueID id = 16; id <= 16 * 1000; id += 32)
        ck_assert_uint_eq(jp_idmap_remove(&map, id), id * 2);
    ck_assert_uint_eq(map.count, 500);
    for (UniqueID id = 16; id <= 16 * 1000; id += 16) {
        jp_idmap_entry *e = jp_idmap_find(&map, id);
        if ((id / 16) % 2)
            ck_assert_ptr_null(e);
        else
            ck_assert_uint_eq(e->value, id * 2);
    }
    ck_assert_uint_eq(jp_idmap_remove(&map, 12345), 0);
    jp_idmap_free(&map);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("jevprof_tree");
    TCase *tc = tcase_create("tree");
    tcase_add_test(tc, child_is_found_again_and_moves_to_front);
    tcase_add_test(tc, growing_keeps_every_node);
    tcase_add_test(tc, stacks_add_total_along_the_path_and_self_at_the_end);
    tcase_add_test(tc, scaling_multiplies_every_weight_but_not_calls);
    tcase_add_test(tc, share_of_a_whole_is_exact);
    tcase_add_test(tc, merge_adds_matching_paths);
    tcase_add_test(tc, path_gives_its_node_and_copies_keep_indices);
    tcase_add_test(tc, event_log_is_bounded_and_thinned_evenly);
    tcase_add_test(tc, event_log_keeps_threads_and_copies);
    tcase_add_test(tc, offsets_split_nodes_until_taken_by_method);
    tcase_add_test(tc, fold_gathers_small_paths_under_their_callers);
    tcase_add_test(tc, fold_keeps_open_frames_over_finished_calls);
    tcase_add_test(tc, difference_keeps_what_grew_since);
    tcase_add_test(tc, walk_visits_parents_before_children_with_their_path);
    tcase_add_test(tc, rollup_counts_recursive_totals_once);
    tcase_add_test(tc, idmap_inserts_finds_and_removes_across_collisions);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
