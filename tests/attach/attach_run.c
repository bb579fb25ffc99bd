/*
 * attach_run.c - AttachWorkload run and attached to with jcmd, and what it and jevprof leave
 * read back (attach_run.h).
 */
#include <check.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../support/testkit.h"
#include "attach_run.h"

int jcmd_load(const char *jdk, int pid, const char *options)
{
    char command[3 * 4096], line[512];
    snprintf(command, sizeof(command), "'%.*s/jcmd' %d JVMTI.agent_load '%s' '%s' 2>&1", (int)(strrchr(jdk, '/') - jdk),
             jdk, pid, jvmrun_build_path("libjevmon.so"), options);
    FILE *f = popen(command, "r");
    int code = -1, echoed = 0;
    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "return code: %d", &code) != 1 && !(sscanf(line, "%d:", &echoed) == 1 && echoed == pid))
            printf("jcmd: %s", line); /* anything but its echo of the pid and the code */
    if (f)
        pclose(f);
    return code;
}

double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

char *own_output(const char *out)
{
    char *own = calloc(1, strlen(out) + 1), *to = own;
    for (const char *line = out; *line;) {
        size_t len = strcspn(line, "\n") + (line[strcspn(line, "\n")] == '\n');
        if (strncmp(line, "jevmon: ", 8) != 0) {
            memcpy(to, line, len);
            to += len;
        }
        line += len;
    }
    return own;
}

void assert_in_order(const char *text, const char *const *items, size_t count)
{
    const char *at = text;
    for (size_t i = 0; i < count; i++) {
        const char *found = strstr(at, items[i]);
        ck_assert_msg(found, "missing or out of order: \"%s\" in:\n%s", items[i], text);
        at = found + strlen(items[i]);
    }
}

void work(jvmrun_process *p, const char *line, const char *done)
{
    jvmrun_send(p, line);
    ck_assert_msg(jvmrun_wait_output(p, done, 1, 60000), "no \"%s\" from the program", done);
}

void start_waiting(jvmrun_process *p, const char *jdk, const char *agent_options, const char *const *env)
{
    const char *args[] = {NULL};
    jvmrun_start(p, jdk, "AttachWorkload", agent_options, env, args);
    ck_assert_msg(jvmrun_wait_output(p, "ready", 1, 60000), "the program did not start");
}

char *read_file(const char *dir, const char *name)
{
    char path[1200];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = calloc(1, 1 << 22);
    size_t n = fread(text, 1, (1 << 22) - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

unsigned long long report_calls(const char *report, const char *method)
{
    char row_end[256];
    snprintf(row_end, sizeof(row_end), "  %s\n", method);
    const char *table = strstr(report, "methods by self time\n"), *row = table ? strstr(table, row_end) : NULL;
    ck_assert_msg(row, "no row for %s in:\n%s", method, report);
    while (row > table && row[-1] != '\n')
        row--;
    unsigned long long calls = 0;
    ck_assert_int_eq(sscanf(row, "%*s %*s %*s %*s %*s %*s %llu", &calls), 1); /* self ms self% total ms total% calls */
    return calls;
}

void jevprof_directory(jevprof_files *files, const char *name)
{
    char reg[1300];
    snprintf(files->dir, sizeof(files->dir), "%s", jvmrun_build_path(name));
    ck_assert_ptr_nonnull(mkdtemp(files->dir));
    snprintf(reg, sizeof(reg), "%s/system.reg", files->dir);
    FILE *f = fopen(reg, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "Windows Registry Editor Version 5.00\n\n[HKEY_CLASSES_ROOT\\CLSID\\" JEVPROF
               "\\InprocServer32]\n@=\"%s\"\n\"ThreadingModel\"=\"Both\"\n",
            jvmrun_build_path("libjevprof.so"));
    fclose(f);
    snprintf(files->registry_env, sizeof(files->registry_env), "JEVMON_REGISTRY_SYSTEM=%s", reg);
    snprintf(files->output_env, sizeof(files->output_env), "JEVPROF_OUTPUT_DIR=%s", files->dir);
}

void remove_directory(const char *dir)
{
    char command[1400];
    snprintf(command, sizeof(command), "rm -rf '%s'", dir);
    ck_assert_int_eq(system(command), 0);
}

int attach_suite_main(const char *name, char jdks[JVMRUN_MAX_JDKS][512], void (*add_tests)(TCase *tc, int jdk_count))
{
    signal(SIGPIPE, SIG_IGN);
    int jdk_count = jvmrun_suite_jdks(jdks);
    if (!jdk_count)
        return EXIT_SUCCESS;
    Suite *s = suite_create(name);
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, 180);
    add_tests(tc, jdk_count);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}

int process_timers(int pid)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/timers", pid);
    char *timers = tk_read_file(path);
    int n = tk_count(timers, "ID:");
    free(timers);
    snprintf(path, sizeof(path), "/proc/%d/fd", pid);
    DIR *fds = opendir(path);
    ck_assert_ptr_nonnull(fds);
    for (struct dirent *e; (e = readdir(fds));) {
        char link[400], target[64];
        snprintf(link, sizeof(link), "%s/%s", path, e->d_name);
        ssize_t length = readlink(link, target, sizeof(target) - 1);
        if (length > 0) {
            target[length] = '\0';
            n += strcmp(target, "anon_inode:[perf_event]") == 0;
        }
    }
    closedir(fds);
    return n;
}
