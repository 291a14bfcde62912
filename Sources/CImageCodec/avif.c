#include "internal.h"

#include <avif/avif.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

// libavif is opened on first use, not linked: it brings 25 more libraries (libaom, rav1e,
// SVT-AV1, dav1d, libgav1, abseil, libyuv), which every pkgctl run would load and relocate
// (8 M instructions of a no-change `update`) though only `pack --image-variants` and the
// image checks use them. The soname is Debian 12's; the header must be of that release.
#define PKG_AVIF_SONAME "libavif.so.15"
_Static_assert(AVIF_VERSION_MAJOR == 0 && AVIF_VERSION_MINOR == 11, "libavif.so.15 is libavif 0.11");

static struct {
    __typeof__(avifDecoderCreate) *decoderCreate;
    __typeof__(avifDecoderDestroy) *decoderDestroy;
    __typeof__(avifDecoderSetIOMemory) *decoderSetIOMemory;
    __typeof__(avifDecoderParse) *decoderParse;
    __typeof__(avifDecoderNextImage) *decoderNextImage;
    __typeof__(avifEncoderCreate) *encoderCreate;
    __typeof__(avifEncoderDestroy) *encoderDestroy;
    __typeof__(avifEncoderWrite) *encoderWrite;
    __typeof__(avifImageCreate) *imageCreate;
    __typeof__(avifImageDestroy) *imageDestroy;
    __typeof__(avifImageRGBToYUV) *imageRGBToYUV;
    __typeof__(avifImageYUVToRGB) *imageYUVToRGB;
    __typeof__(avifRGBImageSetDefaults) *rgbImageSetDefaults;
    __typeof__(avifRWDataFree) *rwDataFree;
    __typeof__(avifResultToString) *resultToString;
} avif;
/// Whether every function was found; else why not. Written once, inside pthread_once.
static int avif_available;
static char avif_load_error[PKG_IMAGE_MESSAGE_SIZE];
static pthread_once_t avif_loaded = PTHREAD_ONCE_INIT;

static void avif_load(void) {
    void *library = dlopen(PKG_AVIF_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(avif_load_error, sizeof avif_load_error, "%s", dlerror());
        return;
    }
#define PKG_AVIF_SYMBOL(field, name) \
    if ((avif.field = (__typeof__(avif.field))dlsym(library, #name)) == NULL) { \
        snprintf(avif_load_error, sizeof avif_load_error, PKG_AVIF_SONAME " lacks " #name); \
        return; \
    }
    PKG_AVIF_SYMBOL(decoderCreate, avifDecoderCreate)
    PKG_AVIF_SYMBOL(decoderDestroy, avifDecoderDestroy)
    PKG_AVIF_SYMBOL(decoderSetIOMemory, avifDecoderSetIOMemory)
    PKG_AVIF_SYMBOL(decoderParse, avifDecoderParse)
    PKG_AVIF_SYMBOL(decoderNextImage, avifDecoderNextImage)
    PKG_AVIF_SYMBOL(encoderCreate, avifEncoderCreate)
    PKG_AVIF_SYMBOL(encoderDestroy, avifEncoderDestroy)
    PKG_AVIF_SYMBOL(encoderWrite, avifEncoderWrite)
    PKG_AVIF_SYMBOL(imageCreate, avifImageCreate)
    PKG_AVIF_SYMBOL(imageDestroy, avifImageDestroy)
    PKG_AVIF_SYMBOL(imageRGBToYUV, avifImageRGBToYUV)
    PKG_AVIF_SYMBOL(imageYUVToRGB, avifImageYUVToRGB)
    PKG_AVIF_SYMBOL(rgbImageSetDefaults, avifRGBImageSetDefaults)
    PKG_AVIF_SYMBOL(rwDataFree, avifRWDataFree)
    PKG_AVIF_SYMBOL(resultToString, avifResultToString)
#undef PKG_AVIF_SYMBOL
    avif_available = 1;
}

/// Loads libavif once; PKG_IMAGE_OK, or PKG_IMAGE_FAILED with the loader's reason in `message`.
static pkg_image_status avif_ready(char *message) {
    pthread_once(&avif_loaded, avif_load);
    if (avif_available) return PKG_IMAGE_OK;
    return pkg_image_fail(message, PKG_IMAGE_FAILED, "AVIF needs %s: %s", PKG_AVIF_SONAME, avif_load_error);
}

pkg_image_status pkg_avif_decode(const uint8_t *data, size_t size, uint64_t max_pixels, pkg_image *image, char *message) {
    if (avif_ready(message) != PKG_IMAGE_OK) return PKG_IMAGE_FAILED;
    avifDecoder *decoder = avif.decoderCreate();
    if (decoder == NULL) return pkg_image_fail(message, PKG_IMAGE_FAILED, "out of memory for an AVIF decoder");
    decoder->maxThreads = 1;
    decoder->imageSizeLimit = max_pixels < AVIF_DEFAULT_IMAGE_SIZE_LIMIT ? (uint32_t)max_pixels : AVIF_DEFAULT_IMAGE_SIZE_LIMIT;
    decoder->imageCountLimit = 1;
    pkg_image_status status = PKG_IMAGE_OK;
    avifResult result = avif.decoderSetIOMemory(decoder, data, size);
    if (result == AVIF_RESULT_OK) result = avif.decoderParse(decoder);
    if (result == AVIF_RESULT_OK) result = avif.decoderNextImage(decoder);
    if (result != AVIF_RESULT_OK) {
        status = pkg_image_fail(message, PKG_IMAGE_CORRUPT, "not a readable AVIF: %s", avif.resultToString(result));
    } else {
        status = pkg_image_allocate(image, decoder->image->width, decoder->image->height, max_pixels, message);
    }
    if (status == PKG_IMAGE_OK) {
        avifRGBImage rgb;
        avif.rgbImageSetDefaults(&rgb, decoder->image);
        rgb.format = AVIF_RGB_FORMAT_RGBA;
        rgb.depth = 8;
        rgb.pixels = image->pixels;
        rgb.rowBytes = image->width * 4;
        result = avif.imageYUVToRGB(decoder->image, &rgb);
        if (result != AVIF_RESULT_OK) {
            status = pkg_image_fail(message, PKG_IMAGE_FAILED, "AVIF to RGB failed: %s", avif.resultToString(result));
            pkg_image_free(image);
        }
    }
    avif.decoderDestroy(decoder);
    return status;
}

pkg_image_status pkg_avif_encode(const pkg_image *image, int lossless, int quantizer, pkg_image_data *output, char *message) {
    // AV1 codes at most 65536 pixels a side (libaom fails past it): no AVIF of such an image.
    if (image->width > 65536 || image->height > 65536) {
        return pkg_image_fail(message, PKG_IMAGE_UNSUPPORTED, "%ux%u is past AV1's 65536 pixels a side",
                              image->width, image->height);
    }
    if (avif_ready(message) != PKG_IMAGE_OK) return PKG_IMAGE_FAILED;
    avifImage *yuv = avif.imageCreate(image->width, image->height, 8,
                                     lossless ? AVIF_PIXEL_FORMAT_YUV444 : AVIF_PIXEL_FORMAT_YUV420);
    avifEncoder *encoder = avif.encoderCreate();
    if (yuv == NULL || encoder == NULL) {
        if (yuv != NULL) avif.imageDestroy(yuv);
        if (encoder != NULL) avif.encoderDestroy(encoder);
        return pkg_image_fail(message, PKG_IMAGE_FAILED, "out of memory for an AVIF encoder");
    }
    yuv->colorPrimaries = AVIF_COLOR_PRIMARIES_BT709;
    yuv->transferCharacteristics = AVIF_TRANSFER_CHARACTERISTICS_SRGB;
    yuv->matrixCoefficients = lossless ? AVIF_MATRIX_COEFFICIENTS_IDENTITY : AVIF_MATRIX_COEFFICIENTS_BT601;
    yuv->yuvRange = AVIF_RANGE_FULL;
    avifRGBImage rgb;
    avif.rgbImageSetDefaults(&rgb, yuv);
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
    avifResult result = avif.imageRGBToYUV(yuv, &rgb);
    if (result == AVIF_RESULT_OK) result = avif.encoderWrite(encoder, yuv, &encoded);
    if (result != AVIF_RESULT_OK) {
        status = pkg_image_fail(message, PKG_IMAGE_FAILED, "AVIF encoding failed: %s", avif.resultToString(result));
    } else {
        status = pkg_image_data_copy(encoded.data, encoded.size, output, message);
    }
    avif.rwDataFree(&encoded);
    avif.encoderDestroy(encoder);
    avif.imageDestroy(yuv);
    return status;
}
