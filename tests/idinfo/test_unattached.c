/*
 * test_unattached.c - IDInfo called from a monitor's own native threads, which the JVM has
 * never seen: tests/idinfo/fx_latemask.c turns METHOD_CALLS on 300 ms after INITIALIZED from
 * such a thread (and calls GetClassPath, MethodInformation, ClassInformation and
 * InterpretedMethodInformation from others) while SamplingWorkload calls methods for a second,
 * on every JDK found, with both method-call mechanisms' JVMTI path (the monitor promises
 * nothing, so its calls come from JVMTI MethodEntry events).
 */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/jvmrun.h"
#include "../support/testkit.h"

#define FX_LATEMASK "{3F6A1C2D-9B84-4E57-A10C-52D78E46B913}"

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

/* A registry file of its own for the fixture's class (jvmrun's registers the common fixtures). */
static void register_fixture(char *path, size_t size)
{
    char fixture[PATH_MAX];
    snprintf(fixture, sizeof(fixture), "%s", jvmrun_build_path("fixtures/fx_latemask.so"));
    snprintf(path, size, "%s", jvmrun_build_path("latemask.XXXXXX"));
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "Windows Registry Editor Version 5.00\n\n[HKEY_CLASSES_ROOT\\CLSID\\" FX_LATEMASK
               "\\InprocServer32]\n@=\"%s\"\n",
            fixture);
    fclose(f);
    chmod(path, 0644);
}

static long long logged(const char *log, const char *prefix)
{
    const char *at = strstr(log, prefix);
    return at ? strtoll(at + strlen(prefix), NULL, 10) : -1;
}

static void assert_logged(const jvmrun_result *r, const char *line)
{
    ck_assert_msg(strstr(r->log, line), "the monitor did not log \"%s\":\n%s\n%s", line, r->log, r->err);
}

START_TEST(events_turned_on_from_an_unattached_thread_are_delivered)
{
    char reg[PATH_MAX], files[PATH_MAX + 32];
    jvmrun_result r;
    register_fixture(reg, sizeof(reg));
    snprintf(files, sizeof(files), "JEVMON_REGISTRY_FILES=%s", reg);
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX_LATEMASK, files, NULL};
    const char *args[] = {"shares", "1", NULL};
    jvmrun_main(jdks[_i], "SamplingWorkload", "", env, args, &r);
    unlink(reg);
    ck_assert_msg(r.exit_code == 0, "exit %d\n%s\n%s", r.exit_code, r.err, r.log);
    assert_logged(&r, "SetEventMask(METHOD_CALLS) hr=0x00000000");
    assert_logged(&r, "GetEventMask hr=0x00000000 mask=0x2"); /* JVM_MONITOR_METHOD_CALLS */
    long long entries = logged(r.log, "MethodEntry ");
    ck_assert_msg(entries > 1000, "%lld method entries after SetEventMask from an unattached thread:\n%s\n%s",
                  entries, r.log, r.err);
    assert_logged(&r, "GetClassPath hr=0x00000000 empty=0");
    assert_logged(&r, "MethodInformation hr=0x00000000 name=");
    assert_logged(&r, "ClassInformation hr=0x00000000 name=");
    assert_logged(&r, "InterpretedMethodInformation hr=0x00000000");
    ck_assert_msg(!strstr(r.log, "name=(none)"), "%s", r.log);
    ck_assert_msg(!strstr(r.err, "jevmon:") || tk_count(r.err, "jevmon:") == tk_count(r.err, "jevmon: method calls via "),
                  "%s", r.err);
    jvmrun_free(&r);
}
END_TEST

int main(void)
{
    if (!(jdk_count = jvmrun_suite_jdks(jdks)))
        return EXIT_SUCCESS;
    Suite *s = suite_create("unattached");
    TCase *tc = tcase_create("unattached");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, events_turned_on_from_an_unattached_thread_are_delivered, 0, jdk_count);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
