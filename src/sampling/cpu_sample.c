/*
 * cpu_sample.c - IJevmonSampling4's processor-time sampling: StartCpuSampling, StopCpuSampling,
 * NextCpuSample, GetCpuSamplingCounts, and GetThreadCpuTime.
 *
 * Each platform Java thread gets a timer on its own processor-time clock (platform.h), armed for
 * every live thread when sampling starts and for each later one at its ThreadStart, deleted at
 * its ThreadEnd.  Each expiry interrupts the thread where it runs, and the handler walks its
 * stack there with AsyncGetCallTrace into a free slot of a fixed buffer; NextCpuSample, on the
 * monitor's thread, turns one full slot into MethodIDs and frees it.  So a thread is sampled in
 * proportion to the processor time it uses, a waiting thread never, and no sampling thread has
 * to win a processor for the rate to be held.  Virtual threads are sampled on their carriers.
 *
 * Linux checks these timers at the scheduler tick, so at a period shorter than the tick several
 * expiries come as one signal: the kernel counts the merged ones (its overrun), and the sample
 * stands for them all (its periods), so that the profile's weight stays the processor time used.
 * Why a sample may be missing is counted: an expiry that finds every slot full is lost, and a
 * thread that cannot have a timer (the system refused one) is not timed at all.
 *
 * Loaded into a running JVM, the agent knows no OS id of the threads already there: then every
 * thread of the process is timed (as async-profiler times them), the JVM's own (compilers,
 * collectors) included, whose samples have no Java frame and are counted as such.
 *
 * IJevmonNativeSampling (native_walk.c) adds to each sample the native frames the thread ran in,
 * walked in the same handler, and with JEVMON_NATIVE_VM_THREADS times the JVM's own threads as well
 * (collectors, compilers, the VM thread: the process's threads that are not Java threads), looked
 * for again every VM_THREAD_RESCAN_NS while samples are drained, since the JVM starts and ends
 * them as it goes.  JEVMON_NATIVE_KERNEL_FRAMES asks the timers for the kernel's call chain too
 * (platform.h): the handler hands the kernel frames of each expiry to on_tick, kept beside the
 * native ones, and GetKernelFrameCounts says which timed threads have them and why not.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ids/method.h"
#include "ids/thread.h"
#include "platform/platform.h"
#include "sampling/agct.h"
#include "sampling/cpu_sample.h"
#include "sampling/native_walk.h"
#include "vm/once.h"

/* The buffer: enough slots for a quarter second of 8 busy threads at 1 ms between two drains.
 * Producers take the first free slot, so only as many slots are ever touched as were full at
 * once: the buffer costs memory only as far as the monitor falls behind. */
#define SLOTS 512
#define SLOT_DEPTH 2048 /* frames walked; a deeper stack keeps its innermost and is marked truncated */

enum { SLOT_FREE, SLOT_WRITING, SLOT_FULL, SLOT_READING };

typedef struct slot {
    DWORD periods; /* of processor time: 1 and the expiries the kernel merged into this one */
    agct_trace trace;
    agct_frame frames[SLOT_DEPTH];
    jv_native_stack native;
} slot;

typedef struct timed_thread {
    DWORD os_tid;
    plat_cpu_timer *timer;
    uint64_t cpu_at_start; /* the thread's processor time when its timer was armed */
    int vm_thread;         /* one of the JVM's own threads, not a Java thread */
} timed_thread;

#define VM_THREAD_RESCAN_NS 250000000u

static slot slots[SLOTS]; /* zero pages until a sample is written: see SLOTS */
/* Each slot's SLOT_ state, apart from the slots: a drain or a tick looks at every state, and
 * states inside the slots (tens of kilobytes each) put each on a page of its own: 512 page
 * faults at the first drain (half a millisecond of a Hello world), a TLB miss per slot after. */
static atomic_int slot_states[SLOTS];
static atomic_int drained_last = SLOTS - 1; /* the slot next_sample took last */

static atomic_int running;     /* sampling was asked for and not stopped */
static atomic_int unavailable; /* VMInit found no timers or no walk */
static atomic_int walkable;    /* VMInit found both */
static atomic_int every_thread; /* attached: the process's threads are timed, the JVM's included */
static _Atomic uint64_t expiries, overruns, lost, taken;

/* Guarded by lock: the timed threads, and the counts of their time and number. */
static atomic_int lock_once;
static plat_mutex *lock;
static timed_thread *timed;
static size_t timed_count, timed_capacity;
static uint64_t period_ns, ended_cpu_ns, threads_timed, threads_untimed;
static uint64_t vm_threads_seen_ns; /* when the JVM's own threads were last looked for (0: not timed) */
/* The JVM's own threads timed since sampling started (those timed now among them), kept after
 * their timers go: their last samples are drained after that (a thread that ended, or all at
 * StopCpuSampling). */
static DWORD *vm_tids;
static size_t vm_tid_count, vm_tid_capacity;
/* The threads timed with kernel frames and without, and why without (the ring's skips: the platform's). */
static JEVMON_KERNEL_FRAME_COUNTS kernel_counts = {JEVMON_KERNEL_FRAMES_NOT_ASKED, 0, 0, 0, 0};

static void make_lock(void)
{
    lock = plat_mutex_create();
}

static int take_lock(void)
{
    jv_once(&lock_once, make_lock);
    if (!lock)
        return 0;
    plat_mutex_lock(lock);
    return 1;
}

/* ---- On the interrupted thread (async-signal-safe only) ------------------------------------------ */

static void on_tick(void *context, int merged, const uint64_t *kernel, int kernel_count)
{
    if (!atomic_load(&running))
        return; /* a signal pending when the timer was deleted */
    atomic_fetch_add(&expiries, 1 + (uint64_t)merged);
    if (merged > 0)
        atomic_fetch_add(&overruns, (uint64_t)merged);
    for (int i = 0; i < SLOTS; i++) {
        int expected = SLOT_FREE;
        if (atomic_load_explicit(&slot_states[i], memory_order_relaxed) != SLOT_FREE ||
            !atomic_compare_exchange_strong(&slot_states[i], &expected, SLOT_WRITING))
            continue;
        memset(&slots[i].trace, 0, sizeof(slots[i].trace));
        slots[i].periods = 1 + (DWORD)(merged > 0 ? merged : 0);
        jv_agct_walk(&slots[i].trace, slots[i].frames, SLOT_DEPTH, context);
        jv_native_walk(context, &slots[i].native);
        jv_native_kernel(&slots[i].native, kernel, kernel_count);
        atomic_store(&slot_states[i], SLOT_FULL);
        atomic_fetch_add(&taken, 1);
        return;
    }
    atomic_fetch_add(&lost, 1);
}

/* ---- The timed threads ------------------------------------------------------------------------ */

/* A timed thread whose samples carry kernel frames, or do not (state: why not); called with the lock held. */
static void count_kernel_frames(int state)
{
    if (state == JEVMON_KERNEL_FRAMES_NOT_ASKED)
        return; /* none were asked of the timers: the state says why */
    if (state == JEVMON_KERNEL_FRAMES_TAKEN) {
        kernel_counts.threads++;
        return;
    }
    if (!kernel_counts.threads_without++)
        kernel_counts.state = (DWORD)state;
}

/* Remembers one of the JVM's own threads, or forgets it (a Java thread's ThreadStart came after the
 * look that took it for the JVM's); called with the lock held. */
static void remember_vm_thread(DWORD os_tid, int vm_thread)
{
    for (size_t i = 0; i < vm_tid_count; i++)
        if (vm_tids[i] == os_tid) {
            if (!vm_thread)
                vm_tids[i] = vm_tids[--vm_tid_count];
            return;
        }
    if (!vm_thread)
        return;
    if (vm_tid_count == vm_tid_capacity) {
        size_t capacity = vm_tid_capacity ? 2 * vm_tid_capacity : 32;
        DWORD *grown = realloc(vm_tids, capacity * sizeof(*grown));
        if (!grown)
            return; /* its samples say Java thread */
        vm_tids = grown, vm_tid_capacity = capacity;
    }
    vm_tids[vm_tid_count++] = os_tid;
}

/* Called with the lock held; vm_thread: one of the JVM's own (a Java thread's ThreadStart says it is not). */
static void arm(DWORD os_tid, int vm_thread)
{
    for (size_t i = 0; i < timed_count; i++)
        if (timed[i].os_tid == os_tid) {
            if (!(timed[i].vm_thread &= vm_thread))
                remember_vm_thread(os_tid, 0);
            return;
        }
    remember_vm_thread(os_tid, vm_thread); /* or forgets the JVM thread that had its OS id before */
    if (timed_count == timed_capacity) {
        size_t capacity = timed_capacity ? 2 * timed_capacity : 64;
        timed_thread *grown = realloc(timed, capacity * sizeof(*grown));
        if (!grown) {
            threads_untimed++;
            return;
        }
        timed = grown, timed_capacity = capacity;
    }
    /* The processor time counts from when the timer runs: what setting it up took is not asked for. */
    plat_cpu_timer *timer = plat_cpu_timer_start(os_tid, period_ns);
    uint64_t cpu = timer ? plat_thread_cpu_ns(os_tid) : UINT64_MAX;
    if (cpu == UINT64_MAX) {
        plat_cpu_timer_stop(timer);
        threads_untimed++;
        return;
    }
    timed[timed_count++] = (timed_thread){os_tid, timer, cpu, vm_thread};
    threads_timed++;
    count_kernel_frames(plat_cpu_timer_kernel(timer));
}

/* Called with the lock held: the timer goes, the processor time it measured stays counted. */
static void disarm(size_t i)
{
    uint64_t cpu = plat_thread_cpu_ns(timed[i].os_tid);
    plat_cpu_timer_stop(timed[i].timer);
    if (cpu != UINT64_MAX && cpu > timed[i].cpu_at_start)
        ended_cpu_ns += cpu - timed[i].cpu_at_start;
    timed[i] = timed[--timed_count];
}

/* Every thread of the process not timed yet but except (after an attach; or the JVM's own,
 * vm_threads), called with the lock held.  With vm_threads, the JVM's threads that ended lose
 * their timers. */
static void arm_process_threads(int vm_threads, DWORD except)
{
    size_t count = plat_process_threads(NULL, 0), listed;
    DWORD *ids = count ? malloc((count + 16) * sizeof(*ids)) : NULL; /* room for a few more starting */
    if (!ids)
        return;
    listed = plat_process_threads(ids, count + 16);
    if (listed > count + 16)
        listed = count + 16;
    for (size_t i = 0; i < listed; i++)
        if (ids[i] != except)
            arm(ids[i], vm_threads);
    for (size_t i = timed_count; vm_threads && i-- > 0;) {
        size_t k = 0;
        while (k < listed && ids[k] != timed[i].os_tid)
            k++;
        if (k == listed && timed[i].vm_thread)
            disarm(i);
    }
    free(ids);
}

/* The JVM's own threads, on a helper (arm_live_threads): about 50 us each, a dozen at VMInit, which
 * need not wait for them.  Not when sampling stopped meanwhile, nor twice. */
static void *arm_vm_threads(void *unused)
{
    (void)unused;
    if (!take_lock())
        return NULL;
    if (atomic_load(&running) && !vm_threads_seen_ns) {
        arm_process_threads(1, plat_os_thread_id()); /* the helper itself is gone in a moment */
        vm_threads_seen_ns = plat_now_ns();
    }
    plat_mutex_unlock(lock);
    return NULL;
}

/* Every live platform thread (in the live phase), called with the lock held: the JVM's own threads
 * on a helper (arm_vm_threads). */
static void arm_live_threads(JNIEnv *env)
{
    jint count = 0;
    jthread *threads = NULL;
    if (atomic_load(&every_thread)) {
        arm_process_threads(0, 0);
        return;
    }
    if (!env || (*jv_jvmti)->GetAllThreads(jv_jvmti, &count, &threads) != JVMTI_ERROR_NONE)
        return;
    for (jint i = 0; i < count; i++) {
        jv_thread *t = jv_thread_of(env, threads[i]);
        if (t && t->os_tid)
            arm(t->os_tid, 0);
        else
            threads_untimed++;
        (*env)->DeleteLocalRef(env, threads[i]);
    }
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)threads);
    if (jv_native_flags() & JEVMON_NATIVE_VM_THREADS)
        plat_run_helper(arm_vm_threads);
}

void jv_cpu_sample_start(JNIEnv *env, int can_walk, int attached)
{
    atomic_store(&every_thread, attached);
    if (!can_walk || !plat_cpu_timers_init(on_tick)) {
        atomic_store(&unavailable, 1);
        if (atomic_load(&running))
            jv_log("processor-time sampling is not available here (no per-thread processor-time timers, "
                   "SIGPROF taken, or no AsyncGetCallTrace); the monitor that asked for it is told so");
        return;
    }
    atomic_store(&walkable, 1);
    if (atomic_load(&running) && take_lock()) {
        arm_live_threads(env);
        plat_mutex_unlock(lock);
    }
}

void jv_cpu_sample_thread_started(const jv_thread *t)
{
    if (!atomic_load(&running) || !atomic_load(&walkable) || t->is_virtual || !take_lock())
        return;
    if (atomic_load(&running)) {
        if (t->os_tid)
            arm(t->os_tid, 0);
        else
            threads_untimed++;
    }
    plat_mutex_unlock(lock);
}

void jv_cpu_sample_thread_ended(const jv_thread *t)
{
    if (!atomic_load(&running) || t->is_virtual || !t->os_tid || !take_lock())
        return;
    for (size_t i = 0; i < timed_count; i++)
        if (timed[i].os_tid == t->os_tid) {
            disarm(i);
            break;
        }
    plat_mutex_unlock(lock);
}

/* ---- IJevmonSampling4 ------------------------------------------------------------------------- */

HRESULT STDMETHODCALLTYPE sampling_StartCpuSampling(IJevmonSampling4 *iface, ULONGLONG period)
{
    (void)iface;
    if (!period)
        return E_INVALIDARG;
    /* Before VMInit nothing is known yet: the request is kept, and NextCpuSample says E_NOTIMPL
     * from VMInit on if the timers or the walk turn out not to be there. */
    if (atomic_load(&unavailable))
        return E_NOTIMPL;
    /* Before the lock: the events' replay may call monitors. */
    jv_agct_want_line_detail();
    if (!take_lock())
        return E_UNEXPECTED;
    HRESULT hr = S_OK;
    if (atomic_load(&running)) {
        hr = E_UNEXPECTED; /* one sampling at a time: its period is the only one */
    } else {
        period_ns = period;
        ended_cpu_ns = threads_timed = threads_untimed = vm_threads_seen_ns = 0;
        vm_tid_count = 0;
        memset(&kernel_counts, 0, sizeof(kernel_counts));
        DWORD native = jv_native_flags();
        int kernel = (native & JEVMON_NATIVE_FRAMES) && (native & JEVMON_NATIVE_KERNEL_FRAMES);
        kernel_counts.state = (DWORD)plat_cpu_timers_kernel(kernel);
        plat_cpu_timers_prepare();
        atomic_store(&expiries, 0), atomic_store(&overruns, 0), atomic_store(&lost, 0), atomic_store(&taken, 0);
        atomic_store(&running, 1);
        if (atomic_load(&walkable) && jv_vm_live())
            arm_live_threads(jv_jni());
    }
    plat_mutex_unlock(lock);
    return hr;
}

HRESULT STDMETHODCALLTYPE sampling_StopCpuSampling(IJevmonSampling4 *iface)
{
    (void)iface;
    if (!take_lock())
        return E_UNEXPECTED;
    atomic_store(&running, 0);
    while (timed_count)
        disarm(timed_count - 1);
    plat_mutex_unlock(lock);
    return S_OK;
}

/* AsyncGetCallTrace's answer as a sample's kind. */
static DWORD kind_of(jint num_frames)
{
    if (num_frames > 0)
        return JEVMON_CPU_SAMPLE_JAVA;
    if (num_frames == AGCT_GC_ACTIVE)
        return JEVMON_CPU_SAMPLE_GC;
    return num_frames > AGCT_UNKNOWN_JAVA || num_frames == AGCT_THREAD_EXIT ? JEVMON_CPU_SAMPLE_NO_JAVA_FRAMES
                                                                           : JEVMON_CPU_SAMPLE_UNWALKABLE;
}

/* Is the thread one of the JVM's own?  As timed now, else as it was when its timer went (an OS
 * id reused by a Java thread is forgotten when that thread is timed: arm). */
static int is_vm_thread(DWORD os_tid)
{
    int vm_thread = 0;
    if (!take_lock())
        return 0;
    for (size_t i = 0; i < vm_tid_count && !vm_thread; i++)
        vm_thread = vm_tids[i] == os_tid;
    plat_mutex_unlock(lock);
    return vm_thread;
}

/* The JVM's own threads started since they were last looked for get timers, those ended lose theirs. */
static void time_new_vm_threads(void)
{
    if (!atomic_load(&running) || !take_lock())
        return;
    uint64_t now = plat_now_ns();
    if (atomic_load(&running) && vm_threads_seen_ns && now - vm_threads_seen_ns >= VM_THREAD_RESCAN_NS) {
        arm_process_threads(1, 0);
        vm_threads_seen_ns = now;
    }
    plat_mutex_unlock(lock);
}

/* NextCpuSample, with the native frames when pnative is not NULL. */
static HRESULT next_sample(MethodID *pframes, DWORD *poffsets, DWORD max_frames, DWORD *pframe_count, BOOL *ptruncated,
                           DWORD *pkind, DWORD *pperiods, JEVMON_NATIVE_STACK *pnative)
{
    if (!pframe_count || !pkind || !pperiods || (max_frames && !pframes))
        return E_POINTER;
    *pframe_count = 0;
    if (ptruncated)
        *ptruncated = FALSE;
    if (atomic_load(&unavailable))
        return E_NOTIMPL;
    JNIEnv *env = jv_jni();
    /* once round the buffer from the slot after the last one taken: a drain of n samples looks
     * at about n + SLOTS states, where from the first slot each time it looked at n * n / 2 */
    int after = atomic_load_explicit(&drained_last, memory_order_relaxed);
    for (int looked = 0; looked < SLOTS; looked++) {
        int i = (after + 1 + looked) % SLOTS, expected = SLOT_FULL;
        if (atomic_load_explicit(&slot_states[i], memory_order_relaxed) != SLOT_FULL ||
            !atomic_compare_exchange_strong(&slot_states[i], &expected, SLOT_READING))
            continue; /* empty, or another caller's */
        atomic_store_explicit(&drained_last, i, memory_order_relaxed);
        slot *s = &slots[i];
        jint count = s->trace.num_frames;
        *pkind = kind_of(count);
        *pperiods = s->periods;
        if (count > 0 && env) {
            DWORD kept = (DWORD)count < max_frames ? (DWORD)count : max_frames;
            for (DWORD k = 0; k < kept; k++) { /* the innermost kept, outermost first */
                const agct_frame *f = &s->frames[kept - 1 - k];
                pframes[k] = jv_method_id(env, f->method_id);
                if (poffsets)
                    poffsets[k] = f->lineno >= 0 ? (DWORD)f->lineno : JEVMON_NO_PC_OFFSET;
            }
            *pframe_count = kept;
            if (ptruncated)
                *ptruncated = kept < (DWORD)count || count >= SLOT_DEPTH;
        }
        if (pnative)
            jv_native_stack_out(&s->native, is_vm_thread(s->native.os_tid), pnative);
        atomic_store(&slot_states[i], SLOT_FREE);
        return S_OK;
    }
    return S_FALSE;
}

HRESULT STDMETHODCALLTYPE sampling_NextCpuSample(IJevmonSampling4 *iface, MethodID *pframes, DWORD *poffsets,
                                                 DWORD max_frames, DWORD *pframe_count, BOOL *ptruncated, DWORD *pkind,
                                                 DWORD *pperiods)
{
    (void)iface;
    return next_sample(pframes, poffsets, max_frames, pframe_count, ptruncated, pkind, pperiods, NULL);
}

HRESULT STDMETHODCALLTYPE native_NextCpuSampleNative(IJevmonNativeSampling *iface, MethodID *pframes, DWORD *poffsets,
                                                     DWORD max_frames, DWORD *pframe_count, BOOL *ptruncated,
                                                     DWORD *pkind, DWORD *pperiods, JEVMON_NATIVE_STACK *pnative)
{
    (void)iface;
    if (!pnative)
        return E_POINTER;
    HRESULT hr = next_sample(pframes, poffsets, max_frames, pframe_count, ptruncated, pkind, pperiods, pnative);
    if (hr == S_FALSE)
        time_new_vm_threads();
    return hr;
}

HRESULT STDMETHODCALLTYPE sampling_GetCpuSamplingCounts(IJevmonSampling4 *iface, JEVMON_CPU_SAMPLING_COUNTS *pcounts)
{
    (void)iface;
    if (!pcounts)
        return E_POINTER;
    memset(pcounts, 0, sizeof(*pcounts));
    if (atomic_load(&unavailable))
        return E_NOTIMPL;
    if (!take_lock())
        return E_UNEXPECTED;
    pcounts->period_ns = period_ns;
    pcounts->cpu_ns = ended_cpu_ns;
    for (size_t i = 0; i < timed_count; i++) {
        uint64_t cpu = plat_thread_cpu_ns(timed[i].os_tid);
        if (cpu != UINT64_MAX && cpu > timed[i].cpu_at_start)
            pcounts->cpu_ns += cpu - timed[i].cpu_at_start;
    }
    pcounts->threads = threads_timed;
    pcounts->untimed_threads = threads_untimed;
    plat_mutex_unlock(lock);
    pcounts->expiries = atomic_load(&expiries);
    pcounts->overruns = atomic_load(&overruns);
    pcounts->lost = atomic_load(&lost);
    pcounts->taken = atomic_load(&taken);
    return S_OK;
}

HRESULT STDMETHODCALLTYPE sampling_GetThreadCpuTime(IJevmonSampling4 *iface, ThreadID thread_id, ULONGLONG *pcpu_ns)
{
    (void)iface;
    if (!pcpu_ns)
        return E_POINTER;
    const jv_thread *t = jv_thread_get(thread_id);
    uint64_t cpu = t && !t->is_virtual && t->os_tid ? plat_thread_cpu_ns(t->os_tid) : UINT64_MAX;
    if (cpu == UINT64_MAX)
        return E_FAIL; /* gone, a virtual thread (its time is its carriers'), or its OS thread not known */
    *pcpu_ns = cpu;
    return S_OK;
}

HRESULT STDMETHODCALLTYPE native_GetKernelFrameCounts(IJevmonNativeSampling *iface, JEVMON_KERNEL_FRAME_COUNTS *pcounts)
{
    (void)iface;
    if (!pcounts)
        return E_POINTER;
    if (!take_lock())
        return E_UNEXPECTED;
    *pcounts = kernel_counts;
    if (atomic_load(&unavailable) && pcounts->state != JEVMON_KERNEL_FRAMES_NOT_ASKED)
        pcounts->state = JEVMON_KERNEL_FRAMES_NO_TIMERS; /* no timers at all: the sampler thread samples */
    plat_mutex_unlock(lock);
    pcounts->skipped = plat_kernel_records_skipped();
    return S_OK;
}
