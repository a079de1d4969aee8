// posenc/rope.hpp: rotary position embedding (Su et al. 2021, "RoFormer",
// section 3.4, eq. 34) and its context-extension scalings, with the semantics of
// the Hugging Face transformers implementation (modeling_rope_utils.py) and its
// config keys.
//
// RoPE rotates each 2-D pair of a query or key vector by an angle proportional
// to the token's position: pair i at position p turns by p * inv_freq[i] radians,
// inv_freq[i] = rope_theta^(-2i / rotary_dim). Then q_m . k_n depends only on
// n - m. It acts on q and k after their projections, never on v.
//
// Layouts (which dimensions form pair i of the first rotary_dim dimensions):
//   interleaved  (2i, 2i+1)                 RoFormer, GPT-J, DeepSeek's own code
//   half         (i, i + rotary_dim / 2)    GPT-NeoX, LLaMA's rotate_half
// Dimensions from rotary_dim on pass through unchanged (partial rotary, GPT-NeoX).
//
// Where it lives: the rotation, frequencies() and the decay curves in
// core/src/rope.cpp; parse() in rope_config.cpp; the scalings (keys,
// validators, compute functions: scaling_types(), posenc/rope_scaling.hpp) in
// rope_scaling.cpp.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "posenc/config.hpp"
#include "posenc/rope_scaling.hpp"

namespace posenc::rope {

/// The family's descriptor: type "rope", acts rotary, width key head_dim; keys
/// as parse reads them; computes the frequencies (per rope_type, see
/// rope_scaling.hpp), the rotation and the decay.
const Family& family();

/// What the family does in train() (posenc/train_slots.hpp; train.cpp reaches it through
/// train::training_of).
const train::Training& training();

/// The largest position (and context length) any rotary function takes: 2^40.
constexpr std::int64_t kMaxPosition = std::int64_t(1) << 40;

enum class Layout { interleaved, half };

/// The scaling block: `rope_scaling` (transformers v4) or the scaling keys of
/// `rope_parameters` (v5). Unused fields keep their defaults.
struct Scaling {
    std::string rope_type = "default";  ///< one of rope_types()
    double factor = 1.0;                ///< context extension factor s >= 1
    bool factor_given = false;          ///< the config named factor
    /// The pre-training context length L. Read, as transformers v5 resolves it,
    /// from the top level of the config (Phi-3 puts it there), else from the
    /// scaling block, else max_position_embeddings (also the v4 rule).
    std::int64_t original_max_position_embeddings = 0;
    // yarn (Peng et al. 2023) and longrope
    std::optional<double> attention_factor;
    double beta_fast = 32.0, beta_slow = 1.0;
    std::optional<double> mscale, mscale_all_dim;  ///< DeepSeek-V2/V3 configs
    bool truncate = true;
    // llama3
    double low_freq_factor = 1.0, high_freq_factor = 4.0;
    // longrope (Ding et al. 2024; Phi-3): one rescale factor per pair
    std::vector<double> short_factor, long_factor;
    // proportional (p-RoPE, Barbero et al. 2025; Gemma-4's global layers): the pairs
    // 0 .. rotated_pairs - 1 rotate at rope_theta^(-2i / head_dim), the rest have
    // frequency 0 and carry no position; partial_rotary_factor chooses how many
    // (floor(partial_rotary_factor * head_dim / 2)), while rotary_dim stays head_dim.
    std::int64_t rotated_pairs = 0;
};

/// A rotary spec: `{type: 'rope', head_dim, rope_theta, partial_rotary_factor,
/// layout, max_position_embeddings, rope_scaling}` (or `rope_parameters`).
struct Spec {
    std::int64_t head_dim = 128;         ///< per-head width; even
    double rope_theta = 10000.0;         ///< the base; finite, > 1
    std::int64_t rotary_dim = 128;       ///< rotated dimensions (even, <= head_dim)
    Layout layout = Layout::half;
    std::int64_t max_position_embeddings = 4096;
    Scaling scaling;
};

/// The known rope_type names: default, linear, ntk, dynamic, yarn, llama3,
/// longrope, proportional (the names of scaling_types(), in its order).
const std::vector<std::string>& rope_types();

/// Reads a spec object. Accepts both config generations: `rope_theta` +
/// `rope_scaling` (v4; the legacy key `type` in the block is read as
/// `rope_type`) or `rope_parameters` holding `rope_theta`, `rope_type`,
/// optionally `partial_rotary_factor`, and the scaling keys (v5), not both
/// blocks. Where both places hold a key, transformers v5's standardize_rope_params
/// decides: rope_parameters' rope_theta wins over the top-level one, the
/// top-level partial_rotary_factor and original_max_position_embeddings win
/// over the block's. `rotary_dim` (GPT-J's key) or `partial_rotary_factor`
/// (rotary_dim = head_dim * factor, rounded down to even) choose the rotated
/// width. The keys each rope_type requires and allows, with their ranges, are
/// those of scaling_types(). Throws std::invalid_argument naming the key,
/// value and allowed range for an unknown key, a missing required key of the
/// rope_type, an odd head_dim or rotary_dim, factor < 1, a non-finite or <= 1
/// rope_theta, a short/long_factor list whose length is not rotary_dim / 2, an
/// unknown rope_type (listing the known ones), and low_freq_factor > high_freq_factor.
Spec parse(const Config& config);

/// The inverse frequencies of a spec and the attention factor its scaling
/// multiplies the rotated vectors by (so q.k scales by its square).
struct Frequencies {
    /// [rotary_dim / 2], radians per token; > 0, except proportional's pairs from
    /// rotated_pairs on, which are exactly 0 (they carry no position).
    std::vector<double> inv_freq;
    double attention_factor = 1.0;  ///< 1 for all but yarn and longrope
    /// A further multiplier of the attention's softmax scale 1/sqrt(d_head):
    /// YaRN configs with mscale_all_dim (DeepSeek-V2/V3) scale the logits by
    /// (0.1 * mscale_all_dim * ln s + 1)^2 in the model authors' attention code
    /// (and transformers' DeepseekV3Attention), on top of attention_factor. 1 otherwise.
    double logit_scale = 1.0;
    /// yarn: the pair indices where the ramp from keeping a pair's frequency to dividing it by
    /// factor starts (ramp_low, from beta_fast) and ends (ramp_high, from beta_slow), after
    /// truncation, clamping and the reference's zero-width guard; NaN for the other types.
    double ramp_low = NAN, ramp_high = NAN;
};

/// inv_freq and attention_factor for a sequence of `seq_len` tokens (only
/// `dynamic` and `longrope` depend on it), exactly as each rope_type defines
/// them (see rope_scaling.cpp for each formula and its source). Computed in double.
/// Throws std::invalid_argument when seq_len < 1.
Frequencies frequencies(const Spec& spec, std::int64_t seq_len);

/// Rotates x [n, head_dim] (row-major) as if row r were at position offset + r,
/// with the frequencies for seq_len = offset + n: each pair (a, b) becomes
/// attention_factor * (a cos t - b sin t, a sin t + b cos t), t = position *
/// inv_freq[i] formed in double; dimensions past rotary_dim are copied.
/// Norm-preserving when attention_factor = 1. Throws std::invalid_argument
/// when x is not [n, head_dim] with n >= 1, or offset is outside [0, 2^40],
/// or when |x| times sqrt(2) attention_factor exceeds 3.4e38 (check_rotation_range).
xt::xtensor<float, 2> apply(const Spec& spec, const xt::xtensor<float, 2>& x, std::int64_t offset);

/// apply on raw row-major arrays: x [n, d] rotated into out [n, d], which the
/// caller provides; out may be x itself (in place) or must not overlap it.
/// Throws as apply (d must equal head_dim) before writing anything.
void apply(const Spec& spec, const float* x, std::int64_t n, std::int64_t d, std::int64_t offset, float* out);

/// Checks the arguments of apply: x is [n, head_dim] with n >= 1 and
/// n * head_dim <= 2^24, offset in [0, 2^40]; else std::invalid_argument.
void check_rows(const xt::xtensor<float, 2>& x, std::int64_t head_dim, std::int64_t offset);

/// check_rows for an x of shape [n, d].
void check_rows(std::int64_t n, std::int64_t d, std::int64_t head_dim, std::int64_t offset);

/// The float32 range of the rotation shared with xPos: a rotated pair has the
/// norm of (a, b) times amplitude * exp(p * log_gain[i]), so its entries stay
/// finite when sqrt(2) |x| amplitude max_gain <= 3.4e38, the largest gain over
/// the rows (positions offset .. offset + n - 1) and pairs. Throws BadParam
/// (param "x", the largest |x| and the largest |x| allowed) otherwise, before
/// anything is written. `gain_name` names the multiplier in the message
/// ("attention_factor", "the xPos scale").
void check_rotation_range(const float* x, std::int64_t n, std::int64_t head_dim, std::int64_t offset, double amplitude,
                          const std::vector<double>& log_gain, const std::string& gain_name);

/// The rotation shared with xPos. Rotates the [n, head_dim] rows of x in place,
/// row r at position p = offset + r, pair i by p * inv_freq[i] radians, and
/// multiplies the pair by amplitude * exp(p * log_gain[i]) (log_gain empty means 0):
/// kernels::rotate (kernels::Phasors, float32 products; within 1e-6 of the
/// float64 rotation for positions up to 1e6, tests/native/test_kernels.cpp).
void rotate_rows(float* x, std::int64_t n, std::int64_t head_dim, Layout layout,
                 const std::vector<double>& inv_freq, std::int64_t offset, double amplitude,
                 const std::vector<double>& log_gain);

/// RoFormer's long-term decay (section 3.4.3) and the q.k curves over relative
/// distance m = 0 .. max_distance, frequencies taken at seq_len = max_distance + 1.
struct Decay {
    /// (1 / (d/2)) * sum_{j=1..d/2} |S_j|, S_j = sum_{k<j} exp(i m inv_freq[k]):
    /// the relative upper bound RoFormer plots (d = rotary_dim).
    std::vector<double> upper_bound;
    /// q.k for q = k = all ones at distance m: attention_factor^2 *
    /// sum_i 2 cos(m inv_freq[i]) + (head_dim - rotary_dim). This is also the
    /// expectation of q.k over random q = k with i.i.d. unit-variance entries.
    std::vector<double> ones;
    /// q.k for one random q = k ~ N(0, I) drawn from `seed`.
    std::vector<double> random;
};

/// The decay curves. Throws std::invalid_argument for max_distance outside
/// [0, 1000000].
Decay decay(const Spec& spec, std::int64_t max_distance, std::uint64_t seed = 0);

/// The decay curves of any rotary encoding whose pair i, at relative distance
/// m, turns by m * inv_freq[i] and is scaled by amplitude^2 * exp(m * log_gain[i])
/// in q.k (log_gain empty: 0). S_j in the bound carries the same gain. Shared
/// by rope::decay and xpos::decay.
Decay rotary_decay(const std::vector<double>& inv_freq, double amplitude, const std::vector<double>& log_gain,
                   std::int64_t head_dim, Layout layout, std::int64_t max_distance, std::uint64_t seed);

}  // namespace posenc::rope
