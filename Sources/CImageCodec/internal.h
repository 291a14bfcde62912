#ifndef PKG_CIMAGECODEC_INTERNAL_H
#define PKG_CIMAGECODEC_INTERNAL_H

#include "CImageCodec.h"

/// Writes a printf-style reason into `message` (PKG_IMAGE_MESSAGE_SIZE bytes) and returns `status`.
pkg_image_status pkg_image_fail(char *message, pkg_image_status status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/// Allocates `image`'s pixels for `width` x `height`, unless that is empty or above `max_pixels`.
pkg_image_status pkg_image_allocate(pkg_image *image, uint32_t width, uint32_t height, uint64_t max_pixels, char *message);

/// Copies `size` bytes into `output` (from malloc).
pkg_image_status pkg_image_data_copy(const uint8_t *bytes, size_t size, pkg_image_data *output, char *message);

#endif
