#include "posenc/xpos.hpp"

#include <algorithm>

#include <cmath>

namespace posenc::xpos {

Spec parse(const Config& config) {
    const SpecReader read(config, "xpos spec", {"type", "head_dim", "rope_theta", "scale_base", "role", "layout"});
    Spec spec;
    spec.head_dim = read.integer("head_dim", spec.head_dim, 2, 65536);
    if (spec.head_dim % 2 != 0) throw_bad_param("head_dim", std::to_string(spec.head_dim), "an even integer >= 2");
    spec.rope_theta = read.number("rope_theta", spec.rope_theta, 0x1p-1022, HUGE_VAL, "a finite number > 1");
    if (!(spec.rope_theta > 1.0)) throw_bad_param("rope_theta", format_number(spec.rope_theta), "a finite number > 1");
    spec.scale_base = read.number("scale_base", spec.scale_base, 0x1p-1022, HUGE_VAL, "a finite number > 0");
    spec.role = read.choice("role", "query", {"query", "key"}) == "key" ? Role::key : Role::query;
    spec.layout = read.choice("layout", "interleaved", {"interleaved", "half"}) == "half" ? rope::Layout::half
                                                                                         : rope::Layout::interleaved;
    return spec;
}

std::vector<double> inv_freq(const Spec& spec) {
    std::vector<double> inv(static_cast<std::size_t>(spec.head_dim / 2));
    const double log_theta = std::log(spec.rope_theta);
    for (std::size_t i = 0; i < inv.size(); ++i) inv[i] = std::exp(-double(2 * i) / double(spec.head_dim) * log_theta);
    return inv;
}

std::vector<double> zeta(const Spec& spec) {
    std::vector<double> z(static_cast<std::size_t>(spec.head_dim / 2));
    for (std::size_t i = 0; i < z.size(); ++i) z[i] = (double(2 * i) / double(spec.head_dim) + 0.4) / 1.4;
    return z;
}

/// Per pair, ln(zeta_i) / scale_base: the exponent rate of the scale per token.
static std::vector<double> log_rate(const Spec& spec, double sign) {
    std::vector<double> rate = zeta(spec);
    for (double& r : rate) r = sign * std::log(r) / spec.scale_base;
    return rate;
}

xt::xtensor<float, 2> apply(const Spec& spec, const xt::xtensor<float, 2>& x, std::int64_t offset) {
    rope::check_rows(x, spec.head_dim, offset);
    xt::xtensor<float, 2> out = xt::empty<float>(x.shape());
    apply(spec, x.data(), std::int64_t(x.shape()[0]), std::int64_t(x.shape()[1]), offset, out.data());
    return out;
}

void apply(const Spec& spec, const float* x, std::int64_t n, std::int64_t d, std::int64_t offset, float* out) {
    rope::check_rows(n, d, spec.head_dim, offset);
    if (out != x) std::copy(x, x + n * d, out);
    rope::rotate_rows(out, n, d, spec.layout, inv_freq(spec), offset, 1.0,
                      log_rate(spec, spec.role == Role::query ? 1.0 : -1.0));
}

rope::Decay decay(const Spec& spec, std::int64_t max_distance, std::uint64_t seed) {
    return rope::rotary_decay(inv_freq(spec), 1.0, log_rate(spec, 1.0), spec.head_dim, spec.layout, max_distance, seed);
}

}  // namespace posenc::xpos
