// posenc/fire.hpp: FIRE (Li et al. 2023, "Functional Interpolation for Relative
// Positions Improves Long Context Transformers", arXiv 2310.04418, the FIRE bias
// of its method section): a learned function of a normalised distance as a logit bias,
//   b(i, j) = f_theta( psi(i - j) / psi(max(L, i)) ),   psi(x) = log(c x + 1),
// f_theta a one-hidden-layer MLP Linear(1, mlp_width) -> ReLU -> Linear(mlp_width, n_heads),
// L the threshold of "progressive interpolation" (rows below it share one normaliser).
// Conventions of the paper's appendix code (its FIRE module; the copy read is
// mcleish7/arithmetic, cramming/architectures/embeddings.py, class FIRE):
// positions are 0, 1, ... as floats; the distance is query minus key, i - j;
// psi is taken of |c (i - j)| and of |c max(i, L)|; L = |L_multiplier * init_L|;
// eps is added to the normaliser's log: x = psi(i - j) / (psi(max(i, L)) + eps).
// The module does not mask: a causal model hides keys after the query (j > i),
// which the `causal` key (true by default) does here.
//
// Unlike alibi, t5 and kerple, b(i, j) is not a function of j - i alone (the
// normaliser depends on the query's position i), so FIRE has its own bias tile.
// The MLP of one head has a scalar input, so it is a piecewise-linear function
// with at most mlp_width kinks: it is evaluated as one (Piecewise), which makes
// a bias entry a division, a segment lookup and a multiply-add, whatever mlp_width.
// Positions are 0 .. n - 1 in attention() and attentionForward (their
// position_offset moves rotary encodings only).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "posenc/config.hpp"
#include "posenc/family.hpp"
#include "posenc/kernels.hpp"

namespace posenc::fire {

/// The widest MLP: 1024 hidden units.
constexpr std::int64_t kMaxWidth = 1024;
/// The largest |weight| of an explicit MLP parameter: 1e6.
constexpr double kMaxWeight = 1e6;

/// The family's descriptor: type "fire", acts bias, no width key; keys n_heads (12),
/// head (0), mlp_width (32), init_c (0.1), init_L (512), L_multiplier (1), eps (1e-6),
/// seed (0), the optional lists linear1_weight, linear1_bias, linear2_weight,
/// linear2_bias, and causal (true); computes the bias, its decay and the head's bias.
const Family& family();

/// What the family does in train() (posenc/train_slots.hpp; train.cpp reaches it through
/// train::training_of).
const train::Training& training();

/// `{type: 'fire', n_heads, head, mlp_width, init_c, init_L, L_multiplier, eps, seed,
/// linear1_weight?, linear1_bias?, linear2_weight?, linear2_bias?, causal}`: the
/// reference module's constructor arguments (num_heads is n_heads) and, optionally,
/// its parameters by their state_dict names (mlp.0.weight is linear1_weight, ...).
struct Spec {
    std::int64_t n_heads = 12;
    std::int64_t head = 0;
    std::int64_t mlp_width = 32;
    double init_c = 0.1;        ///< c of psi; only |c| matters
    double init_L = 512.0;      ///< the threshold L before its multiplier, in tokens
    double L_multiplier = 1.0;  ///< the learned multiplier of L (1 at initialisation)
    double eps = 1e-6;          ///< added to the normaliser's log
    std::uint64_t seed = 0;
    /// Explicit parameters, empty when drawn from seed: linear1_weight [mlp_width]
    /// (Linear(1, W).weight [W, 1]), linear1_bias [mlp_width], linear2_weight
    /// [n_heads * mlp_width] (Linear(W, H).weight [H, W], row-major), linear2_bias [n_heads].
    std::vector<double> linear1_weight, linear1_bias, linear2_weight, linear2_bias;
    bool causal = true;
};

/// Reads a spec. Throws BadParam naming the key for a value out of its range
/// (describe() lists them), head outside [0, n_heads - 1], or a list whose length
/// is not its shape's ("linear2_weight = a list of 5 numbers is invalid: expected a
/// list of n_heads * mlp_width = 24 numbers").
Spec parse(const Config& config);

/// One head's MLP, f(x) = sum_k w2[k] relu(w1[k] x + b1[k]) + b2, each [mlp_width]:
/// row `head` of linear2. Parameters not given in the spec are drawn from seed as
/// PyTorch's nn.Linear initialises them (reset_parameters: kaiming_uniform_ with
/// a = sqrt(5) for the weight, which is U(-1/sqrt(fan_in), 1/sqrt(fan_in)), and the
/// same bound for the bias): U(-1, 1) for linear1 (fan_in 1), U(-1/sqrt(W), 1/sqrt(W))
/// for linear2. Value u of the flat order [linear1_weight, linear1_bias,
/// linear2_weight (row-major), linear2_bias] is bound * (2 v - 1), v the u-th uniform
/// of Random(seed), so one head's parameters do not depend on which others are given.
struct HeadMlp {
    std::vector<double> w1, b1, w2;
    double b2 = 0.0;
};
HeadMlp head_mlp(const Spec& spec);

/// f(x) computed as the network does: the hidden units, then the weighted sum, in double.
double evaluate(const HeadMlp& mlp, double x);

/// The same f as a piecewise-linear function: breakpoints t_0 <= ... <= t_(S-1)
/// (the kinks -b1[k] / w1[k] of the units with w1[k] != 0) and on segment s,
/// [t_(s-1), t_s), f(x) = slope[s] x + intercept[s], each sum taken over the units
/// active on that segment (so no error accumulates from segment to segment).
/// Agrees with evaluate() within rounding (double).
class Piecewise {
public:
    explicit Piecewise(const HeadMlp& mlp);
    /// The segment of x: the number of breakpoints <= x, in [0, S].
    std::size_t segment(double x) const;
    /// The segment of x, starting from segment s (cheap when x is near the last one).
    std::size_t step(std::size_t s, double x) const {
        while (s > 0 && x < breaks_[s - 1]) --s;
        while (s < breaks_.size() && x >= breaks_[s]) ++s;
        return s;
    }
    double on(std::size_t s, double x) const { return slope_[s] * x + intercept_[s]; }
    double operator()(double x) const { return on(segment(x), x); }
    std::size_t segments() const { return slope_.size(); }

private:
    std::vector<double> breaks_, slope_, intercept_;  // [S], [S + 1], [S + 1]
};

/// The threshold L = |L_multiplier * init_L|, in tokens.
double threshold(const Spec& spec);

/// psi(x) = log(|c x| + 1), x in tokens (computed as log1p).
double psi(const Spec& spec, double x);

/// The MLP's input for query i and key j (positions >= 0):
/// psi(i - j) / (psi(max(i, L)) + eps). In [0, 1] for j <= i; dimensionless.
double normalized_distance(const Spec& spec, std::int64_t i, std::int64_t j);

/// b(i, j) computed directly (evaluate() of normalized_distance): the reference the
/// tile is checked against. Not masked.
double at(const Spec& spec, const HeadMlp& mlp, std::int64_t i, std::int64_t j);

/// The bias tile of one head over positions 0 .. n - 1 (adds b(i, j), unmasked): O(n)
/// memory (psi per distance, the normaliser per query, one row of values shared by the
/// queries at or below L), never n x n.
std::unique_ptr<kernels::BiasTile> bias_tile(const Spec& spec, std::int64_t n);

/// b(i, j), [n, n], -infinity above the diagonal when causal. Throws for n outside [1, 4096].
xt::xtensor<float, 2> bias(const Spec& spec, std::int64_t n);

/// The decay curves, each [max_distance + 1]: bias[m] = b(P, P - m), the key m tokens back
/// from the query at position P = max_distance (the last query of a context of
/// max_distance + 1 tokens), and normalized_distance[m], the MLP's input there. For
/// max_distance <= L every query up to L has this row; past L the normaliser psi(P)
/// grows with P, so the curve is stretched over the longer context. decay(spec, i) is
/// the cross-section of the bias matrix at query i (the page's fire-sections view).
struct Decay {
    std::vector<double> bias, normalized_distance;
};
Decay decay(const Spec& spec, std::int64_t max_distance);

}  // namespace posenc::fire
