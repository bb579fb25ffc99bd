/* calls.c - call mode's per-thread recording (see calls.h). */
#include <stdlib.h>
#include <string.h>

#include "calls.h"

struct jp_thread_calls {
    atomic_int busy;    /* the thread is inside a recording callback */
    atomic_int folding; /* another thread folds or copies this state: its events wait meanwhile */
    ThreadID thread;
    DWORD os_thread;
    uint64_t last_ticks;       /* processor time: the thread's previous event */
    uint64_t checkpoint_ticks; /* when its CPU clock was last read */
    uint64_t checkpoint_cpu;   /* what it said (ns; UINT64_MAX: unknown) */
    jp_callstack cs;
    jp_thread_calls *next;
};

/* A thread's states in the recorders it has met, most recently attached first.  A thread that
 * meets more recorders than this finds the others under their lock (still correct, slower). */
#define CACHE_SLOTS 4
typedef struct cache_slot {
    unsigned serial;
    jp_thread_calls *state;
} cache_slot;
static _Thread_local cache_slot cache[CACHE_SLOTS];
static atomic_uint next_serial = 1;
static int process_barrier; /* plat_process_barrier can be used (begin_recording) */

#define CALIBRATION_NS 2000000u

int jp_calls_init(jp_calls *calls, IJavaEventMonitorIDInfo2 *info, int cpu_time)
{
    memset(calls, 0, sizeof(*calls));
    calls->serial = atomic_fetch_add(&next_serial, 1);
    calls->started_ticks = plat_ticks();
    calls->started_ns = plat_now_ns();
    calls->cpu_time = cpu_time;
    if (cpu_time) { /* the tick rate, roughly, to find gaps as they happen (the end measures it exactly) */
        uint64_t ns;
        while ((ns = plat_now_ns() - calls->started_ns) < CALIBRATION_NS)
            ;
        uint64_t ticks = plat_ticks() - calls->started_ticks;
        calls->ns_per_tick = ticks ? (double)ns / (double)ticks : 1.0;
        calls->gap_ticks = (uint64_t)(JP_BLOCKED_GAP_MS * 1e6 / calls->ns_per_tick);
        calls->refresh_ticks = (uint64_t)(JP_CPU_REFRESH_MS * 1e6 / calls->ns_per_tick);
    }
    process_barrier = plat_process_barrier_init();
    calls->info = info;
    calls->lock = plat_mutex_create();
    if (!calls->lock || jp_tree_init(&calls->totals)) {
        jp_calls_free(calls);
        return -1;
    }
    return 0;
}

void jp_calls_free(jp_calls *calls)
{
    while (calls->threads) {
        jp_thread_calls *t = calls->threads;
        calls->threads = t->next;
        jp_callstack_free(&t->cs);
        free(t);
    }
    jp_tree_free(&calls->totals);
    free(calls->thread_summaries);
    if (calls->lock)
        plat_mutex_destroy(calls->lock);
    memset(calls, 0, sizeof(*calls));
}

static void remember_in_cache(unsigned serial, jp_thread_calls *state)
{
    memmove(&cache[1], &cache[0], (CACHE_SLOTS - 1) * sizeof(cache[0]));
    cache[0].serial = serial;
    cache[0].state = state;
}

static void forget_in_cache(unsigned serial)
{
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (cache[i].serial == serial)
            cache[i].serial = 0, cache[i].state = NULL;
}

/* The slow path, once per thread: find or create the calling thread's state.  Out of line: inlined,
 * it made every event save and restore six registers. */
static __attribute__((noinline)) jp_thread_calls *attach_thread(jp_calls *calls)
{
    DWORD os_thread = plat_os_thread_id();
    ThreadID thread = 0;
    if (calls->info && FAILED(IJavaEventMonitorIDInfo2_GetCurrentThread(calls->info, &thread)))
        thread = 0;
    plat_mutex_lock(calls->lock);
    jp_thread_calls *t = calls->threads;
    while (t && t->os_thread != os_thread)
        t = t->next;
    if (!t && (t = calloc(1, sizeof(*t))) != NULL) {
        if (jp_callstack_init(&t->cs) == 0) {
            t->os_thread = os_thread;
            t->next = calls->threads;
            calls->threads = t;
        } else {
            free(t);
            t = NULL;
        }
    }
    if (t) {
        t->thread = thread;
        t->last_ticks = t->checkpoint_ticks = plat_ticks();
        t->checkpoint_cpu = calls->cpu_time ? plat_thread_cpu_ns(os_thread) : UINT64_MAX;
    } else {
        calls->lost_threads++;
    }
    plat_mutex_unlock(calls->lock);
    if (t)
        remember_in_cache(calls->serial, t);
    return t;
}

static inline jp_thread_calls *current_state(jp_calls *calls)
{
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (cache[i].serial == calls->serial)
            return cache[i].state;
    return attach_thread(calls);
}

/* Dekker-style handshake with fold_thread and copy_calls: busy is set before stopped/folding are
 * read, and they are set before busy is read there, so either the callback sees the flag or the
 * other thread waits for it to finish.  Once stopped, nothing more is recorded; while another
 * thread folds or copies this one's tree, the callback waits for it (a dump or a period's end
 * must not lose the calls made meanwhile).  Where the system has a process-wide barrier the
 * other thread issues it, and the callback (twice per call) needs no fence of its own. */
static inline void mark_busy(jp_thread_calls *t)
{
    if (process_barrier) {
        atomic_store_explicit(&t->busy, 1, memory_order_relaxed);
        atomic_signal_fence(memory_order_seq_cst);
    } else
        atomic_store(&t->busy, 1);
}

/* Recording is stopped or the state is being folded: NULL once stopped, else t when the fold is over. */
static __attribute__((noinline)) jp_thread_calls *wait_to_record(jp_calls *calls, jp_thread_calls *t)
{
    for (;;) {
        atomic_store_explicit(&t->busy, 0, memory_order_release);
        if (atomic_load(&calls->stopped))
            return NULL;
        while (atomic_load(&t->folding) && !atomic_load(&calls->stopped))
            plat_sleep_ms(1);
        mark_busy(t);
        if (!atomic_load(&calls->stopped) && !atomic_load(&t->folding))
            return t;
    }
}

static inline jp_thread_calls *begin_recording(jp_calls *calls)
{
    jp_thread_calls *t = current_state(calls);
    if (!t)
        return NULL;
    mark_busy(t);
    if (!atomic_load(&calls->stopped) && !atomic_load(&t->folding))
        return t;
    return wait_to_record(calls, t);
}

static inline void end_recording(jp_thread_calls *t)
{
    atomic_store_explicit(&t->busy, 0, memory_order_release);
}

/* Reads the thread's CPU clock (see calls.h): the time since the last reading that it was off
 * the processor, up to the gap since its previous event, is blocked time of the frame it was in. */
static void read_cpu_clock(jp_calls *calls, jp_thread_calls *t, uint64_t now)
{
    uint64_t cpu = plat_thread_cpu_ns(t->os_thread), gap = now - t->last_ticks;
    if (cpu != UINT64_MAX && t->checkpoint_cpu != UINT64_MAX && cpu >= t->checkpoint_cpu &&
        gap >= calls->gap_ticks) {
        double wall = (double)(now - t->checkpoint_ticks) * calls->ns_per_tick;
        double off = wall - (double)(cpu - t->checkpoint_cpu), gap_ns = (double)gap * calls->ns_per_tick;
        if (off > gap_ns)
            off = gap_ns;
        if (off > 0)
            jp_callstack_blocked(&t->cs, (uint64_t)(off / calls->ns_per_tick));
    }
    t->checkpoint_ticks = now;
    t->checkpoint_cpu = cpu;
}

/* Before each event in processor-time mode: the CPU clock, when a gap or the refresh says so. */
static inline void note_event(jp_calls *calls, jp_thread_calls *t, uint64_t now)
{
    if (now - t->last_ticks >= calls->gap_ticks || now - t->checkpoint_ticks >= calls->refresh_ticks)
        read_cpu_clock(calls, t, now);
    t->last_ticks = now;
}

void jp_calls_entry(jp_calls *calls, MethodID method, StackID stack)
{
    jp_thread_calls *t = begin_recording(calls);
    if (t) {
        uint64_t now = plat_ticks();
        if (calls->cpu_time)
            note_event(calls, t, now);
        jp_callstack_enter(&t->cs, method, stack, now);
        end_recording(t);
    }
}

void jp_calls_exit(jp_calls *calls, StackID caller)
{
    jp_thread_calls *t = begin_recording(calls);
    if (t) {
        uint64_t now = plat_ticks();
        if (calls->cpu_time)
            note_event(calls, t, now);
        jp_callstack_exit(&t->cs, caller, now);
        end_recording(t);
    }
}

/* Keeps what the report's per-thread view shows of a thread's closed tree: its time and its
 * heaviest path from the top.  Called with the lock held; a thread that cannot be kept is left out. */
static void summarize_thread(jp_calls *calls, const jp_thread_calls *t)
{
    const jp_tree *tree = &t->cs.tree;
    if (calls->thread_count == calls->thread_capacity) {
        size_t capacity = calls->thread_capacity ? calls->thread_capacity * 2 : 16;
        jp_thread_summary *grown = realloc(calls->thread_summaries, capacity * sizeof(*grown));
        if (!grown)
            return;
        calls->thread_summaries = grown;
        calls->thread_capacity = capacity;
    }
    jp_thread_summary *summary = &calls->thread_summaries[calls->thread_count];
    memset(summary, 0, sizeof(*summary));
    summary->thread = t->thread;
    summary->os_thread = t->os_thread;
    for (uint32_t c = tree->nodes ? tree->nodes[JP_ROOT].first_child : JP_NO_NODE; c != JP_NO_NODE;
         c = tree->nodes[c].next_sibling)
        summary->time += tree->nodes[c].total;
    if (summary->time == 0)
        return; /* no closed call: nothing to show */
    for (uint32_t node = JP_ROOT; summary->depth < JP_THREAD_PATH_FRAMES;) {
        uint32_t heaviest = JP_NO_NODE;
        for (uint32_t c = tree->nodes[node].first_child; c != JP_NO_NODE; c = tree->nodes[c].next_sibling)
            if (heaviest == JP_NO_NODE || tree->nodes[c].total > tree->nodes[heaviest].total)
                heaviest = c;
        if (heaviest == JP_NO_NODE)
            break;
        summary->path[summary->depth++] = tree->nodes[heaviest].method;
        node = heaviest;
    }
    calls->thread_count++;
}

/* Ends the thread's open frames now and adds its tree to the totals, leaving it empty.  Called
 * with the lock held and t->folding set (or recording stopped), once t is not busy. */
static void fold_thread(jp_calls *calls, jp_thread_calls *t)
{
    if (process_barrier)
        plat_process_barrier();
    while (atomic_load(&t->busy))
        plat_sleep_ms(1);
    uint64_t now = plat_ticks();
    if (calls->cpu_time) /* its last wait, up to now */
        note_event(calls, t, now);
    jp_callstack_close(&t->cs, now);
    summarize_thread(calls, t);
    jp_tree_merge(&calls->totals, &t->cs.tree);
    jp_tree_free(&t->cs.tree);
    jp_tree_init(&t->cs.tree); /* on failure the tree stays empty and records nothing */
}

void jp_calls_thread_ended(jp_calls *calls, ThreadID thread)
{
    if (!thread)
        return;
    plat_mutex_lock(calls->lock);
    jp_thread_calls **link = &calls->threads;
    while (*link && (*link)->thread != thread)
        link = &(*link)->next;
    jp_thread_calls *t = *link;
    if (t && t->os_thread == plat_os_thread_id()) {
        /* The usual case: the ending thread says so itself, so nothing else can be using t. */
        *link = t->next;
        fold_thread(calls, t);
        jp_callstack_free(&t->cs);
        free(t);
        forget_in_cache(calls->serial);
    } else if (t) {
        /* Told by another thread: the ending thread's cache still points at t, so t stays. */
        atomic_store(&t->folding, 1);
        fold_thread(calls, t);
        t->thread = 0;
        atomic_store(&t->folding, 0);
    }
    plat_mutex_unlock(calls->lock);
}

void jp_calls_stop(jp_calls *calls)
{
    if (atomic_exchange(&calls->stopped, 1))
        return; /* stopped already (SHUTDOWN, then the release): the totals are in nanoseconds */
    plat_mutex_lock(calls->lock);
    for (jp_thread_calls *t = calls->threads; t; t = t->next)
        fold_thread(calls, t);
    plat_mutex_unlock(calls->lock);
    uint64_t ticks = plat_ticks() - calls->started_ticks, ns = plat_now_ns() - calls->started_ns;
    /* A measured rate: where x87 keeps extra bits (FLT_EVAL_METHOD 2), a converted time may come
     * out a nanosecond apart from SSE's, far inside the measurement's own error. */
    double ns_per_tick = ticks ? (double)ns / (double)ticks : 1.0;
    calls->stop_ns_per_tick = ns_per_tick;
    jp_tree_scale(&calls->totals, ns_per_tick);
    for (size_t i = 0; i < calls->thread_count; i++)
        calls->thread_summaries[i].time = (uint64_t)((double)calls->thread_summaries[i].time * ns_per_tick);
    jp_tree_sum_root(&calls->totals);
}

/* Adds the calls so far to into: the totals and every thread's finished calls, in clock ticks
 * (*ns_per_tick: their ratio so far) while recording, in nanoseconds once stopped (*ns_per_tick:
 * 0).  Each thread's next event waits while its tree is copied.  0, or -1 out of memory. */
static int copy_calls(jp_calls *calls, jp_tree *into, double *ns_per_tick)
{
    int failed = 0;
    *ns_per_tick = 0;
    plat_mutex_lock(calls->lock);
    failed |= jp_tree_merge(into, &calls->totals);
    if (atomic_load(&calls->stopped)) { /* the totals are whole, and in nanoseconds already */
        plat_mutex_unlock(calls->lock);
        return failed;
    }
    for (jp_thread_calls *t = calls->threads; t; t = t->next) {
        atomic_store(&t->folding, 1); /* the thread's next event waits while its tree is copied */
        if (process_barrier)
            plat_process_barrier();
        while (atomic_load(&t->busy))
            plat_sleep_ms(1);
        failed |= jp_tree_merge(into, &t->cs.tree);
        atomic_store(&t->folding, 0);
    }
    uint64_t ticks = plat_ticks() - calls->started_ticks, ns = plat_now_ns() - calls->started_ns;
    plat_mutex_unlock(calls->lock);
    *ns_per_tick = ticks ? (double)ns / (double)ticks : 1.0;
    return failed;
}

int jp_calls_restart(jp_calls *calls)
{
    jp_tree empty;
    if (!atomic_load(&calls->stopped) || jp_tree_init(&empty))
        return -1;
    plat_mutex_lock(calls->lock);
    jp_tree_free(&calls->totals);
    calls->totals = empty;
    calls->thread_count = 0;
    calls->lost_threads = 0;
    calls->started_ticks = plat_ticks();
    calls->started_ns = plat_now_ns();
    plat_mutex_unlock(calls->lock);
    atomic_store(&calls->stopped, 0); /* the threads record again, each from its next entry */
    return 0;
}

int jp_calls_snapshot(jp_calls *calls, jp_tree *into)
{
    double ns_per_tick;
    int failed = copy_calls(calls, into, &ns_per_tick);
    if (ns_per_tick)
        jp_tree_scale(into, ns_per_tick);
    jp_tree_sum_root(into);
    return failed;
}

int jp_calls_take_period(jp_calls *calls, jp_tree *before, jp_tree *period)
{
    jp_tree now;
    double ns_per_tick;
    if (jp_tree_init(&now))
        return -1;
    int failed = copy_calls(calls, &now, &ns_per_tick);
    if (!ns_per_tick) /* stopped: the totals are in nanoseconds, at the stop's ratio */
        jp_tree_scale(before, calls->stop_ns_per_tick);
    failed |= jp_tree_difference(period, &now, before);
    if (ns_per_tick)
        jp_tree_scale(period, ns_per_tick);
    jp_tree_sum_root(period);
    if (failed) {
        jp_tree_free(&now);
        return -1;
    }
    jp_tree_free(before);
    *before = now;
    return 0;
}
