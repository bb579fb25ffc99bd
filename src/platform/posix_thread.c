/* posix_thread.c - mutexes, threads, thread ids, the monotonic clock, sleeping and the
 * process-wide barrier, with pthreads and Linux system calls. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <x86intrin.h>
#ifdef __linux__
#include <linux/membarrier.h>
#endif

#include "platform/platform.h"

struct plat_mutex {
    pthread_mutex_t mutex;
};

/* Recursive, as the CRITICAL_SECTION that backs plat_mutex on Windows is. */
plat_mutex *plat_mutex_create(void)
{
    plat_mutex *m = malloc(sizeof(*m));
    pthread_mutexattr_t attr;
    if (!m)
        return NULL;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    int failed = pthread_mutex_init(&m->mutex, &attr);
    pthread_mutexattr_destroy(&attr);
    if (failed) {
        free(m);
        return NULL;
    }
    return m;
}

void plat_mutex_destroy(plat_mutex *m)
{
    if (!m)
        return;
    pthread_mutex_destroy(&m->mutex);
    free(m);
}

void plat_mutex_lock(plat_mutex *m)
{
    pthread_mutex_lock(&m->mutex);
}

void plat_mutex_unlock(plat_mutex *m)
{
    pthread_mutex_unlock(&m->mutex);
}

struct plat_thread {
    pthread_t thread;
    void (*fn)(void *arg);
    void *arg;
};

static void *thread_main(void *self)
{
    plat_thread *t = self;
    t->fn(t->arg);
    return NULL;
}

plat_thread *plat_thread_start(void (*fn)(void *arg), void *arg)
{
    plat_thread *t = malloc(sizeof(*t));
    if (!t)
        return NULL;
    t->fn = fn;
    t->arg = arg;
    if (pthread_create(&t->thread, NULL, thread_main, t) != 0) {
        free(t);
        return NULL;
    }
    return t;
}

void plat_thread_join(plat_thread *t)
{
    pthread_join(t->thread, NULL);
    free(t);
}

DWORD plat_os_thread_id(void)
{
    return (DWORD)gettid();
}

uint64_t plat_thread_cpu_ns(DWORD os_thread)
{
    struct timespec used;
    /* Another thread's clock, as glibc's pthread_getcpuclockid makes it from the thread id
     * (Linux's MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)). */
    clockid_t clock = os_thread == plat_os_thread_id() ? CLOCK_THREAD_CPUTIME_ID
                                                       : (clockid_t)((~(unsigned)os_thread << 3) | 6u);
    if (clock_gettime(clock, &used) != 0)
        return UINT64_MAX;
    return (uint64_t)used.tv_sec * 1000000000u + (uint64_t)used.tv_nsec;
}

uint64_t plat_ticks(void)
{
    return __rdtsc();
}

uint64_t plat_now_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

void plat_sleep_ms(unsigned ms)
{
    struct timespec left = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&left, &left) != 0 && errno == EINTR)
        ; /* a signal cut it short: sleep the rest */
}

struct plat_stop {
    pthread_mutex_t mutex;
    pthread_cond_t cond; /* on the monotonic clock */
    int signaled;
};

plat_stop *plat_stop_create(void)
{
    plat_stop *s = calloc(1, sizeof(*s));
    pthread_condattr_t attr;
    if (!s || pthread_condattr_init(&attr) != 0) {
        free(s);
        return NULL;
    }
    int failed = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) != 0 || pthread_cond_init(&s->cond, &attr) != 0;
    pthread_condattr_destroy(&attr);
    if (failed || pthread_mutex_init(&s->mutex, NULL) != 0) {
        if (!failed)
            pthread_cond_destroy(&s->cond);
        free(s);
        return NULL;
    }
    return s;
}

void plat_stop_destroy(plat_stop *s)
{
    if (!s)
        return;
    pthread_cond_destroy(&s->cond);
    pthread_mutex_destroy(&s->mutex);
    free(s);
}

int plat_stop_wait(plat_stop *s, unsigned ms)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += (time_t)(ms / 1000);
    until.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&s->mutex);
    int timed_out = 0;
    while (!s->signaled && !timed_out)
        timed_out = pthread_cond_timedwait(&s->cond, &s->mutex, &until) == ETIMEDOUT;
    int signaled = s->signaled;
    pthread_mutex_unlock(&s->mutex);
    return signaled;
}

void plat_stop_signal(plat_stop *s)
{
    pthread_mutex_lock(&s->mutex);
    s->signaled = 1;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->mutex);
}

#if defined(__linux__) && defined(SYS_membarrier)
int plat_process_barrier_init(void)
{
    /* The expedited form (IPIs to the CPUs running our threads, microseconds) must be registered first. */
    return syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0) == 0;
}

void plat_process_barrier(void)
{
    syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0);
}
#else
int plat_process_barrier_init(void)
{
    return 0;
}

void plat_process_barrier(void)
{
}
#endif
