#include "internal.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

/// libjpeg's error manager, with a jump back to pkg_jpeg_decode instead of exit().
typedef struct jpeg_failure {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    int too_many_scans;
    char first_warning[JMSG_LENGTH_MAX];
} jpeg_failure;

static void exit_with_error(j_common_ptr common) {
    longjmp(((jpeg_failure *)common->err)->jump, 1);
}

/// Counts warnings (data libjpeg patched over) and keeps the first one's text; prints nothing.
static void note_message(j_common_ptr common, int level) {
    if (level >= 0) return;
    jpeg_failure *failure = (jpeg_failure *)common->err;
    if (failure->manager.num_warnings++ == 0) failure->manager.format_message(common, failure->first_warning);
}

/// Stops a progressive JPEG with an unreasonable number of scans (each costs a pass over the image).
static void limit_scans(j_common_ptr common) {
    jpeg_failure *failure = (jpeg_failure *)common->err;
    if (common->is_decompressor && ((j_decompress_ptr)common)->input_scan_number > 1000) {
        failure->too_many_scans = 1;
        longjmp(failure->jump, 1);
    }
}

static uint32_t read_16(const uint8_t *bytes, int little) {
    return little ? (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 : (uint32_t)bytes[0] << 8 | bytes[1];
}

static uint32_t read_32(const uint8_t *bytes, int little) {
    return little ? read_16(bytes, 1) | read_16(bytes + 2, 1) << 16 : read_16(bytes, 0) << 16 | read_16(bytes + 2, 0);
}

/// Big-endian 32-bit value at `data` (the caller checked 4 bytes are there).
static uint32_t icc_u32(const uint8_t *data) {
    return (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 | (uint32_t)data[2] << 8 | data[3];
}

/// Whether `text` (`size` bytes, ASCII, or UTF-16BE when `wide`) contains "sRGB".
static int names_srgb(const uint8_t *text, size_t size, int wide) {
    static const char srgb[4] = {'s', 'R', 'G', 'B'};
    size_t step = wide ? 2 : 1;
    for (size_t start = 0; start + 4 * step <= size; start += step) {
        int match = 1;
        for (size_t i = 0; i < 4 && match; i++) {
            if (wide && text[start + i * 2] != 0) match = 0;
            if (text[start + i * step + (wide ? 1 : 0)] != (uint8_t)srgb[i]) match = 0;
        }
        if (match) return 1;
    }
    return 0;
}

/// Whether an ICC profile is an RGB one whose description names sRGB (the profile cameras and
/// editors embed for plain sRGB pictures, which decode right without colour management). Every
/// offset is checked against the profile's length: its bytes are the file's.
static int icc_profile_is_srgb(const uint8_t *profile, size_t length) {
    if (length < 132 || memcmp(profile + 16, "RGB ", 4) != 0) return 0;
    uint32_t count = icc_u32(profile + 128);
    if (count > (length - 132) / 12) return 0;
    for (uint32_t tag = 0; tag < count; tag++) {
        const uint8_t *entry = profile + 132 + (size_t)tag * 12;
        if (memcmp(entry, "desc", 4) != 0) continue;
        uint32_t offset = icc_u32(entry + 4), size = icc_u32(entry + 8);
        if (offset > length || size > length - offset || size < 12) return 0;
        const uint8_t *data = profile + offset;
        if (memcmp(data, "desc", 4) == 0) {  // ICC v2: an ASCII count and text
            uint32_t text = icc_u32(data + 8);
            return text <= size - 12 && names_srgb(data + 12, text, 0);
        }
        if (memcmp(data, "mluc", 4) == 0 && size >= 16) {  // ICC v4: UTF-16BE records
            uint32_t records = icc_u32(data + 8), record_size = icc_u32(data + 12);
            if (record_size < 12 || records > (size - 16) / record_size) return 0;
            for (uint32_t record = 0; record < records; record++) {
                const uint8_t *item = data + 16 + (size_t)record * record_size;
                uint32_t text_size = icc_u32(item + 4), text_offset = icc_u32(item + 8);
                if (text_offset <= size && text_size <= size - text_offset && names_srgb(data + text_offset, text_size, 1)) {
                    return 1;
                }
            }
        }
        return 0;
    }
    return 0;
}

/// The EXIF orientation in an APP1 marker (1, the upright default, when absent or unreadable).
static unsigned exif_orientation(const jpeg_saved_marker_ptr marker) {
    const uint8_t *data = marker->data;
    size_t size = marker->data_length;
    if (size < 14 || memcmp(data, "Exif\0\0", 6) != 0) return 1;
    const uint8_t *tiff = data + 6;
    size -= 6;
    int little = tiff[0] == 'I' && tiff[1] == 'I';
    if (!little && !(tiff[0] == 'M' && tiff[1] == 'M')) return 1;
    uint32_t directory = read_32(tiff + 4, little);
    if (directory > size - 2) return 1;
    uint32_t entries = read_16(tiff + directory, little);
    for (uint32_t i = 0; i < entries; i++) {
        size_t entry = directory + 2 + (size_t)i * 12;
        if (entry + 12 > size) return 1;
        if (read_16(tiff + entry, little) == 0x0112) return read_16(tiff + entry + 8, little);
    }
    return 1;
}

pkg_image_status pkg_jpeg_decode(const uint8_t *data, size_t size, uint64_t max_pixels, pkg_image *image, char *message) {
    struct jpeg_decompress_struct decompress;
    jpeg_failure failure;
    struct jpeg_progress_mgr progress = {.progress_monitor = limit_scans};
    pkg_image_status status = PKG_IMAGE_OK;
    image->pixels = NULL;
    memset(&decompress, 0, sizeof decompress);  // jpeg_destroy_decompress after an early error sees no memory manager
    decompress.err = jpeg_std_error(&failure.manager);
    failure.manager.error_exit = exit_with_error;
    failure.manager.emit_message = note_message;
    failure.too_many_scans = 0;
    failure.first_warning[0] = '\0';
    if (setjmp(failure.jump)) {
        char reason[JMSG_LENGTH_MAX] = "more than 1000 scans";
        if (!failure.too_many_scans) decompress.err->format_message((j_common_ptr)&decompress, reason);
        pkg_image_fail(message, PKG_IMAGE_CORRUPT, "not a readable JPEG: %s", reason);
        jpeg_destroy_decompress(&decompress);
        pkg_image_free(image);
        return PKG_IMAGE_CORRUPT;
    }
    jpeg_create_decompress(&decompress);
    decompress.progress = &progress;
    jpeg_mem_src(&decompress, data, (unsigned long)size);
    jpeg_save_markers(&decompress, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&decompress, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(&decompress, TRUE);

    JOCTET *profile = NULL;
    unsigned int profile_length = 0;
    unsigned orientation = 1;
    for (jpeg_saved_marker_ptr marker = decompress.marker_list; marker != NULL; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1 && orientation == 1) orientation = exif_orientation(marker);
    }
    if (decompress.jpeg_color_space == JCS_CMYK || decompress.jpeg_color_space == JCS_YCCK) {
        status = pkg_image_fail(message, PKG_IMAGE_UNSUPPORTED, "a CMYK JPEG");
    } else if (jpeg_read_icc_profile(&decompress, &profile, &profile_length)
               && !icc_profile_is_srgb(profile, profile_length)) {
        free(profile);
        profile = NULL;
        status = pkg_image_fail(message, PKG_IMAGE_UNSUPPORTED, "it embeds an ICC colour profile other than sRGB");
    } else if (orientation != 1) {
        status = pkg_image_fail(message, PKG_IMAGE_UNSUPPORTED, "its EXIF orientation is %u, not 1", orientation);
    } else {
        status = pkg_image_allocate(image, decompress.image_width, decompress.image_height, max_pixels, message);
    }
    free(profile);  // an sRGB profile read above (NULL otherwise; the refused one was freed)
    profile = NULL;
    if (status != PKG_IMAGE_OK) {
        jpeg_destroy_decompress(&decompress);
        return status;
    }
    decompress.out_color_space = JCS_EXT_RGBA;
    jpeg_start_decompress(&decompress);
    while (decompress.output_scanline < decompress.output_height) {
        JSAMPROW row = image->pixels + (size_t)decompress.output_scanline * image->width * 4;
        jpeg_read_scanlines(&decompress, &row, 1);
    }
    jpeg_finish_decompress(&decompress);
    if (decompress.err->num_warnings > 0) {
        status = pkg_image_fail(message, PKG_IMAGE_UNSUPPORTED, "damaged JPEG data: %s", failure.first_warning);
        pkg_image_free(image);
    }
    jpeg_destroy_decompress(&decompress);
    return status;
}
