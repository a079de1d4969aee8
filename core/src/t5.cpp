#include "posenc/t5.hpp"

#include <cmath>
#include <string>

#include "posenc/alibi.hpp"
#include "posenc/args.hpp"
#include "posenc/bias.hpp"
#include "posenc/random.hpp"
#include "posenc/train.hpp"
#include "posenc/train_slots.hpp"

namespace posenc::t5 {

void check_buckets(bool bidirectional, std::int64_t num_buckets, std::int64_t max_distance, const BucketNames& names) {
    // (messages built only when thrown: this runs once per bucket lookup)
    // Bidirectional needs 4: each direction's half needs an exact bucket (max_exact >= 1), whose
    // size the logarithmic part divides by.
    if (num_buckets < (bidirectional ? 4 : 2) || num_buckets > kMaxBuckets || (bidirectional && num_buckets % 2 != 0)) {
        const std::string buckets_range = std::string(bidirectional ? "[4, " : "[2, ") + std::to_string(kMaxBuckets) + "]";
        throw_bad_param(names.num_buckets, std::to_string(num_buckets),
                        bidirectional ? "an even integer in " + buckets_range + " (bidirectional splits the buckets in two)"
                                      : "an integer in " + buckets_range);
    }
    const std::int64_t max_exact = (bidirectional ? num_buckets / 2 : num_buckets) / 2;
    if (max_distance < num_buckets / 2 || max_distance <= max_exact || max_distance > kMaxPosition)
        throw_bad_param(names.max_distance, std::to_string(max_distance),
                        "an integer >= " + std::string(names.num_buckets) + " / 2 = " + std::to_string(num_buckets / 2) +
                            " and > the exact region " + std::to_string(max_exact));
}

std::int32_t relative_position_bucket(std::int64_t relative_position, bool bidirectional, std::int64_t num_buckets,
                                      std::int64_t max_distance) {
    check_buckets(bidirectional, num_buckets, max_distance);
    std::int64_t bucket = 0, distance = 0, buckets = num_buckets;
    if (bidirectional) {
        buckets /= 2;
        if (relative_position > 0) bucket += buckets;
        distance = relative_position < 0 ? -relative_position : relative_position;
    } else {
        distance = relative_position < 0 ? -relative_position : 0;
    }
    const std::int64_t max_exact = buckets / 2;
    if (distance < max_exact) return std::int32_t(bucket + distance);
    // float32, as torch computes it: log(d / max_exact) / log(max_distance / max_exact) * (buckets - max_exact)
    const float ratio = std::log(float(distance) / float(max_exact)) /
                        float(std::log(double(max_distance) / double(max_exact))) * float(buckets - max_exact);
    const std::int64_t large = std::min<std::int64_t>(max_exact + std::int64_t(ratio), buckets - 1);
    return std::int32_t(bucket + large);
}

std::vector<std::int32_t> buckets(const double* relative_positions, std::size_t count, bool bidirectional,
                                  std::int64_t num_buckets, std::int64_t max_distance) {
    const BucketNames names{"numBuckets", "maxDistance"};
    check_buckets(bidirectional, num_buckets, max_distance, names);
    const IntArg& item = args::relative_position;
    std::vector<std::int32_t> out(count);
    for (std::size_t k = 0; k < count; ++k) {
        const double r = relative_positions[k];
        if (!(r == std::floor(r) && r >= double(item.lo) && r <= double(item.hi)))
            throw_bad_param(std::string(item.name) + "[" + std::to_string(k) + "]", format_number(r), item.allowed());
        out[k] = relative_position_bucket(std::int64_t(r), bidirectional, num_buckets, max_distance);
    }
    return out;
}

namespace {

/// The family's bias as a function of j - i, from its spec.
RelativeBias relative_of(const Config& c) { return relative(parse(c)); }

/// Training: one learned scalar per bucket, read at each pair's bucket.
template <class Real>
struct Train {
    static train::Slots<Real> slots() {
        train::Slots<Real> s;
        s.positional = true;
        s.init = [](const Config& own, std::int64_t) { return train::Vec<Real>(std::size_t(parse(own).num_buckets), Real(0)); };
        s.prepare = [](const Config& c, train::Pass<Real>& pass) {
            const Spec spec = parse(c);
            const std::size_t n = pass.n;
            pass.index.assign(n * n, 0);
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j <= i; ++j)
                    pass.index[i * n + j] = relative_position_bucket(std::int64_t(j) - std::int64_t(i), spec.bidirectional,
                                                                     spec.num_buckets, spec.max_distance);
        };
        s.bias = [](const Config&, const train::BiasInputs<Real>& in) {
            const std::size_t n = in.pass.n;
            train::HeadBias<Real> out;
            out.b.assign(n * n, Real(0));
            train::each_pair(out.b, n, [&](std::size_t i, std::size_t j) { return in.head.pos[std::size_t(in.pass.index[i * n + j])]; });
            return out;
        };
        s.backward = [](const Config&, const train::BiasInputs<Real>& in, const train::HeadBias<Real>&, const Real* ds,
                        const train::BiasGradients<Real>& g) {
            const std::size_t n = in.pass.n;
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j <= i; ++j) g.head.pos[std::size_t(in.pass.index[i * n + j])] += ds[i * n + j];
        };
        return s;
    }
};

constexpr double kMaxBias = 1e4;  // |bias| entries: added to the logits, far inside float32

POSENC_COLD Family make_family() {
    const Family& alibi = alibi::family();  // the same heads
    Family f("t5", Acts::bias, "",
             "T5: one learned scalar per relative-position bucket (exact near, logarithmic far), added to the logits",
             "Raffel et al. 2020, \"Exploring the Limits of Transfer Learning with a Unified Text-to-Text "
             "Transformer\", section 2.1; buckets as transformers' T5Attention._relative_position_bucket",
             {*alibi.key("n_heads"), *alibi.key("head"),
              Key::integer("num_buckets", 32, 2, kMaxBuckets,
                           "an integer in [2, " + std::to_string(kMaxBuckets) + "], even when bidirectional"),
              Key::integer("max_distance", 128, 1, kMaxPosition,
                           "an integer >= num_buckets / 2 and > the exact region, up to 2^40"),
              Key::boolean("bidirectional", true), Key::integer("seed", 0, 0, kMaxSeed), Key::boolean("causal", false),
              Key::list("relative_attention_bias", Value{}, -kMaxBias, kMaxBias,
                        "numbers in [-1e4, 1e4], num_buckets x n_heads of them")});
    set_relative_bias<relative_of>(f);
    return f;
}

/// What the family does in train() (posenc/train_slots.hpp).
POSENC_COLD train::Training make_training() {
    train::Training t;
    t.size = [](Config& spec, std::int64_t) {  // one head
        spec["n_heads"] = 1.0;
        spec["head"] = 0.0;
    };
    t.position_key = "relative_attention_bias";
    t.pair_work = [](const Config&, double) { return 80.0; };  // its log bucket per pair
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
    // Wide ranges here: check_buckets names what is wrong with an integer (odd when bidirectional, below
    // the exact region); a value that is no integer (3.5) gets the key's own range.
    spec.num_buckets = read.integer("num_buckets", -kMaxPosition, kMaxBuckets, family().key("num_buckets")->allowed);
    spec.max_distance = read.integer("max_distance", -kMaxPosition, kMaxPosition, family().key("max_distance")->allowed);
    spec.bidirectional = read.boolean("bidirectional");
    spec.seed = std::uint64_t(read.integer("seed"));
    spec.causal = read.boolean("causal");
    check_buckets(spec.bidirectional, spec.num_buckets, spec.max_distance);
    spec.relative_attention_bias = read.tensor("relative_attention_bias", "a number in [-1e4, 1e4]",
                                               {{"num_buckets", spec.num_buckets}, {"n_heads", spec.n_heads}});
    return spec;
}

std::vector<double> bucket_bias(const Spec& spec) {
    std::vector<double> table(static_cast<std::size_t>(spec.num_buckets));
    if (!spec.relative_attention_bias.empty()) {  // column `head` of [num_buckets, n_heads]
        for (std::size_t b = 0; b < table.size(); ++b)
            table[b] = spec.relative_attention_bias[b * std::size_t(spec.n_heads) + std::size_t(spec.head)];
        return table;
    }
    Random rng = Random::at(spec.seed, std::uint64_t(spec.head * spec.num_buckets));
    for (double& b : table) b = rng.normal();
    return table;
}

RelativeBias relative(const Spec& spec) {
    const std::vector<double> table = bucket_bias(spec);
    return {[spec, table](std::int64_t r) {
                return table[std::size_t(relative_position_bucket(r, spec.bidirectional, spec.num_buckets, spec.max_distance))];
            },
            spec.causal};
}

xt::xtensor<float, 2> bias(const Spec& spec, std::int64_t n) {
    const RelativeBias b = relative(spec);
    return bias::relative_matrix(n, b.causal, b.at);
}

Formula formula() { return {R"(b(i,j) = t_h[\operatorname{bucket}(j-i)])", "exact buckets for small distances, logarithmic ones up to max_distance"}; }

}  // namespace posenc::t5
