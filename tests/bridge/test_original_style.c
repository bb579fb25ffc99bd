/*
 * test_original_style.c - a monitor written against the original SDK header (the
 * fx_original fixture: the guard __JEVMON_H__, DWORD IDs on Win32, the original's JVM_ID_*
 * names, no <initguid.h>, its IIDs from libjevsdk) runs on real JVMs, and
 * EnableMethodCallEvents goes by the kind of the ID it is given, whatever idtype says.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "../support/testkit.h"
#include "support/jvmrun.h"

#define FX_ORIGINAL "{2F7C95E4-0B1D-4C6A-9E38-5A7D13C4B8F1}"

static char jdks[JVMRUN_MAX_JDKS][512];

static void run_original(const char *jdk, jvmrun_result *r)
{
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX_ORIGINAL,
                         "FXORIG_CLASS=BridgeWorkload", NULL};
    const char *args[] = {"stack", NULL};
    jvmrun(jdk, "", env, args, r);
    ck_assert_msg(r->exit_code == 0, "exit %d, stderr:\n%s", r->exit_code, r->err);
}

/* A ClassID and a MethodID are permitted, queried and prohibited under all eight JVM_ID_TYPE
 * values; a ThreadID fails under each, and stderr says why once. */
START_TEST(enable_method_call_events_goes_by_the_id_kind)
{
    jvmrun_result r;
    run_original(jdks[_i], &r);
    for (int idtype = 0; idtype <= 7; idtype++) {
        char line[160];
        snprintf(line, sizeof(line), "class %d: permit 0x00000000 query 0x00000000 prohibit 0x00000000 query 0x00000001\n",
                 idtype);
        ck_assert_msg(jvmrun_count(r.log, line) == 1, "no \"%s\" in the log:\n%s", line, r.log);
        snprintf(line, sizeof(line), "method %d: permit 0x00000000 query 0x00000000 prohibit 0x00000000 query 0x00000001\n",
                 idtype);
        ck_assert_msg(jvmrun_count(r.log, line) == 1, "no \"%s\" in the log:\n%s", line, r.log);
        snprintf(line, sizeof(line), "thread %d: permit 0x80004005 query 0x80004005 prohibit 0x80004005 query 0x80004005\n",
                 idtype);
        ck_assert_msg(jvmrun_count(r.log, line) == 1, "no \"%s\" in the log:\n%s", line, r.log);
    }
    ck_assert_msg(jvmrun_count(r.err, "jevmon: ") == jvmrun_count(r.err, "jevmon: method calls via ") + 1 &&
                      jvmrun_count(r.err, "EnableMethodCallEvents(0x") == 1 &&
                      jvmrun_count(r.err, "was given a ThreadID; it takes a ClassID or a MethodID") == 1,
                  "expected one line about the ThreadID in stderr:\n%s", r.err);
    jvmrun_free(&r);
}
END_TEST

/* The class permitted under idtype 1 (JVM_ID_CLASS in jevmon's first header, JVM_ID_THREAD in
 * the original's): its calls arrive, and only its. */
START_TEST(calls_of_the_permitted_class_arrive)
{
    jvmrun_result r;
    run_original(jdks[_i], &r);
    ck_assert_msg(jvmrun_count(r.log, "permit class under idtype 1: 0x00000000\n") == 1, "%s", r.log);
    /* main, stack, stackLevel(3..0), traceHere: nothing of the JDK code they call */
    ck_assert_msg(jvmrun_count(r.log, "entry ") == 7 && jvmrun_count(r.log, "entry BridgeWorkload.") == 7, "%s", r.log);
    ck_assert_msg(jvmrun_count(r.log, "entry BridgeWorkload.stackLevel(I)V") == 4, "%s", r.log);
    jvmrun_free(&r);
}
END_TEST

int main(void)
{
    int jdk_count = jvmrun_suite_jdks(jdks);
    if (!jdk_count)
        return EXIT_SUCCESS;
    Suite *s = suite_create("original_style");
    TCase *tc = tcase_create("original_style");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, enable_method_call_events_goes_by_the_id_kind, 0, jdk_count);
    tcase_add_loop_test(tc, calls_of_the_permitted_class_arrive, 0, jdk_count);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
