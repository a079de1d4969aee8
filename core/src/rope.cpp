// The rotation of RoPE (apply, rotate_rows), the frequencies of a spec and the
// decay curves, shared with xPos (xpos.cpp). Parsing is in rope_config.cpp, the
// scalings in rope_scaling.cpp.
#include "posenc/rope.hpp"

#include <algorithm>
#include <cmath>

#include "posenc/family.hpp"
#include "posenc/kernels.hpp"
#include "posenc/random.hpp"
#include "posenc/rope_scaling.hpp"
#include "posenc/registry.hpp"
#include "posenc/train.hpp"
#include "posenc/train_slots.hpp"

namespace posenc::rope {

Frequencies frequencies(const Spec& spec, std::int64_t seq_len) {
    if (seq_len < 1 || seq_len > kMaxPosition)
        throw_bad_param("seq_len", std::to_string(seq_len), "an integer in [1, 2^40]");
    return scaled_frequencies(spec, seq_len);
}

void rotate_rows(float* x, std::int64_t n, std::int64_t head_dim, Layout layout,
                 const std::vector<double>& inv_freq, std::int64_t offset, double amplitude,
                 const std::vector<double>& log_gain) {
    kernels::rotate(x, n, head_dim, layout == Layout::interleaved, inv_freq.data(), inv_freq.size(), offset, amplitude,
                    log_gain.empty() ? nullptr : log_gain.data());
}

void check_rows(const xt::xtensor<float, 2>& x, std::int64_t head_dim, std::int64_t offset) {
    check_rows(std::int64_t(x.shape()[0]), std::int64_t(x.shape()[1]), head_dim, offset);
}

void check_rows(std::int64_t n, std::int64_t d, std::int64_t head_dim, std::int64_t offset) {
    if (d != head_dim)
        throw_bad_param("x", "[" + std::to_string(n) + ", " + std::to_string(d) + "]",
                        "a [n, head_dim] matrix with head_dim = " + std::to_string(head_dim));
    check_table_shape(n, d, "head_dim");
    if (offset < 0 || offset > kMaxPosition)
        throw_bad_param("offset", std::to_string(offset), "an integer in [0, 2^40]");
}

void check_rotation_range(const float* x, std::int64_t n, std::int64_t head_dim, std::int64_t offset, double amplitude,
                          const std::vector<double>& log_gain, const std::string& gain_name) {
    constexpr double kLargest = 3.4e38;  // float32's largest finite, 3.4028235e38, less a margin for rounding
    double log_max_gain = 0.0;           // over the pairs and the first and last rows (the gain is monotone in p)
    const double first = double(offset), last = double(offset + n - 1);
    for (const double g : log_gain) log_max_gain = std::max({log_max_gain, g * first, g * last});
    const double gain = amplitude * std::exp(log_max_gain), allowed = kLargest / (std::sqrt(2.0) * gain);
    const double largest = double(kernels::max_abs(x, std::size_t(n * head_dim)));
    if (largest > allowed)
        throw_bad_param("x", "numbers up to " + format_magnitude(largest) + " in magnitude",
                        "|x| <= " + format_magnitude(allowed) + ", so that every rotated pair stays within float32: 3.4e38 / (sqrt(2) x " +
                            gain_name + " = " + format_magnitude(gain) + ")");
}

xt::xtensor<float, 2> apply(const Spec& spec, const xt::xtensor<float, 2>& x, std::int64_t offset) {
    check_rows(x, spec.head_dim, offset);
    xt::xtensor<float, 2> out = xt::empty<float>(x.shape());
    apply(spec, x.data(), std::int64_t(x.shape()[0]), std::int64_t(x.shape()[1]), offset, out.data());
    return out;
}

void apply(const Spec& spec, const float* x, std::int64_t n, std::int64_t d, std::int64_t offset, float* out) {
    check_rows(n, d, spec.head_dim, offset);
    const Frequencies f = frequencies(spec, offset + n);
    check_rotation_range(x, n, d, offset, f.attention_factor, {}, "attention_factor");
    if (out != x) std::copy(x, x + n * d, out);
    rotate_rows(out, n, d, spec.layout, f.inv_freq, offset, f.attention_factor, {});
}

Decay decay(const Spec& spec, std::int64_t max_distance, std::uint64_t seed) {
    if (max_distance < 0 || max_distance > 1000000)
        throw_bad_param("max_distance", std::to_string(max_distance), "an integer in [0, 1000000]");
    const Frequencies f = frequencies(spec, max_distance + 1);
    return rotary_decay(f.inv_freq, f.attention_factor, {}, spec.head_dim, spec.layout, max_distance, seed);
}

Decay rotary_decay(const std::vector<double>& inv_freq, double amplitude, const std::vector<double>& log_gain,
                   std::int64_t head_dim, Layout layout, std::int64_t max_distance, std::uint64_t seed) {
    if (max_distance < 0 || max_distance > 1000000)
        throw_bad_param("max_distance", std::to_string(max_distance), "an integer in [0, 1000000]");
    const std::size_t half = inv_freq.size();
    const std::int64_t rotary_dim = std::int64_t(2 * half);
    const double amp2 = amplitude * amplitude;

    // One random q = k: pair i contributes (a^2 + b^2) g_i(m) cos(m w_i) to
    // q.R(m)q, the pass-through tail its squared norm.
    Random rng(seed);
    std::vector<double> pair_energy(half, 0.0);
    double tail_energy = 0.0;
    for (std::int64_t c = 0; c < head_dim; ++c) {
        const double v = rng.normal();
        if (c >= rotary_dim) {
            tail_energy += v * v;
            continue;
        }
        const std::int64_t pair = layout == Layout::interleaved ? c / 2 : c % std::int64_t(half);
        pair_energy[std::size_t(pair)] += v * v;
    }

    Decay out;
    const std::size_t count = std::size_t(max_distance + 1);
    out.upper_bound.resize(count);
    out.ones.resize(count);
    out.random.resize(count);
    const double tail = double(head_dim - rotary_dim);

    // g_i(m) cos(m w_i) and g_i(m) sin(m w_i) for the current m. Stepping m by
    // one multiplies each pair by its fixed step g_i(1) e^(i w_i); every 64
    // steps they are recomputed from scratch, so rounding cannot build up
    // (about 1e-14 relative) and the inner loop is free of sin, cos and exp.
    constexpr std::size_t kExactEvery = 64;
    std::vector<double> cm(half), sm(half), step_c(half), step_s(half);
    for (std::size_t i = 0; i < half; ++i) {
        const double g = log_gain.empty() ? 1.0 : std::exp(log_gain[i]);
        step_c[i] = g * std::cos(inv_freq[i]);
        step_s[i] = g * std::sin(inv_freq[i]);
    }
    for (std::size_t m = 0; m < count; ++m) {
        if (m % kExactEvery == 0) {
            for (std::size_t i = 0; i < half; ++i) {
                const double angle = double(m) * inv_freq[i];
                const double g = log_gain.empty() ? 1.0 : std::exp(double(m) * log_gain[i]);
                cm[i] = g * std::cos(angle);
                sm[i] = g * std::sin(angle);
            }
        } else {
            for (std::size_t i = 0; i < half; ++i) {
                const double c = cm[i] * step_c[i] - sm[i] * step_s[i];
                sm[i] = sm[i] * step_c[i] + cm[i] * step_s[i];
                cm[i] = c;
            }
        }
        double re = 0, im = 0, bound = 0, ones = 0, random = 0;
        for (std::size_t i = 0; i < half; ++i) {
            re += cm[i];
            im += sm[i];
            bound += std::sqrt(re * re + im * im);  // |S_{i+1}|
            ones += 2.0 * cm[i];
            random += pair_energy[i] * cm[i];
        }
        out.upper_bound[m] = bound / double(half);
        out.ones[m] = amp2 * ones + tail;
        out.random[m] = amp2 * random + tail_energy;
    }
    return out;
}

// ---------------------------------------------------------------------------
// The family's descriptor.

namespace {

/// Training: nothing to learn; q and k rotated at the pass's positions (attention_factor on both,
/// logit_scale on q . k).
template <class Real>
struct Train {
    static train::Slots<Real> slots() {
        train::Slots<Real> s;
        s.prepare = [](const Config& c, train::Pass<Real>& pass) {
            const RotaryFrequencies f = posenc::rotary_frequencies(c, std::int64_t(pass.n));
            const bool interleaved = parse(c).layout == Layout::interleaved;
            pass.rq = train::rotation<Real>(f.inv_freq, interleaved, pass.n, [&](std::size_t, std::size_t) { return f.attention_factor; });
            pass.rk = pass.rq;
            pass.content_scale *= f.logit_scale;
            pass.rotary = true;
        };
        return s;
    }
};

POSENC_COLD Family make_family() {
    const std::string positions = "an integer in [1, " + std::to_string(posenc::kMaxPosition) + "]";
    Family f("rope", Acts::rotary, "head_dim",
             "RoPE: q and k rotated pair by pair by an angle proportional to the position",
             "Su et al. 2021, \"RoFormer\", section 3.4; scalings as transformers' modeling_rope_utils.py",
             {Key::integer("head_dim", 128, 2, 65536, "an even integer in [2, 65536]"),
              Key::above("rope_theta", 10000.0, 1.0, "a finite number > 1 and <= 1e37", 1e37),
              Key::above("partial_rotary_factor", 1.0, 0.0, "a number in (0, 1]", 1.0),
              Key::integer("rotary_dim", std::nullopt, 2, 65536,
                           "an even integer in [2, head_dim] (default: head_dim * partial_rotary_factor)"),
              Key::choice("layout", {"half", "interleaved"}),
              Key::integer("max_position_embeddings", 4096, 1, posenc::kMaxPosition),
              Key::integer("original_max_position_embeddings", std::nullopt, 1, posenc::kMaxPosition,
                           positions + " (default: the scaling block's, else max_position_embeddings)"),
              Key::object("rope_scaling", "an object {rope_type, ...} (transformers v4; keys per rope_type)"),
              Key::object("rope_parameters",
                          "an object {rope_theta, rope_type, ...} (transformers v5; keys per rope_type)")});
    f.rotary = [](const Config& c, std::int64_t seq_len) {
        const Spec spec = parse(c);
        const Frequencies fr = frequencies(spec, seq_len);
        RotaryFrequencies out;
        out.inv_freq = fr.inv_freq;
        out.attention_factor = fr.attention_factor;
        out.logit_scale = fr.logit_scale;
        out.head_dim = spec.head_dim;
        out.rotary_dim = spec.rotary_dim;
        set_pair_columns(out, spec.layout == Layout::interleaved);
        out.ramp_low = fr.ramp_low;
        out.ramp_high = fr.ramp_high;
        return out;
    };
    set_rotary_slots<Spec, Decay, parse, apply, decay>(f);
    return f;
}

/// What the family does in train() (posenc/train_slots.hpp).
POSENC_COLD train::Training make_training() { return train::training<Train>(train::Training{}); }

}  // namespace

const Family& family() { return once<make_family>(); }

const train::Training& training() { return train::once<make_training>(); }

Formula formula() { return {R"((R_{m\theta}q_m)\cdot(R_{n\theta}k_n) = q_m^{\top}R_{(n-m)\theta}\,k_n,\ \theta_i = \mathrm{rope\_theta}^{-2i/d})", "the formula: RoFormer eq. 34"}; }

}  // namespace posenc::rope
