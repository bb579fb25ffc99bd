/* posix_thread.c - mutexes, threads, thread ids, the monotonic clock, sleeping and the
 * process-wide barrier, with pthreads and Linux system calls. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <x86intrin.h>
#ifdef __linux__
#include <linux/membarrier.h>
#endif

#include "platform/platform.h"
#include "platform/posix_cpu_clock.h"

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

struct plat_event {
    pthread_mutex_t mutex;
    pthread_cond_t cond; /* on the monotonic clock: a change of the time of day does not stretch a wait */
    int set;
};

plat_event *plat_event_create(void)
{
    plat_event *e = malloc(sizeof(*e));
    pthread_condattr_t attr;
    if (!e)
        return NULL;
    e->set = 0;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    int failed = pthread_cond_init(&e->cond, &attr);
    pthread_condattr_destroy(&attr);
    if (failed || pthread_mutex_init(&e->mutex, NULL) != 0) {
        if (!failed)
            pthread_cond_destroy(&e->cond);
        free(e);
        return NULL;
    }
    return e;
}

void plat_event_destroy(plat_event *e)
{
    if (!e)
        return;
    pthread_cond_destroy(&e->cond);
    pthread_mutex_destroy(&e->mutex);
    free(e);
}

void plat_event_set(plat_event *e)
{
    pthread_mutex_lock(&e->mutex);
    e->set = 1;
    pthread_cond_broadcast(&e->cond);
    pthread_mutex_unlock(&e->mutex);
}

void plat_event_reset(plat_event *e)
{
    pthread_mutex_lock(&e->mutex);
    e->set = 0;
    pthread_mutex_unlock(&e->mutex);
}

int plat_event_wait_ms(plat_event *e, unsigned ms)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += (time_t)(ms / 1000);
    until.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&e->mutex);
    while (!e->set && pthread_cond_timedwait(&e->cond, &e->mutex, &until) != ETIMEDOUT)
        ; /* woken early, or spuriously: wait on until the deadline */
    int set = e->set;
    pthread_mutex_unlock(&e->mutex);
    return set;
}

#define THREAD_NAME_MAX 16 /* the kernel's comm, its NUL included */

struct plat_thread {
    pthread_t thread;
    void (*fn)(void *arg);
    void *arg;
    char name[THREAD_NAME_MAX];
};

static void *thread_main(void *self)
{
    plat_thread *t = self;
    pthread_setname_np(pthread_self(), t->name); /* before fn runs: no tool sees it unnamed at work */
    t->fn(t->arg);
    return NULL;
}

plat_thread *plat_thread_start(const char *name, void (*fn)(void *arg), void *arg)
{
    plat_thread *t = malloc(sizeof(*t));
    if (!t)
        return NULL;
    t->fn = fn;
    t->arg = arg;
    snprintf(t->name, sizeof(t->name), "%s", name);
    if (pthread_create(&t->thread, NULL, thread_main, t) != 0) {
        free(t);
        return NULL;
    }
    return t;
}

/* The helpers started and not joined yet: few at a time, each one slow call.  Those that have
 * finished are joined as the next one starts, so that a process starting sampling again and
 * again keeps its warm-ups off the caller's thread. */
#define HELPERS 8
static pthread_mutex_t helpers_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t helpers[HELPERS];
static int helper_count;

void plat_run_helper(void *(*fn)(void *unused))
{
    pthread_mutex_lock(&helpers_lock);
    for (int i = 0; i < helper_count;)
        if (pthread_tryjoin_np(helpers[i], NULL) == 0)
            helpers[i] = helpers[--helper_count];
        else
            i++;
    int started = helper_count < HELPERS && pthread_create(&helpers[helper_count], NULL, fn, NULL) == 0;
    helper_count += started;
    pthread_mutex_unlock(&helpers_lock);
    if (!started)
        fn(NULL);
}

void plat_helpers_join(void)
{
    pthread_mutex_lock(&helpers_lock);
    for (int i = 0; i < helper_count; i++)
        pthread_join(helpers[i], NULL);
    helper_count = 0;
    pthread_mutex_unlock(&helpers_lock);
}

void plat_thread_join(plat_thread *t)
{
    pthread_join(t->thread, NULL);
    free(t);
}

static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static int exit_key_made;
static void (*_Atomic exit_fn)(void);

static void run_exit_fn(void *marked)
{
    (void)marked;
    void (*fn)(void) = atomic_load(&exit_fn);
    if (fn)
        fn();
}

static void make_exit_key(void)
{
    exit_key_made = pthread_key_create(&exit_key, run_exit_fn) == 0;
}

int plat_thread_at_exit(void (*fn)(void))
{
    void (*none)(void) = NULL;
    pthread_once(&exit_key_once, make_exit_key);
    if (!exit_key_made || (!atomic_compare_exchange_strong(&exit_fn, &none, fn) && none != fn))
        return -1;
    /* Any non-NULL value: the destructor runs only for threads whose value is set. */
    return pthread_getspecific(exit_key) || pthread_setspecific(exit_key, &exit_key) == 0 ? 0 : -1;
}

DWORD plat_os_thread_id(void)
{
    return (DWORD)gettid();
}

uint64_t plat_thread_cpu_ns(DWORD os_thread)
{
    struct timespec used;
    clockid_t clock = os_thread == plat_os_thread_id() ? CLOCK_THREAD_CPUTIME_ID
                                                       : posix_thread_cpu_clock((unsigned)os_thread);
    if (clock_gettime(clock, &used) != 0)
        return UINT64_MAX;
    return (uint64_t)used.tv_sec * 1000000000u + (uint64_t)used.tv_nsec;
}

int plat_thread_cpu_exact(void)
{
    return 1;
}

unsigned plat_processor_count(void)
{
    cpu_set_t allowed;
    int count = sched_getaffinity(0, sizeof(allowed), &allowed) == 0 ? CPU_COUNT(&allowed) : 0;
    long online = count > 0 ? count : sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (unsigned)online : 1;
}

size_t plat_process_threads(DWORD *ids, size_t max)
{
    size_t count = 0;
    DIR *tasks = opendir("/proc/self/task");
    if (!tasks)
        return 0;
    for (struct dirent *task; (task = readdir(tasks)) != NULL;) {
        unsigned long id = strtoul(task->d_name, NULL, 10);
        if (id && count < max)
            ids[count] = (DWORD)id;
        count += id != 0;
    }
    closedir(tasks);
    return count;
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

uint64_t plat_unix_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

void plat_sleep_ms(unsigned ms)
{
    struct timespec left = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&left, &left) != 0 && errno == EINTR)
        ; /* a signal cut it short: sleep the rest */
}

#if defined(__linux__) && defined(SYS_membarrier)
/*
 * The expedited barrier (IPIs to the CPUs running our threads, microseconds) must be registered
 * first, and registering waits for an RCU grace period once the process has threads: 15-20 ms
 * of the JVM's start-up, asleep.  So a helper thread registers while the program runs, and a
 * barrier asked for before it is done takes the global form, which needs no registration and is
 * as strong (every thread of the system passes a barrier), only slower.
 */
enum { BARRIER_UNKNOWN, BARRIER_REGISTERING, BARRIER_EXPEDITED, BARRIER_GLOBAL_ONLY };
static atomic_int barrier_state = BARRIER_UNKNOWN;

static void *register_expedited(void *unused)
{
    (void)unused;
    int registered = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0) == 0;
    atomic_store(&barrier_state, registered ? BARRIER_EXPEDITED : BARRIER_GLOBAL_ONLY);
    return NULL;
}

int plat_process_barrier_init(void)
{
    int state = atomic_load(&barrier_state);
    if (state != BARRIER_UNKNOWN)
        return 1;
    long commands = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0);
    if (commands < 0 || !(commands & MEMBARRIER_CMD_GLOBAL))
        return 0;
    if (!(commands & MEMBARRIER_CMD_PRIVATE_EXPEDITED)) {
        atomic_store(&barrier_state, BARRIER_GLOBAL_ONLY);
        return 1;
    }
    if (atomic_compare_exchange_strong(&barrier_state, &state, BARRIER_REGISTERING))
        plat_run_helper(register_expedited); /* else another caller got there first */
    return 1;
}

void plat_process_barrier(void)
{
    int expedited = atomic_load(&barrier_state) == BARRIER_EXPEDITED;
    syscall(SYS_membarrier, expedited ? MEMBARRIER_CMD_PRIVATE_EXPEDITED : MEMBARRIER_CMD_GLOBAL, 0);
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
