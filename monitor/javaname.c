/* javaname.c - display names of Java methods (see javaname.h). */
#include "javaname.h"

void jp_display_name(const char *vm_name, char *out, size_t out_size)
{
    size_t n = 0;
    if (out_size == 0)
        return;
    for (const char *p = vm_name; *p && *p != '(' && n + 1 < out_size; p++) {
        unsigned char c = (unsigned char)*p;
        out[n++] = c == '/' ? '.' : (c == ';' || c < 0x20 || c == 0x7F) ? '_' : (char)c;
    }
    out[n] = '\0';
}
