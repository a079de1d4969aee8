// posenc/random.hpp: a portable seeded random source. std::normal_distribution
// differs between standard libraries, so tables drawn from it would differ
// between the native build and WASM; this one is the same bits everywhere.
#pragma once

#include <cmath>
#include <cstdint>

namespace posenc {

/// SplitMix64 (Steele, Lea and Flood 2014): the bits and the uniforms are
/// exact integer and IEEE double arithmetic, identical on every platform.
/// normal() uses Box-Muller, whose log and cos come from the platform's libm
/// (glibc natively, musl in WASM); they may differ in the last bit of a double,
/// which survives rounding to float32 only in rare ties.
class Random {
public:
    explicit Random(std::uint64_t seed) : state_(seed) {}

    /// The next 64 random bits.
    std::uint64_t next_bits() {
        std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    /// Uniform in (0, 1): 53 random bits, never exactly 0.
    double uniform() { return (double(next_bits() >> 11) + 0.5) * 0x1.0p-53; }
    /// Standard normal N(0, 1) by the Box-Muller transform (one of each pair used).
    double normal() {
        const double u1 = uniform(), u2 = uniform();
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
    }

private:
    std::uint64_t state_;
};

}  // namespace posenc
