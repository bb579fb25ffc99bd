/*
 * test_codemap.c - the map of generated code (src/ids/codemap.c) on its own: every address
 * inside every range maps back, gaps and random addresses map to nothing, newer code over
 * older code wins, unloads remove exactly what they name, and lookups racing updates only
 * ever see whole, true ranges.  Method "IDs" here are made-up numbers naming each range.
 */
#include <check.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "ids/codemap.h"
#include "platform/platform.h"
#include "../support/testkit.h"

#define RANGES 600
#define BASE_ADDRESS ((uintptr_t)0x10000000u)

static jmethodID method_n(unsigned n)
{
    return (jmethodID)(uintptr_t)(n + 1);
}

/* A small deterministic generator, so a failure repeats. */
static uint32_t rng_state;
static uint32_t next_random(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return rng_state >> 8;
}

typedef struct layout {
    uintptr_t start[RANGES];
    size_t size[RANGES];
} layout;

/* RANGES ranges in address order with gaps between them. */
static void make_layout(layout *l)
{
    uintptr_t at = BASE_ADDRESS;
    for (unsigned i = 0; i < RANGES; i++) {
        at += next_random() % 48;
        l->start[i] = at;
        l->size[i] = 1 + next_random() % 96;
        at += l->size[i];
    }
}

static void setup(void)
{
    rng_state = 12345;
    jv_codemap_init();
}

static void teardown(void)
{
    jv_codemap_destroy();
}

static jv_code_kind find(uintptr_t address, jv_code_range *r)
{
    return jv_codemap_find(address, r);
}

START_TEST(every_address_of_every_range_maps_back_in_any_load_order)
{
    static layout l;
    make_layout(&l);
    unsigned order[RANGES];
    for (unsigned i = 0; i < RANGES; i++)
        order[i] = i;
    for (unsigned i = RANGES - 1; i > 0; i--) {
        unsigned j = next_random() % (i + 1), swap = order[i];
        order[i] = order[j];
        order[j] = swap;
    }
    for (unsigned i = 0; i < RANGES; i++)
        jv_codemap_add_compiled(method_n(order[i]), (const void *)l.start[order[i]], l.size[order[i]]);
    unsigned gaps = 0;
    for (unsigned i = 0; i < RANGES; i++) {
        jv_code_range r;
        for (uintptr_t a = l.start[i]; a < l.start[i] + l.size[i]; a++) {
            ck_assert_int_eq(find(a, &r), JV_CODE_COMPILED);
            ck_assert_ptr_eq(r.method, method_n(i));
            ck_assert_uint_eq(r.start, l.start[i]);
            ck_assert_uint_eq(r.end, l.start[i] + l.size[i]);
        }
        uintptr_t gap_end = i + 1 < RANGES ? l.start[i + 1] : l.start[i] + l.size[i] + 100;
        for (uintptr_t a = l.start[i] + l.size[i]; a < gap_end; a++, gaps++)
            ck_assert_int_eq(find(a, &r), JV_CODE_NONE);
    }
    ck_assert_uint_gt(gaps, 0);
    jv_code_range r;
    ck_assert_int_eq(find(BASE_ADDRESS - 1, &r), JV_CODE_NONE);
    ck_assert_int_eq(find(0, &r), JV_CODE_NONE);
    ck_assert_int_eq(find(UINTPTR_MAX, &r), JV_CODE_NONE);
}
END_TEST

START_TEST(empty_map_and_empty_ranges_map_nothing)
{
    jv_code_range r;
    ck_assert_int_eq(find(BASE_ADDRESS, &r), JV_CODE_NONE);
    jv_codemap_add_compiled(method_n(1), (const void *)BASE_ADDRESS, 0);
    jv_codemap_add_compiled(NULL, (const void *)BASE_ADDRESS, 16);
    ck_assert_int_eq(find(BASE_ADDRESS, &r), JV_CODE_NONE);
    jv_codemap_remove_compiled(method_n(1), (const void *)BASE_ADDRESS); /* nothing to remove */
    ck_assert_int_eq(find(BASE_ADDRESS, &r), JV_CODE_NONE);
}
END_TEST

/* Checks the overlap rule before and after the newest ranges were merged into the base. */
static void check_newer_code_wins(int merge_first)
{
    jv_code_range r;
    jv_codemap_add_compiled(method_n(1), (const void *)(BASE_ADDRESS + 100), 100); /* A [100, 200) */
    if (merge_first) /* pushes A into the base */
        for (unsigned i = 0; i < 100; i++)
            jv_codemap_add_stub("filler", (const void *)(BASE_ADDRESS + 10000 + 10 * i), 10);
    jv_codemap_add_compiled(method_n(2), (const void *)(BASE_ADDRESS + 150), 100); /* B [150, 250) over A */
    ck_assert_int_eq(find(BASE_ADDRESS + 120, &r), JV_CODE_NONE); /* A is dead as a whole */
    ck_assert_int_eq(find(BASE_ADDRESS + 160, &r), JV_CODE_COMPILED);
    ck_assert_ptr_eq(r.method, method_n(2));
    ck_assert_int_eq(find(BASE_ADDRESS + 249, &r), JV_CODE_COMPILED);
    /* A's unload, arriving after its memory was reused, must not unmap B. */
    jv_codemap_remove_compiled(method_n(1), (const void *)(BASE_ADDRESS + 100));
    ck_assert_int_eq(find(BASE_ADDRESS + 160, &r), JV_CODE_COMPILED);
    ck_assert_ptr_eq(r.method, method_n(2));
    for (unsigned i = 0; i < 100; i++) /* merges again */
        jv_codemap_add_stub("filler", (const void *)(BASE_ADDRESS + 20000 + 10 * i), 10);
    ck_assert_int_eq(find(BASE_ADDRESS + 120, &r), JV_CODE_NONE);
    ck_assert_int_eq(find(BASE_ADDRESS + 200, &r), JV_CODE_COMPILED);
    ck_assert_ptr_eq(r.method, method_n(2));
}

START_TEST(newer_code_over_older_wins_among_recent_ranges)
{
    check_newer_code_wins(0);
}
END_TEST

START_TEST(newer_code_over_older_wins_against_the_merged_base)
{
    check_newer_code_wins(1);
}
END_TEST

START_TEST(unload_removes_exactly_the_named_code)
{
    static layout l;
    make_layout(&l);
    for (unsigned i = 0; i < RANGES; i++)
        jv_codemap_add_compiled(method_n(i), (const void *)l.start[i], l.size[i]);
    for (unsigned i = 0; i < RANGES; i += 3)
        jv_codemap_remove_compiled(method_n(i), (const void *)l.start[i]);
    /* the wrong method, or an address other than the start: nothing happens */
    jv_codemap_remove_compiled(method_n(2), (const void *)l.start[1]);
    jv_codemap_remove_compiled(method_n(1), (const void *)(l.start[1] + l.size[1]));
    for (unsigned i = 0; i < RANGES; i++) {
        jv_code_range r;
        jv_code_kind k = find(l.start[i] + l.size[i] - 1, &r);
        if (i % 3 == 0)
            ck_assert_int_eq(k, JV_CODE_NONE);
        else {
            ck_assert_int_eq(k, JV_CODE_COMPILED);
            ck_assert_ptr_eq(r.method, method_n(i));
        }
    }
    /* the same method compiled again at the same place maps again */
    jv_codemap_add_compiled(method_n(0), (const void *)l.start[0], l.size[0]);
    jv_code_range r;
    ck_assert_int_eq(find(l.start[0], &r), JV_CODE_COMPILED);
    ck_assert_ptr_eq(r.method, method_n(0));
}
END_TEST

START_TEST(stubs_are_named_and_kept_apart_from_methods)
{
    char name[32] = "Interpreter";
    jv_codemap_add_stub(name, (const void *)BASE_ADDRESS, 4096);
    name[0] = 'X'; /* the map keeps its own copy */
    jv_codemap_add_stub("resolve_static_call", (const void *)(BASE_ADDRESS + 8192), 64);
    jv_codemap_add_stub("Interpreter", (const void *)BASE_ADDRESS, 4096); /* GenerateEvents repeats it */
    jv_code_range r;
    ck_assert_int_eq(find(BASE_ADDRESS + 4095, &r), JV_CODE_STUB);
    ck_assert_str_eq(r.name, "Interpreter");
    ck_assert_ptr_null(r.method);
    ck_assert_int_eq(find(BASE_ADDRESS + 8200, &r), JV_CODE_STUB);
    ck_assert_str_eq(r.name, "resolve_static_call");
    ck_assert_int_eq(find(BASE_ADDRESS + 4096, &r), JV_CODE_NONE);
}
END_TEST

START_TEST(random_addresses_map_to_nothing_or_to_a_range_holding_them)
{
    static layout l;
    make_layout(&l);
    for (unsigned i = 0; i < RANGES; i++)
        jv_codemap_add_compiled(method_n(i), (const void *)l.start[i], l.size[i]);
    unsigned hits = 0;
    for (unsigned i = 0; i < 200000; i++) {
        uintptr_t a = i % 2 ? (uintptr_t)next_random() << 8 ^ next_random()
                            : BASE_ADDRESS + next_random() % (l.start[RANGES - 1] - BASE_ADDRESS + 200);
        jv_code_range r;
        if (find(a, &r) != JV_CODE_NONE) {
            hits++;
            ck_assert(a >= r.start && a < r.end);
            unsigned n = (unsigned)((uintptr_t)r.method - 1);
            ck_assert_uint_lt(n, RANGES);
            ck_assert_uint_eq(r.start, l.start[n]);
        }
    }
    ck_assert_uint_gt(hits, 0);
}
END_TEST

/* ---- Lookups racing updates -------------------------------------------------------------- */

static atomic_int racing;
static atomic_uint torn;

static void reader(void *arg)
{
    const layout *l = arg;
    uint32_t state = 99;
    while (atomic_load(&racing)) {
        state = state * 1664525u + 1013904223u;
        unsigned i = (state >> 8) % RANGES;
        jv_code_range r;
        uintptr_t a = l->start[i] + (state >> 20) % l->size[i];
        /* Either absent (unloaded right now) or exactly range i. */
        if (jv_codemap_find(a, &r) != JV_CODE_NONE &&
            (r.method != method_n(i) || r.start != l->start[i] || r.end != l->start[i] + l->size[i]))
            atomic_fetch_add(&torn, 1);
    }
}

START_TEST(lookups_racing_loads_and_unloads_see_only_true_ranges)
{
    static layout l;
    make_layout(&l);
    atomic_store(&racing, 1);
    plat_thread *readers[3];
    for (int i = 0; i < 3; i++)
        readers[i] = plat_thread_start("test", reader, &l);
    for (unsigned round = 0; round < 20; round++) {
        for (unsigned i = 0; i < RANGES; i++)
            jv_codemap_add_compiled(method_n(i), (const void *)l.start[i], l.size[i]);
        for (unsigned i = round % 2; i < RANGES; i += 2)
            jv_codemap_remove_compiled(method_n(i), (const void *)l.start[i]);
    }
    atomic_store(&racing, 0);
    for (int i = 0; i < 3; i++)
        plat_thread_join(readers[i]);
    ck_assert_uint_eq(atomic_load(&torn), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("codemap");
    TCase *tc = tcase_create("codemap");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, every_address_of_every_range_maps_back_in_any_load_order);
    tcase_add_test(tc, empty_map_and_empty_ranges_map_nothing);
    tcase_add_test(tc, newer_code_over_older_wins_among_recent_ranges);
    tcase_add_test(tc, newer_code_over_older_wins_against_the_merged_base);
    tcase_add_test(tc, unload_removes_exactly_the_named_code);
    tcase_add_test(tc, stubs_are_named_and_kept_apart_from_methods);
    tcase_add_test(tc, random_addresses_map_to_nothing_or_to_a_range_holding_them);
    tcase_add_test(tc, lookups_racing_loads_and_unloads_see_only_true_ranges);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
