#include "posenc/fire.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "posenc/alibi.hpp"
#include "posenc/bias.hpp"
#include "posenc/random.hpp"
#include "posenc/train.hpp"
#include "posenc/train_slots.hpp"

namespace posenc::fire {

namespace {

// The ranges keep every output finite in float32 (3.4e38), causal or not. For j <= i
// the MLP's input x is in [0, 1]. Without the mask, a query below L sees keys up to
// n - 1 <= 8191 tokens away: x <= psi(8191) / (psi(L) + eps) < 23 / 1e-12 (|c| <= 1e6,
// L = 0, eps >= 1e-12). Then each hidden unit is below 1e6 * 2.3e13 + 1e6 < 2.4e19
// (|weights| <= 1e6) and the output below 1024 units * 1e6 * 2.4e19 + 1e6 < 2.5e28.
// The threshold's psi stays small: |L_multiplier * init_L| <= 1e6 * 2^40, psi < 56.
/// Training: the whole MLP [linear1_weight (W), linear1_bias (W), linear2_weight (W), linear2_bias (1)]
/// of one head, at each pair's normalised distance x(i, j) (c and L fixed).
template <class Real>
struct Train {
    static train::Slots<Real> slots() {
        train::Slots<Real> s;
        s.positional = true;
        s.init = [](const Config& own, std::int64_t) {
            const HeadMlp mlp = head_mlp(parse(own));
            train::Vec<Real> pos(mlp.w1.begin(), mlp.w1.end());
            pos.insert(pos.end(), mlp.b1.begin(), mlp.b1.end());
            pos.insert(pos.end(), mlp.w2.begin(), mlp.w2.end());
            pos.push_back(Real(mlp.b2));
            return pos;
        };
        s.prepare = [](const Config& c, train::Pass<Real>& pass) {
            const Spec spec = parse(c);
            const std::size_t n = pass.n;
            pass.width = std::size_t(spec.mlp_width);
            pass.fixed.assign(n * n, Real(0));
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j <= i; ++j) pass.fixed[i * n + j] = normalized_distance(spec, std::int64_t(i), std::int64_t(j));
        };
        s.bias = [](const Config&, const train::BiasInputs<Real>& in) {
            const std::size_t n = in.pass.n, W = in.pass.width;
            const train::Vec<Real>& pos = in.head.pos;
            train::HeadBias<Real> out;
            out.b.assign(n * n, Real(0));
            train::each_pair(out.b, n, [&](std::size_t i, std::size_t j) {
                const Real x = in.pass.fixed[i * n + j];
                Real f = pos[3 * W];
                for (std::size_t u = 0; u < W; ++u) f += pos[2 * W + u] * std::max(Real(0), pos[u] * x + pos[W + u]);
                return f;
            });
            return out;
        };
        s.backward = [](const Config&, const train::BiasInputs<Real>& in, const train::HeadBias<Real>&, const Real* ds,
                        const train::BiasGradients<Real>& g) {
            const std::size_t n = in.pass.n, W = in.pass.width;
            const train::Vec<Real>& pos = in.head.pos;
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j <= i; ++j) {
                    const Real x = in.pass.fixed[i * n + j], s_ = ds[i * n + j];
                    g.head.pos[3 * W] += s_;
                    for (std::size_t u = 0; u < W; ++u) {
                        const Real pre = pos[u] * x + pos[W + u];
                        if (pre <= 0) continue;
                        g.head.pos[2 * W + u] += s_ * pre;
                        g.head.pos[u] += s_ * pos[2 * W + u] * x;
                        g.head.pos[W + u] += s_ * pos[2 * W + u];
                    }
                }
        };
        return s;
    }
};

// The work of the bias and decay slots. Setup: the head's 3W + 1 parameters, the (W + 1) segments of W units each.
budget::Factors setup(const Spec& spec) {
    return budget::Factors{{double(spec.mlp_width + 1), "segments"}, {double(spec.mlp_width + 1), "operations per segment"}};
}
/// A segment search per distance: log2(W + 1) + 2 operations.
double lookup(const Spec& spec) { return std::ceil(std::log2(double(spec.mlp_width + 1))) + 2; }

POSENC_COLD Family make_family() {
    const std::string weights = "finite numbers in [-1e6, 1e6]";
    Family f("fire", Acts::bias, "",
             "FIRE: a small MLP of the log distance, normalised by the query's log position (at least L), added to the "
             "logits",
             "Li et al. 2023, \"Functional Interpolation for Relative Positions Improves Long Context Transformers\" "
             "(arXiv 2310.04418); conventions of its appendix code (class FIRE)",
             {Key::integer("n_heads", 12, 1, alibi::kMaxHeads),
              Key::integer("head", 0, 0, alibi::kMaxHeads - 1, "an integer in [0, n_heads - 1]"),
              Key::integer("mlp_width", 32, 1, kMaxWidth),
              Key::above("init_c", 0.1, 0.0, "a finite number > 0 and <= 1e6", 1e6),
              Key::number("init_L", 512.0, 0.0, double(kMaxPosition), "a finite number in [0, 2^40] (tokens)"),
              Key::number("L_multiplier", 1.0, -1e6, 1e6, "a finite number in [-1e6, 1e6]"),
              Key::number("eps", 1e-6, 1e-12, 1e6, "a finite number in [1e-12, 1e6]"),
              Key::integer("seed", 0, 0, kMaxSeed),
              Key::list("linear1_weight", Value{}, -kMaxWeight, kMaxWeight, weights),
              Key::list("linear1_bias", Value{}, -kMaxWeight, kMaxWeight, weights),
              Key::list("linear2_weight", Value{}, -kMaxWeight, kMaxWeight, weights),
              Key::list("linear2_bias", Value{}, -kMaxWeight, kMaxWeight, weights), Key::boolean("causal", true)});
    f.bias = [](const Config& c, std::int64_t n) { return bias(parse(c), n); };
    f.head_bias = [](const Config& c, const HeadInputs& in) {
        const Spec spec = parse(c);
        HeadBias out;
        out.tile = bias_tile(spec, in.n);
        out.causal = spec.causal;
        return out;
    };
    f.decay = [](const Config& c, std::int64_t max_distance, std::uint64_t) {
        Decay curves = decay(parse(c), max_distance);
        return Curves{{"bias", std::move(curves.bias)}, {"normalized_distance", std::move(curves.normalized_distance)}};
    };
    f.decay_work = [](const Config& c, std::int64_t max_distance) {
        const Spec spec = parse(c);
        return std::vector<budget::Factors>{
            setup(spec), {{double(max_distance + 1), "distances"}, {budget::kTrig + lookup(spec), "operations per distance"}}};
    };
    // The tile: psi per distance and the normaliser per query (a log each), one shared row for the
    // queries at or below L (a segment search per distance), then per cell a lookup (at or below L)
    // or a division, a segment step and a multiply-add (4 operations).
    f.bias_work = [](const Config& c, std::int64_t n) {
        const Spec spec = parse(c);
        const double L = threshold(spec);
        const double near = std::min(double(n), std::floor(L) + 1), far = double(n) - near;
        return std::vector<budget::Factors>{setup(spec),
                                            {{double(n), "positions"}, {2 * budget::kTrig + lookup(spec), "operations per position"}},
                                            {{near, "rows at or below L"}, {double(n), "columns"}},
                                            {{far, "rows past L"}, {double(n), "columns"}, {4, "operations per cell"}}};
    };
    return f;
}

/// What the family does in train() (posenc/train_slots.hpp).
POSENC_COLD train::Training make_training() {
    train::Training t;
    t.size = [](Config& spec, std::int64_t) {  // one head
        spec["n_heads"] = 1.0;
        spec["head"] = 0.0;
    };
    t.position_key = "linear1_weight, linear1_bias, linear2_weight, linear2_bias";
    t.write = [](Config& spec, const train::Trained& trained) {
        const std::vector<double>& pos = trained.pos;
        const std::size_t W = (pos.size() - 1) / 3;
        const auto part = [&](std::size_t from, std::size_t to) {
            return std::vector<double>(pos.begin() + std::ptrdiff_t(from), pos.begin() + std::ptrdiff_t(to));
        };
        spec["linear1_weight"] = part(0, W);
        spec["linear1_bias"] = part(W, 2 * W);
        spec["linear2_weight"] = part(2 * W, 3 * W);
        spec["linear2_bias"] = part(3 * W, 3 * W + 1);
    };
    t.pair_work = [](const Config& c, double) { return 8 * double(parse(c).mlp_width) + 80; };  // + two log1p per pair
    return train::training<Train>(std::move(t));
}

/// The list `key` of `expected` numbers (shape says how it is counted), or empty when absent.
std::vector<double> weight_list(const SpecReader& read, std::string_view key, std::int64_t expected, const std::string& shape) {
    const Key& k = *family().key(key);
    std::optional<std::vector<double>> values = read.number_list(key, k.min, k.max, k.allowed);
    if (!values) return {};
    if (std::int64_t(values->size()) != expected)
        throw_bad_param(std::string(key), "a list of " + std::to_string(values->size()) + " numbers",
                        "a list of " + shape + " = " + std::to_string(expected) + " numbers");
    return std::move(*values);
}

}  // namespace

const Family& family() { return once<make_family>(); }

const train::Training& training() { return train::once<make_training>(); }

Spec parse(const Config& config) {
    const SpecReader read(config, family());
    Spec spec;
    spec.n_heads = read.integer("n_heads");
    spec.head = read.integer("head", 0, spec.n_heads - 1);
    spec.mlp_width = read.integer("mlp_width");
    spec.init_c = read.number("init_c");
    spec.init_L = read.number("init_L");
    spec.L_multiplier = read.number("L_multiplier");
    spec.eps = read.number("eps");
    spec.seed = std::uint64_t(read.integer("seed"));
    const std::int64_t W = spec.mlp_width, H = spec.n_heads;
    spec.linear1_weight = weight_list(read, "linear1_weight", W, "mlp_width");
    spec.linear1_bias = weight_list(read, "linear1_bias", W, "mlp_width");
    spec.linear2_weight = weight_list(read, "linear2_weight", H * W, "n_heads * mlp_width");
    spec.linear2_bias = weight_list(read, "linear2_bias", H, "n_heads");
    spec.causal = read.boolean("causal");
    return spec;
}

HeadMlp head_mlp(const Spec& spec) {
    const std::size_t W = std::size_t(spec.mlp_width), H = std::size_t(spec.n_heads), h = std::size_t(spec.head);
    // Value u of the flat order, given (list[index]) or drawn as bound * (2 v - 1).
    const auto value = [&](const std::vector<double>& given, std::size_t index, std::uint64_t u, double bound) {
        return given.empty() ? bound * (2.0 * Random::at_draw(spec.seed, u).uniform() - 1.0) : given[index];
    };
    const double bound2 = 1.0 / std::sqrt(double(W));  // Linear(W, H): fan_in W
    HeadMlp mlp;
    mlp.w1.resize(W);
    mlp.b1.resize(W);
    mlp.w2.resize(W);
    for (std::size_t k = 0; k < W; ++k) {
        mlp.w1[k] = value(spec.linear1_weight, k, k, 1.0);  // Linear(1, W): fan_in 1
        mlp.b1[k] = value(spec.linear1_bias, k, W + k, 1.0);
        mlp.w2[k] = value(spec.linear2_weight, h * W + k, 2 * W + h * W + k, bound2);
    }
    mlp.b2 = value(spec.linear2_bias, h, 2 * W + H * W + h, bound2);
    return mlp;
}

double evaluate(const HeadMlp& mlp, double x) {
    double sum = mlp.b2;
    for (std::size_t k = 0; k < mlp.w1.size(); ++k) sum += mlp.w2[k] * std::max(0.0, mlp.w1[k] * x + mlp.b1[k]);
    return sum;
}

Piecewise::Piecewise(const HeadMlp& mlp) {
    // The units with a kink, by the position of their kink; the others add w2 relu(b1) everywhere.
    std::vector<std::size_t> order;
    double constant = mlp.b2;
    for (std::size_t k = 0; k < mlp.w1.size(); ++k) {
        if (mlp.w1[k] != 0.0) order.push_back(k);
        else constant += mlp.w2[k] * std::max(0.0, mlp.b1[k]);
    }
    const auto kink = [&](std::size_t k) { return -mlp.b1[k] / mlp.w1[k]; };
    // Ties in the order of the units (what a stable sort gives; std::sort is 0.7 KB less .wasm gzip).
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const double ka = kink(a), kb = kink(b);
        return ka < kb || (ka == kb && a < b);
    });
    const std::size_t S = order.size();
    breaks_.resize(S);
    for (std::size_t r = 0; r < S; ++r) breaks_[r] = kink(order[r]);
    // On segment s (t_(s-1) <= x < t_s), the unit of rank r is active when w1 > 0 and r < s
    // (x is past its kink), or w1 < 0 and r >= s (x is before it).
    slope_.assign(S + 1, 0.0);
    intercept_.assign(S + 1, constant);
    for (std::size_t s = 0; s <= S; ++s)
        for (std::size_t r = 0; r < S; ++r) {
            const std::size_t k = order[r];
            if ((mlp.w1[k] > 0.0) == (r < s)) {
                slope_[s] += mlp.w2[k] * mlp.w1[k];
                intercept_[s] += mlp.w2[k] * mlp.b1[k];
            }
        }
}

std::size_t Piecewise::segment(double x) const {
    return std::size_t(std::upper_bound(breaks_.begin(), breaks_.end(), x) - breaks_.begin());
}

double threshold(const Spec& spec) { return std::abs(spec.L_multiplier * spec.init_L); }

double psi(const Spec& spec, double x) { return std::log1p(std::abs(spec.init_c * x)); }

double normalized_distance(const Spec& spec, std::int64_t i, std::int64_t j) {
    return psi(spec, double(i - j)) / (psi(spec, std::max(double(i), threshold(spec))) + spec.eps);
}

double at(const Spec& spec, const HeadMlp& mlp, std::int64_t i, std::int64_t j) {
    return evaluate(mlp, normalized_distance(spec, i, j));
}

namespace {

/// b(i, j) over positions 0 .. n - 1. Rows i <= L share the normaliser psi(L) + eps, so
/// theirs is one function of |i - j|, tabled once; a row past L divides psi(|i - j|) by
/// its own normaliser and steps along the segments of f (x moves monotonically with j on
/// either side of the diagonal, so a step is usually no move at all).
class FireTile final : public kernels::BiasTile {
public:
    FireTile(const Spec& spec, std::int64_t n) : f_(head_mlp(spec)) {
        const double L = threshold(spec);
        near_rows_ = std::min<std::int64_t>(n, std::int64_t(std::min(std::floor(L), double(n))) + 1);
        psi_.resize(std::size_t(n));
        norm_.resize(std::size_t(n));
        near_.resize(std::size_t(n));
        for (std::int64_t d = 0; d < n; ++d) psi_[std::size_t(d)] = psi(spec, double(d));
        for (std::int64_t i = 0; i < n; ++i) norm_[std::size_t(i)] = psi(spec, std::max(double(i), L)) + spec.eps;
        const double near_norm = psi(spec, L) + spec.eps;
        for (std::int64_t d = 0; d < n; ++d) near_[std::size_t(d)] = float(f_(psi_[std::size_t(d)] / near_norm));
    }

    void add(std::int64_t i0, std::int64_t rows, std::int64_t j0, std::int64_t cols, float* s,
             std::size_t ld) const override {
        for (std::int64_t r = 0; r < rows; ++r) {
            const std::int64_t i = i0 + r;
            float* row = s + std::size_t(r) * ld;
            if (i < near_rows_) {
                for (std::int64_t c = 0; c < cols; ++c) row[c] += near_[std::size_t(std::abs(i - j0 - c))];
                continue;
            }
            const double norm = norm_[std::size_t(i)];
            std::size_t seg = f_.segment(psi_[std::size_t(std::abs(i - j0))] / norm);
            for (std::int64_t c = 0; c < cols; ++c) {
                const double x = psi_[std::size_t(std::abs(i - j0 - c))] / norm;
                seg = f_.step(seg, x);
                row[c] += float(f_.on(seg, x));
            }
        }
    }

private:
    Piecewise f_;
    std::int64_t near_rows_ = 0;          // rows 0 .. near_rows_ - 1 are at or below L
    std::vector<double> psi_, norm_;      // [n]: psi(d); psi(max(i, L)) + eps
    std::vector<float> near_;             // [n]: b at distance d for the rows at or below L
};

}  // namespace

std::unique_ptr<kernels::BiasTile> bias_tile(const Spec& spec, std::int64_t n) { return std::make_unique<FireTile>(spec, n); }

xt::xtensor<float, 2> bias(const Spec& spec, std::int64_t n) {
    bias::check_n(n);
    xt::xtensor<float, 2> b = xt::zeros<float>({std::size_t(n), std::size_t(n)});
    bias_tile(spec, n)->add(0, n, 0, n, b.data(), std::size_t(n));
    if (spec.causal) bias::mask_causal(b);
    return b;
}

Decay decay(const Spec& spec, std::int64_t max_distance) {
    const Piecewise f(head_mlp(spec));
    const double norm = psi(spec, std::max(double(max_distance), threshold(spec))) + spec.eps;
    Decay out;
    out.bias.resize(std::size_t(max_distance + 1));
    out.normalized_distance.resize(out.bias.size());
    for (std::size_t m = 0; m < out.bias.size(); ++m) {
        const double x = psi(spec, double(m)) / norm;
        out.normalized_distance[m] = x;
        out.bias[m] = f(x);
    }
    return out;
}

Formula formula() { return {R"(b(i,j) = f_{\theta}\Big(\frac{\psi(i-j)}{\psi(\max(L, i))}\Big),\ \psi(x) = \ln(1 + c\,x))", "f_θ an MLP of one hidden ReLU layer, L the threshold (|L_multiplier · init_L|), eps added to the normaliser’s log"}; }

}  // namespace posenc::fire
