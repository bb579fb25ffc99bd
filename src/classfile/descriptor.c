/*
 * descriptor.c - splitting method descriptors into their types, and checking the
 * descriptors a class names before its code is simulated (JVMS 4.3).
 */
#include <string.h>

#include "classfile/internal.h"

size_t cf_field_type_length(const char *s)
{
    size_t n = 0;
    while (s[n] == '[')
        n++;
    if (n > 255)
        return 0;
    switch (s[n]) {
    case 'B': case 'C': case 'D': case 'F': case 'I': case 'J': case 'S': case 'Z':
        return n + 1;
    case 'L': {
        const char *end = strchr(s + n, ';');
        return end && end > s + n + 1 ? (size_t)(end - s) + 1 : 0;
    }
    default:
        return 0;
    }
}

int cf_descriptor_walk(const char *descriptor, int (*each)(void *context, const char *type, size_t length),
                       void *context, const char **ret, size_t *ret_length)
{
    const char *p = descriptor;
    if (*p++ != '(')
        return -1;
    while (*p != ')') {
        size_t n = cf_field_type_length(p);
        if (!n || (each && each(context, p, n) < 0))
            return -1;
        p += n;
    }
    p++;
    size_t n = *p == 'V' ? 1 : cf_field_type_length(p);
    if (!n || p[n] != '\0')
        return -1;
    *ret = p;
    *ret_length = n;
    return 0;
}

/* Whether the Utf8 entry at index is a field descriptor, or (method) a method descriptor. */
static int is_descriptor(cf_class *cls, uint16_t index, int method)
{
    const cf_const *c = &cls->cp[index];
    char *text = cf_arena_alloc(cls->arena, c->v.utf8.length + 1u);
    if (!text)
        return -1;
    memcpy(text, c->v.utf8.bytes, c->v.utf8.length);
    if (strlen(text) != c->v.utf8.length)
        return 0; /* a NUL byte inside */
    const char *ret;
    size_t ret_length;
    return method ? cf_descriptor_walk(text, NULL, NULL, &ret, &ret_length) == 0
                  : cf_field_type_length(text) == c->v.utf8.length;
}

int cf_check_descriptors(cf_class *cls, cf_error *error)
{
    for (uint32_t i = 1; i < cls->cp_count; i++) {
        const cf_const *c = &cls->cp[i];
        int method = c->tag != CF_FIELDREF && c->tag != CF_DYNAMIC;
        if (c->tag != CF_FIELDREF && c->tag != CF_METHODREF && c->tag != CF_INTERFACE_METHODREF &&
            c->tag != CF_DYNAMIC && c->tag != CF_INVOKE_DYNAMIC)
            continue;
        int ok = is_descriptor(cls, cls->cp[c->v.ref.second].v.ref.second, method);
        if (ok <= 0)
            return ok < 0 ? cf_fail(error, "out of memory")
                          : cf_fail(error, "constant pool entry %u has a malformed %s descriptor", i,
                                    method ? "method" : "field");
    }
    for (uint32_t i = 0; i < cls->method_count; i++) {
        int ok = is_descriptor(cls, cls->methods[i].descriptor, 1);
        if (ok <= 0)
            return ok < 0 ? cf_fail(error, "out of memory")
                          : cf_fail(error, "method %u has a malformed descriptor", i);
    }
    return 0;
}
