/*
 * test_mask_changes.c - a monitor changing what it receives from inside its callbacks, on every
 * JDK found, with both method-call mechanisms: JVMTI events (methods=jvmti) and bytecode
 * instrumentation (the monitor promises GC_SAFE and WONT_TOGGLE, so it keeps its method-call
 * bits and toggles the others and its method).
 *
 * tests/instrument/fx_maskflip.c holds the table of cases (trigger x action: from inside
 * MethodEntry, MethodExit2, NotifyEvent THREAD_CREATE, CLASS_LOAD_FINISHED, GC_STARTED,
 * JIT_COMPILE_FINISHED, NotifyEvent2 EXCEPTION_THROWN and EXCEPTION_UNWIND, each category bit
 * turned on and off, the method the monitor picked enabled and disabled);
 * tests/instrument/MaskWorkload.java runs them all in one JVM, each on a thread of its own.
 * Each case's line must say ok: entries and exits pair on every thread (no StackID entered twice,
 * no exit without its entry, none left open on the round's ended thread), the thread that made
 * the change gets nothing its new mask does not ask for, and what it turned on arrives.  Every
 * case whose trigger the workload makes on purpose must have fired (JIT is left to the JIT).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/testkit.h"
#include "support/jvmrun.h"

#define FX_MASKFLIP "{6E2B4D17-0A93-4C58-B721-3D9E4F801A65}"

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

/* The lines of text containing what, printed. */
static void print_lines(const char *jdk, const char *text, const char *what)
{
    for (const char *p = text; p && (p = strstr(p, what)); p++) {
        const char *line = p, *end = strchr(p, '\n');
        while (line > text && line[-1] != '\n')
            line--;
        printf("%s: %.*s\n", jdk, (int)((end ? end : p + strlen(p)) - line), line);
        if (!end)
            break;
        p = end;
    }
}

static void run_cases(const char *jdk, const char *agent_options, const char *promise, int expected_cases)
{
    char library[4200];
    snprintf(library, sizeof(library), "%s", jvmrun_build_path("fixtures/fx_maskflip.so"));
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX_MASKFLIP, promise, NULL};
    const char *args[] = {library, NULL};
    jvmrun_result r;
    jvmrun_main(jdk, "MaskWorkload", agent_options, env, args, &r);
    if (r.exit_code != 0 || !strstr(r.out, "done"))
        printf("exit %d\nstdout:\n%s\nstderr:\n%.4000s\nlog:\n%.4000s\n", r.exit_code, r.out, r.err, r.log);
    ck_assert_int_eq(r.exit_code, 0);
    ck_assert_msg(strstr(r.out, "done"), "the workload did not finish");
    print_lines(jdk, r.log, "FAIL");
    print_lines(jdk, r.log, "violation");
    print_lines(jdk, r.log, "hr=");
    print_lines(jdk, r.log, "fired=0");
    print_lines(jdk, r.out, "round ");
    int cases = jvmrun_count(r.log, "case "), failed = jvmrun_count(r.log, " FAIL");
    int unfired = jvmrun_count(r.log, "fired=0"), unfired_jit = 0;
    for (const char *p = r.log; (p = strstr(p, "trigger=JIT_COMPILE_FINISHED")); p++)
        unfired_jit += strncmp(strchr(p, '\n') ? strstr(p, "fired=") : "", "fired=0", 7) == 0;
    printf("%s %s: %d cases, %d failed, %d not fired (%d of them JIT)\n", jdk, agent_options, cases, failed, unfired,
           unfired_jit);
    fflush(stdout); /* a failed check ends this process without flushing */
    ck_assert_int_eq(cases, expected_cases);
    ck_assert_int_eq(failed, 0);
    ck_assert_int_eq(unfired - unfired_jit, 0);
    ck_assert_int_eq(jvmrun_count(r.log, "hr="), 0); /* every SetEventMask and EnableMethodCallEvents succeeded */
    jvmrun_free(&r);
}

START_TEST(mask_changes_in_callbacks_through_jvmti_events)
{
    run_cases(jdks[_i], "methods=jvmti", "FXFLIP_PROMISE=0", 138);
}
END_TEST

START_TEST(mask_changes_in_callbacks_through_instrumentation)
{
    run_cases(jdks[_i], "", "FXFLIP_PROMISE=1", 104);
}
END_TEST

int main(void)
{
    if (!(jdk_count = jvmrun_suite_jdks(jdks)))
        return EXIT_SUCCESS;
    Suite *s = suite_create("mask_changes");
    TCase *tc = tcase_create("mask_changes");
    tcase_set_timeout(tc, 180);
    tcase_add_loop_test(tc, mask_changes_in_callbacks_through_jvmti_events, 0, jdk_count);
    tcase_add_loop_test(tc, mask_changes_in_callbacks_through_instrumentation, 0, jdk_count);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
