/*
 * test_registry_trust.c - the POSIX registry of platform.h refuses hive files other users can
 * write (group or world writable, another user's, in a directory others can write, a link
 * another user made, a directory in place of a file), in one line per change of the file, and
 * reads a fixed file again; a refused JEVMON_REGISTRY_FILES file fails every hive.
 *
 * Every test works in its own mkdtemp directory (Check forks one process per test, so
 * the environment and the registry cache start afresh each time).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../support/testkit.h"
#include "registry_files.h"
#include "support/as_nobody.h"

static void assert_refused(const char *path, const char *reason)
{
    ck_assert_int_eq(status_of(PLAT_HKLM, JAVA_VM, "v"), PLAT_REG_ERROR);
    ck_assert_int_eq(status_of(PLAT_HKCR, "CLSID", NULL), PLAT_REG_ERROR);
    ck_assert_int_eq(tk_log_count, 1);
    const char *line = tk_log_lines[0];
    ck_assert_msg(strstr(line, path) && strstr(line, "refused") && strstr(line, reason), "%s", line);
    /* Once per change of the file, not at every read. */
    ck_assert_int_eq(status_of(PLAT_HKLM, JAVA_VM, "v"), PLAT_REG_ERROR);
    ck_assert_int_eq(tk_log_count, 1);
    /* The other hive does not depend on the refused file. */
    assert_string(PLAT_HKCU, JAVA_VM, "u", "user");
    /* Nor is the refused file rewritten. */
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKLM, JAVA_VM, "w", "1"), PLAT_REG_ERROR);
    char *text = read_file(path);
    ck_assert_ptr_null(strstr(text, "\"w\""));
    free(text);
}

static void write_both_hives(mode_t system_mode)
{
    write_file(system_path, V5 "[HKLM\\Software\\Microsoft\\Java VM]\n\"v\"=\"machine\"\n", system_mode);
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKCU, JAVA_VM, "u", "user"), PLAT_REG_OK);
}

START_TEST(group_writable_file_is_refused)
{
    write_both_hives(0664);
    assert_refused(system_path, "other users can write it (mode 0664");
}
END_TEST

START_TEST(world_writable_file_is_refused)
{
    write_both_hives(0646);
    assert_refused(system_path, "other users can write it (mode 0646");
}
END_TEST

START_TEST(file_of_another_user_is_refused)
{
    write_both_hives(0644);
    if (chown(system_path, 12345, (gid_t)-1) != 0) /* only root can give a file away */
        return;
    assert_refused(system_path, "it belongs to uid 12345");
}
END_TEST

START_TEST(directory_in_place_of_a_file_is_refused)
{
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKCU, JAVA_VM, "u", "user"), PLAT_REG_OK);
    ck_assert_int_eq(mkdir(system_path, 0755), 0);
    ck_assert_int_eq(status_of(PLAT_HKLM, JAVA_VM, "v"), PLAT_REG_ERROR);
    ck_assert(tk_logged("not a regular file"));
    assert_string(PLAT_HKCU, JAVA_VM, "u", "user");
}
END_TEST

/* Root's good file in a directory nobody made and anyone can write: nobody could replace it. */
START_TEST(file_in_a_directory_others_can_write_is_refused)
{
    char pub[300], shared[320], path[340];
    if (!as_nobody_possible())
        return;
    as_nobody_public_dir(dir, pub, sizeof(pub));
    as_nobody_shared_dir(pub, shared, sizeof(shared));
    snprintf(path, sizeof(path), "%s/system.reg", shared);
    write_file(path, V5 "[HKLM\\Software\\Microsoft\\Java VM]\n\"v\"=\"machine\"\n", 0644);
    setenv("JEVMON_REGISTRY_SYSTEM", path, 1);
    ck_assert_int_eq(status_of(PLAT_HKLM, JAVA_VM, "v"), PLAT_REG_ERROR);
    char line[1200];
    snprintf(line, sizeof(line), "registry file %s refused: the directory %s on its path: other users can write it "
             "(mode 0777", path, shared);
    ck_assert_msg(tk_logged(line), "%s", tk_log_count ? tk_log_lines[0] : "nothing logged");
}
END_TEST

/* A link nobody made to root's good file: nobody could point it elsewhere. */
START_TEST(link_of_another_user_to_a_good_file_is_refused)
{
    char pub[300], link[320];
    if (!as_nobody_possible())
        return;
    write_file(system_path, V5 "[HKLM\\Software\\Microsoft\\Java VM]\n\"v\"=\"machine\"\n", 0644);
    as_nobody_public_dir(dir, pub, sizeof(pub));
    snprintf(link, sizeof(link), "%s/link.reg", pub);
    as_nobody_symlink(system_path, link);
    setenv("JEVMON_REGISTRY_SYSTEM", link, 1);
    ck_assert_int_eq(status_of(PLAT_HKLM, JAVA_VM, "v"), PLAT_REG_ERROR);
    char line[1200];
    snprintf(line, sizeof(line), "registry file %s refused: symbolic link %s: it belongs to uid 65534", link, link);
    ck_assert_msg(tk_logged(line), "%s", tk_log_count ? tk_log_lines[0] : "nothing logged");
    setenv("JEVMON_REGISTRY_SYSTEM", system_path, 1); /* the file itself is good */
    assert_string(PLAT_HKLM, JAVA_VM, "v", "machine");
}
END_TEST

START_TEST(fixed_file_is_read_again)
{
    write_both_hives(0666);
    ck_assert_int_eq(status_of(PLAT_HKLM, JAVA_VM, "v"), PLAT_REG_ERROR);
    ck_assert_int_eq(chmod(system_path, 0644), 0);
    assert_string(PLAT_HKLM, JAVA_VM, "v", "machine");
}
END_TEST

START_TEST(owned_by_root_or_this_user_is_trusted)
{
    write_both_hives(0600);
    assert_string(PLAT_HKLM, JAVA_VM, "v", "machine");
    ck_assert_int_eq(tk_log_count, 0);
}
END_TEST


START_TEST(refused_extra_file_fails_every_hive)
{
    char extra[300];
    in_dir(extra, sizeof(extra), "extra.reg");
    write_file(extra, V5 "[HKCU\\U]\n\"u\"=\"x\"\n", 0666);
    setenv("JEVMON_REGISTRY_FILES", extra, 1);
    ck_assert_int_eq(status_of(PLAT_HKLM, "K", "v"), PLAT_REG_ERROR);
    ck_assert_int_eq(status_of(PLAT_HKCU, "U", "u"), PLAT_REG_ERROR);
    ck_assert_int_eq(tk_log_count, 1);
    ck_assert(tk_logged(extra));
}
END_TEST


int main(void)
{
    Suite *s = suite_create("registry_trust");
    TCase *trust = tcase_create("trust");
    tcase_add_checked_fixture(trust, setup, teardown);
    tcase_add_test(trust, group_writable_file_is_refused);
    tcase_add_test(trust, world_writable_file_is_refused);
    tcase_add_test(trust, file_of_another_user_is_refused);
    tcase_add_test(trust, file_in_a_directory_others_can_write_is_refused);
    tcase_add_test(trust, link_of_another_user_to_a_good_file_is_refused);
    tcase_add_test(trust, directory_in_place_of_a_file_is_refused);
    tcase_add_test(trust, fixed_file_is_read_again);
    tcase_add_test(trust, owned_by_root_or_this_user_is_trusted);
    tcase_add_test(trust, refused_extra_file_fails_every_hive);
    suite_add_tcase(s, trust);

    return tk_run_suite(s);
}
