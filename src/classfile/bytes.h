/*
 * bytes.h - big-endian reading with bounds checks and growable output buffers.
 *
 * A cf_reader never reads past its end: a short read sets failed and yields zeros, so
 * parsers check failed once per structure instead of before every field.  A cf_buffer
 * grows with malloc; a failed allocation sets failed and later writes are ignored.
 */
#ifndef JEVMON_CLASSFILE_BYTES_H
#define JEVMON_CLASSFILE_BYTES_H

#include <stddef.h>
#include <stdint.h>

typedef struct cf_reader {
    const uint8_t *data;
    size_t size, pos;
    int failed;
} cf_reader;

void cf_reader_init(cf_reader *r, const uint8_t *data, size_t size);
uint8_t cf_read_u1(cf_reader *r);
uint16_t cf_read_u2(cf_reader *r);
uint32_t cf_read_u4(cf_reader *r);
/* The next n bytes in place, or NULL (and failed) when fewer remain. */
const uint8_t *cf_read_bytes(cf_reader *r, size_t n);

/* Big-endian values inside a byte array the caller has bounds-checked. */
uint16_t cf_get_u2(const uint8_t *p);
uint32_t cf_get_u4(const uint8_t *p);
void cf_set_u2(uint8_t *p, uint16_t v);
void cf_set_u4(uint8_t *p, uint32_t v);

typedef struct cf_buffer {
    uint8_t *data;
    size_t size, capacity;
    int failed;
} cf_buffer;

void cf_put_u1(cf_buffer *b, uint8_t v);
void cf_put_u2(cf_buffer *b, uint16_t v);
void cf_put_u4(cf_buffer *b, uint32_t v);
void cf_put_bytes(cf_buffer *b, const void *data, size_t n);
void cf_buffer_free(cf_buffer *b);

#endif /* JEVMON_CLASSFILE_BYTES_H */
