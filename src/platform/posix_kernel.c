/*
 * posix_kernel.c - the kernel frames of processor-time samples (platform.h): the ring buffer of
 * each perf-event timer, read in the signal handler (their names: posix_kernel_symbols.c).
 *
 * A timer's perf event (posix_interrupt.c) asked for them records, at each expiry, the thread and the
 * kernel's part of its call chain (PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN, the user part left out:
 * the native walk has it) into a ring buffer of one data page mapped from the event, as
 * async-profiler's perf_events engine does it.  The event allows one expiry per signal, so the
 * handler finds that expiry's record as the newest; it takes the addresses after
 * PERF_CONTEXT_KERNEL up to the next context mark, and moves the ring's tail past everything.  A
 * record that is malformed, short, of another thread (a late signal of a closed event whose
 * descriptor was reused) or a note that the kernel lost records is skipped and counted.
 *
 * The rings are kept by event descriptor (the signal names it).  A handler takes its ring out of the
 * table while it reads it and puts it back after, so unmapping (another thread stopping the timer)
 * takes it out first and waits while a handler has it: a ring is never unmapped under a reader.
 *
 * Where kptr_restrict hides the addresses of /proc/kallsyms (all zero) kernel frames are not taken.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "platform/platform.h"
#include "platform/posix_kernel.h"

#define RING_FDS 65536 /* as posix_interrupt.c's cells: a descriptor beyond has no ring */

static _Atomic(struct perf_event_mmap_page *) rings[RING_FDS]; /* NULL: none, or a handler reads it */
static struct perf_event_mmap_page *mapped[RING_FDS];          /* the mapping, for the unmap */
static pid_t owners[RING_FDS];                                 /* the thread each ring's event times */
static size_t ring_bytes;                                      /* the mapping's size */
static atomic_int wanted;
static _Atomic uint64_t skipped;

/* The number at the start of a file of /proc (0 when it cannot be read). */
static uint64_t read_number(const char *path, int base)
{
    char line[256];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t length = read(fd, line, sizeof(line) - 1);
    close(fd);
    if (length <= 0)
        return 0;
    line[length] = '\0';
    return strtoull(line, NULL, base);
}

/* Whether kernel frames can be named.  /proc/kallsyms shows every address as 0 to a process that may
 * not see them: by kptr_restrict, or with kptr_restrict 0 by perf_event_paranoid above 1 without
 * CAP_SYSLOG (the kernel's own rule for perf's use of them), where the events refuse the frames too. */
static int kernel_symbols_state(void)
{
    if (read_number("/proc/kallsyms", 16))
        return JEVMON_KERNEL_FRAMES_TAKEN;
    return read_number("/proc/sys/kernel/kptr_restrict", 10) ? JEVMON_KERNEL_FRAMES_HIDDEN
                                                             : JEVMON_KERNEL_FRAMES_REFUSED;
}

int plat_cpu_timers_kernel(int want)
{
    int state = want ? kernel_symbols_state() : JEVMON_KERNEL_FRAMES_NOT_ASKED;
    atomic_store(&skipped, 0);
    atomic_store(&wanted, state == JEVMON_KERNEL_FRAMES_TAKEN);
    return state;
}

int posix_kernel_wanted(void)
{
    return atomic_load(&wanted);
}

uint64_t plat_kernel_records_skipped(void)
{
    return atomic_load(&skipped);
}

void posix_kernel_attr(struct perf_event_attr *attr)
{
    attr->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
    attr->exclude_callchain_user = 1;
    attr->exclude_kernel = attr->exclude_hv = 0;
}

int posix_kernel_map(int fd, pid_t tid)
{
    if (fd < 0 || fd >= RING_FDS)
        return 0;
    if (!ring_bytes)
        ring_bytes = 2 * (size_t)sysconf(_SC_PAGESIZE); /* the control page and one page of records */
    void *page = mmap(NULL, ring_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (page == MAP_FAILED)
        return 0;
    mapped[fd] = page;
    owners[fd] = tid;
    atomic_store(&rings[fd], (struct perf_event_mmap_page *)page);
    return 1;
}

void posix_kernel_unmap(int fd)
{
    if (fd < 0 || fd >= RING_FDS || !mapped[fd])
        return;
    for (;;) {
        struct perf_event_mmap_page *expected = mapped[fd];
        if (atomic_compare_exchange_strong(&rings[fd], &expected, NULL))
            break;
        sched_yield(); /* a handler reads it: it is done within microseconds */
    }
    munmap(mapped[fd], ring_bytes);
    mapped[fd] = NULL;
}

/* The 8 bytes at offset of the ring's data (records are 8-byte aligned, the data a power of two). */
static uint64_t ring_word(const unsigned char *data, uint64_t size, uint64_t offset)
{
    uint64_t word;
    memcpy(&word, data + (offset & (size - 1)), sizeof(word));
    return word;
}

/* The kernel frames of the sample record at offset (size bytes), or -1: malformed, another thread's. */
static int sample_frames(const unsigned char *data, uint64_t data_size, uint64_t at, uint64_t size, pid_t owner,
                         uint64_t *pcs, int max)
{
    uint64_t words = size / 8, ids = ring_word(data, data_size, at + 8), nr = ring_word(data, data_size, at + 16);
    int count = 0, in_kernel = 0;
    if (words < 3 || nr != words - 3 || (pid_t)(ids >> 32) != owner || owner != (pid_t)syscall(SYS_gettid))
        return -1;
    for (uint64_t i = 3; i < words; i++) {
        uint64_t ip = ring_word(data, data_size, at + 8 * i);
        if (ip >= (uint64_t)PERF_CONTEXT_MAX)
            in_kernel = ip == (uint64_t)PERF_CONTEXT_KERNEL;
        else if (in_kernel && count < max)
            pcs[count++] = ip;
    }
    return count;
}

int posix_kernel_frames(int fd, uint64_t *pcs, int max)
{
    if (fd < 0 || fd >= RING_FDS)
        return 0;
    struct perf_event_mmap_page *page = atomic_exchange(&rings[fd], NULL);
    if (!page)
        return 0;
    uint64_t head = __atomic_load_n(&page->data_head, __ATOMIC_ACQUIRE), tail = page->data_tail;
    uint64_t size = page->data_size ? page->data_size : ring_bytes / 2;
    const unsigned char *data = (const unsigned char *)page + (page->data_offset ? page->data_offset : ring_bytes / 2);
    uint64_t newest = 0, newest_size = 0;
    int count = 0;
    if ((size & (size - 1)) || head - tail > size) {
        atomic_fetch_add(&skipped, 1); /* not a ring this code knows, or overwritten */
    } else {
        while (head - tail >= sizeof(struct perf_event_header)) {
            uint64_t header = ring_word(data, size, tail);
            uint32_t type = (uint32_t)header;
            uint16_t record = (uint16_t)(header >> 48);
            if (record < 8 || (record & 7) || record > head - tail) {
                atomic_fetch_add(&skipped, 1); /* short or malformed: the rest cannot be told apart */
                break;
            }
            if (type == PERF_RECORD_SAMPLE) {
                if (newest_size)
                    atomic_fetch_add(&skipped, 1); /* an older sample's, whose signal did not come */
                newest = tail, newest_size = record;
            } else if (type == PERF_RECORD_LOST) {
                atomic_fetch_add(&skipped, 1);
            }
            tail += record;
        }
        if (newest_size && (count = sample_frames(data, size, newest, newest_size, owners[fd], pcs, max)) < 0) {
            atomic_fetch_add(&skipped, 1);
            count = 0;
        }
    }
    __atomic_store_n(&page->data_tail, head, __ATOMIC_RELEASE);
    atomic_store(&rings[fd], page);
    return count;
}
