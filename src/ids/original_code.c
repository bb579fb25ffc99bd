/*
 * original_code.c - the records of rewritten methods and the bridge's methods (see original_code.h).
 *
 * Records hang off a fixed hash of their method's full name; adding and finding take one
 * mutex (a method's record is looked for once, when its code is first read).  A record is one
 * allocation: the key, the class file's code and, per original instruction in code order, its
 * pc, where its code starts in the rewrite (target) and where the instruction itself is (moved).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ids/original_code.h"
#include "platform/platform.h"

#define BUCKETS 4096
#define BRIDGE_METHODS 8

struct jv_rewrite {
    struct jv_rewrite *next;
    const char *key;         /* "class.name(descriptor)" */
    const uint8_t *original;
    uint32_t original_length, rewritten_length;
    uint32_t count;          /* original instructions */
    const uint32_t *pc, *target, *moved; /* count + 1 entries: the last is the end of the body */
};

static plat_mutex *lock;
static jv_rewrite *buckets[BUCKETS];
static atomic_int recorded;
static _Atomic(jmethodID) bridge_methods[BRIDGE_METHODS];

void jv_rewrites_init(void)
{
    if (!lock)
        lock = plat_mutex_create();
}

static uint32_t hash_of(const char *key)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *key; key++)
        h = (h ^ (uint8_t)*key) * 16777619u;
    return h & (BUCKETS - 1);
}

/* "class.name(descriptor)" in buf; 0 when it does not fit. */
static int make_key(char *buf, size_t size, const char *class_name, const char *name, const char *descriptor)
{
    size_t c = strlen(class_name), n = strlen(name), d = strlen(descriptor);
    if (c + n + d + 2 > size)
        return 0;
    memcpy(buf, class_name, c);
    buf[c] = '.';
    memcpy(buf + c + 1, name, n);
    memcpy(buf + c + 1 + n, descriptor, d + 1);
    return 1;
}

void jv_rewrite_record(const char *class_name, const char *name, const char *descriptor, const cf_offset_map *map)
{
    char key[1024];
    if (!lock || !make_key(key, sizeof(key), class_name, name, descriptor))
        return; /* such a method keeps showing its rewrite */
    uint32_t count = 0;
    for (uint32_t pc = 0; pc < map->original_length; pc++)
        count += map->moved[pc] != UINT32_MAX;
    size_t key_size = strlen(key) + 1, tables = 3 * ((size_t)count + 1) * sizeof(uint32_t);
    jv_rewrite *r = malloc(sizeof(*r) + tables + map->original_length + key_size);
    if (!r)
        return;
    uint32_t *pc = (uint32_t *)(r + 1), *target = pc + count + 1, *moved = target + count + 1;
    uint8_t *original = (uint8_t *)(moved + count + 1);
    char *key_copy = (char *)original + map->original_length;
    uint32_t k = 0;
    for (uint32_t at = 0; at <= map->original_length; at++)
        if (map->moved[at] != UINT32_MAX) {
            pc[k] = at;
            target[k] = map->target[at];
            moved[k++] = map->moved[at];
        }
    memcpy(original, map->original, map->original_length);
    memcpy(key_copy, key, key_size);
    *r = (jv_rewrite){NULL, key_copy, original, map->original_length, map->rewritten_length, count, pc, target, moved};
    uint32_t h = hash_of(key);
    plat_mutex_lock(lock);
    r->next = buckets[h];
    buckets[h] = r;
    plat_mutex_unlock(lock);
    atomic_store(&recorded, 1);
}

int jv_rewrites_recorded(void)
{
    return atomic_load_explicit(&recorded, memory_order_relaxed);
}

/* Branches the rewriter may turn into others (goto into goto_w, a conditional branch into its
 * opposite over a goto_w): ifeq .. jsr and ifnull, ifnonnull. */
static int may_change(uint8_t op)
{
    return (op >= 0x99 && op <= 0xa8) || op == 0xc6 || op == 0xc7;
}

static int matches(const jv_rewrite *r, const uint8_t *code, uint32_t length)
{
    if (r->rewritten_length != length)
        return 0;
    for (uint32_t k = 0; k < r->count; k++) {
        uint8_t op = r->original[r->pc[k]];
        if (!may_change(op) && code[r->moved[k]] != op)
            return 0;
    }
    return 1;
}

/* The record of the key's method whose rewrite is code, or NULL.  Under lock. */
static const jv_rewrite *find_locked(const char *key, const uint8_t *code, uint32_t length)
{
    for (const jv_rewrite *r = buckets[hash_of(key)]; r; r = r->next)
        if (strcmp(r->key, key) == 0 && matches(r, code, length))
            return r;
    return NULL;
}

const jv_rewrite *jv_rewrite_find(const char *class_name, const char *name, const char *descriptor,
                                  const uint8_t *code, uint32_t length)
{
    char key[1024];
    if (!lock || !make_key(key, sizeof(key), class_name, name, descriptor))
        return NULL;
    plat_mutex_lock(lock);
    const jv_rewrite *found = find_locked(key, code, length);
    plat_mutex_unlock(lock);
    return found;
}

void jv_rewrite_record_again(const char *class_name, const char *name, const char *descriptor,
                             const cf_offset_map *map)
{
    char key[1024];
    if (!lock || !make_key(key, sizeof(key), class_name, name, descriptor))
        return;
    plat_mutex_lock(lock);
    const jv_rewrite *first = find_locked(key, map->original, map->original_length);
    plat_mutex_unlock(lock);
    if (!first) { /* map->original is the class file's code */
        jv_rewrite_record(class_name, name, descriptor, map);
        return;
    }
    /* Each of the class file's instructions: where the first rewrite put it, and where the
     * second put that.  Both maps know every instruction start of the code they rewrote. */
    uint32_t *target = malloc(2 * ((size_t)first->original_length + 1) * sizeof(uint32_t));
    if (!target)
        return; /* the method keeps showing its rewrite */
    uint32_t *moved = target + first->original_length + 1;
    memset(target, 0xff, 2 * ((size_t)first->original_length + 1) * sizeof(uint32_t));
    int composed = 1;
    for (uint32_t k = 0; k <= first->count && composed; k++) {
        uint32_t t = first->target[k], m = first->moved[k];
        composed = t <= map->original_length && m <= map->original_length && map->target[t] != UINT32_MAX &&
                   map->moved[m] != UINT32_MAX;
        if (composed) {
            target[first->pc[k]] = map->target[t];
            moved[first->pc[k]] = map->moved[m];
        }
    }
    cf_offset_map both = {first->original, first->original_length, map->rewritten_length, target, moved};
    if (composed)
        jv_rewrite_record(class_name, name, descriptor, &both);
    free(target);
}

const uint8_t *jv_rewrite_original(const jv_rewrite *r, uint32_t *length)
{
    *length = r->original_length;
    return r->original;
}

uint32_t jv_rewrite_offset(const jv_rewrite *r, uint32_t offset, int *starts)
{
    *starts = 0;
    if (!r->count)
        return 0;
    if (offset >= r->target[r->count]) /* the injected handler */
        return r->pc[r->count - 1];
    uint32_t lo = 0, hi = r->count; /* lo ends as the number of instructions whose code starts at or before offset */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->target[mid] <= offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t k = lo ? lo - 1 : 0; /* before the first: the entry call */
    *starts = r->moved[k] == offset;
    return r->pc[k];
}

void jv_rewrite_hide_bridge_method(jmethodID method)
{
    unsigned slot = 0;
    while (slot < BRIDGE_METHODS && atomic_load(&bridge_methods[slot]) && atomic_load(&bridge_methods[slot]) != method)
        slot++;
    if (slot < BRIDGE_METHODS && method)
        atomic_store(&bridge_methods[slot], method);
}

int jv_rewrite_is_bridge_method(jmethodID method)
{
    for (unsigned i = 0; i < BRIDGE_METHODS && method; i++)
        if (atomic_load_explicit(&bridge_methods[i], memory_order_relaxed) == method)
            return 1;
    return 0;
}
