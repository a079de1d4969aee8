#include "posenc/nope.hpp"

#include <algorithm>

namespace posenc::nope {

Spec parse(const Config& config) {
    const SpecReader read(config, "none spec", {"type", "d_model"});
    Spec spec;
    spec.d_model = read.integer("d_model", spec.d_model, 1, kMaxTableElements);
    return spec;
}

xt::xtensor<float, 2> table(const Spec& spec, std::int64_t n) {
    check_table_shape(n, spec.d_model, "d_model");
    return xt::zeros<float>({std::size_t(n), std::size_t(spec.d_model)});
}

void table(const Spec& spec, std::int64_t n, float* out) {
    check_table_shape(n, spec.d_model, "d_model");
    std::fill(out, out + n * spec.d_model, 0.0f);
}

}  // namespace posenc::nope
