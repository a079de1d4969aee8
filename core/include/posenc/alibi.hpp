// posenc/alibi.hpp: ALiBi (Press et al. 2022, "Train Short, Test Long",
// section 3): no position vectors; head h adds -m_h * |i - j| to the logit of
// query i and key j, a linear penalty on distance with a fixed slope per head.
#pragma once

#include <cstdint>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "posenc/config.hpp"
#include "posenc/family.hpp"

namespace posenc::alibi {

/// The most heads: 4096.
constexpr std::int64_t kMaxHeads = 4096;

/// The head slopes m_0 .. m_(n_heads-1). For a power of two n: the geometric
/// sequence with first term and ratio 2^(-8/n) (n = 8: 1/2, 1/4, ..., 1/256).
/// Otherwise, as the reference code (ofirpress/attention_with_linear_biases)
/// does: the slopes of the closest power of two below, p, then every other
/// slope of 2p (the 1st, 3rd, ...) until there are n. Throws BadParam for
/// n_heads outside [1, kMaxHeads] (named "nHeads", as JS alibiSlopes names it).
std::vector<double> slopes(std::int64_t n_heads);

/// The family's descriptor: type "alibi", acts bias, no width key; keys
/// n_heads (8), head (0, in [0, n_heads - 1]), causal (false); computes the bias,
/// its decay (the line -m m) and the head's bias.
const Family& family();

/// What the family does in train() (posenc/train_slots.hpp; train.cpp reaches it through
/// train::training_of).
const train::Training& training();

/// `{type: 'alibi', n_heads, head, causal}`.
struct Spec {
    std::int64_t n_heads = 8;
    std::int64_t head = 0;
    bool causal = false;
};

/// Reads a spec; throws std::invalid_argument for n_heads < 1 or head outside
/// [0, n_heads - 1], naming the value and range.
Spec parse(const Config& config);

/// The head's bias as a function of r = j - i: -m_head * |r|, and the spec's causal key.
RelativeBias relative(const Spec& spec);

/// b(i, j) = -m_head * |i - j|, [n, n]; causal: -m_head * (i - j) for j <= i and
/// -infinity for j > i (the two agree where both are defined).
xt::xtensor<float, 2> bias(const Spec& spec, std::int64_t n);

/// The same for JS alibiBias(n, nHeads, head, causal), [n, n]: throws BadParam
/// naming nHeads (in [1, kMaxHeads]), head (in [0, nHeads - 1]) or n (in [1, 4096]).
xt::xtensor<float, 2> bias(std::int64_t n, std::int64_t n_heads, std::int64_t head, bool causal);

}  // namespace posenc::alibi
