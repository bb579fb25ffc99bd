/*
 * test_jevprof_callstack.c - call mode's recording: a thread's shadow stack (inclusive and
 * exclusive time, call counts, recursion, an exit ending the frames above its method's, exits of
 * frames entered before recording began) and the batches of call records calls.c builds the
 * threads' trees from (a state per ThreadID whatever thread delivers them, a thread's end and the
 * stop, the blocked time a batch's gaps hand to the frames open in them).
 *
 * Exits name the method leaving, as the bridge's records do (docs/call-batches.md).
 */
#include <check.h>
#include <stdlib.h>

#include "../../monitor/calls.h"
#include "../../monitor/callstack.h"
#include "platform/platform.h"
#include "../support/testkit.h"

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
    /* a (0..100) calls b twice: b (10..40), b (50..60) */
    jp_callstack_enter(&cs, 1, 0);
    jp_callstack_enter(&cs, 2, 10);
    jp_callstack_leave(&cs, 2, 40);
    jp_callstack_enter(&cs, 2, 50);
    jp_callstack_leave(&cs, 2, 60);
    jp_callstack_leave(&cs, 1, 100);
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
    jp_callstack_enter(&cs, 1, 0);
    jp_callstack_enter(&cs, 2, 10);
    jp_callstack_blocked(&cs, 50);
    jp_callstack_leave(&cs, 2, 100);
    jp_callstack_leave(&cs, 1, 120);
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
    jp_callstack_enter(&cs, 7, 0);
    jp_callstack_enter(&cs, 7, 10);
    jp_callstack_enter(&cs, 7, 20);
    jp_callstack_leave(&cs, 7, 30);
    jp_callstack_leave(&cs, 7, 40);
    jp_callstack_leave(&cs, 7, 50);
    const MethodID f1[] = {7}, f2[] = {7, 7}, f3[] = {7, 7, 7};
    ck_assert_uint_eq(node_at(f1, 1)->total, 50);
    ck_assert_uint_eq(node_at(f1, 1)->self, 20);
    ck_assert_uint_eq(node_at(f2, 2)->total, 30);
    ck_assert_uint_eq(node_at(f2, 2)->self, 20);
    ck_assert_uint_eq(node_at(f3, 3)->total, 10);
    ck_assert_uint_eq(node_at(f3, 3)->self, 10);
}
END_TEST

START_TEST(an_exit_ends_the_frames_above_its_methods_frame)
{
    /* main -> a -> b -> c; b leaves at 40 without c's exit (a constructor whose super() threw) */
    jp_callstack_enter(&cs, 1, 0);
    jp_callstack_enter(&cs, 2, 10);
    jp_callstack_enter(&cs, 3, 20);
    jp_callstack_enter(&cs, 4, 30);
    jp_callstack_leave(&cs, 3, 40);
    ck_assert_uint_eq(cs.depth, 2);
    const MethodID c[] = {1, 2, 3, 4}, b[] = {1, 2, 3}, a[] = {1, 2};
    ck_assert_uint_eq(node_at(c, 4)->total, 10);
    ck_assert_uint_eq(node_at(b, 3)->total, 20);
    ck_assert_uint_eq(node_at(b, 3)->self, 10);
    jp_callstack_leave(&cs, 2, 50);
    jp_callstack_enter(&cs, 5, 50); /* main goes on to call something else */
    jp_callstack_leave(&cs, 5, 60);
    const MethodID other[] = {1, 5};
    ck_assert_uint_eq(node_at(a, 2)->total, 40);
    ck_assert_uint_eq(node_at(other, 2)->total, 10);
    jp_callstack_leave(&cs, 1, 70);
    const MethodID m[] = {1};
    ck_assert_uint_eq(node_at(m, 1)->total, 70);
    ck_assert_uint_eq(node_at(m, 1)->self, 70 - 40 - 10);
}
END_TEST

/* f -> g -> f -> h: f leaving ends the inner f (and h above it), not the outer one. */
START_TEST(an_exit_ends_the_innermost_frame_of_its_method)
{
    jp_callstack_enter(&cs, 1, 0);
    jp_callstack_enter(&cs, 2, 10);
    jp_callstack_enter(&cs, 1, 20);
    jp_callstack_enter(&cs, 3, 30);
    jp_callstack_leave(&cs, 1, 50);
    ck_assert_uint_eq(cs.depth, 2);
    const MethodID inner[] = {1, 2, 1}, h[] = {1, 2, 1, 3};
    ck_assert_uint_eq(node_at(inner, 3)->total, 30);
    ck_assert_uint_eq(node_at(h, 4)->total, 20);
    jp_callstack_leave(&cs, 2, 60);
    jp_callstack_leave(&cs, 1, 70);
    ck_assert_uint_eq(cs.depth, 0);
    const MethodID outer[] = {1}, g[] = {1, 2};
    ck_assert_uint_eq(node_at(outer, 1)->total, 70);
    ck_assert_uint_eq(node_at(g, 2)->total, 50);
}
END_TEST

START_TEST(exits_of_frames_entered_before_recording_are_dropped)
{
    /* Recording began inside frames of 4, 5 and 6: their exits come with nothing of theirs open */
    jp_callstack_leave(&cs, 6, 0);
    jp_callstack_enter(&cs, 9, 0);
    jp_callstack_enter(&cs, 8, 5);
    jp_callstack_leave(&cs, 5, 7); /* a frame below 9's leaves: 9 and 8 are not its */
    ck_assert_uint_eq(cs.depth, 2);
    jp_callstack_leave(&cs, 8, 10);
    jp_callstack_leave(&cs, 9, 20);
    ck_assert_uint_eq(cs.depth, 0);
    jp_callstack_leave(&cs, 4, 30);
    ck_assert_uint_eq(cs.depth, 0);
    const MethodID nine[] = {9};
    ck_assert_uint_eq(node_at(nine, 1)->total, 20);
    ck_assert_uint_eq(node_at(nine, 1)->self, 15);
}
END_TEST

START_TEST(close_ends_open_frames)
{
    jp_callstack_enter(&cs, 1, 0);
    jp_callstack_enter(&cs, 2, 10);
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
        jp_callstack_enter(&cs, (MethodID)(d % 3 + 1), d);
    ck_assert_uint_eq(cs.depth, 10000);
    ck_assert_uint_eq(cs.unrecorded, 0);
    jp_callstack_close(&cs, 20000);
    ck_assert_uint_eq(cs.depth, 0);
    const MethodID first[] = {2};
    ck_assert_uint_eq(node_at(first, 1)->total, 20000 - 1);
}
END_TEST

/* The index of children: a caller with more callees than the index first has slots (so it grows
 * while they are entered) and a tree emptied under it (as folding a thread does) still count
 * every call at its path. */
START_TEST(every_callee_counted_at_its_path_through_the_index)
{
    enum { CALLEES = 3000, ROUNDS = 3 };
    for (int tree = 0; tree < 2; tree++) {
        jp_callstack_enter(&cs, 1, 0);
        for (int round = 0; round < ROUNDS; round++)
            for (MethodID m = 2; m < 2 + CALLEES; m++) {
                jp_callstack_enter(&cs, m, 0);
                jp_callstack_enter(&cs, 1, 0); /* the same method one level down: another node */
                jp_callstack_leave(&cs, 1, 0);
                jp_callstack_leave(&cs, m, 0);
            }
        jp_callstack_leave(&cs, 1, 0);
        ck_assert_uint_eq(cs.tree.count, 2 + 2 * CALLEES); /* the root, 1, each callee and 1 under it */
        ck_assert_uint_eq(cs.indexed, cs.tree.count - 1);
        ck_assert_uint_ge((size_t)1 << cs.index_bits, 2 * cs.indexed);
        for (MethodID m = 2; m < 2 + CALLEES; m++) {
            const MethodID path[] = {1, m, 1};
            ck_assert_uint_eq(node_at(path, 2)->calls, ROUNDS);
            ck_assert_uint_eq(node_at(path, 3)->calls, ROUNDS);
        }
        ck_assert_int_eq(jp_callstack_empty_tree(&cs), 0);
        ck_assert_uint_eq(cs.tree.count, 1);
    }
}
END_TEST

/* The call order: a caller calling its callees in one order, then another, counts every call at
 * its path; and a tree emptied under it forgets the order, which named nodes of the tree before
 * (3 was entered after 2 under 1 there; under 2 here, so a kept order would count 1 > 3 there). */
START_TEST(every_call_at_its_path_whatever_the_call_order)
{
    static const MethodID orders[][3] = {{2, 3, 4}, {2, 3, 4}, {4, 2, 3}, {3, 4, 2}, {2, 4, 3}};
    jp_callstack_enter(&cs, 1, 0);
    for (size_t round = 0; round < sizeof(orders) / sizeof(orders[0]); round++)
        for (size_t i = 0; i < 3; i++) {
            jp_callstack_enter(&cs, orders[round][i], 0);
            jp_callstack_enter(&cs, 5, 0);
            jp_callstack_leave(&cs, 5, 0);
            jp_callstack_leave(&cs, orders[round][i], 0);
        }
    jp_callstack_leave(&cs, 1, 0);
    ck_assert_uint_eq(cs.tree.count, 1 + 1 + 3 * 2);
    for (MethodID m = 2; m <= 4; m++) {
        const MethodID path[] = {1, m, 5};
        ck_assert_uint_eq(node_at(path, 2)->calls, 5);
        ck_assert_uint_eq(node_at(path, 3)->calls, 5);
    }

    ck_assert_int_eq(jp_callstack_empty_tree(&cs), 0);
    jp_callstack_enter(&cs, 1, 0); /* 1 calls 2, then 3 */
    jp_callstack_enter(&cs, 2, 0);
    jp_callstack_leave(&cs, 2, 0);
    jp_callstack_enter(&cs, 3, 0);
    jp_callstack_leave(&cs, 3, 0);
    jp_callstack_leave(&cs, 1, 0);
    ck_assert_int_eq(jp_callstack_empty_tree(&cs), 0);
    jp_callstack_enter(&cs, 1, 0); /* 1 calls 2, which calls 3; then 1 calls 3 */
    jp_callstack_enter(&cs, 2, 0);
    jp_callstack_enter(&cs, 3, 0);
    jp_callstack_leave(&cs, 3, 0);
    jp_callstack_leave(&cs, 2, 0);
    jp_callstack_enter(&cs, 3, 0);
    jp_callstack_leave(&cs, 3, 0);
    jp_callstack_leave(&cs, 1, 0);
    const MethodID one_three[] = {1, 3}, one_two_three[] = {1, 2, 3};
    ck_assert_uint_eq(node_at(one_three, 2)->calls, 1);
    ck_assert_uint_eq(node_at(one_two_three, 3)->calls, 1);
}
END_TEST

/* A loop whose body calls one method, then one of two others in turn (a parser's branches): once
 * the loop has run both ways, its calls are found by the call order's last two guesses, never by
 * the index.  The index is emptied after the first four rounds to see it: a call looked up there
 * would be put back in it. */
START_TEST(a_loop_taking_two_ways_in_turn_needs_no_lookup)
{
    enum { ROUNDS = 8 };
    jp_callstack_enter(&cs, 1, 0);
    for (int round = 0; round < ROUNDS; round++) {
        if (round == 4) { /* each way run twice: every turn of the loop seen */
            for (size_t i = 0; i < (size_t)1 << cs.index_bits; i++)
                cs.index[i].node = JP_NO_NODE;
            cs.indexed = 0;
        }
        const MethodID body[] = {2, round % 2 ? 4 : 3};
        for (size_t i = 0; i < 2; i++) {
            jp_callstack_enter(&cs, body[i], 0);
            jp_callstack_leave(&cs, body[i], 0);
        }
    }
    jp_callstack_leave(&cs, 1, 0);
    ck_assert_uint_eq(cs.indexed, 0);
    const MethodID one_two[] = {1, 2}, one_three[] = {1, 3}, one_four[] = {1, 4};
    ck_assert_uint_eq(node_at(one_two, 2)->calls, ROUNDS);
    ck_assert_uint_eq(node_at(one_three, 2)->calls, ROUNDS / 2);
    ck_assert_uint_eq(node_at(one_four, 2)->calls, ROUNDS / 2);
}
END_TEST

START_TEST(clock_going_backwards_never_underflows)
{
    jp_callstack_enter(&cs, 1, 100);
    jp_callstack_enter(&cs, 2, 200);
    jp_callstack_leave(&cs, 2, 150);
    jp_callstack_leave(&cs, 1, 120);
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

/* ---- batches (calls.c) ---- */

#define ENTERED(ticks, method) ((JEVMON_CALL_RECORD){(ticks), (method), JEVMON_CALL_ENTERED})
#define RETURNED(ticks, method) ((JEVMON_CALL_RECORD){(ticks), (method), JEVMON_CALL_RETURNED})
#define UNWOUND(ticks, method) ((JEVMON_CALL_RECORD){(ticks), (method), JEVMON_CALL_UNWOUND})
#define BATCH(thread, ...)                                                                                        \
    do {                                                                                                         \
        const JEVMON_CALL_RECORD records_[] = {__VA_ARGS__};                                                    \
        jp_calls_batch(&calls, (thread), records_, (DWORD)(sizeof(records_) / sizeof(records_[0])));          \
    } while (0)

static jp_calls calls;

/* Whether the fake IDInfo names the calling thread's OS thread for every thread, or none (as for a
 * virtual thread). */
static int os_thread_known;

/* The IDInfo the recorder asks for a thread's OS thread: ThreadInformation is all it calls. */
static HRESULT STDMETHODCALLTYPE fake_ThreadInformation(IJavaEventMonitorIDInfo2 *iface, ThreadID thread,
                                                        DWORD *pwin32_thread_id)
{
    (void)iface, (void)thread;
    *pwin32_thread_id = os_thread_known ? plat_os_thread_id() : 0;
    return os_thread_known ? S_OK : E_FAIL;
}

static const IJavaEventMonitorIDInfo2Vtbl fake_info_vtbl = {.ThreadInformation = fake_ThreadInformation};
static IJavaEventMonitorIDInfo2 fake_info = {&fake_info_vtbl};

static void calls_teardown(void)
{
    jp_calls_stop(&calls);
    jp_calls_free(&calls);
}

/* The node for a path of methods from the root of the recorder's totals. */
static const jp_node *total_at(const MethodID *path, size_t n)
{
    uint32_t node = JP_ROOT;
    for (size_t i = 0; i < n && node != JP_NO_NODE; i++)
        node = jp_tree_find(&calls.totals, node, path[i]);
    ck_assert_uint_ne(node, JP_NO_NODE);
    return &calls.totals.nodes[node];
}

/* The batches of two threads, interleaved and all delivered on this one, keep to their own stacks;
 * a frame entered in one batch ends in a later one.  The totals are in ticks until the stop. */
START_TEST(each_thread_keeps_its_stack_across_its_batches)
{
    ck_assert_int_eq(jp_calls_init(&calls, NULL, NULL, 0), 0);
    BATCH(1, ENTERED(100, 10));
    BATCH(2, ENTERED(100, 20), ENTERED(150, 21));
    BATCH(1, ENTERED(200, 11), RETURNED(300, 11), RETURNED(400, 10));
    BATCH(2, RETURNED(250, 21), RETURNED(500, 20));
    jp_calls_thread_ended(&calls, 1);
    jp_calls_thread_ended(&calls, 2);
    const MethodID a[] = {10}, ac[] = {10, 11}, b[] = {20}, bd[] = {20, 21};
    ck_assert_uint_eq(total_at(a, 1)->total, 300);
    ck_assert_uint_eq(total_at(a, 1)->self, 200);
    ck_assert_uint_eq(total_at(ac, 2)->total, 100);
    ck_assert_uint_eq(total_at(b, 1)->total, 400);
    ck_assert_uint_eq(total_at(bd, 2)->total, 100);
    ck_assert_uint_eq(total_at(bd, 2)->calls, 1);
    ck_assert_uint_eq(calls.thread_count, 2);
}
END_TEST

/* Exits of frames entered before recording are dropped; an UNWOUND record of super() and then
 * its caller's return end the constructor that reported no exit of its own. */
START_TEST(a_batch_drops_exits_it_has_no_frame_for)
{
    ck_assert_int_eq(jp_calls_init(&calls, NULL, NULL, 0), 0);
    BATCH(1, RETURNED(10, 99), ENTERED(20, 1), ENTERED(30, 2), ENTERED(40, 3), UNWOUND(50, 3), RETURNED(80, 1),
          RETURNED(90, 98), ENTERED(100, 1), RETURNED(110, 1));
    jp_calls_thread_ended(&calls, 1);
    const MethodID a[] = {1}, ctor[] = {1, 2}, super[] = {1, 2, 3};
    ck_assert_uint_eq(total_at(a, 1)->calls, 2);
    ck_assert_uint_eq(total_at(a, 1)->total, 70);
    ck_assert_uint_eq(total_at(ctor, 2)->total, 50);
    ck_assert_uint_eq(total_at(super, 3)->total, 10);
    ck_assert_uint_eq(calls.totals.count, 4); /* the root and the three: the dropped exits made none */
}
END_TEST

/* A thread that ended is forgotten (its ThreadID may come back as another thread), a dump holds the
 * calls that ended so far, and batches after the stop are dropped. */
START_TEST(a_thread_ends_a_dump_copies_the_stop_ends_recording)
{
    ck_assert_int_eq(jp_calls_init(&calls, NULL, NULL, 0), 0);
    uint64_t now = plat_ticks();
    BATCH(1, ENTERED(now, 1), ENTERED(now, 2));
    jp_calls_thread_ended(&calls, 1);
    BATCH(1, RETURNED(now, 2), ENTERED(now, 3), RETURNED(now + 10, 3), ENTERED(now + 10, 4));
    jp_tree dump;
    ck_assert_int_eq(jp_tree_init(&dump), 0);
    ck_assert_int_eq(jp_calls_snapshot(&calls, &dump), 0);
    uint32_t three = jp_tree_find(&dump, JP_ROOT, 3), four = jp_tree_find(&dump, JP_ROOT, 4);
    ck_assert_uint_ne(three, JP_NO_NODE); /* at the root: nothing of the first thread's left open */
    ck_assert_uint_eq(dump.nodes[three].calls, 1);
    ck_assert_uint_ne(four, JP_NO_NODE); /* open: entered, no time of its own yet */
    ck_assert_uint_eq(dump.nodes[four].total, 0);
    jp_tree_free(&dump);
    jp_calls_stop(&calls);
    BATCH(1, RETURNED(now + 20, 4), ENTERED(now + 20, 5));
    BATCH(2, ENTERED(now + 20, 6));
    const MethodID two[] = {1, 2}, four_path[] = {4};
    ck_assert_uint_eq(total_at(two, 2)->calls, 1);
    ck_assert_uint_eq(total_at(four_path, 1)->calls, 1);
    ck_assert_uint_eq(jp_tree_find(&calls.totals, JP_ROOT, 5), JP_NO_NODE);
    ck_assert_uint_eq(jp_tree_find(&calls.totals, JP_ROOT, 6), JP_NO_NODE);
}
END_TEST

/* The thread's processor time so far, in ns. */
static uint64_t own_cpu_ns(void)
{
    return plat_thread_cpu_ns(plat_os_thread_id());
}

#define SLEPT_MS 500u
#define SPUN_MS 50u

/*
 * Processor time: a (the outer frame) sleeps SLEPT_MS, then calls b, which computes for SPUN_MS
 * of processor time; both gaps are long enough to be waits.  The blocked time the CPU clock shows
 * goes to the longest gap first, so a loses its sleep and b keeps its computing (unless the
 * machine held b off the processor for longer than a slept).  In wall time both keep everything.
 * Generous bounds: Windows counts processor time in quanta of 15.6 ms.
 */
START_TEST(a_batchs_blocked_time_goes_to_the_frame_blocked_in)
{
    int cpu_time = _i;
    os_thread_known = 1;
    ck_assert_int_eq(jp_calls_init(&calls, &fake_info, NULL, cpu_time), 0);
    /* a first batch, long before: its trailing gap makes the first reading of the CPU clock */
    uint64_t before = plat_ticks() - 2 * calls.refresh_ticks;
    BATCH(1, ENTERED(before, 9), RETURNED(before, 9));
    JEVMON_CALL_RECORD records[4];
    records[0] = ENTERED(plat_ticks(), 1);
    plat_sleep_ms(SLEPT_MS);
    records[1] = ENTERED(plat_ticks(), 2);
    uint64_t spun_from = own_cpu_ns();
    ck_assert_uint_ne(spun_from, UINT64_MAX);
    while (own_cpu_ns() - spun_from < SPUN_MS * 1000000u)
        ;
    records[2] = RETURNED(plat_ticks(), 2);
    records[3] = RETURNED(plat_ticks(), 1);
    jp_calls_batch(&calls, 1, records, 4);
    jp_calls_stop(&calls);
    const MethodID a[] = {1}, ab[] = {1, 2};
    double a_ms = (double)total_at(a, 1)->total / 1e6, b_ms = (double)total_at(ab, 2)->total / 1e6;
    if (cpu_time)
        ck_assert_msg(b_ms >= SPUN_MS / 2 && a_ms - b_ms < SLEPT_MS / 2, "a %.1f ms, b %.1f ms", a_ms, b_ms);
    else
        ck_assert_msg(b_ms >= SPUN_MS * 0.9 && a_ms - b_ms >= SLEPT_MS * 0.9, "a %.1f ms, b %.1f ms", a_ms, b_ms);
}
END_TEST

/* A wait that a flush splits: a enters, and its entry is delivered while it waits, as a flush
 * from another thread delivers it.  The part of the wait up to the flush is placed by the next
 * record, which ends a: in processor time a keeps next to nothing of its wait. */
START_TEST(a_wait_split_by_a_flush_keeps_its_blocked_time)
{
    os_thread_known = 1;
    ck_assert_int_eq(jp_calls_init(&calls, &fake_info, NULL, 1), 0);
    uint64_t before = plat_ticks() - 2 * calls.refresh_ticks;
    BATCH(1, ENTERED(before, 9), RETURNED(before, 9));
    JEVMON_CALL_RECORD entered = ENTERED(plat_ticks(), 1);
    plat_sleep_ms(SLEPT_MS / 2);
    jp_calls_batch(&calls, 1, &entered, 1);
    plat_sleep_ms(SLEPT_MS / 2);
    BATCH(1, RETURNED(plat_ticks(), 1));
    jp_calls_stop(&calls);
    const MethodID a[] = {1};
    double a_ms = (double)total_at(a, 1)->total / 1e6;
    ck_assert_msg(a_ms < SLEPT_MS / 4, "a %.1f ms", a_ms);
}
END_TEST

/* A thread without an OS thread of its own (a virtual thread): its CPU clock is unknown, so its gaps
 * keep their wall time. */
START_TEST(a_thread_without_a_cpu_clock_keeps_its_wall_time)
{
    os_thread_known = 0;
    ck_assert_int_eq(jp_calls_init(&calls, &fake_info, NULL, 1), 0);
    uint64_t gap = 5 * calls.gap_ticks, from = plat_ticks() - 3 * gap;
    BATCH(1, ENTERED(from, 1), ENTERED(from + gap, 2), RETURNED(from + 2 * gap, 2), RETURNED(from + 3 * gap, 1));
    jp_calls_thread_ended(&calls, 1);
    const MethodID a[] = {1}, ab[] = {1, 2};
    ck_assert_uint_eq(total_at(a, 1)->total, 3 * gap);
    ck_assert_uint_eq(total_at(ab, 2)->total, gap);
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
    tcase_add_test(tc, an_exit_ends_the_frames_above_its_methods_frame);
    tcase_add_test(tc, an_exit_ends_the_innermost_frame_of_its_method);
    tcase_add_test(tc, exits_of_frames_entered_before_recording_are_dropped);
    tcase_add_test(tc, close_ends_open_frames);
    tcase_add_test(tc, deep_stacks_grow_the_frame_array);
    tcase_add_test(tc, every_callee_counted_at_its_path_through_the_index);
    tcase_add_test(tc, every_call_at_its_path_whatever_the_call_order);
    tcase_add_test(tc, a_loop_taking_two_ways_in_turn_needs_no_lookup);
    tcase_add_test(tc, clock_going_backwards_never_underflows);
    tcase_add_test(tc, ticks_keep_pace_with_the_clock);
    suite_add_tcase(s, tc);
    TCase *batches = tcase_create("batches");
    tcase_add_checked_fixture(batches, NULL, calls_teardown);
    tcase_set_timeout(batches, 30);
    tcase_add_test(batches, each_thread_keeps_its_stack_across_its_batches);
    tcase_add_test(batches, a_batch_drops_exits_it_has_no_frame_for);
    tcase_add_test(batches, a_thread_ends_a_dump_copies_the_stop_ends_recording);
    tcase_add_loop_test(batches, a_batchs_blocked_time_goes_to_the_frame_blocked_in, 0, 2);
    tcase_add_test(batches, a_wait_split_by_a_flush_keeps_its_blocked_time);
    tcase_add_test(batches, a_thread_without_a_cpu_clock_keeps_its_wall_time);
    suite_add_tcase(s, batches);
    return tk_run_suite(s);
}
