#include "posenc/train.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>

#include "posenc/budget.hpp"
#include "posenc/registry.hpp"
#include "posenc/train_slots.hpp"

namespace posenc::train {

void check_table(const std::string& key, const std::string& value, double rows, std::int64_t d) {
    if (rows * double(d) > double(1 << 20))
        throw_bad_param(key, value, "a table of at most 2^20 numbers to train: here " + format_number(rows) + " rows x d_model " +
                                        std::to_string(d));
}

/// What the forward passes of one fixed model share, kept by an evaluation between its batches: the passes (rotations,
/// tables) at the length n of the last one, and a positional family's bias b(i, j) per layer and head at `longest`
/// positions (computed at the first pass that needs it). Such a bias depends on i, j and the head's parameters, never
/// on the pass's length (ALiBi, T5, KERPLE, FIRE: test_train.cpp checks the evaluation against single windows), so a
/// pass of n <= longest reads its top-left n x n block.
template <class Real>
struct Reuse {
    /// At most this many numbers of bias are kept (32 MiB of float32: the language-model lab's sizes at their longest
    /// L_train hold at most 1024^2 x 8 = 2^23, quick at 128); a model whose biases at `longest` need more computes each
    /// pass's own, as without a Reuse.
    static constexpr std::size_t kMaxBias = std::size_t(1) << 23;
    Reuse(std::size_t longest_, std::size_t heads) : longest(longest_), keeps_bias(longest_ * longest_ * heads <= kMaxBias) {}
    std::size_t longest = 0;
    bool keeps_bias = false;  ///< whether the biases of every layer and head at longest fit kMaxBias
    std::size_t n = 0;
    std::vector<Pass<Real>> passes;
    std::vector<std::vector<Vec<Real>>> bias;  // [layer][head] [longest, longest]; empty until a pass needs it
};

namespace {

/// The RMSNorm's epsilon (added to mean(x^2)).
constexpr double kNormEps = 1e-5;

/// The spec as the model uses it: its width key (head_dim; an absolute family's: d), causal, the family's size slot.
Config sized(const Config& encoding, std::int64_t d, std::int64_t head_dim) {
    const Family& family = family_of(encoding);
    Config out = encoding;
    if (!family.width_key.empty()) out[family.width_key] = double(family.acts == Acts::absolute ? d : head_dim);
    if (family.key("causal")) out["causal"] = true;
    if (const Training& training = training_of(family); training.size) training.size(out, d);
    return out;
}

/// The spec with its seed key set to `seed` (the draw of one head's parameters).
Config seeded(const Config& encoding, std::uint64_t seed) {
    Config out = encoding;
    out["seed"] = double(seed);
    return out;
}

/// Head h's spec: model.encoding, set per head by the family where its fixed bias depends on the head.
template <class Real>
Config head_spec(const Model<Real>& m, std::size_t h) {
    if (m.arch.n_heads == 1 || !m.training->head) return m.encoding;
    Config out = m.encoding;
    m.training->head(out, std::int64_t(h), m.arch.n_heads);
    return out;
}

/// What a pass over n tokens precomputes for head h: the content scale 1 / sqrt(width), then the family's prepare slot.
template <class Real>
Pass<Real> pass_of(const Model<Real>& m, std::size_t n, std::size_t h) {
    Pass<Real> pass;
    pass.n = n;
    pass.d_in = std::size_t(m.d);
    pass.d = m.family->acts == Acts::absolute ? std::size_t(m.d) : std::size_t(m.head_dim());
    pass.content_scale = Real(1.0 / std::sqrt(double(m.head_dim())));
    const Slots<Real>& slot = slots<Real>(*m.training);
    if (slot.prepare) slot.prepare(head_spec(m, h), pass);
    return pass;
}

template <class Real>
void zero_like(Params<Real>& g, const Params<Real>& p) {
    g.layers.resize(p.layers.size());
    for (std::size_t l = 0; l < p.layers.size(); ++l) g.layers[l].heads.resize(p.layers[l].heads.size());
    auto to = groups(g);
    auto from = groups(const_cast<Params<Real>&>(p));
    for (std::size_t k = 0; k < to.size(); ++k) to[k].second->assign(from[k].second->size(), 0.0);
}

/// y [n, d] = x / sqrt(mean(x^2) + eps) * gain; inv [n] keeps each row's 1 / sqrt(mean(x^2) + eps).
template <class Real>
void rms_norm(const Vec<Real>& x, const Vec<Real>& gain, Vec<Real>& y, Vec<Real>& inv, std::size_t n, std::size_t d) {
    y.resize(n * d);
    inv.resize(n);
    for (std::size_t t = 0; t < n; ++t) {
        const Real* row = &x[t * d];
        Real sum = 0;
        for (std::size_t c = 0; c < d; ++c) sum += row[c] * row[c];
        inv[t] = Real(1) / std::sqrt(sum / Real(d) + Real(kNormEps));
        for (std::size_t c = 0; c < d; ++c) y[t * d + c] = row[c] * inv[t] * gain[c];
    }
}

/// The backward pass of rms_norm: given dy [n, d], adds to dx [n, d] and dgain [d].
template <class Real>
void rms_norm_backward(const Vec<Real>& x, const Vec<Real>& gain, const Vec<Real>& inv, const Vec<Real>& dy, Vec<Real>& dx,
                       Vec<Real>& dgain, std::size_t n, std::size_t d) {
    for (std::size_t t = 0; t < n; ++t) {
        const Real* row = &x[t * d];
        const Real* g = &dy[t * d];
        Real dot_ = 0;  // sum_c dxhat_c xhat_c, with xhat = x inv and dxhat = dy gain
        for (std::size_t c = 0; c < d; ++c) {
            const Real xhat = row[c] * inv[t];
            dgain[c] += g[c] * xhat;
            dot_ += g[c] * gain[c] * xhat;
        }
        const Real mean = dot_ / Real(d);
        for (std::size_t c = 0; c < d; ++c) dx[t * d + c] += inv[t] * (g[c] * gain[c] - row[c] * inv[t] * mean);
    }
}

/// One head's values in the forward pass of a batch of B sequences of n tokens, kept for the backward pass.
template <class Real>
struct HeadCache {
    Vec<Real> q, k, v;  // [B n, hd] the sequences' rows one after the other; q and k as they enter q . k
    Vec<Real> qw, kw;   // with a widen slot: q and k widened, [B n, wide], as they enter the scores
    Vec<Real> a;        // [B, n, n] each sequence's weights
    std::vector<HeadBias<Real>> bias;  // a positional family's: one, shared by the batch; else one per sequence
};

/// One layer's values in the forward pass, kept for the backward pass. Rows: the B n tokens of the batch.
template <class Real>
struct Cache {
    Vec<Real> in;             // [B n, d] the layer's input h
    Vec<Real> u, inv1;        // the attention's input N1(in) [B n, d] and its rows' 1 / rms (norm only)
    std::vector<HeadCache<Real>> heads;
    Vec<Real> o;              // [B n, d] the heads' outputs side by side (before W_o)
    Vec<Real> mid;            // [B n, d] in + attention: the MLP's residual input (MLP only)
    Vec<Real> u2, inv2;       // N2(mid) and its 1 / rms (MLP and norm)
    Vec<Real> act;            // [B n, m] relu(u2 W_1 + b_1) (MLP only)
};

/// A batch: B token sequences of one length n (the callers' own vectors).
using Batch = std::vector<const std::vector<int>*>;

/// The forward pass's values the backward pass and the callers read.
template <class Real>
struct Forward {
    std::size_t batch = 0, n = 0;
    std::vector<Pass<Real>> passes;  // per head (one when the heads share a spec), shared by the batch
    std::vector<Cache<Real>> caches;
    Vec<Real> h, hn, inv;            // the last layer's output [B n, d], N(h) and its 1 / rms (norm only)
    Vec<Real> z;                     // [B n, classes] the logits
    const Pass<Real>& pass(std::size_t head) const { return passes[passes.size() == 1 ? 0 : head]; }
};

/// x [n, cols] += the row vector b [cols].
template <class Real>
void add_rows(Vec<Real>& x, const Vec<Real>& b, std::size_t n, std::size_t cols) {
    for (std::size_t t = 0; t < n; ++t)
        for (std::size_t c = 0; c < cols; ++c) x[t * cols + c] += b[c];
}

/// db [cols] += the column sums of g [n, cols].
template <class Real>
void sum_rows(const Vec<Real>& g, Vec<Real>& db, std::size_t n, std::size_t cols) {
    for (std::size_t t = 0; t < n; ++t)
        for (std::size_t c = 0; c < cols; ++c) db[c] += g[t * cols + c];
}

/// Fills reuse.bias: a positional family's bias of every layer and head at reuse.longest positions.
template <class Real>
void positional_biases(const Model<Real>& model, Reuse<Real>& reuse) {
    const Slots<Real>& slot = slots<Real>(*model.training);
    const std::size_t H = std::size_t(model.arch.n_heads);
    const bool per_head = H > 1 && model.training->head;
    std::vector<Pass<Real>> passes;
    for (std::size_t h = 0; h < (per_head ? H : 1); ++h) passes.push_back(pass_of(model, reuse.longest, h));
    reuse.bias.assign(model.params.layers.size(), {});
    for (std::size_t l = 0; l < model.params.layers.size(); ++l)
        for (std::size_t h = 0; h < H; ++h)
            reuse.bias[l].push_back(slot.bias(head_spec(model, h), BiasInputs<Real>{passes[per_head ? h : 0], model.params.layers[l].heads[h],
                                                                                      nullptr, nullptr, nullptr, nullptr})
                                        .b);
}

/// The model on a batch of sequences of one length at once: the projections, the MLP and the read-out on the
/// batch's B n rows stacked (each row's arithmetic as for its sequence alone: a product's entry sums over its own
/// row), the attention per sequence and head, the pass (and a positional family's bias) once for the batch.
/// weights (one sequence only): each layer's head 0 weights [n, n]. reuse, when not null: the passes and positional
/// biases of an earlier call at this length with this model (the same values: computed once), else filled by this call.
template <class Real>
Forward<Real> forward(const Model<Real>& model, const Batch& batch, std::vector<std::vector<Real>>* weights,
                      Reuse<Real>* reuse = nullptr) {
    const std::size_t B = batch.size(), n = batch[0]->size(), N = B * n, d = std::size_t(model.d), C = std::size_t(model.classes);
    const std::size_t H = std::size_t(model.arch.n_heads), hd = std::size_t(model.head_dim());
    const std::size_t m = std::size_t(model.arch.intermediate_size);
    const bool norm = model.arch.norm;
    const Params<Real>& p = model.params;
    Forward<Real> f;
    f.batch = B;
    f.n = n;
    Vec<Real> x(N * d);
    for (std::size_t s = 0; s < B; ++s)
        for (std::size_t t = 0; t < n; ++t)
            std::copy_n(p.E.begin() + std::ptrdiff_t(std::size_t((*batch[s])[t]) * d), d, x.begin() + std::ptrdiff_t((s * n + t) * d));
    if (model.training->scaled_embeddings) {
        const Real scale = embedding_scale(model);
        for (Real& e : x) e *= scale;
    }
    const bool per_head = H > 1 && model.training->head;
    if (reuse && reuse->n == n) {
        f.passes = reuse->passes;
    } else {
        for (std::size_t h = 0; h < (per_head ? H : 1); ++h) f.passes.push_back(pass_of(model, n, h));
        if (reuse) {
            reuse->n = n;
            reuse->passes = f.passes;
        }
    }
    const Slots<Real>& slot = slots<Real>(*model.training);
    const Vec<Real>& table = !f.passes[0].table.empty() ? f.passes[0].table : p.P;  // an absolute family's fixed or learned table
    if (!table.empty())
        for (std::size_t s = 0; s < B; ++s)
            for (std::size_t k = 0; k < n * d; ++k) x[s * n * d + k] += table[k];
    f.caches.resize(p.layers.size());
    Vec<Real>& hidden = f.h;
    hidden = std::move(x);
    Vec<Real> head_out(n * hd);
    for (std::size_t l = 0; l < p.layers.size(); ++l) {
        const Layer<Real>& layer = p.layers[l];
        Cache<Real>& cache = f.caches[l];
        cache.in = hidden;
        if (norm) rms_norm(cache.in, layer.norm1, cache.u, cache.inv1, N, d);
        const Vec<Real>& u = norm ? cache.u : cache.in;
        cache.heads.resize(H);
        cache.o.assign(H > 1 ? N * d : 0, Real(0));
        for (std::size_t h = 0; h < H; ++h) {
            const Head<Real>& head = layer.heads[h];
            HeadCache<Real>& hc = cache.heads[h];
            const Pass<Real>& sh = f.pass(h);
            hc.q.resize(N * hd);
            hc.k.resize(N * hd);
            hc.v.resize(N * hd);
            matmul(u.data(), head.Wq.data(), hc.q.data(), N, d, hd);
            matmul(u.data(), head.Wk.data(), hc.k.data(), N, d, hd);
            matmul(u.data(), head.Wv.data(), hc.v.data(), N, d, hd);
            hc.a.resize(B * n * n);
            hc.bias.clear();
            const Config spec = slot.bias ? head_spec(model, h) : Config{};
            if (slot.bias && slot.positional) {
                if (reuse && reuse->keeps_bias && n <= reuse->longest) {
                    if (reuse->bias.empty()) positional_biases(model, *reuse);
                    const Vec<Real>& all = reuse->bias[l][h];
                    HeadBias<Real> block;  // the forward pass reads b alone
                    block.b.resize(n * n);
                    for (std::size_t i = 0; i < n; ++i) std::copy_n(&all[i * reuse->longest], n, &block.b[i * n]);
                    hc.bias.push_back(std::move(block));
                } else {
                    hc.bias.push_back(slot.bias(spec, BiasInputs<Real>{sh, head, nullptr, nullptr, nullptr, nullptr}));
                }
            }
            for (std::size_t s = 0; s < B; ++s) {
                Real *q = &hc.q[s * n * hd], *k = &hc.k[s * n * hd];
                if (sh.rotary) {
                    sh.rq.apply(q, n, hd, false);
                    sh.rk.apply(k, n, hd, false);
                }
                Real* a = &hc.a[s * n * n];  // the content scores, then the scores, then the weights; 0 above the diagonal
                if (slot.widen) {  // the scores are the dots of q and k widened to sh.wide (pope: 2 hd)
                    hc.qw.resize(N * sh.wide);
                    hc.kw.resize(N * sh.wide);
                    Real *qw = &hc.qw[s * n * sh.wide], *kw = &hc.kw[s * n * sh.wide];
                    slot.widen(sh, head, q, false, qw);
                    slot.widen(sh, head, k, true, kw);
                    scores(qw, kw, a, n, n, sh.wide, sh.content_scale);
                } else {
                    scores(q, k, a, n, n, hd, sh.content_scale);
                }
                if (slot.bias) {
                    if (!slot.positional) hc.bias.push_back(slot.bias(spec, BiasInputs<Real>{sh, head, q, k, a, &u[s * n * d]}));
                    Vec<Real>& b = hc.bias.back().b;
                    for (std::size_t i = 0; i < n; ++i)
                        for (std::size_t j = 0; j <= i; ++j) a[i * n + j] += b[i * n + j];
                    if (!slot.positional) Vec<Real>().swap(b);  // the backward pass reads only what the slot saved
                }
                attend(a, &hc.v[s * n * hd], head_out.data(), n, hd, true);
                if (H == 1) {  // one head: its output is added to the residual, as in issue 14's model
                    for (std::size_t e = 0; e < n * d; ++e) hidden[s * n * d + e] += head_out[e];
                } else {
                    for (std::size_t t = 0; t < n; ++t) std::copy_n(&head_out[t * hd], hd, &cache.o[(s * n + t) * d + h * hd]);
                }
            }
            if (weights && h == 0) weights->emplace_back(hc.a.begin(), hc.a.begin() + std::ptrdiff_t(n * n));
        }
        if (H > 1) {
            Vec<Real> projected(N * d);
            matmul(cache.o.data(), layer.Wo.data(), projected.data(), N, d, d);
            for (std::size_t e = 0; e < N * d; ++e) hidden[e] += projected[e];
        }
        if (m > 0) {
            cache.mid = hidden;
            if (norm) rms_norm(cache.mid, layer.norm2, cache.u2, cache.inv2, N, d);
            const Vec<Real>& u2 = norm ? cache.u2 : cache.mid;
            cache.act.resize(N * m);
            matmul(u2.data(), layer.W1.data(), cache.act.data(), N, d, m);
            add_rows(cache.act, layer.b1, N, m);
            for (Real& e : cache.act) e = e > Real(0) ? e : Real(0);
            Vec<Real> out(N * d);
            matmul(cache.act.data(), layer.W2.data(), out.data(), N, m, d);
            add_rows(out, layer.b2, N, d);
            for (std::size_t e = 0; e < N * d; ++e) hidden[e] += out[e];
        }
    }
    if (norm) rms_norm(hidden, p.norm, f.hn, f.inv, N, d);
    f.z.resize(N * C);
    matmul((norm ? f.hn : hidden).data(), p.Wout.data(), f.z.data(), N, d, C);
    add_rows(f.z, p.c, N, C);
    return f;
}

/// The loss of each sequence of a batch (a mean over its targets) and, when grad is not null, the sum of their
/// gradients added to grad: the forward pass on the batch at once, then its backward pass, stacked as the forward
/// pass. Each parameter's gradient takes the sequences' terms in order (a product's right factor sums over its
/// B n rows in order, as B calls of one sequence would add them), except a positional family's bias parameters,
/// whose backward pass runs once at the batch's summed ds. weights, logits: of a batch of one sequence; each, when not
/// null, receives each sequence's Evaluation in order.
template <class Real>
Evaluation batch_evaluation(const Model<Real>& model, const std::vector<const Example*>& batch, Params<Real>* grad,
                            std::vector<std::vector<Real>>* weights, std::vector<Real>* logits,
                            std::vector<Evaluation>* each = nullptr, Reuse<Real>* reuse = nullptr) {
    const std::size_t B = batch.size(), n = batch[0]->tokens.size(), N = B * n, d = std::size_t(model.d), C = std::size_t(model.classes);
    const std::size_t H = std::size_t(model.arch.n_heads), hd = std::size_t(model.head_dim());
    const std::size_t m = std::size_t(model.arch.intermediate_size);
    const bool norm = model.arch.norm;
    for (const Example* e : batch)
        if (e->tokens.size() != n || n < 1 || std::int64_t(n) > model.max_length)
            throw_bad_param("length", std::to_string(e->tokens.size()),
                            B > 1 && n >= 1 && std::int64_t(n) <= model.max_length
                                ? "the batch's length " + std::to_string(n)
                                : "an integer in [1, " + std::to_string(model.max_length) + "]");
    const Params<Real>& p = model.params;
    Batch tokens;
    for (const Example* e : batch) tokens.push_back(&e->tokens);
    Forward<Real> f = forward(model, tokens, weights, reuse);
    Vec<Real>& z = f.z;
    if (logits) *logits = z;
    Evaluation result;
    Vec<Real> dz(N * C, 0.0);
    for (std::size_t s = 0; s < B; ++s) {
        const std::vector<int>& targets = batch[s]->targets;
        Evaluation one;
        for (std::size_t t = 0; t < n; ++t)
            if (targets[t] >= 0) ++one.targets;
        for (std::size_t t = 0; t < n; ++t) {
            const int y = targets[t];
            if (y < 0) continue;
            const Real* zt = &z[(s * n + t) * C];
            Real* dzt = &dz[(s * n + t) * C];
            Real top = -HUGE_VAL;
            std::size_t best = 0;
            for (std::size_t c = 0; c < C; ++c)
                if (zt[c] > top) top = zt[c], best = c;
            Real sum = 0;
            for (std::size_t c = 0; c < C; ++c) sum += (dzt[c] = std::exp(zt[c] - top));
            one.loss += (top + std::log(sum) - zt[std::size_t(y)]) / Real(one.targets);
            one.correct += best == std::size_t(y);
            for (std::size_t c = 0; c < C; ++c) dzt[c] = (dzt[c] / sum - (c == std::size_t(y) ? Real(1) : Real(0))) / Real(one.targets);
        }
        result.loss += one.loss;
        result.correct += one.correct;
        result.targets += one.targets;
        if (each) each->push_back(one);
    }
    if (!grad || result.targets == 0) return result;

    // Backward.
    if (grad->E.size() != p.E.size() || grad->layers.size() != p.layers.size()) zero_like(*grad, p);
    const Slots<Real>& slot = slots<Real>(*model.training);
    Vec<Real> dh(N * d, 0.0);  // the gradient of the current layer's output
    if (norm) {
        Vec<Real> dhn(N * d, 0.0);
        matmul_backward(f.hn.data(), p.Wout.data(), dz.data(), dhn.data(), grad->Wout.data(), N, d, C);
        rms_norm_backward(f.h, p.norm, f.inv, dhn, dh, grad->norm, N, d);
    } else {
        matmul_backward(f.h.data(), p.Wout.data(), dz.data(), dh.data(), grad->Wout.data(), N, d, C);
    }
    sum_rows(dz, grad->c, N, C);
    Vec<Real> dhead(N * hd), dq(N * hd), dk(N * hd), dv(N * hd), ds(n * n), dsum, dcontent, dqw, dkw;
    for (std::size_t l = p.layers.size(); l-- > 0;) {
        const Layer<Real>& layer = p.layers[l];
        Layer<Real>& gl = grad->layers[l];
        const Cache<Real>& cache = f.caches[l];
        if (m > 0) {  // h = mid + relu(N2(mid) W_1 + b_1) W_2 + b_2
            const Vec<Real>& u2 = norm ? cache.u2 : cache.mid;
            Vec<Real> dact(N * m, 0.0), du2(norm ? N * d : 0, 0.0);
            matmul_backward(cache.act.data(), layer.W2.data(), dh.data(), dact.data(), gl.W2.data(), N, m, d);
            sum_rows(dh, gl.b2, N, d);
            for (std::size_t e = 0; e < N * m; ++e)
                if (!(cache.act[e] > Real(0))) dact[e] = 0;
            sum_rows(dact, gl.b1, N, m);
            // Without a norm, u2 = mid: the gradient adds to dh's residual part in place.
            matmul_backward(u2.data(), layer.W1.data(), dact.data(), (norm ? du2 : dh).data(), gl.W1.data(), N, d, m);
            if (norm) rms_norm_backward(cache.mid, layer.norm2, cache.inv2, du2, dh, gl.norm2, N, d);
        }
        // h = in + attention(u), u = N1(in) (or in): dh reaches in through the residual and through u.
        const Vec<Real>& u = norm ? cache.u : cache.in;
        Vec<Real> du(norm ? N * d : 0, 0.0), dO;
        Vec<Real>& dinput = norm ? du : dh;  // without a norm, u = in: the heads' gradients add to the residual's in place
        if (H > 1) {
            dO.assign(N * d, 0.0);
            matmul_backward(cache.o.data(), layer.Wo.data(), dh.data(), dO.data(), gl.Wo.data(), N, d, d);
        }
        for (std::size_t h = 0; h < H; ++h) {
            const Head<Real>& head = layer.heads[h];
            Head<Real>& g = gl.heads[h];
            const HeadCache<Real>& hc = cache.heads[h];
            const Pass<Real>& sh = f.pass(h);
            if (H == 1) dhead = dh;
            else
                for (std::size_t t = 0; t < N; ++t) std::copy_n(&dO[t * d + h * hd], hd, &dhead[t * hd]);
            std::fill(dq.begin(), dq.end(), Real(0));
            std::fill(dk.begin(), dk.end(), Real(0));
            std::fill(dv.begin(), dv.end(), Real(0));
            const Config spec = slot.bias ? head_spec(model, h) : Config{};
            if (slot.bias && slot.positional) dsum.assign(n * n, Real(0));  // d loss / d b(i, j), summed over the batch
            for (std::size_t s = 0; s < B; ++s) {
                const std::size_t at = s * n * hd;
                const Real *a = &hc.a[s * n * n], *q = &hc.q[at], *k = &hc.k[at];
                attend_backward(a, &hc.v[at], &dhead[at], ds.data(), &dv[at], n, hd);  // ds = d loss / d s_ij
                const Real* dscores = ds.data();  // d loss / d (scale q_i . k_j)
                if (slot.bias && slot.positional) {
                    for (std::size_t e = 0; e < n * n; ++e) dsum[e] += ds[e];
                } else if (slot.bias && slot.backward) {
                    dcontent = ds;
                    slot.backward(spec, BiasInputs<Real>{sh, head, q, k, a, &u[s * n * d]}, hc.bias[s], ds.data(),
                                  BiasGradients<Real>{g, &dq[at], &dk[at], dcontent.data(), &dinput[s * n * d]});
                    dscores = dcontent.data();
                }
                if (slot.widen) {  // through the widened q and k, then back to q and k (and the head's parameters)
                    const std::size_t wide = s * n * sh.wide;
                    dqw.assign(n * sh.wide, Real(0));
                    dkw.assign(n * sh.wide, Real(0));
                    scores_backward(dscores, &hc.qw[wide], &hc.kw[wide], dqw.data(), dkw.data(), n, sh.wide, sh.content_scale);
                    slot.widen_backward(sh, head, q, false, dqw.data(), &dq[at], g);
                    slot.widen_backward(sh, head, k, true, dkw.data(), &dk[at], g);
                } else {
                    scores_backward(dscores, q, k, &dq[at], &dk[at], n, hd, sh.content_scale);
                }
                if (sh.rotary) {  // q = R q0: dq0 = R^T dq
                    sh.rq.apply(&dq[at], n, hd, true);
                    sh.rk.apply(&dk[at], n, hd, true);
                }
            }
            if (slot.bias && slot.positional && slot.backward)
                slot.backward(spec, BiasInputs<Real>{sh, head, nullptr, nullptr, nullptr, nullptr}, hc.bias[0], dsum.data(),
                              BiasGradients<Real>{g, nullptr, nullptr, nullptr, nullptr});
            matmul_backward(u.data(), head.Wq.data(), dq.data(), dinput.data(), g.Wq.data(), N, d, hd);
            matmul_backward(u.data(), head.Wk.data(), dk.data(), dinput.data(), g.Wk.data(), N, d, hd);
            matmul_backward(u.data(), head.Wv.data(), dv.data(), dinput.data(), g.Wv.data(), N, d, hd);
        }
        if (norm) rms_norm_backward(cache.in, layer.norm1, cache.inv1, du, dh, gl.norm1, N, d);
    }
    const Vec<Real>& dx = dh;
    const Real scale = embedding_scale(model);  // x = scale E[token] (+ P)
    for (std::size_t s = 0; s < B; ++s)
        for (std::size_t t = 0; t < n; ++t)
            for (std::size_t c = 0; c < d; ++c) {
                const Real g = dx[(s * n + t) * d + c];
                grad->E[std::size_t((*tokens[s])[t]) * d + c] += g * scale;  // scale 1: g exactly
                if (!p.P.empty()) grad->P[t * d + c] += g;
            }
    return result;
}

}  // namespace

template <class Real>
std::vector<std::pair<std::string, std::vector<Real>*>> groups(Params<Real>& params) {
    std::vector<std::pair<std::string, std::vector<Real>*>> out = {{"E", &params.E}};
    for (std::size_t l = 0; l < params.layers.size(); ++l) {
        const std::string at = "layer" + std::to_string(l) + ".";
        Layer<Real>& layer = params.layers[l];
        for (std::size_t h = 0; h < layer.heads.size(); ++h) {
            const std::string head = at + "head" + std::to_string(h) + ".";
            Head<Real>& x = layer.heads[h];
            out.insert(out.end(), {{head + "Wq", &x.Wq}, {head + "Wk", &x.Wk}, {head + "Wv", &x.Wv}, {head + "pos", &x.pos}});
        }
        out.insert(out.end(), {{at + "Wo", &layer.Wo}, {at + "norm1", &layer.norm1}, {at + "norm2", &layer.norm2}, {at + "W1", &layer.W1},
                               {at + "b1", &layer.b1}, {at + "W2", &layer.W2}, {at + "b2", &layer.b2}});
    }
    out.insert(out.end(), {{"norm", &params.norm}, {"Wout", &params.Wout}, {"c", &params.c}, {"P", &params.P}});
    return out;
}

Task task_of(const std::string& name) {
    if (name == "copy") return Task::copy;
    if (name == "induction") return Task::induction;
    if (name == "first_marker") return Task::first_marker;
    if (name == "text") return Task::text;
    throw_bad_param("task", '"' + name + '"', "one of \"copy\", \"induction\", \"first_marker\", \"text\"");
}

std::uint64_t stream_seed(std::uint64_t seed, Stream stream, std::uint64_t a, std::uint64_t b) {
    return derive_seed(seed, {std::uint64_t(stream), a, b});
}

std::uint64_t head_seed(std::uint64_t seed, std::int64_t layer, std::int64_t head) {
    return stream_seed(seed, Stream::head, std::uint64_t(layer), std::uint64_t(head)) >> 11;
}

Example make_example(Task task, std::int64_t vocab, std::int64_t length, Random& rng) {
    Example e;
    const auto draw = [&](std::int64_t lo) { return int(lo + std::int64_t(rng.uniform() * double(vocab - lo))); };
    e.tokens.resize(std::size_t(length));
    e.targets.assign(std::size_t(length), -1);
    if (task == Task::first_marker) {
        for (int& t : e.tokens) t = draw(1);  // 0 is the marker
        const std::int64_t at = std::int64_t(rng.uniform() * double((length + 1) / 2));
        e.tokens[std::size_t(at)] = 0;
        for (std::int64_t t = at; t < length; ++t) e.targets[std::size_t(t)] = int(at);
        return e;
    }
    for (int& t : e.tokens) t = draw(0);
    for (std::int64_t t = 0; t < length; ++t) {
        if (task == Task::copy) {
            if (t >= 1) e.targets[std::size_t(t)] = e.tokens[std::size_t(t - 1)];
            continue;
        }
        for (std::int64_t s = t - 1; s >= 0; --s)  // induction: the last earlier occurrence, and what followed it
            if (e.tokens[std::size_t(s)] == e.tokens[std::size_t(t)]) {
                e.targets[std::size_t(t)] = e.tokens[std::size_t(s + 1)];
                break;
            }
    }
    return e;
}

namespace {

/// The window of length + 1 tokens at `at`: its first length as tokens, its last length as targets.
Example window(const std::vector<std::int32_t>& tokens, std::size_t at, std::int64_t length) {
    Example e;
    e.tokens.assign(tokens.begin() + std::ptrdiff_t(at), tokens.begin() + std::ptrdiff_t(at + std::size_t(length)));
    e.targets.assign(tokens.begin() + std::ptrdiff_t(at + 1), tokens.begin() + std::ptrdiff_t(at + 1 + std::size_t(length)));
    return e;
}

}  // namespace

Example Corpus::example(std::int64_t length, Random& rng) const {
    if (std::size_t(length) + 1 > train_end)
        throw_bad_param("train_length", std::to_string(length), "at most " + std::to_string(train_end - 1) + " (the training text's characters - 1)");
    const std::size_t starts = train_end - std::size_t(length);  // windows [at, at + length] inside [0, train_end)
    return window(tokens, std::min(starts - 1, std::size_t(rng.uniform() * double(starts))), length);
}

Example Corpus::validation(std::int64_t length, std::int64_t k, std::int64_t count) const {
    const std::size_t size = tokens.size() - train_end;
    if (std::size_t(length) + 1 > size)
        throw_bad_param("eval_lengths", std::to_string(length), "at most " + std::to_string(size - 1) + " (the validation text's characters - 1)");
    const std::size_t starts = size - std::size_t(length);
    return window(tokens, train_end + std::size_t(k) * starts / std::size_t(std::max<std::int64_t>(count, 1)), length);
}

std::int64_t Corpus::validation_windows(std::int64_t length) const {
    return std::int64_t((tokens.size() - train_end - 1) / std::size_t(length));
}

Example Corpus::validation_window(std::int64_t length, std::int64_t j) const {
    return window(tokens, train_end + std::size_t(j * length), length);
}

std::shared_ptr<const Corpus> corpus_of(const std::string& text, double validation_fraction) {
    std::vector<std::uint32_t> points;
    points.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {  // UTF-8 (RFC 3629): 1 to 4 bytes, no overlong forms, no surrogates
        const unsigned char b = static_cast<unsigned char>(text[i]);
        const int extra = b < 0x80 ? 0 : (b >> 5) == 0x6 ? 1 : (b >> 4) == 0xE ? 2 : (b >> 3) == 0x1E ? 3 : -1;
        std::uint32_t cp = extra == 0 ? b : extra == 1 ? (b & 0x1Fu) : extra == 2 ? (b & 0x0Fu) : (b & 0x07u);
        bool ok = extra >= 0 && i + std::size_t(extra) < text.size() + (extra == 0 ? 1 : 0);
        for (int k = 1; ok && k <= extra; ++k) {
            const unsigned char c = static_cast<unsigned char>(text[i + std::size_t(k)]);
            ok = (c >> 6) == 0x2;
            cp = (cp << 6) | (c & 0x3Fu);
        }
        static const std::uint32_t lowest[] = {0, 0x80, 0x800, 0x10000};
        if (!ok || cp < lowest[std::max(extra, 0)] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            throw_bad_param("text", "a text with byte " + std::to_string(b) + " at " + std::to_string(i), "UTF-8 text");
        points.push_back(cp);
        i += std::size_t(extra) + 1;
    }
    if (points.size() < 1000)
        throw_bad_param("text", "a text of " + std::to_string(points.size()) + " characters", "at least 1000 characters");
    auto corpus = std::make_shared<Corpus>();
    corpus->characters = points;
    std::sort(corpus->characters.begin(), corpus->characters.end());
    corpus->characters.erase(std::unique(corpus->characters.begin(), corpus->characters.end()), corpus->characters.end());
    if (corpus->characters.size() > 1024)
        throw_bad_param("text", "a text of " + std::to_string(corpus->characters.size()) + " distinct characters", "at most 1024");
    corpus->tokens.reserve(points.size());
    for (const std::uint32_t cp : points)
        corpus->tokens.push_back(std::int32_t(std::lower_bound(corpus->characters.begin(), corpus->characters.end(), cp) - corpus->characters.begin()));
    std::size_t end = std::size_t(double(points.size()) * (1.0 - validation_fraction));
    while (end < points.size() && end > 0 && points[end - 1] != '\n') ++end;  // to the next line start
    if (end >= points.size()) end = std::size_t(double(points.size()) * (1.0 - validation_fraction));
    corpus->train_end = end;
    return corpus;
}

template <class Real>
Model<Real> make_model(const Config& encoding, std::int64_t vocab, std::int64_t d, std::int64_t classes,
                       std::int64_t max_length, std::uint64_t seed, const Architecture& arch) {
    if (arch.layers < 1 || arch.layers > 6) throw_bad_param("layers", std::to_string(arch.layers), "an integer in [1, 6]");
    if (arch.n_heads < 1 || d % arch.n_heads != 0)
        throw_bad_param("n_heads", std::to_string(arch.n_heads), "a divisor of d_model = " + std::to_string(d));
    Model<Real> m;
    m.vocab = vocab;
    m.d = d;
    m.classes = classes;
    m.max_length = max_length;
    m.arch = arch;
    m.encoding = sized(encoding, d, m.head_dim());
    m.family = &family_of(m.encoding);
    m.training = &training_of(*m.family);
    const Slots<Real>& slot = slots<Real>(*m.training);
    const std::size_t hd = std::size_t(m.head_dim()), H = std::size_t(arch.n_heads), mw = std::size_t(arch.intermediate_size);
    Random rng(stream_seed(seed, Stream::init));
    const Real std = Real(1.0 / std::sqrt(double(d)));
    Params<Real>& p = m.params;
    p.E = normals(rng, std::size_t(vocab * d), std);
    p.layers.resize(std::size_t(arch.layers));
    for (std::size_t l = 0; l < p.layers.size(); ++l) {
        Layer<Real>& layer = p.layers[l];
        layer.heads.resize(H);
        for (std::size_t h = 0; h < H; ++h) {
            Head<Real>& head = layer.heads[h];
            head.Wq = normals(rng, std::size_t(d) * hd, std);
            head.Wk = normals(rng, std::size_t(d) * hd, std);
            head.Wv = normals(rng, std::size_t(d) * hd, std);
            const Config own =
                m.family->key("seed") ? seeded(m.encoding, head_seed(seed, std::int64_t(l), std::int64_t(h))) : m.encoding;
            if (slot.init) head.pos = slot.init(own, std::int64_t(hd));
        }
        if (H > 1) layer.Wo = normals(rng, std::size_t(d * d), std);
        if (arch.norm) {
            layer.norm1.assign(std::size_t(d), Real(1));
            if (mw > 0) layer.norm2.assign(std::size_t(d), Real(1));
        }
        if (mw > 0) {
            layer.W1 = normals(rng, std::size_t(d) * mw, std);
            layer.b1.assign(mw, Real(0));
            layer.W2 = normals(rng, mw * std::size_t(d), Real(1.0 / std::sqrt(double(mw))));
            layer.b2.assign(std::size_t(d), Real(0));
        }
    }
    if (arch.norm) p.norm.assign(std::size_t(d), Real(1));
    p.Wout = normals(rng, std::size_t(d * classes), std);
    p.c.assign(std::size_t(classes), 0.0);
    if (slot.table) p.P = slot.table(rng, max_length, d);
    return m;
}

template <class Real>
Real embedding_scale(const Model<Real>& model) {
    return model.training->scaled_embeddings ? Real(std::sqrt(double(model.d))) : Real(1);
}

template <class Real>
Config trained_spec(const Model<Real>& model, std::size_t layer, std::size_t head) {
    Config out = head_spec(model, head);
    const Vec<Real>& pos = model.params.layers.at(layer).heads.at(head).pos;
    const Training& training = *model.training;
    const std::vector<double> values(pos.begin(), pos.end());
    if (training.write)
        training.write(out, Trained{values, std::vector<double>(model.params.P.begin(), model.params.P.end()), model.max_length});
    else if (!training.position_key.empty())
        out[training.position_key] = values;
    return out;
}

template <class Real>
Evaluation loss_and_grad(const Model<Real>& model, const Example& example, Params<Real>* grad, std::vector<std::vector<Real>>* weights,
                         std::vector<Real>* logits) {
    return batch_evaluation<Real>(model, {&example}, grad, weights, logits);
}

template <class Real>
Evaluation batch_loss_and_grad(const Model<Real>& model, const std::vector<Example>& batch, Params<Real>* grad) {
    if (batch.empty()) throw_bad_param("batch_size", "0", "at least 1 sequence");
    std::vector<const Example*> each;
    for (const Example& e : batch) each.push_back(&e);
    return batch_evaluation<Real>(model, each, grad, nullptr, nullptr);
}

template <class Real>
void constrain(Model<Real>& model) {
    const Slots<Real>& slot = slots<Real>(*model.training);
    if (!slot.constrain) return;
    for (Layer<Real>& layer : model.params.layers)
        for (Head<Real>& head : layer.heads) slot.constrain(model.encoding, head.pos);
}

template <class Real>
double clip_gradient(Params<Real>& grad, double max_norm) {
    double sum = 0;
    for (auto& group : groups(grad))
        for (const Real x : *group.second) sum += double(x) * double(x);
    const double norm = std::sqrt(sum);
    if (max_norm > 0 && norm > max_norm) {
        const Real scale = Real(max_norm / norm);
        for (auto& group : groups(grad))
            for (Real& x : *group.second) x *= scale;
    }
    return norm;
}

double learning_rate(double lr, std::int64_t step, std::int64_t steps, std::int64_t warmup, bool cosine) {
    if (step < warmup) return lr * double(step + 1) / double(warmup);
    if (!cosine || steps - warmup <= 1) return lr;
    const double progress = double(step - warmup) / double(steps - warmup - 1);  // 0 .. 1
    return lr * (0.1 + 0.9 * 0.5 * (1.0 + portable_cos_turns(progress / 2)));
}

template <class Real>
std::vector<int> generate(const Model<Real>& model, std::vector<int> prompt, std::int64_t count, double temperature, Random& rng,
                          Reuse<Real>* reuse) {
    std::vector<int> out;
    const std::size_t C = std::size_t(model.classes);
    for (std::int64_t k = 0; k < count; ++k) {
        const std::size_t context = std::min(prompt.size(), std::size_t(model.max_length));
        const std::vector<int> window(prompt.end() - std::ptrdiff_t(context), prompt.end());
        const Forward<Real> f = forward<Real>(model, Batch{&window}, nullptr, reuse);
        const Real* z = &f.z[(context - 1) * C];
        std::size_t pick = std::size_t(std::max_element(z, z + C) - z);
        if (temperature > 0) {
            std::vector<double> w(C);
            double sum = 0;
            for (std::size_t c = 0; c < C; ++c) sum += (w[c] = std::exp((double(z[c]) - double(z[pick])) / temperature));
            double u = rng.uniform() * sum;
            for (std::size_t c = 0; c < C; ++c)
                if ((u -= w[c]) <= 0 || c + 1 == C) {
                    pick = c;
                    break;
                }
        }
        out.push_back(int(pick));
        prompt.push_back(int(pick));
    }
    return out;
}

double EvalPoint::perplexity() const { return std::exp(loss); }

template <class Real>
void Adam<Real>::update(Params<Real>& params, const Params<Real>& grad) {
    if (m.E.size() != params.E.size() || m.layers.size() != params.layers.size()) {
        zero_like(m, params);
        zero_like(v, params);
    }
    ++step;
    // In Real throughout: Adam's constants rounded once, as a float32 optimiser holds them.
    const Real b1 = Real(beta1), b2 = Real(beta2), rate = Real(lr), epsilon = Real(eps);
    const Real correction1 = Real(1) - std::pow(b1, Real(step)), correction2 = Real(1) - std::pow(b2, Real(step));
    auto xs = groups(params), ms = groups(m), vs = groups(v);
    auto gs = groups(const_cast<Params<Real>&>(grad));
    for (std::size_t k = 0; k < xs.size(); ++k) {
        Vec<Real> *x = xs[k].second, *mo = ms[k].second, *ve = vs[k].second;
        const Vec<Real>* g = gs[k].second;
        for (std::size_t i = 0; i < x->size(); ++i) {
            const Real gi = (*g)[i];
            (*mo)[i] = b1 * (*mo)[i] + (Real(1) - b1) * gi;
            (*ve)[i] = b2 * (*ve)[i] + (Real(1) - b2) * gi * gi;
            (*x)[i] -= rate * ((*mo)[i] / correction1) / (std::sqrt((*ve)[i] / correction2) + epsilon);
        }
    }
}

namespace {

/// The operations of a sum of estimates.
double operations(const std::vector<budget::Factors>& terms) {
    double total = 0;
    for (const budget::Factors& t : terms) total += budget::operations(t);
    return total;
}

/// The work of one forward pass over n tokens (Request::pass_linear and pass_quadratic): an evaluated example,
/// a validation example, a sampled character.
double forward_work(const Request& r, double n) { return r.pass_linear * n + r.pass_quadratic * n * n; }

/// Runs `body`; a BadParam naming a width the trainer set in `encoding`, the caller's spec (its family's width key,
/// head_dim or d_head: d_model / n_heads, an absolute family's d_model: d_model; a rotary family's rotary_dim when the
/// spec does not give it: from head_dim), is said as the request's own key that set it: n_heads when several heads
/// divide d_model, else d_model.
template <class F>
auto naming_width(const Request& r, const Config& encoding, F&& body) {
    try {
        return body();
    } catch (const BadParam& e) {
        const Family& family = family_of(encoding);
        const bool heads = family.acts != Acts::absolute && r.n_heads > 1;
        const bool set_here = !family.width_key.empty() && (e.param == family.width_key ||
                                                            (e.param == "rotary_dim" && !find_key(encoding, "rotary_dim")));
        if (!set_here || (!heads && e.param == "d_model")) throw;
        const std::string key = heads ? "n_heads" : "d_model", value = std::to_string(heads ? r.n_heads : r.d_model);
        const std::string width = family.width_key + " = " +
                                  (heads ? "d_model / n_heads = " + std::to_string(r.d_model) + " / " + std::to_string(r.n_heads) + " = " +
                                               std::to_string(r.d_model / r.n_heads)
                                         : "d_model = " + std::to_string(r.d_model));
        throw_bad_param(key, value, "a value that gives " + family.type + " a " + e.param + " it takes (" + width + "; " + e.param +
                                        " = " + e.value + " is invalid: expected " + e.allowed + ")");
    }
}

/// The budget's terms of `count` steps: the steps (their batches, forward and backward), and the validations among
/// them (validation_every: each eval_examples forward passes at train_length).
std::vector<budget::Factors> step_terms(const Request& r, std::int64_t count) {
    std::vector<budget::Factors> terms = {{{double(count), "steps"}, {r.step_work, "operations per step"}}};
    // Any count steps in a row end at most ceil(count / validation_every) multiples of validation_every, and the last
    // step validates too: one more, unless every step does already.
    if (r.validation_every > 0 && count > 0)
        terms.push_back({{double(std::min(count, (count + r.validation_every - 1) / r.validation_every + 1)), "validations"},
                         {double(r.eval_examples), "examples"}, {forward_work(r, double(r.train_length)), "operations per example"}});
    return terms;
}

}  // namespace

Request parse_request(const Config& config) {
    const SpecReader read(config, "train request",
                          {"task", "encoding", "eval_encoding", "layers", "d_model", "vocab", "train_length", "steps", "seed",
                           "eval_lengths", "eval_examples", "lr", "recalibration_steps", "batch_size", "n_heads",
                           "intermediate_size", "norm", "warmup_steps", "lr_decay", "grad_clip", "validation_every", "text",
                           "validation_fraction", "eval_characters", "samples", "sample_length"});
    Request r;
    r.task = task_of(read.choice("task", "copy", {"copy", "induction", "first_marker", "text"}));
    if (const Config* encoding = read.object("encoding")) r.encoding = *encoding;
    else r.encoding = Config{{"type", std::string("none")}};
    if (const Config* eval = read.object("eval_encoding")) r.eval_encoding = *eval;
    r.layers = read.integer("layers", 1, 1, 6);
    r.d_model = read.integer("d_model", r.d_model, 2, 256);
    r.n_heads = read.integer("n_heads", 1, 1, 16);
    if (r.d_model % r.n_heads != 0)
        throw_bad_param("n_heads", std::to_string(r.n_heads), "a divisor of d_model = " + std::to_string(r.d_model));
    r.intermediate_size = read.integer("intermediate_size", 0, 0, 1024);
    r.norm = read.choice("norm", "none", {"none", "rms_norm"}) == "rms_norm";
    r.vocab = read.integer("vocab", r.vocab, 2, 1024);
    r.train_length = read.integer("train_length", r.train_length, 2, 1024);
    r.steps = read.integer("steps", r.steps, 1, 100000);
    r.recalibration_steps = read.integer("recalibration_steps", 0, 0, 100000);
    r.batch_size = read.integer("batch_size", 1, 1, 256);
    r.seed = read.integer("seed", 0, 0, kMaxSeed);
    r.eval_examples = read.integer("eval_examples", r.eval_examples, 1, 1024);
    r.lr = read.number("lr", r.lr, 1e-6, 1.0, "a number in [1e-6, 1]");
    r.warmup_steps = read.integer("warmup_steps", 0, 0, 100000);
    r.cosine = read.choice("lr_decay", "none", {"none", "cosine"}) == "cosine";
    r.grad_clip = read.number("grad_clip", 0.0, 0.0, 1e6, "a number in [0, 1e6] (0: no clipping)");
    r.validation_every = read.integer("validation_every", 0, 0, 100000);
    if (const auto lengths = read.number_list("eval_lengths", 2, 4096, "an integer in [2, 4096]")) {
        if (lengths->empty() || lengths->size() > 16)
            throw_bad_param("eval_lengths", "a list of " + std::to_string(lengths->size()) + " lengths", "1 to 16 lengths");
        r.eval_lengths.clear();
        for (std::size_t i = 0; i < lengths->size(); ++i) {
            const double x = (*lengths)[i];
            if (x != std::floor(x)) throw_bad_param("eval_lengths[" + std::to_string(i) + "]", format_number(x), "an integer in [2, 4096]");
            r.eval_lengths.push_back(std::int64_t(x));
        }
    }
    if (r.task == Task::text) {
        const std::optional<std::string> text = read.text("text");
        if (!text) throw_bad_param("text", "absent", "the corpus as a string (task \"text\")");
        const double fraction = read.number("validation_fraction", 0.1, 0.01, 0.5, "a number in [0.01, 0.5]");
        r.corpus = corpus_of(*text, fraction);
        r.vocab = r.corpus->vocab();
        if (read.present("eval_characters")) r.eval_characters = read.integer("eval_characters", 0, 1, std::int64_t(1) << 30);
        r.samples = read.integer("samples", 0, 0, 8);
        r.sample_length = read.integer("sample_length", 64, 1, 512);
        const std::int64_t longest_eval = *std::max_element(r.eval_lengths.begin(), r.eval_lengths.end());
        Random probe(0);
        r.corpus->example(r.train_length, probe);  // each throws for a window longer than its part of the text
        r.corpus->validation(longest_eval, 0, 1);
    } else {
        for (const char* key : {"text", "eval_characters", "samples"})
            if (read.present(key)) throw_bad_param(key, "present", "only with task \"text\"");
    }
    // The work: each step's (and each evaluated example's) forward and backward passes, about
    // 8 n d^2 multiply-adds (projections, read-out) + 6 n d m (the MLP) and, per (query, key) pair, 6 d (scores,
    // weights . v, their gradients) + per head 80 (the exp, the softmax's bookkeeping) + the encoding's own
    // (deberta 9 d for c2p, p2c and their gradients; cope 2 d + 50 for its gates and interpolation;
    // fire 8 mlp_width; shaw 4 d; transformer_xl 6 d; 80 for a log per pair: t5's and deberta's
    // buckets, fire's psi), 8 to a budget operation. Measured in wasm
    // on this machine (core/README.md "Limits"): about 0.5 ns per multiply-add and 40 ns of the 80 per
    // pair, so the budget's 3e8 operations are about 1.2 s.
    const double d = double(r.d_model), heads = double(r.n_heads), hd = d / heads;
    const Config encoding = naming_width(r, r.encoding, [&] { return sized(r.encoding, r.d_model, r.d_model / r.n_heads); });
    const Training& training = training_of(family_of(encoding));
    const double own = naming_width(r, r.encoding, [&] { return training.pair_work ? training.pair_work(encoding, hd) : 0.0; });
    if (!r.eval_encoding.empty()) {  // another spec of the same family, checked now rather than after every step has run
        const Config eval = naming_width(r, r.eval_encoding, [&] { return sized(r.eval_encoding, r.d_model, r.d_model / r.n_heads); });
        if (family_of(eval).type != family_of(encoding).type)
            throw_bad_param("eval_encoding.type", '"' + family_of(eval).type + '"', "the trained encoding's family, \"" + family_of(encoding).type + "\"");
    }
    const double m = double(r.intermediate_size);
    r.pass_linear = double(r.layers) * (8 * d * double(std::max(r.d_model, r.vocab)) + 6 * d * m) / 8 / 2;  // forward: half
    r.pass_quadratic = double(r.layers) * (6 * d + heads * (80 + own)) / 8 / 2;
    const auto pass = [&](double n) {
        return (8 * n * d * double(std::max(r.d_model, r.vocab)) + 6 * n * d * m + n * n * (6 * d + heads * (80 + own))) / 8;
    };
    // Per step besides the passes: drawing the example, the gradient's buffers, and Adam over every
    // parameter (a sqrt and a division each: about 3 operations), measured: about 4000 operations
    // of overhead at toy sizes (d_model 4: 78432 steps took 2 s when only the passes were counted).
    const double longest_length = double(std::max(r.train_length, *std::max_element(r.eval_lengths.begin(), r.eval_lengths.end())));
    const double classes = r.task == Task::first_marker ? longest_length : double(r.vocab);
    const double parameters = d * (double(r.vocab) + double(r.layers) * (3 * d + (heads > 1 ? d : 0) + 2 * m) + classes +
                                   (training.f.table ? longest_length : 0.0));
    const auto step_work = [&](double batch) { return batch * (double(r.layers) * pass(double(r.train_length)) + 4000) + 3 * parameters; };
    r.step_work = step_work(double(r.batch_size));
    // Every call a Trainer accepts must be able to run at its smallest: one step (its whole batch, forward and
    // backward, and the validation it may end with) and one evaluation unit (the longest: an example at the longest
    // of eval_lengths; the attention maps and the sampled characters are no longer). So step(1) and evaluate(1) are
    // never refused; run() and finish() count the rest (check_finish).
    if (operations(step_terms(r, 1)) > budget::kMaxOperations) {
        // The whole batch is over the budget: blamed on batch_size when one sequence (and the validation) would fit.
        Request one = r;
        one.step_work = step_work(1);
        budget::check_work("train", r.batch_size > 1 && operations(step_terms(one, 1)) <= budget::kMaxOperations ? "batch_size" : "train_length",
                           step_terms(r, 1), 0);
    }
    budget::check_work("train", "eval_lengths",
                       budget::Factors{{1, "example"}, {double(r.layers), "layers"}, {pass(longest_length) / 2, "operations per layer"}}, 0);
    return r;
}

namespace {

/// The longest sequence an experiment reads: train_length, or the longest of eval_lengths.
std::int64_t longest(const Request& r) {
    return std::max(r.train_length, *std::max_element(r.eval_lengths.begin(), r.eval_lengths.end()));
}

template <class Real>
Model<Real> model_of(const Request& r) {
    const std::int64_t classes = r.task == Task::first_marker ? longest(r) : r.vocab;
    Architecture arch;
    arch.layers = r.layers;
    arch.n_heads = r.n_heads;
    arch.intermediate_size = r.intermediate_size;
    arch.norm = r.norm;
    return make_model<Real>(r.encoding, r.vocab, r.d_model, classes, longest(r), std::uint64_t(r.seed), arch);
}

/// The most tokens one evaluation pass stacks (Trainer::evaluate): windows of one length, at least one.
constexpr std::int64_t kEvalBatchTokens = 2048;

/// The windows (text) or examples (the synthetic tasks) evaluated at `length`: text, every non-overlapping window of
/// the validation part or ceil(eval_characters / length) of them (Request::eval_characters); else eval_examples.
std::int64_t eval_windows(const Request& r, std::int64_t length) {
    if (!r.corpus) return r.eval_examples;
    const std::int64_t all = r.corpus->validation_windows(length);
    return r.eval_characters > 0 ? std::min(all, (r.eval_characters + length - 1) / length) : all;
}

/// The evaluation's first units, one per evaluated window (or example), length after length.
std::int64_t window_units(const Request& r) {
    std::int64_t units = 0;
    for (const std::int64_t n : r.eval_lengths) units += eval_windows(r, n);
    return units;
}

/// Evaluation unit k < window_units(r): window `window` of length eval_lengths[length].
struct WindowUnit {
    std::size_t length = 0;
    std::int64_t window = 0;
};
std::optional<WindowUnit> window_unit(const Request& r, std::int64_t k) {
    for (std::size_t l = 0; l < r.eval_lengths.size(); ++l) {
        const std::int64_t count = eval_windows(r, r.eval_lengths[l]);
        if (k < count) return WindowUnit{l, k};
        k -= count;
    }
    return std::nullopt;
}

/// Evaluated window k of `length` (text: of eval_windows' spread evenly over the part's non-overlapping windows, all of
/// them by default), or the next synthetic example from rng (the examples stream of that length).
Example evaluated_window(const Request& r, std::int64_t length, std::int64_t k, Random& rng) {
    if (!r.corpus) return make_example(r.task, r.vocab, length, rng);
    return r.corpus->validation_window(length, k * r.corpus->validation_windows(length) / eval_windows(r, length));
}

/// The evaluation's units (Trainer::evaluation_total).
std::int64_t evaluation_units(const Request& r) {
    return window_units(r) + 2 + (r.corpus ? r.samples * r.sample_length : 0);
}

/// The prompt's length of the samples: 4 x train_length, or as much as the model's context leaves for the sample.
std::int64_t prompt_length(const Request& r, std::int64_t max_length) {
    return std::max<std::int64_t>(1, std::min(4 * r.train_length, max_length - r.sample_length));
}

/// The work of evaluation unit k: one forward pass over its tokens (the model's max_length is longest(r)).
double unit_work(const Request& r, std::int64_t k) {
    if (const auto w = window_unit(r, k)) return forward_work(r, double(r.eval_lengths[w->length]));
    const std::int64_t examples = window_units(r), max_length = longest(r);
    if (k < examples + 2) return forward_work(r, double(k == examples ? r.train_length : std::min(4 * r.train_length, max_length)));
    const std::int64_t token = (k - examples - 2) % std::max<std::int64_t>(1, r.sample_length);
    return forward_work(r, double(std::min(prompt_length(r, max_length) + token, max_length)));
}

/// Throws BadParam ("steps") unless the rest of an experiment, after `done` steps and `evaluated` evaluation units,
/// fits one call: its steps (with their validations) and its evaluation. `what` names the call.
void check_rest(const Request& r, std::int64_t done, std::int64_t evaluated, const char* what) {
    const std::int64_t steps = r.steps + r.recalibration_steps - done;
    double evaluation = 0;
    for (std::int64_t k = evaluated; k < evaluation_units(r); ++k) evaluation += unit_work(r, k);
    std::vector<budget::Factors> terms = step_terms(r, steps);
    terms.push_back({{1, "evaluation"}, {evaluation, "operations"}});
    budget::check_work(what, "steps", terms, 8.0 * double(steps));
}

/// A forward pass of `model` over one token: every slot of its encoding reads its spec (a spec it refuses throws here).
template <class Real>
void probe(const Model<Real>& model) {
    const std::vector<int> one{0};
    forward<Real>(model, Batch{&one}, nullptr);
}

/// Throws BadParam ("eval_encoding") unless `eval` (model's encoding's family, sized) has learned position parameters
/// of the shape the model trained (T5's num_buckets, Shaw's max_relative_position ...): evaluated with another shape,
/// the bias would read past them.
template <class Real>
void check_eval_shape(const Model<Real>& model, const Config& eval) {
    const Slots<Real>& slot = slots<Real>(*model.training);
    if (!slot.init) return;
    const std::size_t trained = model.params.layers[0].heads[0].pos.size(), size = slot.init(eval, model.head_dim()).size();
    if (size != trained)
        throw_bad_param("eval_encoding", "a spec with " + std::to_string(size) + " numbers of " + model.training->position_key,
                        "a spec of the trained encoding's shape: " + std::to_string(trained) + " numbers of " + model.training->position_key);
}

/// The k-th of `count` examples of `length` tokens of a fixed subset (the validation loss during training, the attention
/// maps): the validation part's windows spread evenly (text), or fresh examples drawn from rng.
Example subset_example(const Request& r, std::int64_t length, std::int64_t k, std::int64_t count, Random& rng) {
    return r.corpus ? r.corpus->validation(length, k, count) : make_example(r.task, r.vocab, length, rng);
}

}  // namespace

template <class Real>
Trainer<Real>::Trainer(Request request)
    : request_(std::move(request)),
      model_(naming_width(request_, request_.encoding, [&] { return model_of<Real>(request_); })),
      rng_(stream_seed(std::uint64_t(request_.seed), Stream::data)) {
    adam_.lr = request_.lr;
    loss_.reserve(std::size_t(total()));
    // Every spec is read now, not at the first step or the first evaluation unit: the trained encoding, and the
    // evaluated one in the model's place (its family checked by parse_request).
    naming_width(request_, request_.encoding, [&] { probe(model_); });
    if (!request_.eval_encoding.empty()) {
        Config eval = sized(request_.eval_encoding, request_.d_model, model_.head_dim());
        naming_width(request_, request_.eval_encoding, [&] {
            check_eval_shape(model_, eval);
            std::swap(model_.encoding, eval);
            probe(model_);  // a throw fails the constructor: model_ goes with it
            std::swap(model_.encoding, eval);
        });
    }
}

template <class Real>
Example Trainer<Real>::next_example() {
    return request_.corpus ? request_.corpus->example(request_.train_length, rng_)
                           : make_example(request_.task, request_.vocab, request_.train_length, rng_);
}

template <class Real>
double Trainer<Real>::validation_loss() const {
    Random rng(stream_seed(std::uint64_t(request_.seed), Stream::validation));
    double loss = 0;
    for (std::int64_t k = 0; k < request_.eval_examples; ++k)
        loss += loss_and_grad<Real>(model_, subset_example(request_, request_.train_length, k, request_.eval_examples, rng), nullptr).loss;
    return loss / double(request_.eval_examples);
}

template <class Real>
std::int64_t Trainer<Real>::step(std::int64_t count) {
    count = std::min(count, total() - done_);
    budget::check_work("trainerStep", "count", step_terms(request_, count), 0);
    for (std::int64_t k = 0; k < count && done_ < total(); ++k, ++done_) {
        if (done_ == request_.steps) {  // DroPE: the encoding is dropped, the rest recalibrates without it
            model_.encoding = sized(Config{{"type", std::string("none")}}, request_.d_model, model_.head_dim());
            model_.family = &family_of(model_.encoding);
            model_.training = &training_of(*model_.family);
            model_.params.P.clear();
            for (Layer<Real>& layer : model_.params.layers)
                for (Head<Real>& head : layer.heads) head.pos.clear();
            adam_ = Adam<Real>{};  // fresh moments for the parameters that remain
            adam_.lr = request_.lr;
        }
        const bool recalibrating = done_ >= request_.steps;
        adam_.lr = learning_rate(request_.lr, recalibrating ? done_ - request_.steps : done_,
                                 recalibrating ? request_.recalibration_steps : request_.steps, request_.warmup_steps, request_.cosine);
        Params<Real> grad;
        std::vector<Example> batch;
        for (std::int64_t b = 0; b < request_.batch_size; ++b) batch.push_back(next_example());
        // The batch at once (batch_loss_and_grad: the sum of the sequences' gradients), then their mean.
        const Evaluation e = batch_loss_and_grad(model_, batch, &grad);
        double loss = e.loss;
        const std::int64_t targets = e.targets;
        if (request_.batch_size > 1) {
            const Real mean = Real(1) / Real(request_.batch_size);
            for (auto& group : groups(grad))
                for (Real& x : *group.second) x *= mean;
            loss /= double(request_.batch_size);
        }
        loss_.push_back(loss);
        if (targets > 0) {
            if (request_.grad_clip > 0) clip_gradient(grad, request_.grad_clip);
            adam_.update(model_.params, grad);
            constrain(model_);
        }
        if (request_.validation_every > 0 && ((done_ + 1) % request_.validation_every == 0 || done_ + 1 == total()))
            validation_.push_back({done_ + 1, validation_loss()});
    }
    return done_;
}

template <class Real>
std::int64_t Trainer<Real>::steps_per_call() const {
    // The most steps whose work (with their validations) fits one call: at least 1 (parse_request checked one step).
    std::int64_t fits = 1, over = std::max<std::int64_t>(2, total() + 1);
    while (over - fits > 1) {
        const std::int64_t mid = fits + (over - fits) / 2;
        (operations(step_terms(request_, mid)) <= budget::kMaxOperations ? fits : over) = mid;
    }
    return fits;
}

template <class Real>
std::int64_t Trainer<Real>::evaluation_total() const {
    return evaluation_units(request_);
}

template <class Real>
void Trainer<Real>::check_finish(const char* what) const {
    check_rest(request_, done_, evaluated_, what);
}

template <class Real>
void Trainer<Real>::run_unit(std::int64_t k) {
    Model<Real>& evaluated = result_.model;
    if (k == 0) {  // the trained model as evaluated
        result_.loss = loss_;
        result_.validation = validation_;
        result_.model = model_;
        // Another spec of the family (parse_request and the constructor checked it).
        if (!request_.eval_encoding.empty()) evaluated.encoding = sized(request_.eval_encoding, request_.d_model, evaluated.head_dim());
        result_.eval.assign(request_.eval_lengths.size(), EvalPoint{});
        tallies_.assign(request_.eval_lengths.size(), Tally{});
        eval_rngs_.clear();
        reuse_ = std::make_shared<Reuse<Real>>(std::size_t(evaluated.max_length),
                                               evaluated.params.layers.size() * std::size_t(evaluated.arch.n_heads));
        for (const std::int64_t n : request_.eval_lengths)
            eval_rngs_.emplace_back(stream_seed(std::uint64_t(request_.seed), Stream::examples, std::uint64_t(n)));
    }
    if (const auto w = window_unit(request_, k)) {  // window w.window of length eval_lengths[w.length], in order
        run_windows(w->length, w->window, 1);
        return;
    }
    const std::int64_t examples = window_units(request_);
    if (k < examples + 2) {  // the attention maps at train_length and 4 x train_length (or the longest length)
        const std::int64_t n = k == examples ? request_.train_length : std::min(4 * request_.train_length, evaluated.max_length);
        Random map_rng(stream_seed(std::uint64_t(request_.seed), Stream::maps, std::uint64_t(n)));
        AttentionMap<Real> map;
        map.length = n;
        map.example = subset_example(request_, n, 0, 1, map_rng);
        loss_and_grad<Real>(evaluated, map.example, nullptr, &map.weights);
        result_.maps.push_back(std::move(map));
        return;
    }
    // A sampled character: prompts from the validation part, each sample drawn after the one before.
    const std::int64_t unit = k - examples - 2, s = unit / request_.sample_length;
    if (unit % request_.sample_length == 0) {
        Sample sample;
        sample.prompt = request_.corpus->validation(prompt_length(request_, evaluated.max_length), s, request_.samples).tokens;
        result_.samples.push_back(std::move(sample));
    }
    if (unit == 0) sample_rng_ = Random(stream_seed(std::uint64_t(request_.seed), Stream::sampling));
    Sample& sample = result_.samples.back();
    std::vector<int> context = sample.prompt;
    context.insert(context.end(), sample.generated.begin(), sample.generated.end());
    sample.generated.push_back(generate(evaluated, std::move(context), 1, 0.8, sample_rng_, reuse_.get()).front());
}

template <class Real>
void Trainer<Real>::run_windows(std::size_t length, std::int64_t first, std::int64_t count) {
    const Model<Real>& evaluated = result_.model;
    const std::int64_t n = request_.eval_lengths[length];
    // The synthetic tasks: each length's examples from its own generator, drawn in order.
    std::vector<Example> examples;
    for (std::int64_t w = first; w < first + count; ++w)
        examples.push_back(evaluated_window(request_, n, w, eval_rngs_[length]));
    std::vector<const Example*> batch;
    for (const Example& e : examples) batch.push_back(&e);
    // The windows stacked in one forward pass (the bias and rotations once for all), each window's loss as its own
    // loss_and_grad's (batch_evaluation's rows are the single sequence's, bit for bit).
    std::vector<Evaluation> each;
    batch_evaluation<Real>(evaluated, batch, nullptr, nullptr, nullptr, &each, reuse_.get());
    Tally& t = tallies_[length];
    for (const Evaluation& e : each) {
        t.loss_sum += e.loss * double(e.targets);  // e.loss: the mean over its targets
        t.correct += e.correct;
        t.targets += e.targets;
        if (e.targets > 0) {  // Welford: the windows' mean loss and the sum of squared deviations from it
            ++t.counted;
            const double delta = e.loss - t.mean;
            t.mean += delta / double(t.counted);
            t.m2 += delta * (e.loss - t.mean);
        }
    }
    EvalPoint& point = result_.eval[length];
    point.length = n;
    point.windows = first + count;
    point.characters = point.windows * n;
    point.loss = t.targets ? t.loss_sum / double(t.targets) : 0.0;
    point.accuracy = t.targets ? double(t.correct) / double(t.targets) : 0.0;
    point.loss_se = t.counted > 1 ? std::sqrt(t.m2 / double(t.counted - 1) / double(t.counted)) : 0.0;
}

template <class Real>
std::int64_t Trainer<Real>::evaluate(std::int64_t count) {
    if (done_ < total())
        throw_bad_param("count", std::to_string(count), "an evaluation after the training's " + std::to_string(total()) + " steps (" +
                                                             std::to_string(done_) + " done)");
    count = std::min(count, evaluation_total() - evaluated_);
    double work = 0;
    for (std::int64_t k = evaluated_; k < evaluated_ + count; ++k) work += unit_work(request_, k);
    budget::check_work("trainerEvaluate", "count", budget::Factors{{1, "evaluation"}, {work, "operations"}}, 0);
    for (std::int64_t k = 0; k < count;) {
        const auto w = window_unit(request_, evaluated_);
        if (!w || evaluated_ == 0) {  // unit 0 also sets the evaluation up
            run_unit(evaluated_);
            ++evaluated_, ++k;
            continue;
        }
        // The next windows of this length in this call, kEvalBatchTokens tokens at most a pass.
        const std::int64_t n = request_.eval_lengths[w->length];
        const std::int64_t run = std::min({count - k, eval_windows(request_, n) - w->window,
                                           std::max<std::int64_t>(1, kEvalBatchTokens / n)});
        run_windows(w->length, w->window, run);
        evaluated_ += run, k += run;
    }
    return evaluated_;
}

template <class Real>
Result<Real> Trainer<Real>::finish() {
    const std::int64_t chunk = steps_per_call();  // chunks within one call's budget
    while (done_ < total()) step(chunk);
    while (evaluated_ < evaluation_total()) {  // as many units as one call's budget holds, at least one
        std::int64_t count = 0;
        for (double work = 0; evaluated_ + count < evaluation_total(); ++count) {
            work += unit_work(request_, evaluated_ + count);
            if (work > budget::kMaxOperations && count > 0) break;
        }
        evaluate(count);
    }
    return std::move(result_);
}

template <class Real>
Result<Real> run(const Request& request) {
    check_rest(request, 0, 0, "train");  // the budget of trainerFinish's finish(): one call for the whole experiment
    return Trainer<Real>(request).finish();
}

#define POSENC_TRAIN_INSTANTIATE(Real)                                                                                     \
    template std::vector<std::pair<std::string, std::vector<Real>*>> groups(Params<Real>&);                              \
    template Model<Real> make_model(const Config&, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::uint64_t, \
                                    const Architecture&);                                                                 \
    template Config trained_spec(const Model<Real>&, std::size_t, std::size_t);                                           \
    template Real embedding_scale(const Model<Real>&);                                                                    \
    template Evaluation loss_and_grad(const Model<Real>&, const Example&, Params<Real>*, std::vector<std::vector<Real>>*, \
                                      std::vector<Real>*);                                                                \
    template Evaluation batch_loss_and_grad(const Model<Real>&, const std::vector<Example>&, Params<Real>*);              \
    template double clip_gradient(Params<Real>&, double);                                                                 \
    template std::vector<int> generate(const Model<Real>&, std::vector<int>, std::int64_t, double, Random&, Reuse<Real>*); \
    template void constrain(Model<Real>&);                                                                                \
    template struct Adam<Real>;                                                                                           \
    template class Trainer<Real>;                                                                                         \
    template Result<Real> run(const Request&);
POSENC_TRAIN_INSTANTIATE(float)
POSENC_TRAIN_INSTANTIATE(double)
#undef POSENC_TRAIN_INSTANTIATE

}  // namespace posenc::train
