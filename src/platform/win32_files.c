/* win32_files.c - writing output files safely on Windows (see platform.h, "Output files"): a new
 * temporary file (CREATE_NEW) moved over the name (MoveFileEx, REPLACE_EXISTING), never a reparse
 * point, a device or a directory at the name; the user's private directory; whether a process
 * still runs.  Directories' access control lists are not read. */
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/platform.h"
#include "platform/win32_internal.h"

#define TEMP_TRIES 100

int plat_check_private_directory(const char *dir, char *why, size_t why_len)
{
    DWORD attributes = GetFileAttributesA(dir);
    if (attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_DIRECTORY))
        return 0;
    snprintf(why, why_len, "%s", attributes == INVALID_FILE_ATTRIBUTES ? "it does not exist" : "it is not a directory");
    return -1;
}

int plat_user_private_directory(char *path, size_t size, char *why, size_t why_len)
{
    const char *local = getenv("LOCALAPPDATA");
    snprintf(path, size, "%s\\jevprof", local && *local ? local : ".");
    return plat_make_directories(path, why, why_len);
}

/* The path of name in dir. */
static void path_of(const char *dir, const char *name, char *path, size_t size)
{
    snprintf(path, size, "%s\\%s", dir, name);
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

static void error_text(DWORD error, char *why, size_t why_len)
{
    char text[256];
    snprintf(why, why_len, "%s", win32_error_text(error, text, sizeof(text)));
}

/* A new file of ours: CREATE_NEW never opens what exists, a link included. */
static HANDLE create_new(const char *path)
{
    return CreateFileA(path, GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
}

int plat_write_file(const char *dir, const char *name, plat_file_writer fill, void *context, char *why,
                    size_t why_len)
{
    static volatile LONG counter;
    char path[1400], temp[1500];
    const char *what;
    path_of(dir, name, path, sizeof(path));
    if ((what = not_a_regular_file(path)) != NULL) {
        snprintf(why, why_len, "it is %s, not a regular file; left as it is", what);
        return -1;
    }
    HANDLE handle = INVALID_HANDLE_VALUE;
    for (int i = 0; i < TEMP_TRIES && handle == INVALID_HANDLE_VALUE; i++) {
        snprintf(temp, sizeof(temp), "%s\\.%s.%lu.%ld.tmp", dir, name, (unsigned long)GetCurrentProcessId(),
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
    if (fflush(out) != 0 || !FlushFileBuffers(handle))
        failed = 1, error = errno ? errno : EIO;
    if (fclose(out) != 0 && !failed)
        failed = 1, error = errno;
    if (!failed && (what = not_a_regular_file(path)) != NULL) {
        snprintf(why, why_len, "it is %s, not a regular file; left as it is", what);
        DeleteFileA(temp);
        return -1;
    }
    if (!failed && !MoveFileExA(temp, path, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
        error_text(GetLastError(), why, why_len);
        DeleteFileA(temp);
        return -1;
    }
    if (failed) {
        snprintf(why, why_len, "%s", error ? strerror(error) : "out of memory");
        DeleteFileA(temp);
        return -1;
    }
    return 0;
}

int plat_create_new_file(const char *dir, const char *name, const char *text, char *why, size_t why_len)
{
    char path[1400];
    DWORD written = 0, length = (DWORD)strlen(text);
    path_of(dir, name, path, sizeof(path));
    HANDLE handle = create_new(path);
    if (handle == INVALID_HANDLE_VALUE) {
        DWORD error = GetLastError();
        if (error == ERROR_FILE_EXISTS)
            return 1;
        error_text(error, why, why_len);
        return -1;
    }
    BOOL wrote = WriteFile(handle, text, length, &written, NULL) && written == length;
    DWORD error = GetLastError();
    if (!CloseHandle(handle) || !wrote) {
        error_text(wrote ? GetLastError() : error, why, why_len);
        DeleteFileA(path);
        return -1;
    }
    return 0;
}

int plat_read_small_file(const char *dir, const char *name, char *text, size_t size)
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

int plat_remove_file(const char *dir, const char *name)
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
