#include "posenc/pope.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "posenc/random.hpp"
#include "posenc/train.hpp"
#include "posenc/train_slots.hpp"

namespace posenc::pope {

namespace {

constexpr double kTwoPi = 6.283185307179586;
constexpr std::uint64_t kRandomStream = 0x90BE0001ull;

/// sigmoid(x) = d softplus(x) / dx, in float64.
double sigmoid(double x) { return x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x)); }

/// One component x at phase phi as its polar pair out[0 .. 1] = (mu cos phi, mu sin phi), mu = softplus(x): float64,
/// rounded once to Real (the page's transform and training's, the same numbers).
template <class Real>
void polar_pair(double x, double phi, Real* out) {
    const double mu = softplus(x);
    out[0] = Real(mu * std::cos(phi));
    out[1] = Real(mu * std::sin(phi));
}

/// sum over c of a_c b_c cos(delta_c - m theta_c), for m = 0 .. max_distance.
std::vector<double> phase_curve(const Spec& spec, const std::vector<double>& weights, std::int64_t max_distance) {
    const std::vector<double> theta = frequencies(spec);
    std::vector<double> out(std::size_t(max_distance + 1), 0.0);
    for (std::size_t m = 0; m < out.size(); ++m)
        for (std::size_t c = 0; c < theta.size(); ++c) {
            const double delta = spec.phase_bias.empty() ? 0.0 : double(spec.phase_bias[c]);
            out[m] += weights[c] * std::cos(delta - double(m) * theta[c]);
        }
    return out;
}

/// Training: this head's delta [head_dim], from 0 (the reference's start), clamped to [-2 pi, 0] after each step.
/// The cosines, sines and softplus are computed in float64 and rounded once, so float32 training is the same float
/// natively (glibc) and in wasm (musl).
template <class Real>
struct Train {
    static train::Slots<Real> slots() {
        train::Slots<Real> s;
        s.init = [](const Config& own, std::int64_t) { return train::Vec<Real>(std::size_t(parse(own).head_dim), Real(0)); };
        s.prepare = [](const Config& c, train::Pass<Real>& pass) {
            const std::vector<double> theta = frequencies(parse(c));
            pass.wide = 2 * pass.d;
            pass.angles.resize(pass.n * pass.d);
            for (std::size_t t = 0; t < pass.n; ++t)
                for (std::size_t k = 0; k < pass.d; ++k) pass.angles[t * pass.d + k] = double(t) * theta[k];
        };
        s.widen = [](const train::Pass<Real>& pass, const train::Head<Real>& head, const Real* x, bool key, Real* out) {
            const std::size_t n = pass.n, d = pass.d;
            for (std::size_t t = 0; t < n; ++t)
                for (std::size_t k = 0; k < d; ++k) {
                    const double phi = pass.angles[t * d + k] + (key ? double(head.pos[k]) : 0.0);
                    polar_pair(double(x[t * d + k]), phi, &out[t * 2 * d + 2 * k]);
                }
        };
        s.widen_backward = [](const train::Pass<Real>& pass, const train::Head<Real>& head, const Real* x, bool key,
                              const Real* dout, Real* dx, train::Head<Real>& g) {
            // out = mu (cos phi, sin phi): d out / d x = sigmoid(x) (cos phi, sin phi); d out / d delta = mu (-sin phi, cos phi).
            const std::size_t n = pass.n, d = pass.d;
            for (std::size_t t = 0; t < n; ++t)
                for (std::size_t k = 0; k < d; ++k) {
                    const double phi = pass.angles[t * d + k] + (key ? double(head.pos[k]) : 0.0);
                    const Real c = Real(std::cos(phi)), sn = Real(std::sin(phi));
                    const Real da = dout[t * 2 * d + 2 * k], db = dout[t * 2 * d + 2 * k + 1];
                    dx[t * d + k] += Real(sigmoid(double(x[t * d + k]))) * (da * c + db * sn);
                    if (key) g.pos[k] += Real(softplus(double(x[t * d + k]))) * (db * c - da * sn);
                }
        };
        s.constrain = [](const Config&, train::Vec<Real>& pos) {
            for (Real& delta : pos) delta = std::clamp(delta, Real(-kTwoPi), Real(0));
        };
        return s;
    }
};

POSENC_COLD Family make_family() {
    Family f("pope", Acts::polar, "head_dim",
             "PoPE: polar coordinates, the content the magnitude and the position the phase of each component",
             "Gopalakrishnan et al. 2025 (arXiv 2509.10534), \"Decoupling the 'What' and 'Where' With Polar Coordinate "
             "Positional Embeddings\", section 3; github.com/lucidrains/PoPE-pytorch (apply_pope_to_qk)",
             {Key::integer("head_dim", 64, 1, kMaxWidth), Key::above("theta", 10000.0, 1.0, "a finite number > 1", 1e12),
              Key::list("phase_bias", Value{}, -kTwoPi, 0.0, "numbers in [-2 pi, 0], head_dim of them")});
    f.polar = [](const Config& c, const float* x, std::int64_t n, std::int64_t d, std::int64_t offset, bool key, float* out) {
        const Spec spec = parse(c);
        check_head_width("head_dim", spec.head_dim, d);
        apply(spec, x, n, offset, key, out);
    };
    f.decay = [](const Config& c, std::int64_t max_distance, std::uint64_t seed) { return decay(parse(c), max_distance, seed); };
    f.decay_work = [](const Config& c, std::int64_t max_distance) {
        return std::vector<budget::Factors>{
            {{double(max_distance + 1), "distances"}, {double(parse(c).head_dim), "components"}, {2 * budget::kTrig, "operations per component"}}};
    };
    return f;
}

/// What the family does in train() (posenc/train_slots.hpp).
POSENC_COLD train::Training make_training() {
    train::Training t;
    t.position_key = "phase_bias";
    t.pair_work = [](const Config&, double d) { return 4 * d; };  // the scores' dots are 2d wide, forward and backward
    return train::training<Train>(std::move(t));
}

}  // namespace

const Family& family() { return once<make_family>(); }

const train::Training& training() { return train::once<make_training>(); }

Spec parse(const Config& config) {
    const SpecReader read(config, family());
    Spec spec;
    spec.head_dim = read.integer("head_dim");
    spec.theta = read.number("theta");
    spec.phase_bias = read.tensor("phase_bias", "a number in [-2 pi, 0]", {{"head_dim", spec.head_dim}});
    return spec;
}

std::vector<double> frequencies(const Spec& spec) {
    std::vector<double> theta(std::size_t(spec.head_dim));
    for (std::size_t c = 0; c < theta.size(); ++c) theta[c] = std::pow(spec.theta, -double(c) / double(spec.head_dim));
    return theta;
}

double softplus(double x) { return std::max(x, 0.0) + std::log1p(std::exp(-std::abs(x))); }

void apply(const Spec& spec, const float* x, std::int64_t n, std::int64_t offset, bool key, float* out) {
    const std::vector<double> theta = frequencies(spec);
    const std::size_t d = std::size_t(spec.head_dim);
    for (std::size_t t = 0; t < std::size_t(n); ++t)
        for (std::size_t c = 0; c < d; ++c) {
            const double phi = double(std::int64_t(t) + offset) * theta[c] + (key && !spec.phase_bias.empty() ? double(spec.phase_bias[c]) : 0.0);
            polar_pair(double(x[t * d + c]), phi, &out[t * 2 * d + 2 * c]);
        }
}

Curves decay(const Spec& spec, std::int64_t max_distance, std::uint64_t seed) {
    const std::size_t d = std::size_t(spec.head_dim);
    const double one = softplus(1.0);
    Random rng(seed ^ kRandomStream);
    std::vector<double> q(d), k(d), weights(d);
    for (double& x : q) x = rng.normal();
    for (double& x : k) x = rng.normal();
    for (std::size_t c = 0; c < d; ++c) weights[c] = softplus(q[c]) * softplus(k[c]);
    // RoPE on the same q and k (interleaved pairs (2p, 2p + 1), theta_p = theta^(-2p / d)), the key m tokens back:
    // q . R(-m theta_p) k = (q_a k_a + q_b k_b) cos(m theta_p) - (q_b k_a - q_a k_b) sin(m theta_p) per pair.
    std::vector<double> rope(std::size_t(max_distance + 1), 0.0);
    for (std::size_t p = 0; 2 * p + 1 < d; ++p) {
        const double theta = std::pow(spec.theta, -double(2 * p) / double(d));
        const double qa = q[2 * p], qb = q[2 * p + 1], ka = k[2 * p], kb = k[2 * p + 1];
        for (std::size_t m = 0; m < rope.size(); ++m)
            rope[m] += (qa * ka + qb * kb) * std::cos(double(m) * theta) - (qb * ka - qa * kb) * std::sin(double(m) * theta);
    }
    return {{"ones", phase_curve(spec, std::vector<double>(d, one * one), max_distance)},
            {"random", phase_curve(spec, weights, max_distance)},
            {"rope_random", std::move(rope)}};
}

Formula formula() {
    return {R"(\mathrm{score}_{ts} = \sum_c \mathrm{softplus}(q_c)\,\mathrm{softplus}(k_c)\cos\big((s-t)\theta_c + \delta_c\big),\ \theta_c = \theta^{-c/d})",
            "d frequencies, one per component; the content sets the magnitudes only, the position the phases only"};
}

}  // namespace posenc::pope
