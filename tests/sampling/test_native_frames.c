/*
 * test_native_frames.c - jevprof's native frames and the JVM's own threads against a known truth,
 * on every JDK under /usr/lib/jvm, through bin/jevprof (NativeWorkload and its JNI library
 * libjevnative.so, built with frame pointers):
 *
 *   - cpu mode, jni: the main thread spends about 20% of its processor time in the library's
 *     jevnative_spin (called through the native method spinNative) and the rest in Java; the samples
 *     of its measured rounds whose stack goes on below spinNative into native code are the share the
 *     workload measured (its thread's processor time around each call) within 2 points, and
 *     jevnative_spin is named "libjevnative.so`jevnative_spin", one frame wherever in it a sample
 *     falls (no stack is written twice).
 *   - wall mode, jni: the same frame is in the running thread's wall-clock samples.
 *   - cpu mode, sort: the library's qsort comparator, called by the C library's qsort, which keeps
 *     data in the frame-pointer register: the samples below sortNative are unwound through the C
 *     library's frames (call frame information) to the Java frames, not cut where the chain of
 *     frame pointers breaks, and the comparator's frames are one frame per function.
 *   - cpu mode, stubs: a megamorphic interface call, dispatched through the VM's itable stub (code
 *     with no frame of its own): the stub is a frame, "itable stub", under the compiled method
 *     that calls through it, as the Java frames of the stub's caller, of the VM's kind in the flame
 *     graph (tried in Chromium where it is installed, as the sort run's native frame is).
 *   - cpu mode, gc: with System.gc() run again and again over a large live set, the collector's
 *     threads ("GC Thread#0" ...) carry most samples, rooted at their own frame, with the
 *     collector's functions named from libjvm.so.
 *   - cpu mode, syscall, as root: the main thread spends about half its processor time reading
 *     /dev/zero (readZero); the samples of its measured rounds with kernel frames below readZero are
 *     the share the workload measured (its processor time around each read loop) within 3.5 points
 *     and the part of that loop in user space (at most 2 points), each kernel frame named
 *     "function_[k]" (read_zero_[k]) under the C library's read, of the kernel's kind in the flame
 *     graph; with --cstack no or --kstack no there are none, and the report says why.
 *   - cpu mode, syscall, as user nobody where perf_event_paranoid is 2 or more: no kernel frames, and
 *     one report line saying why.
 *   - --cstack no --threads java: neither native frames nor the JVM's own threads, and no libdw loaded.
 *
 * The chance of failing a correct program: the jni run asks for at least 6400 samples of the
 * measured rounds (7 s of processor time at 1 ms); a share of 20% from n samples deviates by
 * sqrt(0.2 * 0.8 / n) = 0.5 points at most (binomial; the timers sample processor time at a fixed
 * period, which deviates less), so 2 points are 4 deviations: below 1 in 15,000.  The gc run's
 * threads carry 95% of the samples measured here; 50% from at least 200 samples is more than 20
 * deviations away.  The syscall run asks for at least 4000 samples of the measured rounds (5 s at
 * 1 ms); a share of about 50% deviates by sqrt(0.25 / 4000) = 0.79 points at most, so 3.5 points are
 * 4.4 deviations: below 1 in 90,000 for each JDK.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/jvmrun.h"
#include "../support/testkit.h"

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

/* Runs NativeWorkload under bin/jevprof with options in a new directory (dir); its collapsed file. */
static char *run(const char *java, const char *options, const char *java_options, const char *workload, char *dir,
                 size_t size)
{
    char arguments[4096], path[1400];
    snprintf(dir, size, "%s", jvmrun_build_path("native.XXXXXX"));
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(arguments, sizeof(arguments),
             "--out '%s' %s -- '%s' %s -Djava.library.path='%s' -cp '%s' NativeWorkload %s", dir, options, java,
             java_options, jvmrun_build_path("java"), jvmrun_build_path("java"), workload);
    ck_assert_int_eq(jvmrun_jevprof_script(arguments), 0);
    snprintf(path, sizeof(path), "%s/jevprof.collapsed", dir);
    char *collapsed = tk_read_file(path);
    ck_assert_msg(collapsed != NULL, "no %s", path);
    return collapsed;
}

/* Runs NativeWorkload's workload (a mode that measures its truth) at 1 ms, as run; the share it
 * measured in *truth. */
static char *run_with_truth(const char *java, const char *workload, double *truth, char *dir, size_t size)
{
    char arguments[1500], truth_path[1400];
    snprintf(truth_path, sizeof(truth_path), "%s", jvmrun_build_path("native-truth.XXXXXX"));
    int fd = mkstemp(truth_path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    snprintf(arguments, sizeof(arguments), "%s '%s'", workload, truth_path);
    char *collapsed = run(java, "--interval 1", "", arguments, dir, size);
    char *truth_text = tk_read_file(truth_path);
    ck_assert_ptr_nonnull(truth_text);
    *truth = strtod(truth_text, NULL);
    free(truth_text);
    remove(truth_path);
    return collapsed;
}

static void remove_run(const char *dir)
{
    static const char *const files[] = {"jevprof-report.txt", "jevprof.collapsed", "jevprof-flame.html",
                                        "jevprof-flame.html.png", "jevprof.pb.gz", "out.txt", "err.txt"};
    char path[1400];
    for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
        remove(path);
    }
    remove(dir);
}

/* The frame of a collapsed line that starts at at (up to ';' or the weight's space) equals frame? */
static int frame_is(const char *at, const char *space, const char *frame)
{
    size_t length = strlen(frame);
    return (size_t)(space - at) >= length && memcmp(at, frame, length) == 0 && (at[length] == ';' || at + length == space);
}

#define KERNEL_AFTER 2

/* Is the frame from at to end a kernel function's ("read_zero_[k]")? */
static int kernel_frame(const char *at, const char *end)
{
    return end - at > 4 && memcmp(end - 4, "_[k]", 4) == 0;
}

typedef struct line_test {
    const char *has;          /* a frame the line must hold (NULL: any line) */
    const char *then;         /* a frame after it (NULL: none asked) */
    int native_after;         /* 1: a native frame (library`function) after those, KERNEL_AFTER: a kernel frame */
    const char *root_prefix;  /* the line's first frame starts so (NULL: any) */
} line_test;

/* The weight of the lines that pass the test. */
static unsigned long long weight(const char *collapsed, const line_test *t)
{
    unsigned long long sum = 0;
    for (const char *line = collapsed; *line;) {
        const char *end = strchr(line, '\n'), *space = end ? memrchr(line, ' ', (size_t)(end - line)) : NULL;
        if (!end)
            break;
        int has = !t->has, then = !t->then, native = !t->native_after;
        int root = !t->root_prefix || (space && strncmp(line, t->root_prefix, strlen(t->root_prefix)) == 0);
        for (const char *at = line; space && at < space;) {
            const char *next = memchr(at, ';', (size_t)(space - at));
            if (!next)
                next = space;
            if (has && then && t->native_after == KERNEL_AFTER && kernel_frame(at, next))
                native = 1;
            else if (has && then && t->native_after == 1 && memchr(at, '`', (size_t)(next - at)))
                native = 1;
            else if (has && !then && frame_is(at, space, t->then))
                then = 1;
            else if (!has && frame_is(at, space, t->has))
                has = 1;
            at = next + 1;
        }
        if (space && has && then && native && root)
            sum += strtoull(space + 1, NULL, 10);
        line = end + 1;
    }
    return sum;
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* How many lines of a collapsed file repeat an earlier line's stack (its frames' names). */
static size_t repeated_stacks(const char *collapsed)
{
    char *copy = strdup(collapsed), **stacks = NULL;
    size_t count = 0, repeated = 0;
    ck_assert_ptr_nonnull(copy);
    for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
        char *space = strrchr(line, ' ');
        if (space)
            *space = '\0';
        stacks = realloc(stacks, (count + 1) * sizeof(*stacks));
        ck_assert_ptr_nonnull(stacks);
        stacks[count++] = line;
    }
    if (count)
        qsort(stacks, count, sizeof(*stacks), by_text);
    for (size_t i = 1; i < count; i++)
        repeated += strcmp(stacks[i - 1], stacks[i]) == 0;
    free(stacks);
    free(copy);
    return repeated;
}

START_TEST(a_jni_library_has_its_share_and_its_name)
{
    char dir[1200];
    double truth;
    char *collapsed = run_with_truth(jdks[_i], "jni 7", &truth, dir, sizeof(dir));
    line_test measured = {"NativeWorkload.measured", NULL, 0, NULL},
              in_library = {"NativeWorkload.measured", "NativeWorkload.spinNative", 1, NULL},
              named = {"NativeWorkload.measured", "libjevnative.so`jevnative_spin", 0, NULL};
    unsigned long long all = weight(collapsed, &measured), native = weight(collapsed, &in_library),
                       spin = weight(collapsed, &named);
    double share = all ? 100.0 * (double)native / (double)all : 0;
    printf("JDK %d, jni: %llu of %llu samples of the measured rounds in native code below spinNative (%.2f%%, truth "
           "%.2f%%), %llu in libjevnative.so`jevnative_spin\n", _i, native, all, share, truth, spin);
    ck_assert_uint_ge(all, 6400);
    ck_assert_msg(truth > 15 && truth < 25, "the workload measured %.2f%% in spinNative, not about 20%%", truth);
    ck_assert_msg(share >= truth - 2 && share <= truth + 2, "native share %.2f%%, not %.2f%% within 2 points", share,
                  truth);
    ck_assert_uint_ge(spin * 10, native * 9); /* the rest: in the clock's read, whose caller a leaf hides */
    /* A function is one frame wherever in it the samples fell: no stack is written twice. */
    ck_assert_uint_eq(repeated_stacks(collapsed), 0);
    free(collapsed);
    remove_run(dir);
}
END_TEST

/* Runs NativeWorkload's workload under jevprof with options (as run), and weighs its samples under
 * the frame within (*all), and those of them with frame after it (*part); the collapsed file. */
static char *weigh(const char *java, const char *options, const char *workload, const char *within, const char *frame,
                   unsigned long long *all, unsigned long long *part, char *dir, size_t size)
{
    char *collapsed = run(java, options, "", workload, dir, size);
    line_test under = {within, NULL, 0, NULL}, with = {within, frame, 0, NULL};
    *all = weight(collapsed, &under);
    *part = weight(collapsed, &with);
    return collapsed;
}

START_TEST(wall_mode_has_native_frames)
{
    char dir[1200];
    unsigned long long all, spin;
    char *collapsed = weigh(jdks[_i], "--mode wall --interval 5", "jni 1.5", "NativeWorkload.measured",
                            "libjevnative.so`jevnative_spin", &all, &spin, dir, sizeof(dir));
    printf("JDK %d, wall: %llu of %llu samples of the measured rounds in libjevnative.so`jevnative_spin\n", _i, spin,
           all);
    ck_assert_uint_ge(all, 200);
    ck_assert_uint_ge(spin * 100, all * 5); /* truth 20%; 5% is 6 deviations below from 200 samples */
    free(collapsed);
    remove_run(dir);
}
END_TEST

START_TEST(a_library_without_frame_pointers_is_unwound_through)
{
    char dir[1200];
    char *collapsed = run(jdks[_i], "--interval 1", "", "sort 2", dir, sizeof(dir));
    line_test sorting = {"NativeWorkload.sortNative", NULL, 0, NULL},
              cut = {"NativeWorkload.sortNative", "(native frames not walked)", 0, NULL},
              through = {"NativeWorkload.sortNative", "libjevnative.so`Java_NativeWorkload_sortNative", 1, NULL};
    unsigned long long all = weight(collapsed, &sorting), stopped = weight(collapsed, &cut),
                       walked = weight(collapsed, &through);
    printf("JDK %d, sort: %llu samples below sortNative, %llu walked from Java_NativeWorkload_sortNative on, %llu cut\n",
           _i, all, walked, stopped);
    fflush(stdout);
    ck_assert_uint_ge(all, 1000); /* 2 s of processor time at 1 ms */
    /* Nearly every sample is in jevnative_compare under qsort; the few elsewhere (the sort's own
     * code, the clock's read) are walked too.  Cut without the unwind: about 90%. */
    ck_assert_uint_ge(walked * 100, all * 95);
    ck_assert_uint_le(stopped * 100, all * 1);
    /* the C library's sort among the frames walked through (a sanitizer's interceptor may come first) */
    ck_assert_ptr_nonnull(strstr(collapsed, ";libc.so.6`qsort_r;"));
    ck_assert_ptr_nonnull(strstr(collapsed, ";libjevnative.so`jevnative_compare;libjevnative.so`jevnative_steps "));
    ck_assert_int_eq(jvmrun_check_flame_graph(dir, "libjevnative.so`jevnative_steps", "native code (C/C++)"), 0);
    free(collapsed);
    remove_run(dir);
}
END_TEST

START_TEST(a_vm_stub_is_a_frame_under_its_java_caller)
{
    char dir[1200];
    unsigned long long all, stub;
    char *collapsed = weigh(jdks[_i], "--interval 1", "stubs 2", "NativeWorkload.dispatch", "itable stub", &all, &stub,
                            dir, sizeof(dir));
    printf("JDK %d, stubs: %llu samples in NativeWorkload.dispatch, %llu of them in its itable stub\n", _i, all, stub);
    fflush(stdout);
    /* 2 s of processor time at 1 ms, about half of it in the profile: AsyncGetCallTrace cannot walk
     * from the first or last instructions of the small compiled methods the stub calls */
    ck_assert_uint_ge(all, 300);
    /* About 70% of the loop's samples are the stub's on both JDKs (measured: 724 of 953, 544 of
     * 700); without the stub's caller every one of them is "(callers unknown)", outside dispatch.
     * 20% from 300 samples is more than 10 deviations below. */
    ck_assert_uint_ge(stub * 100, all * 20);
    ck_assert_int_eq(jvmrun_check_flame_graph(dir, "itable stub", "VM"), 0); /* generated code: the VM's kind */
    free(collapsed);
    remove_run(dir);
}
END_TEST

/* 2 s of the process's processor time, nearly all the collector's, at 5 ms: about 400 samples
 * (a run of 3 s of wall time got 114-189 with stress-ng beside it, fewer than the 200 asked); the
 * collector's threads carry about 90% of them, and half is asked. */
START_TEST(the_collector_threads_carry_a_collection_heavy_program)
{
    char dir[1200];
    char *collapsed = run(jdks[_i], "--interval 5", "-Xmx512m", "gc 2", dir, sizeof(dir));
    line_test any = {NULL, NULL, 0, NULL}, collector = {NULL, NULL, 0, "[GC Thread#"},
              named = {NULL, NULL, 1, "[GC Thread#"};
    unsigned long long all = weight(collapsed, &any), gc = weight(collapsed, &collector),
                       gc_named = weight(collapsed, &named);
    printf("JDK %d, gc: %llu of %llu samples in the collector's threads, %llu with native frames\n", _i, gc, all,
           gc_named);
    ck_assert_uint_ge(all, 200);
    ck_assert_uint_ge(gc * 2, all);
    ck_assert_uint_ge(gc_named * 10, gc * 9);
    /* the default collector's functions, demangled (mangled, they start _ZN): by the libstdc++ the
     * agent loads for the first C++ name, as HotSpot's own C++ runtime is inside libjvm.so */
    ck_assert_ptr_nonnull(strstr(collapsed, ";libjvm.so`G1"));
    char report_path[1400];
    snprintf(report_path, sizeof(report_path), "%s/jevprof-report.txt", dir);
    char *report = tk_read_file(report_path);
    ck_assert_ptr_nonnull(report);
    ck_assert_ptr_nonnull(strstr(report, "Threads by samples"));
    ck_assert_ptr_nonnull(strstr(report, "  JVM   GC Thread#0\n"));
    /* the JVM's threads stay the JVM's in the samples drained after StopCpuSampling took their timers */
    ck_assert_msg(!strstr(report, "  Java  GC Thread#") && !strstr(report, "  Java  VM Thread\n"), "%s", report);
    ck_assert_ptr_nonnull(strstr(report, "could not be walked"));
    free(report);
    free(collapsed);
    remove_run(dir);
}
END_TEST

START_TEST(threads_the_jvm_never_knew_are_sampled_and_never_stop_it)
{
    char dir[1200];
    snprintf(dir, sizeof(dir), "%s", jvmrun_build_path("native.XXXXXX"));
    ck_assert_ptr_nonnull(mkdtemp(dir));
    /* Eight threads of the JNI library's own, in malloc and free nearly all the time, 1 s of processor
     * time each: the JVM's threads are looked for again every 250 ms, so each gets a timer within its
     * first second, and its first sample finds it inside the allocator.  Asking the JVM which thread
     * it is from there (before the fix, 6 runs of 6 here) took the allocator's lock again: the JVM
     * stopped for good, and `timeout` ends it (a failure, not a chance: the program needs 8 s of
     * processor time, which takes a loaded machine well under a minute). */
    int status = jvmrun_shell(dir, NULL, NULL,
                              "timeout -s KILL 240 '%s/bin/jevprof' --out . --interval 1 -- '%s' "
                              "-Djava.library.path='%s' -cp '%s' NativeWorkload offjvm 8 1",
                              jvmrun_source_dir(), jdks[_i], jvmrun_build_path("java"), jvmrun_build_path("java"));
    ck_assert_int_eq(status, 0);
    char path[1400];
    snprintf(path, sizeof(path), "%s/jevprof.collapsed", dir);
    char *collapsed = tk_read_file(path);
    ck_assert_ptr_nonnull(collapsed);
    line_test off_jvm = {NULL, NULL, 0, "[jevnative-alloc];"};
    unsigned long long samples = weight(collapsed, &off_jvm);
    printf("JDK %d, offjvm: %llu samples in the library's own threads\n", _i, samples);
    /* 8,000 intervals of 1 ms of their processor time, less each thread's first 250 ms at most. */
    ck_assert_uint_ge(samples, 4000);
    free(collapsed);
    remove_run(dir);
}
END_TEST

/* The weight of the lines under frame within whose first kernel frame follows a native one (a
 * system call's: "libc.so.6`__read;entry_SYSCALL_64_after_hwframe_[k]"). */
static unsigned long long kernel_under_native(const char *collapsed, const char *within)
{
    unsigned long long sum = 0;
    for (const char *line = collapsed; *line;) {
        const char *end = strchr(line, '\n'), *space = end ? memrchr(line, ' ', (size_t)(end - line)) : NULL;
        if (!end)
            break;
        int inside = 0, after_native = 0;
        for (const char *at = line; space && at < space;) {
            const char *next = memchr(at, ';', (size_t)(space - at));
            if (!next)
                next = space;
            if (inside && kernel_frame(at, next)) {
                if (after_native)
                    sum += strtoull(space + 1, NULL, 10);
                break;
            }
            inside |= frame_is(at, space, within);
            after_native = memchr(at, '`', (size_t)(next - at)) != NULL;
            at = next + 1;
        }
        line = end + 1;
    }
    return sum;
}

/* The kernel's perf_event_paranoid: above 1, a process without CAP_PERFMON or CAP_SYS_ADMIN is given
 * no kernel frames (Debian's default is 2); -1000 where it cannot be read. */
static int perf_event_paranoid(void)
{
    FILE *file = fopen("/proc/sys/kernel/perf_event_paranoid", "r"); /* a size of 0: read as a stream */
    int value = -1000;
    if (file && fscanf(file, "%d", &value) != 1)
        value = -1000;
    if (file)
        fclose(file);
    return value;
}

/* The syscall workload under jevprof with options: no kernel frames, the text expected in the
 * collapsed file, and the report's one line on kernel frames. */
static void no_kernel_frames(const char *java, const char *options, const char *expected, const char *line)
{
    char dir[1200], arguments[256], report_path[1400];
    snprintf(arguments, sizeof(arguments), "--interval 1 %s", options);
    char *collapsed = run(java, arguments, "", "syscall 1", dir, sizeof(dir));
    ck_assert_ptr_null(strstr(collapsed, "_[k]"));
    ck_assert_ptr_nonnull(strstr(collapsed, expected));
    snprintf(report_path, sizeof(report_path), "%s/jevprof-report.txt", dir);
    char *report = tk_read_file(report_path);
    ck_assert_ptr_nonnull(report);
    ck_assert_int_eq(tk_count(report, "Kernel frames:"), 1);
    ck_assert_int_eq(tk_count(report, line), 1);
    free(report);
    free(collapsed);
    remove_run(dir);
}

START_TEST(a_system_call_has_its_kernel_frames_and_their_share)
{
    if (geteuid() != 0) {
        printf("skipped: not root (the kernel frames of a process without CAP_PERFMON depend on the machine)\n");
        return;
    }
    char dir[1200], report_path[1400];
    double truth;
    char *collapsed = run_with_truth(jdks[_i], "syscall 5", &truth, dir, sizeof(dir));
    line_test measured = {"NativeWorkload.syscallMeasured", NULL, 0, NULL},
              in_kernel = {"NativeWorkload.syscallMeasured", "NativeWorkload.readZero", KERNEL_AFTER, NULL},
              any_kernel = {"NativeWorkload.syscallMeasured", NULL, KERNEL_AFTER, NULL},
              named = {"NativeWorkload.syscallMeasured", "read_zero_[k]", 0, NULL};
    unsigned long long all = weight(collapsed, &measured), kernel = weight(collapsed, &in_kernel),
                       kernel_anywhere = weight(collapsed, &any_kernel), read_zero = weight(collapsed, &named),
                       under_native = kernel_under_native(collapsed, "NativeWorkload.syscallMeasured");
    double share = all ? 100.0 * (double)kernel / (double)all : 0;
    printf("JDK %d, syscall: %llu of %llu samples of the measured rounds in the kernel below readZero (%.2f%%, truth "
           "%.2f%%), %llu in read_zero_[k], %llu of %llu in the kernel entered from native code\n",
           _i, kernel, all, share, truth, read_zero, under_native, kernel_anywhere);
    fflush(stdout);
    ck_assert_uint_ge(all, 4000); /* 5 s of processor time at 1 ms */
    ck_assert_msg(truth > 35 && truth < 65, "the workload measured %.2f%% in readZero, not about 50%%", truth);
    /* readZero's processor time is the kernel's but for its own loop, the JNI call and the C library's
     * read wrapper, at most 2 points (1.2 to 1.7 measured); the rest is the binomial deviation. */
    ck_assert_msg(share >= truth - 2 - 3.5 && share <= truth + 3.5, "kernel share %.2f%%, not %.2f%% within 3.5 points",
                  share, truth);
    ck_assert_uint_ge(read_zero * 10, kernel * 5); /* the device's read; the rest: the clock's reads */
    /* system calls (the read, the clock's reads) under their C library functions; the rest: page faults
     * and interrupts in Java code */
    ck_assert_uint_ge(under_native * 100, kernel_anywhere * 95);
    snprintf(report_path, sizeof(report_path), "%s/jevprof-report.txt", dir);
    char *report = tk_read_file(report_path);
    ck_assert_ptr_nonnull(report);
    const char *line = strstr(report, "Kernel frames: ");
    unsigned long long in_kernel_samples = 0, skipped = 0;
    ck_assert_ptr_nonnull(line);
    ck_assert_int_eq(sscanf(line, "Kernel frames: %llu samples in the kernel, its frames named from /proc/kallsyms, "
                                  "%llu ring-buffer records skipped", &in_kernel_samples, &skipped), 2);
    ck_assert_uint_ge(in_kernel_samples, kernel);
    ck_assert_uint_le(skipped * 100, in_kernel_samples); /* none expected: each signal has its record */
    ck_assert_int_eq(jvmrun_check_flame_graph(dir, "read_zero_[k]", "kernel"), 0);
    free(report);
    free(collapsed);
    remove_run(dir);
    /* --cstack no: Java frames only, no kernel frames either; --kstack no: native frames alone */
    no_kernel_frames(jdks[_i], "--cstack no", "NativeWorkload.readZero",
                     "Kernel frames: not taken (no native frames: cstack no)\n");
    no_kernel_frames(jdks[_i], "--kstack no", ";libc.so.6`", "Kernel frames: not taken (kstack no)\n");
}
END_TEST

START_TEST(no_kernel_frames_where_the_kernel_refuses_them)
{
    if (geteuid() != 0 || perf_event_paranoid() < 2) {
        printf("skipped: not root, or perf_event_paranoid below 2 (user nobody may have kernel frames)\n");
        return;
    }
    char dir[1200], path[1400];
    snprintf(dir, sizeof(dir), "%s", jvmrun_build_path("kernel.XXXXXX"));
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(chown(dir, 65534, 65534), 0);
    /* The same program as user nobody (no capabilities): timers count user space only, the profile is
     * as it was before kernel frames, and the report says once why they are missing. */
    int status = jvmrun_shell(dir, NULL, NULL,
                              "setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=. '%s/bin/jevprof' --out . "
                              "--interval 1 -- '%s' -cp '%s' NativeWorkload syscall 1",
                              jvmrun_source_dir(), jdks[_i], jvmrun_build_path("java"));
    ck_assert_int_eq(status, 0);
    snprintf(path, sizeof(path), "%s/jevprof.collapsed", dir);
    char *collapsed = tk_read_file(path);
    ck_assert_ptr_nonnull(collapsed);
    ck_assert_ptr_null(strstr(collapsed, "_[k]"));
    ck_assert_ptr_nonnull(strstr(collapsed, "NativeWorkload.syscallMeasured"));
    ck_assert_ptr_nonnull(strstr(collapsed, "`")); /* native frames as ever */
    snprintf(path, sizeof(path), "%s/jevprof-report.txt", dir);
    char *report = tk_read_file(path);
    ck_assert_ptr_nonnull(report);
    ck_assert_int_eq(tk_count(report, "Kernel frames:"), 1);
    ck_assert_int_eq(tk_count(report, "Kernel frames: not taken: the kernel refuses them to this process "
                                      "(perf_event_paranoid above 1, without CAP_PERFMON or CAP_SYS_ADMIN)\n"),
                     1);
    free(report);
    free(collapsed);
    remove_run(dir);
}
END_TEST

START_TEST(java_frames_and_threads_only_when_asked)
{
    char dir[1200], options[1500], maps_path[1400];
    snprintf(maps_path, sizeof(maps_path), "%s", jvmrun_build_path("native-maps.XXXXXX"));
    int fd = mkstemp(maps_path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    snprintf(options, sizeof(options), "-Xmx512m -Dnative.maps='%s'", maps_path);
    char *collapsed = run(jdks[_i], "--interval 5 --cstack no --threads java", options, "gc 1", dir, sizeof(dir));
    ck_assert_ptr_null(strstr(collapsed, "`"));
    ck_assert_ptr_null(strstr(collapsed, "[GC Thread#"));
    ck_assert_ptr_nonnull(strstr(collapsed, "NativeWorkload.main"));
    /* No native frame is unwound, so the unwinder's libdw (and the libraries it brings) was never loaded. */
    char *maps = tk_read_file(maps_path);
    ck_assert_ptr_nonnull(maps);
    ck_assert_ptr_nonnull(strstr(maps, "libjevmon.so"));
    ck_assert_msg(strstr(maps, "/libdw") == NULL, "libdw is mapped in a JVM that walked no native frame");
    free(maps);
    remove(maps_path);
    free(collapsed);
    remove_run(dir);
}
END_TEST

int main(void)
{
    if ((jdk_count = jvmrun_suite_jdks(jdks)) == 0)
        return 0;
    Suite *s = suite_create("native_frames");
    TCase *tc = tcase_create("truth");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, a_jni_library_has_its_share_and_its_name, 0, jdk_count);
    tcase_add_loop_test(tc, wall_mode_has_native_frames, 0, jdk_count);
    tcase_add_loop_test(tc, a_library_without_frame_pointers_is_unwound_through, 0, jdk_count);
    tcase_add_loop_test(tc, a_vm_stub_is_a_frame_under_its_java_caller, 0, jdk_count);
    tcase_add_loop_test(tc, the_collector_threads_carry_a_collection_heavy_program, 0, jdk_count);
    tcase_add_loop_test(tc, threads_the_jvm_never_knew_are_sampled_and_never_stop_it, 0, jdk_count);
    tcase_add_loop_test(tc, a_system_call_has_its_kernel_frames_and_their_share, 0, jdk_count);
    tcase_add_loop_test(tc, no_kernel_frames_where_the_kernel_refuses_them, 0, jdk_count);
    tcase_add_loop_test(tc, java_frames_and_threads_only_when_asked, 0, jdk_count);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
