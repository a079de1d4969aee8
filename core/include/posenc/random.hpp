// posenc/random.hpp: a portable seeded random source. std::normal_distribution
// differs between standard libraries, and libm's log and cos may differ in the
// last bit between glibc (native) and musl (WASM); tables drawn here are the
// same bytes on every platform because every step is an IEEE 754 operation
// with one correctly rounded result (+, -, *, /, sqrt, frexp), done in a fixed order.
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>

namespace posenc {

/// ln(x) for finite x > 0 from frexp and the series 2 atanh(t), t = (m-1)/(m+1),
/// m in [sqrt(1/2), sqrt(2)): within 2 ulp of the true value, identical everywhere.
inline double portable_log(double x) {
    int e = 0;
    double m = std::frexp(x, &e);  // x = m 2^e, m in [0.5, 1)
    if (m < 0.70710678118654752440) {
        m *= 2.0;
        e -= 1;
    }
    const double t = (m - 1.0) / (m + 1.0), t2 = t * t;  // |t| < 0.1716
    double sum = 0.0;
    for (int k = 31; k >= 1; k -= 2) sum = sum * t2 + 1.0 / k;  // sum_k t^(k-1) / k
    return 2.0 * t * sum + double(e) * 0.69314718055994530942;
}

/// cos(2 pi u) for u in [0, 1): exact reduction to [-pi/4, pi/4] by quarter
/// turns, then Taylor series; identical everywhere, within a few ulp.
inline double portable_cos_turns(double u) {
    const double quarters = u * 4.0;                   // exact
    const double q = std::floor(quarters + 0.5);       // nearest quarter turn
    const double r = (quarters - q) * 1.57079632679489661923;  // |r| <= pi/4
    const double r2 = r * r;
    double c = 0.0, s = 0.0;
    for (int k = 20; k >= 2; k -= 2) c = (1.0 - c) * r2 / double(k * (k - 1));  // 1 - cos r, nested
    for (int k = 21; k >= 3; k -= 2) s = (1.0 - s) * r2 / double(k * (k - 1));  // 1 - sin(r)/r
    const double cos_r = 1.0 - c, sin_r = r * (1.0 - s);
    switch (int(q) % 4) {
        case 0: return cos_r;
        case 1: return -sin_r;
        case 2: return -cos_r;
        default: return sin_r;
    }
}

/// SplitMix64's output function (Steele, Lea and Flood 2014; the constants of Stafford's "Mix13" variant): a bijection
/// of the 64-bit integers in which every output bit depends on every input bit. Random's draws and derive_seed use it.
inline std::uint64_t mix64(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/// A seed derived from `seed` and a path of ids (a stream's id, then, say, a layer and a head), for generators that
/// must share no draws: h = mix64(seed + phi), then for each id h = mix64(h ^ mix64(id + phi)) (phi = 2^64 / golden
/// ratio, SplitMix64's increment). Unlike seed + id (where stream 1 of seed 0 is stream 0 of seed 1), nearby seeds
/// and paths give unrelated seeds: two tuples agree only by a 64-bit collision.
inline std::uint64_t derive_seed(std::uint64_t seed, std::initializer_list<std::uint64_t> path) {
    constexpr std::uint64_t phi = 0x9E3779B97F4A7C15ull;
    std::uint64_t h = mix64(seed + phi);
    for (const std::uint64_t id : path) h = mix64(h ^ mix64(id + phi));
    return h;
}

/// SplitMix64 (Steele, Lea and Flood 2014) and Box-Muller normals built on
/// portable_log and portable_cos_turns.
class Random {
public:
    explicit Random(std::uint64_t seed) : state_(seed) {}

    /// The generator positioned at the k-th normal of seed's stream (SplitMix64
    /// is a counter: draw k uses bits 2k and 2k+1), so table entry k can be
    /// computed without the k before it: Random::at(s, k).normal().
    static Random at(std::uint64_t seed, std::uint64_t k) { return Random(seed + 2 * k * 0x9E3779B97F4A7C15ull); }

    /// The generator positioned at the u-th 64-bit draw of seed's stream (the u-th
    /// uniform()): Random::at_draw(s, u).uniform() without the u draws before it.
    static Random at_draw(std::uint64_t seed, std::uint64_t u) { return Random(seed + u * 0x9E3779B97F4A7C15ull); }

    /// The next 64 random bits.
    std::uint64_t next_bits() {
        return mix64(state_ += 0x9E3779B97F4A7C15ull);
    }
    /// Uniform in (0, 1): 53 random bits, never exactly 0 or 1.
    double uniform() { return (double(next_bits() >> 11) + 0.5) * 0x1.0p-53; }
    /// Standard normal N(0, 1) (one of each Box-Muller pair is used).
    double normal() {
        const double u1 = uniform(), u2 = uniform();
        return std::sqrt(-2.0 * portable_log(u1)) * portable_cos_turns(u2);
    }

private:
    std::uint64_t state_;
};

}  // namespace posenc
