#include "posenc/sinusoidal.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "posenc/kernels.hpp"

namespace posenc::sinusoidal {

Spec parse(const Config& config) {
    const SpecReader read(config, "sinusoidal spec", {"type", "d_model", "base", "layout", "timescales"});
    Spec spec;
    spec.d_model = read.integer("d_model", spec.d_model, 2, kMaxTableElements);
    spec.base = read.number("base", spec.base, -HUGE_VAL, HUGE_VAL, "a finite number > 1");
    spec.layout = read.choice("layout", "interleaved", {"interleaved", "concat"}) == "concat"
                      ? Layout::concat
                      : Layout::interleaved;
    spec.timescales = read.choice("timescales", "vaswani", {"vaswani", "tensor2tensor"}) == "tensor2tensor"
                          ? Timescales::tensor2tensor
                          : Timescales::vaswani;
    validate(spec);
    return spec;
}

void validate(const Spec& spec) {
    if (spec.d_model < 2 || spec.d_model > kMaxTableElements || spec.d_model % 2 != 0)
        throw_bad_param("d_model", std::to_string(spec.d_model),
                        "an even integer in [2, " + std::to_string(kMaxTableElements) + "]");
    if (!std::isfinite(spec.base) || !(spec.base > 1.0))
        throw_bad_param("base", format_number(spec.base), "a finite number > 1");
}

std::vector<double> inv_freq(const Spec& spec) {
    validate(spec);
    const std::int64_t half = spec.d_model / 2;
    // Exponent of base per pair: -2i/d (paper) or -i/(half-1) (tensor2tensor's
    // log_timescale_increment, guarded against half = 1 as it does).
    const double step = spec.timescales == Timescales::vaswani
                            ? 2.0 / double(spec.d_model)
                            : 1.0 / double(half > 1 ? half - 1 : 1);
    const double log_base = std::log(spec.base);
    std::vector<double> omega(static_cast<std::size_t>(half));
    for (std::int64_t i = 0; i < half; ++i) omega[std::size_t(i)] = std::exp(-double(i) * step * log_base);
    return omega;
}

std::vector<double> wavelength(const Spec& spec) {
    std::vector<double> lambda = inv_freq(spec);
    for (double& x : lambda) x = 2.0 * M_PI / x;
    return lambda;
}

std::int64_t column(const Spec& spec, std::int64_t pair, bool cosine) {
    if (spec.layout == Layout::interleaved) return 2 * pair + (cosine ? 1 : 0);
    return pair + (cosine ? spec.d_model / 2 : 0);
}

void check_table(const Spec& spec, std::int64_t n, std::int64_t offset) {
    validate(spec);
    check_table_shape(n, spec.d_model, "d_model");
    constexpr std::int64_t kMaxOffset = std::int64_t(1) << 40;
    if (offset < 0 || offset > kMaxOffset)
        throw_bad_param("offset", std::to_string(offset), "an integer in [0, 2^40]");
}

xt::xtensor<float, 2> table(const Spec& spec, std::int64_t n, std::int64_t offset) {
    check_table(spec, n, offset);
    xt::xtensor<float, 2> pe = xt::empty<float>({std::size_t(n), std::size_t(spec.d_model)});
    table(spec, n, offset, pe.data());
    return pe;
}

void table(const Spec& spec, std::int64_t n, std::int64_t offset, float* out) {
    check_table(spec, n, offset);
    const std::vector<double> omega = inv_freq(spec);
    kernels::sinusoid_table(out, n, omega.size(), spec.layout == Layout::interleaved, omega.data(), offset);
}

}  // namespace posenc::sinusoidal
