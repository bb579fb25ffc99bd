/*
 * constpool.c - the constant pool: reading every tag up to Java 25, checking that
 * entries refer to entries of the right kind, writing it back unchanged, and appending
 * the entries the instrumenter needs (reusing equal entries already present).
 */
#include <string.h>

#include "classfile/internal.h"

int cf_cp_has(const cf_class *cls, uint32_t index, uint8_t tag)
{
    return index > 0 && index < cls->cp_count && cls->cp[index].tag == tag;
}

int cf_cp_utf8_is(const cf_class *cls, uint32_t index, const char *text)
{
    if (!cf_cp_has(cls, index, CF_UTF8))
        return 0;
    size_t n = strlen(text);
    const cf_const *c = &cls->cp[index];
    return c->v.utf8.length == n && memcmp(c->v.utf8.bytes, text, n) == 0;
}

/* Whether the reference fields of entry c point at entries of the kinds its tag needs. */
static int references_valid(const cf_class *cls, const cf_const *c)
{
    uint16_t a = c->v.ref.first, b = c->v.ref.second;
    switch (c->tag) {
    case CF_CLASS:
    case CF_STRING:
    case CF_METHOD_TYPE:
    case CF_MODULE:
    case CF_PACKAGE:
        return cf_cp_has(cls, a, CF_UTF8);
    case CF_FIELDREF:
    case CF_METHODREF:
    case CF_INTERFACE_METHODREF:
        return cf_cp_has(cls, a, CF_CLASS) && cf_cp_has(cls, b, CF_NAME_AND_TYPE);
    case CF_NAME_AND_TYPE:
        return cf_cp_has(cls, a, CF_UTF8) && cf_cp_has(cls, b, CF_UTF8);
    case CF_DYNAMIC:
    case CF_INVOKE_DYNAMIC:
        return cf_cp_has(cls, b, CF_NAME_AND_TYPE);
    case CF_METHOD_HANDLE: {
        uint16_t r = c->v.handle.reference;
        uint8_t kind = c->v.handle.kind;
        if (kind < 1 || kind > 9 || r == 0 || r >= cls->cp_count)
            return 0;
        uint8_t t = cls->cp[r].tag;
        return kind <= 4 ? t == CF_FIELDREF : (t == CF_METHODREF || t == CF_INTERFACE_METHODREF);
    }
    default:
        return 1;
    }
}

int cf_cp_parse(cf_class *cls, cf_reader *r, cf_error *error)
{
    uint16_t count = cf_read_u2(r);
    if (r->failed || count == 0)
        return cf_fail(error, "truncated or empty constant pool");
    cls->cp_count = count;
    cls->cp_capacity = count;
    cls->cp = cf_arena_alloc(cls->arena, sizeof(cf_const) * count);
    if (!cls->cp)
        return cf_fail(error, "out of memory");
    for (uint32_t i = 1; i < count; i++) {
        cf_const *c = &cls->cp[i];
        c->tag = cf_read_u1(r);
        switch (c->tag) {
        case CF_UTF8:
            c->v.utf8.length = cf_read_u2(r);
            c->v.utf8.bytes = cf_read_bytes(r, c->v.utf8.length);
            break;
        case CF_INTEGER:
        case CF_FLOAT:
            c->v.bits = cf_read_u4(r);
            break;
        case CF_LONG:
        case CF_DOUBLE:
            c->v.wide_bits = (uint64_t)cf_read_u4(r) << 32;
            c->v.wide_bits |= cf_read_u4(r);
            if (++i >= count) /* the entry takes two slots; the second stays tag 0 */
                return cf_fail(error, "8-byte constant in the last pool slot");
            break;
        case CF_CLASS:
        case CF_STRING:
        case CF_METHOD_TYPE:
        case CF_MODULE:
        case CF_PACKAGE:
            c->v.ref.first = cf_read_u2(r);
            break;
        case CF_FIELDREF:
        case CF_METHODREF:
        case CF_INTERFACE_METHODREF:
        case CF_NAME_AND_TYPE:
        case CF_DYNAMIC:
        case CF_INVOKE_DYNAMIC:
            c->v.ref.first = cf_read_u2(r);
            c->v.ref.second = cf_read_u2(r);
            break;
        case CF_METHOD_HANDLE:
            c->v.handle.kind = cf_read_u1(r);
            c->v.handle.reference = cf_read_u2(r);
            break;
        default:
            if (r->failed)
                break;
            return cf_fail(error, "unknown constant pool tag %u at index %u", c->tag, i);
        }
        if (r->failed)
            return cf_fail(error, "truncated constant pool at index %u", i);
    }
    for (uint32_t i = 1; i < count; i++)
        if (!references_valid(cls, &cls->cp[i]))
            return cf_fail(error, "constant pool entry %u (tag %u) refers to a wrong entry", i, cls->cp[i].tag);
    return 0;
}

void cf_cp_write(const cf_class *cls, cf_buffer *b)
{
    cf_put_u2(b, cls->cp_count);
    for (uint32_t i = 1; i < cls->cp_count; i++) {
        const cf_const *c = &cls->cp[i];
        if (c->tag == 0)
            continue; /* second slot of a Long or Double */
        cf_put_u1(b, c->tag);
        switch (c->tag) {
        case CF_UTF8:
            cf_put_u2(b, c->v.utf8.length);
            cf_put_bytes(b, c->v.utf8.bytes, c->v.utf8.length);
            break;
        case CF_INTEGER:
        case CF_FLOAT:
            cf_put_u4(b, c->v.bits);
            break;
        case CF_LONG:
        case CF_DOUBLE:
            cf_put_u4(b, (uint32_t)(c->v.wide_bits >> 32));
            cf_put_u4(b, (uint32_t)c->v.wide_bits);
            break;
        case CF_METHOD_HANDLE:
            cf_put_u1(b, c->v.handle.kind);
            cf_put_u2(b, c->v.handle.reference);
            break;
        case CF_FIELDREF:
        case CF_METHODREF:
        case CF_INTERFACE_METHODREF:
        case CF_NAME_AND_TYPE:
        case CF_DYNAMIC:
        case CF_INVOKE_DYNAMIC:
            cf_put_u2(b, c->v.ref.first);
            cf_put_u2(b, c->v.ref.second);
            break;
        default: /* Class, String, MethodType, Module, Package */
            cf_put_u2(b, c->v.ref.first);
            break;
        }
    }
}

/* ---- Lookup: a hash index over the entries the instrumenter reuses ---------------------- */

static int indexed(uint8_t tag)
{
    return tag == CF_UTF8 || tag == CF_INTEGER || tag == CF_CLASS || tag == CF_NAME_AND_TYPE ||
           tag == CF_FIELDREF || tag == CF_METHODREF || tag == CF_INTERFACE_METHODREF;
}

static uint32_t entry_hash(const cf_const *c)
{
    uint32_t h = 2166136261u ^ c->tag; /* FNV-1a */
    if (c->tag == CF_UTF8)
        for (uint32_t i = 0; i < c->v.utf8.length; i++)
            h = (h ^ c->v.utf8.bytes[i]) * 16777619u;
    else if (c->tag == CF_INTEGER)
        h = (h ^ c->v.bits) * 16777619u;
    else
        h = (((h ^ c->v.ref.first) * 16777619u) ^ c->v.ref.second) * 16777619u;
    return h ^ (h >> 15);
}

static int entries_equal(const cf_const *a, const cf_const *b)
{
    if (a->tag != b->tag)
        return 0;
    if (a->tag == CF_UTF8)
        return a->v.utf8.length == b->v.utf8.length && memcmp(a->v.utf8.bytes, b->v.utf8.bytes, a->v.utf8.length) == 0;
    if (a->tag == CF_INTEGER)
        return a->v.bits == b->v.bits;
    return a->v.ref.first == b->v.ref.first && a->v.ref.second == b->v.ref.second;
}

/* The slot of the first entry equal to probe, or the empty slot where it would go. */
static uint16_t *lookup_slot(const cf_class *cls, const cf_const *probe)
{
    for (uint32_t i = entry_hash(probe) & cls->cp_lookup_mask;; i = (i + 1) & cls->cp_lookup_mask) {
        uint16_t *slot = &cls->cp_lookup[i];
        if (!*slot || entries_equal(&cls->cp[*slot], probe))
            return slot;
    }
}

/* (Re)builds the index with room for twice the pool; the lowest index of equal entries wins, as a scan would find. */
static int build_lookup(cf_class *cls)
{
    uint32_t size = 64;
    while (size < 2u * (cls->cp_count + 16u))
        size *= 2;
    uint16_t *slots = cf_arena_alloc(cls->arena, sizeof(uint16_t) * size);
    if (!slots)
        return 0;
    cls->cp_lookup = slots;
    cls->cp_lookup_mask = size - 1;
    cls->cp_lookup_used = 0;
    for (uint32_t i = 1; i < cls->cp_count; i++) {
        if (!indexed(cls->cp[i].tag))
            continue;
        uint16_t *slot = lookup_slot(cls, &cls->cp[i]);
        if (!*slot) {
            *slot = (uint16_t)i;
            cls->cp_lookup_used++;
        }
    }
    return 1;
}

/* Appends entry, growing the pool; its index, or 0 when the pool is full. */
static uint16_t append(cf_class *cls, const cf_const *entry)
{
    if (cls->cp_count == UINT16_MAX)
        return 0;
    if (cls->cp_count == cls->cp_capacity) {
        uint32_t capacity = cls->cp_capacity * 2 + 16;
        if (capacity > UINT16_MAX)
            capacity = UINT16_MAX;
        cf_const *grown = cf_arena_alloc(cls->arena, sizeof(cf_const) * capacity);
        if (!grown)
            return 0;
        memcpy(grown, cls->cp, sizeof(cf_const) * cls->cp_count);
        cls->cp = grown;
        cls->cp_capacity = capacity;
    }
    uint16_t index = cls->cp_count++;
    cls->cp[index] = *entry;
    if (cls->cp_lookup && indexed(entry->tag)) {
        if (2 * (cls->cp_lookup_used + 1) > cls->cp_lookup_mask + 1) {
            if (!build_lookup(cls))
                cls->cp_lookup = NULL; /* scans from now on */
        } else {
            uint16_t *slot = lookup_slot(cls, entry);
            if (!*slot) {
                *slot = index;
                cls->cp_lookup_used++;
            }
        }
    }
    return index;
}

/* An entry equal to probe (the lowest index), else 0. */
static uint16_t find(cf_class *cls, const cf_const *probe)
{
    if (cls->cp_lookup || build_lookup(cls))
        return *lookup_slot(cls, probe);
    for (uint32_t i = 1; i < cls->cp_count; i++) /* no memory for the index */
        if (entries_equal(&cls->cp[i], probe))
            return (uint16_t)i;
    return 0;
}

/* An existing entry with the same tag and reference fields, or a new one. */
static uint16_t find_or_append_ref(cf_class *cls, uint8_t tag, uint16_t first, uint16_t second)
{
    if (!first)
        return 0;
    cf_const entry = {.tag = tag};
    entry.v.ref.first = first;
    entry.v.ref.second = second;
    uint16_t found = find(cls, &entry);
    return found ? found : append(cls, &entry);
}

uint16_t cf_cp_utf8(cf_class *cls, const char *text)
{
    size_t n = strlen(text);
    if (n > UINT16_MAX)
        return 0;
    cf_const entry = {.tag = CF_UTF8};
    entry.v.utf8.bytes = (const uint8_t *)text;
    entry.v.utf8.length = (uint16_t)n;
    uint16_t found = find(cls, &entry);
    if (found)
        return found;
    if (!(entry.v.utf8.bytes = cf_arena_copy(cls->arena, text, n)))
        return 0;
    return append(cls, &entry);
}

uint16_t cf_cp_class(cf_class *cls, const char *name)
{
    return find_or_append_ref(cls, CF_CLASS, cf_cp_utf8(cls, name), 0);
}

uint16_t cf_cp_integer(cf_class *cls, int32_t value)
{
    cf_const entry = {.tag = CF_INTEGER};
    entry.v.bits = (uint32_t)value;
    uint16_t found = find(cls, &entry);
    return found ? found : append(cls, &entry);
}

uint16_t cf_cp_member_ref(cf_class *cls, uint8_t tag, const char *class_name, const char *name,
                          const char *descriptor)
{
    uint16_t owner = cf_cp_class(cls, class_name);
    uint16_t name_index = cf_cp_utf8(cls, name);
    uint16_t descriptor_index = cf_cp_utf8(cls, descriptor);
    if (!name_index || !descriptor_index)
        return 0;
    return find_or_append_ref(cls, tag, owner, find_or_append_ref(cls, CF_NAME_AND_TYPE, name_index, descriptor_index));
}
