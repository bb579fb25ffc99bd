/* code.c - the Code attribute (JVMS 4.7.3): parsed form and its serialization. */
#include "classfile/internal.h"

int cf_code_parse(cf_class *cls, const cf_attr *attr, cf_code **out, cf_error *error)
{
    cf_reader r;
    cf_reader_init(&r, attr->data, attr->length);
    cf_code *code = cf_arena_alloc(cls->arena, sizeof(cf_code));
    if (!code)
        return cf_fail(error, "out of memory");
    code->max_stack = cf_read_u2(&r);
    code->max_locals = cf_read_u2(&r);
    code->length = cf_read_u4(&r);
    if (r.failed || code->length == 0 || code->length > UINT16_MAX)
        return cf_fail(error, "bad code length %u", code->length);
    code->bytes = cf_read_bytes(&r, code->length);
    code->handler_count = cf_read_u2(&r);
    code->handlers = cf_arena_alloc(cls->arena, sizeof(cf_handler) * (code->handler_count + 1u));
    if (!code->handlers)
        return cf_fail(error, "out of memory");
    for (uint32_t i = 0; i < code->handler_count; i++) {
        cf_handler *h = &code->handlers[i];
        h->start_pc = cf_read_u2(&r);
        h->end_pc = cf_read_u2(&r);
        h->handler_pc = cf_read_u2(&r);
        h->catch_type = cf_read_u2(&r);
        if (!r.failed && (h->start_pc >= h->end_pc || h->end_pc > code->length || h->handler_pc >= code->length ||
                          (h->catch_type && !cf_cp_has(cls, h->catch_type, CF_CLASS))))
            return cf_fail(error, "bad exception table entry %u", i);
    }
    if (cf_read_attributes(cls, &r, &code->attr_count, &code->attrs, error) < 0)
        return CF_MALFORMED;
    if (r.pos != r.size)
        return cf_fail(error, "Code attribute length does not match its contents");
    *out = code;
    return 0;
}

void cf_code_write(const cf_code *code, cf_buffer *b)
{
    cf_put_u2(b, code->max_stack);
    cf_put_u2(b, code->max_locals);
    cf_put_u4(b, code->length);
    cf_put_bytes(b, code->bytes, code->length);
    cf_put_u2(b, code->handler_count);
    for (uint32_t i = 0; i < code->handler_count; i++) {
        const cf_handler *h = &code->handlers[i];
        cf_put_u2(b, h->start_pc);
        cf_put_u2(b, h->end_pc);
        cf_put_u2(b, h->handler_pc);
        cf_put_u2(b, h->catch_type);
    }
    cf_write_attributes(b, code->attr_count, code->attrs);
}
