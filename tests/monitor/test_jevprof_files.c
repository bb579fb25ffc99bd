/*
 * test_jevprof_files.c - jevprof's files on real JVMs, as root against what user "nobody" made:
 * links planted at output names and directories other users can write (nothing written through
 * them; the files go to the user's private directory, said in one line), a link of nobody's on the
 * way to the output directory, planted before the start or swapped in while the JVM runs, a file=
 * setting through a link in a sticky directory, the private directory planted in /tmp or in
 * another user's XDG_RUNTIME_DIR (never chmodded, never written; nor is a refused directory
 * written when no private directory can be used), a FIFO at an output name
 * (the JVM ends; the FIFO is left), two runs in one directory at once (each keeps its own files;
 * no file of another run is removed), a directory that cannot be written in (said at the start)
 * and a write error (its reason said); then no call lost to the periods of JEVPROF_LOOP, in the
 * reports or in the pprof files (with JEVPROF_MIN_SHARE=0, nothing folded).
 */
#include <check.h>
#include <dirent.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/jvmrun.h"
#include "../support/testkit.h"

#define JEVPROF JVMRUN_JEVPROF_CLSID
#define VICTIM_TEXT "root's own file\n"

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

/* One test's files: base (root's, 0700) holds the registry file, the private directory the
 * files fall back to (XDG_RUNTIME_DIR=base/private) and whatever the test makes. */
typedef struct test_dirs {
    char base[1024];
    char private_dir[1100]; /* base/private/jevprof */
} test_dirs;

static void make_base(test_dirs *d)
{
    char path[1200];
    snprintf(d->base, sizeof(d->base), "%s", jvmrun_build_path("jevprof-files.XXXXXX"));
    ck_assert_ptr_nonnull(mkdtemp(d->base));
    snprintf(d->private_dir, sizeof(d->private_dir), "%s/private/jevprof", d->base);
    snprintf(path, sizeof(path), "%s/jevprof.reg", d->base);
    jvmrun_write_jevprof_registry(path);
}

/* base/name, made with mode (a directory) and given to owner (nobody's or root's). */
static void make_dir(const test_dirs *d, const char *name, mode_t mode, uid_t owner, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", d->base, name);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    ck_assert_int_eq(chmod(path, mode), 0);
    ck_assert_int_eq(chown(path, owner, owner), 0);
}

static uid_t nobody(void)
{
    struct passwd *pw = getpwnam("nobody");
    ck_assert_ptr_nonnull(pw);
    return pw->pw_uid;
}

static char *read_in(const char *dir, const char *name)
{
    char path[2048];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return tk_read_file(path);
}

/* Runs main_class with args under jevprof in mode, its files in out; more: up to two more
 * settings ("NAME=value"), NULL-terminated, or NULL. */
static void run_in(const char *jdk, const test_dirs *d, const char *out, const char *mode, const char *main_class,
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

/* Starts AttachWorkload under jevprof in sample mode, its files in out, and waits until it is ready
 * (it then waits for "quit"). */
static void start_waiting(const char *jdk, const test_dirs *d, const char *out, jvmrun_process *p)
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

static void run_workload(const test_dirs *d, const char *out, const char *mode, jvmrun_result *r)
{
    const char *args[] = {"200", NULL};
    run_in(jdks[0], d, out, mode, "Workload", args, NULL, r);
    ck_assert_msg(r->exit_code == 0, "exit %d\n%s", r->exit_code, r->err);
    ck_assert_str_eq(r->out, "threads 8, rounds 200\nchecksum fb623432da6bd5f1\nexceptions caught 16\n");
}

/* Fails, showing the whole text, unless text contains what. */
static void expect(const char *text, const char *what)
{
    ck_assert_msg(text && strstr(text, what), "missing \"%s\" in:\n%s", what, text ? text : "(nothing)");
}

/* Fails unless text has no "jevmon: jevprof:" line before the first that starts with line. */
static void expect_first(const char *text, const char *line)
{
    expect(text, line);
    ck_assert_msg(strstr(text, "jevmon: jevprof:") == strstr(text, line), "said late:\n%s", text);
}

/* Fails unless dir, of that mode, holds a report. */
static void expect_report_in(const char *dir, mode_t mode)
{
    struct stat st;
    char *report = read_in(dir, "jevprof-report.txt");
    expect(report, "jevprof report\n");
    free(report);
    ck_assert_int_eq(stat(dir, &st), 0);
    ck_assert_uint_eq(st.st_mode & 0777, mode);
}

static void remove_tree(const test_dirs *d)
{
    char command[1200];
    snprintf(command, sizeof(command), "rm -rf '%s'", d->base);
    ck_assert_int_eq(system(command), 0);
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
        run_workload(&d, dir, "sample", &r);
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
    run_workload(&d, own, "sample", &r);
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
    run_workload(&d, out, "sample", &r);
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
 * even into the directory refused.
 */
START_TEST(a_planted_tmp_private_directory_is_refused)
{
    test_dirs d;
    char open_dir[1200], victims[1200], saved[256], line[6000];
    const char *tmp_private = "/tmp/jevprof-0";
    jvmrun_result r;
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
    run_workload(&d, out, "sample", &r);
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

/* An output directory jevprof makes (with its parents) is its user's alone, whatever the umask
 * (002 would make it group-writable, which jevprof refuses): the files go there. */
START_TEST(a_directory_jevprof_makes_is_private)
{
    test_dirs d;
    char out[1200];
    jvmrun_result r;
    make_base(&d);
    snprintf(out, sizeof(out), "%s/made/by/jevprof", d.base);
    mode_t was = umask(002);
    run_workload(&d, out, "sample", &r);
    umask(was);
    ck_assert_msg(!strstr(r.err, "will not write"), "%s", r.err);
    expect_report_in(out, 0755);
    jvmrun_free(&r);
    remove_tree(&d);
}
END_TEST

/* The pid of a process that has ended. */
static pid_t ended_pid(void)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    ck_assert_int_gt(pid, 0);
    ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
    return pid;
}

/*
 * One JVM runs (AttachWorkload, waiting on its input) while another writes into the same
 * directory with the same prefix: the second writes "<prefix>-<its pid>*" and says so; the first
 * then writes its own files and leaves the second's.  A later run in another mode takes over a
 * dead process's lock file, and leaves (naming them) the earlier runs' files it does not write.
 */
START_TEST(runs_at_once_keep_their_own_files)
{
    test_dirs d;
    char out[1200], line[4000], name[256];
    jvmrun_result r;
    make_base(&d);
    make_dir(&d, "out", 0755, 0, out, sizeof(out));
    jvmrun_process first;
    start_waiting(jdks[0], &d, out, &first);
    char *lock = read_in(out, "jevprof.lock");
    ck_assert_int_eq(atoi(lock), first.pid);
    free(lock);

    run_workload(&d, out, "sample", &r);
    const char *said = strstr(r.err, "this run's files are ");
    ck_assert_msg(said, "%s", r.err);
    int second = atoi(strrchr(said, '-') + 1);
    snprintf(line, sizeof(line), "jevmon: jevprof: %s/jevprof* are being written by process %d; this run's files are %s/jevprof-%d*",
             out, first.pid, out, second);
    expect_first(r.err, line);
    snprintf(name, sizeof(name), "jevprof-%d-report.txt", second);
    char *report = read_in(out, name), *firsts = read_in(out, "jevprof-report.txt");
    expect(report, "Program: Workload");
    ck_assert_str_eq(firsts, ""); /* not written yet: the first still runs */
    free(report), free(firsts);
    jvmrun_free(&r);

    jvmrun_send(&first, "quit");
    jvmrun_finish(&first, &r);
    ck_assert_int_eq(r.exit_code, 0);
    firsts = read_in(out, "jevprof-report.txt"), report = read_in(out, name);
    expect(firsts, "Program: AttachWorkload");
    expect(report, "Program: Workload"); /* the first left the second's files */
    lock = read_in(out, "jevprof.lock");
    ck_assert_str_eq(lock, ""); /* gone with the first */
    free(report), free(firsts), free(lock);
    jvmrun_free(&r);

    /* a dead run's lock is taken over; the sample runs' files alloc mode does not write are left */
    snprintf(line, sizeof(line), "%s/jevprof.lock", out);
    FILE *f = fopen(line, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "%d\n", (int)ended_pid());
    fclose(f);
    run_workload(&d, out, "alloc", &r);
    snprintf(line, sizeof(line), "jevmon: jevprof: left %s/jevprof.collapsed, %s/jevprof-flame.html, %s/jevprof.pb.gz as they are",
             out, out, out);
    expect(r.err, line);
    ck_assert_msg(!strstr(r.err, "are being written by process"), "%s", r.err);
    char *collapsed = read_in(out, "jevprof.collapsed"), *alloc = read_in(out, "jevprof-alloc.collapsed");
    ck_assert_ptr_nonnull(collapsed); /* left: AttachWorkload's (it may have used too little processor time for a sample) */
    expect(alloc, "Workload");
    free(collapsed), free(alloc);
    jvmrun_free(&r);
    remove_tree(&d);
}
END_TEST

/*
 * An output directory nobody can write in (immutable: not even root) is said at the start, and
 * the files go to the private directory.  A write that fails (a file size limit standing in for a
 * full disk) says its reason.
 */
START_TEST(write_problems_are_said_with_their_reason)
{
    test_dirs d;
    char locked[1200], out[1200], line[4000], command[1400];
    jvmrun_result r;
    make_base(&d);
    make_dir(&d, "locked", 0755, 0, locked, sizeof(locked));
    snprintf(command, sizeof(command), "chattr +i '%s'", locked);
    ck_assert_msg(system(command) == 0, "%s failed: the immutable flag is needed", command);
    run_workload(&d, locked, "sample", &r);
    snprintf(command, sizeof(command), "chattr -i '%s'", locked);
    ck_assert_int_eq(system(command), 0);
    snprintf(line, sizeof(line), "jevmon: jevprof: cannot write in the output directory %s: Operation not permitted; the files go to %s instead",
             locked, d.private_dir);
    expect_first(r.err, line);
    char *report = read_in(d.private_dir, "jevprof-report.txt");
    expect(report, "jevprof report\n");
    free(report);
    jvmrun_free(&r);

    make_dir(&d, "out", 0755, 0, out, sizeof(out));
    struct rlimit was, limit;
    ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &was), 0);
    limit = was;
    limit.rlim_cur = 2 << 10; /* under any report's size: Hello world's, one sample, took 3.6 KiB */
    void (*handler)(int) = signal(SIGXFSZ, SIG_IGN);
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &limit), 0);
    run_workload(&d, out, "sample", &r);
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &was), 0);
    signal(SIGXFSZ, handler);
    snprintf(line, sizeof(line), "jevmon: jevprof: cannot write %s/jevprof-report.txt: File too large", out);
    expect(r.err, line);
    char *report_part = read_in(out, "jevprof-report.txt");
    ck_assert_str_eq(report_part, ""); /* no half file */
    free(report_part);
    jvmrun_free(&r);
    remove_tree(&d);
}
END_TEST

/* The calls of name in the report's table of methods by total time, summed over its rows (two
 * methods may share a name); 0 when it has none.  Each row's share of the whole must be a share. */
static unsigned long long calls_of(const char *report, const char *name)
{
    const char *table = strstr(report, " methods by total time\n"), *end = table ? strstr(table, "\n\n") : NULL;
    size_t length = strlen(name);
    unsigned long long sum = 0;
    for (const char *line = table ? strchr(table + 1, '\n') + 1 : NULL; line && line < end;) {
        unsigned long long calls;
        double share;
        int at = 0;
        if (sscanf(line, "%*f ms %*f%% %*f ms %lf%% %llu  %n", &share, &calls, &at) == 2 && at > 0 &&
            strncmp(line + at, name, length) == 0 && line[at + length] == '\n') {
            ck_assert_msg(share <= 100, "%.*s", (int)(strchr(line, '\n') - line), line);
            sum += calls;
        }
        line = strchr(line, '\n') + 1;
    }
    return sum;
}

/* The calls of each of names[0..count-1] that go tool pprof counts in a calls-mode pprof file
 * (-top: each function's flat calls) added to calls[]. */
static void add_pprof_calls(const char *dir, const char *file, const char *const *names, unsigned long long *calls,
                            size_t count)
{
    char command[2400], row[4096];
    snprintf(command, sizeof(command), "go tool pprof -top -sample_index=0 -nodecount=100000 -nodefraction=0 '%s/%s' 2>&1", dir, file);
    FILE *top = popen(command, "r");
    ck_assert_ptr_nonnull(top);
    while (fgets(row, sizeof(row), top)) {
        unsigned long long flat;
        int at = 0;
        row[strcspn(row, "\n")] = '\0';
        if (sscanf(row, "%llu %*s %*s %*s %*s %n", &flat, &at) != 1 || at == 0)
            continue;
        for (size_t i = 0; i < count; i++)
            if (strcmp(row + at, names[i]) == 0)
                calls[i] += flat;
    }
    ck_assert_int_eq(pclose(top), 0);
}

/*
 * Calls mode with a period of 1 s (JEVPROF_LOOP) over a run of several, every path kept
 * (JEVPROF_MIN_SHARE=0): the periods' reports together count every call Workload is known to
 * make, none lost while a period's trees are copied; and so do their pprof files, where a call
 * still running at a period's end (each worker's run(), in the first) is not moved into its
 * caller, nor is any other call, though the first period's collapsed file is folded to fit.  The
 * reports' shares are of each period's whole, finished calls under open frames included.
 */
START_TEST(periods_lose_no_call)
{
    static const char *const names[] = {"Workload.hot(long)", "Workload.fib(int)", "Workload$Worker.run()",
                                        "Workload.main(java.lang.String[])"};
    /* 8 threads x 60000 rounds; fib(15), 1973 calls, every 100 rounds; 8 workers; main once,
     * its join of the first worker open for the whole run, no weight in any period but the last */
    static const unsigned long long truth[] = {480000, 8ull * 600 * 1973, 8, 1};
    unsigned long long reported[4] = {0}, in_pprof[4] = {0}, reports = 0;
    int go = system("command -v go >/dev/null") == 0;
    test_dirs d;
    char out[1200];
    jvmrun_result r;
    make_base(&d);
    make_dir(&d, "out", 0755, 0, out, sizeof(out));
    const char *args[] = {"60000", NULL}, *settings[] = {"JEVPROF_LOOP=1", "JEVPROF_MIN_SHARE=0", NULL};
    run_in(jdks[_i], &d, out, "calls", "Workload", args, settings, &r);
    ck_assert_msg(r.exit_code == 0, "%s", r.err);
    expect(r.out, "threads 8, rounds 60000\n");
    DIR *dir = opendir(out);
    ck_assert_ptr_nonnull(dir);
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        size_t length = strlen(e->d_name);
        if (length > 11 && strcmp(e->d_name + length - 11, "-report.txt") == 0) {
            char *report = read_in(out, e->d_name);
            for (size_t i = 0; i < 2; i++) /* run() and main have no time in the first period: past its rows */
                reported[i] += calls_of(report, names[i]);
            reports++;
            free(report);
        } else if (go && length > 6 && strcmp(e->d_name + length - 6, ".pb.gz") == 0)
            add_pprof_calls(out, e->d_name, names, in_pprof, 4);
    }
    closedir(dir);
    printf("JDK %d: %llu periods\n", _i, reports);
    ck_assert_uint_ge(reports, 3);
    for (size_t i = 0; i < 4; i++) {
        ck_assert_msg(i >= 2 || reported[i] == truth[i], "%s: %llu calls in the reports, not %llu", names[i],
                      reported[i], truth[i]);
        ck_assert_msg(!go || in_pprof[i] == truth[i], "%s: %llu calls in the pprof files, not %llu", names[i],
                      in_pprof[i], truth[i]);
    }
    if (!go)
        fprintf(stderr, "skipped: no go (golang-go): the pprof files' counts are not read\n");
    jvmrun_free(&r);
    remove_tree(&d);
}
END_TEST

int main(void)
{
    jdk_count = jvmrun_suite_jdks(jdks);
    if (jdk_count == 0)
        return 0;
    if (geteuid() != 0) {
        printf("skipped: not root (the tests make files and links of user nobody)\n");
        return 0;
    }
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
    tcase_add_test(tc, a_directory_jevprof_makes_is_private);
    tcase_add_test(tc, runs_at_once_keep_their_own_files);
    tcase_add_test(tc, write_problems_are_said_with_their_reason);
    tcase_add_loop_test(tc, periods_lose_no_call, 0, jdk_count);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
