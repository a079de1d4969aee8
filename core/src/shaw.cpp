#include "posenc/shaw.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "posenc/bias.hpp"
#include "posenc/random.hpp"

namespace posenc::shaw {

Spec parse(const Config& config) {
    const SpecReader read(config, "shaw spec", {"type", "head_dim", "max_relative_position", "seed", "causal"});
    Spec spec;
    spec.head_dim = read.integer("head_dim", spec.head_dim, 1, 4096);
    spec.max_relative_position = read.integer("max_relative_position", spec.max_relative_position, 0, 4096);
    spec.seed = std::uint64_t(read.integer("seed", 0, 0, std::int64_t(1) << 53));
    spec.causal = read.boolean("causal", false);
    return spec;
}

xt::xtensor<float, 2> embeddings(const Spec& spec) {
    const std::int64_t rows = 2 * spec.max_relative_position + 1;
    xt::xtensor<float, 2> a = xt::empty<float>({std::size_t(rows), std::size_t(spec.head_dim)});
    Random rng(spec.seed);
    const double scale = 1.0 / std::sqrt(double(spec.head_dim));
    for (float& v : a) v = float(scale * rng.normal());
    return a;
}

xt::xtensor<float, 2> bias(const Spec& spec, const xt::xtensor<float, 2>& q) {
    bias::check_queries(q, spec.head_dim, "head_dim");
    const std::int64_t n = std::int64_t(q.shape()[0]), d = spec.head_dim;
    const auto a = embeddings(spec);
    const std::int64_t K = spec.max_relative_position;
    // q_i . a_k for every query and every clipped distance k: [n, 2K + 1].
    std::vector<double> qa(std::size_t(n * (2 * K + 1)));
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t k = 0; k <= 2 * K; ++k) {
            double s = 0;
            for (std::int64_t c = 0; c < d; ++c) s += double(q(i, c)) * a(k, c);
            qa[std::size_t(i * (2 * K + 1) + k)] = s;
        }
    xt::xtensor<float, 2> b = xt::empty<float>({std::size_t(n), std::size_t(n)});
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            const std::int64_t k = std::clamp<std::int64_t>(j - i, -K, K);
            b(i, j) = float(qa[std::size_t(i * (2 * K + 1) + k + K)]);
        }
    if (spec.causal) bias::mask_causal(b);
    return b;
}

xt::xtensor<float, 2> bias(const Spec& spec, std::int64_t n) {
    return bias(spec, bias::ones_queries(n, spec.head_dim));
}

}  // namespace posenc::shaw
