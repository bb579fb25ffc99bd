/*
 * win32_gzip.c - plat_gzip_write for the Windows targets (see platform.h).  Debian has no zlib
 * for MinGW, and pprof files must be gzip'd, so this writes the gzip container by hand around
 * "stored" deflate blocks (RFC 1951 3.2.4: type 00, no compression), with the CRC-32 the
 * trailer needs: any gzip reader takes the file; it is only as large as the data.
 */
#include "platform/platform.h"

#define STORED_BLOCK_MAX 65535u

/* CRC-32 (ISO 3309, the reflected polynomial 0xEDB88320) of data, continuing from crc. */
static uint32_t crc32_update(uint32_t crc, const unsigned char *data, size_t size)
{
    crc = ~crc;
    for (size_t i = 0; i < size; i++) {
        crc ^= data[i];
        for (int bit = 0; bit < 8; bit++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static int put_le32(FILE *out, uint32_t value)
{
    unsigned char bytes[4] = {(unsigned char)value, (unsigned char)(value >> 8), (unsigned char)(value >> 16),
                              (unsigned char)(value >> 24)};
    return fwrite(bytes, 1, 4, out) == 4 ? 0 : -1;
}

int plat_gzip_write(FILE *out, const void *data, size_t size)
{
    /* magic, deflate, no flags, no time, no extra flags, OS unknown */
    static const unsigned char header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255};
    const unsigned char *at = data;
    size_t left = size;
    if (fwrite(header, 1, sizeof(header), out) != sizeof(header))
        return -1;
    do {
        unsigned length = left > STORED_BLOCK_MAX ? STORED_BLOCK_MAX : (unsigned)left;
        unsigned char block[5] = {left == length, /* BFINAL on the last block; BTYPE 00 */
                                  (unsigned char)length, (unsigned char)(length >> 8),
                                  (unsigned char)~length, (unsigned char)(~length >> 8)};
        if (fwrite(block, 1, sizeof(block), out) != sizeof(block) || fwrite(at, 1, length, out) != length)
            return -1;
        at += length;
        left -= length;
    } while (left);
    if (put_le32(out, crc32_update(0, data, size)) || put_le32(out, (uint32_t)size))
        return -1;
    return 0;
}
