#include "posenc/registry.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <utility>
#include <variant>

#include "posenc/args.hpp"
#include "posenc/attention.hpp"
#include "posenc/bias.hpp"
#include "posenc/budget.hpp"
#include "posenc/train_slots.hpp"

namespace posenc {

const Family& family_of(const Config& spec) {
    const std::string type = spec_type(spec);
    for (const Family* f : families())
        if (f->type == type) return *f;
    throw std::logic_error("registry: type \"" + type + "\" listed but not registered");
}

std::string type_list(const std::function<bool(const Family&)>& keep) {
    std::string list;
    for (const Family* f : families())
        if (keep(*f)) (list += list.empty() ? "" : ", ") += f->type;
    return list;
}

std::string types_acting(Acts acts) {
    return type_list([acts](const Family& f) { return f.acts == acts; });
}

namespace {

/// The budget of a bias over n tokens: the family's estimate, or one operation per cell.
void check_bias_work(const Family& family, const Config& spec, const char* what, std::int64_t n) {
    budget::check_work(what, "n",
                       family.bias_work ? family.bias_work(spec, n)
                                        : std::vector<budget::Factors>{{{double(n), "rows"}, {double(n), "columns"}}},
                       4.0 * double(n) * double(n));
}

/// Throws "<function>: type "<type>" is not <allowed><more>" (param "type").
[[noreturn]] void wrong_family(const Family& family, const std::string& function, const std::string& allowed,
                               const std::string& more) {
    throw BadParam("type", function + ": type \"" + family.type + "\" is not " + allowed + more, '"' + family.type + '"',
                   allowed);
}

/// "a rotary encoding (rope, xpos)": the families with a slot, listed.
template <class Slot>
std::string having(const std::string& what, Slot Family::*slot) {
    return what + " (" + type_list([slot](const Family& f) { return bool(f.*slot); }) + ")";
}

}  // namespace

const std::vector<std::string>& known_types() {
    static const std::vector<std::string> types = [] {
        std::vector<std::string> out;
        for (const Family* f : families()) out.push_back(f->type);
        return out;
    }();
    return types;
}

std::string spec_type(const Config& spec) {
    const Value* value = find_key(spec, "type");
    if (!value) throw BadParam("type", "spec: missing required key \"type\" (" + one_of(known_types()) + ")", "undefined",
                                  one_of(known_types()));
    if (value->is_string())
        for (const auto& known : known_types())
            if (value->get_ref<const std::string&>() == known) return known;
    // A module of some of the families (posenc-view-<group>.wasm): a type it lacks may be another module's.
    if (const char* module = family_set_module())
        throw NotInModule("type", "spec: type " + describe(*value) + " is not in " + module + " (" + one_of(known_types()) +
                                      "); posenc-view.wasm has every family",
                          describe(*value), one_of(known_types()));
    throw_bad_param("type", describe(*value), one_of(known_types()));
}

xt::xtensor<float, 2> position_table(const Config& spec, std::int64_t n, std::int64_t offset) {
    xt::xtensor<float, 2> table;
    position_table(spec, n, offset, [&](std::int64_t rows, std::int64_t cols) {
        table = xt::empty<float>({std::size_t(rows), std::size_t(cols)});
        return table.data();
    });
    return table;
}

void position_table(const Config& spec, std::int64_t n, std::int64_t offset, const TableStorage& storage) {
    args::rows.check(n);
    const Family& family = family_of(spec);
    if (!family.table)
        wrong_family(family, "positionTable", having("an absolute encoding", &Family::table), "; it has no position table");
    family.table(spec, n, offset, [&](std::int64_t rows, std::int64_t cols) {
        // A sine per cell, and per column its frequency and layout (measured: 2 s natively for one row of 2^24).
        budget::check_work("positionTable", "n",
                           std::vector<budget::Factors>{
                               {{double(rows), "rows"}, {double(cols), "columns"}, {budget::kTrig, "operations per sine"}},
                               {{double(cols), "columns"}, {8 * budget::kTrig, "operations of setup per column"}}},
                           4.0 * double(rows) * double(cols));
        return storage(rows, cols);
    });
}

RotaryFrequencies rotary_frequencies(const Config& spec, std::int64_t seq_len) {
    args::seq_len.check(seq_len);
    const Family& family = family_of(spec);
    if (!family.rotary)
        wrong_family(family, "ropeInvFreq", having("a rotary encoding", &Family::rotary), "");
    return family.rotary(spec, seq_len);
}

xt::xtensor<float, 2> apply_rotary(const Config& spec, const xt::xtensor<float, 2>& x, std::int64_t offset) {
    xt::xtensor<float, 2> out = xt::empty<float>(x.shape());
    apply_rotary(spec, Floats{x.data(), x.size()}, std::int64_t(x.shape()[0]), std::int64_t(x.shape()[1]), offset,
                 out.data());
    return out;
}

void apply_rotary(const Config& spec, Floats x, std::int64_t n, std::int64_t d, std::int64_t offset, float* out) {
    args::rows.check(n);
    args::width.check(d);
    check_table_shape(n, d, "d");
    check_length("x", x, n * d, "n * d");
    args::position_offset.check(offset);
    const Family& family = family_of(spec);
    if (!family.rotate)
        wrong_family(family, "applyRope", having("a rotary encoding", &Family::rotate), "");
    budget::check_work("applyRope", "n", {{double(n), "rows"}, {double(d), "columns"}, {budget::kTrig, "operations per sine"}},
                       4.0 * double(n) * double(d));
    family.rotate(spec, x.data, n, d, offset, out);
}

Curves decay(const Config& spec, std::int64_t max_distance, std::int64_t seed) {
    args::max_distance.check(max_distance);
    args::seed.check(seed);
    const Family& family = family_of(spec);
    if (!family.decay) {
        const std::string allowed = having("a family with a decay curve", &Family::decay);
        throw BadParam("type",
                       "decay: type \"" + family.type +
                           "\" has no decay curve (an untrained learned table has no structure to show); expected " + allowed,
                       '"' + family.type + '"', allowed);
    }
    const std::size_t curves = family.acts == Acts::rotary || family.acts == Acts::polar ? 3 : 1;
    budget::check_work("decay", "maxDistance",
                       family.decay_work ? family.decay_work(spec, max_distance)
                                         : std::vector<budget::Factors>{{{double(max_distance + 1), "distances"}}},
                       8.0 * double(curves) * double(max_distance + 1));
    return family.decay(spec, max_distance, std::uint64_t(seed));
}

std::vector<double> decay_distance(std::int64_t max_distance) {
    args::max_distance.check(max_distance);
    std::vector<double> m(std::size_t(max_distance + 1));
    for (std::size_t i = 0; i < m.size(); ++i) m[i] = double(i);
    return m;
}

xt::xtensor<float, 2> attention_bias(const Config& spec, std::int64_t n) {
    args::matrix_n.check(n);
    const Family& family = family_of(spec);
    if (!family.bias)
        wrong_family(family, "attentionBias", having("a bias family", &Family::bias), "");
    check_bias_work(family, spec, "attentionBias", n);
    return family.bias(spec, n);
}

HeadBias head_bias(const Config& spec, const HeadInputs& in) {
    const Family& family = family_of(spec);
    if (!family.head_bias)
        throw_bad_param("encoding.type", '"' + family.type + '"', having("a bias family", &Family::head_bias));
    check_integer("n", in.n, 1, attention::kMaxForwardTokens);
    Config sized = family.width_key.empty() ? spec : with_head_width(spec, family.width_key, in.width);
    if (family.key("hidden_size")) sized = with_head_width(sized, "hidden_size", in.d_model);
    check_bias_work(family, sized, "attention", in.n);
    return family.head_bias(sized, in);
}

xt::xtensor<float, 2> position_similarity(const Config& spec, std::int64_t n, const std::string& metric) {
    if (metric != "dot" && metric != "cosine") throw_bad_param("metric", '"' + metric + '"', "one of \"dot\", \"cosine\"");
    args::matrix_n.check(n);
    xt::xtensor<float, 2> p;  // [n, d]
    const std::string width_key = family_of(spec).width_key;
    position_table(spec, n, 0, [&](std::int64_t rows, std::int64_t cols) {
        // i <= j only: n (n + 1) / 2 products of length d. Over the limit, the larger of the two is named: a table of
        // 100000 dimensions is d_model's fault, not n's.
        const std::string param = cols > rows && !width_key.empty() ? width_key : "n";
        budget::check_work("position similarity", param.c_str(),
                           {{double(rows) * double(rows + 1) / 2, "pairs of rows (i <= j)"}, {double(cols), "dimensions"}},
                           4.0 * double(rows) * double(rows + cols));
        p = xt::empty<float>({std::size_t(rows), std::size_t(cols)});
        return p.data();
    });
    const std::size_t rows = p.shape()[0], d = p.shape()[1];
    const float* data = p.data();
    std::vector<double> norm(rows, 1.0);
    if (metric == "cosine")
        for (std::size_t i = 0; i < rows; ++i) {
            double s = 0;
            for (std::size_t c = 0; c < d; ++c) s += double(data[i * d + c]) * data[i * d + c];
            norm[i] = std::sqrt(s);
        }
    xt::xtensor<float, 2> out = xt::empty<float>({rows, rows});
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = i; j < rows; ++j) {
            double s = 0;
            for (std::size_t c = 0; c < d; ++c) s += double(data[i * d + c]) * data[j * d + c];
            const double scale = norm[i] * norm[j];
            const float v = float(metric == "dot" ? s : (scale > 0 ? s / scale : 0.0));
            out(i, j) = v;
            out(j, i) = v;
        }
    return out;
}

PairFrequencies position_frequencies(const Config& spec) {
    const Family& family = family_of(spec);
    if (!family.frequencies)
        throw BadParam("type", "positionFrequencies: type \"" + family.type + "\" has no sinusoidal frequencies",
                       '"' + family.type + '"', having("a family with sinusoidal frequencies", &Family::frequencies));
    return family.frequencies(spec);
}

}  // namespace posenc
