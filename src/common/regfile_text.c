/*
 * regfile_text.c - the bytes and text the registry file format is made of (regfile_internal.h):
 * growable buffers, UTF-8 and UTF-16LE (values hold UTF-16LE, files and names UTF-8), and
 * names compared as the registry compares them.
 */
#include <stdlib.h>
#include <string.h>

#include "common/regfile_internal.h"

/* ---- Growable buffers ------------------------------------------------------------------- */

void regbuf_add(regbuf *b, const void *bytes, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *data = realloc(b->data, cap);
        if (!data) {
            b->failed = 1;
            return;
        }
        b->data = data;
        b->cap = cap;
    }
    if (n)
        memcpy(b->data + b->len, bytes, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void regbuf_str(regbuf *b, const char *text)
{
    regbuf_add(b, text, strlen(text));
}

void regbuf_byte(regbuf *b, unsigned char byte)
{
    regbuf_add(b, &byte, 1);
}

/* ---- UTF-8 and UTF-16LE --------------------------------------------------------------- */

/* Decodes the code point at s[*i] (of n bytes) and advances *i; 0 when the bytes there are
 * not well-formed UTF-8 (truncated, overlong, a surrogate, beyond U+10FFFF). */
static int utf8_next(const unsigned char *s, size_t n, size_t *i, uint32_t *cp)
{
    unsigned char c = s[*i];
    size_t extra;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        (*i)++;
        return 1;
    }
    if ((c & 0xE0) == 0xC0)
        extra = 1, v = c & 0x1F, min = 0x80;
    else if ((c & 0xF0) == 0xE0)
        extra = 2, v = c & 0x0F, min = 0x800;
    else if ((c & 0xF8) == 0xF0)
        extra = 3, v = c & 0x07, min = 0x10000;
    else
        return 0;
    if (n - *i <= extra)
        return 0;
    for (size_t k = 1; k <= extra; k++) {
        if ((s[*i + k] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (s[*i + k] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    *i += extra + 1;
    return 1;
}

int regfile_utf8_valid(const char *s, size_t n)
{
    uint32_t cp;
    for (size_t i = 0; i < n;)
        if (!utf8_next((const unsigned char *)s, n, &i, &cp))
            return 0;
    return 1;
}

static void utf8_put(regbuf *out, uint32_t cp)
{
    static const unsigned char lead[] = {0, 0x00, 0xC0, 0xE0, 0xF0}; /* by sequence length */
    unsigned char bytes[4];
    size_t n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    for (size_t k = n - 1; k > 0; k--, cp >>= 6)
        bytes[k] = (unsigned char)(0x80 | (cp & 0x3F));
    bytes[0] = (unsigned char)(lead[n] | cp);
    regbuf_add(out, bytes, n);
}

void regfile_utf16_put(regbuf *out, uint32_t unit)
{
    regbuf_byte(out, (unsigned char)(unit & 0xFF));
    regbuf_byte(out, (unsigned char)(unit >> 8));
}

void regfile_dword_put(regbuf *out, uint32_t value)
{
    for (int shift = 0; shift < 32; shift += 8)
        regbuf_byte(out, (unsigned char)(value >> shift));
}

void regfile_utf8_to_utf16le(regbuf *out, const char *s, size_t n)
{
    uint32_t cp;
    for (size_t i = 0; i < n && utf8_next((const unsigned char *)s, n, &i, &cp);) {
        if (cp >= 0x10000) {
            regfile_utf16_put(out, 0xD800 | (cp - 0x10000) >> 10);
            regfile_utf16_put(out, 0xDC00 | (cp & 0x3FF));
        } else {
            regfile_utf16_put(out, cp);
        }
    }
}

int regfile_utf16le_to_utf8(regbuf *out, const unsigned char *s, size_t units, int strict)
{
    for (size_t i = 0; i < units; i++) {
        uint32_t u = s[2 * i] | (uint32_t)s[2 * i + 1] << 8;
        if (u >= 0xD800 && u <= 0xDBFF && i + 1 < units) {
            uint32_t low = s[2 * i + 2] | (uint32_t)s[2 * i + 3] << 8;
            if (low >= 0xDC00 && low <= 0xDFFF) {
                utf8_put(out, 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00));
                i++;
                continue;
            }
        }
        if (u >= 0xD800 && u <= 0xDFFF) {
            if (strict)
                return 0;
            u = 0xFFFD;
        }
        utf8_put(out, u);
    }
    return 1;
}

/* ---- Names ------------------------------------------------------------------------------ */

int regfile_name_compare(const char *a, size_t a_len, const char *b, size_t b_len)
{
    for (size_t i = 0; i < a_len && i < b_len; i++) {
        int ca = (unsigned char)a[i], cb = (unsigned char)b[i];
        ca = ca >= 'A' && ca <= 'Z' ? ca + 32 : ca;
        cb = cb >= 'A' && cb <= 'Z' ? cb + 32 : cb;
        if (ca != cb)
            return ca - cb;
    }
    return a_len < b_len ? -1 : a_len > b_len;
}

char *regfile_copy_text(const char *text, size_t len)
{
    char *copy = malloc(len + 1);
    if (copy) {
        memcpy(copy, text, len);
        copy[len] = '\0';
    }
    return copy;
}
