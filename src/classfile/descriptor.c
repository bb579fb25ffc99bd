/* descriptor.c - splitting method descriptors into their types (JVMS 4.3.3). */
#include <string.h>

#include "classfile/internal.h"

/* Length of the field type at s, or 0 when there is none. */
static size_t field_type_length(const char *s)
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
        size_t n = field_type_length(p);
        if (!n || (each && each(context, p, n) < 0))
            return -1;
        p += n;
    }
    p++;
    size_t n = *p == 'V' ? 1 : field_type_length(p);
    if (!n || p[n] != '\0')
        return -1;
    *ret = p;
    *ret_length = n;
    return 0;
}
