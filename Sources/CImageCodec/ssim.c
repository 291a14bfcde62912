#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { radius = 5, window = 2 * radius + 1, channels = 3, moments = 5 };

/// The window's weights: a Gaussian with σ 1.5 over 11 taps, summing to 1 (scipy's gaussian_filter kernel).
static void gaussian(double weights[window]) {
    double sum = 0;
    for (int i = 0; i < window; i++) {
        double x = i - radius;
        weights[i] = exp(-x * x / (2 * 1.5 * 1.5));
        sum += weights[i];
    }
    for (int i = 0; i < window; i++) weights[i] /= sum;
}

/// Filters row `y` of both images horizontally into `out`: for each channel and each x where the
/// window fits, the weighted a, b, a², b² and ab.
static void filter_row(const pkg_image *a, const pkg_image *b, uint32_t y, const double weights[window], double *out) {
    uint32_t columns = a->width - 2 * radius;
    const uint8_t *rowA = a->pixels + (size_t)y * a->width * 4;
    const uint8_t *rowB = b->pixels + (size_t)y * b->width * 4;
    for (uint32_t x = 0; x < columns; x++) {
        for (int c = 0; c < channels; c++) {
            double sums[moments] = {0};
            for (int k = 0; k < window; k++) {
                double va = rowA[(size_t)(x + k) * 4 + c], vb = rowB[(size_t)(x + k) * 4 + c], w = weights[k];
                sums[0] += w * va;
                sums[1] += w * vb;
                sums[2] += w * va * va;
                sums[3] += w * vb * vb;
                sums[4] += w * va * vb;
            }
            memcpy(out + ((size_t)x * channels + c) * moments, sums, sizeof sums);
        }
    }
}

double pkg_image_ssim(const pkg_image *a, const pkg_image *b) {
    if (a->width != b->width || a->height != b->height || a->width < window || a->height < window) return -1;
    const double c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255);
    double weights[window];
    gaussian(weights);
    uint32_t columns = a->width - 2 * radius, rows = a->height - 2 * radius;
    size_t rowSize = (size_t)columns * channels * moments;
    // The last 11 filtered rows, in a ring.
    double *ring = malloc(rowSize * window * sizeof(double));
    if (ring == NULL) return -1;
    double total = 0;
    for (uint32_t y = 0; y < a->height; y++) {
        filter_row(a, b, y, weights, ring + (y % window) * rowSize);
        if (y + 1 < window) continue;
        uint32_t top = y + 1 - window;
        for (size_t i = 0; i < (size_t)columns * channels; i++) {
            double m[moments] = {0};
            for (int k = 0; k < window; k++) {
                const double *filtered = ring + ((top + k) % window) * rowSize + i * moments;
                for (int j = 0; j < moments; j++) m[j] += weights[k] * filtered[j];
            }
            double varianceA = m[2] - m[0] * m[0], varianceB = m[3] - m[1] * m[1], covariance = m[4] - m[0] * m[1];
            total += ((2 * m[0] * m[1] + c1) * (2 * covariance + c2))
                / ((m[0] * m[0] + m[1] * m[1] + c1) * (varianceA + varianceB + c2));
        }
    }
    free(ring);
    return total / ((double)columns * rows * channels);
}
