/* javaname.c - display names of Java methods and classes (see javaname.h). */
#include <stdio.h>
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

/* Appends text to out (length *n, size out_size), truncating. */
static void append(char *out, size_t out_size, size_t *n, const char *text, size_t length)
{
    for (size_t i = 0; i < length && *n + 1 < out_size; i++)
        out[(*n)++] = frame_char(text[i]);
    out[*n] = '\0';
}

/* One field descriptor at *d ("I", "[J", "Ljava/lang/String;") appended in Java form; *d moves past it. */
static void append_type(char *out, size_t out_size, size_t *n, const char **d)
{
    static const struct { char code; const char *name; } primitives[] = {
        {'Z', "boolean"}, {'B', "byte"}, {'C', "char"}, {'S', "short"},
        {'I', "int"},     {'J', "long"}, {'F', "float"}, {'D', "double"}, {'V', "void"}};
    size_t dimensions = 0;
    while (**d == '[')
        dimensions++, (*d)++;
    if (**d == 'L') {
        const char *end = strchr(*d, ';');
        size_t length = end ? (size_t)(end - *d - 1) : strlen(*d + 1);
        append(out, out_size, n, *d + 1, length);
        *d += 1 + length + (end != NULL);
    } else {
        const char *name = "?";
        for (size_t i = 0; i < sizeof(primitives) / sizeof(*primitives); i++)
            if (primitives[i].code == **d)
                name = primitives[i].name;
        append(out, out_size, n, name, strlen(name));
        if (**d)
            (*d)++;
    }
    while (dimensions--)
        append(out, out_size, n, "[]", 2);
}

void jp_signature_name(const char *vm_name, char *out, size_t out_size)
{
    size_t n = 0, name_length = strcspn(vm_name, "(");
    if (out_size == 0)
        return;
    out[0] = '\0';
    append(out, out_size, &n, vm_name, name_length);
    const char *d = vm_name + name_length;
    if (*d != '(')
        return;
    append(out, out_size, &n, "(", 1);
    for (d++; *d && *d != ')';) {
        if (d[-1] != '(')
            append(out, out_size, &n, ", ", 2);
        append_type(out, out_size, &n, &d);
    }
    append(out, out_size, &n, ")", 1);
}

void jp_typed_name(const char *vm_name, char *out, size_t out_size)
{
    jp_signature_name(vm_name, out, out_size);
    const char *d = strchr(vm_name, ')');
    if (out_size == 0 || !d || !d[1])
        return;
    size_t n = strlen(out);
    append(out, out_size, &n, ": ", 2);
    d++;
    append_type(out, out_size, &n, &d);
}

void jp_program_display_name(const char *start_class, char *out, size_t out_size)
{
    size_t length = strlen(start_class);
    int file = (length >= 4 && !strcmp(start_class + length - 4, ".jar")) ||
               (length >= 5 && !strcmp(start_class + length - 5, ".java"));
    if (file && out_size)
        snprintf(out, out_size, "%s", start_class);
    else
        copy_frame_name(start_class, length, out, out_size);
}

void jp_class_display_name(const char *vm_name, char *out, size_t out_size)
{
    size_t length = strlen(vm_name);
    if (vm_name[0] == '[' && length > 0 && vm_name[length - 1] == ';')
        length--;
    copy_frame_name(vm_name, length, out, out_size);
}
