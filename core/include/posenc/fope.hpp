// posenc/fope.hpp: Fourier Position Embedding (FoPE; Hua et al. 2025, "Fourier Position Embedding:
// Enhancing Attention's Periodic Extension for Length Generalization", ICML 2025, arXiv 2412.17739,
// section 4), as vLLM's FourierRotaryEmbedding computes it (the paper's code, Appendix D, without its
// column normalisation: a checkpoint's coefficients are applied as they are).
//
// RoPE's frequencies omega_p = rope_theta^(-2p / head_dim), p = 0 .. head_dim / 2 - 1, are kept only
// when their period 2 pi / omega_p is shorter than the training length max_position_embeddings (the
// "frequency floor": a slower pair never completes a turn in training); K of them (or the first
// num_inv_freq). Each kept pair d < K then turns by a Fourier series over all K kept frequencies
// rather than by one:
//   C_d(t) = sum over D of cos(t omega_D) cos_coef[D, d],  S_d(t) = sum over D of sin(t omega_D) sin_coef[D, d]
//   (x_a, x_b) at position t -> (x_a C_d(t) - x_b S_d(t),  x_b C_d(t) + x_a S_d(t))
// in the half layout, pair d = columns (d, d + head_dim / 2). The pairs d >= K get C = S = 1, as both
// references pad them (vLLM's F.pad value 1, the paper's code too): a fixed map sqrt(2) R(45 degrees)
// for every position, so they carry no position and their q . k is twice the unrotated one. With
// cos_coef = sin_coef = I the kept pairs are RoPE's. The coefficients are learned per head; the
// paper's code starts them at I plus xavier-normal noise of gain rope_fourier_init_norm_gain.
#pragma once

#include <cstdint>
#include <vector>

#include "posenc/config.hpp"
#include "posenc/family.hpp"

namespace posenc::fope {

/// The largest head_dim: K <= 256 kept frequencies, a series of K terms per pair and position.
constexpr std::int64_t kMaxWidth = 512;

/// The family's descriptor: type "fope", acts rotary, width key head_dim; keys as Spec; computes the
/// frequencies (ropeInvFreq: the kept ones, 0 for the clipped pairs), the transform and its decay curves.
const Family& family();

/// What the family does in train() (posenc/train_slots.hpp): cos_coef and sin_coef [K, K] per head, from
/// I plus the paper's noise, written back as the spec's cos_coef and sin_coef.
const train::Training& training();

/// `{type: 'fope', head_dim, rope_theta, max_position_embeddings, num_inv_freq?, cos_coef?, sin_coef?,
/// rope_fourier_init_norm_gain, seed}`.
struct Spec {
    std::int64_t head_dim = 64;                 ///< even
    double rope_theta = 10000.0;
    std::int64_t max_position_embeddings = 64;  ///< the training length L: the floor keeps periods < L (64: the LM lab's)
    std::int64_t num_inv_freq = 0;              ///< > 0: keep the first num_inv_freq frequencies instead
    double rope_fourier_init_norm_gain = 0.3;   ///< the drawn coefficients' noise (the paper's default)
    std::uint64_t seed = 0;                     ///< the draw's seed
    std::vector<float> cos_coef, sin_coef;      ///< [K, K] row-major, [D, d]; empty: drawn from seed
};

/// Reads a spec; throws BadParam for keys out of range, and for coefficient lists whose length is not K x K.
Spec parse(const Config& config);

/// omega_p = rope_theta^(-2p / head_dim) for every pair p = 0 .. head_dim / 2 - 1, radians per token.
std::vector<double> inv_freq(const Spec& spec);

/// K: how many of inv_freq FoPE keeps, the first ones (the fastest): num_inv_freq when set, else those
/// with omega_p > 2 pi / max_position_embeddings (vLLM's _compute_inv_freq).
std::int64_t kept(const Spec& spec);

/// The coefficients [K, K] row-major ([D, d]), cos_coef then sin_coef: the spec's, or I + N(0, (gain^2 / K))
/// drawn from seed (the xavier-normal std of a [K, K] matrix, gain sqrt(2 / (K + K))), cos first.
struct Coefficients {
    std::int64_t kept = 0;
    std::vector<double> cos, sin;
};
Coefficients coefficients(const Spec& spec);

/// C_d(t) and S_d(t) of every pair d = 0 .. head_dim / 2 - 1 at position t (1 for the clipped pairs d >= K),
/// each [head_dim / 2], in float64.
void series(const Spec& spec, const Coefficients& coef, std::int64_t position, std::vector<double>& c,
            std::vector<double>& s);

/// x [n, head_dim] at positions offset .. offset + n - 1 transformed into out [n, head_dim] (out may be x):
/// per pair the float32 C and S (series, rounded once), then x_a C - x_b S, x_b C + x_a S in float32.
/// Throws BadParam for d != head_dim, and ("x") for an x whose result would leave float32.
void apply(const Spec& spec, const float* x, std::int64_t n, std::int64_t d, std::int64_t offset, float* out);

/// Decay curves over m = 0 .. max_distance, the query at position m and the key at 0 (FoPE's score is not a
/// function of the distance alone: a pair's series mixes frequencies, unless its coefficients are RoPE's identity): "ones", q = k = (1, ..., 1), which is
/// 2 sum_d (C_d(m) C_d(0) + S_d(m) S_d(0)) (4 per clipped pair); "random", one q = k ~ N(0, I) from seed;
/// "rope_ones", RoPE's q = k = 1 curve over all head_dim / 2 frequencies, 2 sum_p cos(m omega_p).
Curves decay(const Spec& spec, std::int64_t max_distance, std::uint64_t seed);

}  // namespace posenc::fope
