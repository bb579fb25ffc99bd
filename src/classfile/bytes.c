/* bytes.c - bounds-checked big-endian reading and growable output buffers (see bytes.h). */
#include "classfile/bytes.h"

#include <stdlib.h>
#include <string.h>

void cf_reader_init(cf_reader *r, const uint8_t *data, size_t size)
{
    r->data = data;
    r->size = size;
    r->pos = 0;
    r->failed = 0;
}

const uint8_t *cf_read_bytes(cf_reader *r, size_t n)
{
    if (r->failed || r->size - r->pos < n) {
        r->failed = 1;
        return NULL;
    }
    const uint8_t *p = r->data + r->pos;
    r->pos += n;
    return p;
}

uint8_t cf_read_u1(cf_reader *r)
{
    const uint8_t *p = cf_read_bytes(r, 1);
    return p ? p[0] : 0;
}

uint16_t cf_read_u2(cf_reader *r)
{
    const uint8_t *p = cf_read_bytes(r, 2);
    return p ? cf_get_u2(p) : 0;
}

uint32_t cf_read_u4(cf_reader *r)
{
    const uint8_t *p = cf_read_bytes(r, 4);
    return p ? cf_get_u4(p) : 0;
}

uint16_t cf_get_u2(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

uint32_t cf_get_u4(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void cf_set_u2(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

void cf_set_u4(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

void cf_put_bytes(cf_buffer *b, const void *data, size_t n)
{
    if (b->failed)
        return;
    if (b->capacity - b->size < n) {
        size_t capacity = b->capacity ? b->capacity : 256;
        while (capacity - b->size < n)
            capacity *= 2;
        uint8_t *grown = realloc(b->data, capacity);
        if (!grown) {
            b->failed = 1;
            return;
        }
        b->data = grown;
        b->capacity = capacity;
    }
    if (n)
        memcpy(b->data + b->size, data, n);
    b->size += n;
}

void cf_put_u1(cf_buffer *b, uint8_t v)
{
    cf_put_bytes(b, &v, 1);
}

void cf_put_u2(cf_buffer *b, uint16_t v)
{
    uint8_t p[2];
    cf_set_u2(p, v);
    cf_put_bytes(b, p, 2);
}

void cf_put_u4(cf_buffer *b, uint32_t v)
{
    uint8_t p[4];
    cf_set_u4(p, v);
    cf_put_bytes(b, p, 4);
}

void cf_buffer_free(cf_buffer *b)
{
    free(b->data);
    b->data = NULL;
    b->size = b->capacity = 0;
}
