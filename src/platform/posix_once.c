/*
 * posix_once.c - the record behind posix_first_in_process (posix_once.h).
 *
 * What every copy of the layer can see is the process's open files.  The record is an
 * anonymous memory file (memfd) named MARKER: the keys asked about so far, one a line.  A
 * copy finds it by its name among /proc/self/fd (the lowest-numbered, should two copies
 * ever create one at once), or creates it; flock serialises the copies and threads.  It is close-on-exec,
 * so a program this process runs starts with a record of its own, and it is never closed.
 * Used only on the rare paths that report something, so the scan costs nothing in practice.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/posix_once.h"

#define MARKER "jevmon-said-once"

/* Whether descriptor fd is a record (as /proc/self/fd shows a memfd: "/memfd:NAME (deleted)"). */
static int is_record(int fd)
{
    static const char expected[] = "/memfd:" MARKER " (deleted)";
    char link[64], target[sizeof(expected) + 1];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof(target));
    return n == (ssize_t)sizeof(expected) - 1 && memcmp(target, expected, (size_t)n) == 0;
}

/* The record's descriptor, or -1 when no copy has created it. */
static int find_record(void)
{
    static int last = -1; /* where this copy found it last time: checked before the scan */
    if (last >= 0 && is_record(last))
        return last;
    int found = -1;
    DIR *dir = opendir("/proc/self/fd");
    for (struct dirent *e; dir && (e = readdir(dir));) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] != '.' && fd != dirfd(dir) && (found < 0 || fd < found) && is_record(fd))
            found = fd;
    }
    if (dir)
        closedir(dir);
    return last = found;
}

/* Whether the record holds key as a line; the record's bytes are read whole (it stays small). */
static int recorded(int fd, const char *key)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size <= 0)
        return 0;
    char *text = malloc((size_t)st.st_size + 1);
    ssize_t n = text ? pread(fd, text, (size_t)st.st_size, 0) : -1;
    int found = 0;
    if (n > 0) {
        text[n] = '\0';
        size_t len = strlen(key);
        for (const char *line = text; !found && line < text + n;) {
            const char *end = memchr(line, '\n', (size_t)(text + n - line));
            if (!end)
                break;
            found = (size_t)(end - line) == len && memcmp(line, key, len) == 0;
            line = end + 1;
        }
    }
    free(text);
    return found;
}

int posix_first_in_process(const char *key)
{
    static int created = -1; /* the record this copy made: made once, even where /proc cannot show it */
    char path[64];
    int fd = find_record();
    if (fd < 0 && created < 0)
        created = memfd_create(MARKER, MFD_CLOEXEC);
    if (fd < 0 && (fd = created) < 0)
        return 1;
    /* An open file description of this call's own: flock excludes other holders of the same
     * file only through separate descriptions, and every copy, every thread, has the same fd. */
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    int own = open(path, O_RDWR | O_CLOEXEC);
    if (own < 0)
        return 1;
    int first = 1;
    if (flock(own, LOCK_EX) == 0) {
        first = !recorded(own, key);
        struct stat st;
        size_t len = strlen(key);
        char *line = first ? malloc(len + 1) : NULL;
        if (line && fstat(own, &st) == 0) {
            memcpy(line, key, len);
            line[len] = '\n';
            ssize_t written = pwrite(own, line, len + 1, st.st_size);
            (void)written; /* not recorded: said again next time rather than never */
        }
        free(line);
        flock(own, LOCK_UN);
    }
    close(own);
    return first;
}
