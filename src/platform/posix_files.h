/*
 * posix_files.h - what posix_files.c gives the other files of the POSIX platform layer.
 */
#ifndef JEVMON_PLATFORM_POSIX_FILES_H
#define JEVMON_PLATFORM_POSIX_FILES_H

#include "platform/platform.h"

/* plat_write_file in the directory dir_fd (a descriptor posix_open_trusted_directory gave): the
 * file name replaced by a new one fill wrote, never through a link.  0, or -1 with the reason in why. */
int posix_replace_file_at(int dir_fd, const char *name, plat_file_writer fill, void *context, char *why,
                          size_t why_len);

#endif
