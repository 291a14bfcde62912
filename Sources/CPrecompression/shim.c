#include "CPrecompression.h"

#include <brotli/encode.h>
#include <limits.h>
#include <zlib.h>

size_t pkg_gzip_bound(size_t length) {
    // deflateBound for the settings pkg_gzip uses (gzip wrapper included).
    z_stream stream = {0};
    if (length > UINT_MAX || deflateInit2(&stream, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
    uLong bound = deflateBound(&stream, (uLong)length);
    deflateEnd(&stream);
    return bound;
}

int pkg_gzip(const uint8_t *input, size_t length, uint8_t *output, size_t *output_length) {
    if (length > UINT_MAX || *output_length > UINT_MAX) return -1;
    z_stream stream = {0};
    // windowBits 15 + 16: a gzip wrapper; zlib writes mtime 0 and no name.
    if (deflateInit2(&stream, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) return -1;
    stream.next_in = (Bytef *)input;
    stream.avail_in = (uInt)length;
    stream.next_out = output;
    stream.avail_out = (uInt)*output_length;
    int result = deflate(&stream, Z_FINISH);
    *output_length = stream.total_out;
    deflateEnd(&stream);
    return result == Z_STREAM_END ? 0 : -1;
}

size_t pkg_brotli_bound(size_t length) {
    return BrotliEncoderMaxCompressedSize(length);
}

int pkg_brotli(const uint8_t *input, size_t length, uint8_t *output, size_t *output_length) {
    return BrotliEncoderCompress(BROTLI_MAX_QUALITY, 22, BROTLI_MODE_TEXT, length, input, output_length, output)
        ? 0 : -1;
}
