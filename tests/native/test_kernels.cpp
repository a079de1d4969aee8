// The hot kernels against their plain scalar references (llm.c style), and the
// error bounds their docstrings state. Natively these run the SSE2 build of the
// same source the page runs as WebAssembly SIMD (posenc/simd.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "posenc/kernels.hpp"
#include "posenc/simd.hpp"

// A namespace of its own: the test files also build as one translation unit (CMake's unity build).
namespace posenc_test_kernels {

using namespace posenc;

namespace {

std::vector<float> normals(std::size_t count, unsigned seed, float scale = 1.0f) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal;
    std::vector<float> out(count);
    for (auto& v : out) v = scale * normal(rng);
    return out;
}

std::vector<double> frequencies(std::size_t half, double base) {
    std::vector<double> w(half);
    for (std::size_t i = 0; i < half; ++i) w[i] = std::pow(base, -2.0 * double(i) / double(2 * half));
    return w;
}

float max_abs_difference(const std::vector<float>& a, const std::vector<float>& b) {
    float worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
    return worst;
}

}  // namespace

TEST_CASE("the build uses a SIMD backend where the CPU has one", "[kernels]") {
#if defined(__SSE2__) || defined(__wasm_simd128__)
    CHECK(std::string(kernels::backend()) != "scalar");
#endif
    SUCCEED(kernels::backend());
}

TEST_CASE("matmul and matmul_bt equal the plain loops bit for bit (same summation order)", "[kernels]") {
    for (const auto& [m, k, n] : std::vector<std::array<std::size_t, 3>>{
             {1, 1, 1}, {3, 5, 7}, {4, 8, 8}, {5, 13, 9}, {17, 64, 33}, {64, 64, 64}, {9, 130, 70}}) {
        const auto a = normals(m * k, 1), b = normals(k * n, 2), bt = normals(n * k, 3);
        std::vector<float> fast(m * n), slow(m * n);
        kernels::matmul(a.data(), b.data(), fast.data(), m, k, n);
        kernels::matmul_reference(a.data(), b.data(), slow.data(), m, k, n);
        CHECK(fast == slow);
        kernels::matmul_bt(a.data(), bt.data(), fast.data(), m, k, n);
        kernels::matmul_bt_reference(a.data(), bt.data(), slow.data(), m, k, n);
        CHECK(fast == slow);
        // and the reference is a product: one entry by hand, in double
        double entry = 0;
        for (std::size_t p = 0; p < k; ++p) entry += double(a[(m - 1) * k + p]) * b[p * n + n - 1];
        kernels::matmul(a.data(), b.data(), fast.data(), m, k, n);
        CHECK(fast[m * n - 1] == Approx(entry).margin(1e-4));
    }
}

TEST_CASE("matmul_accumulate and matmul_at_accumulate equal the plain += loops bit for bit, dense or lower triangular",
          "[kernels]") {
    // Same order of the same float operations: equal (==, so a zero's sign, which skipping a 0 * b term can flip, is not compared).
    for (const auto& [m, k, n] : std::vector<std::array<std::size_t, 3>>{
             {1, 1, 1}, {3, 5, 7}, {4, 8, 8}, {5, 13, 9}, {17, 64, 33}, {33, 17, 5}, {9, 130, 70}}) {
        const auto a = normals(m * k, 1), b = normals(k * n, 2), g = normals(m * n, 3);
        const auto start = normals(m * n, 4), start_t = normals(k * n, 5);  // out's values before: the sums start there
        auto fast = start, slow = start;
        kernels::matmul_accumulate(a.data(), b.data(), fast.data(), m, k, n);
        kernels::matmul_accumulate_reference(a.data(), b.data(), slow.data(), m, k, n);
        CHECK(fast == slow);
        fast = slow = start_t;
        kernels::matmul_at_accumulate(a.data(), g.data(), fast.data(), m, k, n);
        kernels::matmul_at_accumulate_reference(a.data(), g.data(), slow.data(), m, k, n);
        CHECK(fast == slow);
        // and the reference is out + a^T g: one entry by hand, in double
        double entry = start_t[k * n - 1];
        for (std::size_t r = 0; r < m; ++r) entry += double(a[r * k + k - 1]) * g[r * n + n - 1];
        CHECK(slow[k * n - 1] == Approx(entry).margin(1e-4));
    }
    for (const std::size_t m : {1u, 3u, 4u, 5u, 17u, 33u, 65u})
        for (const std::size_t n : {1u, 3u, 8u, 17u}) {
            auto lower = normals(m * m, 6);
            for (std::size_t i = 0; i < m; ++i)
                for (std::size_t p = i + 1; p < m; ++p) lower[i * m + p] = 0.0f;
            const auto b = normals(m * n, 7), start = normals(m * n, 8);
            INFO("m " << m << " n " << n);
            auto fast = start, slow = start;
            kernels::matmul_accumulate(lower.data(), b.data(), fast.data(), m, m, n, true);
            kernels::matmul_accumulate_reference(lower.data(), b.data(), slow.data(), m, m, n);
            CHECK(fast == slow);
            fast = slow = start;
            kernels::matmul_at_accumulate(lower.data(), b.data(), fast.data(), m, m, n, true);
            kernels::matmul_at_accumulate_reference(lower.data(), b.data(), slow.data(), m, m, n);
            CHECK(fast == slow);
        }
}

TEST_CASE("the head's backward pass (attend_backward, scores_backward) equals the plain loops bit for bit", "[kernels]") {
    for (const std::size_t n : {1u, 3u, 5u, 8u, 17u, 33u, 65u})
        for (const std::size_t d : {1u, 3u, 8u, 17u, 32u}) {
            const auto q = normals(n * d, 21), k = normals(n * d, 22), v = normals(n * d, 23), dout = normals(n * d, 24);
            const float scale = 1.0f / std::sqrt(float(d));
            std::vector<float> weights(n * n), out(n * d);
            kernels::scores(q.data(), k.data(), weights.data(), n, n, d, scale);
            kernels::attend(weights.data(), v.data(), out.data(), n, d, true);
            std::vector<float> ds_fast(n * n, 7.0f), ds_slow(n * n, -7.0f);  // every entry is written
            auto dv_fast = normals(n * d, 25), dv_slow = dv_fast;
            kernels::attend_backward(weights.data(), v.data(), dout.data(), ds_fast.data(), dv_fast.data(), n, d);
            kernels::attend_backward_reference(weights.data(), v.data(), dout.data(), ds_slow.data(), dv_slow.data(), n, d);
            INFO("n " << n << " d " << d);
            CHECK(ds_fast == ds_slow);
            CHECK(dv_fast == dv_slow);
            for (std::size_t i = 0; i < n; ++i) {
                double row = 0;  // the softmax's Jacobian: sum_j w_ij (ds_ij - sum_j' w_ij' ds_ij') = 0
                for (std::size_t j = 0; j < n; ++j) {
                    row += ds_fast[i * n + j];
                    if (j > i) CHECK(ds_fast[i * n + j] == 0.0f);
                }
                CHECK(row == Approx(0.0).margin(1e-5));
            }
            auto dq_fast = normals(n * d, 26), dk_fast = normals(n * d, 27), dq_slow = dq_fast, dk_slow = dk_fast;
            kernels::scores_backward(ds_fast.data(), q.data(), k.data(), dq_fast.data(), dk_fast.data(), n, d, scale);
            kernels::scores_backward_reference(ds_fast.data(), q.data(), k.data(), dq_slow.data(), dk_slow.data(), n, d, scale);
            CHECK(dq_fast == dq_slow);
            CHECK(dk_fast == dk_slow);
        }
}

TEST_CASE("simd::exp is within 2 ulp of e^x and flushes what would be subnormal", "[kernels]") {
    double worst = 0;
    for (int i = 0; i <= 20000; ++i) {
        const float x = -87.0f + 175.0f * float(i) / 20000.0f;
        float lanes[4];
        simd::store(lanes, simd::exp(simd::splat(x)));
        const double exact = std::exp(double(x));
        worst = std::max(worst, std::abs(lanes[0] - exact) / exact);
    }
    CHECK(worst < 2.5e-7);  // 2 ulp of float32 is 2.4e-7 relative
    float lanes[4];
    const float inputs[4] = {-88.0f, -std::numeric_limits<float>::infinity(), 0.0f, -1.0f};
    simd::store(lanes, simd::exp(simd::load(inputs)));
    CHECK(lanes[0] == 0.0f);  // e^-88 = 6e-39 is below 2^-126: flushed
    CHECK(lanes[1] == 0.0f);
    CHECK(lanes[2] == 1.0f);
    CHECK(lanes[3] == Approx(std::exp(-1.0)).epsilon(3e-7));
}

TEST_CASE("simd::exp2_fast is within 2.0e-7 of 2^x over the softmax's inputs and flushes what would be subnormal",
          "[kernels]") {
    // The bound simd::exp2_fast states: 2.0e-7 relative (1.7 ulp of float32) for x in [-126, 0]. Swept here: every 61st
    // float from -0 down to -126 (the fused attention's inputs, x = a base-2 score minus its row's max; 18 million of
    // them, in 4 lanes at once), every float near 0, near -1/2 (where round(x) changes) and near the flush point; each
    // against std::exp2 in double.
    const auto bits = [](float x) { std::uint32_t b; std::memcpy(&b, &x, sizeof b); return b; };
    const auto value = [](std::uint32_t b) { float x; std::memcpy(&x, &b, sizeof x); return x; };
    double worst = 0;
    float worst_at = 0;
    std::size_t checked = 0;
    const auto check_lanes = [&](const float (&x)[4]) {
        float lanes[4];
        simd::store(lanes, simd::exp2_fast(simd::load(x)));
        for (int i = 0; i < 4; ++i) {
            const double exact = std::exp2(double(x[i]));
            const double relative = std::abs(double(lanes[i]) - exact) / exact;
            if (relative > worst) worst = relative, worst_at = x[i];
            ++checked;
        }
    };
    const auto sweep = [&](std::uint32_t from, std::uint32_t to, std::uint32_t step) {  // bit patterns from..to
        for (std::uint32_t b = from; b <= to; b += 4 * step) {
            float x[4];
            for (std::uint32_t i = 0; i < 4; ++i) x[i] = value(std::min(to, b + i * step));
            check_lanes(x);
            if (to - b < 4 * step) break;
        }
    };
    const std::uint32_t lowest = bits(-126.0f);
    sweep(bits(-0.0f), lowest, 61);                       // x in [-126, 0], every 61st float
    sweep(bits(-0.0f), bits(-0.0f) + 100000, 1);          // every float in [-1.4e-40, 0] (2^x = 1 - tiny)
    sweep(bits(-1e-3f), bits(-1e-3f) + 100000, 1);        // every float just below -1e-3
    sweep(bits(-0.5f) - 50000, bits(-0.5f) + 50000, 1);   // about -1/2: the reduction's k changes
    sweep(lowest - 100000, lowest, 1);                    // every float just above the flush point
    INFO("worst relative error " << worst << " at x = " << worst_at << " over " << checked << " inputs");
    CHECK(checked > 18000000);
    CHECK(worst < 2.0e-7);
    CHECK(worst > 1.0e-7);  // a real polynomial's error, not an exact copy of std::exp2: the sweep sees it

    float lanes[4];
    const float inputs[4] = {-126.00001f, -std::numeric_limits<float>::infinity(), 0.0f, -1.0f};
    simd::store(lanes, simd::exp2_fast(simd::load(inputs)));
    CHECK(lanes[0] == 0.0f);  // 2^-126.00001 is below 2^-126, the least normal float: flushed
    CHECK(lanes[1] == 0.0f);
    CHECK(lanes[2] == 1.0f);  // exactly: the softmax's largest weight is 2^0
    CHECK(lanes[3] == 0.5f);  // exactly: r = 0, k = -1
    const float flushed[4] = {-127.0f, -130.0f, -1e30f, -1000.0f};
    simd::store(lanes, simd::exp2_fast(simd::load(flushed)));
    for (const float e : lanes) CHECK(e == 0.0f);
    simd::store(lanes, simd::exp2_fast(simd::splat(-126.0f)));  // the last input kept: 2^-126 exactly
    CHECK(lanes[0] == std::numeric_limits<float>::min());
    simd::store(lanes, simd::exp2_fast(simd::splat(-125.5f)));  // a tie: k = -125 (to even), r = -1/2; a normal float
    CHECK(std::abs(lanes[0] - std::exp2(-125.5)) < 2e-7 * std::exp2(-125.5));
}

TEST_CASE("softmax_rows matches the scalar reference; -inf and subnormal weights become 0", "[kernels]") {
    for (const std::size_t n : {1u, 3u, 4u, 63u, 64u, 65u, 200u}) {
        auto x = normals(5 * n, unsigned(n), 4.0f);
        auto ref = x;
        kernels::softmax_rows(x.data(), 5, n);
        kernels::softmax_rows_reference(ref.data(), 5, n);
        for (std::size_t e = 0; e < x.size(); ++e) CHECK(x[e] == Approx(ref[e]).epsilon(1e-6).margin(1e-12));
    }
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> row = {0.0f, -100.0f, -inf, 0.0f, -inf};
    kernels::softmax_rows(row.data(), 1, row.size());
    CHECK(row == std::vector<float>{0.5f, 0.0f, 0.0f, 0.5f, 0.0f});  // e^-100 / 2 is subnormal: 0
    std::vector<float> masked = {-inf, -inf, -inf};
    kernels::softmax_rows(masked.data(), 1, 3);
    CHECK(masked == std::vector<float>{0.0f, 0.0f, 0.0f});
}

TEST_CASE("fused attention equals the full-matrix reference, causal or not, with a bias", "[kernels]") {
    for (const std::int64_t n : {1, 5, 32, 33, 64, 65, 130, 257}) {
        for (const std::int64_t d : {1, 3, 8, 17, 64}) {
            const auto q = normals(std::size_t(n * d), 10), k = normals(std::size_t(n * d), 11),
                       v = normals(std::size_t(n * d), 12);
            std::vector<float> f(std::size_t(2 * n - 1));
            for (std::int64_t r = -(n - 1); r <= n - 1; ++r) f[std::size_t(r + n - 1)] = -0.25f * float(std::abs(r));
            const kernels::RelativeBias alibi(f, n);
            for (const bool causal : {false, true})
                for (const kernels::BiasTile* bias : {static_cast<const kernels::BiasTile*>(nullptr),
                                                      static_cast<const kernels::BiasTile*>(&alibi)}) {
                    std::vector<float> fast(std::size_t(n * d)), slow(std::size_t(n * d));
                    const float scale = 1.0f / std::sqrt(float(d));
                    kernels::attention(q.data(), k.data(), v.data(), n, d, d, scale, causal, bias, fast.data());
                    kernels::attention_reference(q.data(), k.data(), v.data(), n, d, d, scale, causal, bias, slow.data());
                    INFO("n " << n << " d " << d << " causal " << causal << " bias " << (bias != nullptr));
                    CHECK(max_abs_difference(fast, slow) < 2e-6);
                }
        }
    }
}

TEST_CASE("the head in full (scores, attend) equals the reference and the fused kernel; masked weights are 0", "[kernels]") {
    for (const std::int64_t n : {1, 7, 33, 100})
        for (const std::int64_t d : {4, 8, 20})
            for (const bool causal : {false, true}) {
                const auto q = normals(n * d, 11), k = normals(n * d, 12), v = normals(n * d, 13);
                const float scale = 1.0f / std::sqrt(float(d));
                std::vector<float> weights(std::size_t(n * n)), full(std::size_t(n * d)), slow(std::size_t(n * d)),
                    fused(std::size_t(n * d));
                kernels::scores(q.data(), k.data(), weights.data(), std::size_t(n), std::size_t(n), std::size_t(d), scale);
                kernels::attend(weights.data(), v.data(), full.data(), std::size_t(n), std::size_t(d), causal);
                kernels::attention_reference(q.data(), k.data(), v.data(), n, d, d, scale, causal, nullptr, slow.data());
                kernels::attention(q.data(), k.data(), v.data(), n, d, d, scale, causal, nullptr, fused.data());
                INFO("n " << n << " d " << d << " causal " << causal);
                CHECK(max_abs_difference(full, slow) < 2e-6);
                CHECK(max_abs_difference(full, fused) < 2e-6);
                for (std::int64_t i = 0; i < n; ++i) {
                    double sum = 0;
                    for (std::int64_t j = 0; j < n; ++j) {
                        sum += weights[std::size_t(i * n + j)];
                        if (causal && j > i) CHECK(weights[std::size_t(i * n + j)] == 0.0f);
                    }
                    CHECK(sum == Approx(1.0).epsilon(1e-6));
                }
            }
}

TEST_CASE("fused causal attention at n off the block sizes: the diagonal block, a bias, rows that see no key", "[kernels]") {
    // n around multiples of 32 (queries per block) and 64 (keys per block): the diagonal block then
    // starts 0 or 32 keys after a block of keys and holds 1 to 32 queries.
    const float inf = std::numeric_limits<float>::infinity();
    for (const std::int64_t n : {1, 2, 31, 33, 63, 65, 95, 97, 127, 130}) {
        const std::int64_t d = 12, d_v = 5;
        const auto q = normals(std::size_t(n * d), 21), k = normals(std::size_t(n * d), 22),
                   v = normals(std::size_t(n * d_v), 23);
        // b(i, j) = -inf for j > i - 3: query i sees keys up to i - 3 alone, so queries 0, 1, 2 see none
        // (output 0); then a slope, as ALiBi.
        std::vector<float> f(std::size_t(2 * n - 1));
        for (std::int64_t r = -(n - 1); r <= n - 1; ++r) f[std::size_t(r + n - 1)] = r > -3 ? -inf : 0.3f * float(r);
        const kernels::RelativeBias lagged(f, n);
        std::vector<float> fast(std::size_t(n * d_v), 1.0f), slow(std::size_t(n * d_v));
        kernels::attention(q.data(), k.data(), v.data(), n, d, d_v, 0.4f, true, &lagged, fast.data());
        kernels::attention_reference(q.data(), k.data(), v.data(), n, d, d_v, 0.4f, true, &lagged, slow.data());
        INFO("n " << n);
        CHECK(max_abs_difference(fast, slow) < 2e-6);
        for (std::int64_t i = 0; i < std::min<std::int64_t>(n, 3); ++i)
            for (std::int64_t c = 0; c < d_v; ++c) CHECK(fast[std::size_t(i * d_v + c)] == 0.0f);
        if (n > 3) CHECK(fast[std::size_t(3 * d_v)] == Approx(v[0]).epsilon(1e-6));  // query 3 sees key 0 alone
        // The causal mask without a bias, as the plain reference (d_v 5: the 4-wide and single columns).
        kernels::attention(q.data(), k.data(), v.data(), n, d, d_v, 0.4f, true, nullptr, fast.data());
        kernels::attention_reference(q.data(), k.data(), v.data(), n, d, d_v, 0.4f, true, nullptr, slow.data());
        CHECK(max_abs_difference(fast, slow) < 2e-6);
    }
}

TEST_CASE("fused attention: row 0 of a causal head is v_0; a huge bias picks one key", "[kernels]") {
    const std::int64_t n = 100, d = 8;
    const auto q = normals(n * d, 1), k = normals(n * d, 2), v = normals(n * d, 3);
    std::vector<float> out(n * d);
    kernels::attention(q.data(), k.data(), v.data(), n, d, d, 1.0f, true, nullptr, out.data());
    for (std::int64_t c = 0; c < d; ++c) CHECK(out[c] == Approx(v[c]).epsilon(1e-6));
    // b(i, j) = 0 at j - i = -1, -1000 elsewhere: each query i >= 1 attends to key i - 1 alone
    std::vector<float> f(2 * n - 1, -1000.0f);
    f[n - 2] = 0.0f;
    const kernels::RelativeBias previous(f, n);
    kernels::attention(q.data(), k.data(), v.data(), n, d, d, 0.0f, false, &previous, out.data());
    for (std::int64_t i = 1; i < n; ++i)
        for (std::int64_t c = 0; c < d; ++c) CHECK(out[i * d + c] == Approx(v[(i - 1) * d + c]).margin(1e-6));
}

TEST_CASE("phasors are within 3e-7 of sin and cos at every row, up to position 1e6 and beyond", "[kernels]") {
    const auto w = frequencies(64, 10000.0);
    for (const std::int64_t start : {std::int64_t(0), std::int64_t(900000), std::int64_t(1) << 33}) {
        kernels::Phasors ph(w.data(), nullptr, w.size(), start, 1.0);
        std::vector<float> c(64), s(64);
        double worst = 0;
        for (std::int64_t r = 0; r < 100001; r += 1) {
            ph.row(r, c.data(), s.data());
            if (r % 997 != 0 && r != 100000) continue;
            for (std::size_t i = 0; i < w.size(); ++i) {
                const long double angle = (long double)(start + r) * (long double)w[i];
                worst = std::max({worst, double(std::abs(c[i] - std::cos(angle))), double(std::abs(s[i] - std::sin(angle)))});
            }
        }
        INFO("start " << start);
        CHECK(worst < 3e-7);
    }
}

TEST_CASE("sinusoid_table is within 1e-6 of float64 sin and cos for positions up to 1e6, both layouts", "[kernels]") {
    const std::size_t half = 256;
    const auto w = frequencies(half, 10000.0);
    for (const std::int64_t offset : {std::int64_t(0), std::int64_t(1000000 - 4096)})
        for (const bool interleaved : {true, false}) {
            std::vector<float> table(4096 * 2 * half);
            kernels::sinusoid_table(table.data(), 4096, half, interleaved, w.data(), offset);
            double worst = 0;
            for (std::int64_t r = 0; r < 4096; ++r)
                for (std::size_t i = 0; i < half; ++i) {
                    const long double angle = (long double)(offset + r) * (long double)w[i];
                    const float s = table[std::size_t(r) * 2 * half + (interleaved ? 2 * i : i)];
                    const float c = table[std::size_t(r) * 2 * half + (interleaved ? 2 * i + 1 : half + i)];
                    worst = std::max({worst, double(std::abs(s - std::sin(angle))), double(std::abs(c - std::cos(angle)))});
                }
            INFO("offset " << offset << " interleaved " << interleaved);
            CHECK(worst < 1e-6);
            CHECK(worst < 3e-7);  // in fact: the phasors' bound (kernels.hpp)
        }
}

TEST_CASE("rotate matches the float64 reference in both layouts, partial, with xPos gain, up to 1e6", "[kernels]") {
    for (const bool interleaved : {true, false})
        for (const std::size_t half : {1u, 3u, 4u, 13u, 64u})
            for (const std::int64_t offset : {std::int64_t(0), std::int64_t(1000000 - 300)})
                for (const bool gain : {false, true}) {
                    const std::int64_t n = 300, head_dim = std::int64_t(2 * half + 3);  // 3 pass-through dims
                    const auto w = frequencies(half, 10000.0);
                    std::vector<double> log_gain(half);
                    for (std::size_t i = 0; i < half; ++i) log_gain[i] = -1e-6 * double(i + 1);
                    auto x = normals(std::size_t(n * head_dim), 7), ref = x;
                    kernels::rotate(x.data(), n, head_dim, interleaved, w.data(), half, offset, 1.25,
                                    gain ? log_gain.data() : nullptr);
                    kernels::rotate_reference(ref.data(), n, head_dim, interleaved, w.data(), half, offset, 1.25,
                                              gain ? log_gain.data() : nullptr);
                    INFO("interleaved " << interleaved << " half " << half << " offset " << offset << " gain " << gain);
                    double worst = 0;
                    for (std::int64_t r = 0; r < n; ++r)
                        for (std::int64_t c = 0; c < head_dim; ++c) {
                            const std::size_t e = std::size_t(r * head_dim + c);
                            worst = std::max(worst, double(std::abs(x[e] - ref[e])));
                            if (c >= std::int64_t(2 * half)) CHECK(x[e] == ref[e]);  // passed through
                        }
                    CHECK(worst < 2e-6);  // |x| < 5: float32 products, 1e-6 relative to the pair's norm
                }
}

TEST_CASE("max_abs and column_max_abs are the largest |x| of plain loops, for every length's tail", "[kernels]") {
    std::mt19937 rng(11);
    std::normal_distribution<float> normal(0.0f, 3.0f);
    for (std::size_t count : {0u, 1u, 3u, 4u, 15u, 16u, 17u, 33u, 1000u}) {
        std::vector<float> a(count);
        for (float& x : a) x = normal(rng);
        if (count > 2) a[count - 2] = -1e30f;  // the largest, negative, in the tail or a vector
        float expected = 0.0f;
        for (const float x : a) expected = std::max(expected, std::fabs(x));
        CHECK(kernels::max_abs(a.data(), count) == expected);
        const std::size_t cols = 5, rows = count / cols;
        std::vector<float> by_column(cols);
        kernels::column_max_abs(a.data(), rows, cols, by_column.data());
        for (std::size_t c = 0; c < cols; ++c) {
            float column = 0.0f;
            for (std::size_t r = 0; r < rows; ++r) column = std::max(column, std::fabs(a[r * cols + c]));
            CHECK(by_column[c] == column);
        }
    }
}

TEST_CASE("first_nonfinite finds the first NaN or infinity at any place, in and past a block, and n when none", "[kernels]") {
    const float bad[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                         -std::numeric_limits<float>::infinity()};
    for (std::size_t n : {1u, 3u, 4u, 7u, 255u, 256u, 257u, 1000u}) {
        std::vector<float> x(n);
        for (std::size_t i = 0; i < n; ++i) x[i] = (i % 2 ? -1.0f : 1.0f) * 3.0e38f * (float(i % 5) / 4.0f);  // large, finite
        CHECK(kernels::first_nonfinite(x.data(), n) == n);
        for (float b : bad)
            for (std::size_t at : {std::size_t(0), n / 2, n - 1}) {
                std::vector<float> y = x;
                y[at] = b;
                if (at + 1 < n) y[n - 1] = b;  // a second one after it: the first is named
                CHECK(kernels::first_nonfinite(y.data(), n) == at);
            }
    }
    CHECK(kernels::first_nonfinite(nullptr, 0) == 0);
}

namespace {

// Scalar fused multiply-add versions of the two installable micro-kernels, the contract of
// kernels::TileKernel and WeightedSumKernel (wasm/relaxed-kernels.wat implements it with relaxed SIMD).
template <std::size_t R>
void fma_tile(const float* a, std::size_t lda, std::size_t ldp, const float* panel, std::size_t p0, std::size_t p1,
              float* out, std::size_t ldo, int accumulate) {
    for (std::size_t r = 0; r < R; ++r)
        for (std::size_t c = 0; c < 8; ++c) {
            float sum = accumulate ? out[r * ldo + c] : 0.0f;
            for (std::size_t p = p0; p < p1; ++p) sum = std::fma(a[r * lda + p * ldp], panel[p * 8 + c], sum);
            out[r * ldo + c] = sum;
        }
}

template <std::size_t R>
void fma_weighted_sum(const float* w, std::size_t ldw, const float* v, std::size_t ldv, std::size_t keys,
                      const float* alpha, float* out, std::size_t ldo) {
    for (std::size_t r = 0; r < R; ++r)
        for (std::size_t c = 0; c < 8; ++c) {
            float sum = out[r * ldo + c] * alpha[r];
            for (std::size_t p = 0; p < keys; ++p) sum = std::fma(w[r * ldw + p], v[p * ldv + c], sum);
            out[r * ldo + c] = sum;
        }
}

}  // namespace

TEST_CASE("installed micro-kernels (set_micro_kernels) run in the products and in attention, within the bounds",
          "[kernels]") {
    REQUIRE_FALSE(kernels::external_micro_kernels());
    kernels::set_micro_kernels({fma_tile<4>, fma_tile<1>, fma_weighted_sum<4>, fma_weighted_sum<1>});
    REQUIRE(kernels::external_micro_kernels());
    const std::size_t m = 13, k = 37, n = 21;  // 4-row tiles and a leftover row; full panels and a partial one
    const auto a = normals(m * k, 1), b = normals(k * n, 2), bt = normals(n * k, 3);
    std::vector<float> fast(m * n), slow(m * n);
    kernels::matmul(a.data(), b.data(), fast.data(), m, k, n);
    kernels::matmul_reference(a.data(), b.data(), slow.data(), m, k, n);
    const float after_matmul = max_abs_difference(fast, slow);
    kernels::matmul_bt(a.data(), bt.data(), fast.data(), m, k, n);
    kernels::matmul_bt_reference(a.data(), bt.data(), slow.data(), m, k, n);
    const float after_bt = max_abs_difference(fast, slow);
    std::fill(fast.begin(), fast.end(), 0.5f);
    std::fill(slow.begin(), slow.end(), 0.5f);
    kernels::matmul_accumulate(a.data(), b.data(), fast.data(), m, k, n);
    kernels::matmul_accumulate_reference(a.data(), b.data(), slow.data(), m, k, n);
    const float after_accumulate = max_abs_difference(fast, slow);
    const std::int64_t len = 130, d = 64;
    const auto q = normals(std::size_t(len * d), 4), kk = normals(std::size_t(len * d), 5), v = normals(std::size_t(len * d), 6);
    std::vector<float> o(std::size_t(len * d)), o_ref(std::size_t(len * d));
    float after_attention = 0;
    for (const bool causal : {false, true}) {
        kernels::attention(q.data(), kk.data(), v.data(), len, d, d, 0.125f, causal, nullptr, o.data());
        kernels::attention_reference(q.data(), kk.data(), v.data(), len, d, d, 0.125f, causal, nullptr, o_ref.data());
        after_attention = std::max(after_attention, max_abs_difference(o, o_ref));
    }
    // With the 6-row kernels too, attention takes its rows 6 at a time, in blocks of 36 queries and 72 keys (the
    // last block of 130 queries, 22 rows: 6 + 6 + 4 + 4 + 1 + 1): its online softmax then sums over other blocks of
    // keys than the 4-row kernels' 32 x 64, so the outputs agree within rounding, not bit for bit; within one call
    // every row takes the same arithmetic whatever its group (equal queries give equal rows, checked below).
    for (const bool causal : {false, true}) {
        kernels::set_micro_kernels({fma_tile<4>, fma_tile<1>, fma_weighted_sum<4>, fma_weighted_sum<1>});
        kernels::attention(q.data(), kk.data(), v.data(), len, d, d, 0.125f, causal, nullptr, o.data());
        kernels::set_micro_kernels(
            {fma_tile<4>, fma_tile<1>, fma_weighted_sum<4>, fma_weighted_sum<1>, fma_tile<6>, fma_weighted_sum<6>});
        for (const std::int64_t rows : {len, std::int64_t(45), std::int64_t(7)}) {  // 45: 32 + 13 = 6 + 4 + 1 + 1 + 1
            std::vector<float> six(std::size_t(rows * d)), four(std::size_t(rows * d));
            kernels::attention(q.data(), kk.data(), v.data(), rows, d, d, 0.125f, causal, nullptr, six.data());
            kernels::set_micro_kernels({fma_tile<4>, fma_tile<1>, fma_weighted_sum<4>, fma_weighted_sum<1>});
            kernels::attention(q.data(), kk.data(), v.data(), rows, d, d, 0.125f, causal, nullptr, four.data());
            kernels::set_micro_kernels(
                {fma_tile<4>, fma_tile<1>, fma_weighted_sum<4>, fma_weighted_sum<1>, fma_tile<6>, fma_weighted_sum<6>});
            INFO("rows " << rows << " causal " << causal);
            CHECK(max_abs_difference(six, four) < 1e-5f);
        }
        kernels::set_micro_kernels({fma_tile<4>, fma_tile<1>, fma_weighted_sum<4>, fma_weighted_sum<1>});
    }
    // With the 6-row kernels, query 129 (a single row of the last block) copied to query 7 (a 6-row group of the
    // first) gives the same output row, bit for bit.
    {
        kernels::set_micro_kernels(
            {fma_tile<4>, fma_tile<1>, fma_weighted_sum<4>, fma_weighted_sum<1>, fma_tile<6>, fma_weighted_sum<6>});
        auto q2 = q;
        std::copy(q.begin() + 129 * d, q.begin() + 130 * d, q2.begin() + 7 * d);
        kernels::attention(q2.data(), kk.data(), v.data(), len, d, d, 0.125f, false, nullptr, o.data());
        CHECK(std::equal(o.begin() + 129 * d, o.begin() + 130 * d, o.begin() + 7 * d));
        kernels::set_micro_kernels({fma_tile<4>, fma_tile<1>, fma_weighted_sum<4>, fma_weighted_sum<1>});
    }
    // Every row takes the same arithmetic: a's row 12 (a leftover row) copied to row 1 (a 4-row tile) gives
    // the same row of the product.
    auto a2 = a;
    std::copy(a.begin() + 12 * k, a.begin() + 13 * k, a2.begin() + 1 * k);
    kernels::matmul(a2.data(), b.data(), fast.data(), m, k, n);
    CHECK(std::equal(fast.begin() + 12 * n, fast.begin() + 13 * n, fast.begin() + 1 * n));
    kernels::set_micro_kernels({});
    REQUIRE_FALSE(kernels::external_micro_kernels());
    // A fused product is rounded once: within the bounds, but (here) not bit for bit.
    CHECK(after_matmul > 0.0f);
    CHECK(after_matmul < 1e-5f);
    CHECK(after_bt < 1e-5f);
    CHECK(after_accumulate < 1e-5f);
    CHECK(after_attention > 0.0f);
    CHECK(after_attention < 2e-6f);
    // Uninstalled, the C++ kernels again: bit for bit.
    kernels::matmul(a.data(), b.data(), fast.data(), m, k, n);
    kernels::matmul_reference(a.data(), b.data(), slow.data(), m, k, n);
    CHECK(fast == slow);
}

}  // namespace posenc_test_kernels
