/*
 * test_capabilities.c - which JVMTI capabilities the bridge asks for, by the categories its
 * monitors may ask for (jv_setup_capabilities).  Some capabilities cost the program while
 * merely held, events on or off: with can_generate_exception_events, _frame_pop_events or
 * _method_exit_events HotSpot's compiled code leaves every exception it throws and catches to
 * the runtime (a quarter more processor time for javac, measured).  So only the categories
 * that deliver exceptions or method calls may hold them: a sampling profiler's categories
 * (jevprof: class loads, collections, threads, samples) must not.  No JVM needed, so it runs
 * on every target.
 */
#include <check.h>
#include <string.h>

#include "agent/jvmti_setup.h"
#include "../support/testkit.h"

/* Does caps hold a capability that slows every throw of the program? */
static int slows_throws(const jvmtiCapabilities *caps)
{
    return caps->can_generate_exception_events || caps->can_generate_frame_pop_events ||
           caps->can_generate_method_exit_events || caps->can_generate_single_step_events;
}

START_TEST(categories_without_exceptions_hold_nothing_that_slows_throws)
{
    static const DWORD quiet[] = {JVM_MONITOR_CLASS_LOADS, JVM_MONITOR_THREADS, JVM_MONITOR_GARBAGE_COLLECTIONS,
                                  JVM_MONITOR_SAMPLING, JVM_MONITOR_JIT_COMPILATION,
                                  JVM_MONITOR_CLASS_LOADS | JVM_MONITOR_THREADS | JVM_MONITOR_GARBAGE_COLLECTIONS |
                                      JVM_MONITOR_SAMPLING | JVM_MONITOR_JIT_COMPILATION};
    for (size_t i = 0; i < sizeof(quiet) / sizeof(*quiet); i++) {
        jvmtiCapabilities caps;
        jv_setup_capabilities(quiet[i], &caps);
        ck_assert_msg(!slows_throws(&caps), "categories 0x%x hold a capability that slows every throw",
                      (unsigned)quiet[i]);
    }
}
END_TEST

/* Capabilities with every bit set but the ones named false. */
static jvmtiCapabilities potential(int retransform)
{
    jvmtiCapabilities caps;
    memset(&caps, 0xff, sizeof(caps));
    caps.can_retransform_classes = retransform ? 1 : 0;
    return caps;
}

/*
 * Breakpoints and access to locals cost every program while merely held: HotSpot's C2 keeps every
 * local variable alive in compiled code (javac: a C2 arena of 162 MB instead of 36 MB).  Where the
 * JVM can retransform classes, thread renames and failed loads are seen by rewriting
 * (instrument/watch.h), so a sampling profiler's categories (jevprof's) need neither.
 */
START_TEST(class_loads_and_threads_rewrite_where_the_jvm_can_retransform)
{
    static const DWORD profiler = JVM_MONITOR_THREADS | JVM_MONITOR_CLASS_LOADS | JVM_MONITOR_SAMPLING |
                                  JVM_MONITOR_GARBAGE_COLLECTIONS;
    jvmtiCapabilities offered = potential(1), caps;
    jv_setup_set_potential(&offered);
    static const DWORD each[] = {JVM_MONITOR_THREADS, JVM_MONITOR_CLASS_LOADS, profiler};
    for (size_t i = 0; i < sizeof(each) / sizeof(*each); i++) {
        jv_setup_capabilities(each[i], &caps);
        ck_assert_msg(!caps.can_generate_breakpoint_events && !caps.can_access_local_variables,
                      "categories 0x%x hold breakpoints or access to locals", (unsigned)each[i]);
        ck_assert(caps.can_retransform_classes);
        ck_assert(jv_setup_deliverable(&caps) & JVM_MONITOR_THREADS);
    }
    jv_setup_capabilities(JVM_MONITOR_CLASS_LOADS, &caps);
    ck_assert(jv_setup_deliverable(&caps) & JVM_MONITOR_CLASS_LOADS);
}
END_TEST

/* A JVM that cannot retransform: breakpoints (Thread.setName's returns, the failures'
 * constructors) and the constructor's message parameter, as before. */
START_TEST(class_loads_and_threads_use_breakpoints_where_it_cannot)
{
    jvmtiCapabilities offered = potential(0), caps;
    jv_setup_set_potential(&offered);
    jv_setup_capabilities(JVM_MONITOR_CLASS_LOADS, &caps);
    ck_assert(caps.can_generate_breakpoint_events && caps.can_access_local_variables &&
              caps.can_generate_object_free_events);
    jv_setup_capabilities(JVM_MONITOR_THREADS, &caps);
    ck_assert(caps.can_generate_breakpoint_events && !caps.can_retransform_classes);
}
END_TEST

/* The categories that do deliver exceptions or method calls still get what they need. */
START_TEST(exceptions_and_method_calls_keep_their_capabilities)
{
    jvmtiCapabilities caps;
    jv_setup_capabilities(JVM_MONITOR_EXCEPTIONS, &caps);
    ck_assert(caps.can_generate_exception_events);
    jv_setup_capabilities(JVM_MONITOR_EXCEPTION_UNWIND, &caps);
    ck_assert(caps.can_generate_exception_events && caps.can_generate_method_exit_events);
    jv_setup_capabilities(JVM_MONITOR_METHOD_CALLS, &caps);
    ck_assert(caps.can_generate_method_entry_events && caps.can_generate_method_exit_events);
    ck_assert(jv_setup_deliverable(&caps) & JVM_MONITOR_METHOD_CALLS);
    jv_setup_capabilities(JVM_MONITOR_CLASS_LOADS | JVM_MONITOR_EXCEPTIONS, &caps);
    ck_assert(jv_setup_deliverable(&caps) & JVM_MONITOR_CLASS_LOADS);
    ck_assert(jv_setup_deliverable(&caps) & JVM_MONITOR_EXCEPTIONS);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("capabilities");
    TCase *tc = tcase_create("capabilities");
    tcase_add_test(tc, categories_without_exceptions_hold_nothing_that_slows_throws);
    tcase_add_test(tc, class_loads_and_threads_rewrite_where_the_jvm_can_retransform);
    tcase_add_test(tc, class_loads_and_threads_use_breakpoints_where_it_cannot);
    tcase_add_test(tc, exceptions_and_method_calls_keep_their_capabilities);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
