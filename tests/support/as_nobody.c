/* as_nobody.c - making files as another user for the trust tests (see as_nobody.h). */
#include <check.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "as_nobody.h"

int as_nobody_possible(void)
{
    if (geteuid() == 0)
        return 1;
    printf("not root: the cases made by another user are not run\n");
    return 0;
}

enum { MAKE_LINK, MAKE_DIR };

/* Runs one making step in a child that has become nobody; the child's status says how it went. */
static void make_as_nobody(int what, const char *a, const char *b, unsigned mode)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        umask(0);
        if (setgid(NOBODY_UID) != 0 || setuid(NOBODY_UID) != 0)
            _exit(2);
        _exit((what == MAKE_LINK ? symlink(a, b) : mkdir(a, mode)) == 0 ? 0 : 1);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "as nobody: %s %s failed (status %d)",
                  what == MAKE_LINK ? "symlink to" : "mkdir", a, status);
}

void as_nobody_symlink(const char *target, const char *path)
{
    make_as_nobody(MAKE_LINK, target, path, 0);
}

void as_nobody_mkdir(const char *path, unsigned mode)
{
    make_as_nobody(MAKE_DIR, path, NULL, mode);
}

void as_nobody_public_dir(const char *dir, char *pub, size_t size)
{
    ck_assert_int_eq(chmod(dir, 0711), 0);
    snprintf(pub, size, "%s/pub", dir);
    ck_assert_int_eq(mkdir(pub, 0755), 0);
    ck_assert_int_eq(chmod(pub, 01777), 0);
}

void as_nobody_shared_dir(const char *pub, char *shared, size_t size)
{
    snprintf(shared, size, "%s/shared", pub);
    as_nobody_mkdir(shared, 0777);
}
