/*
 * posix_interrupt.c - taking another thread's registers (platform.h): SIGPROF to the thread
 * with tgkill; its handler records the interrupted ip and sp and runs the caller's hook.
 *
 * Each sampling thread takes one of a few request slots, so samplers do not wait for each
 * other.  A slot's state word holds the target's kernel thread id with the phase, so a
 * handler claims a request with one compare-and-swap that can succeed only on the thread
 * it is meant for and only while the sampler still waits: a signal that arrives late,
 * after the sampler gave up, finds nothing to claim and returns.  The sampler sleeps on a
 * futex the handler wakes, so that it leaves the CPU to the thread it waits for.
 *
 * Processor-time timers send the same signal to their thread, and the handler tells them apart by
 * si_code.  Each is, where the kernel lets this process have one, a perf event on the thread's
 * task clock (an hrtimer, exact to the nanosecond; its signal, POLL_IN or POLL_HUP with the
 * event's descriptor, allows one more expiry each time, as async-profiler's cpu engine does it);
 * otherwise a POSIX timer on the thread's CPU clock (timer_create, SIGEV_THREAD_ID, SI_TIMER),
 * which Linux checks only at the scheduler tick, merging expiries into one signal (si_overrun)
 * when the period is shorter.
 *
 * The perf events do not expire every period: the thread's processor time is cut into cells of
 * one period, and each cell's sample falls at a uniform random point of it (common/jitter.h), so
 * that no phase of a periodic program is favoured.  The handler reads the thread's processor-time
 * clock, moves to the next cell (a cell that passed whole, the signal held back, is merged into
 * this sample), draws the point and sets the period up to it (PERF_EVENT_IOC_PERIOD) before the
 * next expiry is allowed.  The cells are counted on the clock, not from the handler's moment,
 * so the time the signal and the handler take is not added to every period.  Each event's next
 * cell is kept by its descriptor (the signal names it).  The POSIX timers keep a fixed period:
 * their signals come at scheduler ticks whatever is asked, and only a fixed period lets the
 * kernel count the expiries merged.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <stdlib.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "common/jitter.h"
#include "platform/platform.h"
#include "platform/posix_cpu_clock.h"
#include "platform/posix_kernel.h"

enum { PHASE_ASKED = 1, PHASE_RUNNING = 2, PHASE_DONE = 3 };
#define SLOTS 8

typedef struct request {
    atomic_int taken;       /* a sampler owns the slot */
    _Atomic uint64_t state; /* tid << 2 | phase; 0 when no request is out */
    atomic_int answered;    /* the futex word: 1 once the handler is done */
    plat_sample_hook hook;
    void *arg;
    uint64_t ip, sp;
} request;

static request requests[SLOTS];
static int installed;
static _Atomic(plat_cpu_tick_hook) tick_hook;

/* The perf events' cells: where each event's next cell starts on its thread's processor-time
 * clock, by the event's descriptor (written at its start, then only by its thread's handler);
 * 0 for none.  A descriptor beyond the table (a process with that many files open) has none:
 * its intervals are drawn whole, uniform in (0, 2 periods), unbiased but not counted in cells. */
#define CELL_FDS 65536
#define SHORTEST_PERIOD_NS 10000 /* perf's own floor for a timer event */
static uint64_t next_cell_ns[CELL_FDS];
static _Atomic uint64_t cell_ns; /* the period: one at a time (cpu_sample.c) */

struct plat_cpu_timer {
    int fd; /* the perf event's, or -1: a POSIX timer */
    timer_t id;
    int kernel; /* JEVMON_KERNEL_FRAMES: whether its samples carry kernel frames, or why not */
};

#define KERNEL_DEPTH 64 /* kernel frames kept of a sample, the innermost */

static uint64_t state_of(pid_t tid, int phase)
{
    return (uint64_t)tid << 2 | (uint64_t)phase;
}

static uint64_t own_cpu_ns(void)
{
    struct timespec now;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) != 0)
        return 0;
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* The period up to a new timer's first sample: a random point of its first cell, which starts
 * where the event starts counting. */
static uint64_t first_perf_period(uint64_t cell)
{
    uint64_t offset = jv_jitter_offset_ns(cell);
    return offset > SHORTEST_PERIOD_NS ? offset : SHORTEST_PERIOD_NS;
}

/* In the handler of event fd's expiry: the period up to the next cell's sample (*period) and how
 * many cells passed whole since this one's, whose samples this one stands for. */
static int next_perf_period(int fd, uint64_t *period)
{
    uint64_t cell = atomic_load_explicit(&cell_ns, memory_order_relaxed), now = own_cpu_ns(), merged = 0;
    if (fd < 0 || fd >= CELL_FDS || !next_cell_ns[fd] || !now) {
        *period = 2 * jv_jitter_offset_ns(cell); /* uniform in (0, 2 cells): the mean is one cell */
    } else {
        uint64_t next = next_cell_ns[fd];
        if (now >= next + cell) { /* whole cells went by while the signal was held back */
            merged = (now - next) / cell;
            next += merged * cell;
        }
        uint64_t at = next + jv_jitter_offset_ns(cell);
        next_cell_ns[fd] = next + cell;
        *period = at > now ? at - now : 0;
    }
    if (*period < SHORTEST_PERIOD_NS)
        *period = SHORTEST_PERIOD_NS;
    return merged > INT32_MAX ? INT32_MAX : (int)merged;
}

static void on_sample_signal(int sig, siginfo_t *info, void *context)
{
    (void)sig;
    int saved_errno = errno;
    int perf = info->si_code == POLL_IN || info->si_code == POLL_HUP;
    if (perf || info->si_code == SI_TIMER) {
        uint64_t period = 0, kernel[KERNEL_DEPTH];
        int merged = perf ? next_perf_period(info->si_fd, &period) : info->si_overrun;
        int kernel_count = perf ? posix_kernel_frames(info->si_fd, kernel, KERNEL_DEPTH) : 0;
        plat_cpu_tick_hook tick = atomic_load(&tick_hook);
        if (tick)
            tick(context, merged, kernel_count > 0 ? kernel : NULL, kernel_count);
        if (perf) {
            ioctl(info->si_fd, PERF_EVENT_IOC_PERIOD, &period);
            ioctl(info->si_fd, PERF_EVENT_IOC_REFRESH, 1); /* the next expiry */
        }
        errno = saved_errno;
        return;
    }
    pid_t self = (pid_t)syscall(SYS_gettid);
    if (info->si_code != SI_TKILL || info->si_pid != getpid()) {
        errno = saved_errno;
        return;
    }
    for (int i = 0; i < SLOTS; i++) {
        request *r = &requests[i];
        uint64_t asked = state_of(self, PHASE_ASKED);
        if (!atomic_compare_exchange_strong(&r->state, &asked, state_of(self, PHASE_RUNNING)))
            continue;
        const mcontext_t *m = &((const ucontext_t *)context)->uc_mcontext;
#if defined(__x86_64__)
        r->ip = (uint64_t)m->gregs[REG_RIP];
        r->sp = (uint64_t)m->gregs[REG_RSP];
#elif defined(__aarch64__)
        r->ip = m->pc;
        r->sp = m->sp;
#else
#error "posix_interrupt.c: the registers of this architecture are not known"
#endif
        if (r->hook)
            r->hook(context, r->arg);
        atomic_store(&r->state, state_of(self, PHASE_DONE));
        atomic_store(&r->answered, 1);
        syscall(SYS_futex, &r->answered, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    }
    errno = saved_errno;
}

int plat_sample_init(void)
{
    struct sigaction old, action;
    if (sigaction(SIGPROF, NULL, &old) == 0 && (old.sa_flags & SA_SIGINFO ? old.sa_sigaction != NULL
                                                                         : old.sa_handler != SIG_DFL &&
                                                                               old.sa_handler != SIG_IGN)) {
        jv_log("SIGPROF already has a handler (another profiler?); samples are taken through JVMTI only");
        return 0;
    }
    memset(&action, 0, sizeof(action));
    action.sa_sigaction = on_sample_signal;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGPROF, &action, NULL) != 0) {
        jv_log("could not install the SIGPROF handler (%s); samples are taken through JVMTI only", strerror(errno));
        return 0;
    }
    installed = 1;
    return 1;
}

static request *take_slot(void)
{
    for (;;) {
        for (int i = 0; i < SLOTS; i++)
            if (!atomic_load(&requests[i].taken) && !atomic_exchange(&requests[i].taken, 1))
                return &requests[i];
        plat_sleep_ms(1); /* more samplers than slots: wait for one */
    }
}

/* Sleeps until the handler says it is done, or for at most ns (0: no limit). */
static void wait_for_answer(request *r, uint64_t ns)
{
    struct timespec limit = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    syscall(SYS_futex, &r->answered, FUTEX_WAIT_PRIVATE, 0, ns ? &limit : NULL, NULL, 0);
}

int plat_sample_thread(DWORD os_tid, unsigned timeout_ms, plat_sample_hook hook, void *arg, plat_registers *regs)
{
    if (!installed || !os_tid)
        return 0;
    pid_t tid = (pid_t)os_tid;
    int answered = 0;
    request *r = take_slot();
    r->hook = hook;
    r->arg = arg;
    atomic_store(&r->answered, 0);
    atomic_store(&r->state, state_of(tid, PHASE_ASKED));
    if (syscall(SYS_tgkill, getpid(), tid, SIGPROF) == 0) {
        uint64_t deadline = plat_now_ns() + (uint64_t)timeout_ms * 1000000u;
        for (;;) {
            uint64_t now = atomic_load(&r->state), asked = state_of(tid, PHASE_ASKED), time = plat_now_ns();
            if (now == state_of(tid, PHASE_DONE)) {
                answered = 1;
                break;
            }
            /* Give up only while the handler has not claimed the request: once it runs, the
             * hook may be writing to the caller's memory, and it finishes without blocking. */
            if (now == asked && time >= deadline && atomic_compare_exchange_strong(&r->state, &asked, 0))
                break;
            wait_for_answer(r, now == asked && time < deadline ? deadline - time : 0);
        }
    }
    atomic_store(&r->state, 0);
    if (answered) {
        regs->ip = r->ip;
        regs->sp = r->sp;
        regs->hooked = hook != NULL;
    }
    atomic_store(&r->taken, 0);
    return answered;
}

/* The JVM's thread key, plus one (0: not found); where a Java thread's JNIEnv lies in the JVM's
 * record of it, and the JNI function table every Java thread's JNIEnv points to. */
static atomic_uint jvm_thread_key;
static uintptr_t env_offset;
static const void *jni_functions;

/* The kinds of record seen (the first word of a record: its C++ class's table of virtual functions),
 * each with its low bit set when records of that kind hold a JNIEnv at env_offset.  A record of
 * another kind (a collector's) may end before that place: the first of its kind is read there only
 * through the kernel, which fails instead of faulting and which no sanitizer watches; the answer
 * holds for every record of the kind. */
#define RECORD_KINDS 64
static _Atomic uintptr_t record_kinds[RECORD_KINDS]; /* 0: free */

int plat_jvm_thread_key_find(const void *env, size_t span)
{
    uintptr_t below = (uintptr_t)env, nearest = 0;
    unsigned found = 0;
    /* A key no one created reads as NULL or as an old value of a thread's slot: read only. */
    for (unsigned key = 0; key < PTHREAD_KEYS_MAX; key++) {
        uintptr_t value = (uintptr_t)pthread_getspecific((pthread_key_t)key);
        if (value && value < below && below - value <= span && value > nearest)
            nearest = value, found = key + 1;
    }
    if (found) {
        env_offset = below - nearest;
        memcpy(&jni_functions, env, sizeof(jni_functions));
    }
    atomic_store(&jvm_thread_key, found); /* after the two above: a handler reads them once it sees the key */
    return found != 0;
}

/* Whether records of this kind hold a JNIEnv (record: one of them), learnt once per kind. */
static int kind_holds_env(uintptr_t kind, uintptr_t record)
{
    const void *functions = NULL;
    int i = 0;
    for (uintptr_t seen; i < RECORD_KINDS && (seen = atomic_load(&record_kinds[i])) != 0; i++)
        if ((seen & ~(uintptr_t)1) == kind)
            return (int)(seen & 1);
    if (!plat_read_memory(record + env_offset, &functions, sizeof(functions)))
        return 0; /* not known: asked again at the next record of the kind */
    int holds = functions == jni_functions;
    for (uintptr_t expected = 0; i < RECORD_KINDS; i++, expected = 0)
        if (atomic_compare_exchange_strong(&record_kinds[i], &expected, kind | (uintptr_t)holds) ||
            (expected & ~(uintptr_t)1) == kind)
            break; /* kept, or another handler kept the same answer first */
    return holds;
}

void *plat_jvm_thread_env(void)
{
    unsigned key = atomic_load(&jvm_thread_key);
    /* glibc's pthread_getspecific reads the thread's own slots: no lock, no allocation. */
    uintptr_t record = key ? (uintptr_t)pthread_getspecific((pthread_key_t)(key - 1)) : 0, kind;
    if (!record)
        return NULL;
    memcpy(&kind, (const void *)record, sizeof(kind));
    if ((kind & 1) || !kind_holds_env(kind, record))
        return NULL; /* a table of functions is aligned: a record without one is not a thread's */
    const void *functions;
    memcpy(&functions, (const void *)(record + env_offset), sizeof(functions));
    return functions == jni_functions ? (void *)(record + env_offset) : NULL;
}

int plat_cpu_timers_init(plat_cpu_tick_hook hook)
{
    if (!installed)
        return 0;
    atomic_store(&tick_hook, hook);
    jv_jitter_seed(plat_now_ns()); /* another run, other points */
    return 1;
}

/* The first task-bound perf event the system has had for a second or so keeps its opener asleep
 * 10-20 ms (the kernel switches its scheduler hooks on by patching its own code, then waits for
 * every CPU to see it), and the switch stays on for a second after the last such event closes.
 * The helper opens and closes one on itself, so that the timers armed at the JVM's start find the
 * hooks on. */
static void *ready_kernel(void *unused)
{
    (void)unused;
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof(attr));
    attr.size = sizeof(attr);
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    attr.disabled = attr.exclude_kernel = attr.exclude_hv = 1;
    int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd >= 0)
        close(fd);
    return NULL;
}

void plat_cpu_timers_prepare(void)
{
    plat_run_helper(ready_kernel);
}

/* A perf event on the thread's task clock that signals the thread once in every period_ns of its
 * processor time, at a random point of each (see above); -1 where the
 * kernel refuses (no perf events, or perf_event_paranoid: then without the kernel's time).  With
 * chain, one that records the kernel's call chain into a ring buffer (posix_kernel.c), or -1 with
 * *refused why not (JEVMON_KERNEL_FRAMES). */
static int start_perf_event(pid_t tid, uint64_t period_ns, int chain, int *refused)
{
    struct perf_event_attr attr;
    int fd = -1;
    atomic_store(&cell_ns, period_ns);
    memset(&attr, 0, sizeof(attr));
    attr.size = sizeof(attr);
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    /* The first expiry's point in the first cell, given at the open: a PERIOD ioctl on another
     * thread's event interrupts the processor that thread last ran on, and waits for it. */
    attr.sample_period = first_perf_period(period_ns);
    attr.disabled = 1; /* and so at zero until the REFRESH below starts it */
    attr.wakeup_events = 1;
    for (int user_only = 0; user_only < 2 - chain && fd < 0; user_only++) {
        attr.exclude_kernel = attr.exclude_hv = (unsigned)user_only;
        if (chain)
            posix_kernel_attr(&attr);
        fd = (int)syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    }
    if (fd < 0) {
        if (chain)
            *refused = errno == EACCES || errno == EPERM ? JEVMON_KERNEL_FRAMES_REFUSED : JEVMON_KERNEL_FRAMES_NO_TIMERS;
        return -1;
    }
    if (chain && !posix_kernel_map(fd, tid)) {
        *refused = JEVMON_KERNEL_FRAMES_NO_BUFFER;
        close(fd);
        return -1;
    }
    struct f_owner_ex owner = {F_OWNER_TID, tid};
    /* The first cell starts as the event starts counting: the processor time the setting up took
     * (a few tens of microseconds, most of a short thread's life) is before it. */
    uint64_t cpu_ns = UINT64_MAX;
    int failed = fcntl(fd, F_SETFL, O_ASYNC) != 0 || fcntl(fd, F_SETSIG, SIGPROF) != 0 ||
                 fcntl(fd, F_SETOWN_EX, &owner) != 0 || (cpu_ns = plat_thread_cpu_ns((DWORD)tid)) == UINT64_MAX;
    if (!failed && fd < CELL_FDS)
        next_cell_ns[fd] = cpu_ns + period_ns;
    if (failed || ioctl(fd, PERF_EVENT_IOC_REFRESH, 1) != 0) {
        if (fd < CELL_FDS)
            next_cell_ns[fd] = 0;
        posix_kernel_unmap(fd);
        close(fd);
        if (chain)
            *refused = JEVMON_KERNEL_FRAMES_NO_TIMERS;
        return -1;
    }
    return fd;
}

plat_cpu_timer *plat_cpu_timer_start(DWORD os_tid, uint64_t period_ns)
{
    struct sigevent event;
    plat_cpu_timer *timer = malloc(sizeof(*timer));
    if (!installed || !os_tid || !timer) {
        free(timer);
        return NULL;
    }
    timer->kernel = posix_kernel_wanted() ? JEVMON_KERNEL_FRAMES_TAKEN : JEVMON_KERNEL_FRAMES_NOT_ASKED;
    if (timer->kernel == JEVMON_KERNEL_FRAMES_TAKEN &&
        (timer->fd = start_perf_event((pid_t)os_tid, period_ns, 1, &timer->kernel)) >= 0)
        return timer;
    if ((timer->fd = start_perf_event((pid_t)os_tid, period_ns, 0, NULL)) >= 0)
        return timer;
    if (timer->kernel != JEVMON_KERNEL_FRAMES_NOT_ASKED)
        timer->kernel = JEVMON_KERNEL_FRAMES_NO_TIMERS;
    memset(&event, 0, sizeof(event));
    event.sigev_notify = SIGEV_THREAD_ID;
    event.sigev_signo = SIGPROF;
    event._sigev_un._tid = (pid_t)os_tid; /* sigev_notify_thread_id, which older C libraries lack */
    if (timer_create(posix_thread_cpu_clock((unsigned)os_tid), &event, &timer->id) != 0) {
        free(timer);
        return NULL;
    }
    struct timespec period = {(time_t)(period_ns / 1000000000u), (long)(period_ns % 1000000000u)};
    struct itimerspec every = {period, period};
    if (timer_settime(timer->id, 0, &every, NULL) != 0) {
        timer_delete(timer->id);
        free(timer);
        return NULL;
    }
    return timer;
}

int plat_cpu_timer_kernel(const plat_cpu_timer *timer)
{
    return timer ? timer->kernel : JEVMON_KERNEL_FRAMES_NOT_ASKED;
}

/* A signal of the timer already pending may still arrive: the handler needs nothing of the timer
 * (its ring, if it had one, is gone from the table, and its descriptor's next owner is told apart). */
void plat_cpu_timer_stop(plat_cpu_timer *timer)
{
    if (!timer)
        return;
    if (timer->fd >= 0) {
        ioctl(timer->fd, PERF_EVENT_IOC_DISABLE, 0);
        if (timer->fd < CELL_FDS)
            next_cell_ns[timer->fd] = 0;
        posix_kernel_unmap(timer->fd);
        close(timer->fd);
    } else {
        timer_delete(timer->id);
    }
    free(timer);
}
