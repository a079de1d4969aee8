#include "posenc/family.hpp"

#include <variant>

#include "posenc/bias.hpp"

namespace posenc {

const char* acts_name(Acts acts) {
    switch (acts) {
        case Acts::absolute: return "absolute";
        case Acts::rotary: return "rotary";
        case Acts::bias: return "bias";
        case Acts::none: return "none";
        case Acts::polar: return "polar";
    }
    return "?";
}

const Key* Family::key(std::string_view name) const {
    for (const Key& k : keys)
        if (k.name == name) return &k;
    return nullptr;
}

void set_pair_columns(RotaryFrequencies& f, bool interleaved) {
    const std::int64_t pairs = f.rotary_dim / 2;
    f.first_column.resize(std::size_t(pairs));
    f.second_column.resize(std::size_t(pairs));
    for (std::int64_t i = 0; i < pairs; ++i) {
        f.first_column[std::size_t(i)] = interleaved ? 2 * i : i;
        f.second_column[std::size_t(i)] = interleaved ? 2 * i + 1 : i + pairs;
    }
}

Curves curve(const std::string& name, std::int64_t max_distance, const std::function<double(std::int64_t)>& f) {
    std::vector<double> values(std::size_t(max_distance + 1));
    for (std::size_t m = 0; m < values.size(); ++m) values[m] = f(std::int64_t(m));
    return {{name, values}};
}

xt::xtensor<float, 2> relative_bias_matrix(const RelativeBias& b, std::int64_t n) { return bias::relative_matrix(n, b.causal, b.at); }

Curves relative_bias_decay(const RelativeBias& b, std::int64_t max_distance) {
    return curve("bias", max_distance, [&](std::int64_t m) { return b.at(-m); });
}

HeadBias relative_head_bias(const RelativeBias& b, const HeadInputs& in) {
    const std::int64_t n = in.n;
    std::vector<float> by_relative(std::size_t(2 * n - 1));
    for (std::int64_t r = -(n - 1); r <= n - 1; ++r) by_relative[std::size_t(r + n - 1)] = float(b.at(r));
    HeadBias out;
    out.tile = std::make_unique<kernels::RelativeBias>(std::move(by_relative), n);
    out.causal = b.causal;
    return out;
}

Config with_head_width(const Config& spec, const std::string& key, std::int64_t width) {
    Config out = spec;
    const Value* given = find_key(spec, key);
    if (!given || given->is_null()) out[key] = double(width);
    return out;
}

void check_head_width(const std::string& key, std::int64_t value, std::int64_t width) {
    if (value != width)
        throw_bad_param("encoding." + key, std::to_string(value), "the head's width, d_head = " + std::to_string(width));
}

}  // namespace posenc
