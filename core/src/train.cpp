#include "posenc/train.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "posenc/budget.hpp"
#include "posenc/cope.hpp"
#include "posenc/deberta.hpp"
#include "posenc/fire.hpp"
#include "posenc/kerple.hpp"
#include "posenc/registry.hpp"
#include "posenc/rope.hpp"
#include "posenc/shaw.hpp"
#include "posenc/t5.hpp"
#include "posenc/transformer_xl.hpp"
#include "posenc/xpos.hpp"

namespace posenc::train {

namespace {

template <class Real>
using Vec = std::vector<Real>;

template <class Real>
Vec<Real> normals(Random& rng, std::size_t count, Real std) {
    Vec<Real> out(count);
    for (Real& x : out) x = std * rng.normal();
    return out;
}

const std::vector<std::pair<std::string, Kind>>& kinds() {
    static const std::vector<std::pair<std::string, Kind>> table = {
        {"none", Kind::none},   {"sinusoidal", Kind::sinusoidal}, {"learned", Kind::learned}, {"rope", Kind::rope},
        {"xpos", Kind::xpos},   {"alibi", Kind::alibi},           {"t5", Kind::t5},           {"shaw", Kind::shaw},
        {"transformer_xl", Kind::transformer_xl}, {"kerple", Kind::kerple}, {"deberta", Kind::deberta},
        {"fire", Kind::fire},   {"cope", Kind::cope}};
    return table;
}

/// The most numbers a layer's learned position table may hold: 2^20 (8 MiB of float64, and
/// the same again for each of Adam's moments and the gradient).
constexpr double kMaxTable = double(1 << 20);

/// Refuses a table of `rows` x d numbers above kMaxTable, naming the key that set its rows.
void check_table(const std::string& key, const std::string& value, double rows, std::int64_t d) {
    if (rows * double(d) > kMaxTable)
        throw_bad_param(key, value, "a table of at most 2^20 numbers to train: here " + format_number(rows) + " rows x d_model " +
                                        std::to_string(d));
}

Kind kind_of(const Config& encoding) {
    const std::string type = family_of(encoding).type;
    for (const auto& [name, kind] : kinds())
        if (name == type) return kind;
    throw_bad_param("encoding.type", '"' + type + '"', "a family train() knows");
}

/// The spec as the model uses it: its width key d, one head, causal (see Model::encoding).
Config sized(const Config& encoding, std::int64_t d) {
    const Family& family = family_of(encoding);
    Config out = encoding;
    if (!family.width_key.empty()) out.set(family.width_key, double(d));
    if (family.key("causal")) out.set("causal", true);
    if (family.type == "t5" || family.type == "fire") {
        out.set("n_heads", 1.0);
        out.set("head", 0.0);
    }
    if (family.type == "deberta") {
        out.set("hidden_size", double(d));
        out.set("norm_rel_ebd", std::string("none"));
    }
    return out;
}

/// The spec with its seed key set to `seed` (the draw of one layer's parameters).
Config seeded(const Config& encoding, std::uint64_t seed) {
    Config out = encoding;
    out.set("seed", double(seed));
    return out;
}

/// a [rows, inner] . b [inner, cols] into out [rows, cols].
template <class Real>
void matmul(const Real* a, const Real* b, Real* out, std::size_t rows, std::size_t inner, std::size_t cols) {
    std::fill(out, out + rows * cols, 0.0);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t p = 0; p < inner; ++p) {
            const Real x = a[r * inner + p];
            for (std::size_t c = 0; c < cols; ++c) out[r * cols + c] += x * b[p * cols + c];
        }
}

/// grad_b [inner, cols] += a^T [inner, rows] . g [rows, cols]; grad_a [rows, inner] += g . b^T.
template <class Real>
void matmul_backward(const Real* a, const Real* b, const Real* g, Real* grad_a, Real* grad_b, std::size_t rows,
                     std::size_t inner, std::size_t cols) {
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

/// A rotary encoding at n positions: per pair its two columns, and per position and pair the
/// cosine and sine of position * inv_freq, times the pair's gain there (RoPE: attention_factor;
/// xPos: zeta^(+t / scale_base) for queries, zeta^(-t / scale_base) for keys).
template <class Real>
struct Rotation {
    std::vector<std::size_t> a, b;  // [pairs]
    Vec<Real> cos, sin;                   // [n, pairs]
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

/// gain(t, p): the factor of pair p at position t.
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

/// What one pass shares between its layers: the rotations, and each (i, j)'s index or value
/// of the encoding (j <= i).
template <class Real>
struct Shared {
    Real content_scale = 1.0;      // of q . k
    bool rotary = false;
    Rotation<Real> rq, rk;                 // rotary: of the queries and of the keys
    Vec<Real> fixed;                       // alibi: b(i, j); fire: the MLP's input x(i, j); [n, n]
    std::vector<std::int32_t> index; // t5: the bucket; shaw: the row of a; deberta: idx(i, j); [n, n]
    Vec<Real> sinusoid;                    // transformer_xl: R_(i-j) for i - j = 0 .. n - 1, [n, d]
    std::size_t first = 0, rows = 0; // deberta: the rows of E the pass reaches
    std::size_t width = 0;           // fire: mlp_width; cope: npos_max
};

template <class Real>
Shared<Real> shared_of(const Model<Real>& m, std::size_t n) {
    const std::size_t d = std::size_t(m.d);
    Shared<Real> sh;
    sh.content_scale = Real(1.0 / std::sqrt(double(d)));
    switch (m.kind) {
    case Kind::rope: {
        const RotaryFrequencies f = rotary_frequencies(m.encoding, std::int64_t(n));
        const bool interleaved = rope::parse(m.encoding).layout == rope::Layout::interleaved;
        sh.rq = rotation<Real>(f.inv_freq, interleaved, n, [&](std::size_t, std::size_t) { return f.attention_factor; });
        sh.rk = sh.rq;
        sh.content_scale *= f.logit_scale;
        sh.rotary = true;
        break;
    }
    case Kind::xpos: {
        const xpos::Spec spec = xpos::parse(m.encoding);
        const std::vector<double> zeta = xpos::zeta(spec), w = xpos::inv_freq(spec);
        const bool interleaved = spec.layout == rope::Layout::interleaved;
        sh.rq = rotation<Real>(w, interleaved, n, [&](std::size_t t, std::size_t p) { return std::pow(zeta[p], double(t) / spec.scale_base); });
        sh.rk = rotation<Real>(w, interleaved, n, [&](std::size_t t, std::size_t p) { return std::pow(zeta[p], -double(t) / spec.scale_base); });
        sh.rotary = true;
        break;
    }
    case Kind::alibi: {
        const auto b = attention_bias(m.encoding, std::int64_t(n));
        sh.fixed.assign(b.data(), b.data() + n * n);
        break;
    }
    case Kind::t5: {
        const t5::Spec spec = t5::parse(m.encoding);
        sh.index.assign(n * n, 0);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j <= i; ++j)
                sh.index[i * n + j] = t5::relative_position_bucket(std::int64_t(j) - std::int64_t(i), spec.bidirectional,
                                                                   spec.num_buckets, spec.max_distance);
        break;
    }
    case Kind::shaw: {
        const std::int64_t K = shaw::parse(m.encoding).max_relative_position;
        sh.index.assign(n * n, 0);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j <= i; ++j) sh.index[i * n + j] = std::int32_t(K - std::min<std::int64_t>(std::int64_t(i - j), K));
        break;
    }
    case Kind::transformer_xl: {
        const transformer_xl::Spec spec = transformer_xl::parse(m.encoding);
        for (std::size_t r = 0; r < n; ++r) {
            const std::vector<double> R = transformer_xl::relative_sinusoid(spec, std::int64_t(r));
            sh.sinusoid.insert(sh.sinusoid.end(), R.begin(), R.end());
        }
        break;
    }
    case Kind::deberta: {
        const deberta::Spec spec = deberta::parse(m.encoding);
        sh.content_scale = Real(1.0 / std::sqrt(double(d) * double(spec.scale_factor())));
        const auto delta = deberta::relative_position(std::int64_t(n), std::int64_t(n), spec.position_buckets, spec.max_relative());
        const std::int64_t span = spec.span();
        sh.index.assign(n * n, 0);
        std::int64_t lo = 2 * span, hi = 0;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j <= i; ++j) {
                const std::int64_t idx = std::clamp<std::int64_t>(delta[i * n + j] + span, 0, 2 * span - 1);
                sh.index[i * n + j] = std::int32_t(idx);
                lo = std::min(lo, idx);
                hi = std::max(hi, idx);
            }
        sh.first = std::size_t(lo);
        sh.rows = std::size_t(hi - lo + 1);
        break;
    }
    case Kind::fire: {
        const fire::Spec spec = fire::parse(m.encoding);
        sh.width = std::size_t(spec.mlp_width);
        sh.fixed.assign(n * n, 0.0);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j <= i; ++j) sh.fixed[i * n + j] = fire::normalized_distance(spec, std::int64_t(i), std::int64_t(j));
        break;
    }
    case Kind::cope: sh.width = std::size_t(cope::parse(m.encoding).npos_max); break;
    default: break;
    }
    return sh;
}

/// KERPLE's kernel without its -r1: ln(1 + r2 r) or r^r2, evaluated in double and rounded once,
/// so float32 training is the same bit for bit with any C library (log1pf differs between them).
template <class Real>
Real kernel(Real r, Real r2, bool power) {
    return Real(power ? std::pow(double(r), double(r2)) : std::log1p(double(r2) * double(r)));
}

/// One layer's encoding term b(i, j) and what its backward pass needs.
template <class Real>
struct LayerBias {
    Vec<Real> b;                 // [n, n], j <= i
    Vec<Real> Kr, Qr;            // deberta: E W_k, E W_q of the rows the pass reaches, [rows, d]
    Vec<Real> gates, positions;  // cope: g_ij and p_ij before the clamp, [n, n]
    Vec<Real> qe;                // cope: q_i . e[m], [n, npos_max]
};

bool has_bias(Kind kind) {
    return kind == Kind::alibi || kind == Kind::t5 || kind == Kind::shaw || kind == Kind::transformer_xl ||
           kind == Kind::kerple || kind == Kind::deberta || kind == Kind::fire || kind == Kind::cope;
}

/// b(i, j) of one layer for queries q and keys k [n, d] as they enter q . k, and content [n, n]
/// their scaled products content_scale q_i . k_j (CoPE's gate logits).
template <class Real>
LayerBias<Real> bias_forward(const Model<Real>& m, const Shared<Real>& sh, const Layer<Real>& layer, const Vec<Real>& q,
                             const Vec<Real>& k, const Vec<Real>& content, std::size_t n) {
    const std::size_t d = std::size_t(m.d);
    const Vec<Real>& pos = layer.pos;
    LayerBias<Real> out;
    out.b.assign(n * n, 0.0);
    Vec<Real>& b = out.b;
    const auto each = [&](auto f) {
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j <= i; ++j) b[i * n + j] = f(i, j);
    };
    switch (m.kind) {
    case Kind::alibi: each([&](std::size_t i, std::size_t j) { return sh.fixed[i * n + j]; }); break;
    case Kind::t5: each([&](std::size_t i, std::size_t j) { return pos[std::size_t(sh.index[i * n + j])]; }); break;
    case Kind::shaw:
        each([&](std::size_t i, std::size_t j) { return dot(&q[i * d], &pos[std::size_t(sh.index[i * n + j]) * d], d); });
        break;
    case Kind::transformer_xl:  // (q_i + v) . R_(i-j)
        each([&](std::size_t i, std::size_t j) {
            const Real* R = &sh.sinusoid[(i - j) * d];
            return dot(&q[i * d], R, d) + dot(pos.data(), R, d);
        });
        break;
    case Kind::kerple: {
        const bool power = kerple::parse(m.encoding).variant == kerple::Variant::power;
        each([&](std::size_t i, std::size_t j) {
            const Real r = Real(i - j);
            return -pos[0] * kernel(r, pos[1], power);
        });
        break;
    }
    case Kind::fire: {
        const std::size_t W = sh.width;
        each([&](std::size_t i, std::size_t j) {
            const Real x = sh.fixed[i * n + j];
            Real f = pos[3 * W];
            for (std::size_t u = 0; u < W; ++u) f += pos[2 * W + u] * std::max(Real(0), pos[u] * x + pos[W + u]);
            return f;
        });
        break;
    }
    case Kind::deberta: {  // (q_i . K_r[idx] + k_j . Q_r[idx]) / sqrt(3 d)
        const Real* E = &pos[sh.first * d];
        out.Kr.resize(sh.rows * d);
        out.Qr.resize(sh.rows * d);
        matmul(E, layer.Wk.data(), out.Kr.data(), sh.rows, d, d);
        matmul(E, layer.Wq.data(), out.Qr.data(), sh.rows, d, d);
        each([&](std::size_t i, std::size_t j) {
            const std::size_t r = std::size_t(sh.index[i * n + j]) - sh.first;
            return sh.content_scale * (dot(&q[i * d], &out.Kr[r * d], d) + dot(&k[j * d], &out.Qr[r * d], d));
        });
        break;
    }
    case Kind::cope: {  // gates, their suffix sums, and q . e interpolated there
        const std::size_t P = sh.width;
        const Real top = Real(P - 1);
        out.gates.assign(n * n, 0.0);
        out.positions.assign(n * n, 0.0);
        out.qe.assign(n * P, 0.0);
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t e = 0; e < P; ++e) out.qe[i * P + e] = dot(&q[i * d], &pos[e * d], d);
            Real sum = 0;
            for (std::size_t j = i + 1; j-- > 0;) {
                const Real g = Real(1) / (Real(1) + std::exp(-content[i * n + j]));
                out.gates[i * n + j] = g;
                sum += g;
                out.positions[i * n + j] = sum;
                const Real p = std::min(sum, top), low = std::floor(p), w = p - low;
                b[i * n + j] = out.qe[i * P + std::size_t(std::ceil(p))] * w + out.qe[i * P + std::size_t(low)] * (Real(1) - w);
            }
        }
        break;
    }
    default: break;
    }
    return out;
}

/// The backward pass of bias_forward: given ds = d loss / d s_ij, adds to the layer's
/// gradients, to dq and dk, and (cope: its gates' logits) to dcontent, d loss / d (q_i . k_j).
template <class Real>
void bias_backward(const Model<Real>& m, const Shared<Real>& sh, const Layer<Real>& layer, const Vec<Real>& q, const Vec<Real>& k, std::size_t n,
                   const LayerBias<Real>& fw, const Vec<Real>& ds, Layer<Real>& g, Vec<Real>& dq, Vec<Real>& dk, Vec<Real>& dcontent) {
    const std::size_t d = std::size_t(m.d);
    const Vec<Real>& pos = layer.pos;
    switch (m.kind) {
    case Kind::t5:
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j <= i; ++j) g.pos[std::size_t(sh.index[i * n + j])] += ds[i * n + j];
        break;
    case Kind::shaw:
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j <= i; ++j) {
                const std::size_t row = std::size_t(sh.index[i * n + j]) * d;
                axpy(ds[i * n + j], &pos[row], &dq[i * d], d);
                axpy(ds[i * n + j], &q[i * d], &g.pos[row], d);
            }
        break;
    case Kind::transformer_xl:
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j <= i; ++j) {
                const Real* R = &sh.sinusoid[(i - j) * d];
                axpy(ds[i * n + j], R, &dq[i * d], d);
                axpy(ds[i * n + j], R, g.pos.data(), d);
            }
        break;
    case Kind::kerple: {
        const bool power = kerple::parse(m.encoding).variant == kerple::Variant::power;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < i; ++j) {  // the diagonal is 0 whatever r1, r2
                const Real r = Real(i - j), s = ds[i * n + j];
                if (power) {
                    const Real rp = kernel(r, pos[1], true);
                    g.pos[0] -= s * rp;
                    g.pos[1] -= s * pos[0] * rp * Real(std::log(double(r)));
                } else {
                    g.pos[0] -= s * kernel(r, pos[1], false);
                    g.pos[1] -= s * pos[0] * r / (Real(1) + pos[1] * r);
                }
            }
        break;
    }
    case Kind::fire: {
        const std::size_t W = sh.width;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j <= i; ++j) {
                const Real x = sh.fixed[i * n + j], s = ds[i * n + j];
                g.pos[3 * W] += s;
                for (std::size_t u = 0; u < W; ++u) {
                    const Real pre = pos[u] * x + pos[W + u];
                    if (pre <= 0) continue;
                    g.pos[2 * W + u] += s * pre;
                    g.pos[u] += s * pos[2 * W + u] * x;
                    g.pos[W + u] += s * pos[2 * W + u];
                }
            }
        break;
    }
    case Kind::deberta: {
        Vec<Real> dKr(sh.rows * d, 0.0), dQr(sh.rows * d, 0.0);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j <= i; ++j) {
                const std::size_t r = std::size_t(sh.index[i * n + j]) - sh.first;
                const Real s = ds[i * n + j] * sh.content_scale;
                axpy(s, &q[i * d], &dKr[r * d], d);
                axpy(s, &fw.Kr[r * d], &dq[i * d], d);
                axpy(s, &k[j * d], &dQr[r * d], d);
                axpy(s, &fw.Qr[r * d], &dk[j * d], d);
            }
        const Real* E = &pos[sh.first * d];
        Real* dE = &g.pos[sh.first * d];
        matmul_backward(E, layer.Wk.data(), dKr.data(), dE, g.Wk.data(), sh.rows, d, d);
        matmul_backward(E, layer.Wq.data(), dQr.data(), dE, g.Wq.data(), sh.rows, d, d);
        break;
    }
    case Kind::cope: {
        const std::size_t P = sh.width;
        const Real top = Real(P - 1);
        Vec<Real> dqe(P), dp(n);
        for (std::size_t i = 0; i < n; ++i) {
            std::fill(dqe.begin(), dqe.end(), 0.0);
            for (std::size_t j = 0; j <= i; ++j) {
                const Real raw = fw.positions[i * n + j], p = std::min(raw, top);
                const Real low = std::floor(p), high = std::ceil(p), w = p - low, s = ds[i * n + j];
                dqe[std::size_t(low)] += s * (Real(1) - w);
                dqe[std::size_t(high)] += s * w;
                dp[j] = raw < top ? s * (fw.qe[i * P + std::size_t(high)] - fw.qe[i * P + std::size_t(low)]) : Real(0);
            }
            // p_ij = sum over t = j .. i of g_it, so d loss / d g_it = sum over j <= t of dp_ij.
            Real prefix = 0;
            for (std::size_t t = 0; t <= i; ++t) {
                prefix += dp[t];
                const Real gate = fw.gates[i * n + t];
                dcontent[i * n + t] += prefix * gate * (Real(1) - gate);
            }
            for (std::size_t e = 0; e < P; ++e) {
                axpy(dqe[e], &pos[e * d], &dq[i * d], d);
                axpy(dqe[e], &q[i * d], &g.pos[e * d], d);
            }
        }
        break;
    }
    default: break;
    }
}

template <class Real>
void zero_like(Params<Real>& g, const Params<Real>& p) {
    g.layers.resize(p.layers.size());
    auto to = groups(g);
    auto from = groups(const_cast<Params<Real>&>(p));
    for (std::size_t k = 0; k < to.size(); ++k) to[k].second->assign(from[k].second->size(), 0.0);
}

/// One layer's values in the forward pass, kept for the backward pass.
template <class Real>
struct Cache {
    Vec<Real> in, q, k, v, a;  // in [n, d] (the layer's x), q and k as they enter q . k, v, weights [n, n]
    LayerBias<Real> bias;
};

}  // namespace

template <class Real>
std::vector<std::pair<std::string, std::vector<Real>*>> groups(Params<Real>& params) {
    std::vector<std::pair<std::string, std::vector<Real>*>> out = {{"E", &params.E}};
    for (std::size_t l = 0; l < params.layers.size(); ++l) {
        const std::string at = "layer" + std::to_string(l) + ".";
        Layer<Real>& layer = params.layers[l];
        out.insert(out.end(), {{at + "Wq", &layer.Wq}, {at + "Wk", &layer.Wk}, {at + "Wv", &layer.Wv}, {at + "pos", &layer.pos}});
    }
    out.insert(out.end(), {{"Wout", &params.Wout}, {"c", &params.c}, {"P", &params.P}});
    return out;
}

std::string position_key(Kind kind) {
    switch (kind) {
    case Kind::t5: return "relative_attention_bias";
    case Kind::shaw: return "relative_key";
    case Kind::transformer_xl: return "r_r_bias";
    case Kind::kerple: return "r1, r2";
    case Kind::fire: return "linear1_weight, linear1_bias, linear2_weight, linear2_bias";
    case Kind::deberta: return "rel_embeddings";
    case Kind::cope: return "pos_emb";
    default: return "";
    }
}

Task task_of(const std::string& name) {
    if (name == "copy") return Task::copy;
    if (name == "induction") return Task::induction;
    if (name == "first_marker") return Task::first_marker;
    throw_bad_param("task", '"' + name + '"', "one of \"copy\", \"induction\", \"first_marker\"");
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

template <class Real>
Model<Real> make_model(const Config& encoding, std::int64_t vocab, std::int64_t d, std::int64_t classes,
                 std::int64_t max_length, std::uint64_t seed, std::int64_t layers) {
    if (layers < 1 || layers > 2) throw_bad_param("layers", std::to_string(layers), "1 or 2");
    Model<Real> m;
    m.vocab = vocab;
    m.d = d;
    m.classes = classes;
    m.max_length = max_length;
    m.encoding = sized(encoding, d);
    m.kind = kind_of(m.encoding);
    Random rng(seed);
    const Real std = Real(1.0 / std::sqrt(double(d)));
    Params<Real>& p = m.params;
    p.E = normals(rng, std::size_t(vocab * d), std);
    p.layers.resize(std::size_t(layers));
    for (std::size_t l = 0; l < p.layers.size(); ++l) {
        Layer<Real>& layer = p.layers[l];
        layer.Wq = normals(rng, std::size_t(d * d), std);
        layer.Wk = normals(rng, std::size_t(d * d), std);
        layer.Wv = normals(rng, std::size_t(d * d), std);
        const Config own = family_of(m.encoding).key("seed") ? seeded(m.encoding, seed + l) : m.encoding;
        switch (m.kind) {
        case Kind::t5: layer.pos.assign(std::size_t(t5::parse(own).num_buckets), 0.0); break;
        case Kind::shaw: {
            const shaw::Spec spec = shaw::parse(own);
            check_table("encoding.max_relative_position", std::to_string(spec.max_relative_position), double(2 * spec.max_relative_position + 1), d);
            const auto a = shaw::embeddings(spec);
            layer.pos.assign(a.begin(), a.end());
            break;
        }
        case Kind::transformer_xl: {
            const std::vector<double> v = transformer_xl::v(transformer_xl::parse(own));
            layer.pos.assign(v.begin(), v.end());
            break;
        }
        case Kind::kerple: {
            const kerple::Spec spec = kerple::parse(own);
            layer.pos = {Real(spec.r1), Real(spec.r2)};
            break;
        }
        case Kind::fire: {
            const fire::HeadMlp mlp = fire::head_mlp(fire::parse(own));
            layer.pos.assign(mlp.w1.begin(), mlp.w1.end());
            layer.pos.insert(layer.pos.end(), mlp.b1.begin(), mlp.b1.end());
            layer.pos.insert(layer.pos.end(), mlp.w2.begin(), mlp.w2.end());
            layer.pos.push_back(Real(mlp.b2));
            break;
        }
        case Kind::deberta: {
            const deberta::Spec spec = deberta::parse(own);
            check_table(spec.position_buckets > 0 ? "encoding.position_buckets" : "encoding.max_relative_positions",
                        std::to_string(spec.position_buckets > 0 ? spec.position_buckets : spec.max_relative()), double(2 * spec.span()), d);
            const auto E = deberta::relative_embeddings(spec, 0, 2 * spec.span());
            layer.pos.assign(E.begin(), E.end());
            break;
        }
        case Kind::cope: {
            const std::int64_t rows = cope::parse(own).npos_max;
            check_table("encoding.npos_max", std::to_string(rows), double(rows), d);
            layer.pos.assign(std::size_t(rows * d), 0.0);
            break;
        }
        default: break;
        }
    }
    p.Wout = normals(rng, std::size_t(d * classes), std);
    p.c.assign(std::size_t(classes), 0.0);
    if (m.kind == Kind::learned) p.P = normals(rng, std::size_t(max_length * d), Real(0.02));
    return m;
}

template <class Real>
Config trained_spec(const Model<Real>& model, std::size_t layer) {
    Config out = model.encoding;
    const Vec<Real>& pos = model.params.layers.at(layer).pos;
    switch (model.kind) {
    case Kind::learned:
        out.set("max_position_embeddings", double(model.max_length));
        out.set("weight", std::vector<double>(model.params.P.begin(), model.params.P.end()));
        break;
    case Kind::kerple:
        out.set("r1", double(pos[0]));
        out.set("r2", double(pos[1]));
        break;
    case Kind::fire: {
        const std::size_t W = (pos.size() - 1) / 3;
        const auto part = [&](std::size_t from, std::size_t to) {
            return std::vector<double>(pos.begin() + std::ptrdiff_t(from), pos.begin() + std::ptrdiff_t(to));
        };
        out.set("linear1_weight", part(0, W));
        out.set("linear1_bias", part(W, 2 * W));
        out.set("linear2_weight", part(2 * W, 3 * W));
        out.set("linear2_bias", part(3 * W, 3 * W + 1));
        break;
    }
    case Kind::t5: case Kind::shaw: case Kind::transformer_xl: case Kind::deberta: case Kind::cope:
        out.set(position_key(model.kind), std::vector<double>(pos.begin(), pos.end()));
        break;
    default: break;
    }
    return out;
}

template <class Real>
Evaluation loss_and_grad(const Model<Real>& model, const Example& example, Params<Real>* grad, std::vector<std::vector<Real>>* weights) {
    const std::size_t n = example.tokens.size(), d = std::size_t(model.d), C = std::size_t(model.classes);
    if (n < 1 || std::int64_t(n) > model.max_length)
        throw_bad_param("length", std::to_string(n), "an integer in [1, " + std::to_string(model.max_length) + "]");
    const Params<Real>& p = model.params;
    // Forward.
    Vec<Real> x(n * d);
    for (std::size_t t = 0; t < n; ++t)
        std::copy_n(p.E.begin() + std::ptrdiff_t(std::size_t(example.tokens[t]) * d), d, x.begin() + std::ptrdiff_t(t * d));
    if (model.kind == Kind::sinusoidal) {
        const auto table = position_table(model.encoding, std::int64_t(n));
        for (std::size_t k = 0; k < n * d; ++k) x[k] += Real(table.data()[k]);
    } else if (model.kind == Kind::learned) {
        for (std::size_t k = 0; k < n * d; ++k) x[k] += p.P[k];
    }
    const Shared<Real> sh = shared_of(model, n);
    const bool biased = has_bias(model.kind);
    std::vector<Cache<Real>> caches(p.layers.size());
    Vec<Real> h = x;
    for (std::size_t l = 0; l < p.layers.size(); ++l) {
        const Layer<Real>& layer = p.layers[l];
        Cache<Real>& cache = caches[l];
        cache.in = h;
        cache.q.resize(n * d);
        cache.k.resize(n * d);
        cache.v.resize(n * d);
        matmul(cache.in.data(), layer.Wq.data(), cache.q.data(), n, d, d);
        matmul(cache.in.data(), layer.Wk.data(), cache.k.data(), n, d, d);
        matmul(cache.in.data(), layer.Wv.data(), cache.v.data(), n, d, d);
        if (sh.rotary) {
            sh.rq.apply(cache.q.data(), n, d, false);
            sh.rk.apply(cache.k.data(), n, d, false);
        }
        Vec<Real>& a = cache.a;  // the content scores, then the scores, then the weights; 0 above the diagonal
        a.assign(n * n, 0.0);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j <= i; ++j) a[i * n + j] = sh.content_scale * dot(&cache.q[i * d], &cache.k[j * d], d);
        if (biased) cache.bias = bias_forward(model, sh, layer, cache.q, cache.k, a, n);
        for (std::size_t i = 0; i < n; ++i) {
            Real top = -HUGE_VAL;
            for (std::size_t j = 0; j <= i; ++j) {
                if (biased) a[i * n + j] += cache.bias.b[i * n + j];
                top = std::max(top, a[i * n + j]);
            }
            Real sum = 0;
            for (std::size_t j = 0; j <= i; ++j) sum += (a[i * n + j] = std::exp(a[i * n + j] - top));
            for (std::size_t j = 0; j <= i; ++j) a[i * n + j] /= sum;
        }
        for (std::size_t i = 0; i < n; ++i)  // the residual: h = in + attention output
            for (std::size_t j = 0; j <= i; ++j) axpy(a[i * n + j], &cache.v[j * d], &h[i * d], d);
        if (weights) weights->push_back(a);
    }
    Vec<Real> z(n * C);
    matmul(h.data(), p.Wout.data(), z.data(), n, d, C);
    Evaluation result;
    Vec<Real> dz(n * C, 0.0);
    for (std::size_t t = 0; t < n; ++t)
        if (example.targets[t] >= 0) ++result.targets;
    for (std::size_t t = 0; t < n; ++t) {
        const int y = example.targets[t];
        if (y < 0) continue;
        Real top = -HUGE_VAL;
        std::size_t best = 0;
        for (std::size_t c = 0; c < C; ++c) {
            z[t * C + c] += p.c[c];
            if (z[t * C + c] > top) top = z[t * C + c], best = c;
        }
        Real sum = 0;
        for (std::size_t c = 0; c < C; ++c) sum += std::exp(z[t * C + c] - top);
        result.loss += (top + std::log(sum) - z[t * C + std::size_t(y)]) / Real(result.targets);
        result.correct += best == std::size_t(y);
        for (std::size_t c = 0; c < C; ++c)
            dz[t * C + c] = (std::exp(z[t * C + c] - top) / sum - (c == std::size_t(y) ? Real(1) : Real(0))) / Real(result.targets);
    }
    if (!grad || result.targets == 0) return result;

    // Backward.
    if (grad->E.size() != p.E.size() || grad->layers.size() != p.layers.size()) zero_like(*grad, p);
    Vec<Real> dh(n * d, 0.0);
    matmul_backward(h.data(), p.Wout.data(), dz.data(), dh.data(), grad->Wout.data(), n, d, C);
    for (std::size_t t = 0; t < n; ++t)
        for (std::size_t c = 0; c < C; ++c) grad->c[c] += dz[t * C + c];
    Vec<Real> du = dh;  // the gradient of the current layer's output
    for (std::size_t l = p.layers.size(); l-- > 0;) {
        const Layer<Real>& layer = p.layers[l];
        Layer<Real>& g = grad->layers[l];
        const Cache<Real>& cache = caches[l];
        const Vec<Real>& a = cache.a;
        Vec<Real> din = du, dq(n * d, 0.0), dk(n * d, 0.0), dv(n * d, 0.0);  // the residual passes du to the input
        Vec<Real> ds(n * n, 0.0);  // d loss / d s_ij
        for (std::size_t i = 0; i < n; ++i) {
            Real weighted = 0;
            for (std::size_t j = 0; j <= i; ++j) {
                ds[i * n + j] = dot(&du[i * d], &cache.v[j * d], d);
                axpy(a[i * n + j], &du[i * d], &dv[j * d], d);
                weighted += a[i * n + j] * ds[i * n + j];
            }
            for (std::size_t j = 0; j <= i; ++j) ds[i * n + j] = a[i * n + j] * (ds[i * n + j] - weighted);  // the softmax's Jacobian
        }
        Vec<Real> dcontent = ds;  // d loss / d (scale q_i . k_j)
        if (biased) bias_backward(model, sh, layer, cache.q, cache.k, n, cache.bias, ds, g, dq, dk, dcontent);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j <= i; ++j) {
                const Real s = dcontent[i * n + j] * sh.content_scale;
                axpy(s, &cache.k[j * d], &dq[i * d], d);
                axpy(s, &cache.q[i * d], &dk[j * d], d);
            }
        if (sh.rotary) {  // q = R q0: dq0 = R^T dq
            sh.rq.apply(dq.data(), n, d, true);
            sh.rk.apply(dk.data(), n, d, true);
        }
        matmul_backward(cache.in.data(), layer.Wq.data(), dq.data(), din.data(), g.Wq.data(), n, d, d);
        matmul_backward(cache.in.data(), layer.Wk.data(), dk.data(), din.data(), g.Wk.data(), n, d, d);
        matmul_backward(cache.in.data(), layer.Wv.data(), dv.data(), din.data(), g.Wv.data(), n, d, d);
        du = std::move(din);
    }
    const Vec<Real>& dx = du;
    for (std::size_t t = 0; t < n; ++t)
        for (std::size_t c = 0; c < d; ++c) {
            grad->E[std::size_t(example.tokens[t]) * d + c] += dx[t * d + c];
            if (model.kind == Kind::learned) grad->P[t * d + c] += dx[t * d + c];
        }
    return result;
}

template <class Real>
void constrain(Model<Real>& model) {
    if (model.kind != Kind::kerple) return;
    const bool power = kerple::parse(model.encoding).variant == kerple::Variant::power;
    for (Layer<Real>& layer : model.params.layers) {
        layer.pos[0] = std::max(layer.pos[0], Real(1e-3));
        layer.pos[1] = std::clamp(layer.pos[1], Real(1e-3), power ? Real(2) : std::numeric_limits<Real>::max());
    }
}

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

Request parse_request(const Config& config) {
    const SpecReader read(config, "train request",
                          {"task", "encoding", "eval_encoding", "layers", "d_model", "vocab", "train_length", "steps", "seed",
                           "eval_lengths", "eval_examples", "lr", "recalibration_steps"});
    Request r;
    r.task = task_of(read.choice("task", "copy", {"copy", "induction", "first_marker"}));
    if (const Config* encoding = read.object("encoding")) r.encoding = *encoding;
    else r.encoding = Config{{"type", std::string("none")}};
    if (const Config* eval = read.object("eval_encoding")) r.eval_encoding = *eval;
    r.layers = read.integer("layers", 1, 1, 2);
    r.d_model = read.integer("d_model", r.d_model, 2, 256);
    r.vocab = read.integer("vocab", r.vocab, 2, 1024);
    r.train_length = read.integer("train_length", r.train_length, 2, 1024);
    r.steps = read.integer("steps", r.steps, 1, 100000);
    r.recalibration_steps = read.integer("recalibration_steps", 0, 0, 100000);
    r.seed = read.integer("seed", 0, 0, kMaxSeed);
    r.eval_examples = read.integer("eval_examples", r.eval_examples, 1, 1024);
    r.lr = read.number("lr", r.lr, 1e-6, 1.0, "a number in [1e-6, 1]");
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
    // The work: each step's (and each evaluated example's) forward and backward passes, about
    // 8 n d^2 multiply-adds (projections, read-out) and, per (query, key) pair, 6 d (scores,
    // weights . v, their gradients) + 80 (the exp, the softmax's bookkeeping) + the encoding's own
    // (deberta 9 d for c2p, p2c and their gradients; cope 2 d + 50 for its gates and interpolation;
    // fire 8 mlp_width; shaw 4 d; transformer_xl 6 d; 80 for a log per pair: t5's and deberta's
    // buckets, fire's psi), 8 to a budget operation. Measured in wasm
    // on this machine (README "Limits"): about 0.5 ns per multiply-add and 40 ns of the 80 per
    // pair, so the budget's 3e8 operations are about 1.2 s.
    const double d = double(r.d_model);
    const Config encoding = sized(r.encoding, r.d_model);
    const Kind kind = kind_of(encoding);
    const double own = kind == Kind::deberta ? 9 * d + 80  // + its log bucket per pair
                       : kind == Kind::cope  ? 2 * d + 50
                       : kind == Kind::fire  ? 8 * double(fire::parse(encoding).mlp_width) + 80  // + two log1p per pair
                       : kind == Kind::t5    ? 80  // its log bucket per pair
                       : kind == Kind::shaw  ? 4 * d
                       : kind == Kind::transformer_xl ? 6 * d
                                             : 0.0;
    const auto pass = [&](double n) { return (8 * n * d * double(std::max(r.d_model, r.vocab)) + n * n * (6 * d + 80 + own)) / 8; };
    // Per step besides the passes: drawing the example, the gradient's buffers, and Adam over every
    // parameter (a sqrt and a division each: about 3 operations), measured: about 4000 operations
    // of overhead at toy sizes (d_model 4: 78432 steps took 2 s when only the passes were counted).
    const double longest_length = double(std::max(r.train_length, *std::max_element(r.eval_lengths.begin(), r.eval_lengths.end())));
    const double classes = r.task == Task::first_marker ? longest_length : double(r.vocab);
    const double parameters = d * (double(r.vocab) + 3 * double(r.layers) * d + classes + (kind == Kind::learned ? longest_length : 0.0));
    r.step_work = double(r.layers) * pass(double(r.train_length)) + 4000 + 3 * parameters;
    for (const std::int64_t n : r.eval_lengths)
        r.evaluation_work += double(r.eval_examples) * double(r.layers) * pass(double(n)) / 2;  // forward only
    // A request is refused when one step, or the evaluation, is above the budget of one call;
    // its steps are counted by run() (one call) or by each Trainer::step (a chunk).
    budget::check_work("train", "train_length",
                       budget::Factors{{1, "step"}, {double(r.layers), "layers"}, {pass(double(r.train_length)), "operations per layer"}}, 0);
    budget::check_work("train", "eval_lengths", budget::Factors{{1, "evaluation"}, {r.evaluation_work, "operations"}}, 0);
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
    return make_model<Real>(r.encoding, r.vocab, r.d_model, classes, longest(r), std::uint64_t(r.seed), r.layers);
}

}  // namespace

template <class Real>
Trainer<Real>::Trainer(Request request) : request_(std::move(request)), model_(model_of<Real>(request_)), rng_(std::uint64_t(request_.seed)) {
    adam_.lr = request_.lr;
    loss_.reserve(std::size_t(total()));
}

template <class Real>
std::int64_t Trainer<Real>::step(std::int64_t count) {
    count = std::min(count, total() - done_);
    budget::check_work("trainerStep", "count", budget::Factors{{double(count), "steps"}, {request_.step_work, "operations per step"}}, 0);
    for (std::int64_t k = 0; k < count && done_ < total(); ++k, ++done_) {
        if (done_ == request_.steps) {  // DroPE: the encoding is dropped, the rest recalibrates without it
            model_.encoding = sized(Config{{"type", std::string("none")}}, request_.d_model);
            model_.kind = Kind::none;
            model_.params.P.clear();
            for (Layer<Real>& layer : model_.params.layers) layer.pos.clear();
            adam_ = Adam<Real>{};  // fresh moments for the parameters that remain
            adam_.lr = request_.lr;
        }
        Params<Real> grad;
        const Evaluation e = loss_and_grad(model_, make_example(request_.task, request_.vocab, request_.train_length, rng_), &grad);
        loss_.push_back(e.loss);
        if (e.targets > 0) {
            adam_.update(model_.params, grad);
            constrain(model_);
        }
    }
    return done_;
}

template <class Real>
Result<Real> Trainer<Real>::finish() {
    while (done_ < total()) step(std::max<std::int64_t>(1, std::int64_t(budget::kMaxOperations / std::max(1.0, request_.step_work))));
    Result<Real> result;
    result.loss = loss_;
    result.model = model_;
    Model<Real>& evaluated = result.model;
    if (!request_.eval_encoding.entries().empty()) {
        const Config eval = sized(request_.eval_encoding, request_.d_model);
        if (family_of(eval).type != family_of(evaluated.encoding).type)
            throw_bad_param("eval_encoding.type", '"' + family_of(eval).type + '"',
                            "the trained encoding's family, \"" + family_of(evaluated.encoding).type + "\"");
        evaluated.encoding = eval;
    }
    for (const std::int64_t n : request_.eval_lengths) {
        Random eval_rng(std::uint64_t(request_.seed) + 1 + std::uint64_t(n) * 0x9E3779B97F4A7C15ull);
        EvalPoint point;
        point.length = n;
        std::int64_t correct = 0, targets = 0;
        for (std::int64_t k = 0; k < request_.eval_examples; ++k) {
            const Evaluation e = loss_and_grad<Real>(evaluated, make_example(request_.task, request_.vocab, n, eval_rng), nullptr);
            correct += e.correct;
            targets += e.targets;
            point.loss += e.loss / double(request_.eval_examples);
        }
        point.accuracy = targets ? double(correct) / double(targets) : 0.0;
        result.eval.push_back(point);
    }
    for (const std::int64_t n : {request_.train_length, std::min(4 * request_.train_length, evaluated.max_length)}) {
        Random map_rng(std::uint64_t(request_.seed) + 2 + std::uint64_t(n) * 0x9E3779B97F4A7C15ull);
        AttentionMap<Real> map;
        map.length = n;
        map.example = make_example(request_.task, request_.vocab, n, map_rng);
        loss_and_grad<Real>(evaluated, map.example, nullptr, &map.weights);
        result.maps.push_back(std::move(map));
    }
    return result;
}

template <class Real>
Result<Real> run(const Request& request) {
    const double steps = double(request.steps + request.recalibration_steps);
    budget::check_work("train", "steps", {{{steps, "steps"}, {request.step_work, "operations per step"}},
                                           {{1, "evaluation"}, {request.evaluation_work, "operations"}}},
                       8.0 * steps);
    return Trainer<Real>(request).finish();
}

#define POSENC_TRAIN_INSTANTIATE(Real)                                                                                     \
    template std::vector<std::pair<std::string, std::vector<Real>*>> groups(Params<Real>&);                              \
    template Model<Real> make_model(const Config&, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::uint64_t, \
                                    std::int64_t);                                                                        \
    template Config trained_spec(const Model<Real>&, std::size_t);                                                        \
    template Evaluation loss_and_grad(const Model<Real>&, const Example&, Params<Real>*, std::vector<std::vector<Real>>*); \
    template void constrain(Model<Real>&);                                                                                \
    template struct Adam<Real>;                                                                                           \
    template class Trainer<Real>;                                                                                         \
    template Result<Real> run(const Request&);
POSENC_TRAIN_INSTANTIATE(float)
POSENC_TRAIN_INSTANTIATE(double)
#undef POSENC_TRAIN_INSTANTIATE

}  // namespace posenc::train
