/* posix_files.c - writing output files safely (see platform.h, "Output files"): the directory's
 * owner and mode, a new temporary file renamed over the name, the user's private directory, and
 * whether a process still runs.  Everything is done relative to one descriptor of the directory,
 * so that the directory checked is the directory written, whatever happens to its path meanwhile. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/platform.h"

#define TEMP_TRIES 100

/* The directory opened for reading its entries, or -1 with the reason in why. */
static int open_directory(const char *dir, char *why, size_t why_len)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        snprintf(why, why_len, "%s", strerror(errno));
    return fd;
}

/* 0 when the directory of fd is owned by this user or root and writable by no one else. */
static int private_directory(int fd, char *why, size_t why_len)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(why, why_len, "%s", strerror(errno));
        return -1;
    }
    if (st.st_uid != geteuid() && st.st_uid != 0) {
        snprintf(why, why_len, "it is owned by another user (uid %lu)", (unsigned long)st.st_uid);
        return -1;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(why, why_len, "its group or other users can write in it (mode %04o)", (unsigned)(st.st_mode & 07777));
        return -1;
    }
    return 0;
}

int plat_check_private_directory(const char *dir, char *why, size_t why_len)
{
    int fd = open_directory(dir, why, why_len);
    if (fd < 0)
        return -1;
    int result = private_directory(fd, why, why_len);
    close(fd);
    return result;
}

/* What is at name in the directory fd, when it is something other than a regular file: "a FIFO",
 * "a directory", ...; NULL for a regular file or nothing (errno ENOENT is not an error). */
static const char *not_a_regular_file(int fd, const char *name)
{
    struct stat st;
    if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? NULL : "something that cannot be examined";
    return S_ISREG(st.st_mode)    ? NULL
           : S_ISLNK(st.st_mode)  ? "a symbolic link"
           : S_ISDIR(st.st_mode)  ? "a directory"
           : S_ISFIFO(st.st_mode) ? "a FIFO"
           : S_ISSOCK(st.st_mode) ? "a socket"
                                  : "a device";
}

/* A new file of ours in the directory fd, never through a link: its name in temp. */
static int create_temp(int fd, const char *name, char *temp, size_t temp_len)
{
    static unsigned counter;
    for (int i = 0; i < TEMP_TRIES; i++) {
        snprintf(temp, temp_len, ".%s.%lu.%u.tmp", name, (unsigned long)getpid(),
                 __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED));
        int file = openat(fd, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (file >= 0 || errno != EEXIST)
            return file;
    }
    return -1;
}

int plat_write_file(const char *dir, const char *name, plat_file_writer fill, void *context, char *why,
                    size_t why_len)
{
    char temp[512];
    const char *what;
    int fd = open_directory(dir, why, why_len);
    if (fd < 0)
        return -1;
    if ((what = not_a_regular_file(fd, name)) != NULL) { /* said before anything is written */
        snprintf(why, why_len, "it is %s, not a regular file; left as it is", what);
        close(fd);
        return -1;
    }
    int file = create_temp(fd, name, temp, sizeof(temp));
    FILE *out = file >= 0 ? fdopen(file, "wb") : NULL;
    if (!out) {
        snprintf(why, why_len, "%s", strerror(errno));
        if (file >= 0)
            close(file), unlinkat(fd, temp, 0);
        close(fd);
        return -1;
    }
    errno = 0;
    int failed = fill(out, context);
    int error = !failed ? 0 : ferror(out) && !errno ? EIO : errno; /* 0: the writer ran out of memory */
    if (fflush(out) != 0 || fsync(fileno(out)) != 0)
        failed = 1, error = errno;
    if (fclose(out) != 0 && !failed)
        failed = 1, error = errno;
    if (!failed && (what = not_a_regular_file(fd, name)) != NULL) /* appeared meanwhile */
        snprintf(why, why_len, "it is %s, not a regular file; left as it is", what), failed = 1, error = -1;
    else if (!failed && renameat(fd, temp, fd, name) != 0)
        failed = 1, error = errno;
    if (failed) {
        if (error >= 0)
            snprintf(why, why_len, "%s", error ? strerror(error) : "out of memory");
        unlinkat(fd, temp, 0);
    }
    close(fd);
    return failed ? -1 : 0;
}

int plat_create_new_file(const char *dir, const char *name, const char *text, char *why, size_t why_len)
{
    int fd = open_directory(dir, why, why_len);
    if (fd < 0)
        return -1;
    int file = openat(fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    int result = file >= 0 ? 0 : errno == EEXIST ? 1 : -1;
    if (file >= 0 && (write(file, text, strlen(text)) != (ssize_t)strlen(text) || close(file) != 0)) {
        result = -1;
        unlinkat(fd, name, 0);
    }
    if (result < 0)
        snprintf(why, why_len, "%s", strerror(errno));
    close(fd);
    return result;
}

int plat_read_small_file(const char *dir, const char *name, char *text, size_t size)
{
    char why[16];
    int fd = open_directory(dir, why, sizeof(why));
    if (fd < 0)
        return -1;
    ssize_t got = -1;
    if (!not_a_regular_file(fd, name)) { /* never a FIFO's open, which would wait for a writer */
        int file = openat(fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (file >= 0) {
            got = read(file, text, size - 1);
            close(file);
        }
    }
    close(fd);
    if (got < 0)
        return -1;
    text[got] = '\0';
    return 0;
}

int plat_remove_file(const char *dir, const char *name)
{
    char why[16];
    int fd = open_directory(dir, why, sizeof(why));
    if (fd < 0)
        return -1;
    int result = not_a_regular_file(fd, name) ? -1 : unlinkat(fd, name, 0);
    close(fd);
    return result;
}

int plat_user_private_directory(char *path, size_t size, char *why, size_t why_len)
{
    const char *runtime = getenv("XDG_RUNTIME_DIR"), *home = getenv("HOME");
    struct stat st;
    if (runtime && *runtime == '/')
        snprintf(path, size, "%s/jevprof", runtime);
    else if (home && *home == '/')
        snprintf(path, size, "%s/.cache/jevprof", home);
    else
        snprintf(path, size, "/tmp/jevprof-%lu", (unsigned long)geteuid());
    if (plat_make_directories(path, why, why_len))
        return -1;
    int fd = open_directory(path, why, why_len);
    if (fd < 0)
        return -1;
    int result = -1;
    if (fstat(fd, &st) != 0)
        snprintf(why, why_len, "%s", strerror(errno));
    else if (st.st_uid != geteuid()) /* one the user made, not one waiting for them */
        snprintf(why, why_len, "it is owned by another user (uid %lu)", (unsigned long)st.st_uid);
    else if (fchmod(fd, 0700) != 0) /* made now with the umask's mode */
        snprintf(why, why_len, "%s", strerror(errno));
    else
        result = private_directory(fd, why, why_len);
    close(fd);
    return result;
}

int plat_process_running(DWORD pid)
{
    return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}
