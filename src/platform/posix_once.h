/*
 * posix_once.h - things said once per process, however many copies of the platform layer
 * the process holds.  The agent and every monitor linked with libjevplat carry their own
 * static copy (modules are built -fvisibility=hidden and loaded RTLD_LOCAL, so no copy can
 * see another's variables); without a shared record each copy that reads a bad registry
 * file reports it again.
 */
#ifndef JEVMON_PLATFORM_POSIX_ONCE_H
#define JEVMON_PLATFORM_POSIX_ONCE_H

/*
 * 1 the first time any copy in this process asks about key (a line of text without '\n'),
 * 0 afterwards.  Also 1 when the record cannot be kept: a message said twice beats one lost.
 * The copies exclude each other; the callers within one copy must not call it at once (the
 * registry calls it under its lock).
 */
int posix_first_in_process(const char *key);

#endif
