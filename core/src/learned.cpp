#include "posenc/learned.hpp"

#include <string>

#include "posenc/random.hpp"

namespace posenc::learned {

namespace {

Family make_family() {
    Family f("learned", Acts::absolute, "d_model",
             "Learned: a trained table with one row per position (shown at its initialisation), added to the token "
             "embeddings",
             "Radford et al. 2019, GPT-2 (wpe, initialised N(0, 0.02^2))",
             {Key::integer("d_model", 768, 1, kMaxTableElements),
              Key::integer("max_position_embeddings", 1024, 1, kMaxTableElements), Key::integer("seed", 0, 0, kMaxSeed),
              Key::number("std", 0.02, 0.0, 1e6, "a number in [0, 1e6] (larger overflows float32 in the head's logits)")});
    f.table = table_slot(parse, check_table, table);
    return f;
}

}  // namespace

const Family& family() { return once<make_family>(); }

Spec parse(const Config& config) {
    const SpecReader read(config, family());
    Spec spec;
    spec.d_model = read.integer("d_model");
    spec.max_position_embeddings = read.integer("max_position_embeddings");
    if (spec.d_model * spec.max_position_embeddings > kMaxTableElements)
        throw_bad_param("max_position_embeddings", std::to_string(spec.max_position_embeddings),
                        "max_position_embeddings * d_model <= " + std::to_string(kMaxTableElements));
    spec.seed = std::uint64_t(read.integer("seed"));
    spec.std = read.number("std");
    return spec;
}

void check_table(const Spec& spec, std::int64_t n, std::int64_t offset) {
    if (n < 1) throw_bad_param("n", std::to_string(n), "an integer >= 1");
    if (offset < 0) throw_bad_param("offset", std::to_string(offset), "an integer >= 0");
    if (offset >= spec.max_position_embeddings || n > spec.max_position_embeddings - offset)  // (offset + n may overflow)
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
