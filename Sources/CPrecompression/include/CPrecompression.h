#ifndef PKG_CPRECOMPRESSION_H
#define PKG_CPRECOMPRESSION_H

// The encoders `pack --precompress` runs (gzip level 9, brotli quality 11): a publisher's
// concern, apart from CCompression so the resolver library apps embed links no encoder.

#include <stddef.h>
#include <stdint.h>

/// Largest gzip output for `length` input bytes (0: too large).
size_t pkg_gzip_bound(size_t length);

/// Gzips `length` bytes at `input` at level 9 into `output` (capacity `*output_length`),
/// with a fixed header (no name, mtime 0), so the same input gives the same bytes.
/// On success returns 0 and sets `*output_length`; -1 on failure.
int pkg_gzip(const uint8_t *input, size_t length, uint8_t *output, size_t *output_length);

/// Largest brotli output for `length` input bytes (0: too large).
size_t pkg_brotli_bound(size_t length);

/// Brotli-compresses at quality 11 (window 22) into `output` (capacity `*output_length`).
/// On success returns 0 and sets `*output_length`; -1 on failure.
int pkg_brotli(const uint8_t *input, size_t length, uint8_t *output, size_t *output_length);

#endif
