#include "CCompression.h"

#include <limits.h>
#include <stdlib.h>
#include <zlib.h>

struct pkg_gunzip {
    z_stream stream;
};

pkg_gunzip *pkg_gunzip_new(void) {
    pkg_gunzip *reader = calloc(1, sizeof *reader);
    // windowBits 15 + 16: a gzip wrapper only (a zlib or raw stream is refused).
    if (reader && inflateInit2(&reader->stream, 15 + 16) != Z_OK) {
        free(reader);
        return NULL;
    }
    return reader;
}

void pkg_gunzip_free(pkg_gunzip *reader) {
    if (!reader) return;
    inflateEnd(&reader->stream);
    free(reader);
}

int pkg_gunzip_inflate(pkg_gunzip *reader, const uint8_t *input, size_t input_length, size_t *consumed,
                       uint8_t *output, size_t output_length, size_t *produced, const char **message) {
    z_stream *stream = &reader->stream;
    uInt in = input_length > UINT_MAX ? UINT_MAX : (uInt)input_length;
    uInt out = output_length > UINT_MAX ? UINT_MAX : (uInt)output_length;
    stream->next_in = (Bytef *)input;
    stream->avail_in = in;
    stream->next_out = output;
    stream->avail_out = out;
    int result = inflate(stream, Z_NO_FLUSH);
    *consumed = in - stream->avail_in;
    *produced = out - stream->avail_out;
    switch (result) {
    case Z_STREAM_END:
        inflateReset(stream);
        return 1;
    case Z_OK:
    case Z_BUF_ERROR:  // no progress possible now: more input or more room is needed
        return 0;
    default:
        *message = stream->msg ? stream->msg : "corrupt data";
        return -1;
    }
}
