// posenc/simd.hpp: the few 4 x float32 and 2 x float64 vector operations the
// hot kernels (kernels.cpp) are written with, mapped to WebAssembly SIMD
// (<wasm_simd128.h>, the build for the page), to SSE2 (the native build on
// x86-64, so the native tests run the very kernels the page runs), or to plain
// scalar code elsewhere. Every operation is an IEEE operation with one rounding
// per lane (no fused multiply-add), so the three agree bit for bit on +, -, *,
// conversions and shuffles.
//
// Why hand-written: clang auto-vectorises plain contiguous loops for -msimd128,
// but not register-blocked matmul tiles, interleaved pairs, exp or the
// phasor products (measured: TOOLCHAIN notes of the project's shared docs).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#define POSENC_SIMD "wasm-simd128"
#elif defined(__SSE2__)
#include <emmintrin.h>
#define POSENC_SIMD "sse2"
#else
#define POSENC_SIMD "scalar"
#endif

namespace posenc::simd {

#if defined(__wasm_simd128__)

using f32x4 = v128_t;
using f64x2 = v128_t;

inline f32x4 load(const float* p) { return wasm_v128_load(p); }
inline void store(float* p, f32x4 v) { wasm_v128_store(p, v); }
inline f32x4 splat(float x) { return wasm_f32x4_splat(x); }
/// splat(*p) as one load (v128.load32_splat).
inline f32x4 load_splat(const float* p) { return wasm_v128_load32_splat(p); }
inline f32x4 add(f32x4 a, f32x4 b) { return wasm_f32x4_add(a, b); }
inline f32x4 sub(f32x4 a, f32x4 b) { return wasm_f32x4_sub(a, b); }
inline f32x4 mul(f32x4 a, f32x4 b) { return wasm_f32x4_mul(a, b); }
/// a < b ? b : a and b < a ? b : a per lane (pmax, pmin: one x86 maxps / minps in V8;
/// the NaN-propagating f32x4.max takes several).
inline f32x4 max(f32x4 a, f32x4 b) { return wasm_f32x4_pmax(a, b); }
inline f32x4 min(f32x4 a, f32x4 b) { return wasm_f32x4_pmin(a, b); }
/// a where a >= b per lane, else +0.
inline f32x4 keep_ge(f32x4 a, f32x4 b, f32x4 x) { return wasm_v128_and(x, wasm_f32x4_ge(a, b)); }
inline f32x4 abs(f32x4 x) { return wasm_f32x4_abs(x); }
/// Round to nearest integer, ties to even (values within +-2^22).
inline f32x4 round(f32x4 x) { return wasm_f32x4_nearest(x); }
/// 2^n for integer-valued n in [-126, 127].
inline f32x4 exp2i(f32x4 n) {
    return wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_trunc_sat_f32x4(n), wasm_i32x4_splat(127)), 23);
}
/// The bits of each lane shifted left by 23 (into a float's exponent field), as a float.
inline f32x4 bits_to_exponent(f32x4 x) { return wasm_i32x4_shl(x, 23); }
/// (v0, v0, v1, v1), (v2, v2, v3, v3), (v1, v0, v3, v2)
inline f32x4 dup_lo(f32x4 v) { return wasm_i32x4_shuffle(v, v, 0, 0, 1, 1); }
inline f32x4 dup_hi(f32x4 v) { return wasm_i32x4_shuffle(v, v, 2, 2, 3, 3); }
inline f32x4 swap_pairs(f32x4 v) { return wasm_i32x4_shuffle(v, v, 1, 0, 3, 2); }
/// (a0, b0, a1, b1), (a2, b2, a3, b3)
inline f32x4 zip_lo(f32x4 a, f32x4 b) { return wasm_i32x4_shuffle(a, b, 0, 4, 1, 5); }
inline f32x4 zip_hi(f32x4 a, f32x4 b) { return wasm_i32x4_shuffle(a, b, 2, 6, 3, 7); }
/// Lanes flipped in sign where the mask's lanes are -0.0f: x XOR mask.
inline f32x4 flip_signs(f32x4 x, f32x4 mask) { return wasm_v128_xor(x, mask); }
inline float first(f32x4 v) { return wasm_f32x4_extract_lane(v, 0); }
/// The largest lane and the sum of the lanes ((v0 + v2) + (v1 + v3)).
inline float hmax(f32x4 v) {
    const f32x4 m = max(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
    return first(max(m, wasm_i32x4_shuffle(m, m, 1, 0, 3, 2)));
}
inline float hsum(f32x4 v) {
    const f32x4 s = add(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
    return first(add(s, wasm_i32x4_shuffle(s, s, 1, 0, 3, 2)));
}

inline f64x2 load2(const double* p) { return wasm_v128_load(p); }
inline void store2(double* p, f64x2 v) { wasm_v128_store(p, v); }
inline f64x2 splat2(double x) { return wasm_f64x2_splat(x); }
inline f64x2 add2(f64x2 a, f64x2 b) { return wasm_f64x2_add(a, b); }
inline f64x2 sub2(f64x2 a, f64x2 b) { return wasm_f64x2_sub(a, b); }
inline f64x2 mul2(f64x2 a, f64x2 b) { return wasm_f64x2_mul(a, b); }
/// (float(a0), float(a1), float(b0), float(b1)), each rounded to nearest.
inline f32x4 narrow(f64x2 a, f64x2 b) {
    return wasm_i32x4_shuffle(wasm_f32x4_demote_f64x2_zero(a), wasm_f32x4_demote_f64x2_zero(b), 0, 1, 4, 5);
}

#elif defined(__SSE2__)

using f32x4 = __m128;
using f64x2 = __m128d;

inline f32x4 load(const float* p) { return _mm_loadu_ps(p); }
inline void store(float* p, f32x4 v) { _mm_storeu_ps(p, v); }
inline f32x4 splat(float x) { return _mm_set1_ps(x); }
inline f32x4 load_splat(const float* p) { return _mm_set1_ps(*p); }
inline f32x4 add(f32x4 a, f32x4 b) { return _mm_add_ps(a, b); }
inline f32x4 sub(f32x4 a, f32x4 b) { return _mm_sub_ps(a, b); }
inline f32x4 mul(f32x4 a, f32x4 b) { return _mm_mul_ps(a, b); }
inline f32x4 max(f32x4 a, f32x4 b) { return _mm_max_ps(b, a); }  // b > a ? b : a, as wasm's pmax
inline f32x4 min(f32x4 a, f32x4 b) { return _mm_min_ps(b, a); }
inline f32x4 keep_ge(f32x4 a, f32x4 b, f32x4 x) { return _mm_and_ps(x, _mm_cmpge_ps(a, b)); }
inline f32x4 abs(f32x4 x) { return _mm_andnot_ps(_mm_set1_ps(-0.0f), x); }  // the sign bit cleared
inline f32x4 round(f32x4 x) {
    // Adding and subtracting 1.5 * 2^23 rounds to nearest even (SSE2 has no roundps).
    const f32x4 magic = _mm_set1_ps(12582912.0f);
    return _mm_sub_ps(_mm_add_ps(x, magic), magic);
}
inline f32x4 exp2i(f32x4 n) {
    return _mm_castsi128_ps(_mm_slli_epi32(_mm_add_epi32(_mm_cvttps_epi32(n), _mm_set1_epi32(127)), 23));
}
inline f32x4 bits_to_exponent(f32x4 x) { return _mm_castsi128_ps(_mm_slli_epi32(_mm_castps_si128(x), 23)); }
inline f32x4 dup_lo(f32x4 v) { return _mm_unpacklo_ps(v, v); }
inline f32x4 dup_hi(f32x4 v) { return _mm_unpackhi_ps(v, v); }
inline f32x4 swap_pairs(f32x4 v) { return _mm_shuffle_ps(v, v, _MM_SHUFFLE(2, 3, 0, 1)); }
inline f32x4 zip_lo(f32x4 a, f32x4 b) { return _mm_unpacklo_ps(a, b); }
inline f32x4 zip_hi(f32x4 a, f32x4 b) { return _mm_unpackhi_ps(a, b); }
inline f32x4 flip_signs(f32x4 x, f32x4 mask) { return _mm_xor_ps(x, mask); }
inline float first(f32x4 v) { return _mm_cvtss_f32(v); }
inline float hmax(f32x4 v) {
    const f32x4 m = max(v, _mm_shuffle_ps(v, v, _MM_SHUFFLE(1, 0, 3, 2)));
    return first(max(m, _mm_shuffle_ps(m, m, _MM_SHUFFLE(2, 3, 0, 1))));
}
inline float hsum(f32x4 v) {
    const f32x4 s = add(v, _mm_shuffle_ps(v, v, _MM_SHUFFLE(1, 0, 3, 2)));
    return first(add(s, _mm_shuffle_ps(s, s, _MM_SHUFFLE(2, 3, 0, 1))));
}

inline f64x2 load2(const double* p) { return _mm_loadu_pd(p); }
inline void store2(double* p, f64x2 v) { _mm_storeu_pd(p, v); }
inline f64x2 splat2(double x) { return _mm_set1_pd(x); }
inline f64x2 add2(f64x2 a, f64x2 b) { return _mm_add_pd(a, b); }
inline f64x2 sub2(f64x2 a, f64x2 b) { return _mm_sub_pd(a, b); }
inline f64x2 mul2(f64x2 a, f64x2 b) { return _mm_mul_pd(a, b); }
inline f32x4 narrow(f64x2 a, f64x2 b) { return _mm_movelh_ps(_mm_cvtpd_ps(a), _mm_cvtpd_ps(b)); }

#else

struct f32x4 {
    float v[4];
};
struct f64x2 {
    double v[2];
};

template <class F>
inline f32x4 each(F f) {
    f32x4 r;
    for (int i = 0; i < 4; ++i) r.v[i] = f(i);
    return r;
}
inline f32x4 load(const float* p) { return each([&](int i) { return p[i]; }); }
inline void store(float* p, f32x4 v) { std::memcpy(p, v.v, sizeof v.v); }
inline f32x4 splat(float x) { return each([&](int) { return x; }); }
inline f32x4 load_splat(const float* p) { return splat(*p); }
inline f32x4 add(f32x4 a, f32x4 b) { return each([&](int i) { return a.v[i] + b.v[i]; }); }
inline f32x4 sub(f32x4 a, f32x4 b) { return each([&](int i) { return a.v[i] - b.v[i]; }); }
inline f32x4 mul(f32x4 a, f32x4 b) { return each([&](int i) { return a.v[i] * b.v[i]; }); }
inline f32x4 max(f32x4 a, f32x4 b) { return each([&](int i) { return a.v[i] < b.v[i] ? b.v[i] : a.v[i]; }); }
inline f32x4 min(f32x4 a, f32x4 b) { return each([&](int i) { return b.v[i] < a.v[i] ? b.v[i] : a.v[i]; }); }
inline f32x4 keep_ge(f32x4 a, f32x4 b, f32x4 x) { return each([&](int i) { return a.v[i] >= b.v[i] ? x.v[i] : 0.0f; }); }
inline f32x4 abs(f32x4 x) { return each([&](int i) { return std::fabs(x.v[i]); }); }
inline f32x4 round(f32x4 x) {
    return each([&](int i) { return (x.v[i] + 12582912.0f) - 12582912.0f; });
}
inline f32x4 exp2i(f32x4 n) {
    return each([&](int i) {
        const std::uint32_t bits = std::uint32_t(std::int32_t(n.v[i]) + 127) << 23;
        float out;
        std::memcpy(&out, &bits, sizeof out);
        return out;
    });
}
inline f32x4 bits_to_exponent(f32x4 x) {
    return each([&](int i) {
        std::uint32_t bits;
        std::memcpy(&bits, &x.v[i], sizeof bits);
        bits <<= 23;
        float out;
        std::memcpy(&out, &bits, sizeof out);
        return out;
    });
}
inline f32x4 dup_lo(f32x4 v) { return {{v.v[0], v.v[0], v.v[1], v.v[1]}}; }
inline f32x4 dup_hi(f32x4 v) { return {{v.v[2], v.v[2], v.v[3], v.v[3]}}; }
inline f32x4 swap_pairs(f32x4 v) { return {{v.v[1], v.v[0], v.v[3], v.v[2]}}; }
inline f32x4 zip_lo(f32x4 a, f32x4 b) { return {{a.v[0], b.v[0], a.v[1], b.v[1]}}; }
inline f32x4 zip_hi(f32x4 a, f32x4 b) { return {{a.v[2], b.v[2], a.v[3], b.v[3]}}; }
inline f32x4 flip_signs(f32x4 x, f32x4 mask) {
    return each([&](int i) { return std::signbit(mask.v[i]) ? -x.v[i] : x.v[i]; });
}
inline float first(f32x4 v) { return v.v[0]; }
inline float hmax(f32x4 v) {
    const float a = v.v[2] < v.v[0] ? v.v[0] : v.v[2], b = v.v[3] < v.v[1] ? v.v[1] : v.v[3];
    return b < a ? a : b;
}
inline float hsum(f32x4 v) { return (v.v[0] + v.v[2]) + (v.v[1] + v.v[3]); }

inline f64x2 load2(const double* p) { return {{p[0], p[1]}}; }
inline void store2(double* p, f64x2 v) { std::memcpy(p, v.v, sizeof v.v); }
inline f64x2 splat2(double x) { return {{x, x}}; }
inline f64x2 add2(f64x2 a, f64x2 b) { return {{a.v[0] + b.v[0], a.v[1] + b.v[1]}}; }
inline f64x2 sub2(f64x2 a, f64x2 b) { return {{a.v[0] - b.v[0], a.v[1] - b.v[1]}}; }
inline f64x2 mul2(f64x2 a, f64x2 b) { return {{a.v[0] * b.v[0], a.v[1] * b.v[1]}}; }
inline f32x4 narrow(f64x2 a, f64x2 b) { return {{float(a.v[0]), float(a.v[1]), float(b.v[0]), float(b.v[1])}}; }

#endif

/// e^x per lane, for the softmax: Cody-Waite reduction x = n ln 2 + r (|r| <= ln2 / 2)
/// and a degree-6 polynomial for e^r (Cephes expf's coefficients); within 2 ulp
/// of e^x for x in [-87.3, 88.7]. Results that would be subnormal (x < -87.33,
/// where e^x < 2^-126) are flushed to +0, as is e^-inf; x above 88.7 is clamped.
inline f32x4 exp(f32x4 x) {
    const f32x4 lowest = splat(-87.33f);
    const f32x4 in = min(x, splat(88.37f));
    const f32x4 xc = max(in, lowest);
    const f32x4 n = round(mul(xc, splat(1.44269504088896341f)));
    f32x4 r = sub(xc, mul(n, splat(0.693359375f)));
    r = sub(r, mul(n, splat(-2.12194440e-4f)));
    f32x4 p = splat(1.9875691500e-4f);
    p = add(mul(p, r), splat(1.3981999507e-3f));
    p = add(mul(p, r), splat(8.3334519073e-3f));
    p = add(mul(p, r), splat(4.1665795894e-2f));
    p = add(mul(p, r), splat(1.6666665459e-1f));
    p = add(mul(p, r), splat(5.0000001201e-1f));
    p = add(add(mul(p, mul(r, r)), r), splat(1.0f));
    return keep_ge(in, lowest, mul(p, exp2i(n)));
}

/// 2^x per lane, for the fused attention's online softmax (kernels::attention works in base 2: its scores are
/// the logits times log2(e), so a weight e^(logit - max) is 2^(x) with x = score - its row's running maximum <= 0).
/// exp above stays for softmax_rows (the page's head and training): the trained sets the page ships were trained
/// natively with it, and the wasm build trains them again bit for bit.
/// x = k + r with k = round(x) (adding 1.5 * 2^23 + 127 leaves k + 127 in the low bits: no float-to-int conversion)
/// and r = x - k exactly (|r| <= 1/2: no Cody-Waite split, which base e needs), then 2^r by a degree-5 polynomial
/// 1 + r (c1 + r (c2 + r (c3 + r (c4 + r c5)))) (Horner: 5 products, 5 sums) whose coefficients are fitted for the
/// least maximum relative error on [-1/2, 1/2] (Lawson's iteration in 40-digit arithmetic: 9.17e-8; 2^0 = 1
/// exactly), and 2^k put in by shifting k + 127 into the exponent field. 17 vector operations and 8 constants
/// (exp: about 34 in V8, whose saturating float-to-int conversion alone is several instructions).
/// Error bound: within 2.0e-7 relative (1.7 ulp of float32) of 2^x for every float x in [-126, 0]: the test
/// "simd::exp2_fast ..." of tests/native/test_kernels.cpp sweeps that range against std::exp2 in double and asserts
/// it. Flushed to +0: x < -126 (2^x subnormal) and -infinity. Not for x > 127 (2^k overflows; no caller has
/// x > 0) or NaN (gives +0).
inline f32x4 exp2_fast(f32x4 x) {
    const f32x4 shifter = splat(12583039.0f);  // 1.5 * 2^23 + 127: x + shifter holds round(x) + 127 in its low bits
    const f32x4 kt = add(x, shifter);
    const f32x4 r = sub(x, sub(kt, shifter));  // x - round(x), exactly
    f32x4 p = splat(1.3264626032e-3f);
    p = add(mul(p, r), splat(9.6715046093e-3f));
    p = add(mul(p, r), splat(5.5507339537e-2f));
    p = add(mul(p, r), splat(2.4022242427e-1f));
    p = add(mul(p, r), splat(6.9314700365e-1f));
    p = add(mul(p, r), splat(1.0f));
    return keep_ge(x, splat(-126.0f), mul(p, bits_to_exponent(kt)));
}

}  // namespace posenc::simd
