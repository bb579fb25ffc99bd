/*
 * test_jevprof_monitor.c - the jevprof COM server driven as the VM drives it, with a fake
 * VM (jevprof_monitor/fake_vm.c) instead of a JVM: class factory, Initialize (categories,
 * initialization options), method calls on several threads (one ends itself, one is ended
 * by another thread), an exception unwind, exceptions by class, a class unloading, GCs,
 * the sampler on a 1 ms timer, then SHUTDOWN and the files it leaves.  Also: blocked
 * threads are not profiled, a sample without a stack keeps its method under "(callers
 * unknown)", and a VM whose every call fails costs nothing but names.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../monitor/jevprof.h"
#include "../../monitor/output.h"
#include "jevprof_monitor/fake_vm.h"
#include "platform/platform.h"

static char out_dir[1024];
static char logged[8192];
static fake_vm vm;

static void capture_log(const char *line, void *context)
{
    (void)context;
    size_t used = strlen(logged);
    snprintf(logged + used, sizeof(logged) - used, "%s\n", line);
}

/* The directory of this test program: the outputs go there. */
static void find_out_dir(void)
{
    char *self = plat_module_path((const void *)find_out_dir);
    ck_assert_ptr_nonnull(self);
    snprintf(out_dir, sizeof(out_dir), "%s", self);
    free(self);
    char *slash = strrchr(out_dir, '/'), *backslash = strrchr(out_dir, '\\');
    *(slash > backslash ? slash : backslash) = '\0';
}

static char *read_output(const char *file_name)
{
    char path[1200];
    snprintf(path, sizeof(path), "%s/%s", out_dir, file_name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    char *text = malloc((size_t)size + 1);
    size_t got = fread(text, 1, (size_t)size, f);
    text[got] = '\0';
    fclose(f);
    return text;
}

static void remove_outputs(void)
{
    static const char *const files[] = {JP_REPORT_FILE, JP_COLLAPSED_FILE, JP_FLAME_FILE, JP_CALLS_COLLAPSED_FILE,
                                        JP_CALLS_FLAME_FILE};
    char path[1200];
    for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
        snprintf(path, sizeof(path), "%s/%s", out_dir, files[i]);
        remove(path);
    }
}

static void setup(void)
{
    char path[1200];
    find_out_dir();
    remove_outputs();
    snprintf(path, sizeof(path), "%s/jevprof-monitor-test-none.reg", out_dir); /* no registry settings */
    plat_setenv("JEVMON_REGISTRY_SYSTEM", path);
    plat_setenv("JEVPROF_OUTPUT_DIR", out_dir);
    plat_setenv("JEVPROF_INTERVAL_MS", "1");
    plat_setenv("JEVPROF_TOP", "5");
    logged[0] = '\0';
    jv_log_set_sink(capture_log, NULL);
    fake_vm_init(&vm);
}

static void teardown(void)
{
    jv_log_set_sink(NULL, NULL);
    fake_vm_set_current_thread(0);
    static const char *const variables[] = {"JEVMON_REGISTRY_SYSTEM", "JEVPROF_OUTPUT_DIR", "JEVPROF_INTERVAL_MS",
                                            "JEVPROF_TOP", "JEVPROF_MODE"};
    for (size_t i = 0; i < sizeof(variables) / sizeof(*variables); i++)
        plat_setenv(variables[i], NULL);
}

static IJavaEventMonitor2 *create_monitor(void)
{
    IClassFactory *factory = NULL;
    IJavaEventMonitor2 *monitor = NULL;
    ck_assert_int_eq(DllGetClassObject(&CLSID_JevProf, &IID_IClassFactory, (void **)&factory), S_OK);
    ck_assert_int_eq(IClassFactory_CreateInstance(factory, NULL, &IID_IJavaEventMonitor2, (void **)&monitor), S_OK);
    IClassFactory_Release(factory);
    vm.monitor = monitor;
    return monitor;
}

static DWORD initialize(IJavaEventMonitor2 *monitor)
{
    DWORD requested = 0, possible = 0;
    ck_assert_int_eq(IJavaEventMonitor2_Initialize(monitor, "demo/Main",
                                                   (IJavaEventMonitorIDInfo *)&vm.IJavaEventMonitorIDInfo4_iface,
                                                   JVM_STATE_INTERPRETER_ENABLED | JVM_STATE_JIT_COMPILER_ENABLED,
                                                   &requested),
                     S_OK);
    ck_assert_int_eq(IJavaEventMonitor2_GetPossibleEventCategories(monitor, &possible), S_OK);
    ck_assert_uint_eq(possible, requested);
    return requested;
}

static void wait_for_stack_traces(int count)
{
    for (int waited = 0; atomic_load(&vm.stack_traces) < count && waited < 10000; waited += 5)
        plat_sleep_ms(5);
    ck_assert_int_ge(atomic_load(&vm.stack_traces), count);
}

static void finish(IJavaEventMonitor2 *monitor)
{
    ck_assert_int_eq(IJavaEventMonitor2_NotifyEvent(monitor, JVM_EVENT_TYPE_SHUTDOWN, 0), S_OK);
    ck_assert_uint_eq(IJavaEventMonitor2_Release(monitor), 0);
    ck_assert_int_eq((int)atomic_load(&vm.ref), 1); /* every reference jevprof took is given back */
    ck_assert_int_eq(DllCanUnloadNow(), S_OK);
}

static void set_stack(int slot, ThreadID thread, const MethodID *frames, int count, int blocking)
{
    vm.stacks[slot].thread = thread;
    memcpy(vm.stacks[slot].frames, frames, (size_t)count * sizeof(*frames));
    vm.stacks[slot].count = count;
    vm.stacks[slot].blocking = blocking;
}

/* A worker thread: main -> (method) for 5 ms; the thread ends itself when told to. */
typedef struct worker {
    IJavaEventMonitor2 *monitor;
    ThreadID thread;
    MethodID method;
    int announces_its_end;
} worker;

static void worker_main(void *arg)
{
    worker *w = arg;
    fake_vm_set_current_thread(w->thread);
    IJavaEventMonitor2_MethodEntry(w->monitor, FAKE_MAIN, 101);
    IJavaEventMonitor2_MethodEntry(w->monitor, w->method, 102);
    plat_sleep_ms(5);
    IJavaEventMonitor2_MethodExit2(w->monitor, FAKE_MAIN, 101);
    if (w->announces_its_end)
        IJavaEventMonitor2_NotifyEvent(w->monitor, JVM_EVENT_TYPE_THREAD_DESTROY, w->thread);
}

static void run_worker(IJavaEventMonitor2 *monitor, ThreadID thread, MethodID method, int announces_its_end)
{
    worker w = {monitor, thread, method, announces_its_end};
    IJavaEventMonitor2_NotifyEvent(monitor, JVM_EVENT_TYPE_THREAD_CREATE, thread);
    plat_thread *t = plat_thread_start(worker_main, &w);
    ck_assert_ptr_nonnull(t);
    plat_thread_join(t);
}

START_TEST(both_modes_from_initialize_to_the_files)
{
    const MethodID running[] = {FAKE_MAIN, FAKE_WORK, FAKE_HOT};
    set_stack(0, 0x10, running, 3, 0);
    plat_setenv("JEVPROF_MODE", "both");
    IJavaEventMonitor2 *monitor = create_monitor();
    DWORD requested = initialize(monitor);
    const DWORD wanted = JVM_MONITOR_METHOD_CALLS | JVM_MONITOR_SAMPLING | JVM_MONITOR_THREADS |
                         JVM_MONITOR_EXCEPTIONS | JVM_MONITOR_GARBAGE_COLLECTIONS | JVM_MONITOR_CLASS_LOADS;
    ck_assert_uint_eq(requested, wanted);
    ck_assert_uint_eq(vm.options, ALL_JVM_INIT_OPTIONS);

    /* The main thread, announced by no THREAD_CREATE, is found at INITIALIZED. */
    fake_vm_set_current_thread(0x10);
    IJavaEventMonitor2_NotifyEvent2(monitor, JVM_EVENT_TYPE2_INITIALIZED, 0, 0);
    IJavaEventMonitor2_NotifyEvent(monitor, JVM_EVENT_TYPE_CLASS_LOAD_FINISHED, 3000);
    IJavaEventMonitor2_NotifyEvent(monitor, JVM_EVENT_TYPE_CLASS_LOAD_FINISHED, FAKE_GONE_CLASS);

    /* main -> work -> hot (20 ms); hot throws, caught in main: one exit back to main's frame */
    IJavaEventMonitor2_MethodEntry(monitor, FAKE_MAIN, 101);
    IJavaEventMonitor2_MethodEntry(monitor, FAKE_WORK, 102);
    IJavaEventMonitor2_MethodEntry(monitor, FAKE_HOT, 103);
    plat_sleep_ms(20);
    IJavaEventMonitor2_NotifyEvent2(monitor, JVM_EVENT_TYPE2_EXCEPTION_THROWN, 103, FAKE_EXCEPTION_OBJECT);
    IJavaEventMonitor2_NotifyEvent2(monitor, JVM_EVENT_TYPE2_EXCEPTION_THROWN, 103, FAKE_EXCEPTION_OBJECT);
    IJavaEventMonitor2_MethodExit2(monitor, FAKE_MAIN, 101);
    /* main -> demo.Gone.run, whose class then unloads */
    IJavaEventMonitor2_MethodEntry(monitor, FAKE_GONE_RUN, 102);
    plat_sleep_ms(1); /* long enough to make a line of the collapsed file, in microseconds */
    IJavaEventMonitor2_MethodExit2(monitor, FAKE_MAIN, 101);
    IJavaEventMonitor2_NotifyEvent(monitor, JVM_EVENT_TYPE_CLASS_UNLOAD, FAKE_GONE_CLASS);
    vm.unloaded_class = 1;
    IJavaEventMonitor2_NotifyEvent(monitor, JVM_EVENT_TYPE_GC_STARTED, 0);
    plat_sleep_ms(2);
    IJavaEventMonitor2_NotifyEvent(monitor, JVM_EVENT_TYPE_GC_FINISHED, 0);

    run_worker(monitor, 0x20, FAKE_HOT, 1);
    run_worker(monitor, 0x40, FAKE_COLD, 0);
    IJavaEventMonitor2_NotifyEvent(monitor, JVM_EVENT_TYPE_THREAD_DESTROY, 0x40); /* from another thread */
    wait_for_stack_traces(5);
    finish(monitor);

    char *report = read_output(JP_REPORT_FILE), *collapsed = read_output(JP_COLLAPSED_FILE);
    char *calls = read_output(JP_CALLS_COLLAPSED_FILE), *flame = read_output(JP_FLAME_FILE);
    char *calls_flame = read_output(JP_CALLS_FLAME_FILE);
    ck_assert_ptr_nonnull(report);
    ck_assert_ptr_nonnull(collapsed);
    ck_assert_ptr_nonnull(calls);
    ck_assert_ptr_nonnull(flame);
    ck_assert_ptr_nonnull(calls_flame);
    ck_assert_ptr_nonnull(strstr(report, "Program: demo/Main"));
    ck_assert_ptr_nonnull(strstr(report, "Mode: both, a sample every 1 ms"));
    ck_assert_ptr_nonnull(strstr(report, "demo.Gone.run")); /* named before its class unloaded */
    ck_assert_ptr_nonnull(strstr(report, "Classes loaded: 2 (unloaded: 1)"));
    ck_assert_ptr_nonnull(strstr(report, "Garbage collections: 1,"));
    ck_assert_ptr_nonnull(strstr(report, "Threads: 2 created, 2 ended, at most 1 live"));
    ck_assert_ptr_nonnull(strstr(report, "Exceptions thrown: 2\n"));
    ck_assert_ptr_nonnull(strstr(report, "             2  demo.Oops\n"));
    ck_assert_ptr_nonnull(strstr(collapsed, "demo.Main.main;demo.Main.work;demo.Main.hot "));
    ck_assert_ptr_null(strstr(collapsed, "<unknown"));
    /* calls: hot ran 20 ms under work, 5 ms directly under main (thread 0x20); cold 5 ms (0x40) */
    const char *hot_line = strstr(calls, "demo.Main.main;demo.Main.work;demo.Main.hot ");
    ck_assert_ptr_nonnull(hot_line);
    ck_assert_int_ge(atol(strchr(hot_line, ' ') + 1), 19000);
    ck_assert_ptr_nonnull(strstr(calls, "demo.Main.main;demo.Main.hot "));
    ck_assert_ptr_nonnull(strstr(calls, "demo.Main.main;demo.Main.cold "));
    ck_assert_ptr_nonnull(strstr(calls, "demo.Main.main;demo.Gone.run "));
    ck_assert_ptr_nonnull(strstr(flame, "\"demo.Main.hot\""));
    ck_assert_ptr_nonnull(strstr(logged, "jevprof: wrote "));
    ck_assert_ptr_nonnull(strstr(logged, "self  demo.Main.hot"));
    free(report), free(collapsed), free(calls), free(flame), free(calls_flame);
}
END_TEST

START_TEST(blocked_threads_are_counted_idle_not_profiled)
{
    const MethodID running[] = {FAKE_MAIN, FAKE_HOT}, waiting[] = {FAKE_MAIN, FAKE_COLD};
    set_stack(0, 0x10, running, 2, 0);
    set_stack(1, 0x30, waiting, 2, 1);
    vm.sample_location = 1;
    IJavaEventMonitor2 *monitor = create_monitor(); /* the default mode: sample */
    ck_assert_uint_eq(initialize(monitor) & JVM_MONITOR_METHOD_CALLS, 0);
    IJavaEventMonitor2_NotifyEvent(monitor, JVM_EVENT_TYPE_THREAD_CREATE, 0x10);
    IJavaEventMonitor2_NotifyEvent(monitor, JVM_EVENT_TYPE_THREAD_CREATE, 0x30);
    wait_for_stack_traces(5);
    IJavaEventMonitor2_NotifyEvent(monitor, JVM_EVENT_TYPE_THREAD_DESTROY, 0x30);
    finish(monitor);
    char *collapsed = read_output(JP_COLLAPSED_FILE), *report = read_output(JP_REPORT_FILE);
    ck_assert_ptr_nonnull(strstr(collapsed, "demo.Main.main;demo.Main.hot "));
    ck_assert_ptr_null(strstr(collapsed, "cold"));
    ck_assert_ptr_null(read_output(JP_CALLS_COLLAPSED_FILE));
    ck_assert_ptr_null(strstr(report, " 0 idle"));
    free(collapsed), free(report);
}
END_TEST

START_TEST(without_stacks_the_located_method_is_kept_under_unknown_callers)
{
    const MethodID running[] = {FAKE_MAIN, FAKE_HOT};
    set_stack(0, 0x10, running, 2, 0);
    vm.sample_location = 1;
    vm.stack_trace_fails = 1;
    IJavaEventMonitor2 *monitor = create_monitor();
    initialize(monitor);
    IJavaEventMonitor2_NotifyEvent(monitor, JVM_EVENT_TYPE_THREAD_CREATE, 0x10);
    wait_for_stack_traces(3);
    finish(monitor);
    char *collapsed = read_output(JP_COLLAPSED_FILE);
    ck_assert_ptr_nonnull(strstr(collapsed, "(callers unknown);demo.Main.hot "));
    ck_assert_ptr_null(strstr(collapsed, "demo.Main.main"));
    free(collapsed);
}
END_TEST

START_TEST(a_vm_whose_every_call_fails_costs_only_names)
{
    const MethodID running[] = {FAKE_MAIN};
    set_stack(0, 0x10, running, 1, 0);
    vm.fail_everything = 1;
    plat_setenv("JEVPROF_MODE", "both");
    IJavaEventMonitor2 *monitor = create_monitor();
    initialize(monitor);
    IJavaEventMonitor2_NotifyEvent(monitor, JVM_EVENT_TYPE_THREAD_CREATE, 0x10);
    IJavaEventMonitor2_MethodEntry(monitor, FAKE_MAIN, 101);
    IJavaEventMonitor2_NotifyEvent2(monitor, JVM_EVENT_TYPE2_EXCEPTION_THROWN, 101, FAKE_EXCEPTION_OBJECT);
    IJavaEventMonitor2_NotifyEvent(monitor, JVM_EVENT_TYPE_CLASS_UNLOAD, FAKE_GONE_CLASS);
    plat_sleep_ms(10);
    IJavaEventMonitor2_NotifyEvent(monitor, JVM_EVENT_TYPE_THREAD_DESTROY, 0x10);
    /* the outermost frame never returned: it ends at SHUTDOWN */
    finish(monitor);
    char *report = read_output(JP_REPORT_FILE), *calls = read_output(JP_CALLS_COLLAPSED_FILE);
    ck_assert_ptr_nonnull(strstr(report, "<unknown class>"));
    ck_assert_ptr_nonnull(strstr(report, "failed"));
    ck_assert_ptr_nonnull(strstr(calls, "<unknown method 0x1> "));
    free(report), free(calls);
}
END_TEST

START_TEST(unwritable_output_directory_is_one_line_per_file)
{
    plat_setenv("JEVPROF_OUTPUT_DIR", "/nonexistent-jevprof-dir/sub");
    IJavaEventMonitor2 *monitor = create_monitor();
    initialize(monitor);
    finish(monitor);
    ck_assert_ptr_nonnull(strstr(logged, "jevprof: cannot write /nonexistent-jevprof-dir/sub/jevprof-report.txt"));
    ck_assert_ptr_nonnull(strstr(logged, "jevprof: wrote what it could of"));
}
END_TEST

START_TEST(factory_refuses_aggregation_and_unknown_classes)
{
    IClassFactory *factory = NULL;
    void *object = (void *)1;
    ck_assert_int_eq(DllGetClassObject(&IID_IUnknown, &IID_IClassFactory, &object), CLASS_E_CLASSNOTAVAILABLE);
    ck_assert_ptr_null(object);
    ck_assert_int_eq(DllGetClassObject(&CLSID_JevProf, &IID_IClassFactory, (void **)&factory), S_OK);
    ck_assert_int_eq(DllCanUnloadNow(), S_FALSE);
    ck_assert_int_eq(IClassFactory_CreateInstance(factory, (IUnknown *)factory, &IID_IUnknown, &object),
                     CLASS_E_NOAGGREGATION);
    ck_assert_int_eq(IClassFactory_CreateInstance(factory, NULL, &IID_IClassFactory, &object), E_NOINTERFACE);
    ck_assert_int_eq(IClassFactory_CreateInstance(factory, NULL, &IID_IJavaEventMonitor, &object), S_OK);
    IUnknown_Release((IUnknown *)object);
    IClassFactory_Release(factory);
    ck_assert_int_eq(DllCanUnloadNow(), S_OK);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("jevprof_monitor");
    TCase *tc = tcase_create("monitor");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, both_modes_from_initialize_to_the_files);
    tcase_add_test(tc, blocked_threads_are_counted_idle_not_profiled);
    tcase_add_test(tc, without_stacks_the_located_method_is_kept_under_unknown_callers);
    tcase_add_test(tc, a_vm_whose_every_call_fails_costs_only_names);
    tcase_add_test(tc, unwritable_output_directory_is_one_line_per_file);
    tcase_add_test(tc, factory_refuses_aggregation_and_unknown_classes);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
