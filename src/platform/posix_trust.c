/* posix_trust.c - who could have written a file (see posix_trust.h). */
#include <stdio.h>
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
