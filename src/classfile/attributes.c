/* attributes.c - attribute tables (JVMS 4.7) of classes, fields, methods and Code, kept raw. */
#include "classfile/internal.h"

int cf_read_attributes(cf_class *cls, cf_reader *r, uint16_t *count, cf_attr **attrs, cf_error *error)
{
    *count = cf_read_u2(r);
    *attrs = cf_arena_alloc(cls->arena, sizeof(cf_attr) * (*count ? *count : 1));
    if (!*attrs)
        return cf_fail(error, "out of memory");
    for (uint32_t i = 0; i < *count; i++) {
        cf_attr *a = &(*attrs)[i];
        a->name = cf_read_u2(r);
        a->length = cf_read_u4(r);
        a->data = cf_read_bytes(r, a->length);
        if (r->failed)
            return cf_fail(error, "truncated attribute");
        if (!cf_cp_has(cls, a->name, CF_UTF8))
            return cf_fail(error, "attribute name %u is not a Utf8 entry", a->name);
    }
    return r->failed ? cf_fail(error, "truncated attribute table") : 0;
}

void cf_write_attribute(cf_buffer *b, const cf_attr *attr)
{
    cf_put_u2(b, attr->name);
    cf_put_u4(b, attr->length);
    cf_put_bytes(b, attr->data, attr->length);
}

void cf_write_attributes(cf_buffer *b, uint16_t count, const cf_attr *attrs)
{
    cf_put_u2(b, count);
    for (uint32_t i = 0; i < count; i++)
        cf_write_attribute(b, &attrs[i]);
}

const cf_attr *cf_find_attribute(const cf_class *cls, uint16_t count, const cf_attr *attrs, const char *name)
{
    for (uint32_t i = 0; i < count; i++)
        if (cf_cp_utf8_is(cls, attrs[i].name, name))
            return &attrs[i];
    return NULL;
}
