// posenc/transformer_xl.hpp: Transformer-XL's relative attention (Dai et al.
// 2019, section 3.3):
//   A(i, j) = q_i.k_j (a) + q_i.W_R R_(i-j) (b) + u.k_j (c) + v.W_R R_(i-j) (d)
// with R the fixed sinusoid of the distance i - j ([sin | cos], inv_freq
// 10000^(-2c/d) as in the reference pos_emb), and u, v learned vectors that
// replace the query in the position-only terms. The position-dependent part is
// (b) + (d) = (q_i + v) . W_R R_(i-j). Here W_R is the identity (an untrained
// projection has no preferred direction), and u, v are seeded draws or given
// (r_w_bias, r_r_bias). Term (c) u.k_j does not depend on position and is not
// computed: u is read and returned (u()) but enters no output.
#pragma once

#include <cstdint>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "posenc/config.hpp"
#include "posenc/family.hpp"

namespace posenc::transformer_xl {

/// The family's descriptor: type "transformer_xl", acts bias, width key d_head;
/// keys d_head (64, even), seed (0), causal (true), r_w_bias and r_r_bias (none); computes the bias with
/// queries of ones, its decay and the head's bias (factored: relative_factors).
const Family& family();

/// What the family does in train() (posenc/train_slots.hpp; train.cpp reaches it through
/// train::training_of).
const train::Training& training();

/// `{type: 'transformer_xl', d_head, seed, causal, r_w_bias?, r_r_bias?}` (d_head 64 as
/// in the paper's models).
struct Spec {
    std::int64_t d_head = 64;  ///< even
    std::uint64_t seed = 0;
    bool causal = true;        ///< Transformer-XL is a causal language model
    /// Explicit u and v, [d_head] each: one head's row of transformers' TransfoXL
    /// r_w_bias and r_r_bias ([n_head, d_head] each; the reference code's names).
    /// Empty: drawn from seed.
    std::vector<float> r_w_bias;  ///< u
    std::vector<float> r_r_bias;  ///< v
};

/// Reads a spec; throws BadParam for keys out of range (d_head odd) and an
/// r_w_bias or r_r_bias whose length is not d_head.
Spec parse(const Config& config);

/// R_r for relative distance r = i - j (any sign), [d_head]: [sin(r w_c) | cos(r w_c)].
std::vector<double> relative_sinusoid(const Spec& spec, std::int64_t r);

/// The learned vectors u and v, [d_head] each: r_w_bias and r_r_bias when the
/// spec gives them, else N(0, 1/d_head) from Random(seed). bias, relative_factors,
/// the decay and the head's bias read v from here.
std::vector<double> u(const Spec& spec);
std::vector<double> v(const Spec& spec);

/// b(i, j) = (q_i + v) . R_(i-j), terms (b) + (d), for queries q [n, d_head];
/// [n, n], -infinity above the diagonal when causal.
xt::xtensor<float, 2> bias(const Spec& spec, const xt::xtensor<float, 2>& q);

/// The bias factored for the fused attention kernel: with R_r = [sin(r w) | cos(r w)]
/// and u = q_i + v split into halves (a | b), the angle-difference identities give
///   b(i, j) = sum_c a_c sin((i - j) w_c) + b_c cos((i - j) w_c) = Q'_i . K'_j,
///   Q'_i = [a s_i + b c_i | b s_i - a c_i],  K'_j = [c_j | s_j],
/// with s_i, c_i = sin, cos of i w_c (and j w_c). q_extra = Q', k_extra = K', [n, d_head]
/// each, row-major, computed in float64 and rounded once; q is [n, d_head].
/// So the whole logit is a dot product of [q | Q'] and [k | K'], and an n x n bias is never formed.
void relative_factors(const Spec& spec, const float* q, std::int64_t n, std::vector<float>& q_extra,
                      std::vector<float>& k_extra);

/// The same with queries q_i = (1, ..., 1).
xt::xtensor<float, 2> bias(const Spec& spec, std::int64_t n);

}  // namespace posenc::transformer_xl
