// posenc/bias.hpp: what the attention-bias families share. A bias family adds
// b(i, j) to the logit of query i and key j; relative positions are key minus
// query, j - i (T5's convention); a causal mask hides the keys after the query
// (b = -infinity for j > i).
#pragma once

#include <cstdint>
#include <functional>

#include <xtensor/xtensor.hpp>

namespace posenc::bias {

/// The [n, n] matrix b(i, j) = f(j - i), with -infinity above the diagonal when
/// causal. Throws std::invalid_argument for n outside [1, 4096].
xt::xtensor<float, 2> relative_matrix(std::int64_t n, bool causal, const std::function<double(std::int64_t)>& f);

/// Sets b(i, j) = -infinity for j > i. b is [n, n].
void mask_causal(xt::xtensor<float, 2>& b);

/// The largest n of a bias matrix: 4096 (16.7 M entries).
constexpr std::int64_t kMaxN = 4096;

/// Throws std::invalid_argument unless n is in [1, kMaxN].
void check_n(std::int64_t n);

/// Checks queries q [n, width] for a content-dependent bias (Shaw,
/// Transformer-XL): n in [1, kMaxN] and the width named `width_name`.
void check_queries(const xt::xtensor<float, 2>& q, std::int64_t width, const char* width_name);

/// Queries of all ones, [n, width]: the position part of a content-dependent bias.
xt::xtensor<float, 2> ones_queries(std::int64_t n, std::int64_t width);

}  // namespace posenc::bias
