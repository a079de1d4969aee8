// posenc/t5.hpp: T5's relative position buckets (Raffel et al. 2020, section
// 2.1; the reference _relative_position_bucket of mesh-tensorflow and
// transformers' T5Attention). Each head learns one scalar per bucket; the
// bucket of a relative position j - i is exact for small distances and
// logarithmic up to max_distance, beyond which all share the last bucket.
#pragma once

#include <cstdint>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "posenc/config.hpp"
#include "posenc/family.hpp"

namespace posenc::t5 {

/// The most buckets: 65536.
constexpr std::int64_t kMaxBuckets = 65536;

/// The bucket of relative_position = key - query. bidirectional: half the
/// buckets for keys after the query (j > i), half for the rest; within a half
/// of B buckets, distances below B/2 get their own bucket and larger ones
/// B/2 + floor(ln(d / (B/2)) / ln(max_distance / (B/2)) * (B - B/2)), capped
/// at B - 1, computed in float32 as the reference does. Unidirectional: keys
/// after the query all fall in bucket 0. Throws std::invalid_argument for
/// num_buckets < 2 (odd when bidirectional) or max_distance < num_buckets / 2
/// (or not above the exact region), naming the value and the range.
std::int32_t relative_position_bucket(std::int64_t relative_position, bool bidirectional, std::int64_t num_buckets,
                                      std::int64_t max_distance);

/// The names check_buckets gives num_buckets and max_distance in its errors:
/// the spec's keys, or t5Bucket's arguments.
struct BucketNames {
    const char* num_buckets = "num_buckets";
    const char* max_distance = "max_distance";
};

/// Throws the errors relative_position_bucket describes, naming the two as `names` says.
void check_buckets(bool bidirectional, std::int64_t num_buckets, std::int64_t max_distance,
                   const BucketNames& names = {});

/// JS t5Bucket(relativePositions, bidirectional, numBuckets, maxDistance): the
/// bucket of each relative position (key - query) of relative_positions
/// [count], as relative_position_bucket gives it, [count]. Throws BadParam
/// naming the JS arguments: numBuckets and maxDistance as check_buckets does,
/// once, before any work (so an empty list with bad numBuckets still throws);
/// relativePositions[k] that is not an integer in [-2^40, 2^40].
std::vector<std::int32_t> buckets(const double* relative_positions, std::size_t count, bool bidirectional,
                                  std::int64_t num_buckets, std::int64_t max_distance);

/// The family's descriptor: type "t5", acts bias, no width key; keys n_heads
/// (8), head (0), num_buckets (32), max_distance (128), bidirectional (true),
/// seed (0), causal (false), relative_attention_bias (none); computes the bias, its decay (a step function) and
/// the head's bias.
const Family& family();

/// What the family does in train() (posenc/train_slots.hpp; train.cpp reaches it through
/// train::training_of).
const train::Training& training();

/// `{type: 't5', n_heads, head, num_buckets, max_distance, bidirectional, seed, causal,
/// relative_attention_bias?}` (T5's defaults: 32 buckets, max_distance 128, bidirectional
/// in the encoder).
struct Spec {
    std::int64_t n_heads = 8;
    std::int64_t head = 0;
    std::int64_t num_buckets = 32;
    std::int64_t max_distance = 128;
    bool bidirectional = true;
    std::uint64_t seed = 0;
    bool causal = false;
    /// Explicit table [num_buckets, n_heads] row-major (transformers' T5Attention
    /// relative_attention_bias.weight, nn.Embedding(num_buckets, n_heads)): entry
    /// (b, h) is head h's bias for bucket b. Empty: drawn from seed.
    std::vector<float> relative_attention_bias;
};

/// Reads a spec; throws BadParam for keys out of range (check_buckets' errors
/// for num_buckets and max_distance, head outside [0, n_heads - 1]) and a
/// relative_attention_bias whose length is not num_buckets * n_heads.
Spec parse(const Config& config);

/// The head's bias per bucket [num_buckets]: column `head` of relative_attention_bias
/// when the spec gives it; else an untrained table, entry (head, b) the
/// (head * num_buckets + b)-th N(0, 1) draw of Random(seed).
std::vector<double> bucket_bias(const Spec& spec);

/// The head's bias as a function of r = j - i: bucket_bias[bucket(r)], and the spec's causal key.
RelativeBias relative(const Spec& spec);

/// b(i, j) = bucket_bias[bucket(j - i)], [n, n], -infinity above the diagonal when causal.
xt::xtensor<float, 2> bias(const Spec& spec, std::int64_t n);

}  // namespace posenc::t5
