/* calls.c - call mode's per-thread recording, from the bridge's batches of call records (see calls.h). */
#include <stdlib.h>
#include <string.h>

#include "calls.h"

/* Processor time: a stretch between two of a thread's records (or after its last one) long enough
 * to be a wait, in ticks, and the blocked time found in it. */
typedef struct blocked_gap {
    size_t record;   /* the record that ends it; the batch's count: the stretch after its last record */
    uint64_t before; /* how much of it lies before the thread's last CPU clock reading */
    uint64_t after;  /* and after it */
    uint64_t room;   /* what hand_out may give it */
    uint64_t share;  /* the blocked time it gets, at most before + after */
} blocked_gap;

struct jp_thread_calls {
    atomic_int busy; /* a batch of the thread is being recorded: set under the lock, cleared after */
    ThreadID thread;
    DWORD os_thread;           /* 0: none known (a virtual thread), so its CPU clock is never read */
    uint64_t last_ticks;       /* processor time: its last record's */
    uint64_t checkpoint_ticks; /* when its CPU clock was last read */
    uint64_t checkpoint_cpu;   /* what it said (ns; UINT64_MAX: unknown) */
    uint64_t carried;          /* blocked time found after its last record: its next records place it */
    blocked_gap *gaps;         /* processor time: a batch's gaps, in the order of its records */
    size_t gap_capacity;
    jp_callstack cs;
};

#define CALIBRATION_NS 2000000u

int jp_calls_init(jp_calls *calls, IJavaEventMonitorIDInfo2 *info, IJevmonCallBatches *batches, int cpu_time)
{
    memset(calls, 0, sizeof(*calls));
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
    calls->info = info;
    calls->batches = batches;
    if (batches)
        IJevmonCallBatches_AddRef(batches);
    calls->lock = plat_mutex_create();
    if (!calls->lock || jp_tree_init(&calls->totals)) {
        jp_calls_free(calls);
        return -1;
    }
    return 0;
}

/* The state in the table's slot, or NULL (an empty slot): the table is walked slot by slot. */
static jp_thread_calls *thread_in_slot(const jp_calls *calls, size_t slot)
{
    return calls->threads.entries[slot].key ? (jp_thread_calls *)calls->threads.entries[slot].value : NULL;
}

static void free_thread(jp_thread_calls *t)
{
    jp_callstack_free(&t->cs);
    free(t->gaps);
    free(t);
}

void jp_calls_free(jp_calls *calls)
{
    for (size_t slot = 0; slot < calls->threads.capacity; slot++) {
        jp_thread_calls *t = thread_in_slot(calls, slot);
        if (t)
            free_thread(t);
    }
    jp_idmap_free(&calls->threads);
    jp_tree_free(&calls->totals);
    free(calls->thread_summaries);
    if (calls->lock)
        plat_mutex_destroy(calls->lock);
    if (calls->batches)
        IJevmonCallBatches_Release(calls->batches);
    memset(calls, 0, sizeof(*calls));
}

/* Once per thread, outside the lock (ThreadInformation calls into the bridge): the state of a
 * thread whose first record is at first_ticks; NULL out of memory. */
static jp_thread_calls *new_thread(jp_calls *calls, ThreadID thread, uint64_t first_ticks)
{
    jp_thread_calls *t = calloc(1, sizeof(*t));
    if (!t || jp_callstack_init(&t->cs)) {
        free(t);
        return NULL;
    }
    DWORD os_thread = 0; /* a virtual thread has no OS thread of its own: the bridge names none */
    if (!calls->info || FAILED(IJavaEventMonitorIDInfo2_ThreadInformation(calls->info, thread, &os_thread)))
        os_thread = 0;
    t->thread = thread;
    t->os_thread = os_thread;
    t->last_ticks = t->checkpoint_ticks = first_ticks;
    /* Its CPU clock at its first record is not known, only that it is at least 0.  Taking 0 can
     * count the processor time it used before as used since, which only ever shrinks the blocked
     * time found up to the first reading, never makes it up. */
    t->checkpoint_cpu = os_thread ? 0 : UINT64_MAX;
    return t;
}

/* The thread's state, marked busy, for a batch whose first record is at first_ticks; NULL once
 * stopped, or when it cannot be allocated.  busy is set under the lock, which fold_thread and
 * copy_calls hold while they wait for it to clear: the batch is recorded outside the lock, and
 * the thread's next batch waits at the lock until they are done. */
static jp_thread_calls *begin_batch(jp_calls *calls, ThreadID thread, uint64_t first_ticks)
{
    plat_mutex_lock(calls->lock);
    jp_idmap_entry *entry = jp_idmap_find(&calls->threads, thread);
    jp_thread_calls *t = entry ? (jp_thread_calls *)entry->value : NULL;
    if (!t && !atomic_load(&calls->stopped)) {
        plat_mutex_unlock(calls->lock);
        t = new_thread(calls, thread, first_ticks); /* no other batch of the thread runs meanwhile */
        plat_mutex_lock(calls->lock);
        if (t && !(entry = jp_idmap_insert(&calls->threads, thread))) {
            free_thread(t);
            t = NULL;
        }
        if (t)
            entry->value = (uintptr_t)t;
        else
            calls->lost_threads++;
    }
    if (t && !atomic_load(&calls->stopped))
        atomic_store_explicit(&t->busy, 1, memory_order_relaxed); /* the unlock publishes it */
    else
        t = NULL;
    plat_mutex_unlock(calls->lock);
    return t;
}

/* The stretch from..to as a gap: its length when it is JP_BLOCKED_GAP_MS or more, else 0. */
static inline uint64_t gap_length(const jp_calls *calls, uint64_t from, uint64_t to)
{
    return to > from && to - from >= calls->gap_ticks ? to - from : 0;
}

/* Appends the gap from..to, which record ends, to t->gaps, split where the last reading falls in it;
 * -1 out of memory. */
static int add_gap(jp_thread_calls *t, size_t count, size_t record, uint64_t from, uint64_t to)
{
    if (count == t->gap_capacity) {
        size_t capacity = count ? count * 2 : 16;
        blocked_gap *grown = realloc(t->gaps, capacity * sizeof(*grown));
        if (!grown)
            return -1;
        t->gaps = grown;
        t->gap_capacity = capacity;
    }
    uint64_t reading = t->checkpoint_ticks < from ? from : t->checkpoint_ticks > to ? to : t->checkpoint_ticks;
    t->gaps[count] = (blocked_gap){record, reading - from, to - reading, 0, 0};
    return 0;
}

/* The most room first, then in the order of the records. */
static int most_room_first(const void *a, const void *b)
{
    const blocked_gap *x = a, *y = b;
    if (x->room != y->room)
        return x->room < y->room ? 1 : -1;
    return (x->record > y->record) - (x->record < y->record);
}

static int in_record_order(const void *a, const void *b)
{
    const blocked_gap *x = a, *y = b;
    return (x->record > y->record) - (x->record < y->record);
}

/* Adds blocked to the gaps' shares, the gap with the most room first (a wait is long, a preemption
 * short), each up to its room; what no room takes is left out.  The gaps stay in record order. */
static void hand_out(blocked_gap *gaps, size_t count, uint64_t blocked)
{
    if (blocked == 0 || count == 0)
        return;
    qsort(gaps, count, sizeof(*gaps), most_room_first);
    for (size_t g = 0; g < count && blocked > 0; g++) {
        uint64_t given = gaps[g].room < blocked ? gaps[g].room : blocked;
        gaps[g].share += given;
        blocked -= given;
    }
    qsort(gaps, count, sizeof(*gaps), in_record_order);
}

/*
 * Processor time, once per batch (records[0..count)) and at a fold (no records): finds the gaps in
 * which the thread may have been blocked and the blocked time each gets, into t->gaps in the order
 * of the records; how many there are.
 *
 * The CPU clock can only be read when the batch is recorded, now, and that may be well after its
 * last record: the thread waited in its delivery, or another thread flushes it while it waits or
 * computes.  So the reading is paired with now, and the wall time since the previous reading that
 * the thread spent off the processor went into the gaps between the two readings, or into shorter
 * waits: each gap takes what lies after the previous reading, the longest first, up to that part's
 * length.  The stretch after the last record is a gap too, but the thread's next records, taken
 * before now (the one whose store delivered the batch, or one a flush held up), may fall in it: its
 * share is carried (t->carried) to the gaps of the next batch that lie before this reading.
 */
static size_t find_blocked_time(jp_calls *calls, jp_thread_calls *t, const JEVMON_CALL_RECORD *records,
                                size_t count, uint64_t now)
{
    size_t gaps = 0;
    int due = now - t->checkpoint_ticks >= calls->refresh_ticks;
    /* A busy thread's batch spans less than a gap: no record but the last can end one */
    size_t first = count && records[count - 1].ticks - t->last_ticks < calls->gap_ticks ? count : 0;
    for (size_t i = first; i <= count; i++) {
        uint64_t from = i ? records[i - 1].ticks : t->last_ticks, to = i < count ? records[i].ticks : now;
        if (!gap_length(calls, from, to))
            continue;
        if (add_gap(t, gaps, i, from, to))
            break; /* out of memory: the later gaps count as processor time */
        due |= t->gaps[gaps].after > 0;
        gaps++;
    }
    for (size_t g = 0; g < gaps; g++)
        t->gaps[g].room = t->gaps[g].before;
    hand_out(t->gaps, gaps, t->carried);
    if (due) {
        uint64_t cpu = t->os_thread ? plat_thread_cpu_ns(t->os_thread) : UINT64_MAX;
        if (cpu != UINT64_MAX && t->checkpoint_cpu != UINT64_MAX && cpu >= t->checkpoint_cpu &&
            now > t->checkpoint_ticks) {
            double off = (double)(now - t->checkpoint_ticks) - (double)(cpu - t->checkpoint_cpu) / calls->ns_per_tick;
            for (size_t g = 0; g < gaps; g++)
                t->gaps[g].room = t->gaps[g].after;
            hand_out(t->gaps, gaps, off > 0 ? (uint64_t)off : 0);
        }
        t->checkpoint_ticks = now;
        t->checkpoint_cpu = cpu;
    }
    t->carried = 0;
    if (gaps && t->gaps[gaps - 1].record == count)
        t->carried = t->gaps[--gaps].share;
    if (count)
        t->last_ticks = records[count - 1].ticks;
    return gaps;
}

/* Records records[0..count) into the thread's tree, each of the first gaps' blocked time (t->gaps)
 * just before the record that ends it, while the frame the thread was blocked in is the innermost. */
static void record_batch(jp_thread_calls *t, const JEVMON_CALL_RECORD *records, size_t count, size_t gaps)
{
    size_t g = 0;
    for (size_t i = 0; i < count; i++) {
        if (g < gaps && t->gaps[g].record == i)
            jp_callstack_blocked(&t->cs, t->gaps[g++].share);
        switch (records[i].kind) {
        case JEVMON_CALL_ENTERED:
            jp_callstack_enter(&t->cs, records[i].method, records[i].ticks);
            break;
        case JEVMON_CALL_RETURNED:
        case JEVMON_CALL_UNWOUND:
            jp_callstack_leave(&t->cs, records[i].method, records[i].ticks);
            break;
        default: /* a kind of record this jevprof does not know */
            break;
        }
    }
}

void jp_calls_batch(jp_calls *calls, ThreadID thread, const JEVMON_CALL_RECORD *records, DWORD count)
{
    if (count == 0)
        return;
    uint64_t now = plat_ticks(); /* before the lock: a wait for it falls in the thread's next gap */
    jp_thread_calls *t = begin_batch(calls, thread, records[0].ticks);
    if (!t)
        return;
    size_t gaps = calls->cpu_time ? find_blocked_time(calls, t, records, count, now) : 0;
    record_batch(t, records, count, gaps);
    atomic_store_explicit(&t->busy, 0, memory_order_release);
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
 * with the lock held, so no batch of the thread starts; waits for one in progress. */
static void fold_thread(jp_calls *calls, jp_thread_calls *t)
{
    while (atomic_load(&t->busy))
        plat_sleep_ms(1);
    uint64_t now = plat_ticks();
    if (calls->cpu_time) { /* its last wait, up to now: no record comes to place it, its frames end now */
        find_blocked_time(calls, t, NULL, 0, now);
        jp_callstack_blocked(&t->cs, t->carried);
        t->carried = 0;
    }
    jp_callstack_close(&t->cs, now);
    summarize_thread(calls, t);
    jp_tree_merge(&calls->totals, &t->cs.tree);
    jp_callstack_empty_tree(&t->cs); /* on failure the tree stays empty and records nothing */
}

void jp_calls_thread_ended(jp_calls *calls, ThreadID thread)
{
    plat_mutex_lock(calls->lock);
    jp_thread_calls *t = (jp_thread_calls *)jp_idmap_remove(&calls->threads, thread);
    if (t) {
        fold_thread(calls, t);
        free_thread(t);
    }
    plat_mutex_unlock(calls->lock);
}

/* Has the bridge deliver every thread's records so far, so that the trees hold every call made
 * before this.  Never under the lock: the batches come through jp_calls_batch, on this thread.
 * A flush that fails leaves the records to their next delivery. */
static void flush_batches(jp_calls *calls)
{
    if (calls->batches)
        IJevmonCallBatches_FlushCallBatches(calls->batches);
}

void jp_calls_stop(jp_calls *calls)
{
    if (atomic_load(&calls->stopped))
        return; /* stopped already (SHUTDOWN, then the release): the totals are in nanoseconds */
    flush_batches(calls);
    if (atomic_exchange(&calls->stopped, 1))
        return;
    plat_mutex_lock(calls->lock);
    for (size_t slot = 0; slot < calls->threads.capacity; slot++) {
        jp_thread_calls *t = thread_in_slot(calls, slot);
        if (t)
            fold_thread(calls, t);
    }
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

/* Adds the calls so far to into: the totals and every thread's finished calls, the batches
 * flushed first, in clock ticks (*ns_per_tick: their ratio so far) while recording, in nanoseconds
 * once stopped (*ns_per_tick: 0).  Each thread's next batch waits while its tree is copied.  0,
 * or -1 out of memory. */
static int copy_calls(jp_calls *calls, jp_tree *into, double *ns_per_tick)
{
    int failed = 0;
    *ns_per_tick = 0;
    if (!atomic_load(&calls->stopped))
        flush_batches(calls);
    plat_mutex_lock(calls->lock);
    failed |= jp_tree_merge(into, &calls->totals);
    if (atomic_load(&calls->stopped)) { /* the totals are whole, and in nanoseconds already */
        plat_mutex_unlock(calls->lock);
        return failed;
    }
    for (size_t slot = 0; slot < calls->threads.capacity; slot++) {
        jp_thread_calls *t = thread_in_slot(calls, slot);
        if (!t)
            continue;
        while (atomic_load(&t->busy))
            plat_sleep_ms(1);
        failed |= jp_tree_merge(into, &t->cs.tree);
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
    atomic_store(&calls->stopped, 0); /* the threads record again, each from its next batch */
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
