/* writer.c - serializing a cf_class back into class-file bytes. */
#include <stdlib.h>

#include "classfile/internal.h"

static void write_members(cf_buffer *b, uint16_t count, const cf_member *members)
{
    cf_put_u2(b, count);
    for (uint32_t i = 0; i < count; i++) {
        const cf_member *m = &members[i];
        cf_put_u2(b, m->access);
        cf_put_u2(b, m->name);
        cf_put_u2(b, m->descriptor);
        cf_put_u2(b, m->attr_count);
        for (uint32_t a = 0; a < m->attr_count; a++) {
            if (!m->code || a != m->code_attr) {
                cf_write_attribute(b, &m->attrs[a]);
                continue;
            }
            /* the Code attribute comes from its parsed (possibly rewritten) form */
            cf_put_u2(b, m->attrs[a].name);
            size_t length_at = b->size;
            cf_put_u4(b, 0);
            cf_code_write(m->code, b);
            if (!b->failed)
                cf_set_u4(b->data + length_at, (uint32_t)(b->size - length_at - 4));
        }
    }
}

int cf_write(const cf_class *cls, uint8_t **out, size_t *out_size, char *error_text, size_t error_size)
{
    cf_error error = {error_text, error_size};
    if (error_text && error_size)
        error_text[0] = '\0';
    cf_buffer b = {0};
    cf_put_u4(&b, 0xCAFEBABEu);
    cf_put_u2(&b, cls->minor_version);
    cf_put_u2(&b, cls->major_version);
    cf_cp_write(cls, &b);
    cf_put_u2(&b, cls->access);
    cf_put_u2(&b, cls->this_class);
    cf_put_u2(&b, cls->super_class);
    cf_put_u2(&b, cls->interface_count);
    for (uint32_t i = 0; i < cls->interface_count; i++)
        cf_put_u2(&b, cls->interfaces[i]);
    write_members(&b, cls->field_count, cls->fields);
    write_members(&b, cls->method_count, cls->methods);
    cf_write_attributes(&b, cls->attr_count, cls->attrs);
    if (b.failed) {
        cf_buffer_free(&b);
        return cf_fail(&error, "out of memory");
    }
    *out = b.data;
    *out_size = b.size;
    return 0;
}
