#include "posenc/learned.hpp"

#include <algorithm>
#include <string>

#include "posenc/random.hpp"
#include "posenc/train.hpp"
#include "posenc/train_slots.hpp"

namespace posenc::learned {

namespace {

constexpr double kMaxWeight = 1e4;  // |P| entries: within std's range, far inside float32 in the head's logits

/// Training: the table P [max_length, d] ~ N(0, 0.02^2), added to the token embeddings and trained.
template <class Real>
struct Train {
    static train::Slots<Real> slots() {
        train::Slots<Real> s;
        s.table = [](Random& rng, std::int64_t max_length, std::int64_t d) {
            return train::normals(rng, std::size_t(max_length * d), Real(0.02));
        };
        return s;
    }
};

POSENC_COLD Family make_family() {
    Family f("learned", Acts::absolute, "d_model",
             "Learned: a trained table with one row per position (shown at its initialisation), added to the token "
             "embeddings",
             "Radford et al. 2019, GPT-2 (wpe, initialised N(0, 0.02^2)); as transformers' modeling_gpt2.py",
             {Key::integer("d_model", 768, 1, kMaxTableElements),
              Key::integer("max_position_embeddings", 1024, 1, kMaxTableElements), Key::integer("seed", 0, 0, kMaxSeed),
              Key::number("std", 0.02, 0.0, 1e6, "a number in [0, 1e6] (larger overflows float32 in the head's logits)"),
              Key::list("weight", Value{}, -kMaxWeight, kMaxWeight,
                        "numbers in [-1e4, 1e4], max_position_embeddings x d_model of them")});
    f.table = table_slot<Spec, parse, check_table, table>;
    return f;
}

/// What the family does in train() (posenc/train_slots.hpp).
POSENC_COLD train::Training make_training() {
    train::Training t;
    t.write = [](Config& spec, const train::Trained& trained) {
        spec["max_position_embeddings"] = double(trained.max_length);
        spec["weight"] = trained.table;
    };
    return train::training<Train>(std::move(t));
}

}  // namespace

const Family& family() { return once<make_family>(); }

const train::Training& training() { return train::once<make_training>(); }

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
    spec.weight = read.tensor("weight", "a number in [-1e4, 1e4]",
                              {{"max_position_embeddings", spec.max_position_embeddings}, {"d_model", spec.d_model}});
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
    if (!spec.weight.empty()) {  // rows offset .. offset + n - 1 of the given [max_position_embeddings, d_model]
        const float* from = spec.weight.data() + std::size_t(offset * spec.d_model);
        std::copy(from, from + std::size_t(n * spec.d_model), out);
        return;
    }
    float* row = out;  // [n, d_model]
    for (std::int64_t r = 0; r < n; ++r, row += spec.d_model) {
        Random rng = Random::at(spec.seed, std::uint64_t((offset + r) * spec.d_model));
        for (std::int64_t c = 0; c < spec.d_model; ++c) row[c] = float(spec.std * rng.normal());
    }
}

Formula formula() { return {R"(P:\ \mathrm{max\_pos}\times d_{\mathrm{model}},\ P_{\mathrm{pos},c} \sim \mathcal{N}(0, \mathrm{std}^2))", "learned with the model; shown at its initialisation"}; }

}  // namespace posenc::learned
