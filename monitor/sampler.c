/* sampler.c - the sampling timer thread (see sampler.h). */
#include <stdlib.h>
#include <string.h>

#include "sampler.h"

#define NS_PER_MS 1000000ull

/* Set on the timer thread.  Its first IDInfo call may attach it to the JVM, which announces it
 * with THREAD_CREATE on the same thread while the lock is held: it must neither take the lock
 * again nor sample itself. */
static _Thread_local int on_sampler_thread;

int jp_sampler_init(jp_sampler *s, IJavaEventMonitorIDInfo2 *info, unsigned interval_ms)
{
    memset(s, 0, sizeof(*s));
    s->info = info;
    s->interval_ms = interval_ms ? interval_ms : 1;
    s->lock = plat_mutex_create();
    s->wake = plat_event_create();
    if (!s->lock || !s->wake || jp_stack_trace_init(&s->stack) || jp_tree_init(&s->profile)) {
        jp_sampler_free(s);
        return -1;
    }
    if (FAILED(IJavaEventMonitorIDInfo2_QueryInterface(info, &IID_IJevmonSampling3, (void **)&s->framer)))
        s->framer = NULL; /* an agent before offsets: no frame has one */
    if (!s->framer && FAILED(IJavaEventMonitorIDInfo2_QueryInterface(info, &IID_IJevmonSampling2, (void **)&s->walker)))
        s->walker = NULL; /* another VM: GetStackTrace for every stack */
    return 0;
}

void jp_sampler_free(jp_sampler *s)
{
    jp_tree_free(&s->profile);
    jp_idmap_free(&s->live);
    free(s->snapshot);
    jp_stack_trace_free(&s->stack);
    if (s->framer)
        IJevmonSampling3_Release(s->framer);
    if (s->walker)
        IJevmonSampling2_Release(s->walker);
    if (s->lock)
        plat_mutex_destroy(s->lock);
    plat_event_destroy(s->wake);
    memset(s, 0, sizeof(*s));
}

void jp_sampler_thread_created(jp_sampler *s, ThreadID thread)
{
    if (on_sampler_thread)
        return;
    plat_mutex_lock(s->lock);
    jp_idmap_entry *e = jp_idmap_insert(&s->live, thread);
    if (e)
        e->value = 1;
    plat_mutex_unlock(s->lock);
}

void jp_sampler_thread_destroyed(jp_sampler *s, ThreadID thread)
{
    if (on_sampler_thread)
        return;
    plat_mutex_lock(s->lock); /* waits for a sample of this thread in progress */
    jp_idmap_remove(&s->live, thread);
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
                                 const DWORD **offsets, size_t *count)
{
    DWORD frames = 0;
    BOOL truncated = FALSE;
    HRESULT hr = s->framer ? IJevmonSampling3_SampleThreadFrames(s->framer, thread, where, s->walked + 1, s->offsets + 1,
                                                                 JP_WALKED_FRAMES, &frames, &truncated)
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

/* Samples one live thread; called with the lock held. */
static void sample_thread(jp_sampler *s, ThreadID thread)
{
    JVM_METHOD_SAMPLE where;
    const MethodID *walked = NULL;
    const DWORD *walked_offsets = NULL;
    size_t walked_count = 0;
    memset(&where, 0, sizeof(where));
    where.flags = JVM_SAMPLE_METHOD_ID | JVM_SAMPLE_LOCATION | JVM_SAMPLE_PC;
    HRESULT located = s->framer || s->walker
                          ? sample_with_stack(s, thread, &where, &walked, &walked_offsets, &walked_count)
                          : IJavaEventMonitorIDInfo2_SampleThreadLocation(s->info, thread, &where);
    if (FAILED(located)) {
        s->counts.location_failures++;
        where.flags = 0;
    } else if (where.accuracy == JVM_SAMPLE_NONE) {
        where.flags = 0;
    }
    if ((where.flags & JVM_SAMPLE_LOCATION) && where.location_type == JVM_LOCATION_BLOCKING) {
        s->counts.idle++;
        return;
    }
    if (located == S_OK && walked) {
        if (!walked_count) {
            s->counts.idle++; /* no Java frames */
        } else if (jp_tree_add_located_stack(&s->profile, walked, walked_offsets, walked_count, 1)) {
            s->counts.failed++;
        } else {
            s->counts.samples++;
            s->counts.walked++;
        }
        return;
    }
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
    const MethodID method_only[] = {JP_UNKNOWN_CALLERS, where.method_id};
    const MethodID *frames = have_stack ? s->stack.frames : method_only;
    size_t count = have_stack ? s->stack.count : 2;
    innermost_offset(s->offsets, &where, frames, count);
    if (jp_tree_add_located_stack(&s->profile, frames, s->offsets, count, 1)) {
        s->counts.failed++;
        return;
    }
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
    uint64_t interval_ns = s->interval_ms * NS_PER_MS, next = plat_now_ns();
    on_sampler_thread = 1;
    plat_com_init();
    while (!atomic_load(&s->stop)) {
        next += interval_ns;
        uint64_t now = plat_now_ns();
        if (now > next + interval_ns)
            next = now + interval_ns; /* behind (a long GC, slow stacks): no burst, and a rest */
        sleep_until(s, next);
        if (!atomic_load(&s->stop))
            sample_all(s);
    }
    plat_com_uninit();
}

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
    s->started_ns = plat_now_ns();
    s->thread = plat_thread_start(sampler_main, s);
    if (!s->thread) {
        jv_log("jevprof: cannot start the sampling thread; no samples will be taken");
        return -1;
    }
    return 0;
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

int jp_sampler_snapshot(jp_sampler *s, jp_tree *profile, jp_sampler_counts *counts)
{
    plat_mutex_lock(s->lock);
    int failed = jp_tree_merge(profile, &s->profile);
    *counts = s->counts;
    plat_mutex_unlock(s->lock);
    jp_tree_sum_root(profile);
    return failed;
}

int jp_sampler_take(jp_sampler *s, jp_tree *profile, jp_sampler_counts *counts)
{
    jp_tree empty;
    if (jp_tree_init(&empty))
        return -1;
    plat_mutex_lock(s->lock);
    *profile = s->profile;
    s->profile = empty;
    *counts = s->counts;
    memset(&s->counts, 0, sizeof(s->counts));
    plat_mutex_unlock(s->lock);
    jp_tree_sum_root(profile);
    return 0;
}
