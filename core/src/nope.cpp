#include "posenc/nope.hpp"

#include <algorithm>
#include "posenc/train.hpp"

namespace posenc::nope {

namespace {

POSENC_COLD Family make_family() {
    Family f("none", Acts::none, "d_model",
             "None (NoPE): no position information; without a causal mask, word order is lost",
             "Kazemnejad et al. 2023, \"The Impact of Positional Encoding on Length Generalization in Transformers\"",
             {Key::integer("d_model", 64, 1, kMaxTableElements)});
    f.table = [](const Config& c, std::int64_t n, std::int64_t offset, const TableStorage& storage) {
        if (offset < 0) throw_bad_param("offset", std::to_string(offset), "an integer >= 0");
        const Spec spec = parse(c);
        check_table_shape(n, spec.d_model, "d_model");
        table(spec, n, storage(n, spec.d_model));
    };
    f.decay = [](const Config& c, std::int64_t max_distance, std::uint64_t) {
        parse(c);
        return curve("dot", max_distance, [](std::int64_t) { return 0.0; });
    };
    f.training = train::training<train::Nothing>(train::Training{});
    return f;
}

}  // namespace

const Family& family() { return once<make_family>(); }

Spec parse(const Config& config) {
    const SpecReader read(config, family());
    Spec spec;
    spec.d_model = read.integer("d_model");
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
