/*
 * posix_trust.h - whether a file jevmon is about to use could have been written by someone
 * other than root or this user: the rule for registry files (posix_registry.c) and for the
 * libraries InprocServer32 names (posix_activation.c), since either one decides what code
 * runs inside the JVM.
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

#endif
