/* javaname.c - display names of Java methods and classes (see javaname.h). */
#include <string.h>

#include "javaname.h"

/* What a character of a name becomes in a frame: '/' a dot, and '_' for ';' (the collapsed
 * format's frame separator) and control characters. */
static char frame_char(char c)
{
    unsigned char u = (unsigned char)c;
    return c == '/' ? '.' : (c == ';' || u < 0x20 || u == 0x7F) ? '_' : c;
}

/* Copies the first length characters of name (fewer if out is smaller) through frame_char. */
static void copy_frame_name(const char *name, size_t length, char *out, size_t out_size)
{
    size_t n = 0;
    if (out_size == 0)
        return;
    for (; n < length && n + 1 < out_size; n++)
        out[n] = frame_char(name[n]);
    out[n] = '\0';
}

void jp_display_name(const char *vm_name, char *out, size_t out_size)
{
    copy_frame_name(vm_name, strcspn(vm_name, "("), out, out_size);
}

void jp_class_display_name(const char *vm_name, char *out, size_t out_size)
{
    size_t length = strlen(vm_name);
    if (vm_name[0] == '[' && length > 0 && vm_name[length - 1] == ';')
        length--;
    copy_frame_name(vm_name, length, out, out_size);
}
