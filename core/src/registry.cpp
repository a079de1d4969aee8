#include "posenc/registry.hpp"

#include <functional>
#include <stdexcept>
#include <variant>

#include "posenc/rope.hpp"
#include "posenc/sinusoidal.hpp"
#include "posenc/xpos.hpp"

namespace posenc {
namespace {

/// What each spec `type` can compute; an empty function means "not this kind".
struct Family {
    std::string type;
    std::function<xt::xtensor<float, 2>(const Config&, std::int64_t n, std::int64_t offset)> table;
    std::function<PairFrequencies(const Config&)> frequencies;
    std::function<RotaryFrequencies(const Config&, std::int64_t seq_len)> rotary;
    std::function<xt::xtensor<float, 2>(const Config&, const xt::xtensor<float, 2>&, std::int64_t offset)> rotate;
    std::function<Curves(const Config&, std::int64_t max_distance, std::uint64_t seed)> decay;
};

Curves rotary_curves(const rope::Decay& d) {
    return {{"upper_bound", d.upper_bound}, {"ones", d.ones}, {"random", d.random}};
}

const std::vector<Family>& families() {
    static const std::vector<Family> all = {
        {"sinusoidal",
         [](const Config& c, std::int64_t n, std::int64_t offset) {
             return sinusoidal::table(sinusoidal::parse(c), n, offset);
         },
         [](const Config& c) {
             const sinusoidal::Spec spec = sinusoidal::parse(c);
             PairFrequencies pairs{sinusoidal::inv_freq(spec), {}, {}};
             for (std::int64_t i = 0; i < spec.d_model / 2; ++i) {
                 pairs.sin_column.push_back(sinusoidal::column(spec, i, false));
                 pairs.cos_column.push_back(sinusoidal::column(spec, i, true));
             }
             return pairs;
         }},
        {"rope", nullptr, nullptr,
         [](const Config& c, std::int64_t seq_len) {
             const rope::Spec spec = rope::parse(c);
             const rope::Frequencies f = rope::frequencies(spec, seq_len);
             return RotaryFrequencies{f.inv_freq, f.attention_factor, f.logit_scale, spec.head_dim, spec.rotary_dim};
         },
         [](const Config& c, const xt::xtensor<float, 2>& x, std::int64_t offset) {
             return rope::apply(rope::parse(c), x, offset);
         },
         [](const Config& c, std::int64_t max_distance, std::uint64_t seed) {
             return rotary_curves(rope::decay(rope::parse(c), max_distance, seed));
         }},
        {"xpos", nullptr, nullptr,
         [](const Config& c, std::int64_t) {
             const xpos::Spec spec = xpos::parse(c);
             return RotaryFrequencies{xpos::inv_freq(spec), 1.0, 1.0, spec.head_dim, spec.head_dim};
         },
         [](const Config& c, const xt::xtensor<float, 2>& x, std::int64_t offset) {
             return xpos::apply(xpos::parse(c), x, offset);
         },
         [](const Config& c, std::int64_t max_distance, std::uint64_t seed) {
             return rotary_curves(xpos::decay(xpos::parse(c), max_distance, seed));
         }},
    };
    return all;
}

const Family& family_of(const Config& spec) {
    const std::string type = spec_type(spec);
    for (const Family& f : families())
        if (f.type == type) return f;
    throw std::logic_error("registry: type \"" + type + "\" listed but not registered");
}

}  // namespace

const std::vector<std::string>& known_types() {
    static const std::vector<std::string> types = [] {
        std::vector<std::string> out;
        for (const Family& f : families()) out.push_back(f.type);
        return out;
    }();
    return types;
}

std::string spec_type(const Config& spec) {
    std::string allowed = "one of";
    for (std::size_t i = 0; i < known_types().size(); ++i)
        allowed += (i ? ", \"" : " \"") + known_types()[i] + '"';
    if (!spec.has("type")) throw std::invalid_argument("spec: missing required key \"type\" (" + allowed + ")");
    const Value& value = spec.at("type");
    const auto* type = std::get_if<std::string>(&value);
    if (!type) throw_bad_param("type", describe(value), allowed);
    for (const auto& known : known_types())
        if (*type == known) return *type;
    throw_bad_param("type", describe(value), allowed);
}

xt::xtensor<float, 2> position_table(const Config& spec, std::int64_t n, std::int64_t offset) {
    const Family& family = family_of(spec);
    if (!family.table)
        throw std::invalid_argument("positionTable: type \"" + family.type +
                                    "\" is not an absolute encoding; it has no position table");
    return family.table(spec, n, offset);
}

RotaryFrequencies rotary_frequencies(const Config& spec, std::int64_t seq_len) {
    const Family& family = family_of(spec);
    if (!family.rotary)
        throw std::invalid_argument("ropeInvFreq: type \"" + family.type + "\" is not a rotary encoding (rope, xpos)");
    return family.rotary(spec, seq_len);
}

xt::xtensor<float, 2> apply_rotary(const Config& spec, const xt::xtensor<float, 2>& x, std::int64_t offset) {
    const Family& family = family_of(spec);
    if (!family.rotate)
        throw std::invalid_argument("applyRope: type \"" + family.type + "\" is not a rotary encoding (rope, xpos)");
    return family.rotate(spec, x, offset);
}

Curves decay(const Config& spec, std::int64_t max_distance, std::uint64_t seed) {
    const Family& family = family_of(spec);
    if (!family.decay) throw std::invalid_argument("decay: type \"" + family.type + "\" has no decay analysis yet");
    return family.decay(spec, max_distance, seed);
}

PairFrequencies position_frequencies(const Config& spec) {
    const Family& family = family_of(spec);
    if (!family.frequencies)
        throw std::invalid_argument("positionFrequencies: type \"" + family.type +
                                    "\" has no sinusoidal frequencies");
    return family.frequencies(spec);
}

}  // namespace posenc
