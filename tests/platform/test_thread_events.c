/*
 * test_thread_events.c - the platform layer's thread exits and events, on every target:
 * plat_thread_at_exit runs its function once as each thread that asked ends (the bridge
 * detaches the threads it attached that way), and plat_event wakes a sleeping thread at once
 * when set (timer threads told to stop).
 */
#include <check.h>
#include <stdatomic.h>
#include <stdint.h>

#include "platform/platform.h"
#include "../support/testkit.h"

/* plat_thread_at_exit: the function runs once as each thread that asked ends, and only those. */
static atomic_int exits_run;

static void count_exit(void)
{
    atomic_fetch_add(&exits_run, 1);
}

static void other_exit(void)
{
}

static void ask_twice_for_exit(void *arg)
{
    int *results = arg;
    results[0] = plat_thread_at_exit(count_exit);
    results[1] = plat_thread_at_exit(count_exit); /* once per thread however often asked */
    results[2] = plat_thread_at_exit(other_exit); /* one function per process */
}

static void ask_nothing(void *arg)
{
    (void)arg;
}

START_TEST(thread_exit_function_runs_once_per_asking_thread)
{
    int results[3] = {-2, -2, -2};
    plat_thread *asking = plat_thread_start("test", ask_twice_for_exit, results);
    ck_assert_ptr_nonnull(asking);
    plat_thread_join(asking);
    ck_assert_int_eq(results[0], 0);
    ck_assert_int_eq(results[1], 0);
    ck_assert_int_eq(results[2], -1);
    ck_assert_int_eq(atomic_load(&exits_run), 1);
    plat_thread *quiet = plat_thread_start("test", ask_nothing, NULL);
    ck_assert_ptr_nonnull(quiet);
    plat_thread_join(quiet);
    ck_assert_int_eq(atomic_load(&exits_run), 1);
}
END_TEST

static void set_after_a_while(void *arg)
{
    plat_sleep_ms(20);
    plat_event_set(arg);
}

/* plat_event: a wait times out unset, ends early when another thread sets it, and stays set. */
START_TEST(event_wait_times_out_or_ends_when_set)
{
    plat_event *e = plat_event_create();
    ck_assert_ptr_nonnull(e);
    uint64_t start = plat_now_ns();
    ck_assert_int_eq(plat_event_wait_ms(e, 30), 0);
    ck_assert_uint_ge(plat_now_ns() - start, 29000000u);
    plat_thread *setter = plat_thread_start("test", set_after_a_while, e);
    ck_assert_ptr_nonnull(setter);
    start = plat_now_ns();
    ck_assert_int_eq(plat_event_wait_ms(e, 10000), 1);
    ck_assert_uint_lt(plat_now_ns() - start, 5000000000u); /* woken, not timed out */
    plat_thread_join(setter);
    ck_assert_int_eq(plat_event_wait_ms(e, 0), 1);
    plat_event_destroy(e);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("thread_events");
    TCase *tc = tcase_create("thread_events");
    tcase_add_test(tc, thread_exit_function_runs_once_per_asking_thread);
    tcase_add_test(tc, event_wait_times_out_or_ends_when_set);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
