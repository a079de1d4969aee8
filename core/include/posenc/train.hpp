// posenc/train.hpp: training a small attention model on tasks that need
// position (issue 14): the tasks, the model's forward and backward passes for
// every family, Adam, and the experiment (train short, test long). The model, for a
// sequence of n tokens:
//   x_t = E[token_t] (+ P_t for an absolute encoding)
//   q, k, v = x W_q, x W_k, x W_v              [n, d]; rotary: q, k rotated by position
//   s_ij = q_i . k_j / sqrt(d) + b(i, j)        causal (j <= i); bias families add b, as the
//                                               family's head bias adds it in attention()
//                                               (deberta: q . k / sqrt(3 d), its scale_factor)
//   o_i = sum_j softmax_j(s_ij) v_j,  h_i = x_i + o_i,  z_i = h_i W_out + c
//   loss = mean over the positions with a target of cross-entropy(z_i, y_i)
// computed in Real: float for the JS API (float32, as the issue asks, deterministic: plain
// loops, no SIMD, no FMA contraction), double for the native tests, whose finite
// differences need it to check the gradients tightly. With two
// layers the second takes the first's h as its x (each layer its own W_q, W_k, W_v and,
// for T5, its own table; the encoding's rotation or bias in both, an absolute table once).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "posenc/config.hpp"
#include "posenc/random.hpp"

namespace posenc::train {

/// The tasks: each position's right answer depends on position.
///   copy: y_t = token_{t - k} (k = 1: the previous token), no target for t < k.
///     tokens 3 1 4 1 5 -> targets - 3 1 4 1
///   induction: y_t = the token after the previous occurrence of token_t (none if it did not occur).
///     tokens 2 7 4 2 9 -> targets - - - 7 -
///   first_marker: token 0 is the marker; y_t = the position of the first marker at or before t
///     (class t + 1 ... none before it appears).
///     tokens 3 0 2 0 1 -> targets - 1 1 1 1
enum class Task { copy, induction, first_marker };

/// "copy", "induction", "first_marker"; throws BadParam ("task") otherwise.
Task task_of(const std::string& name);

struct Example {
    std::vector<int> tokens;   ///< [n], in [0, vocab)
    std::vector<int> targets;  ///< [n], a class, or -1 where the position has no answer
};

/// One example of `length` tokens drawn from rng (tokens uniform in [0, vocab), first_marker's
/// marker 0 placed once uniformly in the first half). copy uses k = 1.
Example make_example(Task task, std::int64_t vocab, std::int64_t length, Random& rng);

/// One attention layer's parameters, row-major. Real: float (the JS API's and the page's
/// training) or double (the native tests' finite differences).
template <class Real>
struct Layer {
    std::vector<Real> Wq, Wk, Wv;  ///< [d, d]
    /// The layer's learned position parameters, named as the family's spec names them
    /// (its Training::position_key, posenc/train_slots.hpp); empty for the families without any:
    ///   t5: relative_attention_bias [num_buckets] (one head);  shaw: relative_key [2K + 1, d];
    ///   transformer_xl: r_r_bias (v) [d];  kerple: [r1, r2];
    ///   fire: [linear1_weight (W), linear1_bias (W), linear2_weight (W), linear2_bias (1)], W = mlp_width;
    ///   deberta: rel_embeddings [2 att_span, d] (norm_rel_ebd "none": trained as the attention reads it);
    ///   cope: pos_emb [npos_max, d].
    std::vector<Real> pos;
};

/// The model's parameters, each row-major.
template <class Real>
struct Params {
    std::vector<Real> E;             ///< [vocab, d]
    std::vector<Layer<Real>> layers; ///< one or two
    std::vector<Real> Wout;          ///< [d, classes]
    std::vector<Real> c;             ///< [classes]
    std::vector<Real> P;             ///< learned: [max_length, d]
};

/// Every parameter group with its name ("E", "layer0.Wq", ..., "layer0.pos", "Wout", "c", "P"), in one order.
template <class Real>
std::vector<std::pair<std::string, std::vector<Real>*>> groups(Params<Real>& params);

/// A model: its sizes, its encoding, and its parameters.
template <class Real>
struct Model {
    std::int64_t vocab = 16, d = 32, classes = 16, max_length = 512;
    /// The family's spec with its width key set to d, one head (n_heads 1, head 0 where the
    /// family has heads), causal true where it has the key; deberta: hidden_size d and
    /// norm_rel_ebd "none"; fire: n_heads 1.
    Config encoding;
    /// The encoding's family (registry.hpp), whose training slots the model runs.
    const Family* family = nullptr;
    Params<Real> params;
};

/// A model with parameters drawn from seed: E, W_q, W_k, W_v, W_out ~ N(0, 1/d), c = 0;
/// learned P ~ N(0, 0.02^2); the T5 table and CoPE's pos_emb 0 (as transformers and
/// x-transformers start them); shaw's relative_key, transformer_xl's v, deberta's
/// rel_embeddings and fire's MLP as the family draws them (its seed key set to seed + layer);
/// kerple's r1, r2 from the spec (1, 1). classes = vocab (first_marker: max_length).
/// Every family of the registry is trained; throws BadParam ("layers") outside 1 or 2.
template <class Real>
Model<Real> make_model(const Config& encoding, std::int64_t vocab, std::int64_t d, std::int64_t classes,
                 std::int64_t max_length, std::uint64_t seed, std::int64_t layers = 1);

/// The spec of layer `layer`'s encoding with its trained parameters in the family's explicit
/// form (model.encoding plus the keys of the family's Training::write; learned: weight [max_length, d] with
/// max_position_embeddings = max_length), so attention() computes the trained head's bias.
template <class Real>
Config trained_spec(const Model<Real>& model, std::size_t layer);

/// The loss on one example and, when grad is not null, its gradient (grad has the
/// shape of model.params and is added to). Returns {loss, right answers, targets}.
/// weights, when not null, receives each layer's attention weights [n, n] (row-major, 0 above the diagonal).
struct Evaluation {
    double loss = 0;
    std::int64_t correct = 0, targets = 0;
};
template <class Real>
Evaluation loss_and_grad(const Model<Real>& model, const Example& example, Params<Real>* grad,
                         std::vector<std::vector<Real>>* weights = nullptr);

/// Keeps the parameters a family constrains in their range after a step: kerple's
/// r1, r2 >= 1e-3 (r2 <= 2 for the power variant), as the KERPLE code clamps them.
template <class Real>
void constrain(Model<Real>& model);

/// Adam (Kingma and Ba 2015, Algorithm 1): its moments, one per parameter.
template <class Real>
struct Adam {
    double lr = 3e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
    std::int64_t step = 0;
    Params<Real> m, v;
    /// Moves params against grad (one step); the moments are sized on the first call.
    void update(Params<Real>& params, const Params<Real>& grad);
};

/// An experiment (JS train(request)): train at train_length, evaluate at each of eval_lengths.
struct Request {
    Task task = Task::copy;
    Config encoding;              ///< the trained model's encoding (its width key is d_model)
    Config eval_encoding;         ///< empty: the trained one; else evaluated with this spec of the same
                                  ///< family instead (RoPE with a scaling applied at test time, no retraining)
    std::int64_t layers = 1, d_model = 32, vocab = 16, train_length = 32, steps = 400, seed = 0, eval_examples = 16;
    /// DroPE (Gelberg et al. 2025, "Extending the Context of Pretrained LLMs by Dropping Their
    /// Positional Embeddings"): after `steps`, the encoding is dropped (the model continues as
    /// "none") and trained this many more steps at train_length, the same Adam, before the
    /// evaluation. 0: no drop.
    std::int64_t recalibration_steps = 0;
    /// Sequences per step: the gradient is the mean of theirs, the step's loss the mean of their losses
    /// (1: one sequence per step, as before mini-batches, bit for bit).
    std::int64_t batch_size = 1;
    double lr = 1e-2;
    std::vector<std::int64_t> eval_lengths = {32, 64, 128, 256};
    /// The budget's operations of one training step and of the evaluation (parse_request).
    double step_work = 0, evaluation_work = 0;
};

/// Reads {task, encoding, eval_encoding?, layers (1 or 2), d_model, vocab, train_length, steps, seed,
/// eval_lengths, eval_examples, lr, recalibration_steps, batch_size (1 to 256)}. Throws BadParam naming the key for
/// values out of range, and ("train_length", "eval_lengths") when one step or the evaluation is
/// above the work budget of one call (budget.hpp). run() refuses ("steps") an experiment whose
/// steps and evaluation are together above it (one call); a Trainer counts each chunk instead.
Request parse_request(const Config& config);

/// Accuracy and mean loss over eval_examples fresh examples of one length.
struct EvalPoint {
    std::int64_t length = 0;
    double accuracy = 0, loss = 0;
};

/// The trained model's attention on one fresh example: tokens, targets and each layer's weights.
template <class Real>
struct AttentionMap {
    std::int64_t length = 0;
    Example example;
    std::vector<std::vector<Real>> weights;  ///< per layer, [length, length] row-major
};

template <class Real>
struct Result {
    std::vector<double> loss;      ///< [steps + recalibration_steps]: the training loss of each step's example
    std::vector<EvalPoint> eval;   ///< one per eval_lengths
    /// At train_length and at 4 x train_length (or the longest length the model was sized for,
    /// if shorter), with the evaluated encoding.
    std::vector<AttentionMap<Real>> maps;
    Model<Real> model;                  ///< the trained model (as evaluated: DroPE's without its encoding)
};

/// An experiment a few steps at a time, so a caller can report progress and stop between
/// chunks (the page's worker). Deterministic for a request, however the steps are chunked:
/// training examples from Random(seed), evaluation examples from Random(seed + 1) per length.
template <class Real>
class Trainer {
public:
    /// Throws as make_model for a bad request.
    explicit Trainer(Request request);
    /// steps + recalibration_steps.
    std::int64_t total() const { return request_.steps + request_.recalibration_steps; }
    std::int64_t done() const { return done_; }
    /// Runs up to `count` more steps; returns done(). Throws BadParam ("count") when those steps
    /// are above the work budget of one call.
    std::int64_t step(std::int64_t count);
    /// Runs the steps left (in chunks within the budget: finish() itself may be long), then evaluates. Call once.
    Result<Real> finish();

private:
    Request request_;
    Model<Real> model_;
    Adam<Real> adam_;
    Random rng_;
    std::vector<double> loss_;
    std::int64_t done_ = 0;
};

/// Trainer(request).finish(): trains (one example per step, Adam) and evaluates.
template <class Real>
Result<Real> run(const Request& request);

// Defined in train.cpp for float and double.
#define POSENC_TRAIN_EXTERN(Real)                                                                                         \
    extern template std::vector<std::pair<std::string, std::vector<Real>*>> groups(Params<Real>&);                       \
    extern template Model<Real> make_model(const Config&, std::int64_t, std::int64_t, std::int64_t, std::int64_t,        \
                                           std::uint64_t, std::int64_t);                                                  \
    extern template Config trained_spec(const Model<Real>&, std::size_t);                                                 \
    extern template Evaluation loss_and_grad(const Model<Real>&, const Example&, Params<Real>*,                           \
                                             std::vector<std::vector<Real>>*);                                            \
    extern template void constrain(Model<Real>&);                                                                         \
    extern template struct Adam<Real>;                                                                                    \
    extern template class Trainer<Real>;                                                                                  \
    extern template Result<Real> run(const Request&);
POSENC_TRAIN_EXTERN(float)
POSENC_TRAIN_EXTERN(double)
#undef POSENC_TRAIN_EXTERN

}  // namespace posenc::train
