// posenc/kernels.hpp: the hot loops of the attention layer, as plain loops on
// raw row-major arrays. Each inner loop runs over contiguous memory with one
// multiply-add per element and no reduction, so clang vectorises it for
// -msimd128 without reassociating floating-point sums (llm.c style).
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>

namespace posenc::kernels {

/// out [m, n] = a [m, k] . b [k, n] (all row-major). Order i-k-j: the inner
/// loop is out[i, :] += a[i, p] * b[p, :].
inline void matmul(const float* a, const float* b, float* out, std::size_t m, std::size_t k, std::size_t n) {
    for (std::size_t i = 0; i < m; ++i) {
        float* row = out + i * n;
        for (std::size_t j = 0; j < n; ++j) row[j] = 0.0f;
        for (std::size_t p = 0; p < k; ++p) {
            const float scale = a[i * k + p];
            const float* brow = b + p * n;
            for (std::size_t j = 0; j < n; ++j) row[j] += scale * brow[j];
        }
    }
}

/// out [n, m] = transpose of a [m, n].
inline void transpose(const float* a, float* out, std::size_t m, std::size_t n) {
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) out[j * m + i] = a[i * n + j];
}

/// Row-wise softmax in place of x [m, n], numerically stable (the row's max is
/// subtracted first); -infinity entries get weight 0. A row of all -infinity
/// would be 0/0: the attention layer never makes one (the diagonal is kept).
inline void softmax_rows(float* x, std::size_t m, std::size_t n) {
    for (std::size_t i = 0; i < m; ++i) {
        float* row = x + i * n;
        float max = -std::numeric_limits<float>::infinity();
        for (std::size_t j = 0; j < n; ++j) max = row[j] > max ? row[j] : max;
        double sum = 0.0;
        for (std::size_t j = 0; j < n; ++j) {
            row[j] = std::exp(row[j] - max);
            sum += row[j];
        }
        const float inv = float(1.0 / sum);
        for (std::size_t j = 0; j < n; ++j) row[j] *= inv;
    }
}

}  // namespace posenc::kernels
