#ifndef PKG_CCOMPRESSION_H
#define PKG_CCOMPRESSION_H

#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

/// A gzip reader over any number of concatenated members (as `gzip -d` reads them),
/// fed a piece of input at a time: it holds one inflate state (a 32 KiB window), whatever
/// the size of the stream.
typedef struct pkg_gunzip pkg_gunzip;

/// A reader at the start of a member; NULL when out of memory. Free it with `pkg_gunzip_free`.
pkg_gunzip *pkg_gunzip_new(void);

void pkg_gunzip_free(pkg_gunzip *reader);

/// Inflates from `input` (`input_length` bytes) into `output` (capacity `output_length`),
/// setting `*consumed` and `*produced`. Returns 1 when a member ended (the reader is then
/// ready for the next one), 0 when it needs more input or more room, -1 on bytes that are
/// not gzip or are corrupt, with zlib's reason in `*message`.
int pkg_gunzip_inflate(pkg_gunzip *reader, const uint8_t *input, size_t input_length, size_t *consumed,
                       uint8_t *output, size_t output_length, size_t *produced, const char **message);

#endif
