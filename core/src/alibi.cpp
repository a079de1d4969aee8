#include "posenc/alibi.hpp"

#include <cmath>
#include <string>

#include "posenc/args.hpp"
#include "posenc/bias.hpp"
#include "posenc/registry.hpp"
#include "posenc/train.hpp"
#include "posenc/train_slots.hpp"

namespace posenc::alibi {
namespace {

std::vector<double> power_of_two_slopes(std::int64_t n) {
    const double start = std::exp2(-8.0 / double(n));
    std::vector<double> out(static_cast<std::size_t>(n));
    double slope = start;
    for (auto& s : out) {
        s = slope;
        slope *= start;
    }
    return out;
}

}  // namespace

std::vector<double> slopes(std::int64_t n_heads) {
    args::n_heads.check(n_heads);
    std::int64_t p = 1;
    while (p * 2 <= n_heads) p *= 2;  // the closest power of two <= n_heads
    std::vector<double> out = power_of_two_slopes(p);
    if (p == n_heads) return out;
    const std::vector<double> twice = power_of_two_slopes(2 * p);
    for (std::size_t k = 0; std::int64_t(out.size()) < n_heads; k += 2) out.push_back(twice[k]);
    return out;
}

RelativeBias relative(const Spec& spec) {
    const double m = slopes(spec.n_heads)[std::size_t(spec.head)];
    return {[m](std::int64_t r) { return -m * double(r < 0 ? -r : r); }, spec.causal};
}

namespace {

/// The family's bias as a function of j - i, from its spec.
RelativeBias relative_of(const Config& c) { return relative(parse(c)); }

/// Training: nothing to learn; b(i, j) is the head's fixed bias.
template <class Real>
struct Train {
    static train::Slots<Real> slots() {
        train::Slots<Real> s;
        s.positional = true;
        s.prepare = [](const Config& c, train::Pass<Real>& pass) {
            const auto b = posenc::attention_bias(c, std::int64_t(pass.n));
            pass.fixed.assign(b.data(), b.data() + pass.n * pass.n);
        };
        s.bias = [](const Config&, const train::BiasInputs<Real>& in) {
            const std::size_t n = in.pass.n;
            train::HeadBias<Real> out;
            out.b.assign(n * n, Real(0));
            train::each_pair(out.b, n, [&](std::size_t i, std::size_t j) { return in.pass.fixed[i * n + j]; });
            return out;
        };
        return s;
    }
};

POSENC_COLD Family make_family() {
    Family f("alibi", Acts::bias, "", "ALiBi: a linear penalty on distance, one fixed slope per head, added to the logits",
             "Press et al. 2022, \"Train Short, Test Long\", section 3; slopes as ofirpress/attention_with_linear_biases",
             {Key::integer("n_heads", 8, 1, kMaxHeads),
              Key::integer("head", 0, 0, kMaxHeads - 1, "an integer in [0, n_heads - 1]"), Key::boolean("causal", false)});
    set_relative_bias<relative_of>(f);
    return f;
}

/// What the family does in train() (posenc/train_slots.hpp).
POSENC_COLD train::Training make_training() {
    train::Training t;
    t.pair_work = [](const Config&, double) { return 0.0; };
    t.head = [](Config& spec, std::int64_t head, std::int64_t heads) {  // the paper's slopes for the model's heads
        spec["n_heads"] = double(heads);
        spec["head"] = double(head);
    };
    return train::training<Train>(std::move(t));
}

}  // namespace

const Family& family() { return once<make_family>(); }

const train::Training& training() { return train::once<make_training>(); }

Spec parse(const Config& config) {
    const SpecReader read(config, family());
    Spec spec;
    spec.n_heads = read.integer("n_heads");
    spec.head = read.integer("head", 0, spec.n_heads - 1);
    spec.causal = read.boolean("causal");
    return spec;
}

xt::xtensor<float, 2> bias(const Spec& spec, std::int64_t n) {
    const RelativeBias b = relative(spec);
    return bias::relative_matrix(n, b.causal, b.at);
}

xt::xtensor<float, 2> bias(std::int64_t n, std::int64_t n_heads, std::int64_t head, bool causal) {
    Spec spec;
    spec.n_heads = args::n_heads.check(n_heads);
    spec.head = head;
    check_integer(args::head.name, head, 0, n_heads - 1);
    spec.causal = causal;
    return bias(spec, args::matrix_n.check(n));
}

Formula formula() { return {R"(b(i,j) = -m_h|i-j|,\ m_h = 2^{-8(h+1)/H})", "H heads, a power of two"}; }

}  // namespace posenc::alibi
