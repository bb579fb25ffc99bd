/*
 * test_spec.c - answers the spec fixes, end to end: the test monitor
 * (tests/bridge/fx_monitor.c) runs tests/bridge/SpecWorkload.java, a class in a
 * package, on every JDK found: the start class's name in class-file form, one CLASS_LOAD_FAILED
 * per failed load, and the methods of a class described during its CLASS_UNLOAD.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/testkit.h"
#include "jevmon.h"
#include "support/jvmrun.h"

#define FX "{63DAD816-1308-449B-AC11-1E702EB2D15F}"
#define SPEC "jevmon.test.SpecWorkload"

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

/*
 * SpecWorkload <program> under fx_monitor asking for the categories in request (hex).  Each case
 * runs on both method-call mechanisms (_i / jdk_count): 0 as asked (no method calls: JVMTI's
 * path), 1 with METHOD_CALLS too and GC_SAFE | WONT_TOGGLE granted, so that the bridge rewrites
 * the classes; the answers must not differ.
 */
static void run_spec(int mode, const char *request, const char *program, jvmrun_result *r)
{
    static char request_env[64];
    int instrumented = mode / jdk_count;
    unsigned long categories = strtoul(request, NULL, 16) | (instrumented ? JVM_MONITOR_METHOD_CALLS : 0);
    snprintf(request_env, sizeof(request_env), "FXMON_REQUEST=%lx", categories);
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX, request_env,
                         instrumented ? "FXMON_OPTIONS=a" : NULL, NULL};
    const char *args[] = {program, NULL};
    jvmrun_main(jdks[mode % jdk_count], SPEC, "", env, args, r);
    ck_assert_msg(r->exit_code == 0, "exit %d\n%s", r->exit_code, r->err);
    if (instrumented)
        ck_assert_msg(strstr(r->err, "jevmon: method calls via bytecode instrumentation\n"), "%s", r->err);
}

/* Fails unless the monitor's log has exactly count lines containing what (the log goes to stderr). */
static void expect_lines(const char *log, const char *what, int count)
{
    int found = jvmrun_count(log, what);
    if (found != count)
        fprintf(stderr, "---- %d lines with \"%s\", not %d, in:\n%s\n----\n", found, what, count, log);
    ck_assert_msg(found == count, "%d lines with \"%s\", not %d", found, what, count);
}

/* The spec's strings name classes as class files do (1.4: the start class's name). */
START_TEST(start_class_in_class_file_form)
{
    jvmrun_result r;
    run_spec(_i, "0", "covariant", &r);
    expect_lines(r.log, "Initialize class=jevmon/test/SpecWorkload flags=", 1);
    jvmrun_free(&r);
}
END_TEST

/*
 * One CLASS_LOAD_FAILED per failed load.  gone: Class.forName of a missing class, then new of it:
 * two failed loads (the second load's ClassNotFoundException, from the class loader, becomes the
 * VM's NoClassDefFoundError: the same failure, not another).  delegated: a loader whose parent
 * (ClassLoader.loadClass's delegation) fails first: when the loader then finds the class, no load
 * failed; when it fails too, one did.
 */
static const struct {
    const char *program, *out;
    struct { const char *name; int events; } loads[2];
} failed_loads[] = {
    {"gone", "forName: jevmon.test.SpecWorkload$Gone\nnew: jevmon/test/SpecWorkload$Gone\n",
     {{"jevmon/test/SpecWorkload$Gone", 2}}},
    {"delegated", "defined jevmon.test.SpecWorkload$Unloadable\nmissing: jevmon.test.Missing\n",
     {{"jevmon/test/SpecWorkload$Unloadable", 0}, {"jevmon/test/Missing", 1}}},
};

START_TEST(one_class_load_failed_per_failed_load)
{
    for (size_t p = 0; p < sizeof(failed_loads) / sizeof(*failed_loads); p++) {
        jvmrun_result r;
        run_spec(_i, "1", failed_loads[p].program, &r); /* CLASS_LOADS */
        ck_assert_str_eq(r.out, failed_loads[p].out);
        for (size_t k = 0; k < 2 && failed_loads[p].loads[k].name; k++) {
            char line[160];
            snprintf(line, sizeof(line), "NotifyEvent 17 %s\n", failed_loads[p].loads[k].name);
            expect_lines(r.log, line, failed_loads[p].loads[k].events);
        }
        jvmrun_free(&r);
    }
}
END_TEST

/* During CLASS_UNLOAD, MethodInformation names every method of the class, with its line table. */
START_TEST(unloading_class_methods_described)
{
    jvmrun_result r;
    run_spec(_i, "1", "unload", &r);
    ck_assert_str_eq(r.out, "unloaded\n");
    ck_assert_msg(jvmrun_count(r.log, "jevmon.test.SpecWorkload$Unloadable\n") >= 1, "no CLASS_UNLOAD");
    const char *methods[] = {"<init>()V lines=1", "tick(I)V lines=6", "run()V lines=4"};
    for (size_t i = 0; i < sizeof(methods) / sizeof(*methods); i++) {
        char line[160];
        snprintf(line, sizeof(line), "unloading method hr=0x00000000 jevmon/test/SpecWorkload$Unloadable.%s\n",
                 methods[i]);
        expect_lines(r.log, line, 1);
    }
    expect_lines(r.log, "unloading method hr=0x8", 0);
    jvmrun_free(&r);
}
END_TEST

int main(void)
{
    jdk_count = jvmrun_suite_jdks(jdks);
    if (!jdk_count)
        return 0;
    Suite *s = suite_create("spec");
    TCase *tc = tcase_create("spec");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, start_class_in_class_file_form, 0, 2 * jdk_count);
    tcase_add_loop_test(tc, one_class_load_failed_per_failed_load, 0, 2 * jdk_count);
    tcase_add_loop_test(tc, unloading_class_methods_described, 0, 2 * jdk_count);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
