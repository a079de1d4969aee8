#include "posenc/fox.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "posenc/bias.hpp"
#include "posenc/random.hpp"
#include "posenc/train.hpp"
#include "posenc/train_slots.hpp"

namespace posenc::fox {

namespace {

constexpr double kMaxGate = 1e4;  // |w| entries and |b|: a gate logit far inside float32
constexpr std::uint64_t kStandInStream = 0xF0C5E47E0001ull;
constexpr double kInitStd = 0.02;  // the reference's initializer_range (fgate_proj's weight); its bias starts at 0

/// |w|: the spread of the gate logit w . x over x ~ N(0, I).
double spread(const Spec& spec) {
    double norm2 = 0;
    for (const float v : gate_weight(spec)) norm2 += double(v) * double(v);
    return std::sqrt(norm2);
}

/// c [n], c_t = the sum of log sigmoid(z_s) over s <= t, for the gate logits z_t = logit(t).
template <class Logit>
std::vector<double> cumulate(std::int64_t n, Logit logit) {
    std::vector<double> c(static_cast<std::size_t>(n));
    double sum = 0;
    for (std::size_t t = 0; t < c.size(); ++t) c[t] = sum += log_sigmoid(logit(t));
    return c;
}

/// b(i, j) = -|c_i - c_j|: c_i - c_j for j <= i (c never increases: every log gate is <= 0), the
/// same decay over the tokens between them for j > i (seen only without the causal mask).
class GateTile final : public kernels::BiasTile {
public:
    explicit GateTile(std::vector<double> c) : c_(std::move(c)) {}
    void add(std::int64_t i0, std::int64_t rows, std::int64_t j0, std::int64_t cols, float* s,
             std::size_t ld) const override {
        for (std::int64_t r = 0; r < rows; ++r) {
            const double ci = c_[std::size_t(i0 + r)];
            float* out = s + std::size_t(r) * ld;
            for (std::int64_t c = 0; c < cols; ++c) out[c] += float(-std::abs(ci - c_[std::size_t(j0 + c)]));
        }
    }

private:
    std::vector<double> c_;
};

/// The gate logits (the head's: a dot of hidden_size; the stand-in sentence's: a draw) and a log-sigmoid per token,
/// then a subtraction per pair.
std::vector<budget::Factors> bias_work_of(const Spec& spec, std::int64_t n) {
    return {{{double(n), "tokens"},
             {double(spec.hidden_size) + budget::kDraw + budget::kTrig, "operations per gate (a dot of hidden_size or a draw, a log)"}},
            {{double(n), "queries"}, {double(n), "keys"}}};
}

/// Training: this head's gate, pos = [w (hidden_size), b], from the reference's start. The bias reads the
/// head's input x (the layer's normalised hidden state), so its backward pass adds to dx as well.
/// The log gates are computed in float64 and rounded once, so float32 training is the same float natively
/// (glibc) and in wasm (musl).
template <class Real>
struct Train {
    static train::Slots<Real> slots() {
        train::Slots<Real> s;
        s.init = [](const Config& own, std::int64_t) {
            const Spec spec = parse(own);
            Random rng(spec.seed);
            train::Vec<Real> pos = train::normals(rng, std::size_t(spec.hidden_size), Real(kInitStd));
            pos.push_back(Real(0));
            return pos;
        };
        s.bias = [](const Config&, const train::BiasInputs<Real>& in) {  // b(i, j) = c_i - c_j; saved: 1 - f_t
            const std::size_t n = in.pass.n, d = in.pass.d_in;
            const train::Vec<Real>& pos = in.head.pos;
            train::HeadBias<Real> out;
            out.b.assign(n * n, Real(0));
            out.saved = {train::Vec<Real>(n, Real(0))};
            train::Vec<Real> c(n);
            Real sum = 0;
            for (std::size_t t = 0; t < n; ++t) {
                const double z = double(train::dot(&in.x[t * d], pos.data(), d) + pos[d]);
                sum += Real(log_sigmoid(z));
                c[t] = sum;
                out.saved[0][t] = Real(1.0 / (1.0 + std::exp(z)));  // d log sigmoid(z) / dz = sigmoid(-z)
            }
            train::each_pair(out.b, n, [&](std::size_t i, std::size_t j) { return c[i] - c[j]; });
            return out;
        };
        s.backward = [](const Config&, const train::BiasInputs<Real>& in, const train::HeadBias<Real>& fw, const Real* ds,
                        const train::BiasGradients<Real>& g) {
            const std::size_t n = in.pass.n, d = in.pass.d_in;
            const train::Vec<Real>& pos = in.head.pos;
            // dc_t = sum over j <= t of ds_tj - sum over i >= t of ds_it; dz_l = sigmoid(-z_l) sum over t >= l of dc_t.
            train::Vec<Real> dc(n, Real(0));
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j <= i; ++j) {
                    dc[i] += ds[i * n + j];
                    dc[j] -= ds[i * n + j];
                }
            Real suffix = 0;
            for (std::size_t l = n; l-- > 0;) {
                suffix += dc[l];
                const Real dz = suffix * fw.saved[0][l];
                train::axpy(dz, &in.x[l * d], g.head.pos.data(), d);
                g.head.pos[d] += dz;
                train::axpy(dz, pos.data(), &g.dx[l * d], d);
            }
        };
        return s;
    }
};

POSENC_COLD Family make_family() {
    Family f("fox", Acts::bias, "",
             "Forgetting Attention (FoX): a forget gate on each token decays the keys behind it; no position embedding",
             "Lin et al. 2025 (arXiv 2503.02130), \"Forgetting Transformer: Softmax Attention with a Forget Gate\", eq. 3-6; "
             "github.com/zhixuan-lin/forgetting-transformer (ForgettingAttentionLayer, fgate_type \"full\")",
             {Key::integer("hidden_size", 64, 1, kMaxWidth),
              Key::list("fgate_weight", Value{}, -kMaxGate, kMaxGate, "numbers in [-1e4, 1e4], hidden_size of them"),
              Key::number("fgate_bias", 3.0, -kMaxGate, kMaxGate, "a number in [-1e4, 1e4]"),
              Key::integer("seed", 0, 0, kMaxSeed), Key::boolean("causal", true)});
    f.bias = [](const Config& c, std::int64_t n) { return bias(parse(c), n); };
    f.head_bias = [](const Config& c, const HeadInputs& in) {
        const Spec spec = parse(c);
        check_head_width("hidden_size", spec.hidden_size, in.d_model);
        HeadBias out;
        out.causal = spec.causal;
        out.tile = bias_tile(cumulative_log_gates(spec, in.x, in.n));
        return out;
    };
    f.decay = [](const Config& c, std::int64_t max_distance, std::uint64_t) {
        // "bias": the mean over random tokens, m E[log f]; "stand_in": the last query of the stand-in sentence.
        const Spec spec = parse(c);
        const double mean = mean_log_gate(spec);
        const std::vector<double> cs = stand_in(spec, max_distance + 1);
        Curves out = curve("bias", max_distance, [&](std::int64_t m) { return double(m) * mean; });
        out.emplace_back(curve("stand_in", max_distance, [&](std::int64_t m) {
                             return cs[std::size_t(max_distance)] - cs[std::size_t(max_distance - m)];
                         }).front());
        return out;
    };
    f.decay_work = [](const Config& c, std::int64_t max_distance) {
        const Spec spec = parse(c);
        return std::vector<budget::Factors>{{{2001, "quadrature points"}, {budget::kTrig, "operations per point"}},
                                            {{double(spec.hidden_size), "gate weights"}, {budget::kDraw, "operations per draw"}},
                                            {{double(max_distance + 1), "tokens"}, {budget::kDraw + budget::kTrig, "operations per token (a draw, a log)"}}};
    };
    f.bias_work = [](const Config& c, std::int64_t n) { return bias_work_of(parse(c), n); };
    return f;
}

/// What the family does in train() (posenc/train_slots.hpp).
POSENC_COLD train::Training make_training() {
    train::Training t;
    t.size = [](Config& spec, std::int64_t d) { spec["hidden_size"] = double(d); };  // the gate reads the model's width
    t.position_key = "fgate_weight, fgate_bias";
    t.write = [](Config& spec, const train::Trained& trained) {
        spec["fgate_weight"] = std::vector<double>(trained.pos.begin(), trained.pos.end() - 1);
        spec["fgate_bias"] = trained.pos.back();
    };
    t.pair_work = [](const Config&, double) { return 4.0; };
    return train::training<Train>(std::move(t));
}

}  // namespace

const Family& family() { return once<make_family>(); }

const train::Training& training() { return train::once<make_training>(); }

Spec parse(const Config& config) {
    const SpecReader read(config, family());
    Spec spec;
    spec.hidden_size = read.integer("hidden_size");
    spec.fgate_bias = read.number("fgate_bias");
    spec.seed = std::uint64_t(read.integer("seed"));
    spec.causal = read.boolean("causal");
    spec.fgate_weight = read.tensor("fgate_weight", "a number in [-1e4, 1e4]", {{"hidden_size", spec.hidden_size}});
    return spec;
}

std::vector<float> gate_weight(const Spec& spec) {
    if (!spec.fgate_weight.empty()) return spec.fgate_weight;
    Random rng(spec.seed);
    const double std = kDrawStd / std::sqrt(double(spec.hidden_size));
    std::vector<float> w(std::size_t(spec.hidden_size));
    for (float& x : w) x = float(std * rng.normal());
    return w;
}

double log_sigmoid(double z) {
    // log sigmoid(z) = -log(1 + e^-z) = min(z, 0) - log1p(e^-|z|)
    return std::min(z, 0.0) - std::log1p(std::exp(-std::abs(z)));
}

std::vector<double> cumulative_log_gates(const Spec& spec, const float* x, std::int64_t n) {
    const std::vector<float> w = gate_weight(spec);
    const std::size_t d = std::size_t(spec.hidden_size);
    return cumulate(n, [&](std::size_t t) {
        double z = spec.fgate_bias;
        for (std::size_t k = 0; k < d; ++k) z += double(w[k]) * double(x[t * d + k]);
        return z;
    });
}

std::unique_ptr<kernels::BiasTile> bias_tile(std::vector<double> c) { return std::make_unique<GateTile>(std::move(c)); }

std::vector<double> stand_in(const Spec& spec, std::int64_t n) {
    const double sd = spread(spec);
    // w . x_t for x_t ~ N(0, I) is N(0, |w|^2): token t's draw, the same at every n.
    return cumulate(n, [&](std::size_t t) { return spec.fgate_bias + sd * Random::at(spec.seed ^ kStandInStream, t).normal(); });
}

xt::xtensor<float, 2> bias(const Spec& spec, std::int64_t n) {
    bias::check_n(n);
    const auto tile = bias_tile(stand_in(spec, n));
    xt::xtensor<float, 2> out = xt::zeros<float>({std::size_t(n), std::size_t(n)});
    tile->add(0, n, 0, n, out.data(), std::size_t(n));
    if (spec.causal) bias::mask_causal(out);
    return out;
}

double mean_log_gate(const Spec& spec) {
    const double sd = spread(spec);
    if (sd == 0) return log_sigmoid(spec.fgate_bias);
    // Simpson's rule for the integral of log sigmoid(b + sd u) phi(u) du over u in [-10, 10].
    constexpr int kIntervals = 2000;
    const double h = 20.0 / kIntervals, norm = 1.0 / std::sqrt(2 * M_PI);
    double sum = 0;
    for (int k = 0; k <= kIntervals; ++k) {
        const double u = -10.0 + h * k, weight = (k == 0 || k == kIntervals) ? 1 : (k % 2 ? 4 : 2);
        sum += weight * log_sigmoid(spec.fgate_bias + sd * u) * norm * std::exp(-0.5 * u * u);
    }
    return sum * h / 3;
}

Formula formula() { return {R"(b(i,j) = \sum_{l=j+1}^{i}\log f_l,\ f_l = \sigma(w\cdot x_l + b))", "causal; no position embedding: the gates read each token x_l, so the decay depends on the text; the bias shown is a stand-in sentence of random tokens"}; }

}  // namespace posenc::fox
