/* pprof.c - encoding a tree as pprof's profile.proto (see pprof.h). */
#include <stdlib.h>
#include <string.h>

#include "idmap.h"
#include "pprof.h"
#include "sampler.h"

/* profile.proto's field numbers */
enum { PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_LOCATION = 4, PROFILE_FUNCTION = 5,
       PROFILE_STRING_TABLE = 6, PROFILE_TIME_NANOS = 9, PROFILE_DURATION_NANOS = 10, PROFILE_PERIOD_TYPE = 11,
       PROFILE_PERIOD = 12 };
enum { VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2 };
enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3 };
enum { LABEL_KEY = 1, LABEL_STR = 2 };
enum { LOCATION_ID = 1, LOCATION_LINE = 4 };
enum { LINE_FUNCTION_ID = 1, LINE_LINE = 2 };
enum { FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4, FUNCTION_START_LINE = 5 };
enum { WIRE_VARINT = 0, WIRE_LENGTH_DELIMITED = 2 };

/* A growing byte buffer; failed once memory ran out (every later write is dropped). */
typedef struct pb_buffer {
    uint8_t *data;
    size_t size, capacity;
    int failed;
} pb_buffer;

static void pb_put(pb_buffer *b, const void *bytes, size_t size)
{
    if (b->failed || !size)
        return;
    if (b->size + size > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 256;
        while (capacity < b->size + size)
            capacity *= 2;
        uint8_t *data = realloc(b->data, capacity);
        if (!data) {
            b->failed = 1;
            return;
        }
        b->data = data, b->capacity = capacity;
    }
    memcpy(b->data + b->size, bytes, size);
    b->size += size;
}

static void pb_varint(pb_buffer *b, uint64_t value)
{
    uint8_t bytes[10];
    size_t n = 0;
    do {
        bytes[n] = (uint8_t)(value & 0x7f);
        value >>= 7;
        bytes[n++] |= value ? 0x80 : 0;
    } while (value);
    pb_put(b, bytes, n);
}

/* A varint field (int64 and uint64 alike: pprof's are never negative). */
static void pb_uint(pb_buffer *b, unsigned field, uint64_t value)
{
    pb_varint(b, (uint64_t)field << 3 | WIRE_VARINT);
    pb_varint(b, value);
}

/* A length-delimited field: a string, a packed array or an embedded message. */
static void pb_bytes(pb_buffer *b, unsigned field, const void *bytes, size_t size)
{
    pb_varint(b, (uint64_t)field << 3 | WIRE_LENGTH_DELIMITED);
    pb_varint(b, size);
    pb_put(b, bytes, size);
}

/* Embeds message (then emptied, for the next) as field of b. */
static void pb_message(pb_buffer *b, unsigned field, pb_buffer *message)
{
    b->failed |= message->failed;
    pb_bytes(b, field, message->data, message->size);
    message->size = 0;
}

/* A location: one line of one function. */
typedef struct location {
    uint32_t function; /* its id */
    unsigned long line;
} location;

/* Distinct items (strings, locations) by index, with a hash of their indices (UINT32_MAX: empty)
 * kept at most half full, so that each is stored once. */
typedef struct interned {
    void *items;
    size_t item_size, count, capacity;
    uint32_t *slots;
    size_t slot_count;
    uint64_t (*hash)(const void *item);
    int (*equal)(const void *a, const void *b);
} interned;

/* Makes room for one more item: the array, and the hash of indices. */
static int make_room(interned *t)
{
    if (t->count == t->capacity) {
        size_t capacity = t->capacity ? 2 * t->capacity : 256;
        void *items = realloc(t->items, capacity * t->item_size);
        if (!items)
            return -1;
        t->items = items, t->capacity = capacity;
    }
    if (2 * (t->count + 1) <= t->slot_count)
        return 0;
    size_t slot_count = t->slot_count ? 2 * t->slot_count : 512;
    uint32_t *slots = malloc(slot_count * sizeof(*slots));
    if (!slots)
        return -1;
    memset(slots, 0xff, slot_count * sizeof(*slots)); /* UINT32_MAX: empty */
    for (size_t i = 0; i < t->count; i++) {
        size_t at = t->hash((char *)t->items + i * t->item_size) & (slot_count - 1);
        while (slots[at] != UINT32_MAX)
            at = (at + 1) & (slot_count - 1);
        slots[at] = (uint32_t)i;
    }
    free(t->slots);
    t->slots = slots, t->slot_count = slot_count;
    return 0;
}

/* The index of item, a copy added when it has none; UINT32_MAX out of memory. */
static uint32_t intern(interned *t, const void *item)
{
    if (make_room(t))
        return UINT32_MAX;
    size_t at = t->hash(item) & (t->slot_count - 1);
    for (; t->slots[at] != UINT32_MAX; at = (at + 1) & (t->slot_count - 1))
        if (t->equal((char *)t->items + t->slots[at] * t->item_size, item))
            return t->slots[at];
    memcpy((char *)t->items + t->count * t->item_size, item, t->item_size);
    return t->slots[at] = (uint32_t)t->count++;
}

static uint64_t string_hash(const void *item)
{
    uint64_t hash = 14695981039346656037ull; /* FNV-1a */
    for (const char *text = *(const char *const *)item; *text; text++)
        hash = (hash ^ (unsigned char)*text) * 1099511628211ull;
    return hash;
}

static int string_equal(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b) == 0;
}

static uint64_t location_hash(const void *item)
{
    const location *l = item;
    return ((uint64_t)l->function * 0x9E3779B97F4A7C15ull) ^ l->line;
}

static int location_equal(const void *a, const void *b)
{
    const location *x = a, *y = b;
    return x->function == y->function && x->line == y->line;
}

/* The profile being encoded: the string table, one function per method, one location per line of
 * a function that a frame was at. */
typedef struct encoder {
    const jp_pprof_profile *profile;
    pb_buffer out, message, inner;
    pb_buffer functions, function_list; /* one function; all of them, written after the locations */
    interned strings;      /* const char *, each written once (the texts outlive the encoder) */
    jp_idmap function_ids; /* MethodID -> function id, from 1 */
    MethodID *methods;     /* by function id - 1 */
    size_t method_count, method_capacity;
    interned locations;       /* location, by location id - 1 */
    uint64_t *node_locations; /* the tree's node -> its location id; 0 until asked */
    int failed;
} encoder;

/* The string's index in the string table, each text once (text must outlive the encoder). */
static uint64_t string_index(encoder *e, const char *text)
{
    uint32_t index = intern(&e->strings, &text);
    if (index == UINT32_MAX) {
        e->failed = 1;
        return 0;
    }
    return index;
}

/* The function id of method, given one when it has none. */
static uint64_t function_id(encoder *e, MethodID method)
{
    jp_idmap_entry *entry = jp_idmap_insert(&e->function_ids, method);
    if (!entry) {
        e->failed = 1;
        return 0;
    }
    if (entry->value)
        return entry->value;
    if (e->method_count == e->method_capacity) {
        size_t capacity = e->method_capacity ? 2 * e->method_capacity : 256;
        MethodID *methods = realloc(e->methods, capacity * sizeof(*methods));
        if (!methods) {
            e->failed = 1;
            return 0;
        }
        e->methods = methods, e->method_capacity = capacity;
    }
    e->methods[e->method_count++] = method;
    return entry->value = e->method_count;
}

/* The location id of a node of the tree: its method's function at the line of its offset (the
 * method's first line when it has none), given one when that line has none; 0 when out of memory. */
static uint64_t node_location(encoder *e, uint32_t node)
{
    if (e->node_locations[node])
        return e->node_locations[node];
    const jp_pprof_profile *p = e->profile;
    const jp_node *n = &p->tree->nodes[node];
    location wanted = {(uint32_t)function_id(e, n->method), 0};
    if (p->line)
        wanted.line = p->line(p->name_context, n->method, n->offset);
    else if (p->source)
        p->source(p->name_context, n->method, &wanted.line);
    uint32_t index = wanted.function ? intern(&e->locations, &wanted) : UINT32_MAX;
    if (index == UINT32_MAX) {
        e->failed = 1;
        return 0;
    }
    return e->node_locations[node] = (uint64_t)index + 1;
}

static void value_type(encoder *e, unsigned field, const char *type, const char *unit)
{
    pb_uint(&e->message, VALUE_TYPE_TYPE, string_index(e, type));
    pb_uint(&e->message, VALUE_TYPE_UNIT, string_index(e, unit));
    pb_message(&e->out, field, &e->message);
}

/* The bytes of each node of the allocations tree (by index), from the bytes tree, which holds
 * every path: the bytes of a path the allocations tree folded go where it was folded (its
 * caller's JP_FOLDED_PATHS), as its allocations did.  NULL out of memory. */
static uint64_t *bytes_by_node(const jp_pprof_profile *p)
{
    const jp_tree *bytes_tree = p->bytes;
    size_t count = bytes_tree->count ? bytes_tree->count : 1;
    uint64_t *bytes = calloc(p->tree->count, sizeof(*bytes));
    uint32_t *map = malloc(count * sizeof(*map));  /* bytes node -> the tree's node of its path, or its caller's */
    unsigned char *folded = calloc(count, 1);      /* ... its caller's: the path and all below it are folded */
    if (!bytes || !map || !folded) {
        free(bytes), free(map), free(folded);
        return NULL;
    }
    map[JP_ROOT] = JP_ROOT;
    for (uint32_t i = 1; i < bytes_tree->count; i++) { /* parents come before their children */
        uint32_t parent = bytes_tree->nodes[i].parent;
        uint32_t node = folded[parent] ? JP_NO_NODE : jp_tree_find(p->tree, map[parent], bytes_tree->nodes[i].method);
        folded[i] = node == JP_NO_NODE;
        if (folded[i] && !folded[parent]) /* the outermost of a folded path */
            node = jp_tree_find(p->tree, map[parent], JP_FOLDED_PATHS);
        map[i] = node != JP_NO_NODE ? node : map[parent];
        bytes[map[i]] += bytes_tree->nodes[i].self;
    }
    free(map), free(folded);
    return bytes;
}

/* One sample per node with a weight: its path's locations, innermost first, and its two values. */
static void encode_samples(encoder *e, const uint64_t *bytes)
{
    const jp_pprof_profile *p = e->profile;
    const jp_tree *tree = p->tree;
    for (uint32_t i = 1; i < tree->count && !e->failed; i++) {
        const jp_node *node = &tree->nodes[i];
        uint64_t first, second;
        if (p->kind == JP_PPROF_SAMPLES)
            first = node->self, second = node->self * (uint64_t)p->period;
        else if (p->kind == JP_PPROF_CALLS)
            first = node->calls, second = node->self;
        else
            first = (node->self + p->scale / 2) / p->scale, second = bytes[i];
        if (!first && !second)
            continue;
        /* A wall-mode sample's last frame is the thread's state: a label, not a location. */
        const char *state = p->kind == JP_PPROF_SAMPLES ? jp_sampler_state_label(node->method) : NULL;
        for (uint32_t at = state ? node->parent : i; at != JP_ROOT; at = tree->nodes[at].parent)
            pb_varint(&e->inner, node_location(e, at));
        pb_message(&e->message, SAMPLE_LOCATION_ID, &e->inner);
        pb_varint(&e->inner, first);
        pb_varint(&e->inner, second);
        pb_message(&e->message, SAMPLE_VALUE, &e->inner);
        if (state) {
            pb_uint(&e->inner, LABEL_KEY, string_index(e, "thread state"));
            pb_uint(&e->inner, LABEL_STR, string_index(e, state));
            pb_message(&e->message, SAMPLE_LABEL, &e->inner);
        }
        pb_message(&e->out, PROFILE_SAMPLE, &e->message);
    }
}

/* The locations, each one line of its function; then the functions: their names, their source
 * files and first lines. */
static void encode_locations_and_functions(encoder *e)
{
    const jp_pprof_profile *p = e->profile;
    const location *locations = e->locations.items;
    for (size_t i = 0; i < e->locations.count && !e->failed; i++) {
        pb_uint(&e->message, LOCATION_ID, i + 1);
        pb_uint(&e->inner, LINE_FUNCTION_ID, locations[i].function);
        if (locations[i].line)
            pb_uint(&e->inner, LINE_LINE, locations[i].line);
        pb_message(&e->message, LOCATION_LINE, &e->inner);
        pb_message(&e->out, PROFILE_LOCATION, &e->message);
    }
    for (size_t i = 0; i < e->method_count && !e->failed; i++) {
        unsigned long first_line = 0;
        const char *file = p->source ? p->source(p->name_context, e->methods[i], &first_line) : NULL;
        pb_uint(&e->functions, FUNCTION_ID, i + 1);
        pb_uint(&e->functions, FUNCTION_NAME, string_index(e, p->name(p->name_context, e->methods[i])));
        pb_uint(&e->functions, FUNCTION_SYSTEM_NAME, string_index(e, p->system_name(p->name_context, e->methods[i])));
        if (file)
            pb_uint(&e->functions, FUNCTION_FILENAME, string_index(e, file));
        if (first_line)
            pb_uint(&e->functions, FUNCTION_START_LINE, first_line);
        pb_message(&e->function_list, PROFILE_FUNCTION, &e->functions);
    }
    e->out.failed |= e->function_list.failed;
    pb_put(&e->out, e->function_list.data, e->function_list.size); /* the functions after the locations */
}

int jp_pprof_encode(const jp_pprof_profile *p, uint8_t **data, size_t *size)
{
    encoder e;
    memset(&e, 0, sizeof(e));
    e.profile = p;
    e.strings = (interned){.item_size = sizeof(const char *), .hash = string_hash, .equal = string_equal};
    e.locations = (interned){.item_size = sizeof(location), .hash = location_hash, .equal = location_equal};
    string_index(&e, ""); /* index 0, as the format requires */
    uint64_t *bytes = NULL;
    if ((p->kind == JP_PPROF_ALLOCATIONS || p->kind == JP_PPROF_LOCKS) && !(bytes = bytes_by_node(p)))
        e.failed = 1;
    if (!(e.node_locations = calloc(p->tree->count ? p->tree->count : 1, sizeof(*e.node_locations))))
        e.failed = 1;
    const char *time = p->kind == JP_PPROF_CALLS && p->wall_time ? "wall" : "cpu";
    if (p->kind == JP_PPROF_SAMPLES) { /* each sample: a period of processor time, or of one thread's wall time */
        value_type(&e, PROFILE_SAMPLE_TYPE, "samples", "count");
        value_type(&e, PROFILE_SAMPLE_TYPE, p->wall_time ? "wall" : "cpu", "nanoseconds");
        value_type(&e, PROFILE_PERIOD_TYPE, p->wall_time ? "wall" : "cpu", "nanoseconds");
    } else if (p->kind == JP_PPROF_CALLS) {
        value_type(&e, PROFILE_SAMPLE_TYPE, "calls", "count");
        value_type(&e, PROFILE_SAMPLE_TYPE, time, "nanoseconds");
        value_type(&e, PROFILE_PERIOD_TYPE, "calls", "count"); /* every call */
    } else if (p->kind == JP_PPROF_LOCKS) { /* every contended wait */
        value_type(&e, PROFILE_SAMPLE_TYPE, "contentions", "count");
        value_type(&e, PROFILE_SAMPLE_TYPE, "delay", "nanoseconds");
        value_type(&e, PROFILE_PERIOD_TYPE, "contentions", "count");
    } else {
        value_type(&e, PROFILE_SAMPLE_TYPE, "alloc_objects", "count");
        value_type(&e, PROFILE_SAMPLE_TYPE, "alloc_space", "bytes");
        value_type(&e, PROFILE_PERIOD_TYPE, "space", "bytes");
    }
    pb_uint(&e.out, PROFILE_PERIOD, p->kind == JP_PPROF_CALLS ? 1 : p->period > 0 ? (uint64_t)p->period : 1);
    pb_uint(&e.out, PROFILE_TIME_NANOS, (uint64_t)p->time_nanos);
    pb_uint(&e.out, PROFILE_DURATION_NANOS, (uint64_t)p->duration_nanos);
    if (!e.failed)
        encode_samples(&e, bytes);
    encode_locations_and_functions(&e);
    const char *const *strings = e.strings.items;
    for (size_t i = 0; i < e.strings.count && !e.failed; i++)
        pb_bytes(&e.out, PROFILE_STRING_TABLE, strings[i], strlen(strings[i]));
    int failed = e.failed || e.out.failed || e.message.failed || e.inner.failed || e.functions.failed;
    free(bytes);
    free(e.message.data), free(e.inner.data), free(e.functions.data), free(e.function_list.data);
    free(e.strings.items), free(e.strings.slots), free(e.methods);
    free(e.locations.items), free(e.locations.slots), free(e.node_locations);
    jp_idmap_free(&e.function_ids);
    if (failed) {
        free(e.out.data);
        return -1;
    }
    *data = e.out.data, *size = e.out.size;
    return 0;
}
