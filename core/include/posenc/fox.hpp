// posenc/fox.hpp: Forgetting Attention, the attention of the Forgetting Transformer
// (Lin, Nikishin, He, Courville, "Forgetting Transformer: Softmax Attention with a
// Forget Gate", ICLR 2025, arXiv 2503.02130, eq. 3-6), as its official code computes
// it (zhixuan-lin/forgetting-transformer: ForgettingAttentionLayer with fgate_type
// "full", and ops/forgetting_attention.py). Each head has a forget gate on its input
// x_t [hidden_size], the layer's hidden state:
//   f_t = sigmoid(w . x_t + b)              (fgate_proj: nn.Linear(hidden_size, num_heads, bias=True))
//   c_t = sum over l = 0 .. t of log f_l    (log_lambda = cumsum(logsigmoid(fgate_logit)))
//   b(i, j) = c_i - c_j = sum over l = j + 1 .. i of log f_l   (j <= i; -infinity for j > i)
// and b(i, j) is added to the logit q_i . k_j / sqrt(d). No position embedding at all:
// a key's weight decays by the gates of the tokens between it and the query, so the
// decay depends on the text (f near 1 remembers, f near 0 forgets). The "Pro" block's
// extras (output gate, output norm, QK-norm, key and value shift) are outside it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "posenc/config.hpp"
#include "posenc/family.hpp"
#include "posenc/kernels.hpp"

namespace posenc::fox {

/// The largest hidden_size.
constexpr std::int64_t kMaxWidth = 4096;

/// The family's descriptor: type "fox", acts bias, no width key (hidden_size is the
/// head's input width, d_model, filled from the head); computes the bias and decay of a
/// stand-in sentence (see bias, decay) and the head's bias from its inputs x.
const Family& family();

/// What the family does in train() (posenc/train_slots.hpp; train.cpp reaches it through
/// train::training_of): the head's gate w [hidden_size] and b, from the reference's start
/// (w ~ N(0, 0.02^2), b = 0: every gate 1/2 at first).
const train::Training& training();

/// `{type: 'fox', hidden_size, fgate_weight?, fgate_bias, seed, causal}`.
struct Spec {
    std::int64_t hidden_size = 64;
    /// This head's row of fgate_proj's weight, w [hidden_size]; empty: drawn N(0, kDrawStd^2 / hidden_size)
    /// from seed (a stand-in for a trained gate whose logit varies with the token).
    std::vector<float> fgate_weight;
    /// This head's fgate_proj bias b. The default 3 gives f = sigmoid(3) = 0.953 for a token with
    /// w . x = 0: a decay time -1 / log f of 20.6 tokens.
    double fgate_bias = 3.0;
    std::uint64_t seed = 0;
    /// The reference is causal. false (posenc's two-way reading, not the paper's): a key after the
    /// query decays by the gates between them as well, b(i, j) = -|c_i - c_j|.
    bool causal = true;
};

/// A drawn gate weight's |w|, about: w . x then has standard deviation about 1.5 over inputs
/// x ~ N(0, 1) per component, the attention lab's (its embeddings N(0, 1 / d_model) times
/// sqrt(d_model), Vaswani et al. 2017, section 3.4).
constexpr double kDrawStd = 1.5;

/// Reads a spec; throws BadParam for keys out of range and an fgate_weight whose
/// length is not hidden_size.
Spec parse(const Config& config);

/// w [hidden_size], as the spec gives it or draws it from seed.
std::vector<float> gate_weight(const Spec& spec);

/// log sigmoid(z) in float64, without overflow for any finite z.
double log_sigmoid(double z);

/// c [n]: the cumulative log forget gates of inputs x [n, hidden_size] (row-major), float64.
std::vector<double> cumulative_log_gates(const Spec& spec, const float* x, std::int64_t n);

/// The head's bias over c [n] as a tile of the fused kernel: b(i, j) = -|c_i - c_j|, each rounded
/// once to float32: c_i - c_j for j <= i (c never increases), and without the causal mask the
/// same decay over the tokens between for j > i (the mask, where causal, is the head's).
std::unique_ptr<kernels::BiasTile> bias_tile(std::vector<double> c);

/// The stand-in sentence of bias and decay, as its cumulative log gates c [n]: tokens x_t ~ N(0, I) (the
/// distribution of the attention lab's inputs), whose gate logits w . x_t + b are drawn as b + |w| N(0, 1)
/// from seed, token t's the same at every n.
std::vector<double> stand_in(const Spec& spec, std::int64_t n);

/// b(i, j) [n, n] of the stand-in sentence of n tokens: -infinity above the diagonal when causal.
/// n in [1, 4096].
xt::xtensor<float, 2> bias(const Spec& spec, std::int64_t n);

/// E[log sigmoid(z)], z ~ N(fgate_bias, |w|^2): the mean log gate of a token whose x ~ N(0, 1)
/// per component (Simpson's rule over the mean +- 10 standard deviations, 2000 intervals). A key
/// m tokens back has the mean bias m times this.
double mean_log_gate(const Spec& spec);

}  // namespace posenc::fox
