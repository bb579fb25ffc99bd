/*
 * test_jevprof.c - jevprof end to end on real JVMs (every JDK under /usr/lib/jvm): the bridge
 * loads it from MSJAVA_EVENT_MONITORS, it profiles samples/java/Workload.java, and its files
 * must show what that program is known to do: 8 workers, Workload.hot doing 4/5 of the
 * arithmetic, fib(15) every 100 rounds, a 3-frame exception unwind every 100 rounds.  (Since
 * JDK 19 Thread.run calls Workload$Worker.run through Thread.runWith: paths are matched from
 * the worker's run down.)  Where node and chromium are installed, tools/flamegraph-check.js
 * then clicks and searches the flame graph in a headless browser.  Samples and the bin/jevprof
 * script here; calls mode and methods' names in test_jevprof_calls.c; allocations in
 * test_jevprof_alloc.c.
 */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/testkit.h"
#include "jevprof_run.h"

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

/* `go tool pprof -list function` with the samples' sources: malloc'ed, the whole output. */
static char *pprof_list(const char *dir, const char *file, const char *function)
{
    char command[2400];
    snprintf(command, sizeof(command), "go tool pprof -list '%s' -source_path '%s/samples/java' '%s/%s' 2>&1",
             function, jvmrun_source_dir(), dir, file);
    FILE *list = popen(command, "r");
    ck_assert_ptr_nonnull(list);
    size_t size = 0, capacity = 1 << 16;
    char *text = malloc(capacity);
    ck_assert_ptr_nonnull(text);
    size += fread(text, 1, capacity - 1, list);
    text[size] = '\0';
    ck_assert_int_eq(pclose(list), 0);
    return text;
}

/* The number of lines of text. */
static unsigned long long line_count(const char *text)
{
    unsigned long long n = 0;
    for (const char *at = strchr(text, '\n'); at; at = strchr(at + 1, '\n'))
        n++;
    return n;
}

/* The rows of the report's table headed title (up to its blank line). */
static unsigned long long table_rows(const char *report, const char *title)
{
    const char *table = strstr(report, title);
    ck_assert_ptr_nonnull(table);
    const char *end = strstr(table, "\n\n");
    unsigned long long n = 0;
    for (const char *at = strchr(table, '\n'); at && (!end || at < end); at = strchr(at + 1, '\n'))
        n++;
    return n - 1; /* less the column headings */
}

START_TEST(sampling_finds_the_hot_method)
{
    char dir[1200];
    jvmrun_result plain, r;
    const char *args[] = {"30000", NULL};
    prepare(dir, sizeof(dir));
    jvmrun_main(jdks[_i], "Workload", NULL, NULL, args, &plain);
    /* Not a number: the bridge says so when it reads the interval, which it does only once some
     * monitor may want allocations.  jevprof, outside alloc mode, promises it never will. */
    const char *extras[] = {"JEVMON_ALLOCATION_SAMPLING_INTERVAL=unread", "JEVPROF_EXCEPTIONS=1", "JEVPROF_MIN_SHARE=10",
                            NULL};
    run_jevprof_with(jdks[_i], dir, ATTACHED, "sample", "30000", extras, &r);
    ck_assert_int_eq(r.exit_code, 0);
    ck_assert_str_eq(r.out, plain.out); /* the program's output is untouched */
    ck_assert_msg(strstr(r.err, "jevmon: jevprof: wrote "), "%s", r.err);
    ck_assert_msg(!strstr(r.err, "JEVMON_ALLOCATION_SAMPLING_INTERVAL"), "allocations were armed:\n%s", r.err);
    char *report = read_text(dir, "jevprof-report.txt"), *collapsed = read_text(dir, "jevprof.collapsed");
    char *flame = read_text(dir, "jevprof-flame.html");
    ck_assert_ptr_nonnull(report);
    ck_assert_ptr_nonnull(collapsed);
    ck_assert_ptr_nonnull(flame);
    unsigned long long hot = self_count(collapsed, "Workload.hot"), cold = self_count(collapsed, "Workload.cold");
    if (!(hot >= 20 && hot > 2 * cold)) {
        fprintf(stderr, "Workload.hot: %llu samples, Workload.cold: %llu\n", hot, cold);
        expect(report, "Workload.hot with 20 samples or more, and more than twice Workload.cold's");
    }
    expect(report, "Hottest call paths by self samples (outermost frame first)\n");
    expect(report, " > Workload$Worker.run() > Workload.round(int, long, int[]) > Workload.hot(long)\n");
    expect(report, "          2400  java.lang.IllegalStateException\n");
    ck_assert_ptr_nonnull(strstr(flame, "\"Workload.hot\""));
    ck_assert_ptr_null(strstr(report, "\nAllocations\n"));
    ck_assert_ptr_null(read_text(dir, "jevprof-alloc.collapsed"));
    ck_assert_ptr_null(read_text(dir, "jevprof-alloc-flame.html"));
    ck_assert_int_eq(jvmrun_check_flame_graph(dir, "Workload.hot", NULL), 0);
    /* the pprof file holds the same samples, each 2 ms of processor time, and the same top method;
     * folded as the collapsed file is (paths under 10% into their callers: its paths, fewer
     * methods than the report's, which has them all, and the same total; with Workload.hot's 20
     * samples or more, the paths of one sample, of which start-up leaves many, are folded) */
    pprof_view counts, time;
    unsigned long long in_profile = number_after(report, "Thread samples: ");
    /* Most stacks were walked where the threads ran (IJevmonSampling2), not taken at safepoints.  The
     * others: a thread that did not answer within 50 ms (a loaded machine: 84% to 89% walked here
     * under load 18), a walk during a collection. */
    unsigned long long walked = number_after(report, "Stacks: ");
    printf("JDK %d: %llu of %llu stacks walked\n", _i, walked, in_profile);
    ck_assert_msg(in_profile > 0 && walked * 4 >= in_profile * 3, "%llu of %llu stacks walked", walked, in_profile);
    if (read_pprof(dir, "jevprof.pb.gz", 0, &counts) && read_pprof(dir, "jevprof.pb.gz", 1, &time)) {
        ck_assert_uint_eq(counts.total, in_profile);
        ck_assert_uint_eq(time.total, in_profile * 2000000ull);
        ck_assert_str_eq(counts.top, "Workload.hot(long)");
        ck_assert_uint_eq(counts.top_flat, hot);
        ck_assert_uint_ge(counts.samples, line_count(collapsed)); /* a path of the file at one line or more */
        unsigned long long methods = table_rows(report, "Top 1000 methods by total samples\n");
        ck_assert_msg(counts.locations < methods, "%llu locations in pprof, %llu methods in all", counts.locations,
                      methods);
        /* its functions have their source files, its locations the lines that ran: -list shows
         * Workload.hot's samples on the lines of its loop, not all on its first line */
        char *list = pprof_list(dir, "jevprof.pb.gz", "Workload.hot");
        expect(list, "ROUTINE ======================== Workload.hot(long) in Workload.java\n");
        static const char *const loop_lines[] = {":        for (int i = 0; i < 4000; i++) {\n",
                                                 ":            x ^= x << 13;\n", ":            x ^= x >>> 7;\n",
                                                 ":            x ^= x << 17;\n"};
        int lines_with_samples = 0;
        for (size_t i = 0; i < sizeof(loop_lines) / sizeof(*loop_lines); i++) {
            const char *row = strstr(list, loop_lines[i]);
            while (row && row > list && row[-1] != '\n')
                row--;
            lines_with_samples += row && row[strspn(row, " ")] != '.';
        }
        ck_assert_msg(lines_with_samples >= 2, "Workload.hot's samples on %d of its loop's lines:\n%s",
                      lines_with_samples, list);
        free(list);
    }
    free(report), free(collapsed), free(flame);
    jvmrun_free(&plain);
    jvmrun_free(&r);
    remove_outputs(dir);
}
END_TEST

/* A location of `go tool pprof -raw`: its function, line and the function's first line (s=). */
typedef struct raw_location {
    char function[256];
    unsigned long line, start_line;
} raw_location;

/* The locations of a pprof file whose function is function; at most max, their number returned. */
static size_t raw_locations(const char *dir, const char *file, const char *function, raw_location *out, size_t max)
{
    char command[1600], line[4096];
    size_t n = 0;
    snprintf(command, sizeof(command), "go tool pprof -raw '%s/%s' 2>&1", dir, file);
    FILE *raw = popen(command, "r");
    ck_assert_ptr_nonnull(raw);
    while (fgets(line, sizeof(line), raw)) {
        /* "    70: 0x0 M=1 java.lang.Thread.run() java/lang/Thread.java:840 s=839(java.lang.Thread.run)" */
        char *name = strstr(line, " M=1 "), *start = strstr(line, " s="), *colon;
        if (!name || !start || n == max)
            continue;
        name += 5;
        *start = '\0';
        if (!(colon = strrchr(name, ':')) || strncmp(name, function, strlen(function)) != 0 ||
            name[strlen(function)] != ' ')
            continue;
        snprintf(out[n].function, sizeof(out[n].function), "%s", function);
        out[n].line = strtoul(colon + 1, NULL, 10);
        out[n].start_line = strtoul(start + 3, NULL, 10);
        n++;
    }
    ck_assert_int_eq(pclose(raw), 0);
    return n;
}

/* The flat samples `go tool pprof -top -lines` gives function at source lines first to last. */
static unsigned long long flat_at_lines(const char *dir, const char *file, const char *function, unsigned long first,
                                        unsigned long last)
{
    char command[1600], line[4096];
    unsigned long long sum = 0;
    snprintf(command, sizeof(command), "go tool pprof -top -lines -sample_index=samples -nodecount=100000 '%s/%s' 2>&1",
             dir, file);
    FILE *top = popen(command, "r");
    ck_assert_ptr_nonnull(top);
    while (fgets(line, sizeof(line), top)) {
        /* "      1610 97.51% 97.51%       1610 97.51%  SamplingWorkload.spinC(long) SamplingWorkload.java:169" */
        unsigned long long flat = 0;
        int name_at = 0;
        char *file_line = strrchr(line, ' '), *colon = strrchr(line, ':');
        if (sscanf(line, "%llu %*s %*s %*s %*s %n", &flat, &name_at) != 1 || !name_at || !file_line || !colon)
            continue;
        unsigned long at = strtoul(colon + 1, NULL, 10);
        if (strncmp(line + name_at, function, strlen(function)) == 0 && line[name_at + (int)strlen(function)] == ' ' &&
            at >= first && at <= last)
            sum += flat;
    }
    ck_assert_int_eq(pclose(top), 0);
    return sum;
}

/* SamplingWorkload.java's lines (tests/sampling/): spinC's first line, its loop, the callers' calls. */
#define SPIN_C_FIRST 166ul /* long x = 0; */
#define SPIN_C_BODY 169ul  /* x = x * 31 + k; */
#define SPIN_B_CALL 172ul
#define SPIN_A_CALL 173ul

START_TEST(samples_are_at_the_lines_that_ran)
{
    char dir[1200];
    jvmrun_result r;
    /* a thread spinning in spinA > spinB > spinC for 2 s of its processor time (more wall time when loaded) */
    const char *args[] = {"stacks", "2", NULL};
    prepare(dir, sizeof(dir));
    run_jevprof_main(jdks[_i], dir, ATTACHED, "sample", "SamplingWorkload", args, NULL, &r);
    ck_assert_int_eq(r.exit_code, 0);
    ck_assert_msg(strstr(r.err, "jevmon: jevprof: wrote "), "%s", r.err);
    if (system("command -v go >/dev/null") != 0) {
        fprintf(stderr, "skipped: no go (golang-go): the pprof file's lines are not read back\n");
        jvmrun_free(&r);
        return;
    }
    /* the innermost frames: spinC's loop body, not its first line, which runs once */
    unsigned long long spin = flat_at_lines(dir, "jevprof.pb.gz", "SamplingWorkload.spinC(long)", 0, ULONG_MAX);
    unsigned long long body = flat_at_lines(dir, "jevprof.pb.gz", "SamplingWorkload.spinC(long)", SPIN_C_BODY, SPIN_C_BODY);
    unsigned long long first = flat_at_lines(dir, "jevprof.pb.gz", "SamplingWorkload.spinC(long)", SPIN_C_FIRST,
                                             SPIN_C_FIRST);
    printf("JDK %d: spinC %llu samples, %llu at x = x * 31 + k (line %lu), %llu at its first line\n", _i, spin, body,
           SPIN_C_BODY, first);
    /* Not chance: 2 s of the thread's processor time at 2 ms are 1,000 intervals of one sample each
     * (a wall-clock run of 2 s got 78 and 133 under stress-ng --cpu 2 and other builds). */
    ck_assert_uint_gt(spin, 200);
    /* The loop body is nearly all of spinC's time (its other lines: the outer loop's count every
     * 100,000 iterations, well under 0.1%); the first line runs once.  With n > 200 samples of a true body
     * share above 99%, 90% is more than 14 sigma (sqrt(.01 * .99 / 200) = 0.7 points) away, and 5%
     * at the first line further still: a correct profiler fails neither in 10^-40. */
    ck_assert_uint_ge(body * 10, spin * 9);
    ck_assert_uint_le(first * 20, spin);
    /* the callers at their calls: spinB and spinA (one-line methods), and Thread.run, whose call to
     * the thread's Runnable is not its first line */
    raw_location found[64];
    size_t n = raw_locations(dir, "jevprof.pb.gz", "SamplingWorkload.spinB(long)", found, 64);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(found[0].line, SPIN_B_CALL);
    n = raw_locations(dir, "jevprof.pb.gz", "SamplingWorkload.spinA(long)", found, 64);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(found[0].line, SPIN_A_CALL);
    n = raw_locations(dir, "jevprof.pb.gz", "SamplingWorkload.spinC(long)", found, 64);
    ck_assert_uint_ge(n, 1);
    for (size_t i = 0; i < n; i++)
        ck_assert_uint_eq(found[i].start_line, SPIN_C_FIRST);
    n = raw_locations(dir, "jevprof.pb.gz", "java.lang.Thread.run()", found, 64);
    int past_first = 0; /* (a stack taken at a safepoint, when a walk failed, has no offsets: first lines) */
    for (size_t i = 0; i < n; i++) {
        printf("JDK %d: java.lang.Thread.run() at line %lu, its first line %lu\n", _i, found[i].line,
               found[i].start_line);
        past_first |= found[i].line > found[i].start_line;
    }
    ck_assert_msg(past_first, "no location of java.lang.Thread.run() past its first line");
    jvmrun_free(&r);
    remove_outputs(dir);
}
END_TEST

/*
 * bin/jevprof as a user runs it: --help; "--mode calls" with a space; an output directory
 * that does not exist, with %p in it, and a file prefix with %t, both expanded; javac, a JDK
 * launcher other than java (the agent as -J-agentpath); stderr names every file written.
 */
START_TEST(the_script_runs_any_launcher_into_a_new_directory)
{
    char dir[1200], command[4096], expected[1400];
    char *out, *err;
    prepare(dir, sizeof(dir));
    snprintf(command, sizeof(command), "'%s/bin/jevprof' --help", jvmrun_source_dir());
    ck_assert_int_eq(jvmrun_shell(dir, &out, &err, "%s", command), 0);
    expect(out, "usage: jevprof [options] PID");
    expect(out, "jevprof [options] [--] COMMAND");
    expect(out, "--mode LIST");
    free(out), free(err);

    snprintf(command, sizeof(command),
             "'%s/bin/jevprof' --mode calls --out '%s/new/pid-%%p' --prefix 'run-%%t' java -cp '%s' Workload 200",
             jvmrun_source_dir(), dir, jvmrun_build_path("java"));
    ck_assert_int_eq(jvmrun_shell(dir, &out, &err, "%s", command), 0);
    ck_assert_str_eq(out, "threads 8, rounds 200\nchecksum fb623432da6bd5f1\nexceptions caught 16\n");
    snprintf(expected, sizeof(expected), "jevmon: jevprof: wrote %s/new/pid-", dir);
    expect(err, expected); /* the directory, made at start-up */
    const char *wrote = strstr(err, expected);
    int pid = atoi(wrote + strlen(expected));
    ck_assert_int_gt(pid, 0);
    char sub[1300], stamp[32];
    snprintf(sub, sizeof(sub), "%s/new/pid-%d", dir, pid);
    const char *run = strstr(wrote, "/run-");
    ck_assert_ptr_nonnull(run);
    snprintf(stamp, sizeof(stamp), "%.15s", run + 5); /* YYYYMMDD-hhmmss */
    ck_assert_msg(strlen(stamp) == 15 && stamp[8] == '-', "%s", err);
    static const char *const suffixes[] = {"-report.txt", ".collapsed", "-flame.html"};
    for (size_t i = 0; i < 3; i++) {
        char name[64], listed[1500];
        snprintf(name, sizeof(name), "run-%s%s", stamp, suffixes[i]);
        snprintf(listed, sizeof(listed), "%s/%s", sub, name);
        expect(err, listed); /* every file is named on stderr */
        char *text = read_text(sub, name);
        ck_assert_msg(text != NULL, "no %s", listed);
        free(text);
    }
    free(out), free(err);

    snprintf(command, sizeof(command), "'%s/bin/jevprof' --mode=sample --out javac-out javac -d classes '%s/samples/java/Workload.java'",
             jvmrun_source_dir(), jvmrun_source_dir());
    ck_assert_int_eq(jvmrun_shell(dir, &out, &err, "%s", command), 0);
    ck_assert_msg(!strstr(err, "invalid flag"), "%s", err);
    expect(err, "jevmon: jevprof: wrote ");
    char javac_out[1300];
    snprintf(javac_out, sizeof(javac_out), "%s/javac-out", dir);
    char *report = read_text(javac_out, "jevprof-report.txt");
    expect(report, "com.sun.tools.javac.Main\n"); /* "Program: jdk.compiler/..." since JDK 9 */
    char classes[1300];
    snprintf(classes, sizeof(classes), "%s/classes", dir);
    char *compiled = read_text(classes, "Workload.class");
    ck_assert_ptr_nonnull(compiled);
    free(out), free(err), free(report), free(compiled);
    snprintf(command, sizeof(command), "rm -rf '%s'", dir);
    ck_assert_int_eq(system(command), 0);
}
END_TEST

/*
 * Two runs into one directory: a sample,alloc run, then a sample run with a bad interval.  The
 * second leaves the first's alloc files, naming them in one line, and its report starts with the
 * bad setting.  Then an output directory that cannot be made is said at start-up, before the program
 * runs, not at the end.
 */
START_TEST(earlier_runs_are_named_and_problems_are_said_early)
{
    char dir[1200], blocked[1300];
    jvmrun_result r;
    prepare(dir, sizeof(dir));
    run_jevprof(jdks[_i], dir, ATTACHED, "sample,alloc", "200", NULL, &r);
    ck_assert_int_eq(r.exit_code, 0);
    char *alloc = read_text(dir, "jevprof-alloc.collapsed");
    ck_assert_ptr_nonnull(alloc);
    free(alloc);
    jvmrun_free(&r);
    run_jevprof(jdks[_i], dir, ATTACHED, "sample", "200", "JEVPROF_INTERVAL_MS=0.5", &r);
    ck_assert_int_eq(r.exit_code, 0);
    static const char *const earlier[] = {"jevprof-alloc.collapsed", "jevprof-alloc-flame.html",
                                          "jevprof-alloc-bytes.collapsed", "jevprof-alloc-bytes-flame.html",
                                          "jevprof-alloc.pb.gz"};
    char left[8000] = "jevmon: jevprof: left ";
    for (size_t i = 0; i < 5; i++) { /* never removed (no run removes what it did not write), but named */
        char *text = read_text(dir, earlier[i]);
        ck_assert_msg(text != NULL, "%s of the earlier run is gone", earlier[i]);
        free(text);
        snprintf(left + strlen(left), sizeof(left) - strlen(left), "%s%s/%s", i ? ", " : "", dir, earlier[i]);
    }
    expect(r.err, left);
    expect(r.err, " as they are: an earlier run's (this run does not write them)\n");
    char *report = read_text(dir, "jevprof-report.txt");
    ck_assert_ptr_nonnull(report);
    ck_assert_msg(strncmp(report, "jevprof report\n==============\nBAD SETTINGS (each replaced by its default):\n"
                                  "JEVPROF_INTERVAL_MS \"0.5\" is not a whole number", 120) == 0, "%s", report);
    free(report);
    jvmrun_free(&r);

    /* A directory below a file cannot be made: said before the program's first line, with where
     * the files go instead (the user's private directory, here one of the test's). */
    char dir_env[1400], private_env[1400];
    snprintf(blocked, sizeof(blocked), "%s/jevprof.reg/out", dir);
    snprintf(dir_env, sizeof(dir_env), "JEVPROF_OUTPUT_DIR=%s", blocked);
    snprintf(private_env, sizeof(private_env), "XDG_RUNTIME_DIR=%s/private", dir);
    const char *extras[] = {dir_env, private_env, NULL};
    run_jevprof_with(jdks[_i], dir, ATTACHED, "sample", "200", extras, &r); /* the later setting wins */
    ck_assert_int_eq(r.exit_code, 0);
    char said[4000];
    snprintf(said, sizeof(said), "jevmon: jevprof: cannot create the output directory %s: %s/jevprof.reg: Not a "
             "directory; the files go to %s/private/jevprof instead", blocked, dir, dir);
    expect(r.err, said);
    const char *first = strstr(r.err, "jevmon: jevprof:");
    ck_assert_msg(first == strstr(r.err, said), "said late:\n%s", r.err);
    jvmrun_free(&r);
    char command[1400];
    snprintf(command, sizeof(command), "rm -rf '%s/private'", dir);
    ck_assert_int_eq(system(command), 0);
    remove_outputs(dir);
}
END_TEST

int main(void)
{
    jdk_count = jvmrun_find_jdks(jdks);
    Suite *s = suite_create("jevprof_jvm");
    TCase *tc = tcase_create("jevprof_jvm");
    tcase_set_timeout(tc, 240);
    tcase_add_loop_test(tc, sampling_finds_the_hot_method, 0, jdk_count);
    tcase_add_loop_test(tc, samples_are_at_the_lines_that_ran, 0, jdk_count);
    tcase_add_loop_test(tc, earlier_runs_are_named_and_problems_are_said_early, 0, jdk_count);
    tcase_add_test(tc, the_script_runs_any_launcher_into_a_new_directory);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
