#include "posenc/fope.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "posenc/random.hpp"
#include "posenc/rope.hpp"
#include "posenc/train.hpp"
#include "posenc/train_slots.hpp"

namespace posenc::fope {

namespace {

constexpr double kTwoPi = 6.283185307179586;
constexpr double kMaxCoef = 1e4;  // |cos_coef|, |sin_coef| entries
constexpr std::uint64_t kRandomStream = 0xF09E0001ull;

/// The largest |C_d| + |S_d| any position can reach: max over d of sum over D of |cos_coef[D, d]| + |sin_coef[D, d]|
/// (2 for a clipped pair), the most a pair's norm grows by (check_rotation_range's amplitude, times sqrt(2)).
double largest_gain(const Coefficients& coef, std::int64_t pairs) {
    const std::size_t K = std::size_t(coef.kept);
    double most = pairs > coef.kept ? 2.0 : 0.0;
    for (std::size_t d = 0; d < K; ++d) {
        double sum = 0;
        for (std::size_t D = 0; D < K; ++D) sum += std::abs(coef.cos[D * K + d]) + std::abs(coef.sin[D * K + d]);
        most = std::max(most, sum);
    }
    return most;
}

/// One pair (a, b) times the complex number C + i S: (a C - b S, b C + a S), in Real.
template <class Real>
void turn(Real& a, Real& b, Real c, Real s) {
    const Real a0 = a, b0 = b;
    a = a0 * c - b0 * s;
    b = b0 * c + a0 * s;
}

/// Training: a head's cos_coef then sin_coef [K, K] (Head::pos, 2 K^2), from the spec's or the draw (coefficients).
/// A pass keeps cos(t omega_D), sin(t omega_D) [n, 2K] (float64); each q and k is turned by its head's C and S, sums
/// in float64 rounded once to Real (so float32 training is the same float natively and in wasm), the pair in Real.
template <class Real>
struct Train {
    /// C and S [n, K] of a head: the series of its coefficients at the pass's positions.
    static void tables(const train::Pass<Real>& pass, const train::Vec<Real>& pos, std::vector<Real>& C, std::vector<Real>& S) {
        const std::size_t n = pass.n, K = pass.width;
        C.assign(n * K, Real(0));
        S.assign(n * K, Real(0));
        for (std::size_t t = 0; t < n; ++t)
            for (std::size_t d = 0; d < K; ++d) {
                double c = 0, s = 0;
                for (std::size_t D = 0; D < K; ++D) {
                    c += pass.angles[t * 2 * K + D] * double(pos[D * K + d]);
                    s += pass.angles[t * 2 * K + K + D] * double(pos[K * K + D * K + d]);
                }
                C[t * K + d] = Real(c);
                S[t * K + d] = Real(s);
            }
    }

    static train::Slots<Real> slots() {
        train::Slots<Real> s;
        s.init = [](const Config& own, std::int64_t) {
            const Coefficients coef = coefficients(parse(own));
            train::Vec<Real> pos;
            for (const double v : coef.cos) pos.push_back(Real(v));
            for (const double v : coef.sin) pos.push_back(Real(v));
            return pos;
        };
        s.prepare = [](const Config& c, train::Pass<Real>& pass) {
            const Spec spec = parse(c);
            const std::vector<double> omega = inv_freq(spec);
            const std::size_t K = std::size_t(kept(spec));
            pass.width = K;
            pass.wide = pass.d;
            pass.angles.resize(pass.n * 2 * K);
            for (std::size_t t = 0; t < pass.n; ++t)
                for (std::size_t D = 0; D < K; ++D) {
                    pass.angles[t * 2 * K + D] = std::cos(double(t) * omega[D]);
                    pass.angles[t * 2 * K + K + D] = std::sin(double(t) * omega[D]);
                }
        };
        s.widen = [](const train::Pass<Real>& pass, const train::Head<Real>& head, const Real* x, bool, Real* out) {
            const std::size_t n = pass.n, d = pass.d, half = d / 2, K = pass.width;
            std::vector<Real> C, S;
            tables(pass, head.pos, C, S);
            std::copy(x, x + n * d, out);
            for (std::size_t t = 0; t < n; ++t)
                for (std::size_t p = 0; p < half; ++p)
                    turn(out[t * d + p], out[t * d + p + half], p < K ? C[t * K + p] : Real(1), p < K ? S[t * K + p] : Real(1));
        };
        s.widen_backward = [](const train::Pass<Real>& pass, const train::Head<Real>& head, const Real* x, bool,
                              const Real* dout, Real* dx, train::Head<Real>& g) {
            // out_a = x_a C - x_b S, out_b = x_b C + x_a S: dx_a = C da + S db, dx_b = C db - S da;
            // dC = x_a da + x_b db, dS = x_a db - x_b da; d cos_coef[D, d] = sum over t of cos(t omega_D) dC[t, d].
            const std::size_t n = pass.n, d = pass.d, half = d / 2, K = pass.width;
            std::vector<Real> C, S;
            tables(pass, head.pos, C, S);
            std::vector<double> dC(n * K), dS(n * K);
            for (std::size_t t = 0; t < n; ++t)
                for (std::size_t p = 0; p < half; ++p) {
                    const std::size_t a = t * d + p, b = a + half;
                    const Real c = p < K ? C[t * K + p] : Real(1), sn = p < K ? S[t * K + p] : Real(1);
                    dx[a] += c * dout[a] + sn * dout[b];
                    dx[b] += c * dout[b] - sn * dout[a];
                    if (p < K) {
                        dC[t * K + p] = double(x[a] * dout[a] + x[b] * dout[b]);
                        dS[t * K + p] = double(x[a] * dout[b] - x[b] * dout[a]);
                    }
                }
            for (std::size_t D = 0; D < K; ++D)
                for (std::size_t e = 0; e < K; ++e) {
                    double gc = 0, gs = 0;
                    for (std::size_t t = 0; t < n; ++t) {
                        gc += pass.angles[t * 2 * K + D] * dC[t * K + e];
                        gs += pass.angles[t * 2 * K + K + D] * dS[t * K + e];
                    }
                    g.pos[D * K + e] += Real(gc);
                    g.pos[K * K + D * K + e] += Real(gs);
                }
        };
        return s;
    }
};

std::vector<budget::Factors> apply_work(const Spec& spec, std::int64_t n) {
    const double K = double(kept(spec));
    return {{{double(n), "rows"}, {K, "kept pairs"}, {2 * K + 2 * budget::kTrig, "operations per pair (two series of K terms)"}},
            {{double(n), "rows"}, {double(spec.head_dim), "columns"}}};
}

POSENC_COLD Family make_family() {
    Family f("fope", Acts::rotary, "head_dim",
             "FoPE: each rotary pair a Fourier series over the frequencies that complete a turn within the training length",
             "Hua et al. 2025 (arXiv 2412.17739), \"Fourier Position Embedding: Enhancing Attention's Periodic Extension "
             "for Length Generalization\", ICML 2025, section 4; vLLM's FourierRotaryEmbedding (github.com/vllm-project/vllm)",
             {Key::integer("head_dim", 64, 2, kMaxWidth, "an even integer in [2, 512]"),
              Key::above("rope_theta", 10000.0, 1.0, "a finite number > 1", 1e12),
              Key::integer("max_position_embeddings", 64, 1, std::int64_t(1) << 40, "an integer in [1, 2^40] (default: the language-model lab's training length)"),
              Key::integer("num_inv_freq", std::nullopt, 1, kMaxWidth / 2, "an integer in [1, head_dim / 2] (absent: the frequency floor)"),
              Key::list("cos_coef", Value{}, -kMaxCoef, kMaxCoef, "numbers in [-1e4, 1e4], K x K of them"),
              Key::list("sin_coef", Value{}, -kMaxCoef, kMaxCoef, "numbers in [-1e4, 1e4], K x K of them"),
              Key::number("rope_fourier_init_norm_gain", 0.3, 0.0, 100.0, "a number in [0, 100] (the paper: 0.3)"),
              Key::integer("seed", 0, 0, kMaxSeed)});
    f.rotary = [](const Config& c, std::int64_t) {
        const Spec spec = parse(c);
        RotaryFrequencies out;
        out.inv_freq = inv_freq(spec);
        std::fill(out.inv_freq.begin() + kept(spec), out.inv_freq.end(), 0.0);  // the clipped pairs: no frequency
        out.head_dim = out.rotary_dim = spec.head_dim;
        set_pair_columns(out, false);
        return out;
    };
    f.rotate = [](const Config& c, const float* x, std::int64_t n, std::int64_t d, std::int64_t offset, float* out) {
        const Spec spec = parse(c);
        budget::check_work("applyRope", "n", apply_work(spec, n), 4.0 * double(n) * double(d));
        apply(spec, x, n, d, offset, out);
    };
    f.decay = [](const Config& c, std::int64_t max_distance, std::uint64_t seed) { return decay(parse(c), max_distance, seed); };
    f.decay_work = [](const Config& c, std::int64_t max_distance) {
        const Spec spec = parse(c);
        return std::vector<budget::Factors>{
            {{double(max_distance + 1), "distances"}, {double(kept(spec)), "kept pairs"},
             {2 * double(kept(spec)) + 2 * budget::kTrig, "operations per pair (two series of K terms)"}},
            {{double(max_distance + 1), "distances"}, {double(spec.head_dim / 2), "pairs"}, {budget::kTrig + 4, "operations per pair"}}};
    };
    return f;
}

/// What the family does in train() (posenc/train_slots.hpp).
POSENC_COLD train::Training make_training() {
    train::Training t;
    t.position_key = "cos_coef, sin_coef";
    t.write = [](Config& spec, const train::Trained& trained) {
        const auto half = trained.pos.begin() + std::ptrdiff_t(trained.pos.size() / 2);
        spec["cos_coef"] = std::vector<double>(trained.pos.begin(), half);
        spec["sin_coef"] = std::vector<double>(half, trained.pos.end());
    };
    // Its series per token (2 K^2 multiply-adds for q and k, twice that backward, K <= d / 2) over the n >= d / 2
    // keys a query meets in training: about d per pair.
    t.pair_work = [](const Config&, double d) { return d; };
    return train::training<Train>(std::move(t));
}

}  // namespace

const Family& family() { return once<make_family>(); }

const train::Training& training() { return train::once<make_training>(); }

Spec parse(const Config& config) {
    const SpecReader read(config, family());
    Spec spec;
    spec.head_dim = read.integer("head_dim");
    if (spec.head_dim % 2 != 0) throw_bad_param("head_dim", std::to_string(spec.head_dim), family().key("head_dim")->allowed);
    spec.rope_theta = read.number("rope_theta");
    spec.max_position_embeddings = read.integer("max_position_embeddings");
    if (read.present("num_inv_freq")) {
        spec.num_inv_freq = read.integer("num_inv_freq");
        if (spec.num_inv_freq > spec.head_dim / 2)
            throw_bad_param("num_inv_freq", std::to_string(spec.num_inv_freq),
                            "an integer in [1, head_dim / 2 = " + std::to_string(spec.head_dim / 2) + "]");
    }
    spec.rope_fourier_init_norm_gain = read.number("rope_fourier_init_norm_gain");
    spec.seed = std::uint64_t(read.integer("seed"));
    const std::int64_t K = kept(spec);
    spec.cos_coef = read.tensor("cos_coef", "a number in [-1e4, 1e4]", {{"K", K}, {"K", K}});
    spec.sin_coef = read.tensor("sin_coef", "a number in [-1e4, 1e4]", {{"K", K}, {"K", K}});
    return spec;
}

std::vector<double> inv_freq(const Spec& spec) {
    std::vector<double> omega(std::size_t(spec.head_dim / 2));
    const double log_theta = std::log(spec.rope_theta);
    for (std::size_t p = 0; p < omega.size(); ++p) omega[p] = std::exp(-double(2 * p) / double(spec.head_dim) * log_theta);
    return omega;
}

std::int64_t kept(const Spec& spec) {
    if (spec.num_inv_freq > 0) return spec.num_inv_freq;
    const double floor = kTwoPi / double(spec.max_position_embeddings);
    const std::vector<double> omega = inv_freq(spec);  // falling with p: the kept ones come first
    return std::int64_t(std::count_if(omega.begin(), omega.end(), [&](double w) { return w > floor; }));
}

Coefficients coefficients(const Spec& spec) {
    Coefficients coef;
    coef.kept = kept(spec);
    const std::size_t K = std::size_t(coef.kept);
    const auto given = [&](const std::vector<float>& list, std::vector<double>& out) {
        out.assign(list.begin(), list.end());
        return !list.empty();
    };
    Random rng(spec.seed ^ kRandomStream);
    const double std = K > 0 ? spec.rope_fourier_init_norm_gain / std::sqrt(double(K)) : 0.0;
    for (std::vector<double>* out : {&coef.cos, &coef.sin}) {
        std::vector<double> drawn(K * K);
        for (std::size_t e = 0; e < drawn.size(); ++e) drawn[e] = (e / K == e % K ? 1.0 : 0.0) + std * rng.normal();
        if (!given(out == &coef.cos ? spec.cos_coef : spec.sin_coef, *out)) *out = std::move(drawn);
    }
    return coef;
}

namespace {

/// series at frequencies omega (inv_freq(spec), computed once by a caller that steps through positions).
void series_at(const std::vector<double>& omega, const Coefficients& coef, std::int64_t position, std::vector<double>& c,
               std::vector<double>& s) {
    const std::size_t K = std::size_t(coef.kept), pairs = omega.size();
    std::vector<double> cos_t(K), sin_t(K);
    for (std::size_t D = 0; D < K; ++D) {
        cos_t[D] = std::cos(double(position) * omega[D]);
        sin_t[D] = std::sin(double(position) * omega[D]);
    }
    c.assign(pairs, 1.0);
    s.assign(pairs, 1.0);
    for (std::size_t d = 0; d < K; ++d) {
        double sc = 0, ss = 0;
        for (std::size_t D = 0; D < K; ++D) {
            sc += cos_t[D] * coef.cos[D * K + d];
            ss += sin_t[D] * coef.sin[D * K + d];
        }
        c[d] = sc;
        s[d] = ss;
    }
}

}  // namespace

void series(const Spec& spec, const Coefficients& coef, std::int64_t position, std::vector<double>& c, std::vector<double>& s) {
    series_at(inv_freq(spec), coef, position, c, s);
}

void apply(const Spec& spec, const float* x, std::int64_t n, std::int64_t d, std::int64_t offset, float* out) {
    rope::check_rows(n, d, spec.head_dim, offset);
    const Coefficients coef = coefficients(spec);
    const std::int64_t pairs = spec.head_dim / 2;
    rope::check_rotation_range(x, n, d, offset, largest_gain(coef, pairs) / std::sqrt(2.0), {},
                               "the largest |C_d(t)| + |S_d(t)| the coefficients allow");
    if (out != x) std::copy(x, x + n * d, out);
    const std::vector<double> omega = inv_freq(spec);
    std::vector<double> c, s;
    for (std::int64_t t = 0; t < n; ++t) {
        series_at(omega, coef, offset + t, c, s);
        float* row = out + t * d;
        for (std::int64_t p = 0; p < pairs; ++p) turn(row[p], row[p + pairs], float(c[std::size_t(p)]), float(s[std::size_t(p)]));
    }
}

Curves decay(const Spec& spec, std::int64_t max_distance, std::uint64_t seed) {
    const Coefficients coef = coefficients(spec);
    const std::size_t pairs = std::size_t(spec.head_dim / 2), d = std::size_t(spec.head_dim);
    Random rng(seed ^ kRandomStream ^ 0x5EEDull);
    std::vector<double> q(d);
    for (double& v : q) v = rng.normal();
    const std::vector<double> omega = inv_freq(spec);
    std::vector<double> c0, s0, c, s;
    series_at(omega, coef, 0, c0, s0);
    std::vector<double> ones(std::size_t(max_distance + 1)), random(ones.size()), rope(ones.size());
    for (std::size_t m = 0; m < ones.size(); ++m) {
        series_at(omega, coef, std::int64_t(m), c, s);
        double sum_ones = 0, sum_random = 0, sum_rope = 0;
        for (std::size_t p = 0; p < pairs; ++p) {
            // (a, b) turned by z_m = C + i S against (a, b) turned by z_0: (a^2 + b^2) Re(z_m conj z_0).
            const double re = c[p] * c0[p] + s[p] * s0[p], norm = q[p] * q[p] + q[p + pairs] * q[p + pairs];
            sum_ones += 2 * re;
            sum_random += norm * re;
            sum_rope += 2 * std::cos(double(m) * omega[p]);
        }
        ones[m] = sum_ones;
        random[m] = sum_random;
        rope[m] = sum_rope;
    }
    return {{"ones", std::move(ones)}, {"random", std::move(random)}, {"rope_ones", std::move(rope)}};
}

Formula formula() {
    return {R"(q_t \mapsto \big(C_d(t) + i\,S_d(t)\big)\,q_{t,d},\ C_d(t) = \sum_{D<K} a_{Dd}\cos(t\omega_D),\ S_d(t) = \sum_{D<K} b_{Dd}\sin(t\omega_D),\ \omega_D > \tfrac{2\pi}{L})",
            "ω_D = rope_theta^(−2D/d); K kept frequencies (period < L = max_position_embeddings), a = cos_coef, b = sin_coef "
            "learned per head; the clipped pairs get C = S = 1 (no position), as vLLM and the paper's code pad them"};
}

}  // namespace posenc::fope
