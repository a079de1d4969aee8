// posenc/train_slots.hpp: what a family does in training, beside its forward
// maths in its own source file. Each family has one `train::Training`, its
// `<family>::training()` (not in its descriptor, family.hpp, so that a module
// without the trainer drops every family's training code; train.cpp reaches it
// through training_of, from family_list.hpp): how its spec is sized for the model, its learned
// parameters (their first values, their spec keys, their constraint), what a
// pass precomputes (rotations, tables, bucket indices), its bias b(i, j) with
// the backward pass beside it, and its cost for the work budget. train.cpp
// keeps only what every family shares (the layers, the softmax, the read-out,
// Adam) and reads the family's slots; it names no family.
//
// Shapes are row-major: q, k [n, d]; scores and biases [n, n], entry (i, j)
// for j <= i (a causal model: the entries above the diagonal are unused).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <functional>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>

#include "posenc/config.hpp"
#include "posenc/kernels.hpp"
#include "posenc/random.hpp"

namespace posenc::train {

template <class Real>
struct Head;

template <class Real>
using Vec = std::vector<Real>;

template <class Real>
Real dot(const Real* a, const Real* b, std::size_t d) {
    Real s = 0;
    for (std::size_t c = 0; c < d; ++c) s += a[c] * b[c];
    return s;
}

/// out[c] += w * x[c].
template <class Real>
void axpy(Real w, const Real* x, Real* out, std::size_t d) {
    for (std::size_t c = 0; c < d; ++c) out[c] += w * x[c];
}

/// a [rows, inner] . b [inner, cols] into out [rows, cols]: float32 by the head's kernel
/// (kernels::matmul, which sums in this loop's order, so the two agree bit for bit), float64 by the loop.
template <class Real>
void matmul(const Real* a, const Real* b, Real* out, std::size_t rows, std::size_t inner, std::size_t cols) {
    if constexpr (std::is_same_v<Real, float>) {
        kernels::matmul(a, b, out, rows, inner, cols);
        return;
    }
    std::fill(out, out + rows * cols, Real(0));
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t p = 0; p < inner; ++p) {
            const Real x = a[r * inner + p];
            for (std::size_t c = 0; c < cols; ++c) out[r * cols + c] += x * b[p * cols + c];
        }
}

/// out [n_q, n_k] = q [n_q, d] . k [n_k, d]^T * scale: float32 by the head's kernel (kernels::scores,
/// as the page's head), float64 by the loop.
template <class Real>
void scores(const Real* q, const Real* k, Real* out, std::size_t n_q, std::size_t n_k, std::size_t d, Real scale) {
    if constexpr (std::is_same_v<Real, float>) {
        kernels::scores(q, k, out, n_q, n_k, d, scale);
        return;
    }
    for (std::size_t i = 0; i < n_q; ++i)
        for (std::size_t j = 0; j < n_k; ++j) out[i * n_k + j] = dot(&q[i * d], &k[j * d], d) * scale;
}

/// The head's last steps: logits [n, n] become the weights in place (causal: 0 above the diagonal),
/// out [n, d_v] = weights . v. float32 by the head's kernel (kernels::attend, as the page's head), float64
/// by the loop (the native finite-difference checks).
template <class Real>
void attend(Real* logits, const Real* v, Real* out, std::size_t n, std::size_t d_v, bool causal) {
    if constexpr (std::is_same_v<Real, float>) {
        kernels::attend(logits, v, out, n, d_v, causal);
        return;
    }
    for (std::size_t i = 0; i < n; ++i) {
        Real* row = logits + i * n;
        const std::size_t keys = causal ? i + 1 : n;
        const Real top = *std::max_element(row, row + keys);
        Real sum = 0;
        for (std::size_t j = 0; j < keys; ++j) sum += (row[j] = std::exp(row[j] - top));
        for (std::size_t j = 0; j < n; ++j) row[j] = j < keys ? row[j] / sum : Real(0);
    }
    matmul(logits, v, out, n, n, d_v);
}

/// The backward pass of matmul: grad_b [inner, cols] += a^T . g [rows, cols]; grad_a [rows, inner] += g . b^T (when not null).
/// float32 by the kernels (grad_b by kernels::matmul_at_accumulate; g . b^T by kernels::matmul_bt, then added), each
/// sum in this loop's order, so the two agree bit for bit; float64 by the loop.
template <class Real>
void matmul_backward(const Real* a, const Real* b, const Real* g, Real* grad_a, Real* grad_b, std::size_t rows,
                     std::size_t inner, std::size_t cols) {
    if constexpr (std::is_same_v<Real, float>) {
        kernels::matmul_at_accumulate(a, g, grad_b, rows, inner, cols);
        if (grad_a) {
            std::vector<float> product(rows * inner);
            kernels::matmul_bt(g, b, product.data(), rows, cols, inner);
            for (std::size_t e = 0; e < rows * inner; ++e) grad_a[e] += product[e];
        }
        return;
    }
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t p = 0; p < inner; ++p) {
            Real s = 0;
            for (std::size_t c = 0; c < cols; ++c) {
                grad_b[p * cols + c] += a[r * inner + p] * g[r * cols + c];
                s += g[r * cols + c] * b[p * cols + c];
            }
            if (grad_a) grad_a[r * inner + p] += s;
        }
}

/// The backward pass of attend (causal): given the weights [n, n] (0 above the diagonal), v [n, d_v] and dout [n, d_v],
/// dlogits [n, n] = d loss / d logits (0 above the diagonal) and dv [n, d_v] += weights^T . dout. float32 by the
/// head's kernel (kernels::attend_backward), float64 by its reference's loops; the two sum in the same order.
template <class Real>
void attend_backward(const Real* weights, const Real* v, const Real* dout, Real* dlogits, Real* dv, std::size_t n,
                     std::size_t d_v) {
    if constexpr (std::is_same_v<Real, float>) kernels::attend_backward(weights, v, dout, dlogits, dv, n, d_v);
    else kernels::attend_backward_reference(weights, v, dout, dlogits, dv, n, d_v);
}

/// The backward pass of scores (causal): given dscores [n, n] (0 above the diagonal), dq [n, d] += (dscores * scale) . k
/// and dk [n, d] += (dscores * scale)^T . q. float32 by kernels::scores_backward, float64 by its reference's loops.
template <class Real>
void scores_backward(const Real* dscores, const Real* q, const Real* k, Real* dq, Real* dk, std::size_t n, std::size_t d,
                     Real scale) {
    if constexpr (std::is_same_v<Real, float>) kernels::scores_backward(dscores, q, k, dq, dk, n, d, scale);
    else kernels::scores_backward_reference(dscores, q, k, dq, dk, n, d, scale);
}

/// A rotary encoding at n positions: per pair its two columns, and per position and pair the
/// cosine and sine of position * inv_freq, times the pair's gain there (RoPE: attention_factor;
/// xPos: zeta^(+t / scale_base) for queries, zeta^(-t / scale_base) for keys).
template <class Real>
struct Rotation {
    std::vector<std::size_t> a, b;  // [pairs]
    Vec<Real> cos, sin;             // [n, pairs]
    /// x [n, d] rotated; transpose: by the transpose, for the backward pass.
    void apply(Real* x, std::size_t n, std::size_t d, bool transpose) const {
        const std::size_t pairs = a.size();
        for (std::size_t t = 0; t < n; ++t)
            for (std::size_t p = 0; p < pairs; ++p) {
                const Real c = cos[t * pairs + p], s = transpose ? -sin[t * pairs + p] : sin[t * pairs + p];
                Real& u = x[t * d + a[p]];
                Real& w = x[t * d + b[p]];
                const Real u0 = u, w0 = w;
                u = u0 * c - w0 * s;
                w = u0 * s + w0 * c;
            }
    }
};

/// The rotation of pairs with inv_freq [pairs] (radians per token) at positions 0 .. n - 1, in the
/// interleaved (2p, 2p + 1) or half (p, p + pairs) layout; gain(t, p): the factor of pair p at position t.
template <class Real, class Gain>
Rotation<Real> rotation(const std::vector<double>& inv_freq, bool interleaved, std::size_t n, Gain gain) {
    const std::size_t pairs = inv_freq.size();
    Rotation<Real> r;
    for (std::size_t p = 0; p < pairs; ++p) {
        r.a.push_back(interleaved ? 2 * p : p);
        r.b.push_back(interleaved ? 2 * p + 1 : p + pairs);
    }
    r.cos.resize(n * pairs);
    r.sin.resize(n * pairs);
    for (std::size_t t = 0; t < n; ++t)
        for (std::size_t p = 0; p < pairs; ++p) {
            const double angle = double(t) * inv_freq[p], g = gain(t, p);
            r.cos[t * pairs + p] = Real(g * std::cos(angle));
            r.sin[t * pairs + p] = Real(g * std::sin(angle));
        }
    return r;
}

/// What one pass over n tokens precomputes from the encoding, shared by the layers and by the sequences of a
/// batch (all of length n). The family's prepare slot fills what it uses; the rest stays empty.
template <class Real>
struct Pass {
    std::size_t n = 0;
    std::size_t d = 0;             ///< the width of q and k: the head's (head_dim; an absolute family: d_model)
    std::size_t d_in = 0;          ///< the model's width d_model, the rows of W_q and W_k
    Real content_scale = 1;        ///< of q . k: 1 / sqrt(d) unless the family changes it
    bool rotary = false;           ///< q and k rotated by rq and rk after their projections
    Rotation<Real> rq, rk;
    Vec<Real> table;               ///< an absolute family's fixed P [n, d], added to the token embeddings
    Vec<Real> fixed;               ///< a per-pair input [n, n] (alibi: b(i, j); fire: the MLP's input)
    std::vector<std::int32_t> index;  ///< a per-pair row of the learned parameters [n, n] (t5, shaw, deberta)
    Vec<Real> rows;                ///< per-distance rows [n, d] (transformer_xl: R_(i-j) for i - j = 0 .. n - 1)
    std::size_t first = 0, count = 0;  ///< deberta: the rows of its table the pass reaches
    std::size_t width = 0;         ///< fire: mlp_width; cope: npos_max; fope: its kept frequencies K
    std::vector<double> angles;    ///< a polar family's phases [n, d] of positions 0 .. n - 1 (pope: t theta_c), radians;
                                   ///< fope: cos(t omega_D) then sin(t omega_D) [n, 2 width]
    std::size_t wide = 0;          ///< with a widen slot: the width of q and k widened, as they enter the scores (pope: 2d)
};

/// One head's bias b(i, j) [n, n] and what its backward pass keeps of the forward pass.
template <class Real>
struct HeadBias {
    Vec<Real> b;
    std::vector<Vec<Real>> saved;
};

/// What a bias slot reads: the pass, the head (its projections and learned position parameters),
/// its queries and keys [n, d] as they enter q . k, (in the forward pass only) content [n, n],
/// their scaled products content_scale q_i . k_j, and the head's input x [n, d_in] (the layer's
/// normalised hidden state, which W_q, W_k and W_v project). A positional family's slots
/// (Slots::positional) are called once for a batch of sequences and get null q, k, content and x.
template <class Real>
struct BiasInputs {
    const Pass<Real>& pass;
    const Head<Real>& head;
    const Real* q;
    const Real* k;
    const Real* content;
    const Real* x;
};

/// Where a bias slot's backward pass adds: the head's gradient, dq and dk [n, d],
/// dcontent [n, n] (d loss / d (content_scale q_i . k_j), for a bias that reads the content),
/// and dx [n, d_in] (for a bias that reads the head's input); null for a positional family.
template <class Real>
struct BiasGradients {
    Head<Real>& head;
    Real* dq;
    Real* dk;
    Real* dcontent;
    Real* dx;
};

/// A family's training slots in one precision (Real: float for the JS API, double for the
/// native finite-difference checks). A null slot does nothing. (Plain function pointers, not
/// std::function: 13 families x 2 precisions of type-erased wrappers were 33 KB of .wasm, 7 KB gzip.)
template <class Real>
struct Slots {
    /// A head's learned position parameters (Head::pos) at the start, from `own` (the spec
    /// with its seed key set to seed + layer, or seed + layer x n_heads + head with several heads); d: the head's
    /// width (head_dim). Throws BadParam for a table too large to train.
    Vec<Real> (*init)(const Config& own, std::int64_t d) = nullptr;
    /// An absolute family's learned table P [max_length, d] at the start, drawn from rng after the
    /// other parameters; it is added to the token embeddings and trained.
    Vec<Real> (*table)(Random& rng, std::int64_t max_length, std::int64_t d) = nullptr;
    /// Fills what a pass over pass.n tokens of width pass.d precomputes.
    void (*prepare)(const Config&, Pass<Real>&) = nullptr;
    /// b(i, j) of one head; set for the families that act as a bias.
    HeadBias<Real> (*bias)(const Config&, const BiasInputs<Real>&) = nullptr;
    /// The backward pass of bias: given ds [n, n] = d loss / d b(i, j) (0 above the diagonal), adds to the gradients.
    void (*backward)(const Config&, const BiasInputs<Real>&, const HeadBias<Real>&, const Real* ds,
                     const BiasGradients<Real>&) = nullptr;
    /// Whether b(i, j) depends only on the pair and the head's parameters, never on q or k (ALiBi, T5, KERPLE,
    /// FIRE): then the sequences of a batch (all of one length) share it. bias is called once per head for the
    /// batch (null q, k and content) and backward once, with ds summed over the batch's sequences (null dq, dk
    /// and dcontent): b being the same in every sequence, the gradient of the sequences' summed loss through it is
    /// its backward pass at their summed ds.
    bool positional = false;
    /// A family that turns q and k by its head's own parameters: q or k (key) [n, d] of one sequence into out
    /// [n, pass.wide], the vectors whose dots (times content_scale) are the scores (PoPE, Acts::polar: 2d wide; FoPE:
    /// d, each pair turned by its head's Fourier series); and its backward pass: given dout [n, pass.wide], adds
    /// d loss / d x to dx [n, d] and the head's parameters' gradient to g.
    void (*widen)(const Pass<Real>&, const Head<Real>&, const Real* x, bool key, Real* out) = nullptr;
    void (*widen_backward)(const Pass<Real>&, const Head<Real>&, const Real* x, bool key, const Real* dout, Real* dx,
                           Head<Real>& g) = nullptr;
    /// Keeps a head's parameters in range after each optimiser step.
    void (*constrain)(const Config&, Vec<Real>& pos) = nullptr;
};

/// What a trained layer hands back: its learned parameters, and the learned table (absolute families).
struct Trained {
    const std::vector<double>& pos;
    const std::vector<double>& table;
    std::int64_t max_length;
};

/// A family's training: its slots in both precisions and what does not depend on one.
struct Training {
    /// Sets the spec as the model uses it at model width d (beyond the width key and causal, which every family gets).
    void (*size)(Config& spec, std::int64_t d) = nullptr;
    /// With several heads, sets the spec of head `head` of `heads` where the family's fixed bias depends on
    /// the head (ALiBi's slope); null: every head reads the same spec (its learned parameters are its own).
    void (*head)(Config& spec, std::int64_t head, std::int64_t heads) = nullptr;
    /// The spec key of Head::pos, as messages and the trained spec name it ("relative_attention_bias");
    /// the keys, comma-separated, when write splits the parameters ("r1, r2").
    std::string position_key;
    /// Writes the trained parameters into the spec under the family's own explicit keys; null: the
    /// layer's parameters as they are under position_key (when the family has one).
    void (*write)(Config& spec, const Trained&) = nullptr;
    /// The encoding's own work per (query, key) pair of one pass, forward and backward, in multiply-adds.
    double (*pair_work)(const Config&, double d) = nullptr;
    /// Whether the model multiplies the token embeddings by sqrt(d_model) before the family's table is added
    /// (Vaswani et al. 2017, section 3.4: sinusoidal, whose table rows have norm sqrt(d_model / 2) against the
    /// embeddings' 1 at the N(0, 1 / d_model) start); false: the embeddings as they are.
    bool scaled_embeddings = false;
    Slots<float> f;
    Slots<double> d;
};

/// The slots of both precisions of a family, from its template `make<Real>()`.
template <template <class> class Make>
Training training(Training shared) {
    shared.f = Make<float>::slots();
#ifndef __EMSCRIPTEN__
    // Float64 training exists for the native finite-difference checks; the JS API trains in float32,
    // so the wasm build leaves these slots out (referenced from each family's training, they would
    // stay in posenc.wasm: 8.5 KB of gzip).
    shared.d = Make<double>::slots();
#endif
    return shared;
}

/// The training `make` builds, built once on first use: a family's source file defines
/// `POSENC_COLD train::Training make_training()` and
/// `const train::Training& training() { return train::once<make_training>(); }`.
template <Training (*make)()>
const Training& once() {
    static const Training training = make();
    return training;
}

/// The training of `family` (its `<family>::training()`, for each family of family_list.hpp).
/// Throws std::logic_error for a descriptor that is not one of families().
const Training& training_of(const Family& family);

/// The slots of `training` for Real.
template <class Real>
const Slots<Real>& slots(const Training& training);
template <>
inline const Slots<float>& slots<float>(const Training& training) { return training.f; }
template <>
inline const Slots<double>& slots<double>(const Training& training) { return training.d; }

/// The slots of a family with nothing of its own in training (NoPE).
template <class Real>
struct Nothing {
    static Slots<Real> slots() { return {}; }
};

/// `count` draws of N(0, std^2) from rng.
template <class Real>
Vec<Real> normals(Random& rng, std::size_t count, Real std) {
    Vec<Real> out(count);
    for (Real& x : out) x = std * rng.normal();
    return out;
}

/// Refuses a table of `rows` x d numbers above 2^20 (8 MiB of float64, and the same again for each of
/// Adam's moments and the gradient), naming the key that set its rows.
void check_table(const std::string& key, const std::string& value, double rows, std::int64_t d);

/// Each (i, j) with j <= i of an [n, n] matrix set to f(i, j).
template <class Real, class F>
void each_pair(Vec<Real>& b, std::size_t n, F f) {
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j <= i; ++j) b[i * n + j] = f(i, j);
}

}  // namespace posenc::train
