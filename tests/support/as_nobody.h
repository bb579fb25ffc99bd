/*
 * as_nobody.h - files, links and directories made by another user for the trust tests: the
 * suites run as root (here and in CI), and make them as `nobody` (uid and gid 65534) from a
 * child process, as an attacker sharing the machine would.
 */
#ifndef JEVMON_TEST_AS_NOBODY_H
#define JEVMON_TEST_AS_NOBODY_H

#include <stddef.h>

#define NOBODY_UID 65534

/* Non-zero when this process can act as nobody (it runs as root); a test without it says so and returns. */
int as_nobody_possible(void);
/* As nobody: a symbolic link at path pointing to target; checked. */
void as_nobody_symlink(const char *target, const char *path);
/* As nobody: a directory at path with the given mode; checked. */
void as_nobody_mkdir(const char *path, unsigned mode);
/* A shared machine in the test's own directory dir (root's, made 0711): pub, <dir>/pub, sticky and
 * world-writable as /tmp is, where nobody may make things. */
void as_nobody_public_dir(const char *dir, char *pub, size_t size);
/* In pub, "shared": a directory nobody made and anyone can write (0777); its path in shared. */
void as_nobody_shared_dir(const char *pub, char *shared, size_t size);

#endif
