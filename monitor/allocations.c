/* allocations.c - alloc mode's recorder (see allocations.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allocations.h"

/* Set while this thread records an allocation: whatever the VM allocates for jevprof's calls
 * meanwhile is not the program's, and recording it would recurse. */
static _Thread_local int recording;

int jp_allocations_init(jp_allocations *a, IJavaEventMonitorIDInfo2 *info, jp_class_frames *classes,
                        IJevmonAllocationSampling *sampling)
{
    memset(a, 0, sizeof(*a));
    a->info = info;
    a->classes = classes;
    if (sampling && SUCCEEDED(IJevmonAllocationSampling_GetAllocationSamplingInterval(sampling, &a->interval))) {
        a->sampling = sampling;
        IJevmonAllocationSampling_AddRef(sampling);
    }
    a->lock = plat_mutex_create();
    if (!a->lock || jp_tree_init(&a->sites) || jp_tree_init(&a->bytes) || jp_event_log_init(&a->events, info)) {
        jp_allocations_free(a);
        return -1;
    }
    return 0;
}

void jp_allocations_free(jp_allocations *a)
{
    for (size_t i = 0; i < a->spare_count; i++) {
        jp_stack_trace_free(a->spare[i]);
        free(a->spare[i]);
    }
    free(a->spare);
    jp_tree_free(&a->sites);
    jp_tree_free(&a->bytes);
    jp_event_log_free(&a->events);
    if (a->sampling)
        IJevmonAllocationSampling_Release(a->sampling);
    if (a->lock)
        plat_mutex_destroy(a->lock);
    memset(a, 0, sizeof(*a));
}

/* A stack buffer from the pool, or a new one; NULL when out of memory. */
static jp_stack_trace *borrow_stack(jp_allocations *a)
{
    jp_stack_trace *stack = NULL;
    plat_mutex_lock(a->lock);
    if (a->spare_count)
        stack = a->spare[--a->spare_count];
    plat_mutex_unlock(a->lock);
    if (stack)
        return stack;
    stack = malloc(sizeof(*stack));
    if (stack && jp_stack_trace_init(stack)) {
        free(stack);
        stack = NULL;
    }
    return stack;
}

/* Puts a borrowed buffer back; called with the lock held. */
static void return_stack(jp_allocations *a, jp_stack_trace *stack)
{
    if (a->spare_count == a->spare_capacity) {
        size_t capacity = a->spare_capacity ? a->spare_capacity * 2 : 8;
        jp_stack_trace **grown = realloc(a->spare, capacity * sizeof(*grown));
        if (!grown) {
            jp_stack_trace_free(stack);
            free(stack);
            return;
        }
        a->spare = grown;
        a->spare_capacity = capacity;
    }
    a->spare[a->spare_count++] = stack;
}

int jp_allocations_estimated(const jp_allocations *a)
{
    return a->sampling && a->interval > 0;
}

/* What one reported allocation stands for: objects in JP_ALLOCATION_COUNT_SCALE units, and bytes. */
typedef struct allocation_weight {
    uint64_t objects, bytes;
    int sized, weighted;
} allocation_weight;

/* Asked while the ObjectID is valid (during the callback): the VM's weight where it gives one,
 * else one object of its GetObjectSize. */
static allocation_weight weigh(jp_allocations *a, ObjectID object)
{
    allocation_weight w = {JP_ALLOCATION_COUNT_SCALE, 0, 0, 0};
    double objects = 0;
    ULONGLONG bytes = 0;
    if (a->sampling &&
        SUCCEEDED(IJevmonAllocationSampling_GetAllocationWeight(a->sampling, object, &objects, &bytes))) {
        /* an estimate (1/p of a sampling probability): x87's extra bits (FLT_EVAL_METHOD 2) may
         * round it one unit of the scale the other way, which no reader could tell */
        w.objects = (uint64_t)(objects * JP_ALLOCATION_COUNT_SCALE + 0.5);
        w.bytes = bytes;
        w.sized = w.weighted = 1;
        return w;
    }
    DWORD size = 0;
    w.sized = SUCCEEDED(IJavaEventMonitorIDInfo2_GetObjectSize(a->info, object, &size));
    w.bytes = size;
    return w;
}

/* Records one allocation; called with the lock held.  0, or -1 when out of memory. */
static int add_site(jp_allocations *a, jp_stack_trace *stack, int have_stack, MethodID class_frame,
                    const allocation_weight *w)
{
    if (!class_frame)
        return -1;
    if (!have_stack) {
        stack->count = 0;
        jp_stack_trace_push(stack, JP_UNKNOWN_CALLERS);
    }
    if (!jp_stack_trace_push(stack, class_frame))
        stack->frames[stack->count - 1] = class_frame; /* full: the innermost frame makes room */
    uint32_t node = jp_tree_add_path(&a->sites, stack->frames, NULL, stack->count, w->objects);
    if (node == JP_NO_NODE)
        return -1;
    jp_event_log_add(&a->events, plat_os_thread_id(), node, w->objects, w->bytes);
    a->counts.recorded++;
    a->counts.no_stack += !have_stack;
    a->counts.truncated += have_stack && stack->truncated;
    a->counts.unweighted += a->sampling && !w->weighted;
    a->counts.unsized += !w->sized || jp_tree_add_stack(&a->bytes, stack->frames, stack->count, w->bytes);
    return 0;
}

/* Records one event ending in klass with its weights; called with recording set. */
static void record_weighed(jp_allocations *a, ClassID klass, const allocation_weight *weight)
{
    jp_stack_trace *stack = borrow_stack(a);
    HRESULT traced = stack ? jp_stack_trace_take(stack, a->info, 0) : E_OUTOFMEMORY;
    int have_stack = SUCCEEDED(traced) && stack->count > 0;
    MethodID class_frame = stack ? jp_class_frames_frame(a->classes, klass) : 0; /* named with no lock held */
    plat_mutex_lock(a->lock);
    if (!a->stopped && (!stack || add_site(a, stack, have_stack, class_frame, weight)))
        a->counts.failed++;
    if (stack)
        return_stack(a, stack);
    plat_mutex_unlock(a->lock);
}

/* Is this thread recording already (the VM allocating for jevprof's own calls)?  Then counted. */
static int nested(jp_allocations *a)
{
    if (!recording)
        return 0;
    plat_mutex_lock(a->lock);
    a->counts.nested++;
    plat_mutex_unlock(a->lock);
    return 1;
}

void jp_allocations_record(jp_allocations *a, ObjectID object, ClassID klass)
{
    if (nested(a))
        return;
    recording = 1;
    allocation_weight weight = weigh(a, object);
    record_weighed(a, klass, &weight);
    recording = 0;
}

void jp_allocations_record_weights(jp_allocations *a, ClassID klass, uint64_t first, uint64_t second)
{
    if (nested(a))
        return;
    recording = 1;
    allocation_weight weight = {first, second, 1, 1};
    record_weighed(a, klass, &weight);
    recording = 0;
}

void jp_allocations_stop(jp_allocations *a)
{
    plat_mutex_lock(a->lock);
    a->stopped = 1;
    jp_tree_sum_root(&a->sites);
    jp_tree_sum_root(&a->bytes);
    plat_mutex_unlock(a->lock);
}

int jp_allocations_restart(jp_allocations *a)
{
    jp_tree sites, bytes;
    jp_event_log events;
    jp_allocation_counts counts;
    if (jp_allocations_take(a, &sites, &bytes, &events, &counts))
        return -1;
    jp_tree_free(&sites), jp_tree_free(&bytes);
    jp_event_log_free(&events);
    plat_mutex_lock(a->lock);
    a->stopped = 0;
    plat_mutex_unlock(a->lock);
    return 0;
}

int jp_allocations_snapshot(jp_allocations *a, jp_tree *sites, jp_tree *bytes, jp_event_log *events,
                            jp_allocation_counts *counts)
{
    plat_mutex_lock(a->lock);
    int failed = jp_tree_copy(sites, &a->sites) || jp_tree_merge(bytes, &a->bytes) ||
                 jp_event_log_copy(events, &a->events, 0);
    *counts = a->counts;
    plat_mutex_unlock(a->lock);
    jp_tree_sum_root(sites);
    jp_tree_sum_root(bytes);
    return failed;
}

int jp_allocations_take(jp_allocations *a, jp_tree *sites, jp_tree *bytes, jp_event_log *events,
                        jp_allocation_counts *counts)
{
    jp_tree empty_sites, empty_bytes;
    if (jp_tree_init(&empty_sites))
        return -1;
    if (jp_tree_init(&empty_bytes)) {
        jp_tree_free(&empty_sites);
        return -1;
    }
    plat_mutex_lock(a->lock);
    if (jp_event_log_copy(events, &a->events, 1)) {
        plat_mutex_unlock(a->lock);
        jp_tree_free(&empty_sites), jp_tree_free(&empty_bytes);
        return -1;
    }
    *sites = a->sites, *bytes = a->bytes;
    a->sites = empty_sites, a->bytes = empty_bytes;
    *counts = a->counts;
    memset(&a->counts, 0, sizeof(a->counts));
    plat_mutex_unlock(a->lock);
    jp_tree_sum_root(sites);
    jp_tree_sum_root(bytes);
    return 0;
}
