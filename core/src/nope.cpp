#include "posenc/nope.hpp"

#include <algorithm>
#include <cmath>

#include "posenc/train.hpp"
#include "posenc/train_slots.hpp"

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
    return f;
}

/// What the family does in train() (posenc/train_slots.hpp).
POSENC_COLD train::Training make_training() { return train::training<train::Nothing>(train::Training{}); }

}  // namespace

const Family& family() { return once<make_family>(); }

const train::Training& training() { return train::once<make_training>(); }

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

namespace posenc::nope {

namespace {

void check_temperature(double floor_scale, double attn_scale) {
    if (!(floor_scale >= 1 && floor_scale <= kMaxFloorScale))
        throw_bad_param("floor_scale", format_number(floor_scale), "a number of tokens in [1, 2^40]");
    if (!(std::abs(attn_scale) <= kMaxAttnScale))
        throw_bad_param("attn_scale", format_number(attn_scale), "a finite number in [-1e6, 1e6]");
}

/// floor((p + 1) / floor_scale): the step index of position p.
double step_of(double floor_scale, std::int64_t p) { return std::floor((double(p) + 1.0) / floor_scale); }

double scale_of(double floor_scale, double attn_scale, std::int64_t p) {
    return std::log1p(step_of(floor_scale, p)) * attn_scale + 1.0;
}

/// The first position p >= 1 whose step index is >= k (k >= 1), at most `last`: the closed
/// form ceil(k * floor_scale) - 1, corrected a token either way for the rounding of the division.
std::int64_t first_of_step(double floor_scale, double k, std::int64_t last) {
    const double guess = std::ceil(k * floor_scale) - 1.0;
    std::int64_t p = guess < 1 ? 1 : guess > double(last) ? last : std::int64_t(guess);
    while (p < last && step_of(floor_scale, p) < k) ++p;
    while (p > 1 && step_of(floor_scale, p - 1) >= k) --p;
    return p;
}

}  // namespace

double attention_temperature_at(double floor_scale, double attn_scale, std::int64_t position) {
    check_temperature(floor_scale, attn_scale);
    check_integer("position", position, 0, kMaxPosition);
    return scale_of(floor_scale, attn_scale, position);
}

TemperatureCurve attention_temperature(double floor_scale, double attn_scale, std::int64_t max_position) {
    check_temperature(floor_scale, attn_scale);
    check_integer("max_position", max_position, 1, kMaxPosition);
    // Positions in [1, max_position] where the step index changes: with floor_scale >= 1 the
    // index grows by at most 1 per token, so there is one per step.
    const double changes = step_of(floor_scale, max_position) - step_of(floor_scale, 0);
    std::vector<std::int64_t> points{0};
    TemperatureCurve curve;
    if (changes <= double(kMaxTemperaturePoints - 2)) {
        for (double k = step_of(floor_scale, 0) + 1; k <= step_of(floor_scale, max_position); ++k)
            points.push_back(first_of_step(floor_scale, k, max_position));
    } else {
        curve.sampled = true;
        const std::int64_t targets = kMaxTemperaturePoints - 2;
        const double log_max = std::log(double(max_position));
        for (std::int64_t i = 0; i < targets; ++i) {
            const double at = std::exp(log_max * double(i) / double(targets - 1));
            const auto q = std::clamp(std::int64_t(std::llround(at)), std::int64_t(1), max_position);
            // the start of the step that holds q (0 while q is in the first step)
            const double k = step_of(floor_scale, q);
            points.push_back(k == step_of(floor_scale, 0) ? 0 : first_of_step(floor_scale, k, q));
        }
    }
    points.push_back(max_position);
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    curve.positions.reserve(points.size());
    curve.scale.reserve(points.size());
    for (const std::int64_t p : points) {
        curve.positions.push_back(double(p));
        curve.scale.push_back(scale_of(floor_scale, attn_scale, p));
    }
    return curve;
}

Formula formula() { return {R"(P = 0)", "without a causal mask, attention is permutation-equivariant (the paper studies NoPE with one)"}; }

}  // namespace posenc::nope
