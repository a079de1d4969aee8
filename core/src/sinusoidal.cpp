#include "posenc/sinusoidal.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "posenc/kernels.hpp"
#include "posenc/registry.hpp"
#include "posenc/train.hpp"
#include "posenc/train_slots.hpp"

namespace posenc::sinusoidal {
namespace {
// The slowest pair's wavelength is about 2 pi * base tokens, and the JS API hands
// wavelengths out as float32 (largest finite 3.4e38): base <= 1e37 keeps them finite.
constexpr double kMaxBase = 1e37;
constexpr const char* kBaseAllowed = "a finite number > 1 and <= 1e37";

PairFrequencies pairs_of(const Spec& spec) {
    PairFrequencies pairs{inv_freq(spec), {}, {}, {}};
    const std::size_t half = std::size_t(spec.d_model / 2);  // up to 2^23 pairs: each list sized once, not grown
    pairs.wavelength.reserve(pairs.inv_freq.size());
    pairs.sin_column.reserve(half);
    pairs.cos_column.reserve(half);
    for (const double w : pairs.inv_freq) pairs.wavelength.push_back(2.0 * M_PI / w);
    for (std::int64_t i = 0; i < spec.d_model / 2; ++i) {
        pairs.sin_column.push_back(column(spec, i, false));
        pairs.cos_column.push_back(column(spec, i, true));
    }
    return pairs;
}

/// Training: nothing to learn; the table P [n, d] is added to the token embeddings.
template <class Real>
struct Train {
    static train::Slots<Real> slots() {
        train::Slots<Real> s;
        s.prepare = [](const Config& c, train::Pass<Real>& pass) {
            const auto table = posenc::position_table(c, std::int64_t(pass.n));
            pass.table.assign(table.data(), table.data() + pass.n * pass.d);
        };
        return s;
    }
};

POSENC_COLD Family make_family() {
    Family f("sinusoidal", Acts::absolute, "d_model",
             "Sinusoidal: a fixed table of sines and cosines added to the token embeddings",
             "Vaswani et al. 2017, \"Attention Is All You Need\", section 3.5; timescales as tensor2tensor's get_timing_signal_1d",
             {Key::integer("d_model", 512, 2, kMaxTableElements,
                           "an even integer in [2, " + std::to_string(kMaxTableElements) + "]"),
              Key::above("base", 10000.0, 1.0, kBaseAllowed, kMaxBase), Key::choice("layout", {"interleaved", "concat"}),
              Key::choice("timescales", {"vaswani", "tensor2tensor"})});
    f.table = table_slot<Spec, parse, check_table, table>;
    f.frequencies = [](const Config& c) { return pairs_of(parse(c)); };
    f.decay = [](const Config& c, std::int64_t max_distance, std::uint64_t) {
        const std::vector<double> omega = inv_freq(parse(c));
        return curve("dot", max_distance, [&](std::int64_t m) {  // p_n . p_(n+m) = sum_i cos(m w_i)
            double sum = 0;
            for (double w : omega) sum += std::cos(double(m) * w);
            return sum;
        });
    };
    f.decay_work = [](const Config& c, std::int64_t max_distance) {
        return std::vector<budget::Factors>{{{double(max_distance + 1), "distances"},
                                             {double(parse(c).d_model / 2), "pairs"},
                                             {budget::kTrig, "operations per cosine"}}};
    };
    return f;
}

/// What the family does in train() (posenc/train_slots.hpp): its table added to the token embeddings scaled by
/// sqrt(d_model), as Vaswani et al. (section 3.4) scale them. Unscaled, the table's rows (norm sqrt(d_model / 2), 5.7 at
/// the lab's d_model 64) dwarf the embeddings' (norm 1 at their N(0, 1 / d_model) start) at the first RMSNorm: over
/// seeds 0-9 the lab's sinusoidal model then trained to a loss 0.076 nats higher in posenc (2.084 against 2.008) and
/// 0.054 higher in the bench's PyTorch transcription (2.066 against 2.013; scripts/seed-study.mjs [--torch]).
POSENC_COLD train::Training make_training() {
    train::Training t;
    t.scaled_embeddings = true;
    return train::training<Train>(t);
}

}  // namespace

const Family& family() { return once<make_family>(); }

const train::Training& training() { return train::once<make_training>(); }

Spec parse(const Config& config) {
    const SpecReader read(config, family());
    Spec spec;
    spec.d_model = read.integer("d_model");
    spec.base = read.number("base");
    spec.layout = read.choice("layout") == "concat" ? Layout::concat : Layout::interleaved;
    spec.timescales = read.choice("timescales") == "tensor2tensor" ? Timescales::tensor2tensor : Timescales::vaswani;
    validate(spec);
    return spec;
}

void validate(const Spec& spec) {
    const Family& f = family();
    if (spec.d_model < 2 || spec.d_model > kMaxTableElements || spec.d_model % 2 != 0)
        throw_bad_param("d_model", std::to_string(spec.d_model), f.key("d_model")->allowed);
    if (!std::isfinite(spec.base) || !(spec.base > 1.0) || spec.base > kMaxBase)
        throw_bad_param("base", format_number(spec.base), f.key("base")->allowed);
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
    if (offset < 0 || offset > kMaxPosition) throw_bad_param("offset", std::to_string(offset), "an integer in [0, 2^40]");
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

Formula formula() { return {R"(\mathrm{PE}_{\mathrm{pos},2i} = \sin(\mathrm{pos}\,\omega_i),\ \mathrm{PE}_{\mathrm{pos},2i+1} = \cos(\mathrm{pos}\,\omega_i),\ \omega_i = \mathrm{base}^{-2i/d_{\mathrm{model}}})", ""}; }

}  // namespace posenc::sinusoidal
