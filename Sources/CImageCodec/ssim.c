#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { radius = 5, window = 2 * radius + 1, channels = 3, moments = 5, planes = channels * moments };

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

/// Filters row `y` horizontally: `values` gets, per channel, the planes a, b, a², b² and ab of the
/// whole row (`width` each); `out` their weighted sums at each x where the window fits (`width - 10` each).
static void filter_row(const pkg_image *a, const pkg_image *b, uint32_t y, const double weights[window],
                       double *values, double *out) {
    size_t width = a->width, columns = width - 2 * radius;
    const uint8_t *rowA = a->pixels + y * width * 4, *rowB = b->pixels + y * width * 4;
    for (int c = 0; c < channels; c++) {
        double *plane = values + (size_t)c * moments * width;
        for (size_t x = 0; x < width; x++) {
            double va = rowA[x * 4 + c], vb = rowB[x * 4 + c];
            plane[x] = va;
            plane[width + x] = vb;
            plane[2 * width + x] = va * va;
            plane[3 * width + x] = vb * vb;
            plane[4 * width + x] = va * vb;
        }
    }
    memset(out, 0, planes * columns * sizeof(double));
    for (int p = 0; p < planes; p++) {
        const double *in = values + (size_t)p * width;
        double *filtered = out + (size_t)p * columns;
        for (int k = 0; k < window; k++) {
            double w = weights[k];
            for (size_t x = 0; x < columns; x++) filtered[x] += w * in[x + k];
        }
    }
}

double pkg_image_ssim(const pkg_image *a, const pkg_image *b) {
    if (a->width != b->width || a->height != b->height || a->width < window || a->height < window) return -1;
    const double c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255);
    double weights[window];
    gaussian(weights);
    size_t columns = a->width - 2 * radius, rows = a->height - 2 * radius, rowSize = planes * columns;
    // The last 11 filtered rows in a ring, one row of planes, and the vertical sums.
    double *ring = malloc(rowSize * window * sizeof(double));
    double *values = malloc(planes * (size_t)a->width * sizeof(double));
    double *sums = malloc(rowSize * sizeof(double));
    double total = -1;
    if (ring != NULL && values != NULL && sums != NULL) {
        total = 0;
        for (uint32_t y = 0; y < a->height; y++) {
            filter_row(a, b, y, weights, values, ring + (y % window) * rowSize);
            if (y + 1 < window) continue;
            uint32_t top = y + 1 - window;
            memset(sums, 0, rowSize * sizeof(double));
            for (int k = 0; k < window; k++) {
                const double *filtered = ring + ((top + k) % window) * rowSize;
                double w = weights[k];
                for (size_t i = 0; i < rowSize; i++) sums[i] += w * filtered[i];
            }
            for (int c = 0; c < channels; c++) {
                const double *m = sums + (size_t)c * moments * columns;
                for (size_t x = 0; x < columns; x++) {
                    double meanA = m[x], meanB = m[columns + x];
                    double varianceA = m[2 * columns + x] - meanA * meanA, varianceB = m[3 * columns + x] - meanB * meanB;
                    double covariance = m[4 * columns + x] - meanA * meanB;
                    total += ((2 * meanA * meanB + c1) * (2 * covariance + c2))
                        / ((meanA * meanA + meanB * meanB + c1) * (varianceA + varianceB + c2));
                }
            }
        }
        total /= (double)columns * rows * channels;
    }
    free(ring);
    free(values);
    free(sums);
    return total;
}
