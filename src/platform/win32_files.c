/* win32_files.c - writing output files safely on Windows (see platform.h, "Output files"): the
 * directory held open (no FILE_SHARE_DELETE: it cannot be renamed or removed while its files are
 * written), a new temporary file (CREATE_NEW) moved over the name (MoveFileEx,
 * REPLACE_EXISTING), never a reparse point, a device or a directory at the name; a new file made
 * whole and moved to its name only when nothing is there; the user's private directory; whether a
 * process still runs.  Directories' access control lists are not read. */
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/platform.h"
#include "platform/win32_internal.h"

#define TEMP_TRIES 100

struct plat_output_dir {
    HANDLE handle;
    char path[1024];
};

static void error_text(DWORD error, char *why, size_t why_len)
{
    char text[256];
    snprintf(why, why_len, "%s", win32_error_text(error, text, sizeof(text)));
}

/* The directory path (made when missing), held open; NULL with the reason in why. */
static plat_output_dir *hold(const char *path, char *why, size_t why_len)
{
    if (plat_make_directories(path, why, why_len))
        return NULL;
    plat_output_dir *dir = calloc(1, sizeof(*dir));
    if (!dir) {
        snprintf(why, why_len, "out of memory");
        return NULL;
    }
    snprintf(dir->path, sizeof(dir->path), "%s", path);
    dir->handle = CreateFileA(path, FILE_LIST_DIRECTORY, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING,
                              FILE_FLAG_BACKUP_SEMANTICS, NULL);
    if (dir->handle == INVALID_HANDLE_VALUE) {
        error_text(GetLastError(), why, why_len);
        free(dir);
        return NULL;
    }
    return dir;
}

plat_output_dir *plat_output_dir_open(const char *path, char *why, size_t why_len)
{
    return hold(path, why, why_len);
}

plat_output_dir *plat_output_dir_private(char *path, size_t size, char *why, size_t why_len)
{
    const char *local = getenv("LOCALAPPDATA");
    snprintf(path, size, "%s\\jevprof", local && *local ? local : ".");
    return hold(path, why, why_len);
}

void plat_output_dir_close(plat_output_dir *dir)
{
    if (!dir)
        return;
    CloseHandle(dir->handle);
    free(dir);
}

/* The path of name in dir. */
static void path_of(const plat_output_dir *dir, const char *name, char *path, size_t size)
{
    snprintf(path, size, "%s\\%s", dir->path, name);
}

/* What is at path when it is something other than a regular file, or NULL (nothing, or a file). */
static const char *not_a_regular_file(const char *path)
{
    DWORD attributes = GetFileAttributesA(path);
    if (attributes == INVALID_FILE_ATTRIBUTES)
        return NULL;
    return attributes & FILE_ATTRIBUTE_REPARSE_POINT ? "a link (a reparse point)"
           : attributes & FILE_ATTRIBUTE_DIRECTORY   ? "a directory"
           : attributes & FILE_ATTRIBUTE_DEVICE      ? "a device"
                                                     : NULL;
}

/* A new file of ours: CREATE_NEW never opens what exists, a link included. */
static HANDLE create_new(const char *path)
{
    return CreateFileA(path, GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
}

/* Fills a new temporary file of dir for name (its path in temp); 0, or -1 with the reason in why
 * and no file left. */
static int write_temp(const plat_output_dir *dir, const char *name, plat_file_writer fill, void *context, char *temp,
                      size_t temp_len, char *why, size_t why_len)
{
    static volatile LONG counter;
    HANDLE handle = INVALID_HANDLE_VALUE;
    for (int i = 0; i < TEMP_TRIES && handle == INVALID_HANDLE_VALUE; i++) {
        snprintf(temp, temp_len, "%s\\.%s.%lu.%ld.tmp", dir->path, name, (unsigned long)GetCurrentProcessId(),
                 (long)InterlockedIncrement(&counter));
        handle = create_new(temp);
        if (handle == INVALID_HANDLE_VALUE && GetLastError() != ERROR_FILE_EXISTS)
            break;
    }
    if (handle == INVALID_HANDLE_VALUE) {
        error_text(GetLastError(), why, why_len);
        return -1;
    }
    int fd = _open_osfhandle((intptr_t)handle, _O_WRONLY | _O_BINARY);
    FILE *out = fd >= 0 ? _fdopen(fd, "wb") : NULL;
    if (!out) {
        snprintf(why, why_len, "the new file cannot be written");
        if (fd >= 0)
            _close(fd);
        else
            CloseHandle(handle);
        DeleteFileA(temp);
        return -1;
    }
    errno = 0;
    int failed = fill(out, context);
    int error = !failed ? 0 : ferror(out) && !errno ? EIO : errno;
    if (fflush(out) != 0)
        failed = 1, error = errno ? errno : EIO;
    if (fclose(out) != 0 && !failed)
        failed = 1, error = errno;
    if (failed) {
        snprintf(why, why_len, "%s", error ? strerror(error) : "out of memory");
        DeleteFileA(temp);
        return -1;
    }
    return 0;
}

int plat_write_file(plat_output_dir *dir, const char *name, plat_file_writer fill, void *context, char *why,
                    size_t why_len)
{
    char path[1400], temp[1500];
    const char *what;
    path_of(dir, name, path, sizeof(path));
    if ((what = not_a_regular_file(path)) != NULL) {
        snprintf(why, why_len, "it is %s, not a regular file; left as it is", what);
        return -1;
    }
    if (write_temp(dir, name, fill, context, temp, sizeof(temp), why, why_len))
        return -1;
    if ((what = not_a_regular_file(path)) != NULL) {
        snprintf(why, why_len, "it is %s, not a regular file; left as it is", what);
        DeleteFileA(temp);
        return -1;
    }
    if (!MoveFileExA(temp, path, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
        error_text(GetLastError(), why, why_len);
        DeleteFileA(temp);
        return -1;
    }
    return 0;
}

static int write_text(FILE *out, void *text)
{
    return fputs(text, out) < 0;
}

int plat_create_new_file(plat_output_dir *dir, const char *name, const char *text, char *why, size_t why_len)
{
    char path[1400], temp[1500];
    path_of(dir, name, path, sizeof(path));
    if (write_temp(dir, name, write_text, (void *)text, temp, sizeof(temp), why, why_len))
        return -1;
    if (MoveFileExA(temp, path, MOVEFILE_WRITE_THROUGH)) /* without REPLACE_EXISTING: only where nothing is */
        return 0;
    DWORD error = GetLastError();
    DeleteFileA(temp);
    if (error == ERROR_ALREADY_EXISTS || error == ERROR_FILE_EXISTS)
        return 1;
    error_text(error, why, why_len);
    return -1;
}

int plat_read_small_file(plat_output_dir *dir, const char *name, char *text, size_t size)
{
    char path[1400];
    DWORD got = 0;
    path_of(dir, name, path, sizeof(path));
    if (not_a_regular_file(path))
        return -1;
    HANDLE handle = CreateFileA(path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                                OPEN_EXISTING, FILE_FLAG_OPEN_REPARSE_POINT, NULL);
    if (handle == INVALID_HANDLE_VALUE)
        return -1;
    BOOL read = ReadFile(handle, text, (DWORD)(size - 1), &got, NULL);
    CloseHandle(handle);
    if (!read)
        return -1;
    text[got] = '\0';
    return 0;
}

int plat_remove_file(plat_output_dir *dir, const char *name)
{
    char path[1400];
    path_of(dir, name, path, sizeof(path));
    return GetFileAttributesA(path) == INVALID_FILE_ATTRIBUTES || not_a_regular_file(path) || !DeleteFileA(path)
               ? -1
               : 0;
}

int plat_process_running(DWORD pid)
{
    HANDLE process = OpenProcess(SYNCHRONIZE, FALSE, pid);
    if (!process)
        return GetLastError() == ERROR_ACCESS_DENIED; /* there, but someone else's */
    int running = WaitForSingleObject(process, 0) == WAIT_TIMEOUT;
    CloseHandle(process);
    return running;
}
