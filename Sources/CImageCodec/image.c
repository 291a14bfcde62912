#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pkg_image_status pkg_image_fail(char *message, pkg_image_status status, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(message, PKG_IMAGE_MESSAGE_SIZE, format, arguments);
    va_end(arguments);
    return status;
}

pkg_image_status pkg_image_allocate(pkg_image *image, uint32_t width, uint32_t height, uint64_t max_pixels, char *message) {
    if (width == 0 || height == 0) return pkg_image_fail(message, PKG_IMAGE_CORRUPT, "empty image (%ux%u)", width, height);
    if ((uint64_t)width * height > max_pixels) {
        return pkg_image_fail(message, PKG_IMAGE_TOO_LARGE, "%ux%u is above the limit of %llu pixels",
                              width, height, (unsigned long long)max_pixels);
    }
    image->pixels = malloc((size_t)width * height * 4);
    if (image->pixels == NULL) return pkg_image_fail(message, PKG_IMAGE_FAILED, "out of memory for %ux%u pixels", width, height);
    image->width = width;
    image->height = height;
    return PKG_IMAGE_OK;
}

pkg_image_status pkg_image_data_copy(const uint8_t *bytes, size_t size, pkg_image_data *output, char *message) {
    output->bytes = malloc(size > 0 ? size : 1);
    if (output->bytes == NULL) return pkg_image_fail(message, PKG_IMAGE_FAILED, "out of memory for %zu bytes", size);
    memcpy(output->bytes, bytes, size);
    output->size = size;
    return PKG_IMAGE_OK;
}

int pkg_image_is_opaque(const pkg_image *image) {
    size_t count = (size_t)image->width * image->height;
    for (size_t i = 0; i < count; i++) {
        if (image->pixels[i * 4 + 3] != 255) return 0;
    }
    return 1;
}

size_t pkg_image_count_colours(const pkg_image *image, size_t limit) {
    // Open addressing over a table at least twice the limit; slot 0 of `used` marks empty.
    enum { slots = 8192 };
    uint32_t values[slots];
    uint8_t used[slots];
    if (limit > 4096) limit = 4096;
    memset(used, 0, sizeof used);
    size_t found = 0;
    size_t count = (size_t)image->width * image->height;
    for (size_t i = 0; i < count; i++) {
        uint32_t value;
        memcpy(&value, image->pixels + i * 4, 4);
        size_t slot = (value * 2654435761u) % slots;
        while (used[slot] && values[slot] != value) slot = (slot + 1) % slots;
        if (used[slot]) continue;
        used[slot] = 1;
        values[slot] = value;
        if (++found > limit) break;
    }
    return found;
}

void pkg_image_free(pkg_image *image) {
    free(image->pixels);
    image->pixels = NULL;
}

void pkg_image_data_free(pkg_image_data *data) {
    free(data->bytes);
    data->bytes = NULL;
    data->size = 0;
}
