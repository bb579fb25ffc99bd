/* reader.c - parsing a whole class file into a cf_class (JVMS 4.1). */
#include <stdio.h>
#include <string.h>

#include "classfile/internal.h"

static int read_members(cf_class *cls, cf_reader *r, int methods, uint16_t *count, cf_member **out, cf_error *error)
{
    *count = cf_read_u2(r);
    *out = cf_arena_alloc(cls->arena, sizeof(cf_member) * (*count ? *count : 1));
    if (!*out)
        return cf_fail(error, "out of memory");
    for (uint32_t i = 0; i < *count; i++) {
        cf_member *m = &(*out)[i];
        m->access = cf_read_u2(r);
        m->name = cf_read_u2(r);
        m->descriptor = cf_read_u2(r);
        if (r->failed)
            return cf_fail(error, "truncated %s table", methods ? "method" : "field");
        if (!cf_cp_has(cls, m->name, CF_UTF8) || !cf_cp_has(cls, m->descriptor, CF_UTF8))
            return cf_fail(error, "%s %u has a bad name or descriptor index", methods ? "method" : "field", i);
        if (cf_read_attributes(cls, r, &m->attr_count, &m->attrs, error) < 0)
            return CF_MALFORMED;
        if (!methods)
            continue;
        for (uint32_t a = 0; a < m->attr_count; a++) {
            if (!cf_cp_utf8_is(cls, m->attrs[a].name, "Code"))
                continue;
            if (m->code)
                return cf_fail(error, "method %u has two Code attributes", i);
            if (cf_code_parse(cls, &m->attrs[a], &m->code, error) < 0)
                return CF_MALFORMED;
            m->code_attr = (uint16_t)a;
        }
    }
    return 0;
}

cf_class *cf_parse(const uint8_t *data, size_t size, char *error_text, size_t error_size)
{
    cf_error error = {error_text, error_size};
    if (error_text && error_size)
        error_text[0] = '\0';
    cf_class *cls = NULL;
    cf_arena *arena = cf_arena_create();
    if (!arena || !(cls = cf_arena_alloc(arena, sizeof(cf_class)))) {
        cf_arena_destroy(arena);
        cf_fail(&error, "out of memory");
        return NULL;
    }
    cls->arena = arena;
    cf_reader r;
    cf_reader_init(&r, data, size);
    if (cf_read_u4(&r) != 0xCAFEBABEu) {
        cf_fail(&error, "not a class file");
        goto failed;
    }
    cls->minor_version = cf_read_u2(&r);
    cls->major_version = cf_read_u2(&r);
    if (cls->major_version < 45 || cls->major_version > CF_MAX_MAJOR_VERSION) {
        cf_fail(&error, "unsupported class file version %u.%u", cls->major_version, cls->minor_version);
        goto failed;
    }
    if (cf_cp_parse(cls, &r, &error) < 0)
        goto failed;
    cls->access = cf_read_u2(&r);
    cls->this_class = cf_read_u2(&r);
    cls->super_class = cf_read_u2(&r);
    cls->interface_count = cf_read_u2(&r);
    cls->interfaces = cf_arena_alloc(arena, sizeof(uint16_t) * (cls->interface_count + 1u));
    if (!cls->interfaces) {
        cf_fail(&error, "out of memory");
        goto failed;
    }
    for (uint32_t i = 0; i < cls->interface_count; i++) {
        cls->interfaces[i] = cf_read_u2(&r);
        if (!r.failed && !cf_cp_has(cls, cls->interfaces[i], CF_CLASS)) {
            cf_fail(&error, "interface %u is not a Class entry", i);
            goto failed;
        }
    }
    if (r.failed || !cf_cp_has(cls, cls->this_class, CF_CLASS) ||
        (cls->super_class && !cf_cp_has(cls, cls->super_class, CF_CLASS))) {
        cf_fail(&error, "bad this_class or super_class");
        goto failed;
    }
    if (read_members(cls, &r, 0, &cls->field_count, &cls->fields, &error) < 0 ||
        read_members(cls, &r, 1, &cls->method_count, &cls->methods, &error) < 0 ||
        cf_read_attributes(cls, &r, &cls->attr_count, &cls->attrs, &error) < 0)
        goto failed;
    if (r.pos != r.size) {
        cf_fail(&error, "%u bytes after the end of the class", (unsigned)(r.size - r.pos));
        goto failed;
    }
    return cls;
failed:
    cf_arena_destroy(arena);
    return NULL;
}

void cf_free(cf_class *cls)
{
    if (cls)
        cf_arena_destroy(cls->arena);
}

const char *cf_utf8(const cf_class *cls, uint16_t index, char *buf, size_t size)
{
    if (!size)
        return buf;
    buf[0] = '\0';
    if (cf_cp_has(cls, index, CF_UTF8)) {
        size_t n = cls->cp[index].v.utf8.length;
        if (n >= size)
            n = size - 1;
        memcpy(buf, cls->cp[index].v.utf8.bytes, n);
        buf[n] = '\0';
    }
    return buf;
}
