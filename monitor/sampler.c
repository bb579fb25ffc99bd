/* sampler.c - cpu and wall modes: draining the processor-time timers' samples, or the sampling
 * timer thread (see sampler.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/jitter.h"
#include "sampler.h"

#define NS_PER_MS 1000000ull

/* Set on the timer thread.  Its first IDInfo call may attach it to the JVM, which announces it
 * with THREAD_CREATE on the same thread while the lock is held: it must neither take the lock
 * again nor sample itself. */
static _Thread_local int on_sampler_thread;

/* The frames' names, and without their brackets pprof's labels. */
static const char *const state_names[JP_THREAD_STATES] = {"[unknown state]", "[running]", "[native]",
                                                          "[blocked]",       "[waiting]", "[sleeping]"};
static const char *const state_labels[JP_THREAD_STATES] = {"unknown", "running", "native",
                                                           "blocked", "waiting", "sleeping"};

static const char *state_text(MethodID method, const char *const *texts)
{
    for (DWORD state = 0; state < JP_THREAD_STATES; state++)
        if (method == JP_STATE_FRAME(state))
            return texts[state];
    return NULL;
}

/* By JEVMON_CPU_SAMPLE_KIND; JAVA's is never used. */
static const char *const reason_names[] = {"[Java]", "[no Java frame]", "[collection under way]", "[not walkable]"};

const char *jp_sampler_state_name(MethodID method)
{
    for (DWORD kind = JEVMON_CPU_SAMPLE_NO_JAVA_FRAMES; kind <= JEVMON_CPU_SAMPLE_UNWALKABLE; kind++)
        if (method == JP_REASON_FRAME(kind))
            return reason_names[kind];
    return state_text(method, state_names);
}

const char *jp_sampler_state_label(MethodID method)
{
    return state_text(method, state_labels);
}

int jp_sampler_init(jp_sampler *s, IJavaEventMonitorIDInfo2 *info, unsigned interval_ms, int wall)
{
    memset(s, 0, sizeof(*s));
    s->info = info;
    s->interval_ms = interval_ms ? interval_ms : 1;
    s->wall = wall;
    s->lock = plat_mutex_create();
    s->wake = plat_event_create();
    if (!s->lock || !s->wake || jp_stack_trace_init(&s->stack) || jp_tree_init(&s->profile) ||
        jp_native_init(&s->native, info) || jp_event_log_init(&s->events, info)) {
        jp_sampler_free(s);
        return -1;
    }
    if (FAILED(IJavaEventMonitorIDInfo2_QueryInterface(info, &IID_IJevmonSampling4, (void **)&s->timers)))
        s->timers = NULL; /* an agent before processor-time sampling: the tick sampler, idle threads left out */
    if (FAILED(IJavaEventMonitorIDInfo2_QueryInterface(info, &IID_IJevmonSampling3, (void **)&s->framer)))
        s->framer = NULL; /* an agent before offsets: no frame has one */
    if (!s->framer && FAILED(IJavaEventMonitorIDInfo2_QueryInterface(info, &IID_IJevmonSampling2, (void **)&s->walker)))
        s->walker = NULL; /* another VM: GetStackTrace for every stack */
    return 0;
}

/* wall mode: a thread that a look found standing still, and the processor time it had used
 * before that look (see sample_again). */
typedef struct jp_still {
    ULONGLONG cpu_ns;
    uint32_t node;   /* its sample's node in profile; JP_NO_NODE: it had no Java frame (idle) */
    DWORD state, os_thread;
    int unconfirmed; /* found without Java frames by interrupting it, which makes it run: look again */
} jp_still;

static void forget_still_thread(jp_sampler *s, ThreadID thread)
{
    free((void *)jp_idmap_remove(&s->still, thread));
}

/* Before the profile's nodes change meaning (a new profile), or at the end. */
static void forget_still(jp_sampler *s)
{
    for (size_t i = 0; i < s->still.capacity; i++)
        if (s->still.entries[i].key)
            free((void *)s->still.entries[i].value);
    jp_idmap_free(&s->still);
}

void jp_sampler_free(jp_sampler *s)
{
    jp_tree_free(&s->profile);
    jp_native_free(&s->native);
    jp_event_log_free(&s->events);
    jp_idmap_free(&s->live);
    jp_idmap_free(&s->ran_at);
    forget_still(s);
    free(s->snapshot);
    jp_stack_trace_free(&s->stack);
    if (s->timers)
        IJevmonSampling4_Release(s->timers);
    if (s->framer)
        IJevmonSampling3_Release(s->framer);
    if (s->walker)
        IJevmonSampling2_Release(s->walker);
    if (s->lock)
        plat_mutex_destroy(s->lock);
    plat_event_destroy(s->wake);
    plat_event_destroy(s->armed);
    memset(s, 0, sizeof(*s));
}

void jp_sampler_thread_created(jp_sampler *s, ThreadID thread)
{
    if (on_sampler_thread)
        return;
    plat_mutex_lock(s->lock);
    jp_idmap_entry *e = jp_idmap_insert(&s->live, thread);
    if (e && !e->value)
        e->value = 1; /* not read yet (cpu mode's tick sampler: see ran_since_last_tick) */
    plat_mutex_unlock(s->lock);
}

void jp_sampler_thread_destroyed(jp_sampler *s, ThreadID thread)
{
    if (on_sampler_thread)
        return;
    plat_mutex_lock(s->lock); /* waits for a sample of this thread in progress */
    jp_idmap_remove(&s->live, thread);
    jp_idmap_remove(&s->ran_at, thread);
    forget_still_thread(s, thread);
    plat_mutex_unlock(s->lock);
}

/* Is the sampled method gone from the stack taken after it?  Then the thread moved on between the
 * two looks (a virtual thread sampled running that parked before its stack was taken, above all),
 * and the stack is not where it was running. */
static int moved_on(const jp_stack_trace *stack, MethodID sampled)
{
    for (size_t i = 0; i < stack->count; i++)
        if (stack->frames[i] == sampled)
            return 0;
    return !stack->truncated;
}

/* Sets the offsets of count frames (offsets[i] for frames[i]) to none but the innermost's, which
 * is the sample's where it names that frame's method. */
static void innermost_offset(DWORD *offsets, const JVM_METHOD_SAMPLE *where, const MethodID *frames, size_t count)
{
    for (size_t i = 0; i < count; i++)
        offsets[i] = JP_NO_OFFSET;
    if (count && (where->flags & JVM_SAMPLE_PC) && (where->flags & JVM_SAMPLE_METHOD_ID) &&
        frames[count - 1] == where->method_id)
        offsets[count - 1] = where->pc_offset;
}

/* SampleThreadFrames (or SampleThreadStack): S_OK with the stack walked at the sample (in
 * s->walked from *first, *count frames, their offsets in s->offsets as many from the same index),
 * S_FALSE with the sample alone, or its failure. */
static HRESULT sample_with_stack(jp_sampler *s, ThreadID thread, JVM_METHOD_SAMPLE *where, const MethodID **first,
                                 const DWORD **offsets, size_t *count, DWORD *state)
{
    DWORD frames = 0;
    BOOL truncated = FALSE;
    JEVMON_NATIVE_STACK *native = jp_native_buffer(&s->native);
    HRESULT hr = native     ? IJevmonNativeSampling_SampleThreadNative(s->native.iface, thread, where, s->walked + 1,
                                                                       s->offsets + 1, JP_WALKED_FRAMES, &frames,
                                                                       &truncated, state, native)
                 : s->timers  ? IJevmonSampling4_SampleThreadState(s->timers, thread, where, s->walked + 1, s->offsets + 1,
                                                                 JP_WALKED_FRAMES, &frames, &truncated, state)
                 : s->framer ? IJevmonSampling3_SampleThreadFrames(s->framer, thread, where, s->walked + 1,
                                                                   s->offsets + 1, JP_WALKED_FRAMES, &frames, &truncated)
                             : IJevmonSampling2_SampleThreadStack(s->walker, thread, where, s->walked + 1,
                                                                  JP_WALKED_FRAMES, &frames, &truncated);
    if (hr != S_OK)
        return hr;
    if (!s->framer)
        innermost_offset(s->offsets + 1, where, s->walked + 1, frames);
    s->walked[0] = JP_UNKNOWN_CALLERS; /* a cut stack keeps its innermost frames */
    s->offsets[0] = JP_NO_OFFSET;
    *first = truncated ? s->walked : s->walked + 1;
    *offsets = truncated ? s->offsets : s->offsets + 1;
    *count = frames + (truncated ? 1 : 0);
    s->counts.truncated += truncated != FALSE;
    return S_OK;
}

/*
 * wall mode: a thread whose processor time has not moved since just before a look that found it
 * standing still (blocked, waiting or sleeping, or without Java frames) has not run since: it is
 * where that look found it, in the same state, and its sample counts again with no look (each look
 * at a standing thread is a JVMTI handshake, a running one's a signal and a wait).  A look that
 * interrupted the thread made it run; it is confirmed by JVMTI's look alone, between two readings
 * of its processor time.  Called where the clock moves whenever a thread runs
 * (plat_thread_cpu_exact), with cpu_ns read just now; 1 when the sample is counted.
 */
static int sample_again(jp_sampler *s, ThreadID thread, ULONGLONG cpu_ns)
{
    jp_idmap_entry *e = jp_idmap_find(&s->still, thread);
    jp_still *last = e ? (jp_still *)e->value : NULL;
    if (!last)
        return 0;
    if (last->unconfirmed) {
        ULONGLONG after = 0;
        if (FAILED(jp_stack_trace_take(&s->stack, s->info, thread)) || s->stack.count ||
            FAILED(IJevmonSampling4_GetThreadCpuTime(s->timers, thread, &after)) || after != cpu_ns)
            return 0; /* Java frames, or it ran: a full look, which notes the thread again */
        last->cpu_ns = cpu_ns;
        last->unconfirmed = 0;
        s->counts.idle++;
        return 1;
    }
    if (last->cpu_ns != cpu_ns)
        return 0;
    if (last->node == JP_NO_NODE) {
        s->counts.idle++;
    } else {
        jp_tree_add_again(&s->profile, last->node, 1);
        jp_event_log_add(&s->events, last->os_thread, last->node, 1, 0);
        jp_native_count(&s->native, last->os_thread, 1);
        s->counts.states[last->state]++;
        s->counts.samples++;
    }
    s->counts.still++;
    return 1;
}

/* After a look at a thread, with the processor time it had used before: remembers a thread found
 * standing still (standing: not interrupted; node: its sample's, JP_NO_NODE without Java frames),
 * and forgets any other. */
static void note_still(jp_sampler *s, ThreadID thread, ULONGLONG cpu_ns, int standing, int no_frames, uint32_t node,
                       DWORD state, DWORD os_thread)
{
    if (!no_frames && !(standing && node != JP_NO_NODE)) {
        forget_still_thread(s, thread);
        return;
    }
    jp_idmap_entry *e = jp_idmap_insert(&s->still, thread);
    jp_still *last = e ? (jp_still *)e->value : NULL;
    if (e && !last)
        e->value = (uintptr_t)(last = malloc(sizeof(*last))); /* NULL: looked at again next time */
    if (last)
        *last = (jp_still){cpu_ns, no_frames ? JP_NO_NODE : node, state, os_thread, !standing};
}

/* Adds a stack of thread's to the profile, in wall mode with the state's frame after its innermost
 * frame (frames and offsets have room for it), and logs it; its node, or JP_NO_NODE out of memory.
 * *os_thread: the thread's OS thread (0: none, or not known). */
static uint32_t add_stack(jp_sampler *s, ThreadID thread, MethodID *frames, DWORD *offsets, size_t count,
                          DWORD state, DWORD *os_thread)
{
    if (s->wall) {
        frames[count] = JP_STATE_FRAME(state);
        offsets[count++] = JP_NO_OFFSET;
        s->counts.states[state]++;
    }
    uint32_t node = jp_tree_add_path(&s->profile, frames, offsets, count, 1);
    if (node == JP_NO_NODE)
        return JP_NO_NODE;
    if (FAILED(IJavaEventMonitorIDInfo2_ThreadInformation(s->info, thread, os_thread)))
        *os_thread = 0; /* ended meanwhile, or a virtual thread: no OS thread of its own */
    jp_event_log_add(&s->events, *os_thread, node, 1, 0);
    return node;
}

/* cpu mode's tick sampler: did the thread use processor time lately?  Yes when that cannot be
 * told, and while its processor time has not stood still for JP_CPU_CLOCK_GRAIN_MS: Windows counts
 * it at the clock tick, so a busy thread's time may not move between two of our ticks.  Its last
 * reading (in microseconds, cut to a uintptr_t, never 1: the value of a thread not read yet) is
 * kept in the live map, the tick at which it last moved in ran_at. */
static int ran_since_last_tick(jp_sampler *s, ThreadID thread)
{
    ULONGLONG cpu = 0;
    jp_idmap_entry *e = jp_idmap_find(&s->live, thread);
    if (!s->timers || !e || FAILED(IJevmonSampling4_GetThreadCpuTime(s->timers, thread, &cpu)))
        return 1;
    uintptr_t seen = (uintptr_t)(cpu / 1000) | 2;
    jp_idmap_entry *ran = jp_idmap_insert(&s->ran_at, thread);
    if (e->value != seen) {
        e->value = seen;
        if (ran)
            ran->value = s->tick;
        return 1;
    }
    return !ran || (uint64_t)(s->tick - ran->value) * s->interval_ms < JP_CPU_CLOCK_GRAIN_MS;
}

/* Samples one live thread; called with the lock held. */
static void sample_thread(jp_sampler *s, ThreadID thread)
{
    JVM_METHOD_SAMPLE where;
    const MethodID *walked = NULL;
    const DWORD *walked_offsets = NULL;
    size_t walked_count = 0;
    DWORD state = 0;
    s->counts.asked++;
    if (!s->wall && !ran_since_last_tick(s, thread)) {
        s->counts.not_running++;
        return;
    }
    ULONGLONG cpu = 0;
    int clocked = s->wall && s->timers && plat_thread_cpu_exact() &&
                  SUCCEEDED(IJevmonSampling4_GetThreadCpuTime(s->timers, thread, &cpu));
    if (clocked && sample_again(s, thread, cpu))
        return;
    memset(&where, 0, sizeof(where));
    where.flags = JVM_SAMPLE_METHOD_ID | JVM_SAMPLE_LOCATION | JVM_SAMPLE_PC;
    HRESULT located = s->framer || s->walker
                          ? sample_with_stack(s, thread, &where, &walked, &walked_offsets, &walked_count, &state)
                          : IJavaEventMonitorIDInfo2_SampleThreadLocation(s->info, thread, &where);
    if (FAILED(located)) {
        s->counts.location_failures++;
        where.flags = 0;
    } else if (where.accuracy == JVM_SAMPLE_NONE) {
        where.flags = 0;
    }
    int blocking = (where.flags & JVM_SAMPLE_LOCATION) && where.location_type == JVM_LOCATION_BLOCKING;
    if (!state && SUCCEEDED(located)) /* no IJevmonSampling4: what the location tells */
        state = blocking ? JEVMON_THREAD_WAITING : JEVMON_THREAD_RUNNING;
    state = state < JP_THREAD_STATES ? state : 0;
    DWORD os_thread = 0;
    if (blocking && !s->wall) {
        s->counts.idle++;
        return;
    }
    if (located == S_OK && walked) {
        if (walked_count && jp_native_buffer(&s->native)) { /* the native frames after the Java ones */
            walked_count = jp_native_compose(&s->native, walked, walked_offsets, walked_count, 1);
            walked = s->native.frames, walked_offsets = s->native.offsets;
        }
        uint32_t node = JP_NO_NODE;
        if (!walked_count) {
            s->counts.idle++; /* no Java frames */
        } else if ((node = add_stack(s, thread, (MethodID *)walked, (DWORD *)walked_offsets, walked_count, state,
                                     &os_thread)) == JP_NO_NODE) {
            s->counts.failed++;
        } else {
            s->counts.samples++;
            s->counts.walked++;
        }
        if (clocked)
            note_still(s, thread, cpu, blocking, !walked_count, node, state, os_thread);
        return;
    }
    forget_still_thread(s, thread); /* no stack from this look to count again */
    HRESULT traced = jp_stack_trace_take(&s->stack, s->info, thread);
    int have_stack = SUCCEEDED(traced) && s->stack.count > 0;
    int have_method = (where.flags & JVM_SAMPLE_METHOD_ID) && where.method_id;
    if (!have_stack && !have_method) {
        /* A live thread with no Java frames is starting, ending or inside the VM. */
        if (SUCCEEDED(traced))
            s->counts.idle++;
        else
            s->counts.failed++;
        return;
    }
    if (have_stack && have_method && moved_on(&s->stack, where.method_id)) {
        s->counts.idle++;
        return;
    }
    MethodID method_only[] = {JP_UNKNOWN_CALLERS, where.method_id, 0};
    if (have_stack && s->wall) { /* room for the state's frame, which add_stack puts there */
        if (jp_stack_trace_push(&s->stack, 0))
            s->stack.count--;
        else
            have_stack = 0; /* none left: the sampled method alone */
    }
    MethodID *frames = have_stack ? s->stack.frames : method_only;
    size_t count = have_stack ? s->stack.count : 2;
    innermost_offset(s->offsets, &where, frames, count);
    if (add_stack(s, thread, frames, s->offsets, count, state, &os_thread) == JP_NO_NODE) {
        s->counts.failed++;
        return;
    }
    jp_native_count(&s->native, os_thread, 1); /* a stack not composed with native frames */
    s->counts.samples++;
    s->counts.safepoint += have_stack;
    s->counts.truncated += have_stack && s->stack.truncated;
}

/* The threads live now, copied so that the lock is not held across the whole tick. */
static size_t take_snapshot(jp_sampler *s)
{
    size_t n = 0;
    plat_mutex_lock(s->lock);
    s->counts.ticks++;
    s->tick++;
    if (s->live.count > s->snapshot_capacity) {
        ThreadID *grown = realloc(s->snapshot, s->live.capacity * sizeof(*grown));
        if (grown) {
            s->snapshot = grown;
            s->snapshot_capacity = s->live.capacity;
        }
    }
    for (size_t i = 0; i < s->live.capacity && n < s->snapshot_capacity; i++)
        if (s->live.entries[i].key)
            s->snapshot[n++] = s->live.entries[i].key;
    plat_mutex_unlock(s->lock);
    return n;
}

/* One tick: samples every live thread once. */
static void sample_all(jp_sampler *s)
{
    size_t n = take_snapshot(s);
    for (size_t i = 0; i < n; i++) {
        plat_mutex_lock(s->lock);
        if (jp_idmap_find(&s->live, s->snapshot[i]))
            sample_thread(s, s->snapshot[i]);
        plat_mutex_unlock(s->lock);
    }
}

/* ---- cpu mode with the processor-time timers ------------------------------------------------ */

#define DRAINED_AT_MOST 4096 /* samples per drain, so that a stop is not held off by busy threads */
#define TICKS_PER_COUNTS 64  /* the bridge's counts are read every this many drains (and at the end) */
#define BRIDGE_SLOTS 512     /* the samples the bridge's buffer holds (docs/cpu-sampling.md) */
#define DRAIN_MS 50          /* the longest time between two drains */

/* How often cpu mode drains the bridge's buffer: each wake-up of this thread costs tens of
 * microseconds on a virtual machine (a thousand in a 10 s run drained every 10 ms), so every
 * DRAIN_MS, and sooner where the processors, all busy, could fill a quarter of the buffer first;
 * never more often than once per interval. */
static uint64_t drain_period_ns(unsigned interval_ms)
{
    uint64_t interval_ns = interval_ms * NS_PER_MS;
    uint64_t quarter_full = interval_ns * (BRIDGE_SLOTS / 4) / plat_processor_count();
    uint64_t period = quarter_full < DRAIN_MS * NS_PER_MS ? quarter_full : DRAIN_MS * NS_PER_MS;
    return period > interval_ns ? period : interval_ns;
}

/* The bridge's counts since counts was last emptied; called with the lock held. */
static void refresh_cpu_counts(jp_sampler *s)
{
    JEVMON_CPU_SAMPLING_COUNTS now, *c = &s->counts.cpu;
    const JEVMON_CPU_SAMPLING_COUNTS *base = &s->cpu_base;
    if (!s->timed || FAILED(IJevmonSampling4_GetCpuSamplingCounts(s->timers, &now)))
        return;
    s->cpu_last = now;
    c->period_ns = now.period_ns;
    c->cpu_ns = now.cpu_ns - base->cpu_ns;
    c->expiries = now.expiries - base->expiries;
    c->overruns = now.overruns - base->overruns;
    c->lost = now.lost - base->lost;
    c->taken = now.taken - base->taken;
    c->threads = now.threads;
    c->untimed_threads = now.untimed_threads;
}

/* One sample out of the bridge's buffer into the profile: 0 when the buffer is empty, or when the
 * timers turned out not to be there (then the tick sampler takes over). */
static int drain_one(jp_sampler *s)
{
    DWORD frames = 0, kind = 0, periods = 1;
    BOOL truncated = FALSE;
    JEVMON_NATIVE_STACK *native = jp_native_buffer(&s->native);
    /* the native call where the VM has it, for the sample's thread even without native frames */
    JEVMON_NATIVE_STACK *thread = s->native.iface ? &s->native.stack : NULL;
    HRESULT hr = thread ? IJevmonNativeSampling_NextCpuSampleNative(s->native.iface, s->walked + 1, s->offsets + 1,
                                                                    JP_WALKED_FRAMES, &frames, &truncated, &kind,
                                                                    &periods, thread)
                        : IJevmonSampling4_NextCpuSample(s->timers, s->walked + 1, s->offsets + 1, JP_WALKED_FRAMES,
                                                         &frames, &truncated, &kind, &periods);
    if (hr == E_NOTIMPL) {
        plat_mutex_lock(s->lock);
        s->timed = s->counts.timed = 0;
        plat_mutex_unlock(s->lock);
    }
    if (hr != S_OK)
        return 0;
    if (kind != JEVMON_CPU_SAMPLE_JAVA)
        frames = 0;
    plat_mutex_lock(s->lock);
    s->walked[0] = JP_UNKNOWN_CALLERS; /* a cut stack keeps its innermost frames */
    s->offsets[0] = JP_NO_OFFSET;
    size_t first = truncated ? 0 : 1, count = frames ? frames + (truncated ? 1 : 0) : 0;
    const MethodID *stack = s->walked + first;
    const DWORD *offsets = s->offsets + first;
    if (native && (count = jp_native_compose(&s->native, stack, offsets, count, periods)) > 0)
        stack = s->native.frames, offsets = s->native.offsets; /* with the native frames, or a thread's alone */
    int walked = count > 0;
    if (!walked) { /* the reason's frame stands for the stack */
        if (kind == JEVMON_CPU_SAMPLE_JAVA || kind > JEVMON_CPU_SAMPLE_UNWALKABLE)
            kind = JEVMON_CPU_SAMPLE_NO_JAVA_FRAMES; /* a Java sample of no frames */
        s->walked[0] = JP_REASON_FRAME(kind);
        s->offsets[0] = JP_NO_OFFSET;
        stack = s->walked, offsets = s->offsets, count = 1;
    }
    uint32_t node = jp_tree_add_path(&s->profile, stack, offsets, count, periods);
    if (node == JP_NO_NODE) {
        s->counts.failed += periods;
    } else {
        jp_event_log_add(&s->events, thread ? thread->os_thread : 0, node, periods, 0);
        s->counts.samples++;
        s->counts.periods += periods;
        s->counts.walked += walked;
        s->counts.truncated += truncated != FALSE;
        if (!walked)
            *(kind == JEVMON_CPU_SAMPLE_GC           ? &s->counts.gc
              : kind == JEVMON_CPU_SAMPLE_UNWALKABLE ? &s->counts.unwalkable
                                                     : &s->counts.no_java) += periods;
    }
    plat_mutex_unlock(s->lock);
    return 1;
}

static void drain(jp_sampler *s)
{
    for (int i = 0; i < DRAINED_AT_MOST && drain_one(s); i++)
        ;
}

/* cpu mode: starts the timers where the VM has them; 1 when they run. */
static int start_timers(jp_sampler *s)
{
    if (s->wall || !s->timers ||
        FAILED(IJevmonSampling4_StartCpuSampling(s->timers, (ULONGLONG)s->interval_ms * NS_PER_MS)))
        return 0;
    plat_mutex_lock(s->lock);
    memset(&s->cpu_base, 0, sizeof(s->cpu_base)); /* the bridge counts from its start */
    s->timed = s->counts.timed = 1;
    plat_mutex_unlock(s->lock);
    return 1;
}

static void stop_timers(jp_sampler *s)
{
    IJevmonSampling4_StopCpuSampling(s->timers);
    drain(s); /* what the last expiries left */
    plat_mutex_lock(s->lock);
    refresh_cpu_counts(s);
    plat_mutex_unlock(s->lock);
}

/* Sleeps until the monotonic clock reaches deadline_ns, or the sampler is told to stop (at once:
 * the JVM's exit waits for this thread). */
static void sleep_until(jp_sampler *s, uint64_t deadline_ns)
{
    for (uint64_t now = plat_now_ns(); now < deadline_ns && !atomic_load(&s->stop); now = plat_now_ns())
        plat_event_wait_ms(s->wake, (unsigned)((deadline_ns - now + NS_PER_MS - 1) / NS_PER_MS));
}

static void sampler_main(void *arg)
{
    jp_sampler *s = arg;
    uint64_t interval_ns = s->interval_ms * NS_PER_MS, cell = plat_now_ns(); /* where the next period starts */
    uint64_t drain_ns = drain_period_ns(s->interval_ms);
    on_sampler_thread = 1;
    plat_com_init();
    int timers = start_timers(s);
    plat_event_set(s->armed);
    jv_jitter_seed(cell);
    for (unsigned tick = 1; !atomic_load(&s->stop); tick++) {
        uint64_t now = plat_now_ns(), period_ns = s->timed ? drain_ns : interval_ns;
        if (now > cell + period_ns)
            cell = now; /* behind (a long GC, slow stacks): the intervals missed are skipped, no burst */
        /* A tick at a random point of each interval, so that no phase of a periodic program is
         * favoured (common/jitter.h); the timers' drain at each drain period's end. */
        uint64_t at = cell + (s->timed ? period_ns : jv_jitter_offset_ns(period_ns));
        cell += period_ns;
        sleep_until(s, at);
        if (atomic_load(&s->stop))
            break;
        if (!s->timed) {
            sample_all(s);
            continue;
        }
        drain(s);
        if (tick % TICKS_PER_COUNTS == 0) {
            plat_mutex_lock(s->lock);
            refresh_cpu_counts(s);
            plat_mutex_unlock(s->lock);
        }
    }
    if (timers)
        stop_timers(s);
    plat_com_uninit();
}

void jp_sampler_reconfigure(jp_sampler *s, unsigned interval_ms, int wall)
{
    plat_mutex_lock(s->lock);
    s->interval_ms = interval_ms ? interval_ms : 1;
    s->wall = wall;
    s->timed = s->counts.timed = 0; /* start_timers says again whether the timers run */
    forget_still(s);
    plat_mutex_unlock(s->lock);
}

#define ARMED_WAIT_MS 5000u /* how long an answer waits for the sampling thread to start the timers */

int jp_sampler_start(jp_sampler *s)
{
    if (atomic_load(&s->stop)) { /* stopped before (the stop command): its wake-up event stays set */
        plat_event *fresh = plat_event_create();
        if (!fresh) {
            jv_log("jevprof: cannot start the sampling thread again (no event); no samples will be taken");
            return -1;
        }
        plat_event_destroy(s->wake);
        s->wake = fresh;
        atomic_store(&s->stop, 0);
    }
    plat_event *armed = plat_event_create(); /* the last thread's went with its join (jp_sampler_stop) */
    if (!armed) {
        jv_log("jevprof: cannot start the sampling thread (no event); no samples will be taken");
        return -1;
    }
    plat_event_destroy(s->armed);
    s->armed = armed;
    s->started_ns = plat_now_ns();
    s->thread = plat_thread_start("jevprof sampler", sampler_main, s);
    if (!s->thread) {
        jv_log("jevprof: cannot start the sampling thread; no samples will be taken");
        return -1;
    }
    return 0;
}

void jp_sampler_wait_armed(jp_sampler *s)
{
    if (s->thread && !plat_event_wait_ms(s->armed, ARMED_WAIT_MS))
        jv_log("jevprof: the sampling thread has not started its timers after %u ms (a busy machine?); "
               "samples are taken from when it does", ARMED_WAIT_MS);
}

uint64_t jp_sampler_timed_threads(jp_sampler *s)
{
    JEVMON_CPU_SAMPLING_COUNTS now;
    plat_mutex_lock(s->lock);
    int timed = s->timed;
    plat_mutex_unlock(s->lock);
    return timed && SUCCEEDED(IJevmonSampling4_GetCpuSamplingCounts(s->timers, &now)) ? now.threads : 0;
}

void jp_sampler_stop(jp_sampler *s)
{
    if (!s->thread)
        return;
    atomic_store(&s->stop, 1);
    plat_event_set(s->wake);
    plat_thread_join(s->thread);
    s->thread = NULL;
    s->stopped_ns = plat_now_ns();
    jp_tree_sum_root(&s->profile);
}

int jp_sampler_snapshot(jp_sampler *s, jp_tree *profile, jp_event_log *events, jp_sampler_counts *counts)
{
    plat_mutex_lock(s->lock);
    refresh_cpu_counts(s);
    int failed = jp_tree_copy(profile, &s->profile) || jp_event_log_copy(events, &s->events, 0);
    *counts = s->counts;
    plat_mutex_unlock(s->lock);
    jp_tree_sum_root(profile);
    return failed;
}

int jp_sampler_take(jp_sampler *s, jp_tree *profile, jp_event_log *events, jp_sampler_counts *counts)
{
    jp_tree empty;
    if (jp_tree_init(&empty))
        return -1;
    plat_mutex_lock(s->lock);
    if (jp_event_log_copy(events, &s->events, 1)) {
        plat_mutex_unlock(s->lock);
        jp_tree_free(&empty);
        return -1;
    }
    refresh_cpu_counts(s);
    *profile = s->profile;
    s->profile = empty;
    forget_still(s); /* their nodes are in the profile taken */
    *counts = s->counts;
    memset(&s->counts, 0, sizeof(s->counts));
    s->counts.timed = s->timed;
    s->cpu_base = s->cpu_last; /* the next period counts from here */
    plat_mutex_unlock(s->lock);
    jp_tree_sum_root(profile);
    return 0;
}

/* cpu mode with the timers: processor time measured, samples it asked for, taken, and why not. */
static void write_timed_counts(FILE *out, const jp_sampler_counts *c, unsigned interval_ms)
{
    const JEVMON_CPU_SAMPLING_COUNTS *t = &c->cpu;
    uint64_t period = t->period_ns ? t->period_ns : (uint64_t)interval_ms * NS_PER_MS;
    uint64_t asked = t->cpu_ns / period;
    fprintf(out, "Sampled by: a timer on each Java thread's processor-time clock, one sample every %u ms of the "
                 "processor time it uses (a waiting thread is never sampled)\n", interval_ms);
    fprintf(out, "Samples asked for: %" PRIu64 " (%.3f s of processor time used by %" PRIu64 " timed threads)\n", asked,
            (double)t->cpu_ns / 1e9, (uint64_t)t->threads);
    fprintf(out, "Samples taken: %" PRIu64 " in the profile, of %" PRIu64 " ms each (%.1f%% of those asked for)\n",
            c->periods, (uint64_t)interval_ms, asked ? 100.0 * (double)c->periods / (double)asked : 0.0);
    /* Each interval of a thread's processor time has one sample, at a random point of it: the
     * samples' weight is the processor time used but for each thread's last interval, cut short. */
    uint64_t sampled = c->periods + t->lost + c->failed;
    double used = (double)t->cpu_ns / 1e9, in_samples = (double)sampled * (double)period / 1e9;
    fprintf(out, "Processor time sampled: %.3f s used by the timed threads, %.3f s sampled (samples x interval, "
                 "%.1f%%), %.3f s of it in the profile\n", used, in_samples,
            used > 0 ? 100.0 * in_samples / used : 0.0, (double)c->periods * (double)period / 1e9);
    if (t->overruns)
        fprintf(out, "Stacks walked: %" PRIu64 "; %" PRIu64 " intervals went by without their own signal and came "
                     "merged into the next sample, whose stack stands for them (the thread held SIGPROF blocked, or "
                     "the system checks its timers only at the scheduler tick)\n", c->walked, (uint64_t)t->overruns);
    /* What is neither in the profile nor counted as missing for a reason: each thread's last interval,
     * whose sample falls at a random point of it and so is not taken when the thread ends first. */
    uint64_t last = asked > sampled ? asked - sampled : 0;
    fprintf(out, "Samples without a stack: %" PRIu64 " with no Java frame (a thread starting, ending or in the VM; "
                 "after an attach, the JVM's own threads too), %" PRIu64 " during a collection, %" PRIu64 " where the "
                 "stack could not be walked: in the profile as [no Java frame], [collection under way] and "
                 "[not walkable]\n", c->no_java, c->gc, c->unwalkable);
    fprintf(out, "Samples missing: %" PRIu64 " lost (buffer full), %" PRIu64 " failed, %" PRIu64 " in the last interval "
                 "of a thread (its sample falls at a random point of it and the thread ended first; %" PRIu64
                 " threads timed)\n", (uint64_t)t->lost, c->failed, last, (uint64_t)t->threads);
    if (t->untimed_threads)
        fprintf(out, "Threads without a timer: %" PRIu64 " (OS thread not known, or a timer refused): their "
                     "processor time is not in the profile\n", (uint64_t)t->untimed_threads);
    fprintf(out, "Thread samples: %" PRIu64 " in the profile\n", c->periods);
    fprintf(out, "Stacks: %" PRIu64 " walked where the thread ran\n", c->periods - c->no_java - c->gc - c->unwalkable);
}

/* The tick sampler: ticks, thread samples asked for and taken, and why not. */
static void write_tick_counts(FILE *out, const jp_sampler_counts *c, unsigned interval_ms, double seconds)
{
    int wall = c->states[0] + c->states[JEVMON_THREAD_RUNNING] + c->states[JEVMON_THREAD_NATIVE] +
                   c->states[JEVMON_THREAD_BLOCKED] + c->states[JEVMON_THREAD_WAITING] + c->states[JEVMON_THREAD_SLEEPING] >
               0;
    double rate = seconds > 0 ? (double)c->ticks / seconds : 0;
    fprintf(out, "Sampled by: a timer thread, every live thread %s every %u ms of wall-clock time\n",
            wall ? "(whatever it does: its state is its last frame)" : "that ran since the last tick", interval_ms);
    fprintf(out, "Timer ticks: %" PRIu64 " (%.1f per second; asked for %.1f)\n", c->ticks, rate,
            interval_ms ? 1000.0 / interval_ms : 0.0);
    fprintf(out, "Thread samples: %" PRIu64 " in the profile, of %" PRIu64 " asked for (live threads at each tick); "
                 "%" PRIu64 " idle (waiting, blocked or no Java frames), %" PRIu64 " that used no processor time "
                 "since the last tick, %" PRIu64 " failed\n", c->samples, c->asked, c->idle, c->not_running, c->failed);
    if (wall)
        fprintf(out, "Thread states: %" PRIu64 " running, %" PRIu64 " native (running or waiting in native code), %" PRIu64
                     " blocked, %" PRIu64 " waiting, %" PRIu64 " sleeping, %" PRIu64 " not known\n",
                c->states[JEVMON_THREAD_RUNNING], c->states[JEVMON_THREAD_NATIVE], c->states[JEVMON_THREAD_BLOCKED],
                c->states[JEVMON_THREAD_WAITING], c->states[JEVMON_THREAD_SLEEPING], c->states[0]);
    if (c->still)
        fprintf(out, "Thread samples counted without a look: %" PRIu64 " (the thread used no processor time since "
                     "a look found it blocked, waiting, sleeping or without Java frames, so it stood there)\n",
                c->still);
    if (c->location_failures)
        fprintf(out, "SampleThreadLocation failed %" PRIu64 " times: waiting threads were not told apart from "
                     "running ones there\n", c->location_failures);
    fprintf(out, "Stacks: %" PRIu64 " walked where the thread ran (IJevmonSampling2 to 4), %" PRIu64
                 " from GetStackTrace (at the thread's next safepoint)\n", c->walked, c->safepoint);
}

void jp_sampler_write_counts(FILE *out, const jp_sampler_counts *c, unsigned interval_ms, double seconds)
{
    if (c->timed)
        write_timed_counts(out, c, interval_ms);
    else
        write_tick_counts(out, c, interval_ms, seconds);
    if (c->truncated)
        fprintf(out, "Stacks cut (the innermost %d frames kept when walked, the outermost %d otherwise; a cut stack "
                     "hangs under \"(callers unknown)\"): %" PRIu64 "\n", JP_WALKED_FRAMES, JP_MAX_STACK_FRAMES,
                c->truncated);
}
