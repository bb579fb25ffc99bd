/*
 * test_output_files.c - the platform layer's safe output files on every target (Linux, and
 * Windows under Wine): a file is replaced whole or not at all, a directory at its name is left
 * alone, a failing writer leaves no file and says why, a new file is created only where nothing
 * is, a process is known to run.  (Links, FIFOs and other users' directories: test_jevprof_files,
 * on Linux as root.)
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/platform.h"
#include "../support/testkit.h"

static char dir[256];

static void setup(void)
{
    char why[256];
    snprintf(dir, sizeof(dir), "test_output_files.%lu", (unsigned long)plat_process_id());
    ck_assert_msg(plat_make_directories(dir, why, sizeof(why)) == 0, "%s", why);
}

static void teardown(void)
{
    static const char *const names[] = {"out.txt", "new.txt"};
    char path[512];
    for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
        plat_remove_file(dir, names[i]);
    snprintf(path, sizeof(path), "%s/sub", dir);
    rmdir(path);
    rmdir(dir);
}

static char *read_back(const char *name)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return tk_read_file(path);
}

static int write_new(FILE *out, void *context)
{
    (void)context;
    return fputs("new\n", out) < 0;
}

static int fail_full(FILE *out, void *context)
{
    (void)context;
    fputs("half", out);
    errno = ENOSPC;
    return 1;
}

START_TEST(a_file_is_replaced_whole)
{
    char why[256] = "";
    ck_assert_int_eq(plat_create_new_file(dir, "out.txt", "old\n", why, sizeof(why)), 0);
    ck_assert_msg(plat_write_file(dir, "out.txt", write_new, NULL, why, sizeof(why)) == 0, "%s", why);
    char *text = read_back("out.txt");
    ck_assert_str_eq(text, "new\n");
    free(text);
}
END_TEST

START_TEST(a_failing_writer_leaves_the_old_file_and_says_why)
{
    char why[256] = "", small[16];
    ck_assert_int_eq(plat_create_new_file(dir, "out.txt", "old\n", why, sizeof(why)), 0);
    ck_assert_int_eq(plat_write_file(dir, "out.txt", fail_full, NULL, why, sizeof(why)), -1);
    ck_assert_str_eq(why, strerror(ENOSPC));
    ck_assert_int_eq(plat_read_small_file(dir, "out.txt", small, sizeof(small)), 0);
    ck_assert_str_eq(small, "old\n");
    /* and no temporary file stays: the directory empties */
    ck_assert_int_eq(plat_remove_file(dir, "out.txt"), 0);
    ck_assert_int_eq(rmdir(dir), 0);
    ck_assert_int_eq(plat_make_directories(dir, why, sizeof(why)), 0);
}
END_TEST

START_TEST(a_directory_at_the_name_is_left_alone)
{
    char why[256] = "", path[512];
    snprintf(path, sizeof(path), "%s/sub", dir);
    ck_assert_int_eq(plat_make_directories(path, why, sizeof(why)), 0);
    ck_assert_int_eq(plat_write_file(dir, "sub", write_new, NULL, why, sizeof(why)), -1);
    ck_assert_str_eq(why, "it is a directory, not a regular file; left as it is");
    ck_assert_int_eq(plat_check_private_directory(path, why, sizeof(why)), 0); /* still there */
    ck_assert_int_eq(plat_remove_file(dir, "sub"), -1); /* not a file */
}
END_TEST

START_TEST(a_new_file_is_made_only_where_nothing_is)
{
    char why[256] = "", small[16];
    ck_assert_int_eq(plat_create_new_file(dir, "new.txt", "1234\n", why, sizeof(why)), 0);
    ck_assert_int_eq(plat_create_new_file(dir, "new.txt", "5678\n", why, sizeof(why)), 1);
    ck_assert_int_eq(plat_read_small_file(dir, "new.txt", small, sizeof(small)), 0);
    ck_assert_str_eq(small, "1234\n");
    ck_assert_int_eq(plat_read_small_file(dir, "new.txt", small, 3), 0); /* at most size - 1 bytes */
    ck_assert_str_eq(small, "12");
    ck_assert_int_eq(plat_remove_file(dir, "new.txt"), 0);
    ck_assert_int_eq(plat_read_small_file(dir, "new.txt", small, sizeof(small)), -1);
}
END_TEST

START_TEST(this_process_runs)
{
    ck_assert_int_eq(plat_process_running(plat_process_id()), 1);
    ck_assert_int_eq(plat_process_running(0x7ffffff0), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("output_files");
    TCase *tc = tcase_create("output_files");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, a_file_is_replaced_whole);
    tcase_add_test(tc, a_failing_writer_leaves_the_old_file_and_says_why);
    tcase_add_test(tc, a_directory_at_the_name_is_left_alone);
    tcase_add_test(tc, a_new_file_is_made_only_where_nothing_is);
    tcase_add_test(tc, this_process_runs);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
