// posenc/train.hpp: training a small decoder-only transformer on tasks that need
// position (issue 14) and on text (issue 25): the tasks and the corpus, the
// model's forward and backward passes for every family, Adam with warm-up,
// decay and clipping, and the experiment (train short, test long). The model,
// for a sequence of n tokens (Vaswani et al. 2017 with pre-normalisation, as
// GPT-2 and LLaMA place it):
//   x_t = E[token_t] (+ P_t for an absolute encoding)
//   per layer:  u = N1(h)  (RMSNorm when norm is "rms_norm", else u = h)
//     per head: q, k, v = u W_q, u W_k, u W_v    [n, head_dim]; rotary: q, k rotated by position
//               s_ij = q_i . k_j / sqrt(head_dim) + b(i, j)   causal (j <= i); bias families add b,
//                      as the family's head bias adds it in attention() (deberta: / sqrt(3 head_dim))
//               o_i = sum_j softmax_j(s_ij) v_j
//     h = h + [o_1 ... o_H] W_o               (W_o only with several heads)
//     h = h + relu(N2(h) W_1 + b_1) W_2 + b_2  (the MLP, when intermediate_size > 0; Vaswani eq. 2)
//   z_t = N(h_t) W_out + c;  loss = mean over the positions with a target of cross-entropy(z_t, y_t)
// RMSNorm (Zhang and Sennrich 2019): N(x) = x / sqrt(mean(x^2) + 1e-5) * g, a gain g [d] per norm.
// One head, no MLP and no norm is the attention-only model of issue 14, bit for bit.
// A training step runs its batch of sequences (all of one length) at once (batch_loss_and_grad): the rows of every
// sequence stacked [batch x n, d] for the projections, the MLP and the read-out, the attention per sequence and head,
// what depends on positions and parameters alone (the pass's rotations and tables, a positional family's bias b and
// its backward pass) once per step.
// Computed in Real: float for the JS API (float32, deterministic: the same operations in the
// same order natively and in wasm, no FMA contraction), double for the native tests, whose
// finite differences need it to check the gradients tightly.
#pragma once

#include <cstdint>
#include <memory>
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
///   text: a language model's task on a corpus: y_t = token_(t+1), every position a target.
enum class Task { copy, induction, first_marker, text };

/// "copy", "induction", "first_marker", "text"; throws BadParam ("task") otherwise.
Task task_of(const std::string& name);

struct Example {
    std::vector<int> tokens;   ///< [n], in [0, vocab)
    std::vector<int> targets;  ///< [n], a class, or -1 where the position has no answer
};

/// The random streams of an experiment's seed: each a generator of its own, Random(stream_seed(seed, stream, ...)),
/// so that no stream reuses another's draws (before, the windows were drawn from Random(seed), the generator that
/// had drawn E: window k read the uniforms of E's first normals).
///   init:       make_model's parameters (E, W_q, W_k, W_v, W_o, the MLP, W_out, learned's P), in that order;
///   head:       (a, b) = (layer, head): the parameters a family draws itself from its spec's seed (shaw's
///               relative_key, transformer_xl's v, deberta's rel_embeddings, fire's MLP): head_seed;
///   data:       the training examples (text: the windows' offsets), one step's batch after the other;
///   examples:   (a) = length: the synthetic tasks' evaluated examples at that length;
///   maps:       (a) = length: the synthetic tasks' example of the attention map at that length;
///   validation: the synthetic tasks' validation examples (the same every validation);
///   sampling:   the sampled characters (task "text").
enum class Stream : std::uint64_t { init = 1, head = 2, data = 3, examples = 4, maps = 5, validation = 6, sampling = 7 };

/// The seed of `stream` of an experiment's seed: derive_seed(seed, {stream, a, b}) (posenc/random.hpp), a and b as
/// Stream lists them (0 where it lists none).
std::uint64_t stream_seed(std::uint64_t seed, Stream stream, std::uint64_t a = 0, std::uint64_t b = 0);

/// The seed key of head `head` of layer `layer` of a model seeded `seed`, for a family that draws its own parameters
/// from its spec's seed: stream_seed(seed, Stream::head, layer, head) >> 11, in [0, 2^53) as a spec's seed is. Two
/// heads, or two model seeds, draw unrelated parameters (before, seed + layer x n_heads + head: seed 1's heads were
/// seed 0's shifted by one).
std::uint64_t head_seed(std::uint64_t seed, std::int64_t layer, std::int64_t head);

/// One example of `length` tokens drawn from rng (tokens uniform in [0, vocab), first_marker's
/// marker 0 placed once uniformly in the first half). copy uses k = 1. Not for Task::text (Corpus::example).
Example make_example(Task task, std::int64_t vocab, std::int64_t length, Random& rng);

/// A text as character tokens (one token per Unicode code point), split by position: the first
/// part trains, the rest validates.
struct Corpus {
    std::vector<std::int32_t> tokens;      ///< [characters], each an index into `characters`
    std::vector<std::uint32_t> characters; ///< [vocab]: the code points of the text, ascending
    std::size_t train_end = 0;             ///< tokens [0, train_end) train, [train_end, size) validate
    std::int64_t vocab() const { return std::int64_t(characters.size()); }
    /// A window of length + 1 tokens at a uniform offset in the training part: tokens = its first
    /// length, targets = its last length (the next character). Throws BadParam ("train_length") for
    /// a window longer than the training part.
    Example example(std::int64_t length, Random& rng) const;
    /// The k-th of `count` windows of length + 1 spread evenly over the validation part (fixed:
    /// the same windows every time; they may overlap): the cheap subset of the validation loss during training
    /// (Request::validation_every) and the samples' prompts. Throws BadParam ("eval_lengths") for a window longer
    /// than the validation part.
    Example validation(std::int64_t length, std::int64_t k, std::int64_t count) const;
    /// The non-overlapping windows of the validation part at `length`: floor((V - 1) / length) for its V characters
    /// (the first has no character before it in the part, so V - 1 have a target). Window j
    /// (validation_window) reads tokens [train_end + j length, train_end + (j + 1) length) and predicts the next
    /// character of each, so the windows together predict characters 1 .. windows x length of the part, each once.
    std::int64_t validation_windows(std::int64_t length) const;
    /// Window j of validation_windows(length): tokens [train_end + j length, + length), targets one character on.
    Example validation_window(std::int64_t length, std::int64_t j) const;
};

/// The corpus of a UTF-8 text: the last validation_fraction of its characters (moved forward to
/// the next line start, so no line is split) validate. Throws BadParam ("text") for invalid UTF-8, a
/// text of fewer than 1000 characters or more than 1024 distinct ones.
std::shared_ptr<const Corpus> corpus_of(const std::string& text, double validation_fraction);

/// One attention head's parameters, row-major. Real: float (the JS API's and the page's
/// training) or double (the native tests' finite differences).
template <class Real>
struct Head {
    std::vector<Real> Wq, Wk, Wv;  ///< [d, head_dim]
    /// The head's learned position parameters, named as the family's spec names them
    /// (its Training::position_key, posenc/train_slots.hpp); empty for the families without any
    /// (hd = head_dim):
    ///   t5: relative_attention_bias [num_buckets] (this head's);  shaw: relative_key [2K + 1, hd];
    ///   transformer_xl: r_r_bias (v) [hd];  kerple: [r1, r2];
    ///   fire: [linear1_weight (W), linear1_bias (W), linear2_weight (W), linear2_bias (1)], W = mlp_width;
    ///   deberta: rel_embeddings [2 att_span, d] (norm_rel_ebd "none": trained as the attention reads it);
    ///   cope: pos_emb [npos_max, hd].
    std::vector<Real> pos;
};

/// One layer's parameters; the empty ones are absent from the model (see the model at the top).
template <class Real>
struct Layer {
    std::vector<Head<Real>> heads;   ///< n_heads
    std::vector<Real> Wo;            ///< [d, d] with several heads
    std::vector<Real> norm1, norm2;  ///< [d] the RMSNorm gains before the attention and the MLP
    std::vector<Real> W1, b1;        ///< [d, intermediate_size], [intermediate_size]
    std::vector<Real> W2, b2;        ///< [intermediate_size, d], [d]
};

/// The model's parameters, each row-major.
template <class Real>
struct Params {
    std::vector<Real> E;             ///< [vocab, d]
    std::vector<Layer<Real>> layers; ///< 1 to 6
    std::vector<Real> norm;          ///< [d] the final RMSNorm's gain
    std::vector<Real> Wout;          ///< [d, classes]
    std::vector<Real> c;             ///< [classes]
    std::vector<Real> P;             ///< learned: [max_length, d]
};

/// Every parameter group with its name ("E", "layer0.head0.Wq", ..., "layer0.head0.pos", "layer0.Wo",
/// "layer0.norm1", ..., "norm", "Wout", "c", "P"), in one order (empty groups included).
template <class Real>
std::vector<std::pair<std::string, std::vector<Real>*>> groups(Params<Real>& params);

/// The model's shape beyond its widths: the attention-only model of issue 14 by default.
struct Architecture {
    std::int64_t layers = 1;             ///< 1 to 6
    std::int64_t n_heads = 1;            ///< dividing d; head_dim = d / n_heads
    std::int64_t intermediate_size = 0;  ///< the MLP's width; 0: no MLP
    bool norm = false;                   ///< RMSNorm before the attention, the MLP and the read-out
};

/// A model: its sizes, its encoding, and its parameters.
template <class Real>
struct Model {
    std::int64_t vocab = 16, d = 32, classes = 16, max_length = 512;
    Architecture arch;
    std::int64_t head_dim() const { return d / arch.n_heads; }
    /// The family's spec with its width key set to head_dim (an absolute family's: d), causal true
    /// where it has the key; deberta: hidden_size d and norm_rel_ebd "none"; t5, fire: n_heads 1
    /// (each head has its own parameters); alibi with several heads: head h's spec is set per head
    /// (Training::head).
    Config encoding;
    /// The encoding's family (registry.hpp), and its training (train_slots.hpp), whose slots the model runs.
    const Family* family = nullptr;
    const Training* training = nullptr;
    Params<Real> params;
};

/// A model with parameters drawn from seed's init stream (Random(stream_seed(seed, Stream::init)), in this order:
/// E, then per layer each head's W_q, W_k, W_v, then W_o, W_1, W_2, then W_out and learned's P):
/// E, W_q, W_k, W_v, W_o, W_1, W_out ~ N(0, 1/d),
/// W_2 ~ N(0, 1/intermediate_size), c, b_1, b_2 = 0, the norms' gains 1;
/// learned P ~ N(0, 0.02^2); the T5 table and CoPE's pos_emb 0 (as transformers and
/// x-transformers start them); shaw's relative_key, transformer_xl's v, deberta's
/// rel_embeddings and fire's MLP as the family draws them, each head with its spec's seed key set to
/// head_seed(seed, layer, head) (its own stream: no two heads or seeds share a draw); kerple's r1, r2 from the spec
/// (1, 1). The training's streams (Trainer) are others: the windows never change the initial parameters.
/// classes = vocab (first_marker: max_length).
/// Every family of the registry is trained; throws BadParam ("layers") outside 1 to 6, ("n_heads")
/// for a count that does not divide d.
template <class Real>
Model<Real> make_model(const Config& encoding, std::int64_t vocab, std::int64_t d, std::int64_t classes,
                       std::int64_t max_length, std::uint64_t seed, const Architecture& arch);
/// The attention-only model of `layers` layers of one head.
template <class Real>
Model<Real> make_model(const Config& encoding, std::int64_t vocab, std::int64_t d, std::int64_t classes,
                       std::int64_t max_length, std::uint64_t seed, std::int64_t layers = 1) {
    Architecture arch;
    arch.layers = layers;
    return make_model<Real>(encoding, vocab, d, classes, max_length, seed, arch);
}

/// The factor of the token embeddings in the model's input x = factor E[token] (+ the absolute family's table):
/// sqrt(d_model) for a family that scales them (Training::scaled_embeddings: sinusoidal, Vaswani et al. 2017
/// section 3.4), else 1.
template <class Real>
Real embedding_scale(const Model<Real>& model);

/// The spec of head `head` of layer `layer` with its trained parameters in the family's explicit
/// form (the head's encoding plus the keys of the family's Training::write; learned: weight
/// [max_length, d] with max_position_embeddings = max_length), so attention() computes the trained head's bias.
template <class Real>
Config trained_spec(const Model<Real>& model, std::size_t layer, std::size_t head = 0);

/// The loss on one example and, when grad is not null, its gradient (grad has the
/// shape of model.params and is added to). Returns {loss, right answers, targets}.
/// weights, when not null, receives each layer's attention weights [n, n] (row-major, 0 above the
/// diagonal; with several heads, head 0's); logits, when not null, the read-out z [n, classes].
struct Evaluation {
    double loss = 0;
    std::int64_t correct = 0, targets = 0;
};
template <class Real>
Evaluation loss_and_grad(const Model<Real>& model, const Example& example, Params<Real>* grad,
                         std::vector<std::vector<Real>>* weights = nullptr, std::vector<Real>* logits = nullptr);

/// The loss and gradient of a batch of examples of one length at once, as Trainer::step takes them: {the sum of
/// their losses (each loss_and_grad's, a mean over its targets), their right answers and targets}, and (grad not
/// null) the sum of their gradients added to grad. The projections, the MLP and the read-out run on the batch's
/// rows stacked [batch x n, d], the attention per sequence and head; the pass's rotations and tables, and a
/// positional family's bias (train_slots.hpp: ALiBi, T5, KERPLE, FIRE), are computed once for the batch, and that
/// bias's backward pass runs once at the batch's summed d loss / d b. In float32, every gradient is what the
/// examples' loss_and_grad calls add to grad one after the other, bit for bit, but a positional family's bias
/// parameters (their sums formed in another order) and DeBERTa's W_q, W_k (its bias's backward pass adds to them
/// for every sequence before the projections' does); test_train.cpp bounds the difference in float64. Throws
/// BadParam ("length") for an example whose length is not the first one's or outside [1, max_length],
/// ("batch_size") for an empty batch.
template <class Real>
Evaluation batch_loss_and_grad(const Model<Real>& model, const std::vector<Example>& batch, Params<Real>* grad);

/// Scales grad to a global L2 norm of at most max_norm (as torch.nn.utils.clip_grad_norm_: the norm
/// over every parameter at once, summed in double in groups() order); returns the norm before.
template <class Real>
double clip_gradient(Params<Real>& grad, double max_norm);

/// The learning rate of step `step` (0-based) of `steps`: linear warm-up from lr / warmup to lr over the
/// first warmup steps, then constant, or (cosine) a half cosine from lr down to lr / 10 at the last step.
double learning_rate(double lr, std::int64_t step, std::int64_t steps, std::int64_t warmup, bool cosine);

/// What an evaluation's forward passes share (train.cpp): the passes at one length, a positional family's bias once.
template <class Real>
struct Reuse;

/// `count` characters continuing `prompt` (token ids), each drawn from softmax(z / temperature) of the
/// last position (the context: the last max_length tokens); temperature 0: the most likely one. reuse (the
/// trainer's, of this model), when not null: its positional bias, sliced, instead of one computed per character.
template <class Real>
std::vector<int> generate(const Model<Real>& model, std::vector<int> prompt, std::int64_t count, double temperature,
                          Random& rng, Reuse<Real>* reuse = nullptr);

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
    /// eval_examples: the synthetic tasks' examples per evaluated length, and (every task) the examples of the
    /// validation loss during training (validation_every).
    std::int64_t layers = 1, d_model = 32, vocab = 16, train_length = 32, steps = 400, seed = 0, eval_examples = 16;
    /// task "text": the evaluation at each length reads the validation part's non-overlapping windows
    /// (Corpus::validation_windows): every one (0, the default), or ceil(eval_characters / length) of them (all, if
    /// fewer) spread evenly, so at least eval_characters characters (or the whole part).
    std::int64_t eval_characters = 0;
    std::int64_t n_heads = 1, intermediate_size = 0;
    bool norm = false;                 ///< norm "rms_norm"
    /// task "text": the corpus (its vocabulary sets vocab) and how many characters to generate per sample.
    std::shared_ptr<const Corpus> corpus;
    std::int64_t samples = 0, sample_length = 0;
    /// The optimiser's schedule (learning_rate) and the global gradient-norm clip (0: none).
    std::int64_t warmup_steps = 0;
    bool cosine = false;               ///< lr_decay "cosine"
    double grad_clip = 0;
    /// Every this many steps the validation loss at train_length (0: never), on a cheap fixed subset: text, over
    /// eval_examples windows spread evenly over the validation part (Corpus::validation), not the whole part the
    /// final evaluation reads; the synthetic tasks, over eval_examples fixed examples.
    std::int64_t validation_every = 0;
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
    /// The budget's operations of one training step (its batch, forward and backward; parse_request), and of one
    /// forward pass over n tokens: pass_linear n + pass_quadratic n^2 (an evaluated window or example, a validation
    /// example, a sampled character).
    double step_work = 0, pass_linear = 0, pass_quadratic = 0;
};

/// Reads {task, encoding, eval_encoding?, layers (1 to 6), d_model, vocab, train_length, steps, seed,
/// eval_lengths, eval_examples, lr, recalibration_steps, batch_size (1 to 256), n_heads, intermediate_size,
/// norm ("none", "rms_norm"), warmup_steps, lr_decay ("none", "cosine"), grad_clip, validation_every,
/// text, validation_fraction and eval_characters (task "text"; eval_characters an integer in [1, 2^30], absent: the
/// whole validation part at each length), samples, sample_length}. Throws BadParam naming the request's own key:
/// for a value out of range; ("eval_characters", "text", "samples") when given with a synthetic task;
/// ("eval_encoding.type") for an eval_encoding of another family; ("n_heads", or "d_model" with one head) for a head
/// width d_model / n_heads the encoding does not take; ("train_length", or "batch_size" when one sequence would fit)
/// when one step (the whole batch, forward and backward, with the validation it may end with) is above the work
/// budget of one call (budget.hpp); ("eval_lengths") when one evaluation unit (a window or example at the longest
/// length; the maps and sampled characters are no longer) is. So a Trainer's step(1) and evaluate(1) always run.
/// run() refuses ("steps") an experiment whose steps and evaluation are together above the budget (one call);
/// a Trainer counts each chunk instead.
Request parse_request(const Config& config);

/// The evaluation at one length: task "text", over the validation part's non-overlapping windows (every one, or
/// Request::eval_characters' worth spread evenly); the synthetic tasks, over eval_examples fresh examples.
struct EvalPoint {
    std::int64_t length = 0;
    /// Over every position read that has a target: the share whose most likely class is the target, and the mean
    /// cross-entropy (nats per token; not the mean of the windows' means where their targets differ in number).
    double accuracy = 0, loss = 0;
    /// The standard error of loss (nats) over windows: the sample standard deviation (n - 1) of the windows' (or
    /// examples') own mean losses / sqrt(windows), so loss +- 2 loss_se is an approximate 95% interval for the
    /// split's mean at this length (windows of a text are not independent draws: a band, not a test); 0 with one
    /// window. Windows without a target (a synthetic example with none) are not counted in it.
    double loss_se = 0;
    /// The windows (examples) read, and their characters (tokens): windows x length.
    std::int64_t windows = 0, characters = 0;
    double perplexity() const;  ///< exp(loss), per token
};

/// The validation loss after `step` steps (Request::validation_every).
struct ValidationPoint {
    std::int64_t step = 0;
    double loss = 0;
};

/// A generated continuation (task "text"): the prompt's tokens and the sample_length drawn after it.
struct Sample {
    std::vector<int> prompt, generated;
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
    std::vector<EvalPoint> eval;   ///< one per eval_lengths (EvalPoint: the windows read, the loss and its standard error)
    /// At train_length and at 4 x train_length (or the longest length the model was sized for,
    /// if shorter), with the evaluated encoding.
    std::vector<AttentionMap<Real>> maps;
    Model<Real> model;                  ///< the trained model (as evaluated: DroPE's without its encoding)
    std::vector<ValidationPoint> validation;
    std::vector<Sample> samples;        ///< task "text": prompts from the validation part, 4 x train_length long
};

/// An experiment a few steps at a time, so a caller can report progress and stop between
/// chunks (the page's worker). Deterministic for a request, however the steps and the evaluation are chunked.
/// Its randomness, each from its own stream of the request's seed (Stream; stream_seed): the model from init and head
/// (make_model), the training examples (text: the windows) from data, the synthetic tasks' evaluated examples from
/// examples (per length), their maps' examples from maps (per length), their validation examples from validation,
/// the sampled characters from sampling. The text's evaluation, validation, maps and prompts read fixed windows.
template <class Real>
class Trainer {
public:
    /// Reads every spec now (a forward pass over one token with the encoding, and with eval_encoding in its place):
    /// throws as make_model, as the family's spec reader, ("n_heads" or "d_model") for a head width the encoding
    /// refuses, and ("eval_encoding") for an eval_encoding whose learned parameters have another shape than the
    /// trained ones (T5's num_buckets), before any step.
    explicit Trainer(Request request);
    /// steps + recalibration_steps.
    std::int64_t total() const { return request_.steps + request_.recalibration_steps; }
    std::int64_t done() const { return done_; }
    const Request& request() const { return request_; }
    /// The model as it stands: before the first step, the parameters training starts from (make_model's draw).
    const Model<Real>& model() const { return model_; }
    /// Runs up to `count` more steps; returns done(). Throws BadParam ("count") when those steps
    /// are above the work budget of one call (never for steps_per_call() or fewer).
    std::int64_t step(std::int64_t count);
    /// The most steps one step() call runs within the work budget (with the validations among them): at least 1.
    std::int64_t steps_per_call() const;
    /// The evaluation's units, each one call's work at most: each evaluated window (text: every non-overlapping
    /// window of the validation part at each length, or eval_characters' worth) or example (eval_examples per length),
    /// the two attention maps, and each sampled character.
    std::int64_t evaluation_total() const;
    std::int64_t evaluated() const { return evaluated_; }
    /// The training loss of each step done so far ([done()]) and the validation points so far: what finish() returns
    /// as Result::loss and Result::validation, read while the training goes on (the page's curves as they train).
    const std::vector<double>& losses() const { return loss_; }
    const std::vector<ValidationPoint>& validation() const { return validation_; }
    /// Runs up to `count` more units of the evaluation (after the training: throws BadParam ("count") before
    /// done() == total()); returns evaluated(). Throws BadParam ("count") when those units are above the work
    /// budget of one call.
    std::int64_t evaluate(std::int64_t count);
    /// Throws BadParam ("steps", `what` naming the call) unless the steps left and the evaluation left fit the work
    /// budget of one call: run()'s check, and the JS API's before finish() (trainerFinish), one budget for both.
    void check_finish(const char* what) const;
    /// Runs the steps and the evaluation left (in chunks within the budget, but with no budget of its own: the native
    /// callers' long runs; a call of the JS API checks check_finish first). Call once.
    Result<Real> finish();

private:
    Example next_example();
    double validation_loss() const;
    void run_unit(std::int64_t k);
    /// Windows first .. first + count - 1 of eval_lengths[length] (after unit 0), stacked in one forward pass.
    void run_windows(std::size_t length, std::int64_t first, std::int64_t count);
    std::shared_ptr<Reuse<Real>> reuse_;  ///< the evaluated model's passes and positional biases at the current length
    Request request_;
    Model<Real> model_;
    Adam<Real> adam_;
    Random rng_;
    std::vector<double> loss_;
    std::vector<ValidationPoint> validation_;
    std::int64_t done_ = 0, evaluated_ = 0;
    Result<Real> result_;  ///< filled as the evaluation goes
    /// One length's evaluation so far: the sums EvalPoint is made of (the windows' mean losses by Welford's update).
    struct Tally {
        double loss_sum = 0, mean = 0, m2 = 0;  ///< the sum of every position's loss; the windows' mean loss, its M2
        std::int64_t correct = 0, targets = 0, counted = 0;  ///< counted: the windows with a target
    };
    std::vector<Tally> tallies_;                   ///< per eval length, so far
    std::vector<Random> eval_rngs_;                ///< per eval length: its examples in order (the synthetic tasks)
    Random sample_rng_{0};
};

/// Trainer(request).finish(): trains (batch_size examples per step, batch_loss_and_grad, Adam) and evaluates. Throws BadParam ("steps") first when
/// the whole experiment is above the work budget of one call (Trainer::check_finish).
template <class Real>
Result<Real> run(const Request& request);

// Defined in train.cpp for float and double.
#define POSENC_TRAIN_EXTERN(Real)                                                                                         \
    extern template std::vector<std::pair<std::string, std::vector<Real>*>> groups(Params<Real>&);                       \
    extern template Model<Real> make_model(const Config&, std::int64_t, std::int64_t, std::int64_t, std::int64_t,        \
                                           std::uint64_t, const Architecture&);                                           \
    extern template Config trained_spec(const Model<Real>&, std::size_t, std::size_t);                                    \
    extern template Real embedding_scale(const Model<Real>&);                                                             \
    extern template Evaluation loss_and_grad(const Model<Real>&, const Example&, Params<Real>*,                           \
                                             std::vector<std::vector<Real>>*, std::vector<Real>*);                        \
    extern template Evaluation batch_loss_and_grad(const Model<Real>&, const std::vector<Example>&, Params<Real>*);      \
    extern template double clip_gradient(Params<Real>&, double);                                                          \
    extern template std::vector<int> generate(const Model<Real>&, std::vector<int>, std::int64_t, double, Random&,        \
                                              Reuse<Real>*);                                                              \
    extern template void constrain(Model<Real>&);                                                                         \
    extern template struct Adam<Real>;                                                                                    \
    extern template class Trainer<Real>;                                                                                  \
    extern template Result<Real> run(const Request&);
POSENC_TRAIN_EXTERN(float)
POSENC_TRAIN_EXTERN(double)
#undef POSENC_TRAIN_EXTERN

}  // namespace posenc::train
