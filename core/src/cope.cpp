#include "posenc/cope.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "posenc/bias.hpp"
#include "posenc/random.hpp"
#include "posenc/train.hpp"
#include "posenc/train_slots.hpp"

namespace posenc::cope {

namespace {

constexpr double kMaxEmbedding = 1e4;  // |e| entries: q . e stays far inside float32
constexpr std::uint64_t kStandInStream = 0xC09E0001ull;
constexpr std::int64_t kBlockRows = 32;  // rows a tile computes at once (the fused kernel's query block)

/// One row's three maps: gates, positions and bias over keys 0 .. n - 1.
struct Row {
    std::vector<float> gates, positions, bias;
};

/// q . e[m] for m = 0 .. npos_max - 1: the logits at integer positions, for the query q [head_dim].
std::vector<double> position_logits(const Spec& spec, const xt::xtensor<float, 2>& e, const float* q) {
    std::vector<double> qe(std::size_t(spec.npos_max), 0.0);
    for (std::int64_t m = 0; m < spec.npos_max; ++m)
        for (std::int64_t c = 0; c < spec.head_dim; ++c) qe[std::size_t(m)] += double(q[c]) * double(e(std::size_t(m), std::size_t(c)));
    return qe;
}

/// The CoPE term at the fractional position p (already clamped): the logits at floor p and
/// ceil p, interpolated (x-transformers: logits_ceil * w + logits_floor * (1 - w), w = p - floor p).
double interpolate(const std::vector<double>& qe, double p) {
    const double low = std::floor(p), w = p - low;
    return qe[std::size_t(std::ceil(p))] * w + qe[std::size_t(low)] * (1.0 - w);
}

/// Row i of the maps (keys past `last` left 0): the gates of keys 0 .. last, their
/// suffix sums clamped at npos_max - 1, and the interpolated q_i . e.
void compute_row(const Spec& spec, const xt::xtensor<float, 2>& e, const float* q, const float* k, std::int64_t n,
                 double scale, std::int64_t i, float* gates, float* positions, float* bias) {
    const std::int64_t d = spec.head_dim, last = spec.causal ? i : n - 1;
    const float* qi = q + i * d;
    std::vector<double> g(std::size_t(last + 1));
    for (std::int64_t j = 0; j <= last; ++j) {
        double s = 0;
        for (std::int64_t c = 0; c < d; ++c) s += double(qi[c]) * double(k[j * d + c]);
        g[std::size_t(j)] = 1.0 / (1.0 + std::exp(-s * scale));
    }
    const std::vector<double> qe = position_logits(spec, e, qi);
    const double top = double(spec.npos_max - 1);
    double sum = 0;
    for (std::int64_t j = last; j >= 0; --j) {  // x-transformers: gates.flip(-1).cumsum(-1).flip(-1)
        sum += g[std::size_t(j)];
        const double p = std::min(sum, top), b = interpolate(qe, p);
        if (!(std::abs(b) <= double(std::numeric_limits<float>::max())))
            throw_bad_param("q", "numbers up to " + format_magnitude(kernels::max_abs(qi, std::size_t(d))) + " in magnitude (query " +
                                     std::to_string(i) + ")",
                            "queries whose CoPE term q . e stays within float32 (3.4e38); here it reaches " + format_magnitude(b));
        gates[j] = float(g[std::size_t(j)]);
        positions[j] = float(p);
        bias[j] = float(b);
    }
    for (std::int64_t j = last + 1; j < n; ++j) gates[j] = positions[j] = bias[j] = 0.0f;
}

/// A part of the maps, a block of kBlockRows rows computed when a tile first needs them.
class CopeTile final : public kernels::BiasTile {
public:
    CopeTile(const Spec& spec, const float* q, const float* k, std::int64_t n, double scale, Part part)
        : spec_(spec), e_(embeddings(spec)), q_(q, q + n * spec.head_dim), k_(k, k + n * spec.head_dim), n_(n),
          scale_(scale), part_(part) {}
    void add(std::int64_t i0, std::int64_t rows, std::int64_t j0, std::int64_t cols, float* s,
             std::size_t ld) const override {
        for (std::int64_t r = 0; r < rows; ++r) {
            const float* row = row_of(i0 + r);
            float* out = s + std::size_t(r) * ld;
            for (std::int64_t c = 0; c < cols; ++c) out[c] += row[j0 + c];
        }
    }

private:
    const float* row_of(std::int64_t i) const {
        if (i < first_ || i >= first_ + count_) {
            first_ = i;
            count_ = std::min(kBlockRows, n_ - i);
            const std::size_t size = std::size_t(count_ * n_);
            gates_.assign(size, 0.0f);
            positions_.assign(size, 0.0f);
            bias_.assign(size, 0.0f);
            for (std::int64_t r = 0; r < count_; ++r) {
                const std::size_t at = std::size_t(r * n_);
                compute_row(spec_, e_, q_.data(), k_.data(), n_, scale_, first_ + r, gates_.data() + at,
                            positions_.data() + at, bias_.data() + at);
            }
        }
        const std::vector<float>& part = part_ == Part::bias ? bias_ : part_ == Part::gates ? gates_ : positions_;
        return part.data() + std::size_t((i - first_) * n_);
    }

    Spec spec_;
    xt::xtensor<float, 2> e_;
    std::vector<float> q_, k_;  // copies: the tile outlives the caller's q and k in the page's head
    std::int64_t n_;
    double scale_;
    Part part_;
    mutable std::int64_t first_ = -1, count_ = 0;
    mutable std::vector<float> gates_, positions_, bias_;
};

/// The gates' dots, the suffix sums and interpolation, and q . e per row. A gate's dot
/// runs at about 8 multiply-adds per budget operation (measured: cope() at n 1980, d_head
/// 64 takes 0.19 s in wasm, 0.76 ns per multiply-add; core/README.md "Limits").
std::vector<budget::Factors> maps_work(const Spec& spec, std::int64_t n) {
    return {{{double(n), "queries"}, {double(n), "keys"},
             {double(spec.head_dim) / 8 + budget::kTrig, "operations per gate (a dot of head_dim / 8, an exp)"}},
            {{double(n), "queries"}, {double(spec.npos_max), "positions"}, {double(spec.head_dim), "dimensions"}}};
}

/// u ~ N(0, 1) [head_dim], the stand-in head's one query and key.
std::vector<float> stand_in(const Spec& spec) {
    Random rng(spec.seed ^ kStandInStream);
    std::vector<float> u(std::size_t(spec.head_dim));
    for (float& x : u) x = float(rng.normal());
    return u;
}

/// Training: pos_emb [npos_max, d], from zeros as both references start it; the gates read the
/// layer's content scores, so the bias's backward pass also reaches q . k.
template <class Real>
struct Train {
    static train::Slots<Real> slots() {
        train::Slots<Real> s;
        s.init = [](const Config& own, std::int64_t d) {
            const std::int64_t rows = parse(own).npos_max;
            train::check_table("encoding.npos_max", std::to_string(rows), double(rows), d);
            return train::Vec<Real>(std::size_t(rows * d), Real(0));
        };
        s.prepare = [](const Config& c, train::Pass<Real>& pass) { pass.width = std::size_t(parse(c).npos_max); };
        s.bias = [](const Config&, const train::BiasInputs<Real>& in) {  // gates, their suffix sums, and q . e interpolated there
            const std::size_t n = in.pass.n, d = in.pass.d, P = in.pass.width;
            const Real top = Real(P - 1);
            const train::Vec<Real>& pos = in.head.pos;
            train::HeadBias<Real> out;
            out.b.assign(n * n, Real(0));
            out.saved = {train::Vec<Real>(n * n, Real(0)), train::Vec<Real>(n * n, Real(0)), train::Vec<Real>(n * P, Real(0))};
            train::Vec<Real>&gates = out.saved[0], &positions = out.saved[1], &qe = out.saved[2];
            for (std::size_t i = 0; i < n; ++i) {
                for (std::size_t e = 0; e < P; ++e) qe[i * P + e] = train::dot(&in.q[i * d], &pos[e * d], d);
                Real sum = 0;
                for (std::size_t j = i + 1; j-- > 0;) {
                    const Real g = Real(1) / (Real(1) + std::exp(-in.content[i * n + j]));
                    gates[i * n + j] = g;
                    sum += g;
                    positions[i * n + j] = sum;
                    const Real p = std::min(sum, top), low = std::floor(p), w = p - low;
                    out.b[i * n + j] = qe[i * P + std::size_t(std::ceil(p))] * w + qe[i * P + std::size_t(low)] * (Real(1) - w);
                }
            }
            return out;
        };
        s.backward = [](const Config&, const train::BiasInputs<Real>& in, const train::HeadBias<Real>& fw, const Real* ds,
                        const train::BiasGradients<Real>& g) {
            const std::size_t n = in.pass.n, d = in.pass.d, P = in.pass.width;
            const Real top = Real(P - 1);
            const train::Vec<Real>& pos = in.head.pos;
            const train::Vec<Real>&gates = fw.saved[0], &positions = fw.saved[1], &qe = fw.saved[2];
            train::Vec<Real> dqe(P), dp(n);
            for (std::size_t i = 0; i < n; ++i) {
                std::fill(dqe.begin(), dqe.end(), Real(0));
                for (std::size_t j = 0; j <= i; ++j) {
                    const Real raw = positions[i * n + j], p = std::min(raw, top);
                    const Real low = std::floor(p), high = std::ceil(p), w = p - low, s_ = ds[i * n + j];
                    dqe[std::size_t(low)] += s_ * (Real(1) - w);
                    dqe[std::size_t(high)] += s_ * w;
                    dp[j] = raw < top ? s_ * (qe[i * P + std::size_t(high)] - qe[i * P + std::size_t(low)]) : Real(0);
                }
                // p_ij = sum over t = j .. i of g_it, so d loss / d g_it = sum over j <= t of dp_ij.
                Real prefix = 0;
                for (std::size_t t = 0; t <= i; ++t) {
                    prefix += dp[t];
                    const Real gate = gates[i * n + t];
                    g.dcontent[i * n + t] += prefix * gate * (Real(1) - gate);
                }
                for (std::size_t e = 0; e < P; ++e) {
                    train::axpy(dqe[e], &pos[e * d], &g.dq[i * d], d);
                    train::axpy(dqe[e], &in.q[i * d], &g.head.pos[e * d], d);
                }
            }
        };
        return s;
    }
};

POSENC_COLD Family make_family() {
    Family f("cope", Acts::bias, "head_dim",
             "CoPE: positions counted by gates on the content, so a query can attend to the i-th sentence or noun",
             "Golovneva et al. 2024, \"Contextual Position Encoding\", eq. 3-5; x-transformers' CoPE",
             {Key::integer("head_dim", 64, 1, kMaxWidth), Key::integer("npos_max", 16, 1, kMaxWidth),
              Key::list("pos_emb", Value{}, -kMaxEmbedding, kMaxEmbedding, "numbers in [-1e4, 1e4], npos_max x head_dim of them"),
              Key::integer("seed", 0, 0, kMaxSeed), Key::boolean("causal", true)});
    f.bias = [](const Config& c, std::int64_t n) { return bias(parse(c), n); };
    f.head_bias = [](const Config& c, const HeadInputs& in) {
        const Spec spec = parse(with_head_width(c, "head_dim", in.width));
        check_head_width("head_dim", spec.head_dim, in.width);
        const double scale = 1.0 / std::sqrt(double(spec.head_dim));
        HeadBias out;
        out.causal = spec.causal;
        out.tile = bias_tile(spec, in.q, in.k, in.n, scale, Part::bias);
        out.parts.emplace_back("gates", bias_tile(spec, in.q, in.k, in.n, scale, Part::gates));
        out.parts.emplace_back("positions", bias_tile(spec, in.q, in.k, in.n, scale, Part::positions));
        return out;
    };
    f.decay = [](const Config& c, std::int64_t max_distance, std::uint64_t) {
        // The stand-in head, a key m tokens before the query: p = g (m + 1).
        const Spec spec = parse(c);
        const std::vector<float> u = stand_in(spec);
        double uu = 0;
        for (const float x : u) uu += double(x) * double(x);
        const double g = 1.0 / (1.0 + std::exp(-uu / std::sqrt(double(spec.head_dim))));
        const std::vector<double> qe = position_logits(spec, embeddings(spec), u.data());
        const double top = double(spec.npos_max - 1);
        return curve("bias", max_distance, [&](std::int64_t m) { return interpolate(qe, std::min(g * double(m + 1), top)); });
    };
    f.decay_work = [](const Config& c, std::int64_t max_distance) {
        const Spec spec = parse(c);
        return std::vector<budget::Factors>{{{double(spec.npos_max), "positions"}, {double(spec.head_dim), "dimensions"}},
                                            {{double(max_distance + 1), "distances"}, {4, "operations per distance"}}};
    };
    f.bias_work = [](const Config& c, std::int64_t n) { return maps_work(parse(c), n); };
    return f;
}

/// What the family does in train() (posenc/train_slots.hpp).
POSENC_COLD train::Training make_training() {
    train::Training t;
    t.position_key = "pos_emb";
    t.pair_work = [](const Config&, double d) { return 2 * d + 50; };
    return train::training<Train>(std::move(t));
}

}  // namespace

const Family& family() { return once<make_family>(); }

const train::Training& training() { return train::once<make_training>(); }

Spec parse(const Config& config) {
    const SpecReader read(config, family());
    Spec spec;
    spec.head_dim = read.integer("head_dim");
    spec.npos_max = read.integer("npos_max");
    spec.seed = std::uint64_t(read.integer("seed"));
    spec.causal = read.boolean("causal");
    spec.pos_emb = read.tensor("pos_emb", "a number in [-1e4, 1e4]", {{"npos_max", spec.npos_max}, {"head_dim", spec.head_dim}});
    return spec;
}

xt::xtensor<float, 2> embeddings(const Spec& spec) {
    xt::xtensor<float, 2> e = xt::empty<float>({std::size_t(spec.npos_max), std::size_t(spec.head_dim)});
    if (!spec.pos_emb.empty()) {
        std::copy(spec.pos_emb.begin(), spec.pos_emb.end(), e.data());
        return e;
    }
    Random rng(spec.seed);
    const double std = 1.0 / std::sqrt(double(spec.head_dim));
    for (float& x : e) x = float(std * rng.normal());
    return e;
}

Maps maps(const Spec& spec, const float* q, const float* k, std::int64_t n, double scale) {
    const std::size_t size = std::size_t(n);
    Maps out{xt::zeros<float>({size, size}), xt::zeros<float>({size, size}), xt::zeros<float>({size, size})};
    const auto e = embeddings(spec);
    for (std::int64_t i = 0; i < n; ++i) {
        const std::size_t at = std::size_t(i) * size;
        compute_row(spec, e, q, k, n, scale, i, out.gates.data() + at, out.positions.data() + at, out.bias.data() + at);
    }
    if (spec.causal) bias::mask_causal(out.bias);
    return out;
}

Maps run(const Config& request, Floats q, Floats k, Floats pos_emb) {
    const SpecReader read(request, "cope request", {"n", "d_head", "npos_max", "causal"});
    Spec spec;
    const std::int64_t n = read.required_integer("n", 1, bias::kMaxN);
    spec.head_dim = read.required_integer("d_head", 1, kMaxWidth);
    spec.npos_max = read.required_integer("npos_max", 1, kMaxWidth);
    spec.causal = read.boolean("causal", true);
    check_length("q", q, n * spec.head_dim, "n * d_head");
    check_length("k", k, n * spec.head_dim, "n * d_head");
    check_length("pos_emb", pos_emb, spec.npos_max * spec.head_dim, "npos_max * d_head");
    budget::check_work("cope", "n", maps_work(spec, n), 3.0 * 4.0 * double(n) * double(n));
    spec.pos_emb.assign(pos_emb.data, pos_emb.data + pos_emb.length);
    return maps(spec, q.data, k.data, n, 1.0 / std::sqrt(double(spec.head_dim)));
}

std::unique_ptr<kernels::BiasTile> bias_tile(const Spec& spec, const float* q, const float* k, std::int64_t n,
                                             double scale, Part part) {
    return std::make_unique<CopeTile>(spec, q, k, n, scale, part);
}

xt::xtensor<float, 2> bias(const Spec& spec, std::int64_t n) {
    bias::check_n(n);
    const std::vector<float> u = stand_in(spec);
    std::vector<float> same(std::size_t(n * spec.head_dim));
    for (std::int64_t i = 0; i < n; ++i) std::copy(u.begin(), u.end(), same.begin() + i * spec.head_dim);
    return maps(spec, same.data(), same.data(), n, 1.0 / std::sqrt(double(spec.head_dim))).bias;
}

Formula formula() { return {R"(b(i,j) = q_i\cdot e[p_{ij}],\ p_{ij} = \sum_{t=j}^{i}\sigma(q_i\cdot k_t/\sqrt{d})\ \text{(interpolated)})", "added unscaled, as x-transformers does; the bias shown is a stand-in head’s, every q and k one drawn u"}; }

}  // namespace posenc::cope
