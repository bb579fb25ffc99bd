/*
 * test_install.c - the SDK as a user outside this tree gets it: `make install` into a temporary
 * DESTDIR, a monitor (tests/sdk/sdk_monitor/countmon.c, copied out of the tree) built with only
 * `pkg-config --cflags --libs jevmon`, registered with the installed jevmon-regsvr and run
 * under the installed agent on every JDK; the installed `jevprof` command; `make uninstall`
 * removing exactly what was installed.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../support/testkit.h"
#include "support/jvmrun.h"

#define PREFIX "/opt/jevmon-test"

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;
static char tmp[256];  /* the test's directory: dest/ (DESTDIR), work/ (the user's), out.txt */
static char dest[300]; /* DESTDIR */
static char root[400]; /* DESTDIR + PREFIX: where the files are */

static int exists(const char *relative)
{
    char path[600];
    struct stat st;
    snprintf(path, sizeof(path), "%s/%s", root, relative);
    return stat(path, &st) == 0;
}

/* Once for the suite: make install into the temporary DESTDIR. */
static void install_once(void)
{
    snprintf(tmp, sizeof(tmp), "/tmp/jevmon-install-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmp));
    snprintf(dest, sizeof(dest), "%s/dest", tmp);
    snprintf(root, sizeof(root), "%s%s", dest, PREFIX);
    ck_assert_int_eq(
        jvmrun_shell(tmp, NULL, NULL, "make -C '%s' install DESTDIR='%s' PREFIX=" PREFIX, jvmrun_source_dir(), dest), 0);
}

static void remove_tmp(void)
{
    jvmrun_remove_shell_dir(tmp, "dest work");
}

START_TEST(installs_the_sdk)
{
    static const char *const files[] = {
        "lib/jevmon/libjevmon.so", "lib/jevmon/libjevprof.so", "lib/jevmon/jevprof-attach", "lib/jevmon/jevprof-pid",
        "bin/jevmon-regsvr", "bin/jevprof",
        "include/jevmon/jevmon.h", "include/jevmon/jevmon_register.h", "include/jevmon/posix/windows.h",
        "include/jevmon/jevmon.idl", "lib/libjevsdk.a", "lib/libjevplat.a", "lib/pkgconfig/jevmon.pc",
        "share/jevmon/registry/enable-profiling.reg", "share/jevmon/install-manifest",
    };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
        ck_assert_msg(exists(files[i]), "%s was not installed under %s", files[i], root);
    char *flags;
    ck_assert_int_eq(jvmrun_shell(tmp, &flags, NULL,
                                  "PKG_CONFIG_PATH='%s/lib/pkgconfig' PKG_CONFIG_SYSROOT_DIR='%s' "
                                  "pkg-config --cflags --libs jevmon", root, dest), 0);
    /* the staged files, not PREFIX's: PKG_CONFIG_SYSROOT_DIR, as docs/getting-started.md says */
    char include[700];
    snprintf(include, sizeof(include), "-I%s/include/jevmon", root);
    ck_assert_msg(strstr(flags, include) && strstr(flags, "-ljevsdk"), "pkg-config said: %s", flags);
    free(flags);
}
END_TEST

START_TEST(a_monitor_from_outside_the_tree_runs)
{
    const char *jdk = jdks[_i];
    char *out;
    /* The user's directory: the monitor's source, its build, its registry files. */
    ck_assert_int_eq(jvmrun_shell(tmp, NULL, NULL, "rm -rf work && mkdir -p work && cp '%s/tests/sdk/sdk_monitor/countmon.c' work/",
                                  jvmrun_source_dir()), 0);
    ck_assert_int_eq(jvmrun_shell(tmp, NULL, NULL, "cd work && gcc -shared -fPIC -o countmon.so countmon.c "
                                  "$(PKG_CONFIG_PATH='%s/lib/pkgconfig' PKG_CONFIG_SYSROOT_DIR='%s' pkg-config --cflags --libs jevmon)",
                                  root, dest), 0);
    char registry[600];
    snprintf(registry, sizeof(registry), "JEVMON_REGISTRY_SYSTEM='%s/work/system.reg' JEVMON_REGISTRY_USER='%s/work/user.reg'",
             tmp, tmp);
    ck_assert_int_eq(jvmrun_shell(tmp, NULL, NULL, "%s '%s/bin/jevmon-regsvr' work/countmon.so", registry, root), 0);

    char *plain;
    ck_assert_int_eq(jvmrun_shell(tmp, &plain, NULL, "'%s' -cp '%s' Workload 100", jdk, jvmrun_build_path("java")), 0);
    ck_assert_int_eq(jvmrun_shell(tmp, &out, NULL, "%s MSJAVA_ENABLE_MONITORS=1 '%s' -agentpath:'%s/lib/jevmon/libjevmon.so' -cp '%s' "
                                  "Workload 100 2>work/err.txt",
                                  registry, jdk, root, jvmrun_build_path("java")), 0);
    char err_path[600];
    snprintf(err_path, sizeof(err_path), "%s/work/err.txt", tmp);
    char *err = tk_read_file(err_path);
    long classes = 0;
    const char *said = strstr(err, "countmon: ");
    ck_assert_msg(said && sscanf(said, "countmon: %ld classes loaded", &classes) == 1, "no countmon line in:\n%s", err);
    ck_assert_msg(classes > 100, "countmon saw %ld classes loaded", classes);
    ck_assert_msg(strcmp(out, plain) == 0, "the program's output changed under the agent:\n%s\nalone:\n%s", out, plain);
    free(err);
    free(plain);
    free(out);

    ck_assert_int_eq(jvmrun_shell(tmp, NULL, NULL, "%s '%s/bin/jevmon-regsvr' -u work/countmon.so", registry, root), 0);
}
END_TEST

START_TEST(the_installed_jevprof_profiles)
{
    ck_assert_int_eq(jvmrun_shell(tmp, NULL, NULL,
                                  "HOME='%s/work' XDG_CACHE_HOME= JEVPROF_OUTPUT_DIR='%s/work/out' PATH='%s/bin':\"$PATH\" "
                                  "jevprof java -cp '%s' Workload 100",
                                  tmp, tmp, root, jvmrun_build_path("java")),
                     0);
    char report[600];
    snprintf(report, sizeof(report), "%s/work/out/jevprof-report.txt", tmp);
    char *text = tk_read_file(report);
    ck_assert_msg(strstr(text, "Workload") != NULL, "%s does not name the workload:\n%.2000s", report, text);
    free(text);
    /* a PID goes to its script, installed beside the libraries: this process is no JVM */
    char *said = NULL;
    ck_assert_int_eq(jvmrun_shell(tmp, &said, NULL, "'%s/bin/jevprof' status %d 2>&1", root, (int)getpid()), 1);
    ck_assert_msg(strstr(said, "not a Java virtual machine") != NULL, "jevprof status said: %s", said);
    free(said);
}
END_TEST

/* make dist: one archive per Windows target, laid out like the SDK for Java's. */
START_TEST(dist_archives_have_the_sdk_layout)
{
    static const char *const targets[] = {"win64", "win32"};
    static const char *const entries[] = {
        "bin/jevmon.dll", "bin/jevprof.dll", "bin/callcount.dll", "bin/logmon.dll", "include/jevmon.h",
        "include/jevmon_register.h", "lib/libjevsdk.a", "registry/enable-profiling.reg", "README.txt",
    };
    ck_assert_int_eq(jvmrun_shell(tmp, NULL, NULL, "make -C '%s' dist", jvmrun_source_dir()), 0);
    for (size_t t = 0; t < 2; t++) {
        char *listing, entry[128];
        ck_assert_int_eq(
            jvmrun_shell(tmp, &listing, NULL, "unzip -l '%s/build/dist/jevmon-%s.zip'", jvmrun_source_dir(), targets[t]), 0);
        for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
            snprintf(entry, sizeof(entry), "jevmon-%s/%s", targets[t], entries[i]);
            ck_assert_msg(strstr(listing, entry) != NULL, "%s is not in jevmon-%s.zip:\n%s", entry, targets[t], listing);
        }
        free(listing);
    }
}
END_TEST

/* Last: make uninstall leaves nothing of what make install wrote. */
START_TEST(uninstall_removes_what_was_installed)
{
    char *left;
    ck_assert_int_eq(
        jvmrun_shell(tmp, NULL, NULL, "make -C '%s' uninstall DESTDIR='%s' PREFIX=" PREFIX, jvmrun_source_dir(), dest), 0);
    ck_assert_int_eq(jvmrun_shell(tmp, &left, NULL, "find '%s' -type f", dest), 0);
    ck_assert_msg(left[0] == '\0', "left after make uninstall:\n%s", left);
    free(left);
    ck_assert_msg(!exists("include/jevmon") && !exists("lib/jevmon") && !exists("share/jevmon"),
                  "jevmon's own directories were left");
}
END_TEST

int main(void)
{
    jdk_count = jvmrun_suite_jdks(jdks);
    if (jdk_count == 0)
        return 0;
    Suite *s = suite_create("install");
    TCase *tc = tcase_create("install");
    tcase_set_timeout(tc, 600);
    tcase_add_unchecked_fixture(tc, install_once, remove_tmp);
    tcase_add_test(tc, installs_the_sdk);
    tcase_add_loop_test(tc, a_monitor_from_outside_the_tree_runs, 0, jdk_count);
    tcase_add_test(tc, the_installed_jevprof_profiles);
    tcase_add_test(tc, dist_archives_have_the_sdk_layout);
    tcase_add_test(tc, uninstall_removes_what_was_installed);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
