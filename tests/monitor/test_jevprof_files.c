/*
 * test_jevprof_files.c - jevprof's files on real JVMs, as root against what user "nobody" made:
 * links planted at output names and directories other users can write (nothing written through
 * them; the files go to the user's private directory, said in one line), a link of nobody's on the
 * way to the output directory, planted before the start or swapped in while the JVM runs, a file=
 * setting through a link in a sticky directory, the private directory planted in /tmp or in
 * another user's XDG_RUNTIME_DIR (never chmodded, never written; nor is a refused directory
 * written when no private directory can be used), a FIFO at an output name (the JVM ends; the
 * FIFO is left).  The output directory's other cases are test_jevprof_output.c's.
 */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../support/testkit.h"
#include "jevprof_dirs.h"

#define JEVPROF JVMRUN_JEVPROF_CLSID
#define VICTIM_TEXT "root's own file\n"

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

static uid_t nobody(void)
{
    struct passwd *pw = getpwnam("nobody");
    ck_assert_ptr_nonnull(pw);
    return pw->pw_uid;
}

static int is_fifo(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISFIFO(st.st_mode);
}

/*
 * nobody's 0777 directory with nobody's link at the report's name to root's 0600 file, a sticky
 * 1777 directory of root's with such a link, and root's own directory with a link at the flame
 * graph's name: the file linked to is never written, the links stay, and each directory refused
 * gets one line naming it and where the files went instead (where they are).
 */
START_TEST(links_and_directories_of_other_users_are_refused)
{
    test_dirs d;
    char victim[1200], open_dir[1200], sticky[1200], own[1200], link[1400], line[4000];
    jvmrun_result r;
    make_base(&d);
    snprintf(victim, sizeof(victim), "%s/victim", d.base);
    FILE *f = fopen(victim, "w");
    ck_assert_ptr_nonnull(f);
    fputs(VICTIM_TEXT, f);
    fclose(f);
    ck_assert_int_eq(chmod(victim, 0600), 0);

    static const struct {
        const char *name;
        mode_t mode;
        int nobodys;
        const char *why;
    } dirs[] = {{"open", 0777, 1, "other users can write it (mode 0777; chmod go-w fixes it)"},
                {"sticky", 01777, 0, "its group or other users can write in it (mode 1777)"}};
    for (size_t i = 0; i < 2; i++) {
        char *dir = i ? sticky : open_dir, why[128];
        make_dir(&d, dirs[i].name, dirs[i].mode, dirs[i].nobodys ? nobody() : 0, dir, 1200);
        snprintf(link, sizeof(link), "%s/jevprof-report.txt", dir);
        ck_assert_int_eq(symlink(victim, link), 0);
        ck_assert_int_eq(lchown(link, nobody(), nobody()), 0);
        run_workload(jdks[0], &d, dir, "sample", &r);
        snprintf(why, sizeof(why), "%s", dirs[i].why);
        snprintf(line, sizeof(line), "jevmon: jevprof: will not write in the output directory %s: %s; the files go to %s instead",
                 dir, why, d.private_dir);
        expect_first(r.err, line);
        char *report = read_in(d.private_dir, "jevprof-report.txt"), *kept = tk_read_file(victim);
        expect(report, "jevprof report\n");
        ck_assert_str_eq(kept, VICTIM_TEXT);
        char target[1200] = "";
        ck_assert_int_gt(readlink(link, target, sizeof(target) - 1), 0);
        ck_assert_str_eq(target, victim);
        free(report), free(kept);
        jvmrun_free(&r);
    }

    make_dir(&d, "own", 0755, 0, own, sizeof(own));
    snprintf(link, sizeof(link), "%s/jevprof-flame.html", own);
    ck_assert_int_eq(symlink(victim, link), 0);
    run_workload(jdks[0], &d, own, "sample", &r);
    snprintf(line, sizeof(line), "jevmon: jevprof: cannot write %s: it is a symbolic link, not a regular file; left as it is",
             link);
    expect(r.err, line);
    char *report = read_in(own, "jevprof-report.txt"), *kept = tk_read_file(victim);
    expect(report, "jevprof report\n");
    ck_assert_str_eq(kept, VICTIM_TEXT);
    free(report), free(kept);
    jvmrun_free(&r);
    remove_tree(&d);
}
END_TEST

/* base/name, root's 0600 file holding VICTIM_TEXT. */
static void make_victim(const test_dirs *d, const char *name, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", d->base, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(VICTIM_TEXT, f);
    fclose(f);
    ck_assert_int_eq(chmod(path, 0600), 0);
}

/* A link of nobody's at path, to target. */
static void nobodys_link(const char *target, const char *path)
{
    ck_assert_int_eq(symlink(target, path), 0);
    ck_assert_int_eq(lchown(path, nobody(), nobody()), 0);
}

/* Fails unless dir (root's victim directory) holds nothing but "victim", with its text, and still has mode. */
static void expect_untouched(const char *dir, mode_t mode)
{
    struct stat st;
    ck_assert_int_eq(stat(dir, &st), 0);
    ck_assert_msg((st.st_mode & 07777) == mode, "%s is now mode %04o", dir, (unsigned)(st.st_mode & 07777));
    DIR *listing = opendir(dir);
    ck_assert_ptr_nonnull(listing);
    for (struct dirent *e; (e = readdir(listing)) != NULL;)
        ck_assert_msg(!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, "victim"),
                      "%s/%s was written", dir, e->d_name);
    closedir(listing);
    char *kept = read_in(dir, "victim");
    ck_assert_str_eq(kept, VICTIM_TEXT);
    free(kept);
}

/* root's directory base/name (mode) holding "victim", root's 0600 file. */
static void make_victim_dir(const test_dirs *d, const char *name, mode_t mode, char *path, size_t size)
{
    char victim[1400], name_in_base[300];
    make_dir(d, name, mode, 0, path, size);
    snprintf(name_in_base, sizeof(name_in_base), "%s/victim", name);
    make_victim(d, name_in_base, victim, sizeof(victim));
}

/* The test's base, nobody's directory base/attacker (1200 bytes), root's 0700 base/victims (1200
 * bytes) and the output directory's path, attacker/out (1400 bytes), not made. */
static void make_attack(test_dirs *d, char *attacker, char *victims, char *out)
{
    make_base(d);
    make_dir(d, "attacker", 0755, nobody(), attacker, 1200);
    make_victim_dir(d, "victims", 0700, victims, 1200);
    snprintf(out, 1400, "%s/out", attacker);
}

/*
 * The output directory reached through a link of nobody's, in nobody's directory, to a directory
 * of root's, planted before the start.  Nothing is written there: nobody's directory is refused
 * on the way, one line names it, the files go to the private directory.
 */
START_TEST(a_link_on_the_way_to_the_output_directory_is_refused)
{
    test_dirs d;
    char attacker[1200], victims[1200], out[1400], line[4000];
    jvmrun_result r;
    make_attack(&d, attacker, victims, out);
    nobodys_link(victims, out);
    run_workload(jdks[0], &d, out, "sample", &r);
    snprintf(line, sizeof(line), "jevmon: jevprof: will not write in the output directory %s: the directory %s on its "
             "path: it belongs to uid %lu, neither root nor this user (uid 0); the files go to %s instead",
             out, attacker, (unsigned long)nobody(), d.private_dir);
    expect_untouched(victims, 0700); /* first: what the attack does, then what is said */
    expect_first(r.err, line);
    char *report = read_in(d.private_dir, "jevprof-report.txt");
    expect(report, "jevprof report\n");
    free(report);
    jvmrun_free(&r);
    remove_tree(&d);
}
END_TEST

/* The same link swapped in for root's own output directory while the JVM runs (after the start's
 * check, before the end's write): root's directory gets nothing. */
START_TEST(a_link_swapped_in_on_the_way_while_the_jvm_runs_is_refused)
{
    test_dirs d;
    char attacker[1200], victims[1200], out[1400], moved[1400];
    jvmrun_result r;
    make_attack(&d, attacker, victims, out);
    ck_assert_int_eq(mkdir(out, 0755), 0);
    jvmrun_process running;
    start_waiting(jdks[_i], &d, out, &running);
    snprintf(moved, sizeof(moved), "%s/moved", attacker);
    ck_assert_int_eq(rename(out, moved), 0);
    nobodys_link(victims, out);
    jvmrun_send(&running, "quit");
    jvmrun_finish(&running, &r);
    ck_assert_int_eq(r.exit_code, 0);
    expect_untouched(victims, 0700);
    char *report = read_in(d.private_dir, "jevprof-report.txt");
    expect(report, "Program: AttachWorkload");
    free(report);
    jvmrun_free(&r);
    remove_tree(&d);
}
END_TEST

/* file= through nobody's link in a sticky 1777 directory of root's, to root's directory with a
 * 0600 file at the name: refused (one line naming the link), the flame graph goes to the private
 * directory, root's file stays as it was. */
START_TEST(a_file_setting_through_a_link_in_a_sticky_directory_is_refused)
{
    test_dirs d;
    char sticky[1200], victims[1200], link[1400], options[1600], line[6000];
    jvmrun_result r;
    make_base(&d);
    make_dir(&d, "sticky", 01777, 0, sticky, sizeof(sticky));
    make_victim_dir(&d, "victims", 0755, victims, sizeof(victims));
    snprintf(link, sizeof(link), "%s/l", sticky);
    nobodys_link(victims, link);
    snprintf(options, sizeof(options), "command=start file=%s/victim.html", link);
    const char *args[] = {"200", NULL};
    static char files_env[1300], private_env[1300];
    snprintf(files_env, sizeof(files_env), "JEVMON_REGISTRY_FILES=%s/jevprof.reg", d.base);
    snprintf(private_env, sizeof(private_env), "XDG_RUNTIME_DIR=%s/private", d.base);
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" JEVPROF, files_env, private_env,
                         "JEVPROF_MODE=sample", NULL};
    jvmrun_main(jdks[_i], "Workload", options, env, args, &r);
    ck_assert_msg(r.exit_code == 0, "%s", r.err);
    snprintf(line, sizeof(line), "jevmon: jevprof: will not write in %s, the directory of %s/victim.html: symbolic link "
             "%s: it belongs to uid %lu, neither root nor this user (uid 0); the files go to %s instead",
             link, link, link, (unsigned long)nobody(), d.private_dir);
    expect_untouched(victims, 0755);
    expect(r.err, line);
    char *flame = read_in(d.private_dir, "victim.html");
    expect(flame, "<html");
    free(flame);
    jvmrun_free(&r);
    remove_tree(&d);
}
END_TEST

/*
 * The private directory the files fall back to (the output directory nobody's 0777 one) planted
 * by nobody: /tmp/jevprof-0 a link to a directory of root's (no HOME, no XDG_RUNTIME_DIR).  Root's
 * directory is never chmodded nor written; with no private directory left nothing is written, not
 * even into the directory refused.  /tmp/jevprof-0 is the machine's: a lock keeps another check
 * running this case at the same time from moving it meanwhile (two once did, and one failed).
 */
START_TEST(a_planted_tmp_private_directory_is_refused)
{
    test_dirs d;
    char open_dir[1200], victims[1200], saved[256], line[6000];
    const char *tmp_private = "/tmp/jevprof-0";
    jvmrun_result r;
    int lock = open("/tmp/.jevmon-test-jevprof-0.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    ck_assert_int_ge(lock, 0);
    ck_assert_int_eq(flock(lock, LOCK_EX), 0); /* released when the case's process ends, failed or not */
    make_base(&d);
    make_dir(&d, "open", 0777, nobody(), open_dir, sizeof(open_dir));
    make_victim_dir(&d, "victims", 0755, victims, sizeof(victims));
    snprintf(saved, sizeof(saved), "%s.saved.%d", tmp_private, (int)getpid());
    int had = rename(tmp_private, saved) == 0; /* root's own, from another run: put back at the end */
    nobodys_link(victims, tmp_private);
    const char *unset[] = {"HOME", "XDG_RUNTIME_DIR", NULL};
    const char *args[] = {"200", NULL};
    run_in(jdks[_i], &d, open_dir, "sample", "Workload", args, unset, &r);
    ck_assert_int_eq(unlink(tmp_private), 0);
    if (had)
        ck_assert_int_eq(rename(saved, tmp_private), 0);
    ck_assert_msg(r.exit_code == 0, "%s", r.err);
    expect_untouched(victims, 0755);
    snprintf(line, sizeof(line), "nor can a private directory be used (%s: symbolic link %s: it belongs to uid %lu, "
             "neither root nor this user (uid 0)): nothing is written", tmp_private, tmp_private, (unsigned long)nobody());
    expect(r.err, line);
    expect(r.err, "jevmon: jevprof: wrote nothing");
    DIR *listing = opendir(open_dir);
    ck_assert_ptr_nonnull(listing);
    for (struct dirent *e; (e = readdir(listing)) != NULL;)
        ck_assert_msg(e->d_name[0] == '.', "%s/%s was written in the directory refused", open_dir, e->d_name);
    closedir(listing);
    jvmrun_free(&r);
    remove_tree(&d);
    close(lock);
}
END_TEST

/* Another user's XDG_RUNTIME_DIR in root's environment (su, sudo -E), with nobody's link at
 * jevprof to root's directory: refused, never chmodded; the files go to ~/.cache/jevprof. */
START_TEST(another_users_runtime_directory_is_refused)
{
    test_dirs d;
    char open_dir[1200], victims[1200], runtime[1200], link[1400], home[1200], cache[1400], line[6000];
    const char *args[] = {"200", NULL};
    jvmrun_result r;
    make_base(&d);
    make_dir(&d, "open", 0777, nobody(), open_dir, sizeof(open_dir));
    make_victim_dir(&d, "victims", 0755, victims, sizeof(victims));
    make_dir(&d, "runtime", 0700, nobody(), runtime, sizeof(runtime));
    snprintf(link, sizeof(link), "%s/jevprof", runtime);
    nobodys_link(victims, link);
    make_dir(&d, "home", 0700, 0, home, sizeof(home));
    static char runtime_env[1300], home_env[1300];
    snprintf(runtime_env, sizeof(runtime_env), "XDG_RUNTIME_DIR=%s", runtime);
    snprintf(home_env, sizeof(home_env), "HOME=%s", home);
    const char *others[] = {runtime_env, home_env, NULL};
    run_in(jdks[_i], &d, open_dir, "sample", "Workload", args, others, &r);
    ck_assert_msg(r.exit_code == 0, "%s", r.err);
    expect_untouched(victims, 0755);
    snprintf(cache, sizeof(cache), "%s/.cache/jevprof", home);
    snprintf(line, sizeof(line), "jevmon: jevprof: will not write in the output directory %s: other users can write it "
             "(mode 0777; chmod go-w fixes it); the files go to %s instead", open_dir, cache);
    expect_first(r.err, line);
    expect_report_in(cache, 0700);
    jvmrun_free(&r);
    remove_tree(&d);
}
END_TEST

/* A FIFO at the flame graph's name: never opened (the JVM ends), left as it is, said in one line;
 * the other files are written. */
START_TEST(a_fifo_at_an_output_name_is_left_alone)
{
    test_dirs d;
    char out[1200], fifo[1400], line[2000];
    jvmrun_result r;
    make_base(&d);
    make_dir(&d, "out", 0755, 0, out, sizeof(out));
    snprintf(fifo, sizeof(fifo), "%s/jevprof-flame.html", out);
    ck_assert_int_eq(mkfifo(fifo, 0644), 0);
    run_workload(jdks[0], &d, out, "sample", &r);
    snprintf(line, sizeof(line), "jevmon: jevprof: cannot write %s: it is a FIFO, not a regular file; left as it is",
             fifo);
    expect(r.err, line);
    ck_assert_int_eq(jvmrun_count(r.err, "jevprof-flame.html"), 1);
    ck_assert(is_fifo(fifo));
    char *report = read_in(out, "jevprof-report.txt");
    expect(report, "jevprof report\n");
    free(report);
    jvmrun_free(&r);
    remove_tree(&d);
}
END_TEST

int main(void)
{
    if (!(jdk_count = root_suite_jdks(jdks, "the tests make files and links of user nobody")))
        return 0;
    Suite *s = suite_create("jevprof_files");
    TCase *tc = tcase_create("jevprof_files");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, links_and_directories_of_other_users_are_refused);
    tcase_add_loop_test(tc, a_link_on_the_way_to_the_output_directory_is_refused, 0, jdk_count);
    tcase_add_loop_test(tc, a_link_swapped_in_on_the_way_while_the_jvm_runs_is_refused, 0, jdk_count);
    tcase_add_loop_test(tc, a_file_setting_through_a_link_in_a_sticky_directory_is_refused, 0, jdk_count);
    tcase_add_loop_test(tc, a_planted_tmp_private_directory_is_refused, 0, jdk_count);
    tcase_add_loop_test(tc, another_users_runtime_directory_is_refused, 0, jdk_count);
    tcase_add_test(tc, a_fifo_at_an_output_name_is_left_alone);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
