/*
 * posix_sample.c - taking another thread's registers (platform.h): SIGPROF to the thread
 * with tgkill; its handler records the interrupted ip and sp and runs the caller's hook.
 *
 * Each sampling thread takes one of a few request slots, so samplers do not wait for each
 * other.  A slot's state word holds the target's kernel thread id with the phase, so a
 * handler claims a request with one compare-and-swap that can succeed only on the thread
 * it is meant for and only while the sampler still waits: a signal that arrives late,
 * after the sampler gave up, finds nothing to claim and returns.  The sampler sleeps on a
 * futex the handler wakes, so that it leaves the CPU to the thread it waits for.
 */
#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "platform/platform.h"

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

static uint64_t state_of(pid_t tid, int phase)
{
    return (uint64_t)tid << 2 | (uint64_t)phase;
}

static void on_sample_signal(int sig, siginfo_t *info, void *context)
{
    (void)sig;
    int saved_errno = errno;
    pid_t self = (pid_t)syscall(SYS_gettid);
    if (info->si_code != SI_TKILL || info->si_pid != getpid())
        return;
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
#error "posix_sample.c: the registers of this architecture are not known"
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
