#include "posenc/xpos.hpp"

#include <algorithm>

#include <cmath>
#include "posenc/train.hpp"
#include "posenc/train_slots.hpp"

namespace posenc::xpos {

namespace {

/// Training: nothing to learn; q and k rotated and scaled by zeta^(+-t / scale_base).
template <class Real>
struct Train {
    static train::Slots<Real> slots() {
        train::Slots<Real> s;
        s.prepare = [](const Config& c, train::Pass<Real>& pass) {
            const Spec spec = parse(c);
            const std::vector<double> z = zeta(spec), w = inv_freq(spec);
            const bool interleaved = spec.layout == rope::Layout::interleaved;
            pass.rq = train::rotation<Real>(w, interleaved, pass.n, [&](std::size_t t, std::size_t p) { return std::pow(z[p], double(t) / spec.scale_base); });
            pass.rk = train::rotation<Real>(w, interleaved, pass.n, [&](std::size_t t, std::size_t p) { return std::pow(z[p], -double(t) / spec.scale_base); });
            pass.rotary = true;
        };
        return s;
    }
};

POSENC_COLD Family make_family() {
    Family f("xpos", Acts::rotary, "head_dim",
             "xPos: the RoPE rotation with a per-pair exponential decay of q . k with distance",
             "Sun et al. 2022, \"A Length-Extrapolatable Transformer\", section 3.2; torchscale's XPOS",
             {Key::integer("head_dim", 64, 2, 65536, "an even integer in [2, 65536]"),
              Key::above("rope_theta", 10000.0, 1.0, "a finite number > 1"),
              Key::number("scale_base", 512.0, 1.0, 1e9, "a number in [1, 1e9] (the paper: 512)"), Key::choice("role", {"query", "key"}),
              Key::choice("layout", {"interleaved", "half"})});
    f.rotary = [](const Config& c, std::int64_t) {
        const Spec spec = parse(c);
        RotaryFrequencies out;
        out.inv_freq = inv_freq(spec);
        out.head_dim = out.rotary_dim = spec.head_dim;
        set_pair_columns(out, spec.layout == rope::Layout::interleaved);
        return out;
    };
    set_rotary_slots<Spec, rope::Decay, parse, apply, decay>(f);
    return f;
}

/// What the family does in train() (posenc/train_slots.hpp).
POSENC_COLD train::Training make_training() { return train::training<Train>(train::Training{}); }

}  // namespace

const Family& family() { return once<make_family>(); }

const train::Training& training() { return train::once<make_training>(); }

Spec parse(const Config& config) {
    const SpecReader read(config, family());
    Spec spec;
    spec.head_dim = read.integer("head_dim");
    if (spec.head_dim % 2 != 0) throw_bad_param("head_dim", std::to_string(spec.head_dim), family().key("head_dim")->allowed);
    spec.rope_theta = read.number("rope_theta");
    spec.scale_base = read.number("scale_base");
    spec.role = read.choice("role") == "key" ? Role::key : Role::query;
    spec.layout = read.choice("layout") == "half" ? rope::Layout::half : rope::Layout::interleaved;
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

std::int64_t max_position(const Spec& spec) {
    // The fastest pair's zeta_0 = 0.4 / 1.4 scales most: |ln zeta_0| p / scale_base <= 80
    // keeps zeta_0^(+-p / scale_base) (e^80 = 5.5e34) and its product with |x| <= e^8 within float32.
    return std::int64_t(std::floor(80.0 * spec.scale_base / -std::log(zeta(spec)[0])));
}

void apply(const Spec& spec, const float* x, std::int64_t n, std::int64_t d, std::int64_t offset, float* out) {
    rope::check_rows(n, d, spec.head_dim, offset);
    const std::int64_t last = max_position(spec);
    if (offset + n - 1 > last)
        throw_bad_param("positionOffset", std::to_string(offset),
                        "positions offset .. offset + n - 1 up to " + std::to_string(last) +
                            " for xpos with scale_base = " + format_number(spec.scale_base) +
                            " (beyond, the scale zeta^(position / scale_base) overflows float32)");
    const std::vector<double> rate = log_rate(spec, spec.role == Role::query ? 1.0 : -1.0);
    rope::check_rotation_range(x, n, d, offset, 1.0, rate, "the largest xPos scale zeta^(+-position / scale_base) here");
    if (out != x) std::copy(x, x + n * d, out);
    rope::rotate_rows(out, n, d, spec.layout, inv_freq(spec), offset, 1.0, rate);
}

rope::Decay decay(const Spec& spec, std::int64_t max_distance, std::uint64_t seed) {
    return rope::rotary_decay(inv_freq(spec), 1.0, log_rate(spec, 1.0), spec.head_dim, spec.layout, max_distance, seed);
}

Formula formula() { return {R"(q_n \mapsto \zeta^{n/\gamma}R_{n\theta}q_n,\ k_m \mapsto \zeta^{-m/\gamma}R_{m\theta}k_m,\ \zeta_i = \frac{2i/d + 0.4}{1.4})", "γ = scale_base"}; }

}  // namespace posenc::xpos
