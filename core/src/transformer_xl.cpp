#include "posenc/transformer_xl.hpp"

#include <cmath>
#include <string>

#include "posenc/bias.hpp"
#include "posenc/random.hpp"
#include "posenc/train.hpp"
#include "posenc/train_slots.hpp"

namespace posenc::transformer_xl {

namespace {

constexpr double kMaxBias = 1e4;  // |u|, |v| entries: (q + v) . R stays far inside float32

/// Training: v (r_r_bias) [d], in (q_i + v) . R_(i-j); u meets only content and is not trained.
template <class Real>
struct Train {
    static train::Slots<Real> slots() {
        train::Slots<Real> s;
        s.init = [](const Config& own, std::int64_t) {
            const std::vector<double> v_ = v(parse(own));
            return train::Vec<Real>(v_.begin(), v_.end());
        };
        s.prepare = [](const Config& c, train::Pass<Real>& pass) {
            const Spec spec = parse(c);
            for (std::size_t r = 0; r < pass.n; ++r) {
                const std::vector<double> R = relative_sinusoid(spec, std::int64_t(r));
                pass.rows.insert(pass.rows.end(), R.begin(), R.end());
            }
        };
        s.bias = [](const Config&, const train::BiasInputs<Real>& in) {
            const std::size_t n = in.pass.n, d = in.pass.d;
            train::HeadBias<Real> out;
            out.b.assign(n * n, Real(0));
            train::each_pair(out.b, n, [&](std::size_t i, std::size_t j) {  // (q_i + v) . R_(i-j)
                const Real* R = &in.pass.rows[(i - j) * d];
                return train::dot(&in.q[i * d], R, d) + train::dot(in.head.pos.data(), R, d);
            });
            return out;
        };
        s.backward = [](const Config&, const train::BiasInputs<Real>& in, const train::HeadBias<Real>&, const Real* ds,
                        const train::BiasGradients<Real>& g) {
            const std::size_t n = in.pass.n, d = in.pass.d;
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j <= i; ++j) {
                    const Real* R = &in.pass.rows[(i - j) * d];
                    train::axpy(ds[i * n + j], R, &g.dq[i * d], d);
                    train::axpy(ds[i * n + j], R, g.head.pos.data(), d);
                }
        };
        return s;
    }
};

POSENC_COLD Family make_family() {
    Family f("transformer_xl", Acts::bias, "d_head",
             "Transformer-XL: (q_i + v) . R_(i-j), a sinusoid of the distance, added to the logits",
             "Dai et al. 2019, \"Transformer-XL\", section 3.3; as kimiyoung/transformer-xl",
             {Key::integer("d_head", 64, 2, 4096, "an even integer in [2, 4096]"), Key::integer("seed", 0, 0, kMaxSeed),
              Key::boolean("causal", true),
              Key::list("r_w_bias", Value{}, -kMaxBias, kMaxBias, "numbers in [-1e4, 1e4], d_head of them"),
              Key::list("r_r_bias", Value{}, -kMaxBias, kMaxBias, "numbers in [-1e4, 1e4], d_head of them")});
    f.bias = [](const Config& c, std::int64_t n) { return bias(parse(c), n); };
    f.head_bias = [](const Config& c, const HeadInputs& in) {
        const float* q = in.q;
        const std::int64_t n = in.n, width = in.width;
        const Spec spec = parse(with_head_width(c, "d_head", width));
        check_head_width("d_head", spec.d_head, width);
        HeadBias out;
        relative_factors(spec, q, n, out.q_extra, out.k_extra);
        out.extra_width = spec.d_head;
        out.causal = spec.causal;
        return out;
    };
    f.decay = [](const Config& c, std::int64_t max_distance, std::uint64_t) {
        const Spec spec = parse(c);
        const std::vector<double> vv = v(spec);
        return curve("bias", max_distance, [&](std::int64_t m) {  // q = ones, i - j = m
            const std::vector<double> R = relative_sinusoid(spec, m);
            double sum = 0;
            for (std::size_t k = 0; k < R.size(); ++k) sum += (1.0 + vv[k]) * R[k];
            return sum;
        });
    };
    // relative_sinusoid: an exp, a sine and a cosine per pair.
    f.decay_work = [](const Config& c, std::int64_t max_distance) {
        return std::vector<budget::Factors>{{{double(max_distance + 1), "distances"},
                                             {double(parse(c).d_head / 2), "pairs"},
                                             {3 * budget::kTrig, "operations per pair (exp, sin, cos)"}}};
    };
    f.bias_work = [](const Config& c, std::int64_t n) {
        const double d = double(parse(c).d_head);
        return std::vector<budget::Factors>{
            {{double(2 * n - 1), "relative positions"}, {d / 2, "pairs"}, {3 * budget::kTrig, "operations per pair"}},
            {{double(n), "rows"}, {double(n), "columns"}, {d, "dimensions"}}};
    };
    return f;
}

/// What the family does in train() (posenc/train_slots.hpp).
POSENC_COLD train::Training make_training() {
    train::Training t;
    t.position_key = "r_r_bias";
    t.pair_work = [](const Config&, double d) { return 6 * d; };
    return train::training<Train>(std::move(t));
}

}  // namespace

const Family& family() { return once<make_family>(); }

const train::Training& training() { return train::once<make_training>(); }

Spec parse(const Config& config) {
    const SpecReader read(config, family());
    Spec spec;
    spec.d_head = read.integer("d_head");
    if (spec.d_head % 2 != 0) throw_bad_param("d_head", std::to_string(spec.d_head), family().key("d_head")->allowed);
    spec.seed = std::uint64_t(read.integer("seed"));
    spec.causal = read.boolean("causal");
    spec.r_w_bias = read.tensor("r_w_bias", "a number in [-1e4, 1e4]", {{"d_head", spec.d_head}});
    spec.r_r_bias = read.tensor("r_r_bias", "a number in [-1e4, 1e4]", {{"d_head", spec.d_head}});
    return spec;
}

/// w_c = 10000^(-2c / d_head), c < d_head / 2: the reference pos_emb's frequencies.
static std::vector<double> inv_freq(const Spec& spec) {
    std::vector<double> w(static_cast<std::size_t>(spec.d_head / 2));
    for (std::size_t c = 0; c < w.size(); ++c) w[c] = std::exp(-double(2 * c) / double(spec.d_head) * std::log(10000.0));
    return w;
}

std::vector<double> relative_sinusoid(const Spec& spec, std::int64_t r) {
    const std::int64_t half = spec.d_head / 2;
    const std::vector<double> w = inv_freq(spec);
    std::vector<double> out(static_cast<std::size_t>(spec.d_head));
    for (std::int64_t c = 0; c < half; ++c) {
        const double angle = double(r) * w[std::size_t(c)];
        out[std::size_t(c)] = std::sin(angle);
        out[std::size_t(c + half)] = std::cos(angle);
    }
    return out;
}

/// `given` when the spec gives it, else the which-th [d_head] block of draws.
static std::vector<double> given_or_drawn(const Spec& spec, const std::vector<float>& given, std::uint64_t which) {
    if (!given.empty()) return std::vector<double>(given.begin(), given.end());
    std::vector<double> out(static_cast<std::size_t>(spec.d_head));
    Random rng = Random::at(spec.seed, which * std::uint64_t(spec.d_head));
    const double scale = 1.0 / std::sqrt(double(spec.d_head));
    for (double& x : out) x = scale * rng.normal();
    return out;
}

std::vector<double> u(const Spec& spec) { return given_or_drawn(spec, spec.r_w_bias, 0); }
std::vector<double> v(const Spec& spec) { return given_or_drawn(spec, spec.r_r_bias, 1); }

xt::xtensor<float, 2> bias(const Spec& spec, const xt::xtensor<float, 2>& q) {
    bias::check_queries(q, spec.d_head, "d_head");
    const std::int64_t n = std::int64_t(q.shape()[0]), d = spec.d_head;
    const std::vector<double> vv = v(spec);
    std::vector<std::vector<double>> R(std::size_t(2 * n - 1));  // R_(i-j) for i - j in [-(n-1), n-1]
    for (std::int64_t r = -(n - 1); r <= n - 1; ++r) R[std::size_t(r + n - 1)] = relative_sinusoid(spec, r);
    xt::xtensor<float, 2> b = xt::empty<float>({std::size_t(n), std::size_t(n)});
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            const std::vector<double>& rel = R[std::size_t(i - j + n - 1)];
            double s = 0;
            for (std::int64_t c = 0; c < d; ++c) s += (double(q(i, c)) + vv[std::size_t(c)]) * rel[std::size_t(c)];
            b(i, j) = float(s);
        }
    if (spec.causal) bias::mask_causal(b);
    return b;
}

void relative_factors(const Spec& spec, const float* q, std::int64_t n, std::vector<float>& q_extra,
                      std::vector<float>& k_extra) {
    const std::int64_t d = spec.d_head, half = d / 2;
    const std::vector<double> vv = v(spec);
    const std::vector<double> w = inv_freq(spec);
    q_extra.assign(std::size_t(n * d), 0.0f);
    k_extra.assign(std::size_t(n * d), 0.0f);
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t c = 0; c < half; ++c) {
            const double angle = double(i) * w[std::size_t(c)];
            const double s = std::sin(angle), co = std::cos(angle);
            const double a = double(q[i * d + c]) + vv[std::size_t(c)];
            const double b = double(q[i * d + half + c]) + vv[std::size_t(half + c)];
            q_extra[std::size_t(i * d + c)] = float(a * s + b * co);
            q_extra[std::size_t(i * d + half + c)] = float(b * s - a * co);
            k_extra[std::size_t(i * d + c)] = float(co);
            k_extra[std::size_t(i * d + half + c)] = float(s);
        }
}

xt::xtensor<float, 2> bias(const Spec& spec, std::int64_t n) {
    return bias(spec, bias::ones_queries(n, spec.d_head));
}

Formula formula() { return {R"(A_{ij} = \underbrace{q_i^{\top}k_j}_{(a)} + \underbrace{q_i^{\top}W_RR_{i-j}}_{(b)} + \underbrace{u^{\top}k_j}_{(c)} + \underbrace{v^{\top}W_RR_{i-j}}_{(d)})", "the bias shown is (b) + (d) for q_i = (1, …, 1), W_R = I"}; }

}  // namespace posenc::transformer_xl
