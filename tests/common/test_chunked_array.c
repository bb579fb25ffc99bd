/* test_chunked_array.c - the chunked array (common/chunked_array.h): chunks made, zeroed, on first
 * use and not before, elements that never move, the directory's end, and threads racing to make
 * one chunk agreeing on it. */
#include <check.h>
#include <stdint.h>

#include "common/chunked_array.h"
#include "platform/platform.h"
#include "../support/testkit.h"

typedef struct element {
    uint64_t a, b, c; /* 24 bytes: not a power of two */
} element;

/* 4 chunks of 8 elements. */
static void *_Atomic directory[4];
static const jv_chunked_array array = JV_CHUNKED_ARRAY(directory, 3, sizeof(element));

static void teardown(void)
{
    jv_chunked_array_free(&array);
}

START_TEST(nothing_is_there_before_it_is_made)
{
    for (size_t i = 0; i < 32; i++)
        ck_assert_ptr_null(jv_chunked_array_get(&array, i));
}
END_TEST

START_TEST(making_one_element_makes_its_chunk_zeroed)
{
    element *e = jv_chunked_array_make(&array, 10);
    ck_assert_ptr_nonnull(e);
    ck_assert(e->a == 0 && e->b == 0 && e->c == 0);
    for (size_t i = 8; i < 16; i++) {
        element *other = jv_chunked_array_get(&array, i);
        ck_assert_ptr_nonnull(other);
        ck_assert_ptr_eq(other, (element *)jv_chunked_array_get(&array, 8) + (i - 8));
    }
    ck_assert_ptr_null(jv_chunked_array_get(&array, 7));
    ck_assert_ptr_null(jv_chunked_array_get(&array, 16));
}
END_TEST

START_TEST(elements_never_move)
{
    element *e = jv_chunked_array_make(&array, 3);
    e->b = 42;
    for (size_t i = 0; i < 32; i++)
        ck_assert_ptr_nonnull(jv_chunked_array_make(&array, i));
    ck_assert_ptr_eq(jv_chunked_array_get(&array, 3), e);
    ck_assert_ptr_eq(jv_chunked_array_make(&array, 3), e);
    ck_assert(e->b == 42);
}
END_TEST

START_TEST(nothing_beyond_the_directory)
{
    ck_assert_ptr_nonnull(jv_chunked_array_make(&array, 31));
    ck_assert_ptr_null(jv_chunked_array_make(&array, 32));
    ck_assert_ptr_null(jv_chunked_array_get(&array, 32));
    ck_assert_ptr_null(jv_chunked_array_get(&array, SIZE_MAX));
}
END_TEST

START_TEST(freeing_empties_the_directory)
{
    ck_assert_ptr_nonnull(jv_chunked_array_make(&array, 0));
    jv_chunked_array_free(&array);
    ck_assert_ptr_null(jv_chunked_array_get(&array, 0));
}
END_TEST

#define RACERS 8
static element *made_by[RACERS];
static atomic_int ready;

static void race(void *arg)
{
    atomic_fetch_add(&ready, 1);
    while (atomic_load(&ready) < RACERS)
        ; /* start together */
    made_by[(intptr_t)arg] = jv_chunked_array_make(&array, 20);
}

START_TEST(racing_makers_agree_on_one_chunk)
{
    for (int round = 0; round < 20; round++) {
        plat_thread *threads[RACERS];
        atomic_store(&ready, 0);
        for (intptr_t i = 0; i < RACERS; i++)
            ck_assert_ptr_nonnull(threads[i] = plat_thread_start("test", race, (void *)i));
        for (int i = 0; i < RACERS; i++)
            plat_thread_join(threads[i]);
        for (int i = 0; i < RACERS; i++)
            ck_assert_ptr_eq(made_by[i], jv_chunked_array_get(&array, 20));
        jv_chunked_array_free(&array);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("chunked_array");
    TCase *tc = tcase_create("chunked_array");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, nothing_is_there_before_it_is_made);
    tcase_add_test(tc, making_one_element_makes_its_chunk_zeroed);
    tcase_add_test(tc, elements_never_move);
    tcase_add_test(tc, nothing_beyond_the_directory);
    tcase_add_test(tc, freeing_empties_the_directory);
    tcase_add_test(tc, racing_makers_agree_on_one_chunk);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
