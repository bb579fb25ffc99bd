/* pprof.c - encoding a tree as pprof's profile.proto (see pprof.h). */
#include <stdlib.h>
#include <string.h>

#include "idmap.h"
#include "pprof.h"

/* profile.proto's field numbers */
enum { PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_LOCATION = 4, PROFILE_FUNCTION = 5,
       PROFILE_STRING_TABLE = 6, PROFILE_TIME_NANOS = 9, PROFILE_DURATION_NANOS = 10, PROFILE_PERIOD_TYPE = 11,
       PROFILE_PERIOD = 12 };
enum { VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2 };
enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2 };
enum { LOCATION_ID = 1, LOCATION_LINE = 4 };
enum { LINE_FUNCTION_ID = 1 };
enum { FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3 };
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

/* The profile being encoded: the string table, and one function (and location) per method. */
typedef struct encoder {
    const jp_pprof_profile *profile;
    pb_buffer out, message, inner;
    const char **strings;
    size_t string_count, string_capacity;
    jp_idmap function_ids; /* MethodID -> function id (the location's id too), from 1 */
    MethodID *methods;     /* by function id - 1 */
    size_t method_count, method_capacity;
    int failed;
} encoder;

/* The string's index in the string table (text must outlive the encoder). */
static uint64_t string_index(encoder *e, const char *text)
{
    for (size_t i = 0; i < e->string_count && i < 16; i++) /* the few fixed strings come first */
        if (strcmp(e->strings[i], text) == 0)
            return i;
    if (e->string_count == e->string_capacity) {
        size_t capacity = e->string_capacity ? 2 * e->string_capacity : 64;
        const char **strings = realloc(e->strings, capacity * sizeof(*strings));
        if (!strings) {
            e->failed = 1;
            return 0;
        }
        e->strings = strings, e->string_capacity = capacity;
    }
    e->strings[e->string_count] = text;
    return e->string_count++;
}

/* The function (and location) id of method, given one when it has none. */
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

static void value_type(encoder *e, unsigned field, const char *type, const char *unit)
{
    pb_uint(&e->message, VALUE_TYPE_TYPE, string_index(e, type));
    pb_uint(&e->message, VALUE_TYPE_UNIT, string_index(e, unit));
    pb_message(&e->out, field, &e->message);
}

/* The node of tree with the same path as node from of other (whose parents are mapped already,
 * in map), or JP_NO_NODE. */
static uint32_t same_path(const jp_tree *tree, const uint32_t *map, const jp_tree *other, uint32_t from)
{
    uint32_t parent = map[other->nodes[from].parent];
    if (parent == JP_NO_NODE)
        return JP_NO_NODE;
    for (uint32_t child = tree->nodes[parent].first_child; child != JP_NO_NODE; child = tree->nodes[child].next_sibling)
        if (tree->nodes[child].method == other->nodes[from].method)
            return child;
    return JP_NO_NODE;
}

/* The bytes of each node of the allocations tree (by index), from the bytes tree; NULL out of memory. */
static uint64_t *bytes_by_node(const jp_pprof_profile *p)
{
    uint64_t *bytes = calloc(p->tree->count, sizeof(*bytes));
    uint32_t *map = malloc((p->bytes->count ? p->bytes->count : 1) * sizeof(*map)); /* bytes node -> tree node */
    if (!bytes || !map) {
        free(bytes), free(map);
        return NULL;
    }
    map[JP_ROOT] = JP_ROOT;
    for (uint32_t i = 1; i < p->bytes->count; i++) { /* parents come before their children */
        map[i] = same_path(p->tree, map, p->bytes, i);
        if (map[i] != JP_NO_NODE)
            bytes[map[i]] = p->bytes->nodes[i].self;
    }
    free(map);
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
        for (uint32_t at = i; at != JP_ROOT; at = tree->nodes[at].parent)
            pb_varint(&e->inner, function_id(e, tree->nodes[at].method));
        pb_message(&e->message, SAMPLE_LOCATION_ID, &e->inner);
        pb_varint(&e->inner, first);
        pb_varint(&e->inner, second);
        pb_message(&e->message, SAMPLE_VALUE, &e->inner);
        pb_message(&e->out, PROFILE_SAMPLE, &e->message);
    }
}

/* A location per method, its one line naming the function (whose id is the location's). */
static void encode_locations_and_functions(encoder *e)
{
    const jp_pprof_profile *p = e->profile;
    for (size_t i = 0; i < e->method_count && !e->failed; i++) {
        uint64_t id = i + 1;
        pb_uint(&e->message, LOCATION_ID, id);
        pb_uint(&e->inner, LINE_FUNCTION_ID, id);
        pb_message(&e->message, LOCATION_LINE, &e->inner);
        pb_message(&e->out, PROFILE_LOCATION, &e->message);
    }
    for (size_t i = 0; i < e->method_count && !e->failed; i++) {
        pb_uint(&e->message, FUNCTION_ID, i + 1);
        pb_uint(&e->message, FUNCTION_NAME, string_index(e, p->name(p->name_context, e->methods[i])));
        pb_uint(&e->message, FUNCTION_SYSTEM_NAME, string_index(e, p->system_name(p->name_context, e->methods[i])));
        pb_message(&e->out, PROFILE_FUNCTION, &e->message);
    }
}

int jp_pprof_encode(const jp_pprof_profile *p, uint8_t **data, size_t *size)
{
    encoder e;
    memset(&e, 0, sizeof(e));
    e.profile = p;
    string_index(&e, ""); /* index 0, as the format requires */
    uint64_t *bytes = NULL;
    if (p->kind == JP_PPROF_ALLOCATIONS && !(bytes = bytes_by_node(p)))
        e.failed = 1;
    const char *time = p->kind == JP_PPROF_CALLS && p->wall_time ? "wall" : "cpu";
    if (p->kind == JP_PPROF_SAMPLES) {
        value_type(&e, PROFILE_SAMPLE_TYPE, "samples", "count");
        value_type(&e, PROFILE_SAMPLE_TYPE, "cpu", "nanoseconds");
        value_type(&e, PROFILE_PERIOD_TYPE, "cpu", "nanoseconds");
    } else if (p->kind == JP_PPROF_CALLS) {
        value_type(&e, PROFILE_SAMPLE_TYPE, "calls", "count");
        value_type(&e, PROFILE_SAMPLE_TYPE, time, "nanoseconds");
        value_type(&e, PROFILE_PERIOD_TYPE, "calls", "count"); /* every call */
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
    for (size_t i = 0; i < e.string_count && !e.failed; i++)
        pb_bytes(&e.out, PROFILE_STRING_TABLE, e.strings[i], strlen(e.strings[i]));
    int failed = e.failed || e.out.failed || e.message.failed || e.inner.failed;
    free(bytes);
    free(e.message.data), free(e.inner.data);
    free(e.strings), free(e.methods);
    jp_idmap_free(&e.function_ids);
    if (failed) {
        free(e.out.data);
        return -1;
    }
    *data = e.out.data, *size = e.out.size;
    return 0;
}
