#include "posenc/learned.hpp"

#include <string>

#include "posenc/random.hpp"

namespace posenc::learned {

Spec parse(const Config& config) {
    const SpecReader read(config, "learned spec", {"type", "d_model", "max_position_embeddings", "seed", "std"});
    Spec spec;
    spec.d_model = read.integer("d_model", spec.d_model, 1, kMaxTableElements);
    spec.max_position_embeddings = read.integer("max_position_embeddings", spec.max_position_embeddings, 1, kMaxTableElements);
    if (spec.d_model * spec.max_position_embeddings > kMaxTableElements)
        throw_bad_param("max_position_embeddings", std::to_string(spec.max_position_embeddings),
                        "max_position_embeddings * d_model <= " + std::to_string(kMaxTableElements));
    spec.seed = std::uint64_t(read.integer("seed", 0, 0, std::int64_t(1) << 53));
    spec.std = read.number("std", spec.std, 0.0, HUGE_VAL, "a finite number >= 0");
    return spec;
}

void check_table(const Spec& spec, std::int64_t n, std::int64_t offset) {
    if (n < 1) throw_bad_param("n", std::to_string(n), "an integer >= 1");
    if (offset < 0) throw_bad_param("offset", std::to_string(offset), "an integer >= 0");
    if (offset + n > spec.max_position_embeddings)
        throw_bad_param("n", std::to_string(n),
                        "positions up to max_position_embeddings - 1 = " + std::to_string(spec.max_position_embeddings - 1) +
                            ": no embedding exists for position " + std::to_string(spec.max_position_embeddings) +
                            " or later in a learned table");
}

xt::xtensor<float, 2> table(const Spec& spec, std::int64_t n, std::int64_t offset) {
    check_table(spec, n, offset);
    xt::xtensor<float, 2> out = xt::empty<float>({std::size_t(n), std::size_t(spec.d_model)});
    table(spec, n, offset, out.data());
    return out;
}

void table(const Spec& spec, std::int64_t n, std::int64_t offset, float* out) {
    check_table(spec, n, offset);
    float* row = out;  // [n, d_model]
    for (std::int64_t r = 0; r < n; ++r, row += spec.d_model) {
        Random rng = Random::at(spec.seed, std::uint64_t((offset + r) * spec.d_model));
        for (std::int64_t c = 0; c < spec.d_model; ++c) row[c] = float(spec.std * rng.normal());
    }
}

}  // namespace posenc::learned
