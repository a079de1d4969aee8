#include "posenc/kerple.hpp"

#include <cmath>

#include "posenc/bias.hpp"
#include "posenc/train.hpp"
#include "posenc/train_slots.hpp"

namespace posenc::kerple {

namespace {

/// The family's bias as a function of j - i, from its spec.
RelativeBias relative_of(const Config& c) { return relative(parse(c)); }

// r2's range for the power variant, (0, 2], depends on the variant: parse checks it.
// r1, r2 <= 1e6 keep the bias finite in float32 at every distance (r1 log1p(r2 m) <= 1e6 * 42
// at m = 2^40; r1 m^2 <= 1e6 * 2^26 within a head of 8192 tokens).
/// KERPLE's kernel without its -r1: ln(1 + r2 r) or r^r2, evaluated in double and rounded once,
/// so float32 training is the same bit for bit with any C library (log1pf differs between them).
template <class Real>
Real kernel(Real r, Real r2, bool power) {
    return Real(power ? std::pow(double(r), double(r2)) : std::log1p(double(r2) * double(r)));
}

/// Training: [r1, r2], b(i, j) = -r1 kernel(i - j), kept >= 1e-3 (the power variant's r2 also <= 2).
template <class Real>
struct Train {
    static train::Slots<Real> slots() {
        train::Slots<Real> s;
        s.positional = true;
        s.init = [](const Config& own, std::int64_t) {
            const Spec spec = parse(own);
            return train::Vec<Real>{Real(spec.r1), Real(spec.r2)};
        };
        s.bias = [](const Config& c, const train::BiasInputs<Real>& in) {
            const std::size_t n = in.pass.n;
            const bool power = parse(c).variant == Variant::power;
            const train::Vec<Real>& pos = in.head.pos;
            train::HeadBias<Real> out;
            out.b.assign(n * n, Real(0));
            train::each_pair(out.b, n, [&](std::size_t i, std::size_t j) {
                const Real r = Real(i - j);
                return -pos[0] * kernel(r, pos[1], power);
            });
            return out;
        };
        s.backward = [](const Config& c, const train::BiasInputs<Real>& in, const train::HeadBias<Real>&, const Real* ds,
                        const train::BiasGradients<Real>& g) {
            const std::size_t n = in.pass.n;
            const bool power = parse(c).variant == Variant::power;
            const train::Vec<Real>& pos = in.head.pos;
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j < i; ++j) {  // the diagonal is 0 whatever r1, r2
                    const Real r = Real(i - j), s_ = ds[i * n + j];
                    if (power) {
                        const Real rp = kernel(r, pos[1], true);
                        g.head.pos[0] -= s_ * rp;
                        g.head.pos[1] -= s_ * pos[0] * rp * Real(std::log(double(r)));
                    } else {
                        g.head.pos[0] -= s_ * kernel(r, pos[1], false);
                        g.head.pos[1] -= s_ * pos[0] * r / (Real(1) + pos[1] * r);
                    }
                }
        };
        s.constrain = [](const Config& c, train::Vec<Real>& pos) {
            const bool power = parse(c).variant == Variant::power;
            pos[0] = std::max(pos[0], Real(1e-3));
            pos[1] = std::clamp(pos[1], Real(1e-3), power ? Real(2) : std::numeric_limits<Real>::max());
        };
        return s;
    }
};

POSENC_COLD Family make_family() {
    Family f("kerple", Acts::bias, "", "KERPLE: a kernel of the distance (log or power) added to the logits",
             "Chi et al. 2022, \"KERPLE: Kernelized Relative Positional Embedding for Length Extrapolation\", "
             "section 4; as chijames/KERPLE",
             {Key::choice("variant", {"log", "power"}), Key::above("r1", 1.0, 0.0, "a finite number > 0 and <= 1e6", 1e6),
              Key::above("r2", 1.0, 0.0, "a finite number > 0 and <= 1e6", 1e6), Key::boolean("causal", false)});
    set_relative_bias<relative_of>(f);
    return f;
}

/// What the family does in train() (posenc/train_slots.hpp).
POSENC_COLD train::Training make_training() {
    train::Training t;
    t.position_key = "r1, r2";
    t.write = [](Config& spec, const train::Trained& trained) {
        spec["r1"] = trained.pos[0];
        spec["r2"] = trained.pos[1];
    };
    t.pair_work = [](const Config&, double) { return 0.0; };
    return train::training<Train>(std::move(t));
}

}  // namespace

const Family& family() { return once<make_family>(); }

const train::Training& training() { return train::once<make_training>(); }

Spec parse(const Config& config) {
    const SpecReader read(config, family());
    Spec spec;
    spec.variant = read.choice("variant") == "power" ? Variant::power : Variant::log;
    spec.r1 = read.number("r1");
    if (spec.variant == Variant::power)
        spec.r2 = read.number("r2", 0x1p-1022, 2.0, "a number in (0, 2] (the power variant)");
    else
        spec.r2 = read.number("r2");
    spec.causal = read.boolean("causal");
    return spec;
}

double at_distance(const Spec& spec, double distance) {
    return spec.variant == Variant::log ? -spec.r1 * std::log1p(spec.r2 * distance)
                                        : -spec.r1 * std::pow(distance, spec.r2);
}

RelativeBias relative(const Spec& spec) {
    return {[spec](std::int64_t r) { return at_distance(spec, double(r < 0 ? -r : r)); }, spec.causal};
}

xt::xtensor<float, 2> bias(const Spec& spec, std::int64_t n) {
    const RelativeBias b = relative(spec);
    return bias::relative_matrix(n, b.causal, b.at);
}

Formula formula() { return {R"(b(i,j) = -r_1\ln(1 + r_2|i-j|)\ \text{or}\ -r_1|i-j|^{r_2})", "0 < r₂ ≤ 2 for the power variant"}; }

}  // namespace posenc::kerple
