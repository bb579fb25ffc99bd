/*
 * test_registry.c - the POSIX registry of platform.h: hive files named by the
 * environment, atomic rewrites, JEVMON_REGISTRY_FILES, and the cache noticing changed files.
 * Refusing files other users can write: test_registry_trust.c.
 *
 * Every test works in its own mkdtemp directory (Check forks one process per test, so
 * the environment and the registry cache start afresh each time).
 */
#include <check.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/platform.h"
#include "../support/testkit.h"
#include "registry_files.h"

/* ---- Files named by the environment ------------------------------------------------------ */

START_TEST(missing_files_are_an_empty_registry)
{
    char **names = NULL;
    size_t count = 9;
    DWORD d;
    ck_assert_int_eq(status_of(PLAT_HKLM, JAVA_VM, "x"), PLAT_REG_NOT_FOUND);
    ck_assert_int_eq(status_of(PLAT_HKCU, JAVA_VM, "x"), PLAT_REG_NOT_FOUND);
    ck_assert_int_eq(status_of(PLAT_HKCR, "CLSID", NULL), PLAT_REG_NOT_FOUND);
    ck_assert_int_eq(plat_reg_get_dword(PLAT_HKLM, JAVA_VM, "x", &d), PLAT_REG_NOT_FOUND);
    ck_assert_int_eq(plat_reg_subkeys(PLAT_HKLM, JEVMON_MONITORS_KEY, &names, &count), PLAT_REG_NOT_FOUND);
    ck_assert_uint_eq(count, 0);
    ck_assert_int_eq(tk_log_count, 0);
}
END_TEST

START_TEST(writes_create_the_file_and_read_back)
{
    const char *key = JEVMON_MONITORS_KEY "\\prof";
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKLM, key, NULL, "a profiler"), PLAT_REG_OK);
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKLM, key, "CLSID", "{63DAD816-1308-449B-AC11-1E702EB2D15F}"),
                     PLAT_REG_OK);
    ck_assert_int_eq(plat_reg_set_dword(PLAT_HKLM, key, "InitOptions", 0x0C), PLAT_REG_OK);
    assert_string(PLAT_HKLM, key, NULL, "a profiler");
    assert_string(PLAT_HKLM, key, "clsid", "{63DAD816-1308-449B-AC11-1E702EB2D15F}");
    DWORD options = 0;
    ck_assert_int_eq(plat_reg_get_dword(PLAT_HKLM, key, "InitOptions", &options), PLAT_REG_OK);
    ck_assert_uint_eq(options, 0x0C);
    ck_assert_int_eq(plat_reg_get_dword(PLAT_HKLM, key, "CLSID", &options), PLAT_REG_WRONG_TYPE);
    ck_assert_int_eq(status_of(PLAT_HKLM, key, "InitOptions"), PLAT_REG_WRONG_TYPE);

    char *text = read_file(system_path);
    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(text, V5 "[HKEY_LOCAL_MACHINE\\Software]\n\n"
                              "[HKEY_LOCAL_MACHINE\\Software\\Microsoft]\n\n"
                              "[HKEY_LOCAL_MACHINE\\Software\\Microsoft\\Java VM]\n\n"
                              "[HKEY_LOCAL_MACHINE\\Software\\Microsoft\\Java VM\\Monitors]\n\n"
                              "[HKEY_LOCAL_MACHINE\\Software\\Microsoft\\Java VM\\Monitors\\prof]\n"
                              "@=\"a profiler\"\n"
                              "\"CLSID\"=\"{63DAD816-1308-449B-AC11-1E702EB2D15F}\"\n"
                              "\"InitOptions\"=dword:0000000c\n\n");
    free(text);
    struct stat st;
    ck_assert_int_eq(stat(system_path, &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, 0644);
    ck_assert_int_eq(access(user_path, F_OK), -1); /* HKLM writes leave the user's file alone */
    ck_assert_int_eq(tk_log_count, 0);
}
END_TEST

START_TEST(user_hive_has_its_own_file_and_directories)
{
    ck_assert_int_eq(plat_reg_set_dword(PLAT_HKCU, JAVA_VM, "EnableEventMonitors", 1), PLAT_REG_OK);
    DWORD enabled = 0;
    ck_assert_int_eq(plat_reg_get_dword(PLAT_HKCU, JAVA_VM, "EnableEventMonitors", &enabled), PLAT_REG_OK);
    ck_assert_uint_eq(enabled, 1);
    ck_assert_int_eq(plat_reg_get_dword(PLAT_HKLM, JAVA_VM, "EnableEventMonitors", &enabled), PLAT_REG_NOT_FOUND);
    char *text = read_file(user_path);
    ck_assert_ptr_nonnull(text);
    ck_assert_ptr_nonnull(strstr(text, "[HKEY_CURRENT_USER\\Software\\Microsoft\\Java VM]\n"
                                       "\"EnableEventMonitors\"=dword:00000001\n"));
    free(text);
    ck_assert_int_eq(access(system_path, F_OK), -1);
}
END_TEST

START_TEST(classes_root_writes_to_the_machine_and_reads_user_first)
{
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKCR, "CLSID\\{A}\\InprocServer32", NULL, "/machine/a.so"),
                     PLAT_REG_OK);
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKCR, "CLSID\\{B}\\InprocServer32", NULL, "/machine/b.so"),
                     PLAT_REG_OK);
    char *text = read_file(system_path);
    ck_assert_ptr_nonnull(strstr(text, "[HKEY_LOCAL_MACHINE\\Software\\Classes\\CLSID\\{A}\\InprocServer32]\n"
                                       "@=\"/machine/a.so\"\n"));
    free(text);
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKCU, "Software\\Classes\\CLSID\\{A}\\InprocServer32", NULL,
                                         "/user/a.so"),
                     PLAT_REG_OK);
    assert_string(PLAT_HKCR, "CLSID\\{A}\\InprocServer32", NULL, "/user/a.so");
    assert_string(PLAT_HKCR, "CLSID\\{B}\\InprocServer32", NULL, "/machine/b.so");
    char **names;
    size_t count;
    ck_assert_int_eq(plat_reg_subkeys(PLAT_HKCR, "CLSID", &names, &count), PLAT_REG_OK);
    ck_assert_uint_eq(count, 2);
    ck_assert_str_eq(names[0], "{A}");
    ck_assert_str_eq(names[1], "{B}");
    plat_free_strings(names, count);
    ck_assert_int_eq(plat_reg_delete_tree(PLAT_HKCR, "CLSID\\{B}"), PLAT_REG_OK);
    ck_assert_int_eq(status_of(PLAT_HKCR, "CLSID\\{B}\\InprocServer32", NULL), PLAT_REG_NOT_FOUND);
}
END_TEST

START_TEST(hand_written_files_are_read_and_kept_by_writes)
{
    /* As regedit would export it: UTF-16LE with a byte order mark, CRLF. */
    static const char utf16[] = "\xFF\xFE"
                                "W\0i\0n\0d\0o\0w\0s\0 \0R\0e\0g\0i\0s\0t\0r\0y\0 \0E\0d\0i\0t\0o\0r\0 \0"
                                "V\0e\0r\0s\0i\0o\0n\0 \0"
                                "5\0.\0"
                                "0\0"
                                "0\0\r\0\n\0"
                                "[\0H\0K\0L\0M\0\\\0K\0]\0\r\0\n\0"
                                "\"\0o\0l\0d\0\"\0=\0\"\0\xE9\0\"\0\r\0\n\0";
    FILE *f = fopen(system_path, "wb");
    fwrite(utf16, 1, sizeof(utf16) - 1, f);
    fclose(f);
    chmod(system_path, 0644);
    assert_string(PLAT_HKLM, "K", "old", "\xC3\xA9");
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKLM, "K", "new", "n"), PLAT_REG_OK);
    assert_string(PLAT_HKLM, "K", "old", "\xC3\xA9");
    assert_string(PLAT_HKLM, "K", "new", "n");
    char *text = read_file(system_path); /* rewritten as UTF-8 */
    ck_assert_str_eq(text, V5 "[HKEY_LOCAL_MACHINE\\K]\n\"old\"=\"\xC3\xA9\"\n\"new\"=\"n\"\n\n");
    free(text);
}
END_TEST

START_TEST(delete_tree_rewrites_the_file)
{
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKLM, "A\\B\\C", "x", "1"), PLAT_REG_OK);
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKLM, "A\\Keep", "y", "2"), PLAT_REG_OK);
    ck_assert_int_eq(plat_reg_delete_tree(PLAT_HKLM, "a\\b"), PLAT_REG_OK);
    ck_assert_int_eq(status_of(PLAT_HKLM, "A\\B\\C", "x"), PLAT_REG_NOT_FOUND);
    assert_string(PLAT_HKLM, "A\\Keep", "y", "2");
    ck_assert_int_eq(plat_reg_delete_tree(PLAT_HKLM, "A\\B"), PLAT_REG_NOT_FOUND);
    ck_assert_int_eq(plat_reg_delete_tree(PLAT_HKCU, "Nothing"), PLAT_REG_NOT_FOUND);
    ck_assert_int_eq(access(user_path, F_OK), -1); /* nothing deleted, nothing written */
    char *text = read_file(system_path);
    ck_assert_ptr_null(strstr(text, "\\B"));
    free(text);
}
END_TEST

START_TEST(malformed_paths_are_refused)
{
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKLM, "A\\\\B", "x", "1"), PLAT_REG_ERROR);
    ck_assert_int_eq(plat_reg_delete_tree(PLAT_HKLM, ""), PLAT_REG_ERROR);
    ck_assert_int_eq(tk_log_count, 2);
    ck_assert_int_eq(access(system_path, F_OK), -1);
}
END_TEST

/* ---- Atomic writes --------------------------------------------------------------------------- */

START_TEST(writes_replace_the_file_atomically)
{
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKLM, "K", "v", "old"), PLAT_REG_OK);
    struct stat before, after;
    ck_assert_int_eq(stat(system_path, &before), 0);
    /* A reader that opened the old file keeps reading the old file, whole. */
    int fd = open(system_path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKLM, "K", "v", "new"), PLAT_REG_OK);
    char old[256] = "";
    ck_assert_int_gt(read(fd, old, sizeof(old) - 1), 0);
    close(fd);
    ck_assert_ptr_nonnull(strstr(old, "\"v\"=\"old\""));
    ck_assert_int_eq(stat(system_path, &after), 0);
    ck_assert(before.st_ino != after.st_ino); /* renamed into place, not written over */
    assert_string(PLAT_HKLM, "K", "v", "new");
    /* No temporary file is left behind. */
    DIR *d = opendir(dir);
    int entries = 0;
    for (struct dirent *e; (e = readdir(d));)
        entries += e->d_name[0] != '.' || strstr(e->d_name, ".reg.") != NULL;
    closedir(d);
    ck_assert_int_eq(entries, 1);
}
END_TEST

START_TEST(failed_write_leaves_the_file_alone)
{
    char blocker[300], inside[400];
    in_dir(blocker, sizeof(blocker), "blocker");
    write_file(blocker, "a file, not a directory", 0644);
    snprintf(inside, sizeof(inside), "%s/system.reg", blocker);
    setenv("JEVMON_REGISTRY_SYSTEM", inside, 1);
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKLM, "K", "v", "x"), PLAT_REG_ERROR);
    ck_assert_int_eq(tk_log_count, 1);
    ck_assert_msg(strstr(tk_log_lines[0], inside) && strstr(tk_log_lines[0], "cannot be written"), "%s",
                  tk_log_lines[0]);
    char *text = read_file(blocker);
    ck_assert_str_eq(text, "a file, not a directory");
    free(text);
}
END_TEST

START_TEST(read_only_directory_fails_cleanly)
{
    if (geteuid() == 0) /* root writes anywhere */
        return;
    char sub[300];
    in_dir(sub, sizeof(sub), "ro");
    ck_assert_int_eq(mkdir(sub, 0555), 0);
    char path[400];
    snprintf(path, sizeof(path), "%s/system.reg", sub);
    setenv("JEVMON_REGISTRY_SYSTEM", path, 1);
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKLM, "K", "v", "x"), PLAT_REG_ERROR);
    ck_assert(tk_logged("cannot create a temporary file"));
}
END_TEST

/* Readers on other threads see the value before or after each write, never a torn file. */
static void read_many(void *arg)
{
    int *bad = arg;
    for (int i = 0; i < 200; i++) {
        char *value = NULL;
        if (plat_reg_get_string(PLAT_HKLM, "K", "v", &value) != PLAT_REG_OK || strncmp(value, "value ", 6) != 0)
            __atomic_add_fetch(bad, 1, __ATOMIC_SEQ_CST);
        free(value);
    }
}

START_TEST(concurrent_readers_and_a_writer)
{
    int bad = 0;
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKLM, "K", "v", "value 0"), PLAT_REG_OK);
    plat_thread *readers[4];
    for (int i = 0; i < 4; i++)
        ck_assert_ptr_nonnull(readers[i] = plat_thread_start("test", read_many, &bad));
    for (int i = 1; i <= 50; i++) {
        char value[32];
        snprintf(value, sizeof(value), "value %d", i);
        ck_assert_int_eq(plat_reg_set_string(PLAT_HKLM, "K", "v", value), PLAT_REG_OK);
    }
    for (int i = 0; i < 4; i++)
        plat_thread_join(readers[i]);
    ck_assert_int_eq(bad, 0);
    assert_string(PLAT_HKLM, "K", "v", "value 50");
}
END_TEST

/* ---- Malformed files ---------------------------------------------------------------------------- */

START_TEST(malformed_lines_are_reported_once_and_block_rewrites)
{
    static const char text[] = V5 "[HKLM\\K]\n\"good\"=\"1\"\n\"bad\"=dword:1\n";
    write_file(system_path, text, 0644);
    assert_string(PLAT_HKLM, "K", "good", "1");
    assert_string(PLAT_HKLM, "K", "good", "1");
    ck_assert_int_eq(tk_log_count, 1);
    ck_assert_msg(strstr(tk_log_lines[0], system_path) &&
                      strstr(tk_log_lines[0], ":5: dword value is not 8 hex digits"),
                  "%s", tk_log_lines[0]);
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKLM, "K", "new", "x"), PLAT_REG_ERROR);
    ck_assert(tk_logged("is not rewritten: it has malformed lines"));
    char *now = read_file(system_path);
    ck_assert_str_eq(now, text);
    free(now);
}
END_TEST

START_TEST(changed_file_is_read_again)
{
    write_file(system_path, V5 "[HKLM\\K]\n\"v\"=\"first\"\n", 0644);
    assert_string(PLAT_HKLM, "K", "v", "first");
    write_file(system_path, V5 "[HKLM\\K]\n\"v\"=\"second, longer\"\n", 0644);
    assert_string(PLAT_HKLM, "K", "v", "second, longer");
    unlink(system_path);
    ck_assert_int_eq(status_of(PLAT_HKLM, "K", "v"), PLAT_REG_NOT_FOUND);
}
END_TEST

/* ---- JEVMON_REGISTRY_FILES --------------------------------------------------------------------- */

START_TEST(extra_files_merge_last_and_are_never_written)
{
    char one[300], two[300], list[800];
    in_dir(one, sizeof(one), "one.reg");
    in_dir(two, sizeof(two), "two.reg");
    write_file(system_path, V5 "[HKLM\\K]\n\"a\"=\"system\"\n\"b\"=\"system\"\n\"c\"=\"system\"\n", 0644);
    static const char one_text[] = V5 "[HKLM\\K]\n\"b\"=\"one\"\n\"c\"=\"one\"\n[HKCU\\U]\n\"u\"=\"one\"\n";
    write_file(one, one_text, 0644);
    write_file(two, V5 "[HKLM\\K]\n\"c\"=\"two\"\n[HKCR\\CLSID\\{X}]\n@=\"x\"\n", 0644);
    snprintf(list, sizeof(list), ":%s::%s:", one, two);
    setenv("JEVMON_REGISTRY_FILES", list, 1);
    assert_string(PLAT_HKLM, "K", "a", "system");
    assert_string(PLAT_HKLM, "K", "b", "one");
    assert_string(PLAT_HKLM, "K", "c", "two");
    assert_string(PLAT_HKCU, "U", "u", "one");
    assert_string(PLAT_HKCR, "CLSID\\{X}", NULL, "x");
    /* Writes go to the hive's own file; the extra files stay as they were. */
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKLM, "K", "b", "written"), PLAT_REG_OK);
    assert_string(PLAT_HKLM, "K", "b", "one"); /* the extra file still wins */
    char *text = read_file(one);
    ck_assert_str_eq(text, one_text);
    free(text);
    text = read_file(system_path);
    ck_assert_ptr_nonnull(strstr(text, "\"b\"=\"written\""));
    free(text);
    ck_assert_int_eq(plat_reg_delete_tree(PLAT_HKCR, "CLSID\\{X}"), PLAT_REG_NOT_FOUND);
    ck_assert_int_eq(tk_log_count, 0);
}
END_TEST

/* ---- Default locations -------------------------------------------------------------------------- */

START_TEST(user_file_defaults_to_xdg_config_home)
{
    char xdg[300], expected[400];
    in_dir(xdg, sizeof(xdg), "xdg");
    unsetenv("JEVMON_REGISTRY_USER");
    setenv("XDG_CONFIG_HOME", xdg, 1);
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKCU, "K", "v", "x"), PLAT_REG_OK);
    snprintf(expected, sizeof(expected), "%s/jevmon/user.reg", xdg);
    ck_assert_int_eq(access(expected, F_OK), 0);
}
END_TEST

START_TEST(user_file_defaults_to_home_config)
{
    char home[300], expected[400];
    in_dir(home, sizeof(home), "home");
    unsetenv("JEVMON_REGISTRY_USER");
    unsetenv("XDG_CONFIG_HOME");
    setenv("HOME", home, 1);
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKCU, "K", "v", "x"), PLAT_REG_OK);
    snprintf(expected, sizeof(expected), "%s/.config/jevmon/user.reg", home);
    ck_assert_int_eq(access(expected, F_OK), 0);
    /* A relative XDG_CONFIG_HOME is ignored, as the XDG rules say. */
    setenv("XDG_CONFIG_HOME", "relative", 1);
    assert_string(PLAT_HKCU, "K", "v", "x");
}
END_TEST

/* ---- Once per process ------------------------------------------------------------------------ */

/* The test's stderr goes to a file while fn runs; the text written there, malloc'd. */
static char *stderr_of(void (*fn)(void))
{
    char path[400];
    in_dir(path, sizeof(path), "stderr.txt");
    fflush(stderr);
    int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    dup2(fd, 2);
    close(fd);
    fn();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    return read_file(path);
}

typedef int (*get_dword_fn)(const char *key, const char *name, DWORD *value);
static get_dword_fn other_copy;

static void read_through_both_copies(void)
{
    DWORD value = 0;
    ck_assert_int_eq(plat_reg_get_dword(PLAT_HKLM, "K", "v", &value), PLAT_REG_OK);
    ck_assert_int_eq(other_copy("K", "v", &value), PLAT_REG_OK);
    ck_assert_uint_eq(value, 7);
    ck_assert_int_eq(plat_reg_get_dword(PLAT_HKLM, "K", "v", &value), PLAT_REG_OK);
}

/* The agent and a monitor linked with libjevplat each hold a copy of the registry layer; a bad
 * file was reported by each (an empty file: 2 lines; 250 bad lines: 500).  Once per process now,
 * and again only when the file changes. */
START_TEST(a_bad_file_is_reported_once_per_process_by_every_copy)
{
    char fixture[1024], empty[300], bad[300], files[700];
    char *self = plat_module_path((const void *)stderr_of);
    ck_assert_ptr_nonnull(self);
    snprintf(fixture, sizeof(fixture), "%s", self); /* <build>/asan/tests/test_registry */
    free(self);
    for (int i = 0; i < 3; i++)
        *strrchr(fixture, '/') = '\0';
    strcat(fixture, "/fixtures/fx_regreader.so");
    void *library = dlopen(fixture, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(library != NULL, "%s", dlerror());
    void *symbol = dlsym(library, "FxRegReaderGetDword");
    ck_assert_ptr_nonnull(symbol);
    memcpy(&other_copy, &symbol, sizeof(symbol));

    write_file(system_path, V5 "[HKLM\\K]\n\"v\"=dword:00000007\n", 0644);
    in_dir(empty, sizeof(empty), "empty.reg");
    in_dir(bad, sizeof(bad), "bad.reg");
    write_file(empty, "", 0644);
    write_file(bad, V5 "[HKLM\\B]\n\"a\"=x\n\"b\"=y\n\"c\"=z\n", 0644);
    snprintf(files, sizeof(files), "%s:%s", empty, bad);
    setenv("JEVMON_REGISTRY_FILES", files, 1);
    jv_log_set_sink(NULL, NULL); /* both copies write to stderr */

    char *text = stderr_of(read_through_both_copies);
    ck_assert_msg(tk_count(text, "jevmon: ") == 4, "%s", text);
    ck_assert_int_eq(tk_count(text, "empty.reg:1: not a registry file"), 1);
    ck_assert_int_eq(tk_count(text, "bad.reg:4: unknown value type"), 1);
    ck_assert_int_eq(tk_count(text, "bad.reg:6: unknown value type"), 1);
    free(text);

    /* Changed, it is a new file: reported again, once. */
    write_file(bad, V5 "[HKLM\\B]\n\"a\"=x\n", 0644);
    text = stderr_of(read_through_both_copies);
    ck_assert_msg(tk_count(text, "jevmon: ") == 1 && tk_count(text, "bad.reg:4: unknown value type") == 1, "%s",
                  text);
    free(text); /* the library stays: its copy's registry cache is reachable only from it */
}
END_TEST

static Suite *registry_suite(void)
{
    Suite *s = suite_create("registry");
    TCase *files = tcase_create("files");
    tcase_add_checked_fixture(files, setup, teardown);
    tcase_add_test(files, missing_files_are_an_empty_registry);
    tcase_add_test(files, writes_create_the_file_and_read_back);
    tcase_add_test(files, user_hive_has_its_own_file_and_directories);
    tcase_add_test(files, classes_root_writes_to_the_machine_and_reads_user_first);
    tcase_add_test(files, hand_written_files_are_read_and_kept_by_writes);
    tcase_add_test(files, delete_tree_rewrites_the_file);
    tcase_add_test(files, malformed_paths_are_refused);
    tcase_add_test(files, malformed_lines_are_reported_once_and_block_rewrites);
    tcase_add_test(files, changed_file_is_read_again);
    tcase_add_test(files, a_bad_file_is_reported_once_per_process_by_every_copy);
    tcase_add_test(files, user_file_defaults_to_xdg_config_home);
    tcase_add_test(files, user_file_defaults_to_home_config);
    suite_add_tcase(s, files);

    TCase *writes = tcase_create("writes");
    tcase_add_checked_fixture(writes, setup, teardown);
    tcase_add_test(writes, writes_replace_the_file_atomically);
    tcase_add_test(writes, failed_write_leaves_the_file_alone);
    tcase_add_test(writes, read_only_directory_fails_cleanly);
    tcase_add_test(writes, concurrent_readers_and_a_writer);
    tcase_add_test(writes, extra_files_merge_last_and_are_never_written);
    suite_add_tcase(s, writes);
    return s;
}

int main(void)
{
    return tk_run_suite(registry_suite());
}

