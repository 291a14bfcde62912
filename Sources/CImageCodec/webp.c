#include "internal.h"

#include <string.h>
#include <webp/decode.h>
#include <webp/encode.h>

pkg_image_status pkg_webp_decode(const uint8_t *data, size_t size, uint64_t max_pixels, pkg_image *image, char *message) {
    WebPBitstreamFeatures features;
    if (WebPGetFeatures(data, size, &features) != VP8_STATUS_OK) {
        return pkg_image_fail(message, PKG_IMAGE_CORRUPT, "not a readable WebP");
    }
    if (features.has_animation) return pkg_image_fail(message, PKG_IMAGE_UNSUPPORTED, "an animated WebP");
    pkg_image_status status = pkg_image_allocate(image, (uint32_t)features.width, (uint32_t)features.height, max_pixels, message);
    if (status != PKG_IMAGE_OK) return status;
    size_t length = (size_t)image->width * image->height * 4;
    if (WebPDecodeRGBAInto(data, size, image->pixels, length, (int)image->width * 4) == NULL) {
        pkg_image_free(image);
        return pkg_image_fail(message, PKG_IMAGE_CORRUPT, "not a readable WebP");
    }
    return PKG_IMAGE_OK;
}

pkg_image_status pkg_webp_encode(const pkg_image *image, int lossless, int quality, pkg_image_data *output, char *message) {
    if (image->width > WEBP_MAX_DIMENSION || image->height > WEBP_MAX_DIMENSION) {
        return pkg_image_fail(message, PKG_IMAGE_UNSUPPORTED, "%ux%u is past WebP's %d pixels a side",
                              image->width, image->height, WEBP_MAX_DIMENSION);
    }
    WebPConfig config;
    if (!WebPConfigInit(&config)) return pkg_image_fail(message, PKG_IMAGE_FAILED, "libwebp version mismatch");
    if (lossless) {
        WebPConfigLosslessPreset(&config, 6);
        config.exact = 1;
    } else {
        config.quality = (float)quality;
        config.method = 6;
    }
    if (!WebPValidateConfig(&config)) return pkg_image_fail(message, PKG_IMAGE_FAILED, "WebP settings out of range");
    WebPPicture picture;
    if (!WebPPictureInit(&picture)) return pkg_image_fail(message, PKG_IMAGE_FAILED, "libwebp version mismatch");
    picture.use_argb = lossless;
    picture.width = (int)image->width;
    picture.height = (int)image->height;
    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    pkg_image_status status = PKG_IMAGE_OK;
    if (!WebPPictureImportRGBA(&picture, image->pixels, (int)image->width * 4)) {
        status = pkg_image_fail(message, PKG_IMAGE_FAILED, "out of memory for a %ux%u WebP", image->width, image->height);
    } else if (!WebPEncode(&config, &picture)) {
        status = pkg_image_fail(message, PKG_IMAGE_FAILED, "WebP encoding failed (libwebp error %d)", picture.error_code);
    } else {
        status = pkg_image_data_copy(writer.mem, writer.size, output, message);
    }
    WebPPictureFree(&picture);
    WebPMemoryWriterClear(&writer);
    return status;
}
