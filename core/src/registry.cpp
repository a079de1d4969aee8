#include "posenc/registry.hpp"

#include <functional>
#include <stdexcept>
#include <variant>

#include "posenc/sinusoidal.hpp"

namespace posenc {
namespace {

/// What each spec `type` can compute; an empty function means "not this kind".
struct Family {
    std::string type;
    std::function<xt::xtensor<float, 2>(const Config&, std::int64_t n, std::int64_t offset)> table;
    std::function<PairFrequencies(const Config&)> frequencies;
};

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

PairFrequencies position_frequencies(const Config& spec) {
    const Family& family = family_of(spec);
    if (!family.frequencies)
        throw std::invalid_argument("positionFrequencies: type \"" + family.type +
                                    "\" has no sinusoidal frequencies");
    return family.frequencies(spec);
}

}  // namespace posenc
