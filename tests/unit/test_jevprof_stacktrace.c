/*
 * test_jevprof_stacktrace.c - taking one stack with GetStackTrace (monitor/stacktrace.c): the
 * frames the VM reports on the calling thread while GetStackTrace runs go to the stack being
 * taken, outermost first; frames reported through another IDInfo, or when no stack is being
 * taken, are not taken; a stack asked for while one is being taken is refused; a stack deeper
 * than JP_MAX_STACK_FRAMES keeps its outermost frames.  The VM is a stand-in whose
 * GetStackTrace reports what each test sets, as the bridge does, through the same entry point
 * the monitor's NotifyEvent2(STACK_TRACE) calls.
 */
#include <check.h>
#include <string.h>

#include "../../monitor/stacktrace.h"
#include "../support/testkit.h"

static size_t frames_to_report;   /* frames 1, 2, ... outermost first */
static HRESULT result_to_return;
static int frames_taken;          /* how many of them jp_stack_trace_on_frame took */
static int refused_through_other; /* frames reported through another IDInfo that were taken */
static HRESULT nested_take;       /* what a stack asked for from inside GetStackTrace got */
static int ask_nested;
static IJavaEventMonitorIDInfo2 vm, other_vm;

static HRESULT STDMETHODCALLTYPE vm_GetStackTrace(IJavaEventMonitorIDInfo2 *iface, ThreadID thread)
{
    (void)thread;
    for (size_t i = 0; i < frames_to_report; i++) {
        frames_taken += jp_stack_trace_on_frame(iface, (MethodID)(i + 1));
        refused_through_other += jp_stack_trace_on_frame(&other_vm, 999);
    }
    if (ask_nested) {
        jp_stack_trace nested;
        ck_assert_int_eq(jp_stack_trace_init(&nested), 0);
        nested_take = jp_stack_trace_take(&nested, iface, 0);
        jp_stack_trace_free(&nested);
    }
    return result_to_return;
}

static const IJavaEventMonitorIDInfo2Vtbl vm_vtbl = {.GetStackTrace = vm_GetStackTrace};

static jp_stack_trace trace;

static void setup(void)
{
    vm.lpVtbl = &vm_vtbl;
    other_vm.lpVtbl = &vm_vtbl;
    frames_to_report = 0;
    result_to_return = S_OK;
    frames_taken = refused_through_other = ask_nested = 0;
    nested_take = S_OK;
    ck_assert_int_eq(jp_stack_trace_init(&trace), 0);
}

static void teardown(void)
{
    jp_stack_trace_free(&trace);
}

START_TEST(frames_arrive_outermost_first)
{
    frames_to_report = 3;
    ck_assert_int_eq(jp_stack_trace_take(&trace, &vm, 0), S_OK);
    ck_assert_uint_eq(trace.count, 3);
    ck_assert_int_eq(frames_taken, 3);
    for (size_t i = 0; i < 3; i++)
        ck_assert_uint_eq(trace.frames[i], i + 1);
    ck_assert_int_eq(trace.truncated, 0);
    /* taking again replaces the frames */
    frames_to_report = 1;
    ck_assert_int_eq(jp_stack_trace_take(&trace, &vm, 0), S_OK);
    ck_assert_uint_eq(trace.count, 1);
}
END_TEST

START_TEST(frames_not_asked_for_are_not_taken)
{
    frames_to_report = 2;
    ck_assert_int_eq(jp_stack_trace_take(&trace, &vm, 0), S_OK);
    ck_assert_int_eq(refused_through_other, 0);
    ck_assert_uint_eq(trace.count, 2);
    ck_assert_int_eq(jp_stack_trace_on_frame(&vm, 7), 0); /* no stack is being taken now */
    ck_assert_uint_eq(trace.count, 2);
}
END_TEST

START_TEST(a_stack_within_a_stack_is_refused)
{
    frames_to_report = 2;
    ask_nested = 1;
    ck_assert_int_eq(jp_stack_trace_take(&trace, &vm, 0), S_OK);
    ck_assert_int_eq(nested_take, E_UNEXPECTED);
    ck_assert_uint_eq(trace.count, 2);
    ask_nested = 0;
    ck_assert_int_eq(jp_stack_trace_take(&trace, &vm, 0), S_OK); /* and the next one is taken */
}
END_TEST

START_TEST(a_failure_is_passed_on)
{
    result_to_return = E_FAIL;
    ck_assert_int_eq(jp_stack_trace_take(&trace, &vm, 0), E_FAIL);
    ck_assert_uint_eq(trace.count, 0);
}
END_TEST

START_TEST(a_deep_stack_keeps_its_outermost_frames)
{
    frames_to_report = JP_MAX_STACK_FRAMES + 10;
    ck_assert_int_eq(jp_stack_trace_take(&trace, &vm, 0), S_OK);
    ck_assert_uint_eq(trace.count, JP_MAX_STACK_FRAMES);
    ck_assert_int_eq(trace.truncated, 1);
    ck_assert_uint_eq(trace.frames[0], 1);
    ck_assert_uint_eq(trace.frames[JP_MAX_STACK_FRAMES - 1], JP_MAX_STACK_FRAMES);
    ck_assert_int_eq(frames_taken, JP_MAX_STACK_FRAMES + 10); /* all of them were this stack's */
    ck_assert_int_eq(jp_stack_trace_push(&trace, 1), 0);
    frames_to_report = 1;
    ck_assert_int_eq(jp_stack_trace_take(&trace, &vm, 0), S_OK);
    ck_assert_int_eq(trace.truncated, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("jevprof_stacktrace");
    TCase *tc = tcase_create("stacktrace");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, frames_arrive_outermost_first);
    tcase_add_test(tc, frames_not_asked_for_are_not_taken);
    tcase_add_test(tc, a_stack_within_a_stack_is_refused);
    tcase_add_test(tc, a_failure_is_passed_on);
    tcase_add_test(tc, a_deep_stack_keeps_its_outermost_frames);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
