#include "posenc/kernels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>

#include "posenc/simd.hpp"

namespace posenc::kernels {
namespace {

using simd::f32x4;
using simd::f64x2;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr std::size_t kPanel = 8;  // columns per packed panel: two f32x4

/// The kernels set_micro_kernels installed (null: the C++ ones below).
MicroKernels external;

/// Packed panels: uninitialised on allocation (pack_panels writes every entry, padding included).
using Packed = std::unique_ptr<float[]>;

/// Packs the n columns of a matrix into panels of 8 columns, [ceil(n / 8)][k][8],
/// zero-padded: column j, row p of the product's right-hand side is
/// b[p * n + j] (row_major) or b[j * k + p] (transposed, the rows of b^T).
Packed pack_panels(const float* b, std::size_t k, std::size_t n, bool transposed) {
    const std::size_t panels = (n + kPanel - 1) / kPanel;
    Packed packed(new float[panels * k * kPanel]);
    for (std::size_t jp = 0; jp < panels; ++jp) {
        float* panel = packed.get() + jp * k * kPanel;
        const std::size_t j0 = jp * kPanel, cols = std::min(kPanel, n - j0);
        if (transposed) {  // column j of the panel is row j0 + j of b, read along it
            for (std::size_t c = 0; c < cols; ++c)
                for (std::size_t p = 0; p < k; ++p) panel[p * kPanel + c] = b[(j0 + c) * k + p];
            for (std::size_t c = cols; c < kPanel; ++c)
                for (std::size_t p = 0; p < k; ++p) panel[p * kPanel + c] = 0.0f;
        } else if (cols == kPanel) {
            for (std::size_t p = 0; p < k; ++p) {
                simd::store(panel + p * kPanel, simd::load(b + p * n + j0));
                simd::store(panel + p * kPanel + 4, simd::load(b + p * n + j0 + 4));
            }
        } else {
            for (std::size_t p = 0; p < k; ++p) {
                std::copy(b + p * n + j0, b + p * n + j0 + cols, panel + p * kPanel);
                std::fill(panel + p * kPanel + cols, panel + (p + 1) * kPanel, 0.0f);
            }
        }
    }
    return packed;
}

/// out[r, 0..cols) = sum_{p0 <= p < p1} a[r * lda + p * ldp] * panel[p, 0..cols) for R rows of a
/// (ldp = 1: rows of a; lda = 1, ldp = a's width: columns of a, the rows of a^T): the register-blocked
/// micro-kernel (R x 8 accumulators). accumulate: the accumulators start from out (out += the terms,
/// one at a time in order p), else from 0.
template <int R>
void tile(const float* a, std::size_t lda, std::size_t ldp, const float* panel, std::size_t p0, std::size_t p1,
          float* out, std::size_t ldo, std::size_t cols, bool accumulate) {
    if (const TileKernel kernel = R == 6 ? external.tile6 : R == 4 ? external.tile4 : R == 1 ? external.tile1 : nullptr) {
        if (cols == kPanel) return kernel(a, lda, ldp, panel, p0, p1, out, ldo, accumulate ? 1 : 0);
        float buffer[R * kPanel] = {};  // a partial panel: through a tile of 8 columns
        if (accumulate)
            for (int r = 0; r < R; ++r) std::copy(out + r * ldo, out + r * ldo + cols, buffer + r * kPanel);
        kernel(a, lda, ldp, panel, p0, p1, buffer, kPanel, accumulate ? 1 : 0);
        for (int r = 0; r < R; ++r) std::copy(buffer + r * kPanel, buffer + r * kPanel + cols, out + r * ldo);
        return;
    }
    f32x4 acc[R][2];
    for (int r = 0; r < R; ++r) {
        if (!accumulate) {
            acc[r][0] = acc[r][1] = simd::splat(0.0f);
        } else if (cols == kPanel) {
            acc[r][0] = simd::load(out + r * ldo);
            acc[r][1] = simd::load(out + r * ldo + 4);
        } else {
            float buffer[kPanel] = {};
            std::copy(out + r * ldo, out + r * ldo + cols, buffer);
            acc[r][0] = simd::load(buffer);
            acc[r][1] = simd::load(buffer + 4);
        }
    }
    const float* x_p = a + p0 * ldp;
    for (std::size_t p = p0; p < p1; ++p, x_p += ldp) {
        const f32x4 b0 = simd::load(panel + p * kPanel), b1 = simd::load(panel + p * kPanel + 4);
        for (int r = 0; r < R; ++r) {
            const f32x4 x = simd::load_splat(x_p + r * lda);
            acc[r][0] = simd::add(acc[r][0], simd::mul(x, b0));
            acc[r][1] = simd::add(acc[r][1], simd::mul(x, b1));
        }
    }
    for (int r = 0; r < R; ++r) {
        float* row = out + r * ldo;
        if (cols == kPanel) {
            simd::store(row, acc[r][0]);
            simd::store(row + 4, acc[r][1]);
        } else {
            float buffer[kPanel];
            simd::store(buffer, acc[r][0]);
            simd::store(buffer + 4, acc[r][1]);
            std::copy(buffer, buffer + cols, row);
        }
    }
}

/// Which zeros of a causal head's products the loops skip (their terms 0 * b would change at most a zero's sign).
enum class Skip {
    none,
    upper,     ///< the left factor is 0 above its diagonal (entry (i, p), p > i): a tile's sum stops after its last row
    lower,     ///< it is 0 below its diagonal (p < i): a tile's sum starts at its first row
    out_upper  ///< only out's entries on and below the diagonal are wanted: panels wholly above it are not computed
};

/// out [m, n] (= or +=, accumulate) x [m, k] . (packed panels of the right-hand side), where x[i, p] is
/// a[i * lda + p * ldp] (ldp = 1: x = a; lda = 1: x = a^T).
void multiply_panels(const float* a, std::size_t lda, std::size_t ldp, const float* packed, float* out, std::size_t m,
                     std::size_t k, std::size_t n, bool accumulate, Skip skip) {
    const std::size_t panels = (n + kPanel - 1) / kPanel;
    const auto rows = [&](auto height, std::size_t i) {
        constexpr int R = decltype(height)::value;
        const std::size_t last = i + R - 1;
        const std::size_t p0 = skip == Skip::lower ? std::min(i, k) : 0;
        const std::size_t p1 = skip == Skip::upper ? std::min(k, last + 1) : k;
        const std::size_t used = skip == Skip::out_upper ? std::min(panels, last / kPanel + 1) : panels;
        for (std::size_t jp = 0; jp < used; ++jp)
            tile<R>(a + i * lda, lda, ldp, packed + jp * k * kPanel, p0, p1, out + i * n + jp * kPanel, n,
                    std::min(kPanel, n - jp * kPanel), accumulate);
    };
    // With the 6-row tile installed (the relaxed path): groups of 6 rows while more than 8 are left, as attention
    // takes its rows (every entry's sum is the same fused one in any group), then of 4, then single rows.
    std::size_t i = 0;
    if (external.tile6 != nullptr)
        for (; m - i > 8 || m - i == 6 || m - i == 7; i += 6) rows(std::integral_constant<int, 6>{}, i);
    for (; i + 4 <= m; i += 4) rows(std::integral_constant<int, 4>{}, i);
    for (; i < m; ++i) rows(std::integral_constant<int, 1>{}, i);
}

}  // namespace

void matmul(const float* a, const float* b, float* out, std::size_t m, std::size_t k, std::size_t n) {
    multiply_panels(a, k, 1, pack_panels(b, k, n, false).get(), out, m, k, n, false, Skip::none);
}

void matmul_bt(const float* a, const float* b, float* out, std::size_t m, std::size_t k, std::size_t n) {
    multiply_panels(a, k, 1, pack_panels(b, k, n, true).get(), out, m, k, n, false, Skip::none);
}

void matmul_accumulate(const float* a, const float* b, float* out, std::size_t m, std::size_t k, std::size_t n,
                       bool a_lower) {
    multiply_panels(a, k, 1, pack_panels(b, k, n, false).get(), out, m, k, n, true, a_lower ? Skip::upper : Skip::none);
}

void matmul_at_accumulate(const float* a, const float* b, float* out, std::size_t m, std::size_t k, std::size_t n,
                          bool a_lower) {
    // a^T [k, m] is 0 below its diagonal where a is 0 above its own.
    multiply_panels(a, 1, k, pack_panels(b, m, n, false).get(), out, k, m, n, true, a_lower ? Skip::lower : Skip::none);
}

void matmul_reference(const float* a, const float* b, float* out, std::size_t m, std::size_t k, std::size_t n) {
    for (std::size_t i = 0; i < m; ++i) {
        float* row = out + i * n;
        std::fill(row, row + n, 0.0f);
        for (std::size_t p = 0; p < k; ++p)
            for (std::size_t j = 0; j < n; ++j) row[j] += a[i * k + p] * b[p * n + j];
    }
}

void matmul_bt_reference(const float* a, const float* b, float* out, std::size_t m, std::size_t k, std::size_t n) {
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            float sum = 0.0f;
            for (std::size_t p = 0; p < k; ++p) sum += a[i * k + p] * b[j * k + p];
            out[i * n + j] = sum;
        }
}

void matmul_accumulate_reference(const float* a, const float* b, float* out, std::size_t m, std::size_t k,
                                 std::size_t n) {
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t p = 0; p < k; ++p)
            for (std::size_t j = 0; j < n; ++j) out[i * n + j] += a[i * k + p] * b[p * n + j];
}

void matmul_at_accumulate_reference(const float* a, const float* b, float* out, std::size_t m, std::size_t k,
                                    std::size_t n) {
    for (std::size_t r = 0; r < m; ++r)
        for (std::size_t p = 0; p < k; ++p)
            for (std::size_t j = 0; j < n; ++j) out[p * n + j] += a[r * k + p] * b[r * n + j];
}

// ---------------------------------------------------------------------------

void column_max_abs(const float* a, std::size_t m, std::size_t n, float* out) {
    std::fill(out, out + n, 0.0f);
    const std::size_t wide = n - n % 4;
    for (std::size_t r = 0; r < m; ++r) {
        const float* row = a + r * n;
        for (std::size_t c = 0; c < wide; c += 4)
            simd::store(out + c, simd::max(simd::load(out + c), simd::abs(simd::load(row + c))));
        for (std::size_t c = wide; c < n; ++c) out[c] = std::max(out[c], std::fabs(row[c]));
    }
}

float max_abs(const float* a, std::size_t count) {
    // Four running maxima, so consecutive loads do not wait on one another's max.
    f32x4 m0 = simd::splat(0.0f), m1 = m0, m2 = m0, m3 = m0;
    const std::size_t wide = count - count % 16;
    for (std::size_t i = 0; i < wide; i += 16) {
        m0 = simd::max(m0, simd::abs(simd::load(a + i)));
        m1 = simd::max(m1, simd::abs(simd::load(a + i + 4)));
        m2 = simd::max(m2, simd::abs(simd::load(a + i + 8)));
        m3 = simd::max(m3, simd::abs(simd::load(a + i + 12)));
    }
    float out = simd::hmax(simd::max(simd::max(m0, m1), simd::max(m2, m3)));
    for (std::size_t i = wide; i < count; ++i) out = std::max(out, std::fabs(a[i]));
    return out;
}

// ---------------------------------------------------------------------------

namespace {

/// The largest of x[0..n) (-infinity for n = 0). Four running maxima over blocks of 16, so consecutive
/// loads do not wait on one another's max (the max is exact: any order gives the same value).
float row_max(const float* x, std::size_t n) {
    f32x4 m = simd::splat(-kInf), m1 = m, m2 = m, m3 = m;
    std::size_t j = 0;
    for (; j + 16 <= n; j += 16) {
        m = simd::max(m, simd::load(x + j));
        m1 = simd::max(m1, simd::load(x + j + 4));
        m2 = simd::max(m2, simd::load(x + j + 8));
        m3 = simd::max(m3, simd::load(x + j + 12));
    }
    m = simd::max(simd::max(m, m1), simd::max(m2, m3));
    for (; j + 4 <= n; j += 4) m = simd::max(m, simd::load(x + j));
    float out = simd::hmax(m);
    for (; j < n; ++j) out = x[j] > out ? x[j] : out;
    return out;
}

/// x[j] = e^(x[j] - shift) (Base2: 2^(x[j] - shift)) for j < n (flushed below 2^-126), returning their sum,
/// accumulated in float lanes over blocks of 64 and in double across blocks. Base2: with simd::exp2_fast (the
/// fused attention's), else simd::exp (softmax_rows's).
template <bool Base2 = false>
double exp_shifted(float* x, std::size_t n, float shift) {
    const auto exp = [](f32x4 v) { return Base2 ? simd::exp2_fast(v) : simd::exp(v); };
    const f32x4 s = simd::splat(shift);
    double total = 0.0;
    std::size_t j = 0;
    while (j < n) {
        const std::size_t end = std::min(n, j + 64);
        f32x4 sum = simd::splat(0.0f);
        for (; j + 4 <= end; j += 4) {
            const f32x4 e = exp(simd::sub(simd::load(x + j), s));
            simd::store(x + j, e);
            sum = simd::add(sum, e);
        }
        if (j < end) {  // fewer than 4 left: pad with -infinity
            float lanes[4] = {-kInf, -kInf, -kInf, -kInf};
            std::copy(x + j, x + end, lanes);
            const f32x4 e = exp(simd::sub(simd::load(lanes), s));
            simd::store(lanes, e);
            std::copy(lanes, lanes + (end - j), x + j);
            sum = simd::add(sum, e);
            j = end;
        }
        total += double(simd::hsum(sum));
    }
    return total;
}

/// x[j] *= scale, then flushes results below 2^-126 to 0.
void scale_and_flush(float* x, std::size_t n, float scale) {
    const f32x4 s = simd::splat(scale), tiny = simd::splat(std::numeric_limits<float>::min());
    std::size_t j = 0;
    for (; j + 4 <= n; j += 4) {
        const f32x4 w = simd::mul(simd::load(x + j), s);
        simd::store(x + j, simd::keep_ge(w, tiny, w));
    }
    for (; j < n; ++j) {
        const float w = x[j] * scale;
        x[j] = w >= std::numeric_limits<float>::min() ? w : 0.0f;
    }
}

/// x[r * ld + j] *= factor for r < rows, j < n.
void scale_rows(float* x, std::size_t ld, std::size_t rows, std::size_t n, float factor) {
    const f32x4 f = simd::splat(factor);
    for (std::size_t r = 0; r < rows; ++r) {
        float* row = x + r * ld;
        std::size_t j = 0;
        for (; j + 4 <= n; j += 4) simd::store(row + j, simd::mul(simd::load(row + j), f));
        for (; j < n; ++j) row[j] *= factor;
    }
}

}  // namespace

void softmax_rows(float* x, std::size_t m, std::size_t n) {
    for (std::size_t i = 0; i < m; ++i) {
        float* row = x + i * n;
        const float max = row_max(row, n);
        if (max == -kInf) {
            std::fill(row, row + n, 0.0f);
            continue;
        }
        const double sum = exp_shifted(row, n, max);
        scale_and_flush(row, n, float(1.0 / sum));
    }
}

void softmax_rows_reference(float* x, std::size_t m, std::size_t n) {
    for (std::size_t i = 0; i < m; ++i) {
        float* row = x + i * n;
        float max = -kInf;
        for (std::size_t j = 0; j < n; ++j) max = row[j] > max ? row[j] : max;
        if (max == -kInf) {
            std::fill(row, row + n, 0.0f);
            continue;
        }
        double sum = 0.0;
        for (std::size_t j = 0; j < n; ++j) {
            row[j] = std::exp(row[j] - max);
            sum += row[j];
        }
        const float inv = float(1.0 / sum);
        for (std::size_t j = 0; j < n; ++j) row[j] *= inv;
    }
}

// ---------------------------------------------------------------------------

void scores(const float* q, const float* k, float* out, std::size_t n_q, std::size_t n_k, std::size_t d, float scale) {
    matmul_bt(q, k, out, n_q, d, n_k);
    for (std::size_t e = 0; e < n_q * n_k; ++e) out[e] *= scale;
}

void attend(float* logits, const float* v, float* out, std::size_t n, std::size_t d_v, bool causal) {
    if (causal)
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = i + 1; j < n; ++j) logits[i * n + j] = -kInf;
    softmax_rows(logits, n, n);
    matmul(logits, v, out, n, n, d_v);
}

void attend_backward(const float* weights, const float* v, const float* dout, float* dlogits, float* dv, std::size_t n,
                     std::size_t d_v) {
    multiply_panels(dout, d_v, 1, pack_panels(v, d_v, n, true).get(), dlogits, n, d_v, n, false, Skip::out_upper);
    for (std::size_t i = 0; i < n; ++i) {  // the softmax's Jacobian; above the diagonal: 0
        const float* w = weights + i * n;
        float* ds = dlogits + i * n;
        float weighted = 0.0f;
        for (std::size_t j = 0; j <= i; ++j) weighted += w[j] * ds[j];
        for (std::size_t j = 0; j <= i; ++j) ds[j] = w[j] * (ds[j] - weighted);
        std::fill(ds + i + 1, ds + n, 0.0f);
    }
    matmul_at_accumulate(weights, dout, dv, n, n, d_v, true);
}

void scores_backward(const float* dscores, const float* q, const float* k, float* dq, float* dk, std::size_t n,
                     std::size_t d, float scale) {
    std::vector<float> s(n * n);
    for (std::size_t e = 0; e < n * n; ++e) s[e] = dscores[e] * scale;
    matmul_accumulate(s.data(), k, dq, n, n, d, true);
    matmul_at_accumulate(s.data(), q, dk, n, n, d, true);
}

// ---------------------------------------------------------------------------

void RelativeBias::add(std::int64_t i0, std::int64_t rows, std::int64_t j0, std::int64_t cols, float* s,
                       std::size_t ld) const {
    for (std::int64_t r = 0; r < rows; ++r) {
        const float* f = f_.data() + (j0 - (i0 + r) + n_ - 1);  // f(j - i) for j = j0, j0 + 1, ...
        float* row = s + std::size_t(r) * ld;
        for (std::int64_t c = 0; c < cols; ++c) row[c] += f[c];
    }
}

namespace {

constexpr std::int64_t kQueries = 32;  // rows of a block of queries
constexpr std::int64_t kKeys = 64;     // keys of a block (8 panels)
// With the 6-row kernels installed: blocks of 36 queries (6 groups of 6, no 4-row group) and 72 keys (9 panels).
constexpr std::int64_t kQueries6 = 36;
constexpr std::int64_t kKeys6 = 72;

/// out[r, c..c+8*V) = alpha[r] * out[r, ...] + sum_{p < keys} w[r, p] * v[p, c..]
/// for R rows: the P.V update of the fused kernel (R x 4V accumulators).
template <int R, int V>
void weighted_sum(const float* w, std::size_t ldw, const float* v, std::size_t ldv, std::int64_t keys,
                  const float* alpha, float* out, std::size_t ldo) {
    if (const WeightedSumKernel kernel = V != 2 ? nullptr : R == 6 ? external.weighted_sum_6x2
                                                           : R == 4 ? external.weighted_sum_4x2
                                                           : R == 1 ? external.weighted_sum_1x2 : nullptr)
        return kernel(w, ldw, v, ldv, std::size_t(keys), alpha, out, ldo);
    f32x4 acc[R][V];
    for (int r = 0; r < R; ++r) {
        const f32x4 a = simd::splat(alpha[r]);
        for (int c = 0; c < V; ++c) acc[r][c] = simd::mul(simd::load(out + r * ldo + 4 * c), a);
    }
    for (std::int64_t p = 0; p < keys; ++p) {
        f32x4 vv[V];
        for (int c = 0; c < V; ++c) vv[c] = simd::load(v + std::size_t(p) * ldv + 4 * c);
        for (int r = 0; r < R; ++r) {
            const f32x4 x = simd::load_splat(w + r * ldw + p);
            for (int c = 0; c < V; ++c) acc[r][c] = simd::add(acc[r][c], simd::mul(x, vv[c]));
        }
    }
    for (int r = 0; r < R; ++r)
        for (int c = 0; c < V; ++c) simd::store(out + r * ldo + 4 * c, acc[r][c]);
}

/// The P.V update for R rows over all d_v columns: 8 at a time, then 4, then one by one.
template <int R>
void weighted_rows(const float* w, std::size_t ldw, const float* v, std::int64_t d_v, std::int64_t keys,
                   const float* alpha, float* out) {
    const std::size_t ld = std::size_t(d_v);
    std::int64_t c = 0;
    for (; c + 8 <= d_v; c += 8) weighted_sum<R, 2>(w, ldw, v + c, ld, keys, alpha, out + c, ld);
    for (; c + 4 <= d_v; c += 4) weighted_sum<R, 1>(w, ldw, v + c, ld, keys, alpha, out + c, ld);
    for (; c < d_v; ++c)
        for (int r = 0; r < R; ++r) {
            float sum = out[r * ld + c] * alpha[r];
            for (std::int64_t p = 0; p < keys; ++p) sum += w[r * ldw + p] * v[std::size_t(p) * ld + c];
            out[r * ld + c] = sum;
        }
}

}  // namespace

void attention(const float* q, const float* k, const float* v, std::int64_t n, std::int64_t d, std::int64_t d_v,
               float scale, bool causal, const BiasTile* bias, float* out) {
    const std::size_t dd = std::size_t(d);
    // The scores in base 2: the logits times log2(e), so that each weight e^(logit - max) is 2^(score - max).
    // Without a bias, q * (scale log2(e)); with one, q * scale, and the tile times log2(e) once the bias is in.
    // q's product in double, rounded once per entry (a float scale * log2(e) would scale every logit by the same
    // rounding error, up to 6e-8, where a power-of-2 scale such as 1 / sqrt(64) is exact). The keys packed as panels
    // of 8 (the right-hand side of q k^T).
    constexpr double kLog2e = 1.44269504088896340736;
    const float log2e = float(kLog2e);
    const double q_scale = bias ? double(scale) : double(scale) * kLog2e;
    std::vector<float> qs(std::size_t(n) * dd);
    for (std::size_t e = 0; e < qs.size(); ++e) qs[e] = float(double(q[e]) * q_scale);
    const Packed keys = pack_panels(k, dd, std::size_t(n), true);
    const bool six_rows = external.tile6 != nullptr && external.weighted_sum_6x2 != nullptr;
    // A block's queries and keys: 32 and 64, or 36 and 72 with the 6-row kernels.
    const std::int64_t queries = six_rows ? kQueries6 : kQueries, width = six_rows ? kKeys6 : kKeys;
    std::vector<float> s(std::size_t(queries * width));  // scores, then weights, of one tile
    std::vector<float> running_max(queries), alpha(queries);
    std::vector<double> row_sum(queries);
    std::vector<float> block_sum(queries);  // the installed softmax step's sums of one block
    std::fill(out, out + n * d_v, 0.0f);

    for (std::int64_t i0 = 0; i0 < n; i0 += queries) {
        const std::int64_t rows = std::min(queries, n - i0);
        std::fill(running_max.begin(), running_max.end(), -kInf);
        std::fill(row_sum.begin(), row_sum.end(), 0.0);
        float* o = out + i0 * d_v;

        // One block of keys [j0, j0 + cols) for the block's queries. lead < 0: every query sees every key;
        // else (causal: the block that holds the diagonal) query i0 + r sees the first lead + r + 1 keys,
        // lead = i0 - j0 being the keys before the block's first query.
        const auto block = [&](std::int64_t j0, std::int64_t cols, std::int64_t lead) {
            const auto seen = [&](std::int64_t r) { return lead < 0 ? cols : lead + r + 1; };
            // Every row of the block sees all its keys: the installed softmax step, if any, takes them.
            const bool external_softmax = external.softmax_rows != nullptr && lead < 0 && cols % 8 == 0;
            const float* vb = v + j0 * d_v;
            // Rows [r, r + R), over the keys its last row sees (`used`): scores (tiles wholly after that row's
            // query are never computed), bias, online softmax (the few entries computed past a row's own query
            // get weight 0); then out = alpha * out + weights . v.
            const auto softmax_rows = [&](auto height, std::int64_t r) {
                constexpr int R = decltype(height)::value;
                const std::int64_t used = seen(r + R - 1);
                float* sr = s.data() + r * width;
                const std::size_t panels = std::size_t((used + 7) / 8);
                for (std::size_t jp = 0; jp < panels; ++jp)
                    tile<R>(qs.data() + (i0 + r) * d, dd, 1, keys.get() + (std::size_t(j0) + jp * kPanel) * dd, 0, dd,
                            sr + jp * kPanel, width, kPanel, false);
                if (bias) {
                    bias->add(i0 + r, R, j0, used, sr, width);
                    scale_rows(sr, width, R, std::size_t(used), log2e);
                }
                if (external_softmax) {
                    external.softmax_rows(sr, width, R, std::size_t(cols), running_max.data() + r, alpha.data() + r,
                                          block_sum.data() + r);
                    for (std::int64_t e = r; e < r + R; ++e)
                        row_sum[e] = row_sum[e] * double(alpha[e]) + double(block_sum[e]);
                    return;
                }
                for (std::int64_t e = r; e < r + R; ++e) {  // new running max, rescale factor, weights, sums
                    float* row = s.data() + e * width;
                    const std::size_t visible = std::size_t(seen(e));
                    const float m = std::max(running_max[e], row_max(row, visible));
                    // The max unchanged (most blocks after the first few): alpha = e^0 = 1 without the call.
                    alpha[e] = m == -kInf ? 0.0f : m == running_max[e] ? 1.0f : std::exp2(running_max[e] - m);
                    if (m == -kInf) {
                        std::fill(row, row + visible, 0.0f);
                    } else {
                        row_sum[e] = row_sum[e] * double(alpha[e]) + exp_shifted<true>(row, visible, m);
                    }
                    std::fill(row + visible, row + used, 0.0f);
                    running_max[e] = m;
                }
            };
            const auto update_out = [&](auto height, std::int64_t r) {
                constexpr int R = decltype(height)::value;
                weighted_rows<R>(s.data() + r * width, width, vb, d_v, seen(r + R - 1), alpha.data() + r, o + r * d_v);
            };
            // All of the tile's scores first, then its P.V: one block of k, then one of v, in cache at a time.
            // With the 6-row kernels installed: groups of 6 rows while more than 8 are left (a block's 36 rows: 6 groups
            // of 6; the last block's, e.g. 20 = 6 * 2 + 4 * 2), then of 4, then single rows; each row's arithmetic is
            // the same in any group.
            const auto by_groups = [&](const auto& step) {
                std::int64_t r = 0;
                if (six_rows)
                    for (; rows - r > 8 || rows - r == 6 || rows - r == 7; r += 6) step(std::integral_constant<int, 6>{}, r);
                for (; r + 4 <= rows; r += 4) step(std::integral_constant<int, 4>{}, r);
                for (; r < rows; ++r) step(std::integral_constant<int, 1>{}, r);
            };
            by_groups(softmax_rows);
            by_groups(update_out);
        };

        // Causal: the keys before the block's first query, which all its queries see, in plain blocks of
        // `width` (64); then one block from there to the last query (the diagonal 32 x 32, after 0 or 32 keys all
        // see: i0 is a multiple of 32; with 36 and 72, the diagonal 36 x 36 after 0 or 36). Not causal: every key,
        // in blocks of `width`.
        const std::int64_t seen_by_all = causal ? i0 : n;
        std::int64_t j0 = 0;
        for (; j0 + width <= seen_by_all; j0 += width) block(j0, width, -1);
        if (causal) block(j0, i0 + rows - j0, i0 - j0);
        else if (j0 < n) block(j0, n - j0, -1);

        for (std::int64_t r = 0; r < rows; ++r) {
            float* orow = o + r * d_v;
            const float inv = row_sum[r] > 0.0 ? float(1.0 / row_sum[r]) : 0.0f;
            for (std::int64_t c = 0; c < d_v; ++c) orow[c] *= inv;
        }
    }
}

void attention_reference(const float* q, const float* k, const float* v, std::int64_t n, std::int64_t d,
                         std::int64_t d_v, float scale, bool causal, const BiasTile* bias, float* out) {
    const std::size_t nn = std::size_t(n);
    std::vector<float> s(nn * nn);
    matmul_bt_reference(q, k, s.data(), nn, std::size_t(d), nn);
    for (float& x : s) x *= scale;
    if (bias) bias->add(0, n, 0, n, s.data(), nn);
    if (causal)
        for (std::size_t i = 0; i < nn; ++i)
            for (std::size_t j = i + 1; j < nn; ++j) s[i * nn + j] = -kInf;
    softmax_rows_reference(s.data(), nn, nn);
    matmul_reference(s.data(), v, out, nn, nn, std::size_t(d_v));
}

// ---------------------------------------------------------------------------

Phasors::Phasors(const double* inv_freq, const double* log_gain, std::size_t half, std::int64_t start,
                 double amplitude)
    : padded_((half + 3) / 4 * 4) {
    for (auto* v : {&anchor_c_, &anchor_s_, &jump_c_, &jump_s_}) v->assign(padded_, 0.0);
    anchor_cf_.assign(padded_, 0.0f);
    anchor_sf_.assign(padded_, 0.0f);
    table_c_.assign(kBlock * padded_, 0.0f);
    table_s_.assign(kBlock * padded_, 0.0f);
    const double p = double(start);
    for (std::size_t i = 0; i < half; ++i) {
        const double w = inv_freq[i], g = log_gain ? log_gain[i] : 0.0;
        const double a0 = amplitude * (g == 0.0 ? 1.0 : std::exp(p * g));
        anchor_c_[i] = a0 * std::cos(p * w);
        anchor_s_[i] = a0 * std::sin(p * w);
        const double g16 = std::exp(kBlock * g);
        jump_c_[i] = g16 * std::cos(kBlock * w);  // 16 w is exact in float64
        jump_s_[i] = g16 * std::sin(kBlock * w);
        // The k-token phasors, k < 16, by stepping in float64 (error about k * 4e-16).
        const double step_c = std::exp(g) * std::cos(w), step_s = std::exp(g) * std::sin(w);
        double c = 1.0, s = 0.0;
        for (int k = 0; k < kBlock; ++k) {
            table_c_[k * padded_ + i] = float(c);
            table_s_[k * padded_ + i] = float(s);
            const double next = c * step_c - s * step_s;
            s = s * step_c + c * step_s;
            c = next;
        }
        anchor_cf_[i] = float(anchor_c_[i]);
        anchor_sf_[i] = float(anchor_s_[i]);
    }
}

void Phasors::row(std::int64_t r, float* c, float* s) {
    while (r / kBlock > block_) {  // the next block's anchor: times the 16-token phasor, in float64
        ++block_;
        for (std::size_t i = 0; i < padded_; i += 2) {
            const f64x2 c0 = simd::load2(&anchor_c_[i]), s0 = simd::load2(&anchor_s_[i]);
            const f64x2 jc = simd::load2(&jump_c_[i]), js = simd::load2(&jump_s_[i]);
            simd::store2(&anchor_c_[i], simd::sub2(simd::mul2(c0, jc), simd::mul2(s0, js)));
            simd::store2(&anchor_s_[i], simd::add2(simd::mul2(s0, jc), simd::mul2(c0, js)));
        }
        for (std::size_t i = 0; i < padded_; i += 4) {
            simd::store(&anchor_cf_[i], simd::narrow(simd::load2(&anchor_c_[i]), simd::load2(&anchor_c_[i + 2])));
            simd::store(&anchor_sf_[i], simd::narrow(simd::load2(&anchor_s_[i]), simd::load2(&anchor_s_[i + 2])));
        }
    }
    const float* tc = table_c_.data() + (r % kBlock) * std::int64_t(padded_);
    const float* ts = table_s_.data() + (r % kBlock) * std::int64_t(padded_);
    for (std::size_t i = 0; i < padded_; i += 4) {  // anchor * k-token phasor, in float32
        const f32x4 ac = simd::load(&anchor_cf_[i]), as = simd::load(&anchor_sf_[i]);
        const f32x4 bc = simd::load(tc + i), bs = simd::load(ts + i);
        simd::store(c + i, simd::sub(simd::mul(ac, bc), simd::mul(as, bs)));
        simd::store(s + i, simd::add(simd::mul(as, bc), simd::mul(ac, bs)));
    }
}

void rotate(float* x, std::int64_t n, std::int64_t head_dim, bool interleaved, const double* inv_freq,
            std::size_t half, std::int64_t offset, double amplitude, const double* log_gain) {
    const std::size_t padded = (half + 3) / 4 * 4;
    std::vector<float> cf(padded), sf(padded);
    Phasors ph(inv_freq, log_gain, half, offset, amplitude);
    float sign_lanes[4] = {-0.0f, 0.0f, -0.0f, 0.0f};  // (-s, s) for (a, b) pairs
    const f32x4 signs = simd::load(sign_lanes);
    for (std::int64_t r = 0; r < n; ++r) {
        ph.row(r, cf.data(), sf.data());
        float* row = x + r * head_dim;  // [head_dim]
        std::size_t i = 0;
        if (interleaved) {
            for (; i + 4 <= half; i += 4) {
                const f32x4 c = simd::load(cf.data() + i), s = simd::load(sf.data() + i);
                const f32x4 x0 = simd::load(row + 2 * i), x1 = simd::load(row + 2 * i + 4);
                const f32x4 s0 = simd::flip_signs(simd::dup_lo(s), signs), s1 = simd::flip_signs(simd::dup_hi(s), signs);
                simd::store(row + 2 * i, simd::add(simd::mul(x0, simd::dup_lo(c)), simd::mul(simd::swap_pairs(x0), s0)));
                simd::store(row + 2 * i + 4,
                            simd::add(simd::mul(x1, simd::dup_hi(c)), simd::mul(simd::swap_pairs(x1), s1)));
            }
            for (; i < half; ++i) {
                const float a = row[2 * i], b = row[2 * i + 1];
                row[2 * i] = a * cf[i] + b * -sf[i];
                row[2 * i + 1] = b * cf[i] + a * sf[i];
            }
        } else {
            for (; i + 4 <= half; i += 4) {
                const f32x4 c = simd::load(cf.data() + i), s = simd::load(sf.data() + i);
                const f32x4 a = simd::load(row + i), b = simd::load(row + half + i);
                simd::store(row + i, simd::sub(simd::mul(a, c), simd::mul(b, s)));
                simd::store(row + half + i, simd::add(simd::mul(b, c), simd::mul(a, s)));
            }
            for (; i < half; ++i) {
                const float a = row[i], b = row[half + i];
                row[i] = a * cf[i] - b * sf[i];
                row[half + i] = b * cf[i] + a * sf[i];
            }
        }
    }
}

void rotate_reference(float* x, std::int64_t n, std::int64_t head_dim, bool interleaved, const double* inv_freq,
                      std::size_t half, std::int64_t offset, double amplitude, const double* log_gain) {
    const std::size_t step = interleaved ? 2 : 1, partner = interleaved ? 1 : half;
    for (std::int64_t r = 0; r < n; ++r) {
        float* row = x + r * head_dim;
        const double pos = double(offset + r);
        for (std::size_t i = 0; i < half; ++i) {
            const double angle = pos * inv_freq[i];
            const double gain = amplitude * (log_gain ? std::exp(pos * log_gain[i]) : 1.0);
            const double c = std::cos(angle) * gain, s = std::sin(angle) * gain;
            float& a = row[i * step];
            float& b = row[i * step + partner];
            const double a0 = a, b0 = b;
            a = float(a0 * c - b0 * s);
            b = float(a0 * s + b0 * c);
        }
    }
}

void sinusoid_table(float* out, std::int64_t n, std::size_t half, bool interleaved, const double* inv_freq,
                    std::int64_t offset) {
    const std::size_t padded = (half + 3) / 4 * 4, d = 2 * half;
    std::vector<float> cf(padded), sf(padded);
    Phasors ph(inv_freq, nullptr, half, offset, 1.0);
    const f32x4 one = simd::splat(1.0f), minus_one = simd::splat(-1.0f);
    for (std::int64_t r = 0; r < n; ++r, out += d) {
        ph.row(r, cf.data(), sf.data());
        // The phasor products are within 3e-7 of the exact values, so a sine or cosine of 1 can come out one
        // float32 ulp past it (-1.0000001): clamped, every entry is a sine or cosine, within [-1, 1].
        for (std::size_t j = 0; j < padded; j += 4) {
            simd::store(cf.data() + j, simd::min(simd::max(simd::load(cf.data() + j), minus_one), one));
            simd::store(sf.data() + j, simd::min(simd::max(simd::load(sf.data() + j), minus_one), one));
        }
        std::size_t i = 0;
        if (interleaved) {
            for (; i + 4 <= half; i += 4) {
                const f32x4 c = simd::load(cf.data() + i), s = simd::load(sf.data() + i);
                simd::store(out + 2 * i, simd::zip_lo(s, c));
                simd::store(out + 2 * i + 4, simd::zip_hi(s, c));
            }
            for (; i < half; ++i) {
                out[2 * i] = sf[i];
                out[2 * i + 1] = cf[i];
            }
        } else {
            std::copy(sf.data(), sf.data() + half, out);
            std::copy(cf.data(), cf.data() + half, out + half);
        }
    }
}

std::size_t first_nonfinite(const float* x, std::size_t n) {
    constexpr std::size_t kBlock = 256;
    const f32x4 zero = simd::splat(0.0f);
    for (std::size_t start = 0; start < n; start += kBlock) {
        const std::size_t end = std::min(n, start + kBlock);
        std::size_t i = start;
        // Four running sums, so that the adds do not wait on one another (one chain is bound by the add's latency).
        f32x4 acc = zero, acc1 = zero, acc2 = zero, acc3 = zero;
        for (; i + 16 <= end; i += 16) {
            acc = simd::add(acc, simd::mul(simd::load(x + i), zero));
            acc1 = simd::add(acc1, simd::mul(simd::load(x + i + 4), zero));
            acc2 = simd::add(acc2, simd::mul(simd::load(x + i + 8), zero));
            acc3 = simd::add(acc3, simd::mul(simd::load(x + i + 12), zero));
        }
        acc = simd::add(simd::add(acc, acc1), simd::add(acc2, acc3));
        for (; i + 4 <= end; i += 4) acc = simd::add(acc, simd::mul(simd::load(x + i), zero));
        float tail = 0.0f;
        for (; i < end; ++i) tail += x[i] * 0.0f;
        if (simd::hsum(acc) + tail == 0.0f) continue;
        for (i = start; i < end; ++i)
            if (!std::isfinite(x[i])) return i;
    }
    return n;
}

const char* backend() { return POSENC_SIMD; }

void set_micro_kernels(const MicroKernels& kernels) { external = kernels; }

bool external_micro_kernels() {
    return external.tile4 != nullptr || external.tile1 != nullptr || external.weighted_sum_4x2 != nullptr ||
           external.weighted_sum_1x2 != nullptr || external.tile6 != nullptr || external.weighted_sum_6x2 != nullptr ||
           external.softmax_rows != nullptr;
}

}  // namespace posenc::kernels
