/*
 * stackmap.c - StackMapTable (JVMS 4.7.4): the implicit first frame of a method,
 * decoding the delta-encoded table into frames with absolute contents, and encoding
 * frames back with the most compact frame type that describes each.
 */
#include <string.h>

#include "classfile/internal.h"

int cf_vtype_of(cf_class *cls, const char *type, size_t length, cf_vtype *out, cf_error *error)
{
    out->data = 0;
    if (length == 0 || cf_field_type_length(type) != length)
        return cf_fail(error, "malformed type %.*s", (int)length, type);
    switch (type[0]) {
    case 'B': case 'C': case 'I': case 'S': case 'Z':
        out->item = CF_ITEM_INTEGER;
        return 0;
    case 'F':
        out->item = CF_ITEM_FLOAT;
        return 0;
    case 'J':
        out->item = CF_ITEM_LONG;
        return 0;
    case 'D':
        out->item = CF_ITEM_DOUBLE;
        return 0;
    default:
        break;
    }
    /* "Lpkg/Name;" names the class pkg/Name; an array type is named by its descriptor */
    size_t skip = type[0] == 'L' ? 1 : 0;
    char *name = cf_arena_alloc(cls->arena, length + 1);
    if (!name)
        return cf_fail(error, "out of memory");
    memcpy(name, type + skip, length - 2 * skip);
    out->item = CF_ITEM_OBJECT;
    out->data = cf_cp_class(cls, name);
    return out->data ? 0 : cf_fail(error, "constant pool full");
}

typedef struct frame_builder {
    cf_class *cls;
    cf_frame *frame;
    cf_error *error;
} frame_builder;

static int add_parameter(void *context, const char *type, size_t length)
{
    frame_builder *fb = context;
    return cf_vtype_of(fb->cls, type, length, &fb->frame->locals[fb->frame->local_count++], fb->error);
}

int cf_initial_frame(cf_class *cls, const cf_member *method, cf_frame *out, cf_error *error)
{
    const cf_const *d = &cls->cp[method->descriptor];
    char *descriptor = cf_arena_alloc(cls->arena, d->v.utf8.length + 1u);
    if (!descriptor)
        return cf_fail(error, "out of memory");
    memcpy(descriptor, d->v.utf8.bytes, d->v.utf8.length);
    memset(out, 0, sizeof(*out));
    /* one entry per parameter at most, plus this */
    out->locals = cf_arena_alloc(cls->arena, sizeof(cf_vtype) * (d->v.utf8.length + 1u));
    if (!out->locals)
        return cf_fail(error, "out of memory");
    if (!(method->access & CF_ACC_STATIC)) {
        /* in a constructor this is uninitialized until super() or this(), except in Object's */
        int uninitialized = cf_cp_utf8_is(cls, method->name, "<init>") &&
                            !cf_cp_utf8_is(cls, cls->cp[cls->this_class].v.ref.first, "java/lang/Object");
        out->locals[0].item = uninitialized ? CF_ITEM_UNINITIALIZED_THIS : CF_ITEM_OBJECT;
        out->locals[0].data = uninitialized ? 0 : cls->this_class;
        out->local_count = 1;
    }
    frame_builder fb = {cls, out, error};
    const char *ret;
    size_t ret_length;
    if (cf_descriptor_walk(descriptor, add_parameter, &fb, &ret, &ret_length) < 0)
        return cf_fail(error, "bad method descriptor %s", descriptor);
    return 0;
}

static int read_vtypes(cf_reader *r, uint32_t count, cf_vtype *out, const cf_class *cls, uint32_t code_length,
                       cf_error *error)
{
    for (uint32_t i = 0; i < count; i++) {
        out[i].item = cf_read_u1(r);
        out[i].data = 0;
        if (out[i].item == CF_ITEM_OBJECT || out[i].item == CF_ITEM_UNINITIALIZED)
            out[i].data = cf_read_u2(r);
        if (r->failed)
            return cf_fail(error, "truncated StackMapTable");
        if (out[i].item > CF_ITEM_UNINITIALIZED ||
            (out[i].item == CF_ITEM_OBJECT && !cf_cp_has(cls, out[i].data, CF_CLASS)) ||
            (out[i].item == CF_ITEM_UNINITIALIZED && out[i].data >= code_length))
            return cf_fail(error, "bad verification type in StackMapTable");
    }
    return 0;
}

int cf_stackmap_decode(cf_class *cls, const cf_attr *attr, uint32_t code_length, const cf_frame *initial,
                       cf_frame **frames, uint16_t *count, cf_error *error)
{
    cf_reader r;
    cf_reader_init(&r, attr->data, attr->length);
    *count = cf_read_u2(&r);
    *frames = cf_arena_alloc(cls->arena, sizeof(cf_frame) * (*count + 1u));
    if (!*frames)
        return cf_fail(error, "out of memory");
    const cf_frame *prev = initial;
    for (uint32_t i = 0; i < *count; i++) {
        cf_frame *f = &(*frames)[i];
        uint8_t type = cf_read_u1(&r);
        uint32_t delta = type < 128 ? type % 64u : cf_read_u2(&r);
        uint32_t locals = prev->local_count, stack = 0, appended = 0;
        if (type >= 64 && type < 128)
            stack = 1;
        else if (type >= 128 && type < 247)
            return cf_fail(error, "reserved StackMapTable frame type %u", type);
        else if (type == 247)
            stack = 1;
        else if (type >= 248 && type <= 250) {
            if (251u - type > locals)
                return cf_fail(error, "StackMapTable chops more locals than there are");
            locals -= 251u - type;
        } else if (type >= 252 && type <= 254)
            appended = type - 251u;
        else if (type == 255)
            locals = cf_read_u2(&r);
        f->pc = i == 0 ? delta : prev->pc + delta + 1;
        if (r.failed || f->pc >= code_length)
            return cf_fail(error, "bad StackMapTable frame %u", i);
        f->local_count = (uint16_t)(locals + appended);
        f->locals = cf_arena_alloc(cls->arena, sizeof(cf_vtype) * (f->local_count + 1u));
        if (!f->locals)
            return cf_fail(error, "out of memory");
        if (type == 255) {
            if (read_vtypes(&r, locals, f->locals, cls, code_length, error) < 0)
                return CF_MALFORMED;
            stack = cf_read_u2(&r);
        } else {
            memcpy(f->locals, prev->locals, sizeof(cf_vtype) * locals); /* locals <= prev->local_count */
            if (read_vtypes(&r, appended, f->locals + locals, cls, code_length, error) < 0)
                return CF_MALFORMED;
        }
        f->stack_count = (uint16_t)stack;
        f->stack = cf_arena_alloc(cls->arena, sizeof(cf_vtype) * (stack + 1u));
        if (!f->stack)
            return cf_fail(error, "out of memory");
        if (read_vtypes(&r, stack, f->stack, cls, code_length, error) < 0)
            return CF_MALFORMED;
        prev = f;
    }
    if (r.pos != r.size)
        return cf_fail(error, "StackMapTable length does not match its frames");
    return 0;
}

static int same_vtypes(const cf_vtype *a, const cf_vtype *b, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++)
        if (a[i].item != b[i].item || a[i].data != b[i].data)
            return 0;
    return 1;
}

static void write_vtypes(cf_buffer *b, const cf_vtype *v, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        cf_put_u1(b, v[i].item);
        if (v[i].item == CF_ITEM_OBJECT || v[i].item == CF_ITEM_UNINITIALIZED)
            cf_put_u2(b, v[i].data);
    }
}

static void write_frame(cf_buffer *b, const cf_frame *prev, const cf_frame *f, uint32_t delta)
{
    uint32_t n = prev->local_count, m = f->local_count;
    int same_locals = n == m && same_vtypes(prev->locals, f->locals, m);
    int extends_prev = m > n && m - n <= 3 && same_vtypes(prev->locals, f->locals, n);
    int shrinks_prev = n > m && n - m <= 3 && same_vtypes(prev->locals, f->locals, m);
    if (same_locals && f->stack_count == 0) {
        if (delta < 64)
            cf_put_u1(b, (uint8_t)delta);
        else {
            cf_put_u1(b, 251);
            cf_put_u2(b, (uint16_t)delta);
        }
    } else if (same_locals && f->stack_count == 1) {
        if (delta < 64)
            cf_put_u1(b, (uint8_t)(64 + delta));
        else {
            cf_put_u1(b, 247);
            cf_put_u2(b, (uint16_t)delta);
        }
        write_vtypes(b, f->stack, 1);
    } else if (f->stack_count == 0 && (extends_prev || shrinks_prev)) {
        cf_put_u1(b, (uint8_t)(251 + (int)m - (int)n)); /* append: 252..254, chop: 248..250 */
        cf_put_u2(b, (uint16_t)delta);
        if (extends_prev)
            write_vtypes(b, f->locals + n, m - n);
    } else {
        cf_put_u1(b, 255);
        cf_put_u2(b, (uint16_t)delta);
        cf_put_u2(b, f->local_count);
        write_vtypes(b, f->locals, f->local_count);
        cf_put_u2(b, f->stack_count);
        write_vtypes(b, f->stack, f->stack_count);
    }
}

int cf_stackmap_encode(cf_class *cls, const cf_frame *initial, const cf_frame *frames, uint32_t count,
                       cf_attr *out, cf_error *error)
{
    if (count > UINT16_MAX)
        return cf_fail(error, "too many stack map frames");
    cf_buffer b = {0};
    cf_put_u2(&b, (uint16_t)count);
    const cf_frame *prev = initial;
    for (uint32_t i = 0; i < count; i++) {
        write_frame(&b, prev, &frames[i], i == 0 ? frames[i].pc : frames[i].pc - prev->pc - 1);
        prev = &frames[i];
    }
    out->name = cf_cp_utf8(cls, "StackMapTable");
    out->data = b.failed ? NULL : cf_arena_copy(cls->arena, b.data, b.size);
    out->length = (uint32_t)b.size;
    cf_buffer_free(&b);
    if (!out->name || !out->data)
        return cf_fail(error, "out of memory or constant pool full");
    return 0;
}
