/*
 * test_sample_timeout.c - plat_sample_thread's time limit on POSIX: a thread that never
 * answers (SIGPROF blocked) is given up after the limit, and the signal it finally takes
 * later claims nothing (its hook never runs, and a later sample of another thread is right).
 */
#include <check.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "platform/platform.h"
#include "../support/testkit.h"

typedef struct deaf {
    atomic_int run, unblock;
    _Atomic DWORD tid;
} deaf;

static void deaf_loop(void *arg)
{
    deaf *d = arg;
    sigset_t prof;
    sigemptyset(&prof);
    sigaddset(&prof, SIGPROF);
    pthread_sigmask(SIG_BLOCK, &prof, NULL);
    atomic_store(&d->tid, plat_os_thread_id());
    while (atomic_load(&d->run))
        if (atomic_exchange(&d->unblock, 0))
            pthread_sigmask(SIG_UNBLOCK, &prof, NULL); /* the pending signal arrives now */
}

static atomic_uint hook_calls;

static void hook(void *context, void *arg)
{
    (void)context, (void)arg;
    atomic_fetch_add(&hook_calls, 1);
}

START_TEST(a_thread_that_never_answers_is_given_up_in_time)
{
    ck_assert_int_eq(plat_sample_init(), 1);
    deaf d;
    memset(&d, 0, sizeof(d));
    atomic_store(&d.run, 1);
    plat_thread *t = plat_thread_start("test", deaf_loop, &d);
    while (!atomic_load(&d.tid))
        plat_sleep_ms(1);
    plat_registers regs;
    uint64_t start = plat_now_ns();
    ck_assert_int_eq(plat_sample_thread(atomic_load(&d.tid), 100, hook, NULL, &regs), 0);
    uint64_t waited = plat_now_ns() - start;
    ck_assert_uint_ge(waited, 100000000u);
    ck_assert_uint_lt(waited, 1000000000u);
    atomic_store(&d.unblock, 1); /* the late signal is delivered: nothing is waiting for it */
    plat_sleep_ms(50);
    ck_assert_uint_eq(atomic_load(&hook_calls), 0);
    /* once it listens again, it answers */
    ck_assert_int_eq(plat_sample_thread(atomic_load(&d.tid), 1000, hook, NULL, &regs), 1);
    ck_assert_uint_eq(atomic_load(&hook_calls), 1);
    atomic_store(&d.run, 0);
    plat_thread_join(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sample_timeout");
    TCase *tc = tcase_create("sample_timeout");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, a_thread_that_never_answers_is_given_up_in_time);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
