/*
 * posix_trust.h - whether a file jevmon is about to use could have been written by someone
 * other than root or this user: the rule for registry files (posix_registry.c) and for the
 * libraries InprocServer32 names (posix_activation.c), since either one decides what code
 * runs inside the JVM; and for the directories output files go to (posix_files.c), since a
 * profiler run by root must not be led to write where its user could not.
 */
#ifndef JEVMON_PLATFORM_POSIX_TRUST_H
#define JEVMON_PLATFORM_POSIX_TRUST_H

#include <stddef.h>
#include <sys/stat.h>

/*
 * Why a file with this status may not be trusted, or NULL when it may: not a regular file
 * (a directory when directory is non-zero), writable by the group or by others, or owned by
 * someone other than root or this user.  A directory writable by others is trusted when it
 * is sticky (as /tmp): there only a file's owner can replace the file.  The reason may be
 * written into why.
 */
const char *posix_distrust(const struct stat *st, int directory, char *why, size_t why_len);

/*
 * Opens the file at path (relative to the current directory unless absolute) for reading, as the loader or open() would resolve it,
 * refusing it unless no one but root or this user could have changed what the path leads to:
 * every directory from the root down (posix_distrust), every symbolic link on the way (owned by
 * root or this user: its directory is trusted, so only its owner can replace it; followed as
 * the kernel follows it, its target's directories checked in turn) and the file itself, a
 * regular file.  Each step is taken from the directory descriptor the previous one opened, so
 * nothing can be swapped between the check and the use: the descriptor is what was checked.
 * Returns it (O_RDONLY, close-on-exec, non-blocking), or -1 with errno set: EACCES when refused,
 * another value (ENOENT, ...) when there is no such file; why then says which step and why.
 */
int posix_open_trusted(const char *path, char *why, size_t why_len);

/*
 * Opens the directory at path, walked as posix_open_trusted walks it (every directory and link on
 * the way trusted, each step from the descriptor of the one before), for the *at functions: a
 * descriptor (O_PATH, close-on-exec) of the directory checked, which stays that directory however
 * its path changes afterwards.  Missing directories are made on the way with mkdirat(make_mode)
 * (0: none are made), then walked as any other.  The directory itself must be writable by no one
 * but its owner, sticky or not; with own_only, it must be this user's (not root's, unless this
 * user is root) with no permission for its group or others.  Nothing is ever chmodded.  -1 with
 * errno (EACCES: refused) and why as posix_open_trusted.
 */
int posix_open_trusted_directory(const char *path, mode_t make_mode, int own_only, char *why, size_t why_len);

#endif
