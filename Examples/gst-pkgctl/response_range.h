/*
 * response_range: where a response body sits in the file, from its status, Content-Range and
 * Content-Length (RFC 9110 §14.4), so the source knows the file's size and whether it can seek.
 */
#ifndef GST_PKGCTL_RESPONSE_RANGE_H
#define GST_PKGCTL_RESPONSE_RANGE_H

#include <pkgctl/resolver.h>
#include <stdbool.h>
#include <stdint.h>

/** What a response head says about its body. */
struct response_range {
    /** Offset in the file of the body's first byte: Content-Range's first byte for a 206, else 0. */
    uint64_t first;
    /** The whole file's size; 0 when unknown (no Content-Length, or a Content-Range total of "*"). */
    uint64_t total;
    /** True for a 206 with a byte Content-Range, or a 200 that says `Accept-Ranges: bytes`. */
    bool ranged;
};

/** Reads `status` and `headers`; false when a 206 has no usable Content-Range. */
bool response_range_parse(int32_t status, const pkgctl_header *headers, size_t count, struct response_range *range);

#endif
