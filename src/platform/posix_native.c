/*
 * posix_native.c - what a native stack walk needs of Linux (platform.h): the interrupted frame
 * of a signal handler's context, memory read without the risk of a fault, whether an address is in
 * a library's code, and a thread's name.
 *
 * plat_native_code keeps the executable segments it found (dl_iterate_phdr) and asks the loader
 * again only for an address outside them: in a walk most frames lie in a few libraries, and the
 * one address per walk in generated code costs one pass over the loaded objects.  The segments
 * are forgotten when the loader has unloaded an object since (its count of removals moved).
 */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

#include "platform/platform.h"

#define CODE_SEGMENTS 256

typedef struct code_segment {
    uint64_t start, end; /* [start, end) */
} code_segment;

static pthread_mutex_t segments_lock = PTHREAD_MUTEX_INITIALIZER;
static code_segment segments[CODE_SEGMENTS]; /* under segments_lock */
static size_t segment_count;
static unsigned long long removals_seen;

typedef struct segment_query {
    uint64_t address;
    code_segment found;
    unsigned long long removals;
} segment_query;

static int find_segment(struct dl_phdr_info *info, size_t size, void *arg)
{
    segment_query *q = arg;
    (void)size;
    q->removals = info->dlpi_subs;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uint64_t start = (uint64_t)info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && q->address >= start && q->address < start + ph->p_memsz) {
            q->found = (code_segment){start, start + ph->p_memsz};
            return 1;
        }
    }
    return 0;
}

int plat_native_code(uint64_t address)
{
    segment_query q = {address, {0, 0}, 0};
    int found = 0;
    pthread_mutex_lock(&segments_lock);
    for (size_t i = 0; i < segment_count && !found; i++)
        found = address >= segments[i].start && address < segments[i].end;
    if (!found) {
        found = dl_iterate_phdr(find_segment, &q) != 0;
        if (q.removals != removals_seen)
            segment_count = 0, removals_seen = q.removals;
        if (found && segment_count < CODE_SEGMENTS)
            segments[segment_count++] = q.found;
    }
    pthread_mutex_unlock(&segments_lock);
    return found;
}

int plat_context_frame(const void *context, uint64_t *ip, uint64_t *sp, uint64_t *fp)
{
    const mcontext_t *m = &((const ucontext_t *)context)->uc_mcontext;
#if defined(__x86_64__)
    *ip = (uint64_t)m->gregs[REG_RIP];
    *sp = (uint64_t)m->gregs[REG_RSP];
    *fp = (uint64_t)m->gregs[REG_RBP];
#elif defined(__aarch64__)
    *ip = m->pc;
    *sp = m->sp;
    *fp = m->regs[29];
#else
#error "posix_native.c: the registers of this architecture are not known"
#endif
    return 1;
}

int plat_context_moved(const void *context, uint64_t ip, uint64_t sp, uint64_t fp, void *moved)
{
    _Static_assert(sizeof(ucontext_t) <= PLAT_CONTEXT_MAX, "PLAT_CONTEXT_MAX holds a ucontext_t");
    memcpy(moved, context, sizeof(ucontext_t));
    mcontext_t *m = &((ucontext_t *)moved)->uc_mcontext;
#if defined(__x86_64__)
    m->gregs[REG_RIP] = (greg_t)ip;
    m->gregs[REG_RSP] = (greg_t)sp;
    m->gregs[REG_RBP] = (greg_t)fp;
    return 1;
#else
    (void)m, (void)ip, (void)sp, (void)fp; /* not needed yet */
    return 0;
#endif
}

/* process_vm_readv on this process: the kernel copies, and an address that is not mapped (a
 * frame pointer that is not one) is EFAULT, not a fault in the walk.  A system call, so
 * async-signal-safe; errno is the caller's again afterwards. */
int plat_read_memory(uint64_t address, void *buffer, size_t size)
{
    int saved_errno = errno;
    struct iovec local = {buffer, size}, remote = {(void *)(uintptr_t)address, size};
    ssize_t read = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    errno = saved_errno;
    return read == (ssize_t)size;
}

/* The same, one remote piece a page: the kernel copies whole pieces up to the first it cannot
 * read, so the readable part of the range (a stack's top up to its end) comes in one call. */
#define READ_PIECE 4096u
#define READ_PIECES 16

size_t plat_read_memory_prefix(uint64_t address, void *buffer, size_t size)
{
    int saved_errno = errno, pieces = 0;
    struct iovec local = {buffer, size}, remote[READ_PIECES];
    for (uint64_t at = address, end = address + size; at < end && pieces < READ_PIECES; pieces++) {
        uint64_t next = (at / READ_PIECE + 1) * READ_PIECE;
        remote[pieces].iov_base = (void *)(uintptr_t)at;
        remote[pieces].iov_len = (size_t)((next < end ? next : end) - at);
        at = next;
    }
    ssize_t read = process_vm_readv(getpid(), &local, 1, remote, (unsigned long)pieces, 0);
    errno = saved_errno;
    return read > 0 ? (size_t)read : 0;
}

int plat_os_thread_name(DWORD os_tid, char *name, size_t size)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/task/%lu/comm", (unsigned long)os_tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || size == 0) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    ssize_t length = read(fd, name, size - 1);
    close(fd);
    if (length <= 0)
        return 0;
    name[length] = '\0';
    name[strcspn(name, "\n")] = '\0';
    return 1;
}
