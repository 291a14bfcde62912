#include "internal.h"

#include <png.h>
#include <string.h>

/// Whether the chunks before the first IDAT include acTL (an animated PNG).
static int is_animated(const uint8_t *data, size_t size) {
    size_t position = 8;
    while (position <= size && size - position >= 8) {
        uint32_t length = (uint32_t)data[position] << 24 | (uint32_t)data[position + 1] << 16
            | (uint32_t)data[position + 2] << 8 | data[position + 3];
        const uint8_t *type = data + position + 4;
        if (memcmp(type, "IDAT", 4) == 0) return 0;
        if (memcmp(type, "acTL", 4) == 0) return 1;
        if (length > size - position - 8) return 0;
        position += 12 + (size_t)length;
    }
    return 0;
}

pkg_image_status pkg_png_decode(const uint8_t *data, size_t size, uint64_t max_pixels, pkg_image *image, char *message) {
    png_image png;
    memset(&png, 0, sizeof png);
    png.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&png, data, size)) {
        pkg_image_status status = pkg_image_fail(message, PKG_IMAGE_CORRUPT, "not a readable PNG: %s", png.message);
        png_image_free(&png);
        return status;
    }
    if (is_animated(data, size)) {
        png_image_free(&png);
        return pkg_image_fail(message, PKG_IMAGE_UNSUPPORTED, "an animated PNG");
    }
    if (png.flags & PNG_IMAGE_FLAG_COLORSPACE_NOT_sRGB) {
        png_image_free(&png);
        return pkg_image_fail(message, PKG_IMAGE_UNSUPPORTED, "its colour space is not sRGB");
    }
    pkg_image_status status = pkg_image_allocate(image, png.width, png.height, max_pixels, message);
    if (status != PKG_IMAGE_OK) {
        png_image_free(&png);
        return status;
    }
    png.format = PNG_FORMAT_RGBA;
    if (!png_image_finish_read(&png, NULL, image->pixels, 0, NULL)) {
        status = pkg_image_fail(message, PKG_IMAGE_CORRUPT, "not a readable PNG: %s", png.message);
        pkg_image_free(image);
    }
    png_image_free(&png);
    return status;
}
