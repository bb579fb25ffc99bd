/*
 * posix_trust.c - who could have written a file, and opening a file or a directory trusted all
 * the way from the root (see posix_trust.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/posix_trust.h"

const char *posix_distrust(const struct stat *st, int directory, char *why, size_t why_len)
{
    if (directory ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode))
        return directory ? "it is not a directory" : "it is not a regular file";
    if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(directory && (st->st_mode & S_ISVTX))) {
        snprintf(why, why_len, "other users can write it (mode %04o; chmod go-w fixes it)",
                 (unsigned)(st->st_mode & 07777));
        return why;
    }
    if (st->st_uid != 0 && st->st_uid != geteuid()) {
        snprintf(why, why_len, "it belongs to uid %u, neither root nor this user (uid %u)", (unsigned)st->st_uid,
                 (unsigned)geteuid());
        return why;
    }
    return NULL;
}

#define MAX_LINKS 40  /* as the kernel's ELOOP */
#define MAX_DEPTH 128 /* directories open at once on the way down */

/* The walk: the directories open from the root down, their path as walked, what is left to walk. */
typedef struct walk {
    int dirs[MAX_DEPTH];
    size_t ends[MAX_DEPTH]; /* the length of where at each depth */
    int depth;
    char where[2 * PATH_MAX];
    char *pending; /* malloc'd */
    int links;
    int at_path_itself; /* the step is at the path's last name, no link followed on the way */
    int directory;      /* the path leads to a directory (posix_open_trusted_directory) */
    mode_t make_mode;   /* missing directories are made with this mode; 0: not made */
    char *why;
    size_t why_len;
} walk;

static void pop_to(walk *w, int depth)
{
    while (w->depth > depth)
        close(w->dirs[--w->depth]);
    w->where[w->ends[w->depth - 1]] = '\0';
}

/* Fails the walk: errno error, why "<what> <where>/<name>: <cause>" (what may be empty), or the
 * cause alone when it is about the file the path names itself. */
static int fail(walk *w, int error, const char *what, const char *name, const char *cause)
{
    if (w->at_path_itself)
        snprintf(w->why, w->why_len, "%s", cause);
    else
        snprintf(w->why, w->why_len, "%s%s%s/%s: %s", what, *what ? " " : "", w->where, name, cause);
    errno = error;
    return -1;
}

/* Pushes the directory fd (name, below the top; "" for the root), if it can be trusted; -1
 * (errno, why) otherwise. */
static int push_dir(walk *w, int fd, const char *name)
{
    struct stat st;
    char reason[160];
    const char *refusal = fstat(fd, &st) != 0 ? strerror(errno) : posix_distrust(&st, 1, reason, sizeof(reason));
    if (!refusal && w->depth == MAX_DEPTH)
        refusal = "too many directories deep";
    if (refusal) {
        close(fd);
        if (w->at_path_itself)
            snprintf(w->why, w->why_len, "%s", refusal);
        else
            snprintf(w->why, w->why_len, "the directory %s/%s on its path: %s", w->where, name, refusal);
        errno = EACCES;
        return -1;
    }
    size_t len = strlen(w->where);
    if (*name) /* the root's path is "": each name below it is written after a slash */
        snprintf(w->where + len, sizeof(w->where) - len, "/%s", name);
    w->ends[w->depth] = strlen(w->where);
    w->dirs[w->depth++] = fd;
    return 0;
}

/* The symlink name (below the top) is followed when root or this user owns it: its directory
 * is trusted, so no one else can replace it.  Its target goes before rest in pending. */
static int follow(walk *w, const char *name, const char *rest)
{
    struct stat st;
    char target[PATH_MAX];
    w->at_path_itself = 0; /* the link is named, whatever the path's last name is */
    if (fstatat(w->dirs[w->depth - 1], name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return fail(w, errno, "", name, strerror(errno));
    if (st.st_uid != 0 && st.st_uid != geteuid()) {
        char reason[160];
        snprintf(reason, sizeof(reason), "it belongs to uid %u, neither root nor this user (uid %u)",
                 (unsigned)st.st_uid, (unsigned)geteuid());
        return fail(w, EACCES, "symbolic link", name, reason);
    }
    ssize_t len = readlinkat(w->dirs[w->depth - 1], name, target, sizeof(target) - 1);
    if (len < 0 || ++w->links > MAX_LINKS)
        return fail(w, len < 0 ? errno : ELOOP, "symbolic link", name, strerror(len < 0 ? errno : ELOOP));
    target[len] = '\0';
    size_t size = (size_t)len + strlen(rest) + 2;
    char *pending = malloc(size);
    if (!pending)
        return fail(w, ENOMEM, "", name, strerror(ENOMEM));
    snprintf(pending, size, "%s/%s", target, rest);
    free(w->pending);
    w->pending = pending;
    if (target[0] == '/')
        pop_to(w, 1);
    return 0;
}

/* The next step of the walk: one component of pending; 1 when it was the file (*fd open), 0 to go on. */
static int step(walk *w, int *fd)
{
    char *name = w->pending + strspn(w->pending, "/");
    size_t len = strcspn(name, "/");
    char *rest = name + len + strspn(name + len, "/");
    int last = *rest == '\0' && !w->directory; /* a directory's path ends in the directory it names */
    if (len == 0 && w->directory) /* the walk is at the directory the path names */
        return 2;
    if (len == 0) /* the path ends in a directory */
        return fail(w, EISDIR, "", "", "it is not a regular file");
    name[len] = '\0';
    if (len == 1 && name[0] == '.') {
        memmove(w->pending, rest, strlen(rest) + 1);
        return 0;
    }
    if (len == 2 && name[0] == '.' && name[1] == '.') {
        if (w->depth > 1)
            pop_to(w, w->depth - 1);
        memmove(w->pending, rest, strlen(rest) + 1);
        return 0;
    }
    w->at_path_itself = (last || (w->directory && *rest == '\0')) && !w->links;
    int top = w->dirs[w->depth - 1];
    int flags = last ? O_RDONLY | O_NONBLOCK | O_NOCTTY : O_PATH | O_DIRECTORY; /* O_NONBLOCK: a FIFO must not hang us */
    int opened = openat(top, name, flags | O_NOFOLLOW | O_CLOEXEC), open_error = errno;
    if (opened < 0 && open_error == ENOENT && w->make_mode && !last) { /* made by this user, then walked as any */
        if (mkdirat(top, name, w->make_mode) != 0 && errno != EEXIST)
            return fail(w, errno, "cannot create", name, strerror(errno));
        opened = openat(top, name, flags | O_NOFOLLOW | O_CLOEXEC), open_error = errno;
    }
    struct stat st;
    int is_link = opened < 0 ? (open_error == ELOOP || open_error == ENOTDIR) &&
                                   fstatat(top, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)
                             : fstat(opened, &st) == 0 && S_ISLNK(st.st_mode);
    if (is_link) {
        if (opened >= 0)
            close(opened);
        char *kept = strdup(rest);
        int followed = kept ? follow(w, name, kept) : fail(w, ENOMEM, "", name, strerror(ENOMEM));
        free(kept);
        return followed;
    }
    if (opened < 0)
        return fail(w, open_error, "", name, strerror(open_error));
    if (!last) {
        int pushed = push_dir(w, opened, name);
        memmove(w->pending, rest, strlen(rest) + 1);
        return pushed;
    }
    char reason[160];
    const char *refusal = fstat(opened, &st) != 0 ? strerror(errno) : posix_distrust(&st, 0, reason, sizeof(reason));
    if (refusal) {
        close(opened);
        return fail(w, EACCES, "", name, refusal);
    }
    *fd = opened;
    return 1;
}

/* The directory the walk is at (a directory's path walked to its end): a descriptor of its own,
 * when the directory itself may be written by this user alone (see posix_trust.h). */
static int end_at_directory(walk *w, int own_only)
{
    struct stat st;
    char reason[160];
    int top = w->dirs[w->depth - 1];
    if (fstat(top, &st) != 0)
        return fail(w, errno, "", "", strerror(errno));
    w->at_path_itself = 1; /* the reasons below are about the directory the path names */
    if (own_only && st.st_uid != geteuid()) {
        snprintf(reason, sizeof(reason), "it belongs to uid %u, not this user (uid %u)", (unsigned)st.st_uid,
                 (unsigned)geteuid());
        return fail(w, EACCES, "", "", reason);
    }
    if (st.st_mode & (own_only ? (S_IRWXG | S_IRWXO) : (S_IWGRP | S_IWOTH))) {
        snprintf(reason, sizeof(reason), own_only ? "it is not private to its owner (mode %04o)"
                                                  : "its group or other users can write in it (mode %04o)",
                 (unsigned)(st.st_mode & 07777));
        return fail(w, EACCES, "", "", reason);
    }
    int fd = fcntl(top, F_DUPFD_CLOEXEC, 0);
    return fd >= 0 ? fd : fail(w, errno, "", "", strerror(errno));
}

/* Walks path from the root (w's kind set); the descriptor of what it leads to, or -1 (errno, why). */
static int walk_path(walk *w, const char *path, int own_only)
{
    int fd = -1, done = 0;
    char cwd[PATH_MAX];
    if (w->why_len)
        w->why[0] = '\0';
    if (path[0] != '/' && !getcwd(cwd, sizeof(cwd))) {
        snprintf(w->why, w->why_len, "the current directory cannot be had: %s", strerror(errno));
        return -1;
    }
    size_t size = strlen(path) + (path[0] != '/' ? strlen(cwd) + 2 : 1);
    if (!(w->pending = malloc(size))) {
        snprintf(w->why, w->why_len, "%s", strerror(ENOMEM));
        errno = ENOMEM;
        return -1;
    }
    snprintf(w->pending, size, "%s%s%s", path[0] != '/' ? cwd : "", path[0] != '/' ? "/" : "", path);
    w->where[0] = '\0';
    int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root < 0 || push_dir(w, root, "") != 0) {
        if (root < 0)
            fail(w, errno, "directory", "", strerror(errno));
        free(w->pending);
        return -1;
    }
    while (!done)
        done = step(w, &fd);
    if (done == 2)
        fd = end_at_directory(w, own_only), done = fd >= 0 ? 1 : -1;
    int error = errno;
    free(w->pending);
    pop_to(w, 1);
    close(w->dirs[0]);
    errno = error;
    return done > 0 ? fd : -1;
}

int posix_open_trusted(const char *path, char *why, size_t why_len)
{
    walk w = {.why = why, .why_len = why_len};
    return walk_path(&w, path, 0);
}

int posix_open_trusted_directory(const char *path, mode_t make_mode, int own_only, char *why, size_t why_len)
{
    walk w = {.directory = 1, .make_mode = make_mode, .why = why, .why_len = why_len};
    return walk_path(&w, path, own_only);
}
