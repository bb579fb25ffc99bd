/*
 * test_jevprof_callstack.c - a thread's shadow stack in call mode: inclusive and exclusive
 * time, call counts, recursion, frames unwound by an exception (one exit naming a frame
 * further down), missing exits, exits for frames entered before recording began.
 *
 * Exits name the frame returned to (spec 6.7), as the bridge sends them.  StackIDs here are
 * 100 + depth, like the bridge's (thread, depth) encoding.
 */
#include <check.h>
#include <stdlib.h>

#include "../../monitor/callstack.h"
#include "platform/platform.h"
#include "../support/testkit.h"

#define S(depth) ((StackID)(100 + (depth)))

static jp_callstack cs;

static void setup(void)
{
    ck_assert_int_eq(jp_callstack_init(&cs), 0);
}

static void teardown(void)
{
    jp_callstack_free(&cs);
}

/* The node for a path of methods from the root. */
static const jp_node *node_at(const MethodID *path, size_t n)
{
    uint32_t node = JP_ROOT;
    for (size_t i = 0; i < n; i++)
        node = jp_tree_child(&cs.tree, node, path[i]);
    return &cs.tree.nodes[node];
}

START_TEST(inclusive_and_exclusive_time)
{
    /* a (0..100) calls b (10..40) twice-over: b (10..40), b (50..60) */
    jp_callstack_enter(&cs, 1, S(1), 0);
    jp_callstack_enter(&cs, 2, S(2), 10);
    jp_callstack_exit(&cs, S(1), 40);
    jp_callstack_enter(&cs, 2, S(2), 50);
    jp_callstack_exit(&cs, S(1), 60);
    jp_callstack_exit(&cs, 0, 100);
    ck_assert_uint_eq(cs.depth, 0);
    const MethodID a[] = {1}, ab[] = {1, 2};
    ck_assert_uint_eq(node_at(a, 1)->total, 100);
    ck_assert_uint_eq(node_at(a, 1)->self, 60);
    ck_assert_uint_eq(node_at(a, 1)->calls, 1);
    ck_assert_uint_eq(node_at(ab, 2)->total, 40);
    ck_assert_uint_eq(node_at(ab, 2)->self, 40);
    ck_assert_uint_eq(node_at(ab, 2)->calls, 2);
}
END_TEST

/* Blocked time belongs to the innermost frame and leaves its callers' time too:
 * a (0..120) calls b (10..100), which was blocked for 50. */
START_TEST(blocked_time_is_taken_off_the_frame_and_its_callers)
{
    jp_callstack_blocked(&cs, 7); /* no frame open: nothing to take it from */
    jp_callstack_enter(&cs, 1, S(1), 0);
    jp_callstack_enter(&cs, 2, S(2), 10);
    jp_callstack_blocked(&cs, 50);
    jp_callstack_exit(&cs, S(1), 100);
    jp_callstack_exit(&cs, 0, 120);
    const MethodID a[] = {1}, ab[] = {1, 2};
    ck_assert_uint_eq(node_at(ab, 2)->total, 40);
    ck_assert_uint_eq(node_at(ab, 2)->self, 40);
    ck_assert_uint_eq(node_at(a, 1)->total, 70);
    ck_assert_uint_eq(node_at(a, 1)->self, 30);
}
END_TEST

START_TEST(recursion_makes_a_node_per_level)
{
    /* f -> f -> f, each level 10 ns of its own */
    jp_callstack_enter(&cs, 7, S(1), 0);
    jp_callstack_enter(&cs, 7, S(2), 10);
    jp_callstack_enter(&cs, 7, S(3), 20);
    jp_callstack_exit(&cs, S(2), 30);
    jp_callstack_exit(&cs, S(1), 40);
    jp_callstack_exit(&cs, 0, 50);
    const MethodID f1[] = {7}, f2[] = {7, 7}, f3[] = {7, 7, 7};
    ck_assert_uint_eq(node_at(f1, 1)->total, 50);
    ck_assert_uint_eq(node_at(f1, 1)->self, 20);
    ck_assert_uint_eq(node_at(f2, 2)->total, 30);
    ck_assert_uint_eq(node_at(f2, 2)->self, 20);
    ck_assert_uint_eq(node_at(f3, 3)->total, 10);
    ck_assert_uint_eq(node_at(f3, 3)->self, 10);
}
END_TEST

START_TEST(exception_unwind_in_one_exit_pops_every_frame_above_the_catcher)
{
    /* main -> a -> b -> c; c throws at 40 and main catches it: one exit naming main's frame */
    jp_callstack_enter(&cs, 1, S(1), 0);
    jp_callstack_enter(&cs, 2, S(2), 10);
    jp_callstack_enter(&cs, 3, S(3), 20);
    jp_callstack_enter(&cs, 4, S(4), 30);
    jp_callstack_exit(&cs, S(1), 40);
    ck_assert_uint_eq(cs.depth, 1);
    const MethodID c[] = {1, 2, 3, 4}, b[] = {1, 2, 3}, a[] = {1, 2};
    ck_assert_uint_eq(node_at(c, 4)->total, 10);
    ck_assert_uint_eq(node_at(b, 3)->total, 20);
    ck_assert_uint_eq(node_at(b, 3)->self, 10);
    ck_assert_uint_eq(node_at(a, 2)->total, 30);
    jp_callstack_enter(&cs, 5, S(2), 50); /* main goes on to call something else */
    jp_callstack_exit(&cs, S(1), 60);
    const MethodID other[] = {1, 5};
    ck_assert_uint_eq(node_at(other, 2)->total, 10);
    jp_callstack_exit(&cs, 0, 70);
    const MethodID m[] = {1};
    ck_assert_uint_eq(node_at(m, 1)->total, 70);
    ck_assert_uint_eq(node_at(m, 1)->self, 70 - 30 - 10);
}
END_TEST

START_TEST(exception_unwind_frame_by_frame)
{
    jp_callstack_enter(&cs, 1, S(1), 0);
    jp_callstack_enter(&cs, 2, S(2), 10);
    jp_callstack_enter(&cs, 3, S(3), 20);
    jp_callstack_exit(&cs, S(2), 30); /* the bridge sends one exit per popped frame */
    jp_callstack_exit(&cs, S(1), 30);
    ck_assert_uint_eq(cs.depth, 1);
    const MethodID a[] = {1, 2};
    ck_assert_uint_eq(node_at(a, 2)->total, 20);
    ck_assert_uint_eq(node_at(a, 2)->self, 10);
}
END_TEST

START_TEST(missing_exit_heals_at_the_next_exit_below)
{
    jp_callstack_enter(&cs, 1, S(1), 0);
    jp_callstack_enter(&cs, 2, S(2), 10);
    jp_callstack_enter(&cs, 3, S(3), 20); /* its exit never comes */
    jp_callstack_exit(&cs, S(1), 50);     /* 2 returns to 1 */
    ck_assert_uint_eq(cs.depth, 1);
    const MethodID lost[] = {1, 2, 3};
    ck_assert_uint_eq(node_at(lost, 3)->total, 30);
}
END_TEST

START_TEST(exit_to_a_frame_entered_before_recording_pops_one)
{
    /* Recording began inside frames 1..4: entries start at depth 5 */
    jp_callstack_enter(&cs, 9, S(5), 0);
    jp_callstack_enter(&cs, 8, S(6), 5);
    jp_callstack_exit(&cs, S(5), 10);
    ck_assert_uint_eq(cs.depth, 1);
    jp_callstack_exit(&cs, S(4), 20); /* 9 returns into a frame never seen */
    ck_assert_uint_eq(cs.depth, 0);
    jp_callstack_exit(&cs, S(3), 30); /* and more exits with nothing left: ignored */
    ck_assert_uint_eq(cs.depth, 0);
    const MethodID nine[] = {9};
    ck_assert_uint_eq(node_at(nine, 1)->total, 20);
    ck_assert_uint_eq(node_at(nine, 1)->self, 15);
}
END_TEST

START_TEST(exit_of_an_unseen_frame_pops_nothing)
{
    jp_callstack_enter(&cs, 1, S(1), 0);
    jp_callstack_exit(&cs, S(1), 10); /* a frame at depth 2 we never saw returned into 1 */
    ck_assert_uint_eq(cs.depth, 1);
}
END_TEST

START_TEST(close_ends_open_frames)
{
    jp_callstack_enter(&cs, 1, S(1), 0);
    jp_callstack_enter(&cs, 2, S(2), 10);
    jp_callstack_close(&cs, 25);
    ck_assert_uint_eq(cs.depth, 0);
    const MethodID a[] = {1}, ab[] = {1, 2};
    ck_assert_uint_eq(node_at(a, 1)->total, 25);
    ck_assert_uint_eq(node_at(ab, 2)->total, 15);
}
END_TEST

START_TEST(deep_stacks_grow_the_frame_array)
{
    for (size_t d = 1; d <= 10000; d++)
        jp_callstack_enter(&cs, (MethodID)(d % 3 + 1), S(d), d);
    ck_assert_uint_eq(cs.depth, 10000);
    ck_assert_uint_eq(cs.unrecorded, 0);
    jp_callstack_exit(&cs, 0, 20000);
    ck_assert_uint_eq(cs.depth, 0);
    const MethodID first[] = {2};
    ck_assert_uint_eq(node_at(first, 1)->total, 20000 - 1);
}
END_TEST

/* The child cache: a caller with more callees than the cache has slots (so callees share slots)
 * and a tree emptied under it (as folding a thread does) still count every call at its path. */
START_TEST(every_callee_counted_at_its_path_through_the_child_cache)
{
    enum { CALLEES = 3 << JP_CHILD_CACHE_BITS, ROUNDS = 3 };
    for (int tree = 0; tree < 2; tree++) {
        jp_callstack_enter(&cs, 1, S(1), 0);
        for (int round = 0; round < ROUNDS; round++)
            for (MethodID m = 2; m < 2 + CALLEES; m++) {
                jp_callstack_enter(&cs, m, S(2), 0);
                jp_callstack_enter(&cs, 1, S(3), 0); /* the same method one level down: another node */
                jp_callstack_exit(&cs, S(2), 0);
                jp_callstack_exit(&cs, S(1), 0);
            }
        jp_callstack_exit(&cs, 0, 0);
        ck_assert_uint_eq(cs.tree.count, 2 + 2 * CALLEES); /* the root, 1, each callee and 1 under it */
        for (MethodID m = 2; m < 2 + CALLEES; m++) {
            const MethodID path[] = {1, m, 1};
            ck_assert_uint_eq(node_at(path, 2)->calls, ROUNDS);
            ck_assert_uint_eq(node_at(path, 3)->calls, ROUNDS);
        }
        jp_tree_free(&cs.tree);
        ck_assert_int_eq(jp_tree_init(&cs.tree), 0);
    }
}
END_TEST

START_TEST(clock_going_backwards_never_underflows)
{
    jp_callstack_enter(&cs, 1, S(1), 100);
    jp_callstack_enter(&cs, 2, S(2), 200);
    jp_callstack_exit(&cs, S(1), 150);
    jp_callstack_exit(&cs, 0, 120);
    const MethodID a[] = {1};
    ck_assert_uint_eq(node_at(a, 1)->total, 20);
    ck_assert_uint_eq(node_at(a, 1)->self, 20);
}
END_TEST

/* Call mode times with plat_ticks and converts by the ratio to the clock: the ticks must keep a
 * plausible, steady pace against it (a time-stamp counter runs at 0.1 to 100 ticks per ns). */
START_TEST(ticks_keep_pace_with_the_clock)
{
    uint64_t ticks = plat_ticks(), ns = plat_now_ns();
    plat_sleep_ms(20);
    uint64_t ticks_later = plat_ticks(), ns_later = plat_now_ns();
    double per_ns = (double)(ticks_later - ticks) / (double)(ns_later - ns);
    ck_assert_msg(ticks_later > ticks && per_ns > 0.1 && per_ns < 100, "%.3f ticks per ns", per_ns);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("jevprof_callstack");
    TCase *tc = tcase_create("callstack");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, inclusive_and_exclusive_time);
    tcase_add_test(tc, blocked_time_is_taken_off_the_frame_and_its_callers);
    tcase_add_test(tc, recursion_makes_a_node_per_level);
    tcase_add_test(tc, exception_unwind_in_one_exit_pops_every_frame_above_the_catcher);
    tcase_add_test(tc, exception_unwind_frame_by_frame);
    tcase_add_test(tc, missing_exit_heals_at_the_next_exit_below);
    tcase_add_test(tc, exit_to_a_frame_entered_before_recording_pops_one);
    tcase_add_test(tc, exit_of_an_unseen_frame_pops_nothing);
    tcase_add_test(tc, close_ends_open_frames);
    tcase_add_test(tc, deep_stacks_grow_the_frame_array);
    tcase_add_test(tc, every_callee_counted_at_its_path_through_the_child_cache);
    tcase_add_test(tc, clock_going_backwards_never_underflows);
    tcase_add_test(tc, ticks_keep_pace_with_the_clock);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
