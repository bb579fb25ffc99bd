/*
 * codemap.c - the map of generated code (see codemap.h).
 *
 * The map is an immutable version: a sorted array of non-overlapping ranges (the base) and
 * up to RECENT_MAX newer ranges in the order they came, none overlapping another.  A base
 * range that overlaps a newer one is dead: lookups skip it and the next merge drops it.
 * An update builds a new version and publishes it with one atomic store; versions a reader
 * may still hold are retired and freed the next time an updater sees no reader inside.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ids/codemap.h"
#include "platform/platform.h"

/* Ranges kept out of the base: each merge copies the base, so this many adds share one copy. */
#define RECENT_MAX 32

typedef struct sorted_ranges {
    size_t count;
    jv_code_range r[];
} sorted_ranges;

typedef struct version {
    sorted_ranges *base; /* NULL when empty */
    unsigned recent;
    jv_code_range newest[RECENT_MAX]; /* newest[recent - 1] came last */
} version;

static version *_Atomic current;
static atomic_uint readers; /* lookups in progress */
static plat_mutex *update_lock;
/* Under update_lock: memory a reader may still use, and the stubs' names. */
static void **retired;
static size_t retired_count, retired_capacity;
static char **names;
static size_t name_count, name_capacity;

static int overlaps(const jv_code_range *a, const jv_code_range *b)
{
    return a->start < b->end && b->start < a->end;
}

static int contains(const jv_code_range *r, uintptr_t address)
{
    return address >= r->start && address < r->end;
}

static int dead_in(const version *v, const jv_code_range *base_range)
{
    for (unsigned i = 0; i < v->recent; i++)
        if (overlaps(&v->newest[i], base_range))
            return 1;
    return 0;
}

/* The base range holding address, or NULL. */
static const jv_code_range *base_search(const sorted_ranges *base, uintptr_t address)
{
    size_t lo = 0, hi = base ? base->count : 0;
    while (lo < hi) { /* lo ends as the number of ranges starting at or below address */
        size_t mid = lo + (hi - lo) / 2;
        if (base->r[mid].start <= address)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo && contains(&base->r[lo - 1], address) ? &base->r[lo - 1] : NULL;
}

jv_code_kind jv_codemap_find(uintptr_t address, jv_code_range *range)
{
    const jv_code_range *hit = NULL;
    atomic_fetch_add(&readers, 1);
    const version *v = atomic_load(&current);
    if (v) {
        for (unsigned i = v->recent; i-- > 0 && !hit;)
            if (contains(&v->newest[i], address))
                hit = &v->newest[i];
        if (!hit && (hit = base_search(v->base, address)) && dead_in(v, hit))
            hit = NULL;
        if (hit)
            *range = *hit;
    }
    atomic_fetch_sub(&readers, 1);
    return !hit ? JV_CODE_NONE : range->name ? JV_CODE_STUB : JV_CODE_COMPILED;
}

/* ---- Updates, under update_lock ---------------------------------------------------------- */

static void free_retired_if_unread(void)
{
    if (atomic_load(&readers))
        return;
    for (size_t i = 0; i < retired_count; i++)
        free(retired[i]);
    retired_count = 0;
}

static void retire(void *memory)
{
    if (retired_count == retired_capacity) {
        size_t capacity = retired_capacity ? 2 * retired_capacity : 16;
        void **grown = realloc(retired, capacity * sizeof(*grown));
        if (!grown) { /* no room to defer: wait out the readers instead */
            while (atomic_load(&readers))
                plat_sleep_ms(0);
            free(memory);
            return;
        }
        retired = grown;
        retired_capacity = capacity;
    }
    retired[retired_count++] = memory;
}

static void publish(version *next)
{
    version *old = atomic_load(&current);
    atomic_store(&current, next);
    if (old) {
        if (old->base != next->base)
            retire(old->base);
        retire(old);
    }
    free_retired_if_unread();
}

/* A copy of the current version to change, or NULL when out of memory. */
static version *next_version(void)
{
    version *next = malloc(sizeof(*next));
    const version *old = atomic_load(&current);
    if (next) {
        if (old)
            *next = *old;
        else
            memset(next, 0, sizeof(*next));
    }
    return next;
}

/* The base with v's recent ranges merged in and the dead ranges dropped; NULL when out of memory. */
static sorted_ranges *merged(const version *v)
{
    size_t old_count = v->base ? v->base->count : 0, out = 0;
    sorted_ranges *base = malloc(sizeof(*base) + (old_count + v->recent) * sizeof(jv_code_range));
    if (!base)
        return NULL;
    jv_code_range fresh[RECENT_MAX];
    memcpy(fresh, v->newest, v->recent * sizeof(*fresh));
    for (unsigned i = 1; i < v->recent; i++) /* insertion sort by start */
        for (unsigned j = i; j > 0 && fresh[j - 1].start > fresh[j].start; j--) {
            jv_code_range swap = fresh[j];
            fresh[j] = fresh[j - 1];
            fresh[j - 1] = swap;
        }
    unsigned next_fresh = 0;
    for (size_t i = 0; i < old_count; i++) {
        const jv_code_range *r = &v->base->r[i];
        if (dead_in(v, r))
            continue;
        while (next_fresh < v->recent && fresh[next_fresh].start < r->start)
            base->r[out++] = fresh[next_fresh++];
        base->r[out++] = *r;
    }
    while (next_fresh < v->recent)
        base->r[out++] = fresh[next_fresh++];
    base->count = out;
    return base;
}

static void add(const jv_code_range *range)
{
    if (range->end <= range->start || !update_lock)
        return;
    plat_mutex_lock(update_lock);
    version *next = next_version();
    if (next) {
        unsigned kept = 0; /* older recent ranges under the new one are dead */
        for (unsigned i = 0; i < next->recent; i++)
            if (!overlaps(&next->newest[i], range))
                next->newest[kept++] = next->newest[i];
        next->recent = kept;
        if (next->recent == RECENT_MAX) {
            sorted_ranges *base = merged(next);
            if (base) {
                next->base = base;
                next->recent = 0;
            }
        }
        if (next->recent < RECENT_MAX) {
            next->newest[next->recent++] = *range;
            publish(next);
        } else
            free(next); /* out of memory: the range stays unmapped */
    }
    plat_mutex_unlock(update_lock);
}

void jv_codemap_add_compiled(jmethodID method, const void *code, size_t size)
{
    jv_code_range range = {(uintptr_t)code, (uintptr_t)code + size, method, NULL};
    if (method)
        add(&range);
}

/* The one copy of a stub's name (GenerateEvents repeats them); under update_lock. */
static const char *interned(const char *name)
{
    for (size_t i = 0; i < name_count; i++)
        if (strcmp(names[i], name) == 0)
            return names[i];
    if (name_count == name_capacity) {
        size_t capacity = name_capacity ? 2 * name_capacity : 64;
        char **grown = realloc(names, capacity * sizeof(*grown));
        if (!grown)
            return NULL;
        names = grown;
        name_capacity = capacity;
    }
    size_t len = strlen(name) + 1;
    char *copy = malloc(len);
    if (copy) {
        memcpy(copy, name, len);
        names[name_count++] = copy;
    }
    return copy;
}

void jv_codemap_add_stub(const char *name, const void *code, size_t size)
{
    if (!update_lock)
        return;
    plat_mutex_lock(update_lock);
    jv_code_range range = {(uintptr_t)code, (uintptr_t)code + size, NULL, interned(name ? name : "?")};
    plat_mutex_unlock(update_lock);
    if (range.name)
        add(&range);
}

void jv_codemap_remove_compiled(jmethodID method, const void *code)
{
    if (!update_lock)
        return;
    plat_mutex_lock(update_lock);
    const version *now = atomic_load(&current);
    version *next = NULL;
    for (unsigned i = 0; now && i < now->recent && !next; i++)
        if (now->newest[i].method == method && now->newest[i].start == (uintptr_t)code && (next = next_version())) {
            memmove(&next->newest[i], &next->newest[i + 1], (next->recent - i - 1) * sizeof(*next->newest));
            next->recent--;
        }
    const jv_code_range *in_base = now && !next ? base_search(now->base, (uintptr_t)code) : NULL;
    if (in_base && in_base->method == method && in_base->start == (uintptr_t)code && (next = next_version())) {
        size_t at = (size_t)(in_base - now->base->r), count = now->base->count;
        sorted_ranges *base = malloc(sizeof(*base) + (count - 1) * sizeof(jv_code_range));
        if (base) {
            memcpy(base->r, now->base->r, at * sizeof(jv_code_range));
            memcpy(base->r + at, now->base->r + at + 1, (count - at - 1) * sizeof(jv_code_range));
            base->count = count - 1;
            next->base = base;
        } else {
            free(next); /* out of memory: the dead range keeps mapping until newer code covers it */
            next = NULL;
        }
    }
    if (next)
        publish(next);
    plat_mutex_unlock(update_lock);
}

/* The compiled methods' events: wanted, the switch jit.c registered, and whether it was thrown. */
static atomic_int compiled_wanted, compiled_started;
static void (*_Atomic compiled_start)(void);

/* Never waits: the replay delivers JIT_COMPILATION, whose monitor may look a method up at once. */
static void start_compiled_if_ready(void)
{
    void (*start)(void) = atomic_load(&compiled_start);
    if (start && atomic_load(&compiled_wanted) && !atomic_exchange(&compiled_started, 1))
        start();
}

void jv_codemap_want_compiled(void)
{
    if (atomic_load_explicit(&compiled_started, memory_order_acquire))
        return;
    atomic_store(&compiled_wanted, 1);
    start_compiled_if_ready();
}

void jv_codemap_compiled_source(void (*start)(void))
{
    atomic_store(&compiled_start, start);
    start_compiled_if_ready();
}

void jv_codemap_init(void)
{
    if (!update_lock)
        update_lock = plat_mutex_create();
}

void jv_codemap_destroy(void)
{
    version *last = atomic_exchange(&current, NULL);
    if (last) {
        free(last->base);
        free(last);
    }
    for (size_t i = 0; i < retired_count; i++)
        free(retired[i]);
    free(retired);
    retired = NULL;
    retired_count = retired_capacity = 0;
    for (size_t i = 0; i < name_count; i++)
        free(names[i]);
    free(names);
    names = NULL;
    name_count = name_capacity = 0;
    if (update_lock)
        plat_mutex_destroy(update_lock);
    update_lock = NULL;
}
