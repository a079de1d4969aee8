// posenc/kerple.hpp: KERPLE (Chi et al. 2022, "KERPLE: Kernelized Relative
// Positional Embedding for Length Extrapolation", eq. in section 4): a
// conditionally positive definite kernel of the distance as a logit bias,
//   log:   b(i, j) = -r1 * ln(1 + r2 * |i - j|)
//   power: b(i, j) = -r1 * |i - j|^r2,   0 < r2 <= 2
// with r1, r2 > 0 learned per head (here given).
#pragma once

#include <cstdint>

#include <xtensor/xtensor.hpp>

#include "posenc/config.hpp"
#include "posenc/family.hpp"

namespace posenc::kerple {

enum class Variant { log, power };

/// The family's descriptor: type "kerple", acts bias, no width key; keys
/// variant ("log"), r1 (1), r2 (1), causal (false); computes the bias, its
/// decay and the head's bias.
const Family& family();

/// What the family does in train() (posenc/train_slots.hpp; train.cpp reaches it through
/// train::training_of).
const train::Training& training();

/// `{type: 'kerple', variant, r1, r2, causal}`.
struct Spec {
    Variant variant = Variant::log;
    double r1 = 1.0;
    double r2 = 1.0;
    bool causal = false;
};

/// Reads a spec; throws std::invalid_argument for r1 <= 0, r2 <= 0, or r2 > 2
/// with the power variant, naming the value and range.
Spec parse(const Config& config);

/// The bias at distance |i - j| = distance >= 0.
double at_distance(const Spec& spec, double distance);

/// The bias as a function of r = j - i: at_distance(|r|), and the spec's causal key.
RelativeBias relative(const Spec& spec);

/// b(i, j) = at_distance(|i - j|), [n, n], -infinity above the diagonal when causal.
xt::xtensor<float, 2> bias(const Spec& spec, std::int64_t n);

}  // namespace posenc::kerple
