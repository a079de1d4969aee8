// posenc/nope.hpp: no positional encoding (NoPE; Kazemnejad et al. 2023). The
// table is zeros, so attention without a causal mask is permutation-equivariant:
// shuffling the tokens shuffles the outputs the same way, and word order is lost.
#pragma once

#include <cstdint>

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

/// Reads a spec; throws std::invalid_argument for an unknown key or d_model < 1.
Spec parse(const Config& config);

/// Zeros [n, d_model]. Throws std::invalid_argument for n outside [1, 2^24 / d_model].
xt::xtensor<float, 2> table(const Spec& spec, std::int64_t n);

/// Zeros written into out, [n, d_model], which the caller provides. Throws as table, before writing.
void table(const Spec& spec, std::int64_t n, float* out);

}  // namespace posenc::nope
