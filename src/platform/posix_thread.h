/*
 * posix_thread.h - what posix_thread.c gives the other files of the POSIX platform layer.
 */
#ifndef JEVMON_PLATFORM_POSIX_THREAD_H
#define JEVMON_PLATFORM_POSIX_THREAD_H

/* Runs fn on a detached thread of its own, for a slow system call the caller should not wait
 * for (nobody joins it); where no thread can be made, runs it on the caller's. */
void posix_run_detached(void *(*fn)(void *unused));

#endif
