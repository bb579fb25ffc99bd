/*
 * test_jevprof_jfr.c - jevprof's .jfr recordings read by the JDK's own `jfr` tool, on every JDK
 * under /usr/lib/jvm: bin/jevprof -f out.jfr -f out.collapsed in each mode, then `jfr summary`
 * and `jfr print` of that JDK.  The recording's events are the collapsed file's paths: as many
 * events of the mode's type as the collapsed file's weights add up to, and, top frame by top frame
 * (the innermost method; a lock's or an allocation's class and a wall sample's state are fields
 * of the event, not frames), as many events as the collapsed file's lines ending there weigh.
 * Allocations: one event per path (its bytes its weight), so the events count the lines.
 *
 *   cpu   jdk.ExecutionSample, STATE_DEFAULT  (SamplingWorkload truth)
 *   wall  jdk.ExecutionSample, with states    (SamplingWorkload truth)
 *   alloc jdk.ObjectAllocationSample          (AllocWorkload mixed 16)
 *   lock  jdk.JavaMonitorEnter, jdk.ThreadPark (LockWorkload monitor, then reentrant)
 *   calls no event of its own: a recording with its span and no events
 *
 * Every event is on the thread it was recorded on (an OS thread id, the thread's name): the lock
 * waits of LockWorkload's threads "contender-0" to "contender-2" one on each, wall mode's samples
 * on SamplingWorkload's "acceptor", "waiter" and "sleeper" among others.
 *
 * Nothing here is sampled by chance: the recording is written from the same trees as the
 * collapsed file, so the counts are equal, never close; each contender waits once (the workload
 * holds the monitor until all of them block), and a wall sampler samples every live thread at
 * each tick, the three idle threads living through the run.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/jvmrun.h"
#include "../support/testkit.h"

#define MAX_TOPS 4096

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

/* Events by their top frame. */
typedef struct tops {
    char names[MAX_TOPS][256];
    unsigned long long counts[MAX_TOPS];
    size_t count;
    unsigned long long total;
} tops;

/* A method's name as both files can give it: "pkg.Class.method", without parameters; a frame
 * that stands for no Java method ("(callers unknown)", a native "libc.so.6`accept") as it is; a
 * kernel frame without the collapsed file's "_[k]" (the recording's frame type says it). */
static void normalize(const char *name, size_t length, char *out, size_t size)
{
    if (length > 8 && !memcmp(name, "jevprof.", 8))
        name += 8, length -= 8; /* the recording's class of the frames that stand for no Java method */
    if (length > 4 && !memcmp(name + length - 4, "_[k]", 4))
        length -= 4;
    const char *cut = name[0] == '(' ? memchr(name, ')', length) : memchr(name, '(', length);
    if (cut && name[0] == '(')
        cut++;
    snprintf(out, size, "%.*s", (int)(cut ? (size_t)(cut - name) : length), name);
}

static void add(tops *t, const char *name, size_t length, unsigned long long weight)
{
    char key[256];
    normalize(name, length, key, sizeof(key));
    size_t i = 0;
    while (i < t->count && strcmp(t->names[i], key))
        i++;
    ck_assert_uint_lt(i, MAX_TOPS);
    if (i == t->count)
        snprintf(t->names[t->count++], sizeof(t->names[0]), "%s", key);
    t->counts[i] += weight;
    t->total += weight;
}

/* The collapsed file's lines by their innermost frame, or the one before it (field_last: a class
 * or a state). */
static void collapsed_tops(const char *collapsed, int field_last, int per_line, tops *t)
{
    for (const char *line = collapsed; *line;) {
        const char *end = strchr(line, '\n'), *space = end ? memrchr(line, ' ', (size_t)(end - line)) : NULL;
        if (!end)
            break;
        ck_assert_ptr_nonnull(space);
        const char *frame_end = space, *frame = memrchr(line, ';', (size_t)(space - line));
        if (field_last && frame) {
            frame_end = frame;
            frame = memrchr(line, ';', (size_t)(frame_end - line));
        }
        frame = frame ? frame + 1 : line;
        add(t, frame, (size_t)(frame_end - frame), per_line ? 1 : strtoull(space + 1, NULL, 10));
        line = end + 1;
    }
}

/* `jfr print --stack-depth 1`'s events by their top frame (an event without frames: "(none)"). */
static void recording_tops(const char *printed, tops *t)
{
    for (const char *at = printed; (at = strstr(at, "\n  stackTrace = ")); ) {
        at += strlen("\n  stackTrace = ");
        if (!strncmp(at, "[\n    ", 6)) {
            const char *frame = at + 6, *end = strchr(frame, '\n');
            const char *line = strstr(frame, " line:");
            add(t, frame, (size_t)((line && line < end ? line : end) - frame), 1);
        } else {
            add(t, "(none)", 6, 1);
        }
    }
}

/* The events of `jfr print` on thread name ("eventThread = "name"", "sampledThread = ..."), and in
 * *placed those on a thread with a known OS id. */
static unsigned long long events_on(const char *printed, const char *name, unsigned long long *placed)
{
    unsigned long long on = 0;
    if (placed)
        *placed = 0;
    for (const char *at = printed; (at = strstr(at, "Thread = \"")); ) {
        at += strlen("Thread = \"");
        const char *end = strchr(at, '"'), *os = strstr(at, "osThreadId = ");
        ck_assert_ptr_nonnull(end);
        const char *line_end = strchr(end, '\n');
        if (!name || ((size_t)(end - at) == strlen(name) && !memcmp(at, name, strlen(name))))
            on++;
        if (placed && os && line_end && os < line_end && strtoull(os + strlen("osThreadId = "), NULL, 10) > 0)
            (*placed)++;
        at = end;
    }
    return on;
}

/* The events of `jfr print` with field (a line of theirs) on thread name: `jfr print` writes an
 * event's thread after its other fields. */
static unsigned long long events_with(const char *printed, const char *field, const char *name)
{
    unsigned long long on = 0;
    char thread[300];
    snprintf(thread, sizeof(thread), "Thread = \"%s\"", name);
    for (const char *at = printed; (at = strstr(at, field)); at++) {
        const char *end = strstr(at, "\n}"), *on_thread = strstr(at, "Thread = \"");
        ck_assert_ptr_nonnull(end);
        on += on_thread && on_thread < end && !strncmp(on_thread, thread, strlen(thread));
    }
    return on;
}

/* The JDK's jfr next to its java. */
static void jfr_of(const char *java, char *jfr, size_t size)
{
    snprintf(jfr, size, "%.*sjfr", (int)(strrchr(java, '/') + 1 - java), java);
}

/* Runs the workload under bin/jevprof with modes, writing out.jfr and out.collapsed in a new dir. */
static void run(const char *java, const char *modes, const char *workload, char *dir, size_t size)
{
    snprintf(dir, size, "%s", jvmrun_build_path("jfr.XXXXXX"));
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(jvmrun_shell(dir, NULL, NULL,
                                  "'%s/bin/jevprof' %s -f '%s/out.jfr' -f '%s/out.collapsed' -- '%s' -cp '%s' %s",
                                  jvmrun_source_dir(), modes, dir, dir, java, jvmrun_build_path("java"), workload),
                     0);
}

/* The events of type in `jfr summary`'s table. */
static unsigned long long summary_count(const char *summary, const char *type)
{
    char row[128];
    snprintf(row, sizeof(row), " %s ", type);
    const char *at = strstr(summary, row);
    ck_assert_msg(at != NULL, "jfr summary has no %s:\n%s", type, summary);
    return strtoull(at + strlen(row), NULL, 10);
}

/* The recording of dir read back: its event counts and top frames equal the collapsed file's
 * (per_line: its lines'). */
static void check_recording(const char *java, const char *dir, const char *events, int field_last, int per_line)
{
    char jfr[600], *summary = NULL, *printed = NULL, path[1400];
    jfr_of(java, jfr, sizeof(jfr));
    ck_assert_int_eq(jvmrun_shell(dir, &summary, NULL, "'%s' summary out.jfr", jfr), 0);
    ck_assert_int_eq(jvmrun_shell(dir, &printed, NULL, "'%s' print --events %s --stack-depth 1 out.jfr", jfr, events), 0);
    snprintf(path, sizeof(path), "%s/out.collapsed", dir);
    char *collapsed = tk_read_file(path);
    ck_assert_ptr_nonnull(collapsed);
    static tops from_collapsed, from_recording;
    memset(&from_collapsed, 0, sizeof(from_collapsed));
    memset(&from_recording, 0, sizeof(from_recording));
    collapsed_tops(collapsed, field_last, per_line, &from_collapsed);
    recording_tops(printed, &from_recording);
    unsigned long long counted = 0;
    char list[256];
    snprintf(list, sizeof(list), "%s", events);
    for (char *type = strtok(list, ","); type; type = strtok(NULL, ","))
        counted += summary_count(summary, type);
    printf("  %s: %llu events in the summary, %llu printed, %llu in the collapsed file, %zu top frames\n", events,
           counted, from_recording.total, from_collapsed.total, from_collapsed.count);
    ck_assert_msg(from_collapsed.total > 0, "an empty profile:\n%s", collapsed);
    ck_assert_msg(counted == from_collapsed.total && from_recording.total == counted,
                  "%llu events in the summary, %llu printed, the collapsed file weighs %llu", counted,
                  from_recording.total, from_collapsed.total);
    ck_assert_uint_eq(from_recording.count, from_collapsed.count);
    unsigned long long placed = 0;
    ck_assert_uint_eq(events_on(printed, NULL, &placed), counted);
    ck_assert_msg(placed == counted, "%llu of %llu events on a thread with an OS id:\n%.2000s", placed, counted, printed);
    for (size_t i = 0; i < from_collapsed.count; i++) {
        size_t j = 0;
        while (j < from_recording.count && strcmp(from_recording.names[j], from_collapsed.names[i]))
            j++;
        ck_assert_msg(j < from_recording.count && from_recording.counts[j] == from_collapsed.counts[i],
                      "top frame %s: %llu in the collapsed file, %llu in the recording", from_collapsed.names[i],
                      from_collapsed.counts[i], j < from_recording.count ? from_recording.counts[j] : 0);
    }
    free(summary), free(printed), free(collapsed);
}

static void remove_run(const char *dir)
{
    jvmrun_remove_shell_dir(dir, "out.jfr out.collapsed");
}

START_TEST(cpu_samples_are_execution_samples)
{
    char dir[1024];
    run(jdks[_i], "-e cpu -i 1ms", "SamplingWorkload truth 1", dir, sizeof(dir));
    check_recording(jdks[_i], dir, "jdk.ExecutionSample", 0, 0);
    /* every sample's state STATE_DEFAULT: async-profiler's jfrconv --cpu keeps those alone */
    char jfr[600], *printed = NULL;
    jfr_of(jdks[_i], jfr, sizeof(jfr));
    ck_assert_int_eq(jvmrun_shell(dir, &printed, NULL, "'%s' print --events jdk.ExecutionSample --stack-depth 1 out.jfr",
                                  jfr), 0);
    unsigned long long marked = 0;
    for (const char *at = printed; (at = strstr(at, "state = \"STATE_DEFAULT\"")); at++)
        marked++;
    ck_assert_uint_eq(marked, events_on(printed, NULL, NULL));
    free(printed);
    remove_run(dir);
}
END_TEST

START_TEST(wall_samples_are_execution_samples_with_states)
{
    char dir[1024], jfr[600], *printed = NULL;
    run(jdks[_i], "-e wall", "SamplingWorkload truth 1", dir, sizeof(dir));
    check_recording(jdks[_i], dir, "jdk.ExecutionSample", 1, 0);
    jfr_of(jdks[_i], jfr, sizeof(jfr));
    ck_assert_int_eq(jvmrun_shell(dir, &printed, NULL, "'%s' print --events jdk.ExecutionSample out.jfr", jfr), 0);
    /* the waiter's samples in Object.wait, the sleeper's in Thread.sleep, main running */
    ck_assert_msg(strstr(printed, "state = \"STATE_IN_OBJECT_WAIT\"") && strstr(printed, "state = \"STATE_SLEEPING\"") &&
                      strstr(printed, "state = \"STATE_RUNNABLE\""),
                  "states missing");
    static const char *const idle[] = {"acceptor", "waiter", "sleeper"};
    for (size_t i = 0; i < sizeof(idle) / sizeof(*idle); i++)
        ck_assert_msg(events_on(printed, idle[i], NULL) > 0, "no sample on thread %s", idle[i]);
    free(printed);
    remove_run(dir);
}
END_TEST

START_TEST(allocations_are_allocation_samples)
{
    char dir[1024];
    run(jdks[_i], "-e alloc", "AllocWorkload mixed 16", dir, sizeof(dir));
    check_recording(jdks[_i], dir, "jdk.ObjectAllocationSample", 1, 1);
    remove_run(dir);
}
END_TEST

/* One lock run: its recording read back, and the events of type name the lock's class as field says. */
static void lock_case(const char *java, const char *workload, const char *type, const char *field)
{
    char dir[1024], jfr[600], *printed = NULL;
    jfr_of(java, jfr, sizeof(jfr));
    run(java, "-e lock", workload, dir, sizeof(dir));
    check_recording(java, dir, "jdk.JavaMonitorEnter,jdk.ThreadPark", 1, 0);
    ck_assert_int_eq(jvmrun_shell(dir, &printed, NULL, "'%s' print --events %s out.jfr", jfr, type), 0);
    ck_assert_msg(strstr(printed, field), "no %s in:\n%s", field, printed);
    /* one wait for the lock on each contender, by its name (JDK 25's class loading may add a wait
     * on a loader's lock: not the lock's class) */
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof(name), "contender-%d", i);
        ck_assert_msg(events_with(printed, field, name) == 1, "%s: %llu waits in:\n%s", name,
                      events_with(printed, field, name), printed);
    }
    free(printed);
    remove_run(dir);
}

START_TEST(lock_waits_are_monitor_enters_and_parks)
{
    lock_case(jdks[_i], "LockWorkload monitor 3 300", "jdk.JavaMonitorEnter", "monitorClass = LockWorkload$TruthMonitor");
    lock_case(jdks[_i], "LockWorkload reentrant 3 300", "jdk.ThreadPark",
              "parkedClass = java.util.concurrent.locks.ReentrantLock$NonfairSync");
}
END_TEST

START_TEST(calls_mode_writes_a_recording_without_events)
{
    char dir[1024], jfr[600], *summary = NULL;
    jfr_of(jdks[_i], jfr, sizeof(jfr));
    run(jdks[_i], "-e calls", "SamplingWorkload truth 1", dir, sizeof(dir));
    ck_assert_int_eq(jvmrun_shell(dir, &summary, NULL, "'%s' summary out.jfr", jfr), 0);
    ck_assert_uint_eq(summary_count(summary, "jdk.ExecutionSample"), 0);
    ck_assert_msg(strstr(summary, " Chunks: 1"), "%s", summary);
    free(summary);
    remove_run(dir);
}
END_TEST

int main(void)
{
    if ((jdk_count = jvmrun_suite_jdks(jdks)) == 0)
        return 0;
    Suite *s = suite_create("jevprof_jfr");
    TCase *tc = tcase_create("jfr");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, cpu_samples_are_execution_samples, 0, jdk_count);
    tcase_add_loop_test(tc, wall_samples_are_execution_samples_with_states, 0, jdk_count);
    tcase_add_loop_test(tc, allocations_are_allocation_samples, 0, jdk_count);
    tcase_add_loop_test(tc, lock_waits_are_monitor_enters_and_parks, 0, jdk_count);
    tcase_add_loop_test(tc, calls_mode_writes_a_recording_without_events, 0, jdk_count);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
