/*
 * jevprof_dirs.c - one test's directories, jevprof's runs with their files in them, and what they
 * hold checked (jevprof_dirs.h).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../support/testkit.h"
#include "jevprof_dirs.h"

#define JEVPROF JVMRUN_JEVPROF_CLSID

int root_suite_jdks(char jdks[JVMRUN_MAX_JDKS][512], const char *why)
{
    int count = jvmrun_suite_jdks(jdks);
    if (count && geteuid() != 0) {
        printf("skipped: not root (%s)\n", why);
        return 0;
    }
    return count;
}

void make_base(test_dirs *d)
{
    char path[1200];
    snprintf(d->base, sizeof(d->base), "%s", jvmrun_build_path("jevprof-files.XXXXXX"));
    ck_assert_ptr_nonnull(mkdtemp(d->base));
    snprintf(d->private_dir, sizeof(d->private_dir), "%s/private/jevprof", d->base);
    snprintf(path, sizeof(path), "%s/jevprof.reg", d->base);
    jvmrun_write_jevprof_registry(path);
}

void make_dir(const test_dirs *d, const char *name, mode_t mode, uid_t owner, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", d->base, name);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    ck_assert_int_eq(chmod(path, mode), 0);
    ck_assert_int_eq(chown(path, owner, owner), 0);
}

char *read_in(const char *dir, const char *name)
{
    char path[2048];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return tk_read_file(path);
}

void run_in(const char *jdk, const test_dirs *d, const char *out, const char *mode, const char *main_class,
            const char *const *args, const char *const *more, jvmrun_result *r)
{
    static char files_env[1300], dir_env[1300], mode_env[64], private_env[1300];
    snprintf(files_env, sizeof(files_env), "JEVMON_REGISTRY_FILES=%s/jevprof.reg", d->base);
    snprintf(dir_env, sizeof(dir_env), "JEVPROF_OUTPUT_DIR=%s", out);
    snprintf(mode_env, sizeof(mode_env), "JEVPROF_MODE=%s", mode);
    snprintf(private_env, sizeof(private_env), "XDG_RUNTIME_DIR=%s/private", d->base);
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" JEVPROF, files_env, dir_env, mode_env,
                         private_env, "JEVPROF_TOP=1000", more ? more[0] : NULL, more && more[0] ? more[1] : NULL,
                         NULL};
    jvmrun_main(jdk, main_class, "", env, args, r);
}

void start_waiting(const char *jdk, const test_dirs *d, const char *out, jvmrun_process *p)
{
    char files_env[1300], dir_env[1300], private_env[1300];
    snprintf(files_env, sizeof(files_env), "JEVMON_REGISTRY_FILES=%s/jevprof.reg", d->base);
    snprintf(dir_env, sizeof(dir_env), "JEVPROF_OUTPUT_DIR=%s", out);
    snprintf(private_env, sizeof(private_env), "XDG_RUNTIME_DIR=%s/private", d->base);
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" JEVPROF, files_env, dir_env,
                         "JEVPROF_MODE=sample", private_env, NULL};
    const char *no_args[] = {NULL};
    jvmrun_start(p, jdk, "AttachWorkload", "", env, no_args);
    ck_assert(jvmrun_wait_output(p, "ready", 1, 60000));
}

void run_workload(const char *jdk, const test_dirs *d, const char *out, const char *mode, jvmrun_result *r)
{
    const char *args[] = {"200", NULL};
    run_in(jdk, d, out, mode, "Workload", args, NULL, r);
    ck_assert_msg(r->exit_code == 0, "exit %d\n%s", r->exit_code, r->err);
    ck_assert_str_eq(r->out, "threads 8, rounds 200\nchecksum fb623432da6bd5f1\nexceptions caught 16\n");
}

void expect(const char *text, const char *what)
{
    ck_assert_msg(text && strstr(text, what), "missing \"%s\" in:\n%s", what, text ? text : "(nothing)");
}

void expect_first(const char *text, const char *line)
{
    expect(text, line);
    ck_assert_msg(strstr(text, "jevmon: jevprof:") == strstr(text, line), "said late:\n%s", text);
}

void expect_report_in(const char *dir, mode_t mode)
{
    struct stat st;
    char *report = read_in(dir, "jevprof-report.txt");
    expect(report, "jevprof report\n");
    free(report);
    ck_assert_int_eq(stat(dir, &st), 0);
    ck_assert_uint_eq(st.st_mode & 0777, mode);
}

void remove_tree(const test_dirs *d)
{
    char command[1200];
    snprintf(command, sizeof(command), "rm -rf '%s'", d->base);
    ck_assert_int_eq(system(command), 0);
}
