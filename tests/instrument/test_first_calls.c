/*
 * test_first_calls.c - first calls into a class just loaded, on many threads at once, on real
 * JVMs (every JDK under /usr/lib/jvm), on the instrumented path (InitOptions 0xa), where the
 * first call of a method looks its MethodID up (instrument.c, resolve) and the first such look-up
 * of a class registers the class and its methods (class.c, jv_class_id).
 *
 * FirstCallWorkload: ROUNDS rounds of THREADS platform threads released together by a barrier,
 * each calling into a class a fresh class loader has just defined, METHODS static methods called
 * one after the other: while one thread registers the class, the others make their first calls
 * into it.  Under the fx_vthreads monitor (one shadow stack per ThreadID): every exit of those
 * threads has its entry (no orphan exit on a thread the monitor saw created, no exit naming
 * another caller than the frame below), and the entries of round() are exactly THREADS * ROUNDS.
 *
 * The race this catches: a class tagged with its ClassID before its methods were indexed let a
 * second thread find the tag and get MethodID 0 for a method not indexed yet; its entry was
 * dropped, its exit delivered (an orphan exit at the bottom of that thread's stack).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/testkit.h"
#include "support/jvmrun.h"

#define FX_VTHREADS "{3C1E7A52-96B4-4D0F-A17E-5B22C9804F61}"
#define ROUNDS 600
#define THREADS 8
#define METHODS 300

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

#define STR_(x) #x
#define STR(x) STR_(x)

START_TEST(first_calls_on_many_threads_pair_their_entries_and_exits)
{
    const char *jdk = jdks[_i];
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX_VTHREADS,
                         "FXVT_CLASS=FirstCallWorkload.round(", "FXMON_OPTIONS=a", NULL};
    const char *args[] = {STR(ROUNDS), STR(THREADS), STR(METHODS), NULL};
    jvmrun_result r;
    jvmrun_main(jdk, "FirstCallWorkload", "", env, args, &r);
    if (r.exit_code != 0 || !strstr(r.out, "done"))
        printf("exit %d\nstdout:\n%s\nstderr:\n%.4000s\n", r.exit_code, r.out, r.err);
    ck_assert_int_eq(r.exit_code, 0);
    ck_assert_int_eq(jvmrun_count(r.err, "via bytecode instrumentation"), 1);
    /* Each round, each thread: its id plus 0 + 1 + ... + METHODS-1. */
    long long sum = (long long)ROUNDS * (THREADS * (THREADS - 1) / 2 + (long long)THREADS * (METHODS * (METHODS - 1) / 2));
    ck_assert_int_eq(jvmrun_field(r.out, "sum ", "sum "), sum);
    for (const char *p = r.log; p && (p = strstr(p, "-exit ")); p++) { /* what went wrong, if anything did */
        const char *line = p, *end = strchr(p, '\n');
        while (line > r.log && line[-1] != '\n')
            line--;
        printf("%s: %.*s\n", jdk, (int)((end ? end : p + strlen(p)) - line), line);
    }
    const char *summary = strstr(r.log, "\nbad-exits ");
    printf("%s: %.*s\n", jdk, summary ? (int)strcspn(summary + 1, "\n") : 10, summary ? summary + 1 : "no summary");
    fflush(stdout); /* a failed check ends this process without flushing */
    ck_assert_int_eq(jvmrun_field(r.log, "entries FirstCallWorkload.round(", ")I "), ROUNDS * THREADS);
    ck_assert_int_eq(jvmrun_field(r.log, "bad-exits", "bad-exits "), 0);
    ck_assert_int_eq(jvmrun_field(r.log, "bad-exits", "created-orphan-exits "), 0);
    jvmrun_free(&r);
}
END_TEST

int main(void)
{
    if (!(jdk_count = jvmrun_suite_jdks(jdks)))
        return EXIT_SUCCESS;
    Suite *s = suite_create("first_calls");
    TCase *tc = tcase_create("first_calls");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, first_calls_on_many_threads_pair_their_entries_and_exits, 0, jdk_count);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
