#include "posenc/kerple.hpp"

#include <cmath>

#include "posenc/bias.hpp"

namespace posenc::kerple {

Spec parse(const Config& config) {
    const SpecReader read(config, "kerple spec", {"type", "variant", "r1", "r2", "causal"});
    Spec spec;
    spec.variant = read.choice("variant", "log", {"log", "power"}) == "power" ? Variant::power : Variant::log;
    spec.r1 = read.number("r1", spec.r1, 0x1p-1022, HUGE_VAL, "a finite number > 0");
    if (spec.variant == Variant::power)
        spec.r2 = read.number("r2", spec.r2, 0x1p-1022, 2.0, "a number in (0, 2] (the power variant)");
    else
        spec.r2 = read.number("r2", spec.r2, 0x1p-1022, HUGE_VAL, "a finite number > 0");
    spec.causal = read.boolean("causal", false);
    return spec;
}

double at_distance(const Spec& spec, double distance) {
    return spec.variant == Variant::log ? -spec.r1 * std::log1p(spec.r2 * distance)
                                        : -spec.r1 * std::pow(distance, spec.r2);
}

xt::xtensor<float, 2> bias(const Spec& spec, std::int64_t n) {
    return bias::relative_matrix(n, spec.causal, [&](std::int64_t r) { return at_distance(spec, double(r < 0 ? -r : r)); });
}

}  // namespace posenc::kerple
