/*
 * test_layers.c - the bridge's layers (tools/check-layers.py, docs/architecture.md): the sources
 * under src/ pass, and the check itself fails on each kind of broken rule, shown on small
 * source trees made here: a table calling up into delivery, a header included from a layer
 * above, folders of one layer using one another in a loop, a file outside any layer folder.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../support/testkit.h"

typedef struct check_run {
    int status;
    char output[8192];
} check_run;

/* Runs tools/check-layers.py on the tree at src. */
static check_run run_check(const char *src)
{
    check_run r = {-1, ""};
    const char *root = getenv("JEVMON_SRC");
    ck_assert_msg(root != NULL, "JEVMON_SRC is not set");
    char command[4096];
    snprintf(command, sizeof(command), "python3 '%s/tools/check-layers.py' '%s' 2>&1", root, src);
    FILE *p = popen(command, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(r.output, 1, sizeof(r.output) - 1, p);
    r.output[n] = '\0';
    int status = pclose(p);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

static char tree[256];

static void make_tree(void)
{
    snprintf(tree, sizeof(tree), "/tmp/jevmon-layers-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tree));
}

static void remove_tree(void)
{
    char command[512];
    snprintf(command, sizeof(command), "rm -rf '%s'", tree);
    ck_assert_int_eq(system(command), 0);
}

/* Writes text to tree/src/path, making its folders. */
static void put(const char *path, const char *text)
{
    char full[1024];
    snprintf(full, sizeof(full), "%s/src/%s", tree, path);
    for (char *slash = strchr(full + strlen(tree) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        mkdir(full, 0700);
        *slash = '/';
    }
    FILE *f = fopen(full, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static check_run check_tree(void)
{
    char src[512];
    snprintf(src, sizeof(src), "%s/src", tree);
    return run_check(src);
}

START_TEST(the_bridge_sources_point_down)
{
    char src[4096];
    snprintf(src, sizeof(src), "%s/src", getenv("JEVMON_SRC"));
    check_run r = run_check(src);
    ck_assert_msg(r.status == 0, "check-layers failed (%d):\n%s", r.status, r.output);
    ck_assert_msg(strstr(r.output, "all pointing down") != NULL, "%s", r.output);
}
END_TEST

START_TEST(a_table_that_delivers_events_fails)
{
    make_tree();
    put("dispatch/dispatch.c", "void jv_notify(int event)\n{\n    (void)event;\n}\n");
    put("ids/class.c", "void jv_notify(int event);\nvoid jv_class_unload(void)\n{\n    jv_notify(1);\n}\n");
    check_run r = check_tree();
    remove_tree();
    ck_assert_int_eq(r.status, 1);
    ck_assert_msg(strstr(r.output, "src/ids/class.c uses src/dispatch/dispatch.c (jv_notify)") &&
                      strstr(r.output, "ids/ may not reach up to dispatch/"),
                  "%s", r.output);
}
END_TEST

START_TEST(a_header_from_a_layer_above_fails)
{
    make_tree();
    put("lifecycle/monitors.h", "struct jv_monitor;\n");
    put("heap/heap.h", "#include \"lifecycle/monitors.h\"\n");
    check_run r = check_tree();
    remove_tree();
    ck_assert_int_eq(r.status, 1);
    ck_assert_msg(strstr(r.output, "src/heap/heap.h uses src/lifecycle/monitors.h (#include \"lifecycle/monitors.h\")"), "%s",
                  r.output);
}
END_TEST

START_TEST(a_loop_between_folders_of_one_layer_fails)
{
    make_tree();
    put("events/gc.c", "int jv_heap_dumps_wanted(void);\n"
                             "int jv_gc_seen(void)\n{\n    return jv_heap_dumps_wanted();\n}\n");
    put("heap/registrations.c", "int jv_gc_seen(void);\n"
                       "int jv_heap_dumps_wanted(void)\n{\n    return jv_gc_seen();\n}\n");
    check_run r = check_tree();
    remove_tree();
    ck_assert_int_eq(r.status, 1);
    ck_assert_msg(strstr(r.output, "folders use one another in a loop: events -> heap -> events"), "%s", r.output);
}
END_TEST

START_TEST(calls_downward_and_sideways_pass)
{
    make_tree();
    put("ids/class.c", "int jv_class_count(void)\n{\n    return 1;\n}\n");
    put("events/gc.c", "int jv_class_count(void);\nint jv_heap_dumps_wanted(void);\n"
                             "int jv_gc_seen(void)\n{\n    return jv_class_count() + jv_heap_dumps_wanted();\n}\n");
    put("heap/registrations.c", "int jv_heap_dumps_wanted(void)\n{\n    return 0; /* jv_gc_seen() */\n}\n");
    check_run r = check_tree();
    remove_tree();
    ck_assert_msg(r.status == 0, "%s", r.output);
    ck_assert_msg(strstr(r.output, "2 edges between folders"), "%s", r.output);
}
END_TEST

START_TEST(a_file_outside_the_layer_folders_fails)
{
    make_tree();
    put("stray.c", "int jv_stray(void)\n{\n    return 0;\n}\n");
    put("newfolder/thing.c", "int jv_thing(void)\n{\n    return 0;\n}\n");
    check_run r = check_tree();
    remove_tree();
    ck_assert_int_eq(r.status, 1);
    ck_assert_msg(strstr(r.output, "src/stray.c: every file lives in a layer folder"), "%s", r.output);
    ck_assert_msg(strstr(r.output, "src/newfolder/thing.c: folder 'newfolder' has no layer"), "%s", r.output);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("layers");
    TCase *tc = tcase_create("layers");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, the_bridge_sources_point_down);
    tcase_add_test(tc, a_table_that_delivers_events_fails);
    tcase_add_test(tc, a_header_from_a_layer_above_fails);
    tcase_add_test(tc, a_loop_between_folders_of_one_layer_fails);
    tcase_add_test(tc, calls_downward_and_sideways_pass);
    tcase_add_test(tc, a_file_outside_the_layer_folders_fails);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
