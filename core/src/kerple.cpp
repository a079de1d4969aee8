#include "posenc/kerple.hpp"

#include <cmath>

#include "posenc/bias.hpp"

namespace posenc::kerple {

namespace {

// r2's range for the power variant, (0, 2], depends on the variant: parse checks it.
// r1, r2 <= 1e6 keep the bias finite in float32 at every distance (r1 log1p(r2 m) <= 1e6 * 42
// at m = 2^40; r1 m^2 <= 1e6 * 2^26 within a head of 8192 tokens).
Family make_family() {
    Family f("kerple", Acts::bias, "", "KERPLE: a kernel of the distance (log or power) added to the logits",
             "Chi et al. 2022, \"KERPLE: Kernelized Relative Positional Embedding for Length Extrapolation\", "
             "section 4",
             {Key::choice("variant", {"log", "power"}), Key::above("r1", 1.0, 0.0, "a finite number > 0 and <= 1e6", 1e6),
              Key::above("r2", 1.0, 0.0, "a finite number > 0 and <= 1e6", 1e6), Key::boolean("causal", false)});
    set_relative_bias(f, [](const Config& c) { return relative(parse(c)); });
    return f;
}

}  // namespace

const Family& family() { return once<make_family>(); }

Spec parse(const Config& config) {
    const SpecReader read(config, family());
    Spec spec;
    spec.variant = read.choice("variant") == "power" ? Variant::power : Variant::log;
    spec.r1 = read.number("r1");
    if (spec.variant == Variant::power)
        spec.r2 = read.number("r2", 0x1p-1022, 2.0, "a number in (0, 2] (the power variant)");
    else
        spec.r2 = read.number("r2");
    spec.causal = read.boolean("causal");
    return spec;
}

double at_distance(const Spec& spec, double distance) {
    return spec.variant == Variant::log ? -spec.r1 * std::log1p(spec.r2 * distance)
                                        : -spec.r1 * std::pow(distance, spec.r2);
}

RelativeBias relative(const Spec& spec) {
    return {[spec](std::int64_t r) { return at_distance(spec, double(r < 0 ? -r : r)); }, spec.causal};
}

xt::xtensor<float, 2> bias(const Spec& spec, std::int64_t n) {
    const RelativeBias b = relative(spec);
    return bias::relative_matrix(n, b.causal, b.at);
}

}  // namespace posenc::kerple
