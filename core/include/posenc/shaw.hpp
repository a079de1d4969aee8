// posenc/shaw.hpp: relative position representations (Shaw et al. 2018,
// "Self-Attention with Relative Position Representations", eq. 4-5): a learned
// vector a_k per clipped relative distance k = clip(j - i, -K, K), added to
// the key, so the logit gains q_i . a_(j-i): a bias that depends on the query's
// content as well as on the distance.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "posenc/config.hpp"
#include "posenc/family.hpp"
#include "posenc/kernels.hpp"

namespace posenc::shaw {

/// The family's descriptor: type "shaw", acts bias, width key head_dim; keys
/// head_dim (64), max_relative_position (16), seed (0), causal (false),
/// relative_key (none); computes
/// the bias with queries of ones, its decay and the head's bias (q_i . a_(j-i)).
const Family& family();

/// What the family does in train() (posenc/train_slots.hpp; train.cpp reaches it through
/// train::training_of).
const train::Training& training();

/// `{type: 'shaw', head_dim, max_relative_position, seed, causal, relative_key?}`
/// (K = 16 in the paper's best base model).
struct Spec {
    std::int64_t head_dim = 64;
    std::int64_t max_relative_position = 16;  ///< K
    std::uint64_t seed = 0;
    bool causal = false;
    /// Explicit relative key embeddings [2K + 1, head_dim] row-major, row k + K is
    /// a_k = the paper's w^K_k (the layout embeddings returns; tensor2tensor's
    /// relative key embeddings_table [2K + 1, depth], indexed by clip(j - i) + K).
    /// transformers' BERT distance_embedding ("relative_key") is indexed by i - j:
    /// its rows in reverse order. Empty: drawn from seed.
    std::vector<float> relative_key;
};

/// Reads a spec; throws BadParam for keys out of range and a relative_key whose
/// length is not (2 max_relative_position + 1) * head_dim.
Spec parse(const Config& config);

/// The relative embeddings a_(-K) .. a_K, [2K + 1, head_dim]: row k + K is a_k;
/// relative_key when the spec gives it, else untrained, entries N(0, 1/head_dim)
/// from Random(seed). Every output of the family (bias, bias_tile, the decay and
/// the head's bias) reads a from here.
xt::xtensor<float, 2> embeddings(const Spec& spec);

/// b(i, j) = q_i . a_(clip(j - i, -K, K)) for queries q [n, head_dim]: [n, n],
/// -infinity above the diagonal when causal. Throws std::invalid_argument when
/// q is not [n, head_dim] with n in [1, 4096].
xt::xtensor<float, 2> bias(const Spec& spec, const xt::xtensor<float, 2>& q);

/// The same bias as a tile of the fused attention kernel, for queries q [n, head_dim]
/// (row-major, not copied: q must outlive the tile's construction only; the table
/// q_i . a_k [n, 2K + 1] is computed at once, in float64).
std::unique_ptr<kernels::BiasTile> bias_tile(const Spec& spec, const float* q, std::int64_t n);

/// The same with queries q_i = (1, ..., 1): the position part alone,
/// sum_c a_(clip(j - i))[c]. n in [1, 4096].
xt::xtensor<float, 2> bias(const Spec& spec, std::int64_t n);

}  // namespace posenc::shaw
