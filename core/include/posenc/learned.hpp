// posenc/learned.hpp: a learned absolute position table, as GPT-2 and GPT-3 use
// one (wpe: [max_position_embeddings, d_model], added to the token embeddings),
// shown at its initialisation N(0, std^2), std = 0.02 (GPT-2's init range), or
// as a trained model's table given in the spec (`weight`). Being a table, it has no row for a position >= max_position_embeddings:
// the limitation the page shows.
#pragma once

#include <cstdint>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "posenc/config.hpp"
#include "posenc/family.hpp"

namespace posenc::learned {

/// `{type: 'learned', d_model, max_position_embeddings, seed, std, weight?}` (GPT-2 small's sizes).
struct Spec {
    std::int64_t d_model = 768;
    std::int64_t max_position_embeddings = 1024;
    std::uint64_t seed = 0;
    double std = 0.02;
    /// Explicit table [max_position_embeddings, d_model] row-major (GPT-2's
    /// wpe.weight; transformers' GPT2Model.wpe is nn.Embedding(n_positions,
    /// n_embd)): row p is position p's embedding. Empty: drawn from seed and std.
    std::vector<float> weight;
};

/// The family's descriptor: type "learned", acts absolute, width key d_model;
/// computes the table only (an untrained table has no decay to show).
const Family& family();

/// What the family does in train() (posenc/train_slots.hpp; train.cpp reaches it through
/// train::training_of).
const train::Training& training();

/// Reads a spec; throws std::invalid_argument naming the key, value and range
/// (d_model >= 1, max_position_embeddings >= 1 with their product <= 2^24,
/// seed an integer in [0, 2^53], std finite and >= 0, weight numbers in
/// [-1e4, 1e4], max_position_embeddings * d_model of them).
Spec parse(const Config& config);

/// Rows offset .. offset+n-1 of the table, [n, d_model] row-major float32.
/// Entry (p, c) is weight[p * d_model + c] when the spec gives weight, else
/// std * the (p * d_model + c)-th normal of Random(seed): the same bytes
/// natively and in WASM, whatever n and offset.
/// Throws std::invalid_argument when offset + n > max_position_embeddings
/// ("no embedding exists" for those positions), or n < 1, or offset < 0.
xt::xtensor<float, 2> table(const Spec& spec, std::int64_t n, std::int64_t offset = 0);

/// The same rows written into out, [n, d_model] row-major float32, which the
/// caller provides. Throws as table, before writing anything.
void table(const Spec& spec, std::int64_t n, std::int64_t offset, float* out);

/// Throws what table throws for these arguments, computing nothing.
void check_table(const Spec& spec, std::int64_t n, std::int64_t offset);

}  // namespace posenc::learned
