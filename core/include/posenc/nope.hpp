// posenc/nope.hpp: no positional encoding (NoPE; Kazemnejad et al. 2023). The
// table is zeros, so attention without a causal mask is permutation-equivariant:
// shuffling the tokens shuffles the outputs the same way, and word order is lost.
#pragma once

#include <cstdint>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "posenc/config.hpp"
#include "posenc/family.hpp"

namespace posenc::nope {

/// `{type: 'none', d_model}`.
struct Spec {
    std::int64_t d_model = 64;
};

/// The family's descriptor: type "none", acts none, width key d_model;
/// computes a table of zeros and a decay of zeros.
const Family& family();

/// What the family does in train() (posenc/train_slots.hpp; train.cpp reaches it through
/// train::training_of).
const train::Training& training();

/// Reads a spec; throws std::invalid_argument for an unknown key or d_model < 1.
Spec parse(const Config& config);

/// Zeros [n, d_model]. Throws std::invalid_argument for n outside [1, 2^24 / d_model].
xt::xtensor<float, 2> table(const Spec& spec, std::int64_t n);

/// Zeros written into out, [n, d_model], which the caller provides. Throws as table, before writing.
void table(const Spec& spec, std::int64_t n, float* out);

// ---------------------------------------------------------------------------
// Llama 4's attention temperature on its NoPE layers.
//
// Source: huggingface/transformers, src/transformers/models/llama4/modeling_llama4.py,
// Llama4TextAttention.forward (read at commit 000c33fdfde12e1ffafbfcdb3c926df5727a00b6):
// when config.attn_temperature_tuning is set and the layer does not use RoPE
// (config.no_rope_layers[layer_idx] == 0), the query of the token at position p
// (cache_position, 0-based) is multiplied, before q.k, by
//
//     scale(p) = log1p(floor((p + 1) / floor_scale)) * attn_scale + 1
//
// (Llama4TextConfig defaults: floor_scale 8192, attn_scale 0.1). So scale is 1
// for p + 1 < floor_scale, then steps up at p = ceil(k * floor_scale) - 1 (k = 1,
// 2, ...; k * floor_scale - 1 for an integer floor_scale) and grows like attn_scale * ln(p / floor_scale): far tokens' queries are sharpened
// logarithmically with position, which keeps the softmax from flattening over long
// contexts (the code cites huggingface.co/papers/2501.19399 for it). Keys and
// values are not scaled. transformers forms (p + 1) / floor_scale in float32
// (cache_position.float()); here it is double: the same for p + 1 < 2^24 (16.7M
// tokens), and beyond that float32 first rounds the position (to a multiple of
// 2, 4, ...), which moves a step start by at most that rounding.

/// The largest number of points attention_temperature returns.
constexpr std::int64_t kMaxTemperaturePoints = 4096;
/// floor_scale's range, tokens: [1, 2^40]. Below 1 token every position would be a step
/// of its own (Llama4TextConfig declares it an int, 8192 in the released configs).
constexpr double kMaxFloorScale = 1099511627776.0;
/// attn_scale's range, [-1e6, 1e6]: keeps scale within float32 (|scale| <= 1 + 1e6 ln(2^40 + 2)).
constexpr double kMaxAttnScale = 1e6;

/// scale(position) of one position (the formula above), in double. Throws BadParam as
/// attention_temperature does for floor_scale and attn_scale, and ("position") for a
/// position outside [0, 2^40].
double attention_temperature_at(double floor_scale, double attn_scale, std::int64_t position);

/// The step curve of scale(p) over positions 0 .. max_position (inclusive; tokens).
struct TemperatureCurve {
    /// Increasing positions (tokens, integers held in double): 0, the step starts
    /// (the positions p >= 1 where floor((p + 1) / floor_scale) changes), and max_position.
    /// [m] with 2 <= m <= kMaxTemperaturePoints.
    std::vector<double> positions;
    /// [m], scale(positions[i]) exactly (computed in double). Unless sampled, scale is
    /// constant from positions[i] to positions[i + 1] - 1, so a step line (step-after)
    /// through the points draws the curve exactly.
    std::vector<double> scale;
    /// true when there were more step starts than fit (more than kMaxTemperaturePoints - 2):
    /// then positions holds 0, max_position and the starts of the steps that contain
    /// kMaxTemperaturePoints - 2 positions spaced geometrically over [1, max_position]
    /// (dense near 0, sparse far out, as a log axis shows them), and the steps skipped between
    /// two points are not drawn (each of them lies between its neighbours' values).
    bool sampled = false;
};

/// Llama 4's query scale over positions 0 .. max_position as its step points (see
/// TemperatureCurve). For the defaults (8192, 0.1) and a 10M-token context (max_position
/// 9,999,999) that is 0, the 1220 step starts 8191, 16383, ... and the end; up to
/// max_position = 2^40 it stays at most kMaxTemperaturePoints points. Throws BadParam
/// ("floor_scale") unless floor_scale is in [1, 2^40] (tokens; NaN refused), ("attn_scale")
/// unless attn_scale is in [-1e6, 1e6], ("max_position") unless max_position is an integer
/// in [1, 2^40].
TemperatureCurve attention_temperature(double floor_scale, double attn_scale, std::int64_t max_position);

}  // namespace posenc::nope
