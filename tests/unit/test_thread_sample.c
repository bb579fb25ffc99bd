/*
 * test_thread_sample.c - plat_sample_thread on every target (natively on Linux, under Wine
 * for Windows): a busy thread's instruction pointer lies in this program's code and its
 * stack pointer near its own stack; a thread that ended cannot be sampled and costs no wait.
 */
#include <check.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "platform/platform.h"
#include "../support/testkit.h"

typedef struct busy {
    atomic_int run;
    _Atomic DWORD tid;
    _Atomic uintptr_t stack_mark; /* the address of a local of the busy thread */
    atomic_uint hook_calls;
    _Atomic DWORD hook_tid; /* the thread the hook ran on */
} busy;

static void busy_loop(void *arg)
{
    busy *b = arg;
    volatile uint64_t x = 1;
    atomic_store(&b->stack_mark, (uintptr_t)&x);
    atomic_store(&b->tid, plat_os_thread_id());
    while (atomic_load_explicit(&b->run, memory_order_relaxed))
        x = x * 31 + 7;
}

static void hook(void *context, void *arg)
{
    busy *b = arg;
    (void)context;
    atomic_fetch_add(&b->hook_calls, 1);
    atomic_store(&b->hook_tid, plat_os_thread_id());
}

static int init_once(void)
{
    static int result = -1;
    if (result < 0)
        result = plat_sample_init();
    return result;
}

START_TEST(a_busy_thread_is_caught_in_this_program)
{
    ck_assert_int_eq(init_once(), 1);
    busy b;
    memset(&b, 0, sizeof(b));
    atomic_store(&b.run, 1);
    plat_thread *t = plat_thread_start(busy_loop, &b);
    ck_assert_ptr_nonnull(t);
    while (!atomic_load(&b.tid))
        plat_sleep_ms(1);
    char *self = plat_module_path((const void *)busy_loop);
    ck_assert_ptr_nonnull(self);
    unsigned taken = 0, in_self = 0;
    for (int i = 0; i < 50; i++) {
        plat_registers regs;
        memset(&regs, 0, sizeof(regs));
        if (!plat_sample_thread(atomic_load(&b.tid), 1000, hook, &b, &regs))
            continue;
        taken++;
        char *where = plat_module_path((const void *)(uintptr_t)regs.ip);
        in_self += where && strcmp(where, self) == 0;
        free(where);
        /* the stack pointer is that thread's: within a page or so of its local */
        uintptr_t mark = atomic_load(&b.stack_mark);
        ck_assert_uint_lt(regs.sp > mark ? regs.sp - mark : mark - regs.sp, 64 * 1024);
        ck_assert_int_eq(regs.hooked, atomic_load(&b.hook_calls) > 0);
    }
    atomic_store(&b.run, 0);
    plat_thread_join(t);
    free(self);
    ck_assert_uint_ge(taken, 45);
    ck_assert_uint_ge(in_self, taken * 9 / 10); /* it spins in busy_loop, nearly always */
    if (atomic_load(&b.hook_calls)) /* where the platform runs the hook, it ran on the sampled thread */
        ck_assert_uint_eq(atomic_load(&b.hook_tid), atomic_load(&b.tid));
}
END_TEST

START_TEST(an_ended_thread_is_not_sampled)
{
    ck_assert_int_eq(init_once(), 1);
    busy b;
    memset(&b, 0, sizeof(b));
    plat_thread *t = plat_thread_start(busy_loop, &b); /* run is 0: it ends at once */
    plat_thread_join(t);
    DWORD tid = atomic_load(&b.tid);
    ck_assert_uint_ne(tid, 0);
    plat_registers regs;
    uint64_t start = plat_now_ns();
    ck_assert_int_eq(plat_sample_thread(tid, 2000, hook, &b, &regs), 0);
    ck_assert_int_eq(plat_sample_thread(0, 2000, hook, &b, &regs), 0);
    ck_assert_uint_lt(plat_now_ns() - start, 1500000000u); /* no waiting out the time limit */
    ck_assert_uint_eq(atomic_load(&b.hook_calls), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("thread_sample");
    TCase *tc = tcase_create("thread_sample");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, a_busy_thread_is_caught_in_this_program);
    tcase_add_test(tc, an_ended_thread_is_not_sampled);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
