// posenc/cope.hpp: Contextual Position Encoding (Golovneva et al. 2024, "Contextual
// Position Encoding: Learning to Count What's Important", eq. 3-5), with
// x-transformers' conventions (its CoPE class and attend.py): a query counts
// the keys it attends to through gates,
//   g_ij = sigmoid(q_i . k_j / sqrt(d))                      (0 for a masked key)
//   p_ij = sum over t = j .. i of g_it, clamped at npos_max - 1   (a fractional position)
//   b(i, j) = (1 - w) q_i . e[floor p_ij] + w q_i . e[ceil p_ij],  w = p_ij - floor p_ij
// and b(i, j) is added, unscaled, to the logit q_i . k_j / sqrt(d). The position
// embeddings e [npos_max, d] are learned. The authors' code (facebookresearch/RAM,
// projects/cope) differs in two places: its gates multiply by the 0/1 mask after
// the sigmoid (the same zeros), and by default it adds b before dividing by sqrt(d)
// (so its b is scaled as the content is); its --cope-nodiv flag matches x-transformers.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "posenc/config.hpp"
#include "posenc/family.hpp"
#include "posenc/kernels.hpp"

namespace posenc::cope {

/// The largest head_dim and npos_max.
constexpr std::int64_t kMaxWidth = 4096;

/// The family's descriptor: type "cope", acts bias, width key head_dim; keys as Spec;
/// computes the bias and decay of a stand-in head (see bias) and the head's bias,
/// with its gates and positions as parts.
const Family& family();

/// What the family does in train() (posenc/train_slots.hpp; train.cpp reaches it through
/// train::training_of).
const train::Training& training();

/// `{type: 'cope', head_dim, npos_max, pos_emb?, seed, causal}`. npos_max 16 is
/// x-transformers' default (cope_max_pos).
struct Spec {
    std::int64_t head_dim = 64;
    std::int64_t npos_max = 16;
    /// Explicit e [npos_max, head_dim] row-major (x-transformers' pos_emb); empty:
    /// drawn N(0, 1 / head_dim) from seed (both references start from zeros, so an
    /// untrained CoPE adds nothing; the draw stands in for a trained table).
    std::vector<float> pos_emb;
    std::uint64_t seed = 0;
    /// The references are causal (x-transformers asserts it). false: every key is
    /// gated and p_ij sums to the row's end, t = j .. n - 1.
    bool causal = true;
};

/// Reads a spec; throws BadParam for keys out of range and a pos_emb whose
/// length is not npos_max * head_dim.
Spec parse(const Config& config);

/// e [npos_max, head_dim] as the spec gives or draws it.
xt::xtensor<float, 2> embeddings(const Spec& spec);

/// The three [n, n] maps of one head, row-major: gates g_ij, positions p_ij and the
/// bias b(i, j); above the diagonal (causal) 0, 0 and -infinity.
struct Maps {
    xt::xtensor<float, 2> gates, positions, bias;
};

/// The maps of queries q and keys k, [n, head_dim] each, with the gate logits
/// q . k * scale (float64 sums, each map rounded once to float32).
Maps maps(const Spec& spec, const float* q, const float* k, std::int64_t n, double scale);

/// JS cope({q, k, n, d_head, npos_max, pos_emb}): the maps with scale 1 / sqrt(d_head)
/// and causal. q, k [n, d_head], pos_emb [npos_max, d_head], row-major. Throws
/// BadParam for n outside [1, 4096], d_head or npos_max outside [1, 4096], arrays of
/// another length, and work above the budget.
Maps run(const Config& request, Floats q, Floats k, Floats pos_emb);

/// What a tile of the head adds: the bias, or (for the page's terms) the gates or positions.
enum class Part { bias, gates, positions };

/// The head's part as a tile of the fused kernel: rows are computed when a tile
/// first needs them, a block of rows at a time (O(rows x n) memory, never n x n).
std::unique_ptr<kernels::BiasTile> bias_tile(const Spec& spec, const float* q, const float* k, std::int64_t n,
                                             double scale, Part part);

/// The bias of a stand-in head whose queries and keys are all one vector u ~ N(0, 1)
/// [head_dim] drawn from seed: every gate is g = sigmoid(u . u / sqrt(d)), so p_ij =
/// g (i - j + 1) counts the keys back, and b depends on i - j alone (causal; without
/// the mask on j alone). [n, n], -infinity above the diagonal when causal. n in [1, 4096].
xt::xtensor<float, 2> bias(const Spec& spec, std::int64_t n);

}  // namespace posenc::cope
