// posenc/pope.hpp: Polar Coordinate Positional Embeddings (PoPE; Gopalakrishnan, Csordás,
// Schmidhuber, Mozer 2025, "Decoupling the 'What' and 'Where' With Polar Coordinate Positional
// Embeddings", arXiv 2509.10534, section 3), as the PoPE-pytorch package computes it
// (apply_pope_to_qk with softplus magnitudes; class PoPE: its frequencies and its clamped key bias).
// Each of the d components of a query or key becomes a complex number whose magnitude is the
// content alone and whose phase is the position alone:
//   mu_c = softplus(x_c),  theta_c = theta^(-c / d)  (d frequencies, one per component: RoPE has d / 2)
//   query at t: mu_c e^(i t theta_c);  key at s: mu_c e^(i (s theta_c + delta_c)),  delta_c in [-2 pi, 0]
//   score = Re[sum over c of conj(q_c) k_c] / sqrt(d) = sum over c of mu_q,c mu_k,c cos((s - t) theta_c + delta_c) / sqrt(d)
// computed as a dot of [n, 2d] vectors (mu cos, mu sin) per component, interleaved. RoPE's score
// mixes the content's own angle with the position's; here the content sets only the weights
// mu_q mu_k >= 0, so with delta = 0 every query's score over distance peaks at distance 0.
#pragma once

#include <cstdint>
#include <vector>

#include "posenc/config.hpp"
#include "posenc/family.hpp"

namespace posenc::pope {

/// The largest head_dim.
constexpr std::int64_t kMaxWidth = 4096;

/// The family's descriptor: type "pope", acts polar, width key head_dim; keys as Spec; computes
/// the polar transform of q and k, its decay curves and the attention head.
const Family& family();

/// What the family does in train() (posenc/train_slots.hpp): the key phase bias delta [head_dim]
/// per head, from 0 as the reference starts it, kept in [-2 pi, 0].
const train::Training& training();

/// `{type: 'pope', head_dim, theta, phase_bias?}`.
struct Spec {
    std::int64_t head_dim = 64;
    double theta = 10000.0;  ///< the base of the frequencies (the reference's theta)
    /// delta [head_dim], radians in [-2 pi, 0] (the reference's bias, clamped there); empty: zeros.
    std::vector<float> phase_bias;
};

/// Reads a spec; throws BadParam for keys out of range and a phase_bias whose length is not head_dim.
Spec parse(const Config& config);

/// theta_c = theta^(-c / head_dim) for c = 0 .. head_dim - 1, radians per token.
std::vector<double> frequencies(const Spec& spec);

/// softplus(x) = log(1 + e^x) in float64, without overflow for any finite x.
double softplus(double x);

/// x [n, head_dim] of the tokens at positions offset .. offset + n - 1 into out [n, 2 head_dim]:
/// (mu_c cos phi_c, mu_c sin phi_c) at columns (2c, 2c + 1), mu_c = softplus(x_c), phi_c = position
/// theta_c (+ delta_c for keys), each computed in float64 and rounded once. d must be head_dim.
void apply(const Spec& spec, const float* x, std::int64_t n, std::int64_t offset, bool key, float* out);

/// The score of a query and a key m = 0 .. max_distance tokens before it, without the 1/sqrt(d):
/// "ones": q = k = (1, ..., 1), sum over c of softplus(1)^2 cos(delta_c - m theta_c); "random": one pair
/// q, k ~ N(0, I) [head_dim] drawn from seed (q first), sum over c of softplus(q_c) softplus(k_c) cos(delta_c - m theta_c);
/// "rope_random": the same q and k through RoPE (interleaved pairs, theta_p = theta^(-2p / d)), q . R(-m theta) k,
/// whose content angles move its peak away from distance 0 where PoPE's stays (the paper's section 2).
Curves decay(const Spec& spec, std::int64_t max_distance, std::uint64_t seed);

}  // namespace posenc::pope
