/*
 * test_kernel_symbols.c - the names of kernel frames (posix_kernel_symbols.c): a kernel function
 * named from /proc/kallsyms, the table kept in this user's cache for the later runs of the boot
 * and taken from there, and caches that are not whole, not this user's or of another boot.
 * Each test is a process of its own (Check forks it): "a run" is a child it forks, which names
 * one function and exits, leaving the cache behind as a profiled program would.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform/platform.h"
#include "../support/as_nobody.h"
#include "../support/testkit.h"

#define FUNCTION "vfs_read" /* in every Linux kernel, in vmlinux */

static char tmp[256], cache_dir[300], cache_file[400];
static uint64_t function_address; /* FUNCTION's, 0 where /proc/kallsyms hides addresses */

static void setup(void)
{
    snprintf(tmp, sizeof(tmp), "/tmp/jevmon-ksyms-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmp));
    setenv("XDG_CACHE_HOME", tmp, 1);
    char *boot_id = tk_read_file("/proc/sys/kernel/random/boot_id");
    boot_id[strcspn(boot_id, "\n")] = '\0';
    snprintf(cache_dir, sizeof(cache_dir), "%s/jevmon", tmp);
    snprintf(cache_file, sizeof(cache_file), "%s/kernel-symbols-%s", cache_dir, boot_id);
    free(boot_id);
    char *kallsyms = tk_read_file("/proc/kallsyms");
    const char *line = strstr(kallsyms, " T " FUNCTION "\n");
    while (line && line > kallsyms && line[-1] != '\n')
        line--;
    function_address = line ? strtoull(line, NULL, 16) : 0;
    free(kallsyms);
    tk_capture_log();
}

static void teardown(void)
{
    jv_log_set_sink(NULL, NULL);
    char command[400];
    snprintf(command, sizeof(command), "rm -rf '%s'", tmp);
    ck_assert_int_eq(system(command), 0);
}

/* Where kernel addresses are hidden from this process nothing is named: the test says so. */
static int skipped(void)
{
    if (!function_address)
        printf("skipped: /proc/kallsyms shows no addresses here (kptr_restrict, or not root)\n");
    return !function_address;
}

/* The name of a kernel address in this process. */
static const char *name_of(uint64_t address)
{
    static char name[256];
    if (!plat_kernel_symbol(address, name, sizeof(name)))
        snprintf(name, sizeof(name), "(none)");
    return name;
}

/* A run before this one: a child names FUNCTION, leaving the cache behind. */
static void earlier_run(void)
{
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0)
        _exit(strcmp(name_of(function_address + 1), "vmlinux`" FUNCTION) != 0);
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the earlier run did not name " FUNCTION);
}

/* Replaces FUNCTION's name in the cache file by one of the same length: a name only the cache has. */
static void rename_in_cache(const char *path)
{
    char *bytes = NULL;
    size_t size = 0;
    FILE *in = fopen(path, "rb");
    ck_assert_ptr_nonnull(in);
    ck_assert_int_eq(fseek(in, 0, SEEK_END), 0);
    size = (size_t)ftell(in);
    rewind(in);
    ck_assert_ptr_nonnull(bytes = malloc(size));
    ck_assert_uint_eq(fread(bytes, 1, size, in), size);
    fclose(in);
    const char wanted[] = "vmlinux`" FUNCTION;
    char *at = memmem(bytes, size, wanted, sizeof(wanted)); /* with its NUL: the whole name */
    ck_assert_msg(at != NULL, "no %s in the cache %s", wanted, path);
    at[sizeof(wanted) - 2] = 'X';
    FILE *out = fopen(path, "r+b");
    ck_assert_ptr_nonnull(out);
    ck_assert_uint_eq(fwrite(bytes, 1, size, out), size);
    fclose(out);
    free(bytes);
}

START_TEST(a_kernel_function_is_named_and_kept_for_this_boot)
{
    if (skipped())
        return;
    earlier_run();
    struct stat dir, file;
    ck_assert_int_eq(stat(cache_dir, &dir), 0);
    ck_assert_int_eq(dir.st_mode & 0777, 0700);
    ck_assert_int_eq(lstat(cache_file, &file), 0);
    ck_assert(S_ISREG(file.st_mode));
    ck_assert_uint_eq(file.st_uid, geteuid());
    ck_assert_int_eq(file.st_mode & 022, 0);
    ck_assert_str_eq(name_of(function_address), "vmlinux`" FUNCTION);
    ck_assert_str_eq(name_of(function_address + 16), "vmlinux`" FUNCTION);
    ck_assert_str_eq(name_of(0x1000), "(none)"); /* the user half is not the kernel's */
    ck_assert_int_eq(tk_log_count, 0);
}
END_TEST

START_TEST(a_later_run_takes_the_names_from_the_cache)
{
    if (skipped())
        return;
    earlier_run();
    rename_in_cache(cache_file);
    ck_assert_str_eq(name_of(function_address + 1), "vmlinux`vfs_reaX");
    ck_assert_int_eq(tk_log_count, 0);
}
END_TEST

START_TEST(a_cache_not_whole_is_said_and_written_again)
{
    if (skipped())
        return;
    earlier_run();
    struct stat whole, after;
    ck_assert_int_eq(stat(cache_file, &whole), 0);
    ck_assert_int_eq(truncate(cache_file, whole.st_size - 100), 0);
    ck_assert_str_eq(name_of(function_address + 1), "vmlinux`" FUNCTION);
    ck_assert_int_eq(tk_log_count, 1);
    ck_assert_msg(tk_logged(cache_file) && tk_logged("its sizes do not add up") && tk_logged("written again"), "said: %s",
                  tk_log_lines[0]);
    ck_assert_int_eq(stat(cache_file, &after), 0);
    ck_assert_int_eq(after.st_size, whole.st_size);
}
END_TEST

START_TEST(a_cache_others_could_have_written_is_left_alone)
{
    if (skipped())
        return;
    earlier_run();
    rename_in_cache(cache_file);
    ck_assert_int_eq(chmod(cache_file, 0666), 0);
    ck_assert_str_eq(name_of(function_address + 1), "vmlinux`" FUNCTION);
    ck_assert_int_eq(tk_log_count, 1);
    ck_assert_msg(tk_logged("other users can write it") && tk_logged("left as it is"), "said: %s", tk_log_lines[0]);
    struct stat st;
    ck_assert_int_eq(stat(cache_file, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0666); /* never chmodded, nor replaced */
}
END_TEST

START_TEST(a_link_at_the_cache_is_not_followed)
{
    if (skipped())
        return;
    earlier_run();
    char elsewhere[400];
    snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere", tmp);
    ck_assert_int_eq(rename(cache_file, elsewhere), 0);
    rename_in_cache(elsewhere);
    ck_assert_int_eq(symlink(elsewhere, cache_file), 0);
    ck_assert_str_eq(name_of(function_address + 1), "vmlinux`" FUNCTION);
    ck_assert_int_eq(tk_log_count, 1);
    ck_assert_msg(tk_logged("it is a symbolic link") && tk_logged("left as it is"), "said: %s", tk_log_lines[0]);
    struct stat st;
    ck_assert_int_eq(lstat(cache_file, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
}
END_TEST

START_TEST(a_cache_of_another_users_is_not_used)
{
    if (skipped())
        return;
    if (!as_nobody_possible()) {
        printf("skipped: not root: no file of another user can be made\n");
        return;
    }
    earlier_run();
    rename_in_cache(cache_file);
    ck_assert_int_eq(chown(cache_file, NOBODY_UID, NOBODY_UID), 0);
    ck_assert_str_eq(name_of(function_address + 1), "vmlinux`" FUNCTION);
    ck_assert_int_eq(tk_log_count, 1);
    ck_assert_msg(tk_logged("belongs to uid 65534"), "said: %s", tk_log_lines[0]);
}
END_TEST

START_TEST(a_cache_directory_others_can_enter_is_not_used)
{
    if (skipped())
        return;
    ck_assert_int_eq(mkdir(cache_dir, 0755), 0);
    ck_assert_int_eq(chmod(cache_dir, 0755), 0);
    ck_assert_str_eq(name_of(function_address + 1), "vmlinux`" FUNCTION);
    ck_assert_int_eq(tk_log_count, 1);
    ck_assert_msg(tk_logged(cache_dir) && tk_logged("not used"), "said: %s", tk_log_lines[0]);
    ck_assert_int_eq(access(cache_file, F_OK), -1);
}
END_TEST

START_TEST(the_caches_of_other_boots_are_removed)
{
    if (skipped())
        return;
    char old[400];
    snprintf(old, sizeof(old), "%s/kernel-symbols-00000000-0000-0000-0000-000000000000", cache_dir);
    ck_assert_int_eq(mkdir(cache_dir, 0700), 0);
    int fd = open(old, O_WRONLY | O_CREAT | O_EXCL, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "an old boot's", 13), 13);
    close(fd);
    earlier_run();
    ck_assert_int_eq(access(cache_file, F_OK), 0);
    ck_assert_int_eq(access(old, F_OK), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kernel_symbols");
    TCase *tc = tcase_create("cache");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, a_kernel_function_is_named_and_kept_for_this_boot);
    tcase_add_test(tc, a_later_run_takes_the_names_from_the_cache);
    tcase_add_test(tc, a_cache_not_whole_is_said_and_written_again);
    tcase_add_test(tc, a_cache_others_could_have_written_is_left_alone);
    tcase_add_test(tc, a_link_at_the_cache_is_not_followed);
    tcase_add_test(tc, a_cache_of_another_users_is_not_used);
    tcase_add_test(tc, a_cache_directory_others_can_enter_is_not_used);
    tcase_add_test(tc, the_caches_of_other_boots_are_removed);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
