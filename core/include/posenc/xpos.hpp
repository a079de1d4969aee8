// posenc/xpos.hpp: xPos (Sun et al. 2022, "A Length-Extrapolatable
// Transformer", section 3.2), rotary embedding with an exponential decay.
//
// On top of the RoPE rotation (interleaved pairs, inv_freq[i] =
// rope_theta^(-2i/head_dim)), pair i of a query at position n is multiplied by
// zeta_i^(n / scale_base) and of a key at position m by zeta_i^(-m / scale_base),
// zeta_i = (2i / head_dim + 0.4) / 1.4, so q_n . k_m carries
// zeta_i^((n - m) / scale_base) and decays with distance, fastest for the
// fastest-turning pairs. The reference (torchscale's XPOS) measures the scale's
// positions from the middle of the sequence so the factors stay near 1; the
// shift cancels in q.k. Here positions count from 0 as the paper writes them,
// so at large positions the query's factors overflow and the key's underflow
// in float32: the page shows exactly that.
#pragma once

#include <cstdint>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "posenc/config.hpp"
#include "posenc/family.hpp"
#include "posenc/rope.hpp"

namespace posenc::xpos {

enum class Role { query, key };

/// The family's descriptor: type "xpos", acts rotary, width key head_dim; keys
/// head_dim (64, even), rope_theta (10000), scale_base (512), role ("query"),
/// layout ("interleaved"); computes the frequencies, the rotation and the decay.
const Family& family();

/// What the family does in train() (posenc/train_slots.hpp; train.cpp reaches it through
/// train::training_of).
const train::Training& training();

/// `{type: 'xpos', head_dim, rope_theta, scale_base, role, layout}`.
struct Spec {
    std::int64_t head_dim = 64;  ///< even
    double rope_theta = 10000.0;
    double scale_base = 512.0;   ///< gamma of the paper; > 0
    Role role = Role::query;     ///< query: zeta^(+n/scale_base); key: zeta^(-m/scale_base)
    rope::Layout layout = rope::Layout::interleaved;  ///< torchscale rotates every two
};

/// Reads a spec; unknown keys and bad values throw std::invalid_argument
/// naming the key, the value and the allowed range.
Spec parse(const Config& config);

/// inv_freq [head_dim / 2], radians per token.
std::vector<double> inv_freq(const Spec& spec);

/// zeta_i = (2i / head_dim + 0.4) / 1.4, shape [head_dim / 2].
std::vector<double> zeta(const Spec& spec);

/// x [n, head_dim] rotated and scaled as the spec's role at positions
/// offset .. offset + n - 1. Throws as rope::apply.
xt::xtensor<float, 2> apply(const Spec& spec, const xt::xtensor<float, 2>& x, std::int64_t offset);

/// The last position apply accepts: zeta_0^(+-p / scale_base) must stay finite
/// in float32 (about 32700 at scale_base 512). apply throws BadParam
/// ("positionOffset") past it.
std::int64_t max_position(const Spec& spec);

/// apply on raw row-major arrays, x [n, d] into out [n, d] (see rope::apply).
void apply(const Spec& spec, const float* x, std::int64_t n, std::int64_t d, std::int64_t offset, float* out);

/// Decay curves as rope::decay, with each pair's q.k scaled by
/// zeta_i^(m / scale_base) at distance m (query after key).
rope::Decay decay(const Spec& spec, std::int64_t max_distance, std::uint64_t seed = 0);

}  // namespace posenc::xpos
