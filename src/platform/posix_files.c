/* posix_files.c - writing output files safely (see platform.h, "Output files"): the directory
 * walked from the root and held open (posix_trust.h), a new temporary file renamed over the
 * name, the user's private directory, and whether a process still runs.  Everything is done
 * relative to the descriptor of the directory checked, so that the directory checked is the
 * directory written, whatever happens to its path meanwhile. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/platform.h"
#include "platform/posix_files.h"
#include "platform/posix_trust.h"

#define TEMP_TRIES 100

struct plat_output_dir {
    int fd; /* O_PATH: for the *at functions only */
};

static plat_output_dir *held(int fd, char *why, size_t why_len)
{
    plat_output_dir *dir = fd >= 0 ? malloc(sizeof(*dir)) : NULL;
    if (dir)
        dir->fd = fd;
    else if (fd >= 0) {
        close(fd);
        snprintf(why, why_len, "%s", strerror(ENOMEM));
        errno = ENOMEM;
    }
    return dir;
}

plat_output_dir *plat_output_dir_open(const char *path, char *why, size_t why_len)
{
    return held(posix_open_trusted_directory(path, 0755, 0, why, why_len), why, why_len);
}

plat_output_dir *plat_output_dir_private(char *path, size_t size, char *why, size_t why_len)
{
    const char *runtime = getenv("XDG_RUNTIME_DIR"), *home = getenv("HOME");
    char reason[512];
    size_t used = 0;
    why[0] = '\0';
    for (int candidate = 0; candidate < 3; candidate++) {
        if (candidate == 0 && runtime && *runtime == '/')
            snprintf(path, size, "%s/jevprof", runtime);
        else if (candidate == 1 && home && *home == '/')
            snprintf(path, size, "%s/.cache/jevprof", home);
        else if (candidate == 2)
            snprintf(path, size, "/tmp/jevprof-%lu", (unsigned long)geteuid());
        else
            continue;
        /* made by this user 0700 when missing, then held to be this user's and private */
        int fd = posix_open_trusted_directory(path, 0700, 1, reason, sizeof(reason));
        if (fd >= 0)
            return held(fd, why, why_len);
        snprintf(why + used, why_len - used, "%s%s: %s", used ? "; " : "", path, reason);
        used += strlen(why + used);
    }
    errno = EACCES;
    return NULL;
}

void plat_output_dir_close(plat_output_dir *dir)
{
    if (!dir)
        return;
    close(dir->fd);
    free(dir);
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

/* Fills a new temporary file of the directory fd (its name in temp); 0, or -1 with the reason in
 * why and no file left. */
static int write_temp(int fd, const char *name, plat_file_writer fill, void *context, char *temp, size_t temp_len,
                      char *why, size_t why_len)
{
    int file = create_temp(fd, name, temp, temp_len);
    FILE *out = file >= 0 ? fdopen(file, "wb") : NULL;
    if (!out) {
        snprintf(why, why_len, "%s", strerror(errno));
        if (file >= 0)
            close(file), unlinkat(fd, temp, 0);
        return -1;
    }
    errno = 0;
    int failed = fill(out, context);
    int error = !failed ? 0 : ferror(out) && !errno ? EIO : errno; /* 0: the writer ran out of memory */
    if (fflush(out) != 0)
        failed = 1, error = errno;
    if (fclose(out) != 0 && !failed)
        failed = 1, error = errno;
    if (failed) {
        snprintf(why, why_len, "%s", error ? strerror(error) : "out of memory");
        unlinkat(fd, temp, 0);
        return -1;
    }
    return 0;
}

int posix_replace_file_at(int dir_fd, const char *name, plat_file_writer fill, void *context, char *why,
                          size_t why_len)
{
    char temp[512];
    const char *what;
    if ((what = not_a_regular_file(dir_fd, name)) != NULL) { /* said before anything is written */
        snprintf(why, why_len, "it is %s, not a regular file; left as it is", what);
        return -1;
    }
    if (write_temp(dir_fd, name, fill, context, temp, sizeof(temp), why, why_len))
        return -1;
    int failed = 0;
    if ((what = not_a_regular_file(dir_fd, name)) != NULL) /* appeared meanwhile */
        snprintf(why, why_len, "it is %s, not a regular file; left as it is", what), failed = 1;
    /* The old file goes first: a rename over a file makes ext4 start writing the new one to disk
     * at once, which the program's end waits for (0.1 ms a file, idle; a busy disk's queue).  A
     * reader meets the old file, the new one or, for an instant, neither. */
    else if ((unlinkat(dir_fd, name, 0) != 0 && errno != ENOENT) || renameat(dir_fd, temp, dir_fd, name) != 0)
        snprintf(why, why_len, "%s", strerror(errno)), failed = 1;
    if (failed)
        unlinkat(dir_fd, temp, 0);
    return failed ? -1 : 0;
}

int plat_write_file(plat_output_dir *dir, const char *name, plat_file_writer fill, void *context, char *why,
                    size_t why_len)
{
    return posix_replace_file_at(dir->fd, name, fill, context, why, why_len);
}

static int write_text(FILE *out, void *text)
{
    return fputs(text, out) < 0;
}

int plat_create_new_file(plat_output_dir *dir, const char *name, const char *text, char *why, size_t why_len)
{
    char temp[512];
    if (write_temp(dir->fd, name, write_text, (void *)text, temp, sizeof(temp), why, why_len))
        return -1;
    /* linkat never replaces what is at name, nor follows it: the name appears with its text */
    int result = linkat(dir->fd, temp, dir->fd, name, 0) == 0 ? 0 : errno == EEXIST ? 1 : -1;
    if (result < 0)
        snprintf(why, why_len, "%s", strerror(errno));
    unlinkat(dir->fd, temp, 0);
    return result;
}

int plat_read_small_file(plat_output_dir *dir, const char *name, char *text, size_t size)
{
    ssize_t got = -1;
    if (!not_a_regular_file(dir->fd, name)) { /* never a FIFO's open, which would wait for a writer */
        int file = openat(dir->fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (file >= 0) {
            got = read(file, text, size - 1);
            close(file);
        }
    }
    if (got < 0)
        return -1;
    text[got] = '\0';
    return 0;
}

int plat_remove_file(plat_output_dir *dir, const char *name)
{
    return not_a_regular_file(dir->fd, name) ? -1 : unlinkat(dir->fd, name, 0);
}

int plat_process_running(DWORD pid)
{
    return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}
