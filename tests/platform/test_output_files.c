/*
 * test_output_files.c - the platform layer's safe output files on every target (Linux, and
 * Windows under Wine): a file is replaced whole or not at all, a directory at its name is left
 * alone, a failing writer leaves no file and says why, a new file is created only where nothing
 * is and never seen without its text, the directory checked is the directory written however its
 * path changes afterwards, a process is known to run.  (Links, FIFOs and other users' directories:
 * test_jevprof_files, on Linux as root.)
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
static plat_output_dir *held; /* dir, open */

static void setup(void)
{
    char why[256];
    snprintf(dir, sizeof(dir), "test_output_files.%lu", (unsigned long)plat_process_id());
    held = plat_output_dir_open(dir, why, sizeof(why));
    ck_assert_msg(held != NULL, "%s", why);
}

static void teardown(void)
{
    static const char *const names[] = {"out.txt", "new.txt"};
    char path[512];
    for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
        plat_remove_file(held, names[i]);
    plat_output_dir_close(held);
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
    ck_assert_int_eq(plat_create_new_file(held, "out.txt", "old\n", why, sizeof(why)), 0);
    ck_assert_msg(plat_write_file(held, "out.txt", write_new, NULL, why, sizeof(why)) == 0, "%s", why);
    char *text = read_back("out.txt");
    ck_assert_str_eq(text, "new\n");
    free(text);
}
END_TEST

START_TEST(a_failing_writer_leaves_the_old_file_and_says_why)
{
    char why[256] = "", small[16];
    ck_assert_int_eq(plat_create_new_file(held, "out.txt", "old\n", why, sizeof(why)), 0);
    ck_assert_int_eq(plat_write_file(held, "out.txt", fail_full, NULL, why, sizeof(why)), -1);
    ck_assert_str_eq(why, strerror(ENOSPC));
    ck_assert_int_eq(plat_read_small_file(held, "out.txt", small, sizeof(small)), 0);
    ck_assert_str_eq(small, "old\n");
    /* and no temporary file stays: the directory empties */
    ck_assert_int_eq(plat_remove_file(held, "out.txt"), 0);
    plat_output_dir_close(held);
    ck_assert_int_eq(rmdir(dir), 0);
    held = plat_output_dir_open(dir, why, sizeof(why));
    ck_assert_ptr_nonnull(held);
}
END_TEST

START_TEST(a_directory_at_the_name_is_left_alone)
{
    char why[256] = "", path[512];
    snprintf(path, sizeof(path), "%s/sub", dir);
    ck_assert_int_eq(plat_make_directories(path, why, sizeof(why)), 0);
    ck_assert_int_eq(plat_write_file(held, "sub", write_new, NULL, why, sizeof(why)), -1);
    ck_assert_str_eq(why, "it is a directory, not a regular file; left as it is");
    plat_output_dir *sub = plat_output_dir_open(path, why, sizeof(why)); /* still there */
    ck_assert_msg(sub != NULL, "%s", why);
    plat_output_dir_close(sub);
    ck_assert_int_eq(plat_remove_file(held, "sub"), -1); /* not a file */
}
END_TEST

START_TEST(a_new_file_is_made_only_where_nothing_is)
{
    char why[256] = "", small[16];
    ck_assert_int_eq(plat_create_new_file(held, "new.txt", "1234\n", why, sizeof(why)), 0);
    ck_assert_int_eq(plat_create_new_file(held, "new.txt", "5678\n", why, sizeof(why)), 1);
    ck_assert_int_eq(plat_read_small_file(held, "new.txt", small, sizeof(small)), 0);
    ck_assert_str_eq(small, "1234\n");
    ck_assert_int_eq(plat_read_small_file(held, "new.txt", small, 3), 0); /* at most size - 1 bytes */
    ck_assert_str_eq(small, "12");
    ck_assert_int_eq(plat_remove_file(held, "new.txt"), 0);
    ck_assert_int_eq(plat_read_small_file(held, "new.txt", small, sizeof(small)), -1);
}
END_TEST

/* The lock file's way: a reader never finds a new file without its text (made elsewhere and
 * linked to its name; made at its name and then written, it is empty for a moment).  Each
 * round's file has a name of its own: Windows keeps a removed file's name while it is open. */
#define NEW_FILES 100
static volatile int new_file = -1; /* the round whose file is being made; NEW_FILES: done */

static void new_name(int round, char *name, size_t size)
{
    snprintf(name, size, "new%d.txt", round);
}

static void read_while_created(void *empty_seen)
{
    char small[16], name[32];
    for (int round; (round = new_file) < NEW_FILES;) {
        new_name(round, name, sizeof(name));
        if (round >= 0 && plat_read_small_file(held, name, small, sizeof(small)) == 0 && small[0] == '\0')
            ++*(int *)empty_seen;
    }
}

START_TEST(a_new_file_is_never_seen_empty)
{
    char why[256] = "", name[32];
    int empty_seen = 0;
    plat_thread *reader = plat_thread_start("test", read_while_created, &empty_seen);
    ck_assert_ptr_nonnull(reader);
    for (int i = 0; i < NEW_FILES; i++) {
        new_file = i;
        new_name(i, name, sizeof(name));
        ck_assert_msg(plat_create_new_file(held, name, "1234\n", why, sizeof(why)) == 0, "%s", why);
    }
    new_file = NEW_FILES;
    plat_thread_join(reader);
    for (int i = 0; i < NEW_FILES; i++) {
        new_name(i, name, sizeof(name));
        ck_assert_int_eq(plat_remove_file(held, name), 0);
    }
    ck_assert_int_eq(empty_seen, 0);
}
END_TEST

/* The directory checked is the one written: renamed after it was opened (where the system lets
 * a directory in use be renamed) and something else made at its path, the file still goes into
 * the directory opened, never to what its path leads to now. */
START_TEST(the_directory_checked_is_the_directory_written)
{
    char why[256] = "", path[512], moved[512], small[16];
    snprintf(path, sizeof(path), "%s/sub", dir);
    snprintf(moved, sizeof(moved), "%s/moved", dir);
    plat_output_dir *sub = plat_output_dir_open(path, why, sizeof(why));
    ck_assert_msg(sub != NULL, "%s", why);
    int renamed = rename(path, moved) == 0;
    if (renamed)
        ck_assert_int_eq(plat_make_directories(path, why, sizeof(why)), 0); /* another directory at its path */
    ck_assert_msg(plat_write_file(sub, "out.txt", write_new, NULL, why, sizeof(why)) == 0, "%s", why);
    plat_output_dir *now = plat_output_dir_open(path, why, sizeof(why)), *old = plat_output_dir_open(renamed ? moved : path, why, sizeof(why));
    ck_assert_ptr_nonnull(now);
    ck_assert_ptr_nonnull(old);
    ck_assert_int_eq(plat_read_small_file(old, "out.txt", small, sizeof(small)), 0);
    ck_assert_str_eq(small, "new\n");
    if (renamed)
        ck_assert_int_eq(plat_read_small_file(now, "out.txt", small, sizeof(small)), -1);
    ck_assert_int_eq(plat_remove_file(old, "out.txt"), 0);
    plat_output_dir_close(now);
    plat_output_dir_close(old);
    plat_output_dir_close(sub);
    if (renamed)
        ck_assert_int_eq(rmdir(moved), 0);
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
    tcase_add_test(tc, a_new_file_is_never_seen_empty);
    tcase_add_test(tc, the_directory_checked_is_the_directory_written);
    tcase_add_test(tc, this_process_runs);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
