/*
 * test_posix.c - the small services of the POSIX platform layer (posix.c,
 * posix_thread.c): environment copies, module paths, COM set-up, recursive mutexes,
 * threads and their ids, helpers for slow calls, the monotonic clock and sleeping.
 */
#include <check.h>
#include <dlfcn.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/platform.h"
#include "../support/testkit.h"

START_TEST(getenv_returns_a_copy)
{
    setenv("JEVMON_TEST_VARIABLE", "value", 1);
    char *copy = plat_getenv("JEVMON_TEST_VARIABLE");
    ck_assert_str_eq(copy, "value");
    copy[0] = 'V';
    ck_assert_str_eq(getenv("JEVMON_TEST_VARIABLE"), "value");
    free(copy);
    setenv("JEVMON_TEST_VARIABLE", "", 1);
    copy = plat_getenv("JEVMON_TEST_VARIABLE");
    ck_assert_str_eq(copy, "");
    free(copy);
    unsetenv("JEVMON_TEST_VARIABLE");
    ck_assert_ptr_null(plat_getenv("JEVMON_TEST_VARIABLE"));
}
END_TEST

START_TEST(module_path_of_the_program_is_absolute_and_real)
{
    char *path = plat_module_path((const void *)plat_module_path); /* linked into this program */
    char *exe = realpath("/proc/self/exe", NULL);
    ck_assert_ptr_nonnull(path);
    ck_assert_str_eq(path, exe);
    free(path);
    free(exe);
}
END_TEST

START_TEST(module_path_of_a_shared_library)
{
    void *address = dlsym(RTLD_DEFAULT, "dlopen"); /* in libc (glibc >= 2.34) or libdl */
    ck_assert_ptr_nonnull(address);
    char *path = plat_module_path(address);
    ck_assert_ptr_nonnull(path);
    ck_assert_msg(path[0] == '/' && strstr(path, "/lib") != NULL, "%s", path);
    char *real = realpath(path, NULL);
    ck_assert_str_eq(real, path); /* no symbolic link left in it */
    free(real);
    free(path);
}
END_TEST

START_TEST(module_path_of_no_module)
{
    ck_assert_ptr_null(plat_module_path((const void *)16));
}
END_TEST

START_TEST(com_init_is_a_no_op)
{
    ck_assert(SUCCEEDED(plat_com_init()));
    plat_com_uninit();
    plat_free_strings(NULL, 0);
}
END_TEST

START_TEST(mutex_is_recursive)
{
    plat_mutex *m = plat_mutex_create();
    ck_assert_ptr_nonnull(m);
    plat_mutex_lock(m);
    plat_mutex_lock(m); /* as a CRITICAL_SECTION allows */
    plat_mutex_unlock(m);
    plat_mutex_unlock(m);
    plat_mutex_destroy(m);
    plat_mutex_destroy(NULL);
}
END_TEST

typedef struct counter {
    plat_mutex *lock;
    long value;
    DWORD thread_id;
} counter;

static void count_up(void *arg)
{
    counter *c = arg;
    for (int i = 0; i < 20000; i++) {
        plat_mutex_lock(c->lock);
        c->value++;
        plat_mutex_unlock(c->lock);
    }
    plat_mutex_lock(c->lock);
    c->thread_id = plat_os_thread_id();
    plat_mutex_unlock(c->lock);
}

START_TEST(threads_run_and_join)
{
    counter c = {plat_mutex_create(), 0, 0};
    plat_thread *threads[4];
    for (int i = 0; i < 4; i++)
        ck_assert_ptr_nonnull(threads[i] = plat_thread_start("test", count_up, &c));
    for (int i = 0; i < 4; i++)
        plat_thread_join(threads[i]);
    ck_assert_int_eq(c.value, 80000);
    ck_assert_uint_ne(c.thread_id, 0);
    ck_assert_uint_ne(c.thread_id, plat_os_thread_id());
    plat_mutex_destroy(c.lock);
}
END_TEST

static void read_own_name(void *arg)
{
    char *name = arg;
    FILE *f = fopen("/proc/thread-self/comm", "r");
    if (!f || !fgets(name, 32, f))
        strcpy(name, "(unreadable)");
    if (f)
        fclose(f);
}

/* top -H and perf show the name the thread was started with, cut to the kernel's 15 bytes. */
START_TEST(threads_are_named)
{
    char seen[32];
    plat_thread *t = plat_thread_start("jevprof sampler", read_own_name, seen);
    ck_assert_ptr_nonnull(t);
    plat_thread_join(t);
    ck_assert_str_eq(seen, "jevprof sampler\n");
    ck_assert_ptr_nonnull(t = plat_thread_start("a name longer than the kernel keeps", read_own_name, seen));
    plat_thread_join(t);
    ck_assert_str_eq(seen, "a name longer t\n");
}
END_TEST

static void count_on_one_processor(void *arg)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    unsigned *counts = arg;
    counts[0] = plat_processor_count();
    counts[1] = sched_setaffinity(0, sizeof(one), &one) == 0 ? plat_processor_count() : 0;
}

/* The processors a process may run on, as taskset and a container's cpuset restrict them. */
START_TEST(processor_count_follows_the_affinity)
{
    unsigned counts[2] = {0, 0};
    plat_thread *t = plat_thread_start("test", count_on_one_processor, counts);
    ck_assert_ptr_nonnull(t);
    plat_thread_join(t);
    ck_assert_uint_ge(counts[0], 1);
    ck_assert_uint_le(counts[0], (unsigned)sysconf(_SC_NPROCESSORS_CONF));
    ck_assert_uint_eq(counts[1], 1);
}
END_TEST

static _Atomic DWORD helper_thread_id;

static void *note_helper_thread(void *unused)
{
    (void)unused;
    atomic_store(&helper_thread_id, plat_os_thread_id());
    return NULL;
}

/* A process starting sampling again and again starts a helper each time: the finished ones are
 * joined as new ones start, so the twentieth runs off the caller's thread as the first did. */
START_TEST(helpers_run_off_the_callers_thread_however_many_start)
{
    for (int i = 0; i < 20; i++) {
        atomic_store(&helper_thread_id, 0);
        plat_run_helper(note_helper_thread);
        while (!atomic_load(&helper_thread_id))
            plat_sleep_ms(1);
        ck_assert_msg(atomic_load(&helper_thread_id) != plat_os_thread_id(), "helper %d ran on the caller's thread", i);
        plat_sleep_ms(10); /* time to return: a table of 8 fills only if 8 in a row take longer */
    }
    plat_helpers_join();
}
END_TEST

START_TEST(main_thread_id_is_the_process_id)
{
    ck_assert_uint_eq(plat_os_thread_id(), (DWORD)getpid());
}
END_TEST

START_TEST(clock_is_monotonic_and_sleep_waits)
{
    uint64_t start = plat_now_ns();
    plat_sleep_ms(20);
    uint64_t end = plat_now_ns();
    ck_assert_uint_ge(end - start, 20000000u);
    ck_assert_uint_lt(end - start, 5000000000u);
    plat_sleep_ms(0);
    ck_assert_uint_ge(plat_now_ns(), end);
}
END_TEST

static Suite *posix_suite(void)
{
    Suite *s = suite_create("posix");
    TCase *tc = tcase_create("services");
    tcase_add_test(tc, getenv_returns_a_copy);
    tcase_add_test(tc, module_path_of_the_program_is_absolute_and_real);
    tcase_add_test(tc, module_path_of_a_shared_library);
    tcase_add_test(tc, module_path_of_no_module);
    tcase_add_test(tc, com_init_is_a_no_op);
    tcase_add_test(tc, mutex_is_recursive);
    tcase_add_test(tc, threads_run_and_join);
    tcase_add_test(tc, threads_are_named);
    tcase_add_test(tc, processor_count_follows_the_affinity);
    tcase_add_test(tc, helpers_run_off_the_callers_thread_however_many_start);
    tcase_add_test(tc, main_thread_id_is_the_process_id);
    tcase_add_test(tc, clock_is_monotonic_and_sleep_waits);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tk_run_suite(posix_suite());
}
