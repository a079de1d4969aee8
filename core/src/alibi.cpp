#include "posenc/alibi.hpp"

#include <cmath>
#include <string>

#include "posenc/bias.hpp"

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
    if (n_heads < 1 || n_heads > 4096) throw_bad_param("n_heads", std::to_string(n_heads), "an integer in [1, 4096]");
    std::int64_t p = 1;
    while (p * 2 <= n_heads) p *= 2;  // the closest power of two <= n_heads
    std::vector<double> out = power_of_two_slopes(p);
    if (p == n_heads) return out;
    const std::vector<double> twice = power_of_two_slopes(2 * p);
    for (std::size_t k = 0; std::int64_t(out.size()) < n_heads; k += 2) out.push_back(twice[k]);
    return out;
}

Spec parse(const Config& config) {
    const SpecReader read(config, "alibi spec", {"type", "n_heads", "head", "causal"});
    Spec spec;
    spec.n_heads = read.integer("n_heads", spec.n_heads, 1, 4096);
    spec.head = read.integer("head", 0, 0, spec.n_heads - 1);
    spec.causal = read.boolean("causal", false);
    return spec;
}

xt::xtensor<float, 2> bias(const Spec& spec, std::int64_t n) {
    const double m = slopes(spec.n_heads)[std::size_t(spec.head)];
    return bias::relative_matrix(n, spec.causal, [m](std::int64_t r) { return -m * double(r < 0 ? -r : r); });
}

}  // namespace posenc::alibi
