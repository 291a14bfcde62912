#include "internal.h"

#include <avif/avif.h>
#include <string.h>

pkg_image_status pkg_avif_decode(const uint8_t *data, size_t size, uint64_t max_pixels, pkg_image *image, char *message) {
    avifDecoder *decoder = avifDecoderCreate();
    if (decoder == NULL) return pkg_image_fail(message, PKG_IMAGE_FAILED, "out of memory for an AVIF decoder");
    decoder->maxThreads = 1;
    decoder->imageSizeLimit = max_pixels < AVIF_DEFAULT_IMAGE_SIZE_LIMIT ? (uint32_t)max_pixels : AVIF_DEFAULT_IMAGE_SIZE_LIMIT;
    decoder->imageCountLimit = 1;
    pkg_image_status status = PKG_IMAGE_OK;
    avifResult result = avifDecoderSetIOMemory(decoder, data, size);
    if (result == AVIF_RESULT_OK) result = avifDecoderParse(decoder);
    if (result == AVIF_RESULT_OK) result = avifDecoderNextImage(decoder);
    if (result != AVIF_RESULT_OK) {
        status = pkg_image_fail(message, PKG_IMAGE_CORRUPT, "not a readable AVIF: %s", avifResultToString(result));
    } else {
        status = pkg_image_allocate(image, decoder->image->width, decoder->image->height, max_pixels, message);
    }
    if (status == PKG_IMAGE_OK) {
        avifRGBImage rgb;
        avifRGBImageSetDefaults(&rgb, decoder->image);
        rgb.format = AVIF_RGB_FORMAT_RGBA;
        rgb.depth = 8;
        rgb.pixels = image->pixels;
        rgb.rowBytes = image->width * 4;
        result = avifImageYUVToRGB(decoder->image, &rgb);
        if (result != AVIF_RESULT_OK) {
            status = pkg_image_fail(message, PKG_IMAGE_FAILED, "AVIF to RGB failed: %s", avifResultToString(result));
            pkg_image_free(image);
        }
    }
    avifDecoderDestroy(decoder);
    return status;
}

pkg_image_status pkg_avif_encode(const pkg_image *image, int lossless, int quantizer, pkg_image_data *output, char *message) {
    // AV1 codes at most 65536 pixels a side (libaom fails past it): no AVIF of such an image.
    if (image->width > 65536 || image->height > 65536) {
        return pkg_image_fail(message, PKG_IMAGE_UNSUPPORTED, "%ux%u is past AV1's 65536 pixels a side",
                              image->width, image->height);
    }
    avifImage *yuv = avifImageCreate(image->width, image->height, 8,
                                     lossless ? AVIF_PIXEL_FORMAT_YUV444 : AVIF_PIXEL_FORMAT_YUV420);
    avifEncoder *encoder = avifEncoderCreate();
    if (yuv == NULL || encoder == NULL) {
        if (yuv != NULL) avifImageDestroy(yuv);
        if (encoder != NULL) avifEncoderDestroy(encoder);
        return pkg_image_fail(message, PKG_IMAGE_FAILED, "out of memory for an AVIF encoder");
    }
    yuv->colorPrimaries = AVIF_COLOR_PRIMARIES_BT709;
    yuv->transferCharacteristics = AVIF_TRANSFER_CHARACTERISTICS_SRGB;
    yuv->matrixCoefficients = lossless ? AVIF_MATRIX_COEFFICIENTS_IDENTITY : AVIF_MATRIX_COEFFICIENTS_BT601;
    yuv->yuvRange = AVIF_RANGE_FULL;
    avifRGBImage rgb;
    avifRGBImageSetDefaults(&rgb, yuv);
    rgb.format = AVIF_RGB_FORMAT_RGBA;
    rgb.depth = 8;
    rgb.ignoreAlpha = pkg_image_is_opaque(image);
    rgb.pixels = image->pixels;
    rgb.rowBytes = image->width * 4;

    encoder->codecChoice = AVIF_CODEC_CHOICE_AOM;
    encoder->maxThreads = 1;
    encoder->speed = 6;
    int chosen = lossless ? AVIF_QUANTIZER_LOSSLESS : quantizer;
    encoder->minQuantizer = encoder->maxQuantizer = chosen;
    encoder->minQuantizerAlpha = encoder->maxQuantizerAlpha = chosen;
    avifRWData encoded = AVIF_DATA_EMPTY;
    pkg_image_status status = PKG_IMAGE_OK;
    avifResult result = avifImageRGBToYUV(yuv, &rgb);
    if (result == AVIF_RESULT_OK) result = avifEncoderWrite(encoder, yuv, &encoded);
    if (result != AVIF_RESULT_OK) {
        status = pkg_image_fail(message, PKG_IMAGE_FAILED, "AVIF encoding failed: %s", avifResultToString(result));
    } else {
        status = pkg_image_data_copy(encoded.data, encoded.size, output, message);
    }
    avifRWDataFree(&encoded);
    avifEncoderDestroy(encoder);
    avifImageDestroy(yuv);
    return status;
}
