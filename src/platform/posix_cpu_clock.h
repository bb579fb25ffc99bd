/*
 * posix_cpu_clock.h - the clock of another thread's processor time, from its kernel thread id,
 * for reading it (posix_thread.c) and for timers on it (posix_interrupt.c).
 */
#ifndef JEVMON_PLATFORM_POSIX_CPU_CLOCK_H
#define JEVMON_PLATFORM_POSIX_CPU_CLOCK_H

#include <time.h>

/* As glibc's pthread_getcpuclockid makes it from the thread id: Linux's
 * MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED).  Any thread of the process may use it, so a
 * thread's clock can be read or armed before or without that thread's help. */
static inline clockid_t posix_thread_cpu_clock(unsigned tid)
{
    return (clockid_t)((~tid << 3) | 6u);
}

#endif
