// posenc/registry.hpp: the entry points that take a spec object and dispatch
// on its `type` key to the family that computes it. This is what the wasm
// bindings call; each family's own header holds the maths.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "posenc/config.hpp"
#include "posenc/kernels.hpp"

namespace posenc {

/// The spec's `type`. Throws std::invalid_argument when it is missing, not a
/// string, or not one of known_types() (the message lists them).
std::string spec_type(const Config& spec);

/// Every accepted `type`, in the order the page lists them.
const std::vector<std::string>& known_types();

/// The absolute position table of `spec` for positions offset .. offset+n-1,
/// shape [n, d_model], row-major float32 (see the family's `table`).
/// Throws std::invalid_argument for a bad spec, for bad n / offset, and for a
/// spec type that is not an absolute encoding.
xt::xtensor<float, 2> position_table(const Config& spec, std::int64_t n, std::int64_t offset = 0);

/// Where a function that writes a table puts it: called once, with the
/// table's shape [rows, cols], after every check of the request has passed (so
/// nothing is allocated for a request that will be refused); returns storage
/// for rows * cols floats, row-major. It may throw (e.g. when the caller's
/// buffer has another size); nothing has been written then.
using TableStorage = std::function<float*(std::int64_t rows, std::int64_t cols)>;

/// position_table written into storage(n, d_model) (see TableStorage): the
/// wasm layer's zero-copy output. Throws as position_table, before calling storage.
void position_table(const Config& spec, std::int64_t n, std::int64_t offset, const TableStorage& storage);

/// The sin/cos pairs of a sinusoidal absolute encoding, each [d_model / 2]:
/// inv_freq[i], the angular frequency of pair i in radians per token;
/// wavelength[i] = 2*pi / inv_freq[i], in tokens (computed in double from
/// inv_freq[i]); and the table columns that hold its sine and cosine in the
/// spec's layout.
struct PairFrequencies {
    std::vector<double> inv_freq, wavelength;
    std::vector<std::int64_t> sin_column, cos_column;
};

/// The pairs of `spec`. Throws std::invalid_argument for a bad spec or a type
/// without sinusoidal pairs.
PairFrequencies position_frequencies(const Config& spec);

/// What a rotary encoding (rope, xpos) does at a sequence length.
struct RotaryFrequencies {
    std::vector<double> inv_freq;   ///< [rotary_dim / 2], radians per token
    double attention_factor = 1.0;  ///< multiplies the rotated q and k
    double logit_scale = 1.0;       ///< multiplies the softmax scale (DeepSeek's mscale_all_dim)
    std::int64_t head_dim = 0, rotary_dim = 0;
};

/// The frequencies of a rotary spec for a sequence of seq_len tokens (see
/// rope::frequencies). Throws std::invalid_argument for a bad spec or seq_len,
/// or a type that does not rotate.
RotaryFrequencies rotary_frequencies(const Config& spec, std::int64_t seq_len);

/// x [n, head_dim] rotated as the rotary spec does at positions offset ..
/// offset + n - 1 (rope::apply, xpos::apply).
xt::xtensor<float, 2> apply_rotary(const Config& spec, const xt::xtensor<float, 2>& x, std::int64_t offset);

/// apply_rotary on raw row-major arrays: x [n, d] rotated into out [n, d],
/// which the caller provides; out may be x itself (in place) or must not
/// overlap it. Throws as apply_rotary (d must be the spec's head_dim) before
/// writing anything.
void apply_rotary(const Config& spec, const float* x, std::int64_t n, std::int64_t d, std::int64_t offset, float* out);

/// Named curves over distance 0 .. max_distance, each [max_distance + 1].
using Curves = std::vector<std::pair<std::string, std::vector<double>>>;

/// The decay analysis of a spec over distance m = 0 .. max_distance (a key m
/// tokens before the query):
///   rope, xpos: "upper_bound" (RoFormer 3.4.3), "ones" (q = k = 1), "random"
///     (one seeded q = k ~ N(0, I));
///   sinusoidal: "dot" = p_n . p_(n+m) = sum_i cos(m w_i) (Vaswani's table: it
///     depends only on m);
///   none: "dot" = 0;
///   alibi, t5, kerple: "bias" = b(i, i - m), the logit bias (ALiBi's line,
///     T5's step function, KERPLE's curve);
///   shaw, transformer_xl: "bias" with queries of ones.
/// Throws std::invalid_argument for a bad spec, max_distance outside
/// [0, 1000000], or a type with no decay (learned: an untrained table has none).
Curves decay(const Config& spec, std::int64_t max_distance, std::uint64_t seed);

/// The distance axis of decay's curves: m = 0, 1, ..., max_distance tokens,
/// [max_distance + 1]. Throws std::invalid_argument for max_distance outside
/// [0, 1000000], as decay does.
std::vector<double> decay_distance(std::int64_t max_distance);

/// The position-similarity matrix of an absolute encoding over positions
/// 0 .. n-1, [n, n] row-major: p_i . p_j ("dot") or p_i . p_j / (|p_i| |p_j|)
/// ("cosine"; 0 where a row is all zeros, as NoPE's are). The sinusoidal one
/// depends only on i - j (a band along the diagonal); an untrained learned
/// table's is noise off the diagonal. Throws std::invalid_argument for a bad
/// spec, n outside [1, 4096], or an unknown metric.
xt::xtensor<float, 2> position_similarity(const Config& spec, std::int64_t n, const std::string& metric);

/// The attention-logit bias b(i, j) of a bias family, [n, n] row-major,
/// -infinity where a causal mask hides the key (alibi, t5, shaw,
/// transformer_xl, kerple; see each header). Throws std::invalid_argument for a
/// bad spec, n outside [1, 4096], or a type that is not a bias family.
xt::xtensor<float, 2> attention_bias(const Config& spec, std::int64_t n);

/// What a bias family adds to the logits of one head over n tokens, prepared once
/// for the fused attention kernel (and the page's head).
struct HeadBias {
    /// Adds b(i, j) to a tile of scores: f(j - i) for alibi, t5, kerple; q_i . a_clip(j - i) for shaw. Null for
    /// transformer_xl.
    std::unique_ptr<kernels::BiasTile> tile;
    /// transformer_xl: b(i, j) = q_extra_i . k_extra_j, [n, extra_width] each, row-major (a sum of
    /// angle differences factored into query and key parts; see transformer_xl::relative_factors). Empty otherwise.
    std::vector<float> q_extra, k_extra;
    std::int64_t extra_width = 0;
    /// The spec's own `causal` key: true hides the keys after each query as well.
    bool causal = false;
};

/// The bias of a bias family for a head whose queries are q [n, width] (row-major;
/// read by the content-dependent families, shaw and transformer_xl, whose
/// head_dim / d_head must equal width). Throws std::invalid_argument for a bad
/// spec, n outside [1, 8192], a width that disagrees, or a type that is not a bias family.
HeadBias head_bias(const Config& spec, const float* q, std::int64_t n, std::int64_t width);

}  // namespace posenc
