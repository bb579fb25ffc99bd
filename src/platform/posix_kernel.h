/*
 * posix_kernel.h - what posix_interrupt.c's perf-event timers need of posix_kernel.c to carry the
 * kernel's call chain: the attributes, the ring buffer of each event, and its newest record read
 * in the signal handler.
 */
#ifndef JEVMON_PLATFORM_POSIX_KERNEL_H
#define JEVMON_PLATFORM_POSIX_KERNEL_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <sys/types.h>

/* Whether plat_cpu_timers_kernel asked for kernel frames and the kernel's symbols can be read. */
int posix_kernel_wanted(void);
/* The attributes that make an event record the kernel's call chain (and the thread) at each expiry. */
void posix_kernel_attr(struct perf_event_attr *attr);
/* Maps event fd's ring buffer for its thread tid: 1, or 0 when the kernel refuses the mapping. */
int posix_kernel_map(int fd, pid_t tid);
/* Unmaps it (fd's ring, if it has one), waiting for a handler that reads it to be done. */
void posix_kernel_unmap(int fd);
/* In the signal handler of fd's expiry (async-signal-safe): the kernel frames of its newest record,
 * innermost first, at most max of them into pcs; 0 when none (in user space, no ring, no record). */
int posix_kernel_frames(int fd, uint64_t *pcs, int max);

#endif
