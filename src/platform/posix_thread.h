/*
 * posix_thread.h - what posix_thread.c gives the other files of the POSIX platform layer.
 */
#ifndef JEVMON_PLATFORM_POSIX_THREAD_H
#define JEVMON_PLATFORM_POSIX_THREAD_H

/* Runs fn on a thread of its own, for a slow system call the caller should not wait for; where no
 * thread can be made, on the caller's.  plat_helpers_join (platform.h) waits for it. */
void posix_run_helper(void *(*fn)(void *unused));

#endif
