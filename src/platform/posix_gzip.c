/* posix_gzip.c - plat_gzip_write with the system's zlib (see platform.h). */
#include <zlib.h>

#include "platform/platform.h"

#define GZIP_WINDOW_BITS (15 + 16) /* the largest window, in a gzip header and trailer */
#define CHUNK_BYTES 65536

int plat_gzip_write(FILE *out, const void *data, size_t size)
{
    z_stream z = {0};
    unsigned char chunk[CHUNK_BYTES];
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, GZIP_WINDOW_BITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    z.next_in = (Bytef *)data;
    int failed = 0, status = Z_OK;
    while (!failed && status != Z_STREAM_END) {
        /* avail_in is 32 bits: a larger profile goes in by pieces */
        uInt piece = size > UINT32_MAX ? UINT32_MAX : (uInt)size;
        if (z.avail_in == 0 && piece) {
            z.avail_in = piece;
            size -= piece;
        }
        z.next_out = chunk;
        z.avail_out = sizeof(chunk);
        status = deflate(&z, size ? Z_NO_FLUSH : Z_FINISH);
        failed = status == Z_STREAM_ERROR ||
                 fwrite(chunk, 1, sizeof(chunk) - z.avail_out, out) != sizeof(chunk) - z.avail_out;
    }
    deflateEnd(&z);
    return failed ? -1 : 0;
}
