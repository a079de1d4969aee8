// posenc/sinusoidal.hpp: the fixed sinusoidal absolute encoding of
// Vaswani et al. 2017, "Attention Is All You Need", section 3.5:
//
//   PE[pos, 2i]   = sin(pos * omega_i)
//   PE[pos, 2i+1] = cos(pos * omega_i),      omega_i = base^(-2i / d_model)
//
// added to the token embeddings before the attention projections. Two
// conventions of the reference code bases are offered because readers meet
// both and they differ:
//   layout     interleaved  sin/cos pairs in adjacent columns (the paper, the
//                           PyTorch tutorial, the Annotated Transformer)
//              concat       [all sines | all cosines] (tensor2tensor's
//                           get_timing_signal_1d, fairseq)
//   timescales vaswani      omega_i = base^(-2i / d_model)
//              tensor2tensor omega_i = base^(-i / max(d_model/2 - 1, 1)): the
//                           slowest pair's wavelength is exactly 2*pi*base
//                           (tensor2tensor, fairseq SinusoidalPositionalEmbedding)
#pragma once

#include <cstdint>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "posenc/config.hpp"
#include "posenc/family.hpp"

namespace posenc::sinusoidal {

enum class Layout { interleaved, concat };
enum class Timescales { vaswani, tensor2tensor };

/// Parameters, with the paper's defaults.
struct Spec {
    std::int64_t d_model = 512;  ///< width of the embedding; even, >= 2
    double base = 10000.0;       ///< the wavelength base; finite, > 1
    Layout layout = Layout::interleaved;
    Timescales timescales = Timescales::vaswani;
};

/// The family's descriptor: type "sinusoidal", acts absolute, width key
/// d_model, keys d_model (512), base (10000), layout, timescales; computes the
/// table, the pair frequencies and the decay p_n . p_(n+m).
const Family& family();

/// What the family does in train() (posenc/train_slots.hpp; train.cpp reaches it through
/// train::training_of).
const train::Training& training();

/// Reads a spec object `{type: 'sinusoidal', d_model, base, layout, timescales}`;
/// missing keys take the defaults above. Throws std::invalid_argument for an
/// unknown key, a value of the wrong type, or one out of range (see validate).
Spec parse(const Config& config);

/// Throws std::invalid_argument unless d_model is even in [2, 2^24] and base is
/// finite and > 1; the message names the parameter, value and allowed range.
void validate(const Spec& spec);

/// Angular frequency omega_i of each pair, radians per token, shape
/// [d_model / 2], computed in double. Throws as validate.
std::vector<double> inv_freq(const Spec& spec);

/// Wavelength 2*pi / omega_i of each pair, tokens, shape [d_model / 2].
/// Vaswani timescales run from 2*pi to 2*pi * base^((d_model-2)/d_model).
std::vector<double> wavelength(const Spec& spec);

/// Column of pair i's sine (cosine = false) or cosine (cosine = true) in the
/// layout: interleaved 2i / 2i+1, concat i / d_model/2 + i.
std::int64_t column(const Spec& spec, std::int64_t pair, bool cosine);

/// The table PE for positions offset .. offset+n-1, shape [n, d_model],
/// row-major float32, by kernels::sinusoid_table (kernels::Phasors: float64
/// anchors every 16 rows times a table of 16 one-token steps, no sin or cos per
/// entry), so entries are within 3e-7 of sin / cos of the float64 angle for
/// positions up to 1,000,000 (tests/native/test_kernels.cpp).
/// Throws std::invalid_argument as validate, for n outside [1, 2^24], for
/// n * d_model > 2^24 (kMaxTableElements), or for offset outside [0, 2^40].
xt::xtensor<float, 2> table(const Spec& spec, std::int64_t n, std::int64_t offset = 0);

/// The same table written into out, [n, d_model] row-major float32, which the
/// caller provides (the wasm layer's zero-copy output). Throws as table,
/// before writing anything.
void table(const Spec& spec, std::int64_t n, std::int64_t offset, float* out);

/// Throws what table throws for these arguments, computing nothing.
void check_table(const Spec& spec, std::int64_t n, std::int64_t offset);

}  // namespace posenc::sinusoidal
