#ifndef PKG_CIMAGECODEC_H
#define PKG_CIMAGECODEC_H

#include <stddef.h>
#include <stdint.h>

/// An 8-bit RGBA image, not premultiplied, rows of `width * 4` bytes; `pixels` is from malloc.
typedef struct pkg_image {
    uint8_t *pixels;
    uint32_t width;
    uint32_t height;
} pkg_image;

/// Encoded bytes from malloc.
typedef struct pkg_image_data {
    uint8_t *bytes;
    size_t size;
} pkg_image_data;

typedef enum pkg_image_status {
    PKG_IMAGE_OK = 0,
    /// The input is not a valid file of its format.
    PKG_IMAGE_CORRUPT,
    /// More pixels than the caller's limit.
    PKG_IMAGE_TOO_LARGE,
    /// Valid, but not something a variant can stand in for (CMYK, animated, a colour profile, …).
    PKG_IMAGE_UNSUPPORTED,
    /// Out of memory, or the codec failed.
    PKG_IMAGE_FAILED,
} pkg_image_status;

/// Room for the one-line reason the functions below write on failure.
#define PKG_IMAGE_MESSAGE_SIZE 200

/// Decodes a PNG (any bit depth, palette, grey or colour) to 8-bit RGBA with libpng's simplified API.
/// Refuses more than `max_pixels` pixels before allocating them; an APNG or a colour space other than
/// sRGB is PKG_IMAGE_UNSUPPORTED. Fills `message` on failure.
pkg_image_status pkg_png_decode(const uint8_t *data, size_t size, uint64_t max_pixels, pkg_image *image, char *message);

/// Decodes a baseline or progressive JPEG (grey or YCbCr) to RGBA with libjpeg-turbo. CMYK/YCCK, an
/// embedded ICC profile, an EXIF orientation other than 1, or data libjpeg had to patch over (a
/// truncated file) is PKG_IMAGE_UNSUPPORTED; more than 1000 scans is PKG_IMAGE_CORRUPT.
pkg_image_status pkg_jpeg_decode(const uint8_t *data, size_t size, uint64_t max_pixels, pkg_image *image, char *message);

/// Decodes a WebP (still) to RGBA with libwebp.
pkg_image_status pkg_webp_decode(const uint8_t *data, size_t size, uint64_t max_pixels, pkg_image *image, char *message);

/// Decodes the first image of an AVIF to 8-bit RGBA with libavif (one thread).
pkg_image_status pkg_avif_decode(const uint8_t *data, size_t size, uint64_t max_pixels, pkg_image *image, char *message);

/// Encodes `image` as WebP with libwebp, one thread: lossless (preset level 6, RGB under transparent
/// pixels kept exactly) when `lossless`, else lossy at `quality` (0–100, method 6).
pkg_image_status pkg_webp_encode(const pkg_image *image, int lossless, int quality, pkg_image_data *output, char *message);

/// Encodes `image` as AVIF with libavif and libaom, one thread, speed 6, sRGB (BT.709 primaries, sRGB
/// transfer), full range. Lossless: 4:4:4 with the identity matrix and quantizer 0 (alpha too); lossy:
/// 4:2:0, BT.601 matrix, `quantizer` (0–63) for colour and alpha. An opaque image has no alpha plane.
pkg_image_status pkg_avif_encode(const pkg_image *image, int lossless, int quantizer, pkg_image_data *output, char *message);

/// Whether every pixel's alpha is 255.
int pkg_image_is_opaque(const pkg_image *image);

/// How many distinct RGBA values `image` has, counting no further than `limit + 1` (`limit` ≤ 4096).
size_t pkg_image_count_colours(const pkg_image *image, size_t limit);

/// The mean SSIM (Wang et al. 2004) of the R, G and B channels of two images of the same size: an
/// 11x11 Gaussian window with σ 1.5, K1 0.01, K2 0.03, L 255, over every position where the window fits
/// (as scikit-image's structural_similarity with gaussian_weights crops its map). Alpha is not looked at.
/// -1 when the sizes differ, a side is under 11 pixels, or memory runs out.
double pkg_image_ssim(const pkg_image *a, const pkg_image *b);

/// Frees the pixels of `image`.
void pkg_image_free(pkg_image *image);

/// Frees the bytes of `data`.
void pkg_image_data_free(pkg_image_data *data);

#endif
