/*
 * test_thread_sample.c - plat_sample_thread on every target (natively on Linux, under Wine
 * for Windows): a busy thread's instruction pointer lies in this program's code and its
 * stack pointer near its own stack; a thread that ended cannot be sampled and costs no wait.
 * plat_process_threads lists this process's threads; a processor-time timer (where the system has
 * them: Linux) interrupts a busy thread about once per period of its processor time, and a
 * sleeping one never.
 */
#include <check.h>
#include <stdio.h>
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

/* Starts a thread spinning in busy_loop and waits until it has said its thread id. */
static plat_thread *start_busy(busy *b)
{
    memset(b, 0, sizeof(*b));
    atomic_store(&b->run, 1);
    plat_thread *t = plat_thread_start("test", busy_loop, b);
    ck_assert_ptr_nonnull(t);
    while (!atomic_load(&b->tid))
        plat_sleep_ms(1);
    return t;
}

START_TEST(a_busy_thread_is_caught_in_this_program)
{
    ck_assert_int_eq(init_once(), 1);
    busy b;
    plat_thread *t = start_busy(&b);
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
    plat_thread *t = plat_thread_start("test", busy_loop, &b); /* run is 0: it ends at once */
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

START_TEST(process_threads_include_a_new_one)
{
    busy b;
    plat_thread *t = start_busy(&b);
    DWORD ids[256];
    size_t count = plat_process_threads(ids, 256);
    int self = 0, other = 0;
    for (size_t i = 0; i < count && i < 256; i++) {
        self |= ids[i] == plat_os_thread_id();
        other |= ids[i] == atomic_load(&b.tid);
    }
    atomic_store(&b.run, 0);
    plat_thread_join(t);
    ck_assert_uint_ge(count, 2);
    ck_assert_int_eq(plat_process_threads(NULL, 0) >= 1, 1);
    ck_assert(self && other);
}
END_TEST

/* The processor-time timers' ticks, by the thread they ran on. */
static _Atomic DWORD ticked_busy_tid;
static atomic_uint busy_ticks, other_ticks;

static void tick(void *context, int overruns, const uint64_t *kernel, int kernel_count)
{
    (void)context, (void)kernel, (void)kernel_count;
    if (plat_os_thread_id() == atomic_load(&ticked_busy_tid))
        atomic_fetch_add(&busy_ticks, 1 + (unsigned)(overruns > 0 ? overruns : 0));
    else
        atomic_fetch_add(&other_ticks, 1);
}

static void sleepy(void *arg)
{
    busy *b = arg;
    atomic_store(&b->tid, plat_os_thread_id());
    while (atomic_load(&b->run))
        plat_sleep_ms(5);
}

START_TEST(a_cpu_timer_ticks_a_busy_thread_and_not_a_sleeping_one)
{
    ck_assert_int_eq(init_once(), 1);
    busy b, idle;
    memset(&b, 0, sizeof(b));
    memset(&idle, 0, sizeof(idle));
    atomic_store(&b.run, 1);
    atomic_store(&idle.run, 1);
    plat_thread *t = plat_thread_start("test", busy_loop, &b), *sleeper = plat_thread_start("test", sleepy, &idle);
    ck_assert_ptr_nonnull(t);
    ck_assert_ptr_nonnull(sleeper);
    while (!atomic_load(&b.tid) || !atomic_load(&idle.tid))
        plat_sleep_ms(1);
    atomic_store(&ticked_busy_tid, atomic_load(&b.tid));
    int timers = plat_cpu_timers_init(tick);
    plat_cpu_timer *busy_timer = plat_cpu_timer_start(atomic_load(&b.tid), 1000000);
    plat_cpu_timer *idle_timer = plat_cpu_timer_start(atomic_load(&idle.tid), 1000000);
    uint64_t cpu_before = plat_thread_cpu_ns(atomic_load(&b.tid));
    uint64_t idle_before = plat_thread_cpu_ns(atomic_load(&idle.tid));
    plat_sleep_ms(400);
    uint64_t cpu_used = plat_thread_cpu_ns(atomic_load(&b.tid)) - cpu_before;
    uint64_t idle_used = plat_thread_cpu_ns(atomic_load(&idle.tid)) - idle_before;
    plat_cpu_timer_stop(busy_timer);
    plat_cpu_timer_stop(idle_timer);
    plat_cpu_timers_init(NULL);
    atomic_store(&b.run, 0);
    atomic_store(&idle.run, 0);
    plat_thread_join(t);
    plat_thread_join(sleeper);
    if (!timers) { /* Windows: none, and no timer can be had */
        ck_assert_ptr_null(busy_timer);
        ck_assert_ptr_null(idle_timer);
        return;
    }
    ck_assert_ptr_nonnull(busy_timer);
    ck_assert_ptr_nonnull(idle_timer);
    unsigned expected = (unsigned)(cpu_used / 1000000);
    printf("busy thread: %u ticks for %u ms of processor time; others: %u\n", atomic_load(&busy_ticks), expected,
           atomic_load(&other_ticks));
    ck_assert_uint_ge(atomic_load(&busy_ticks) * 10, expected * 8); /* a tick per period, within 20% */
    ck_assert_uint_le(atomic_load(&busy_ticks) * 10, expected * 12 + 20);
    /* The sleeper wakes every 5 ms: under ASan on a loaded machine its wake-ups can add up to a
     * millisecond of processor time, which rightly ticks once.  No more than it used, then. */
    ck_assert_uint_le(atomic_load(&other_ticks), (unsigned)(idle_used / 1000000) + 1);
    ck_assert_uint_le(atomic_load(&other_ticks) * 20, atomic_load(&busy_ticks));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("thread_sample");
    TCase *tc = tcase_create("thread_sample");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, a_busy_thread_is_caught_in_this_program);
    tcase_add_test(tc, an_ended_thread_is_not_sampled);
    tcase_add_test(tc, process_threads_include_a_new_one);
    tcase_add_test(tc, a_cpu_timer_ticks_a_busy_thread_and_not_a_sleeping_one);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
