#include "posenc/registry.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <variant>

#include "posenc/alibi.hpp"
#include "posenc/kerple.hpp"
#include "posenc/learned.hpp"
#include "posenc/nope.hpp"
#include "posenc/rope.hpp"
#include "posenc/shaw.hpp"
#include "posenc/sinusoidal.hpp"
#include "posenc/t5.hpp"
#include "posenc/transformer_xl.hpp"
#include "posenc/xpos.hpp"

namespace posenc {
namespace {

/// What each spec `type` can compute; an empty function means "not this kind".
struct Family {
    explicit Family(std::string name) : type(std::move(name)) {}
    std::string type;
    std::function<void(const Config&, std::int64_t n, std::int64_t offset, const TableStorage&)> table;
    std::function<PairFrequencies(const Config&)> frequencies;
    std::function<RotaryFrequencies(const Config&, std::int64_t seq_len)> rotary;
    /// x [n, d] into out [n, d] (out may be x).
    std::function<void(const Config&, const float* x, std::int64_t n, std::int64_t d, std::int64_t offset, float* out)>
        rotate;
    std::function<Curves(const Config&, std::int64_t max_distance, std::uint64_t seed)> decay;
    std::function<xt::xtensor<float, 2>(const Config&, std::int64_t n)> bias;
    std::function<HeadBias(const Config&, const float* q, std::int64_t n, std::int64_t width)> head_bias;
};

/// A single named curve f(m) for m = 0 .. max_distance.
Curves curve(const std::string& name, std::int64_t max_distance, const std::function<double(std::int64_t)>& f) {
    std::vector<double> values(std::size_t(max_distance + 1));
    for (std::size_t m = 0; m < values.size(); ++m) values[m] = f(std::int64_t(m));
    return {{name, values}};
}

Curves rotary_curves(const rope::Decay& d) {
    return {{"upper_bound", d.upper_bound}, {"ones", d.ones}, {"random", d.random}};
}

Family sinusoidal_family() {
    Family f("sinusoidal");
    f.table = [](const Config& c, std::int64_t n, std::int64_t offset, const TableStorage& storage) {
        const sinusoidal::Spec spec = sinusoidal::parse(c);
        sinusoidal::check_table(spec, n, offset);
        sinusoidal::table(spec, n, offset, storage(n, spec.d_model));
    };
    f.frequencies = [](const Config& c) {
        const sinusoidal::Spec spec = sinusoidal::parse(c);
        PairFrequencies pairs{sinusoidal::inv_freq(spec), {}, {}, {}};
        for (const double w : pairs.inv_freq) pairs.wavelength.push_back(2.0 * M_PI / w);
        for (std::int64_t i = 0; i < spec.d_model / 2; ++i) {
            pairs.sin_column.push_back(sinusoidal::column(spec, i, false));
            pairs.cos_column.push_back(sinusoidal::column(spec, i, true));
        }
        return pairs;
    };
    f.decay = [](const Config& c, std::int64_t max_distance, std::uint64_t) {
        const std::vector<double> omega = sinusoidal::inv_freq(sinusoidal::parse(c));
        return curve("dot", max_distance, [&](std::int64_t m) {
            double sum = 0;
            for (double w : omega) sum += std::cos(double(m) * w);
            return sum;
        });
    };
    return f;
}

Family learned_family() {
    Family f("learned");
    f.table = [](const Config& c, std::int64_t n, std::int64_t offset, const TableStorage& storage) {
        const learned::Spec spec = learned::parse(c);
        learned::check_table(spec, n, offset);
        learned::table(spec, n, offset, storage(n, spec.d_model));
    };
    return f;
}

Family none_family() {
    Family f("none");
    f.table = [](const Config& c, std::int64_t n, std::int64_t offset, const TableStorage& storage) {
        if (offset < 0) throw_bad_param("offset", std::to_string(offset), "an integer >= 0");
        const nope::Spec spec = nope::parse(c);
        check_table_shape(n, spec.d_model, "d_model");
        nope::table(spec, n, storage(n, spec.d_model));
    };
    f.decay = [](const Config& c, std::int64_t max_distance, std::uint64_t) {
        nope::parse(c);
        return curve("dot", max_distance, [](std::int64_t) { return 0.0; });
    };
    return f;
}

Family rope_family() {
    Family f("rope");
    f.rotary = [](const Config& c, std::int64_t seq_len) {
        const rope::Spec spec = rope::parse(c);
        const rope::Frequencies fr = rope::frequencies(spec, seq_len);
        return RotaryFrequencies{fr.inv_freq, fr.attention_factor, fr.logit_scale, spec.head_dim, spec.rotary_dim};
    };
    f.rotate = [](const Config& c, const float* x, std::int64_t n, std::int64_t d, std::int64_t offset, float* out) {
        rope::apply(rope::parse(c), x, n, d, offset, out);
    };
    f.decay = [](const Config& c, std::int64_t max_distance, std::uint64_t seed) {
        return rotary_curves(rope::decay(rope::parse(c), max_distance, seed));
    };
    return f;
}

Family xpos_family() {
    Family f("xpos");
    f.rotary = [](const Config& c, std::int64_t) {
        const xpos::Spec spec = xpos::parse(c);
        return RotaryFrequencies{xpos::inv_freq(spec), 1.0, 1.0, spec.head_dim, spec.head_dim};
    };
    f.rotate = [](const Config& c, const float* x, std::int64_t n, std::int64_t d, std::int64_t offset, float* out) {
        xpos::apply(xpos::parse(c), x, n, d, offset, out);
    };
    f.decay = [](const Config& c, std::int64_t max_distance, std::uint64_t seed) {
        return rotary_curves(xpos::decay(xpos::parse(c), max_distance, seed));
    };
    return f;
}

/// A bias family whose b(i, j) is a function of the relative position alone;
/// its decay curve is that function at j - i = -m (a key m tokens back).
/// `at(spec)` prepares the function of j - i once (slopes, bucket tables).
template <class Spec>
Family relative_bias_family(const std::string& type, Spec (*parse)(const Config&),
                            xt::xtensor<float, 2> (*matrix)(const Spec&, std::int64_t),
                            std::function<std::function<double(std::int64_t)>(const Spec&)> at) {
    Family f(type);
    f.bias = [parse, matrix](const Config& c, std::int64_t n) { return matrix(parse(c), n); };
    f.decay = [parse, at](const Config& c, std::int64_t max_distance, std::uint64_t) {
        const auto b = at(parse(c));
        return curve("bias", max_distance, [&](std::int64_t m) { return b(-m); });
    };
    f.head_bias = [parse, at](const Config& c, const float*, std::int64_t n, std::int64_t) {
        const Spec spec = parse(c);
        const auto b = at(spec);
        std::vector<float> by_relative(std::size_t(2 * n - 1));
        for (std::int64_t r = -(n - 1); r <= n - 1; ++r) by_relative[std::size_t(r + n - 1)] = float(b(r));
        HeadBias out;
        out.tile = std::make_unique<kernels::RelativeBias>(std::move(by_relative), n);
        out.causal = spec.causal;
        return out;
    };
    return f;
}

/// The spec's width key must be the head's width (or absent: then it is the head's).
Config with_head_width(const Config& spec, const std::string& key, std::int64_t width) {
    Config out = spec;
    if (!spec.has(key) || std::holds_alternative<std::monostate>(spec.at(key))) out.set(key, double(width));
    return out;
}

/// The spec's width, which must be the head's.
void check_head_width(const std::string& key, std::int64_t value, std::int64_t width) {
    if (value != width)
        throw_bad_param("encoding." + key, std::to_string(value), "the head's width, d_head = " + std::to_string(width));
}

Family shaw_family() {
    Family f("shaw");
    f.bias = [](const Config& c, std::int64_t n) { return shaw::bias(shaw::parse(c), n); };
    f.head_bias = [](const Config& c, const float* q, std::int64_t n, std::int64_t width) {
        const shaw::Spec spec = shaw::parse(with_head_width(c, "head_dim", width));
        check_head_width("head_dim", spec.head_dim, width);
        HeadBias out;
        out.tile = shaw::bias_tile(spec, q, n);
        out.causal = spec.causal;
        return out;
    };
    f.decay = [](const Config& c, std::int64_t max_distance, std::uint64_t) {
        const shaw::Spec spec = shaw::parse(c);
        const auto a = shaw::embeddings(spec);
        const std::int64_t K = spec.max_relative_position;
        return curve("bias", max_distance, [&](std::int64_t m) {  // q = ones: sum of a_clip(-m)
            const std::int64_t row = std::max(-m, -K) + K;
            double sum = 0;
            for (std::int64_t col = 0; col < spec.head_dim; ++col) sum += a(row, col);
            return sum;
        });
    };
    return f;
}

Family transformer_xl_family() {
    Family f("transformer_xl");
    f.bias = [](const Config& c, std::int64_t n) { return transformer_xl::bias(transformer_xl::parse(c), n); };
    f.head_bias = [](const Config& c, const float* q, std::int64_t n, std::int64_t width) {
        const transformer_xl::Spec spec = transformer_xl::parse(with_head_width(c, "d_head", width));
        check_head_width("d_head", spec.d_head, width);
        HeadBias out;
        transformer_xl::relative_factors(spec, q, n, out.q_extra, out.k_extra);
        out.extra_width = spec.d_head;
        out.causal = spec.causal;
        return out;
    };
    f.decay = [](const Config& c, std::int64_t max_distance, std::uint64_t) {
        const transformer_xl::Spec spec = transformer_xl::parse(c);
        const std::vector<double> v = transformer_xl::v(spec);
        return curve("bias", max_distance, [&](std::int64_t m) {  // q = ones, i - j = m
            const std::vector<double> R = transformer_xl::relative_sinusoid(spec, m);
            double sum = 0;
            for (std::size_t k = 0; k < R.size(); ++k) sum += (1.0 + v[k]) * R[k];
            return sum;
        });
    };
    return f;
}

const std::vector<Family>& families() {
    static const std::vector<Family> all = {
        sinusoidal_family(),
        learned_family(),
        none_family(),
        rope_family(),
        xpos_family(),
        relative_bias_family<alibi::Spec>("alibi", alibi::parse, alibi::bias,
                                          [](const alibi::Spec& s) -> std::function<double(std::int64_t)> {
                                              const double m = alibi::slopes(s.n_heads)[std::size_t(s.head)];
                                              return [m](std::int64_t r) { return -m * double(r < 0 ? -r : r); };
                                          }),
        relative_bias_family<t5::Spec>("t5", t5::parse, t5::bias,
                                       [](const t5::Spec& s) -> std::function<double(std::int64_t)> {
                                           const std::vector<double> table = t5::bucket_bias(s);
                                           return [s, table](std::int64_t r) {
                                               return table[std::size_t(t5::relative_position_bucket(
                                                   r, s.bidirectional, s.num_buckets, s.max_distance))];
                                           };
                                       }),
        shaw_family(),
        transformer_xl_family(),
        relative_bias_family<kerple::Spec>("kerple", kerple::parse, kerple::bias,
                                           [](const kerple::Spec& s) -> std::function<double(std::int64_t)> {
                                               return [s](std::int64_t r) { return kerple::at_distance(s, double(r < 0 ? -r : r)); };
                                           }),
    };
    return all;
}

/// Throws "<function>: type "<type>" is not <allowed><more>" (param "type").
[[noreturn]] void wrong_family(const Family& family, const std::string& function, const std::string& allowed,
                               const std::string& more) {
    throw BadParam("type", function + ": type \"" + family.type + "\" is not " + allowed + more, '"' + family.type + '"',
                   allowed);
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
    const Value* value = spec.find("type");
    if (!value) throw BadParam("type", "spec: missing required key \"type\" (" + one_of(known_types()) + ")", "undefined",
                                  one_of(known_types()));
    if (const auto* type = std::get_if<std::string>(value))
        for (const auto& known : known_types())
            if (*type == known) return *type;
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
    const Family& family = family_of(spec);
    if (!family.table)
        wrong_family(family, "positionTable", "an absolute encoding (sinusoidal, learned, none)", "; it has no position table");
    family.table(spec, n, offset, storage);
}

RotaryFrequencies rotary_frequencies(const Config& spec, std::int64_t seq_len) {
    const Family& family = family_of(spec);
    if (!family.rotary)
        wrong_family(family, "ropeInvFreq", "a rotary encoding (rope, xpos)", "");
    return family.rotary(spec, seq_len);
}

xt::xtensor<float, 2> apply_rotary(const Config& spec, const xt::xtensor<float, 2>& x, std::int64_t offset) {
    xt::xtensor<float, 2> out = xt::empty<float>(x.shape());
    apply_rotary(spec, x.data(), std::int64_t(x.shape()[0]), std::int64_t(x.shape()[1]), offset, out.data());
    return out;
}

void apply_rotary(const Config& spec, const float* x, std::int64_t n, std::int64_t d, std::int64_t offset, float* out) {
    const Family& family = family_of(spec);
    if (!family.rotate)
        wrong_family(family, "applyRope", "a rotary encoding (rope, xpos)", "");
    family.rotate(spec, x, n, d, offset, out);
}

Curves decay(const Config& spec, std::int64_t max_distance, std::uint64_t seed) {
    const Family& family = family_of(spec);
    if (!family.decay)
        throw BadParam("type",
                       "decay: type \"" + family.type +
                           "\" has no decay curve (an untrained learned table has no structure to show)",
                       '"' + family.type + '"', "a family with a decay curve");
    if (max_distance < 0 || max_distance > 1000000)
        throw_bad_param("max_distance", std::to_string(max_distance), "an integer in [0, 1000000]");
    return family.decay(spec, max_distance, seed);
}

std::vector<double> decay_distance(std::int64_t max_distance) {
    if (max_distance < 0 || max_distance > 1000000)
        throw_bad_param("max_distance", std::to_string(max_distance), "an integer in [0, 1000000]");
    std::vector<double> m(std::size_t(max_distance + 1));
    for (std::size_t i = 0; i < m.size(); ++i) m[i] = double(i);
    return m;
}

xt::xtensor<float, 2> attention_bias(const Config& spec, std::int64_t n) {
    const Family& family = family_of(spec);
    if (!family.bias)
        wrong_family(family, "attentionBias", "a bias family (alibi, t5, shaw, transformer_xl, kerple)", "");
    return family.bias(spec, n);
}

HeadBias head_bias(const Config& spec, const float* q, std::int64_t n, std::int64_t width) {
    const Family& family = family_of(spec);
    if (!family.head_bias)
        throw_bad_param("encoding.type", '"' + family.type + '"',
                        "a bias family (alibi, t5, shaw, transformer_xl, kerple)");
    if (n < 1 || n > 8192) throw_bad_param("n", std::to_string(n), "an integer in [1, 8192]");
    return family.head_bias(spec, q, n, width);
}

xt::xtensor<float, 2> position_similarity(const Config& spec, std::int64_t n, const std::string& metric) {
    if (metric != "dot" && metric != "cosine") throw_bad_param("metric", '"' + metric + '"', "one of \"dot\", \"cosine\"");
    if (n < 1 || n > 4096) throw_bad_param("n", std::to_string(n), "an integer in [1, 4096]");
    const auto p = position_table(spec, n);  // [n, d]
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
                       '"' + family.type + '"', "a family with sinusoidal frequencies (sinusoidal)");
    return family.frequencies(spec);
}

}  // namespace posenc
