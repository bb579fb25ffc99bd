/*
 * test_idinfo.c - the IDInfo methods about objects, fields, handles and monitors, end to
 * end: on every JDK under /usr/lib/jvm, IdInfoWorkload hands objects to the fx_idinfo
 * monitor, which reads them through IDInfo and logs what it found in the format in which
 * the program prints what Java reflection says about the same objects in the same run.
 * The fixture also calls every IDInfo method with garbage, stale and wrong-kind IDs.
 *
 * Each JDK runs the program once (in main, before the suite forks its tests); the tests
 * check parts of that run.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/testkit.h"
#include "support/jvmrun.h"

#define FX_IDINFO "{E846DFC8-41E2-4840-921D-4768E1719E7F}"

static char jdks[JVMRUN_MAX_JDKS][512];
static jvmrun_result runs[JVMRUN_MAX_JDKS];
static int jdk_count;

/* The lines of text that start with prefix, each ending in '\n'; malloc'd. */
static char *lines_starting(const char *text, const char *prefix)
{
    char *found = calloc(1, strlen(text) + 1);
    size_t used = 0;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) + 1 : strlen(line);
        if (strncmp(line, prefix, strlen(prefix)) == 0) {
            memcpy(found + used, line, len);
            used += len;
        }
        line += len;
    }
    return found;
}

/* The monitor's lines with the prefix are the program's lines with it, in the same order. */
static void assert_same_lines(const jvmrun_result *r, const char *prefix)
{
    char *java = lines_starting(r->out, prefix), *monitor = lines_starting(r->log, prefix);
    ck_assert_msg(java[0], "the program printed no \"%s\" lines:\n%s", prefix, r->out);
    ck_assert_str_eq(monitor, java);
    free(java);
    free(monitor);
}

static void assert_logged(const jvmrun_result *r, const char *line)
{
    ck_assert_msg(strstr(r->log, line), "the monitor did not log \"%s\":\n%s", line, r->log);
}

START_TEST(program_runs_unchanged_under_the_monitor)
{
    const jvmrun_result *r = &runs[_i];
    ck_assert_msg(r->exit_code == 0, "exit %d\n%s", r->exit_code, r->err);
    ck_assert_msg(strstr(r->out, "monitors done\ndone\n"), "%s", r->out);
    /* nothing but the line naming the method-call mechanism */
    ck_assert_msg(tk_count(r->err, "jevmon:") == tk_count(r->err, "jevmon: method calls via "), "%s", r->err);
}
END_TEST

START_TEST(fields_methods_and_values_agree_with_reflection)
{
    /* ObjectInformation + ClassInformation (the class, its methods), GetClassFields,
     * FieldInformation and GetObjectField of the class and of its superclass (ClassInformation2). */
    assert_same_lines(&runs[_i], "fields ");
    ck_assert_msg(!strstr(runs[_i].log, "fields-error"), "%s", runs[_i].log);
}
END_TEST

START_TEST(static_class_information_matches_the_object_size)
{
    unsigned hr, statics, instance, object;
    const char *line = strstr(runs[_i].log, "sizes ");
    ck_assert_ptr_nonnull(line);
    ck_assert_int_eq(sscanf(line, "sizes hr=%x static=%u instance=%u object=%u", &hr, &statics, &instance, &object), 4);
    ck_assert_uint_eq(hr, 0);
    ck_assert_uint_eq(statics, 4 + 8 + 4 + 8 + 4); /* int, long, String, double, Object */
    ck_assert_uint_eq(instance, object);          /* HotSpot's layout with its defaults */
}
END_TEST

static unsigned element_size(char type)
{
    switch (type) {
    case 'Z':
    case 'B':
        return 1;
    case 'C':
    case 'S':
        return 2;
    case 'J':
    case 'D':
        return 8;
    default:
        return 4; /* int, float, compressed references */
    }
}

START_TEST(array_elements_and_sizes)
{
    const jvmrun_result *r = &runs[_i];
    char *java = lines_starting(r->out, "array ["), *monitor = lines_starting(r->log, "array [");
    ck_assert_str_eq(monitor, java);
    free(java);
    free(monitor);
    assert_logged(r, "array of a non-array hr=0x80004005\n");
    /* GetObjectSize: a 16-byte array header, the elements, rounded up to 8 (HotSpot's defaults). */
    int arrays = 0;
    for (const char *line = r->log; (line = strstr(line, "arraysize ")); line++, arrays++) {
        char name[128];
        unsigned n, size;
        ck_assert_int_eq(sscanf(line, "arraysize %127s n=%u size=%u", name, &n, &size), 3);
        ck_assert_msg(size == (16 + n * element_size(name[1]) + 7) / 8 * 8, "%s has %u elements, %u bytes", name, n,
                      size);
    }
    ck_assert_int_eq(arrays, 11);
}
END_TEST

START_TEST(descriptions_agree_with_java)
{
    assert_same_lines(&runs[_i], "describe ");
}
END_TEST

START_TEST(special_classes_and_class_path)
{
    const jvmrun_result *r = &runs[_i];
    assert_logged(r, "special hr=0x00000000\n");
    assert_logged(r, "special java.lang.Class flags=3\n");
    static const char *const described[] = {"java.lang.reflect.Method", "java.lang.reflect.Constructor",
                                            "java.lang.reflect.Field", "java.lang.String", "java.lang.StringBuffer",
                                            "java.lang.StringBuilder"};
    for (size_t i = 0; i < sizeof(described) / sizeof(*described); i++) {
        char line[128];
        snprintf(line, sizeof(line), "special %s flags=2\n", described[i]);
        assert_logged(r, line);
    }
    unsigned arrays = 0, variable = 0;
    const char *line = strstr(r->log, "special arrays=");
    ck_assert_ptr_nonnull(line);
    ck_assert_int_eq(sscanf(line, "special arrays=%u variable=%u", &arrays, &variable), 2);
    ck_assert_uint_gt(arrays, 0);
    ck_assert_uint_eq(variable, arrays);
    assert_same_lines(r, "classpath ");
}
END_TEST

START_TEST(handles_survive_gc_and_forget_collected_objects)
{
    const jvmrun_result *r = &runs[_i];
    ck_assert_msg(strstr(r->out, "handles dropped collected=true\n"), "the dropped object was not collected:\n%s",
                  r->out);
    assert_logged(r, "handles made hr=0x00000000 kept=1 dropped=1 null=0\n");
    /* After System.gc(): the kept object is still there, the dropped one is NULL and so is its handle. */
    assert_logged(r, "handles check hr=0x00000000 kept=kept-object dropped-object=0 dropped-handle=0 null-object=0\n");
    assert_logged(r, "handles earlier-object hr=0x80004005\n"); /* an ObjectID of the earlier callback */
    assert_logged(r, "handles free hr=0x00000000\n");
    assert_logged(r, "handles freed get hr=0x80004005\n");
    assert_logged(r, "handles freed free hr=0x80004005\n");
}
END_TEST

START_TEST(monitor_usage_owner_entries_waiters)
{
    const jvmrun_result *r = &runs[_i];
    /* The holder entered twice; one thread is in wait(), later one more is blocked entering. */
    assert_logged(r, "monitor-holder hr=0x00000000 owner=holder entries=2 waiters=1\n");
    assert_logged(r, "monitor hr=0x00000000 owner=holder entries=2 waiters=2\n");
    assert_logged(r, "monitor-free hr=0x00000000 owner=none entries=0 waiters=0\n");
}
END_TEST

START_TEST(invalid_ids_fail_cleanly)
{
    const jvmrun_result *r = &runs[_i];
    assert_logged(r, "invalid valid-ids=1\n");
    ck_assert_msg(!strstr(r->log, "invalid unexpected"), "%s", strstr(r->log, "invalid unexpected"));
    static const char *const groups[] = {"wrong-kind", "stale", "garbage", "near"};
    for (size_t i = 0; i < sizeof(groups) / sizeof(*groups); i++) {
        char prefix[64];
        unsigned calls = 0, unexpected = 1;
        snprintf(prefix, sizeof(prefix), "invalid %s calls=", groups[i]);
        const char *line = strstr(r->log, prefix);
        ck_assert_msg(line, "no %s line:\n%s", prefix, r->log);
        ck_assert_int_eq(sscanf(line + strlen(prefix), "%u unexpected=%u", &calls, &unexpected), 2);
        ck_assert_uint_gt(calls, 0);
        ck_assert_uint_eq(unexpected, 0);
    }
}
END_TEST

int main(void)
{
    if (!(jdk_count = jvmrun_suite_jdks(jdks)))
        return EXIT_SUCCESS;
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX_IDINFO, NULL};
    const char *args[] = {NULL};
    for (int i = 0; i < jdk_count; i++)
        jvmrun_main(jdks[i], "IdInfoWorkload", "", env, args, &runs[i]);
    Suite *s = suite_create("idinfo");
    TCase *tc = tcase_create("idinfo");
    tcase_add_loop_test(tc, program_runs_unchanged_under_the_monitor, 0, jdk_count);
    tcase_add_loop_test(tc, fields_methods_and_values_agree_with_reflection, 0, jdk_count);
    tcase_add_loop_test(tc, static_class_information_matches_the_object_size, 0, jdk_count);
    tcase_add_loop_test(tc, array_elements_and_sizes, 0, jdk_count);
    tcase_add_loop_test(tc, descriptions_agree_with_java, 0, jdk_count);
    tcase_add_loop_test(tc, special_classes_and_class_path, 0, jdk_count);
    tcase_add_loop_test(tc, handles_survive_gc_and_forget_collected_objects, 0, jdk_count);
    tcase_add_loop_test(tc, monitor_usage_owner_entries_waiters, 0, jdk_count);
    tcase_add_loop_test(tc, invalid_ids_fail_cleanly, 0, jdk_count);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    for (int i = 0; i < jdk_count; i++)
        jvmrun_free(&runs[i]);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
