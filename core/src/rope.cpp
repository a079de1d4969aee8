#include "posenc/rope.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "posenc/kernels.hpp"
#include "posenc/random.hpp"

namespace posenc::rope {
namespace {

constexpr std::int64_t kMaxPosition = std::int64_t(1) << 40;
constexpr double kTwoPi = 2.0 * M_PI;

// ---------------------------------------------------------------------------
// One function per rope_type, all (spec, seq_len) -> Frequencies, as in
// transformers' ROPE_INIT_FUNCTIONS. d = rotary_dim, L = the original context.

/// theta^(-2i/d) for i < d/2: RoFormer eq. 15.
std::vector<double> base_inv_freq(double theta, std::int64_t d) {
    std::vector<double> inv(static_cast<std::size_t>(d / 2));
    const double log_theta = std::log(theta);
    for (std::size_t i = 0; i < inv.size(); ++i) inv[i] = std::exp(-double(2 * i) / double(d) * log_theta);
    return inv;
}

Frequencies compute_default(const Spec& s, std::int64_t) {
    return {base_inv_freq(s.rope_theta, s.rotary_dim), 1.0};
}

/// Position Interpolation (Chen et al. 2023, eq. 4): positions divided by the
/// factor, i.e. every frequency divided by it.
Frequencies compute_linear(const Spec& s, std::int64_t) {
    Frequencies f = compute_default(s, 0);
    for (double& x : f.inv_freq) x /= s.scaling.factor;
    return f;
}

/// NTK-aware scaling (bloc97, 2023): change the base to theta * s^(d/(d-2)), so
/// the slowest pair is interpolated by s while the fastest is kept.
Frequencies compute_ntk(const Spec& s, std::int64_t) {
    const double d = double(s.rotary_dim);
    const double theta = s.rope_theta * std::pow(s.scaling.factor, d / (d - 2.0));
    return {base_inv_freq(theta, s.rotary_dim), 1.0};
}

/// Dynamic NTK (emozilla, 2023; transformers' _compute_dynamic_ntk_parameters):
/// for a sequence longer than L = max_position_embeddings the base becomes
/// theta * (s * seq_len / L - (s - 1))^(d/(d-2)); up to L it is the default.
/// (The reference accepts original_max_position_embeddings here but reads
/// max_position_embeddings, in v4 and v5 alike; so does this.)
Frequencies compute_dynamic(const Spec& s, std::int64_t seq_len) {
    const double d = double(s.rotary_dim);
    const double L = double(s.max_position_embeddings);
    const double len = std::max(double(seq_len), L);
    const double f = s.scaling.factor;
    const double theta = s.rope_theta * std::pow(f * len / L - (f - 1.0), d / (d - 2.0));
    return {base_inv_freq(theta, s.rotary_dim), 1.0};
}

/// YaRN's magnitude correction 0.1 * mscale * ln(s) + 1 (1 for s <= 1).
double yarn_get_mscale(double scale, double mscale) {
    return scale <= 1.0 ? 1.0 : 0.1 * mscale * std::log(scale) + 1.0;
}

/// YaRN (Peng et al. 2023, section 3.2 "NTK-by-parts" + 3.4; transformers v5
/// _compute_yarn_parameters, which v4.5x agrees with): pair i keeps its
/// frequency (extrapolation) when it turns more than beta_fast times within L,
/// is divided by s (interpolation) when it turns fewer than beta_slow times,
/// and blends linearly in between. The pair that turns r times over L is
/// d * ln(L / (2 pi r)) / (2 ln theta); with truncate (default) the ramp ends
/// are floored / ceiled. The attention factor: the config's, else
/// m(s, mscale) / m(s, mscale_all_dim) when both are non-zero (DeepSeek), else
/// m(s, 1), m(s, k) = 0.1 k ln s + 1. The two generations of the reference differ
/// on s: v4.48-4.52 replaced it by max_position_embeddings / L whenever L was
/// given; v5 (and v4.5x) use the config's factor, as here. DeepSeek's own code
/// also multiplies the softmax scale by m(s, mscale_all_dim)^2: logit_scale.
Frequencies compute_yarn(const Spec& s, std::int64_t) {
    const Scaling& y = s.scaling;
    const double d = double(s.rotary_dim);
    const double L = double(y.original_max_position_embeddings);
    const auto correction_dim = [&](double rotations) {
        return d * std::log(L / (rotations * kTwoPi)) / (2.0 * std::log(s.rope_theta));
    };
    double low = correction_dim(y.beta_fast), high = correction_dim(y.beta_slow);
    if (y.truncate) {
        low = std::floor(low);
        high = std::ceil(high);
    }
    low = std::max(low, 0.0);
    high = std::min(high, d - 1.0);
    if (low == high) high += 0.001;  // the reference's guard against a zero-width ramp

    Frequencies f = compute_default(s, 0);
    for (std::size_t i = 0; i < f.inv_freq.size(); ++i) {
        const double ramp = std::clamp((double(i) - low) / (high - low), 0.0, 1.0);
        const double extrapolate = 1.0 - ramp;  // 1: keep the frequency, 0: divide by s
        f.inv_freq[i] = f.inv_freq[i] / y.factor * ramp + f.inv_freq[i] * extrapolate;
    }
    // The attention factor: given, or from DeepSeek's mscale pair, or 0.1 ln s + 1.
    if (y.attention_factor) {
        f.attention_factor = *y.attention_factor;
    } else if (y.mscale && y.mscale_all_dim && *y.mscale != 0.0 && *y.mscale_all_dim != 0.0) {
        f.attention_factor = yarn_get_mscale(y.factor, *y.mscale) / yarn_get_mscale(y.factor, *y.mscale_all_dim);
    } else {
        f.attention_factor = yarn_get_mscale(y.factor, 1.0);
    }
    if (y.mscale_all_dim && *y.mscale_all_dim != 0.0) {
        const double m = yarn_get_mscale(y.factor, *y.mscale_all_dim);
        f.logit_scale = m * m;
    }
    return f;
}

/// Llama 3.1 (Meta's reference apply_scaling; transformers' _compute_llama3_parameters):
/// pairs with wavelength below L / high_freq_factor keep their frequency, those
/// above L / low_freq_factor are divided by s, and in between the two are
/// blended with weight smooth = (L / wavelength - low) / (high - low).
Frequencies compute_llama3(const Spec& s, std::int64_t) {
    const Scaling& c = s.scaling;
    const double L = double(c.original_max_position_embeddings);
    const double low_freq_wavelen = L / c.low_freq_factor;
    const double high_freq_wavelen = L / c.high_freq_factor;
    Frequencies f = compute_default(s, 0);
    for (double& inv : f.inv_freq) {
        const double wavelen = kTwoPi / inv;
        if (wavelen < high_freq_wavelen) continue;  // high frequency: unchanged
        if (wavelen > low_freq_wavelen) {           // low frequency: interpolated
            inv /= c.factor;
            continue;
        }
        const double smooth = (L / wavelen - c.low_freq_factor) / (c.high_freq_factor - c.low_freq_factor);
        inv = (1.0 - smooth) * inv / c.factor + smooth * inv;
    }
    return f;
}

/// LongRoPE (Ding et al. 2024) as Phi-3 uses it (transformers v5
/// _compute_longrope_parameters): pair i's frequency divided by long_factor[i]
/// when the sequence is longer than L (strictly), else by short_factor[i];
/// attention factor sqrt(1 + ln(s) / ln(L)) (1 when s <= 1), with s the
/// config's factor, else max_position_embeddings / L. (v4 always used the
/// latter when L sat at the top level.)
Frequencies compute_longrope(const Spec& s, std::int64_t seq_len) {
    const Scaling& c = s.scaling;
    const double L = double(c.original_max_position_embeddings);
    const std::vector<double>& rescale = double(seq_len) > L ? c.long_factor : c.short_factor;
    Frequencies f = compute_default(s, 0);
    for (std::size_t i = 0; i < f.inv_freq.size(); ++i) f.inv_freq[i] /= rescale[i];
    if (c.attention_factor) {
        f.attention_factor = *c.attention_factor;
    } else {
        const double factor = c.factor_given ? c.factor : double(s.max_position_embeddings) / L;
        f.attention_factor = factor <= 1.0 ? 1.0 : std::sqrt(1.0 + std::log(factor) / std::log(L));
    }
    return f;
}

struct RopeType {
    std::string name;
    std::vector<std::string> required, optional;
    Frequencies (*compute)(const Spec&, std::int64_t seq_len);
};

const std::vector<RopeType>& registry() {
    static const std::vector<RopeType> types = {
        {"default", {}, {}, compute_default},
        {"linear", {"factor"}, {}, compute_linear},
        {"ntk", {"factor"}, {}, compute_ntk},
        {"dynamic", {"factor"}, {"original_max_position_embeddings"}, compute_dynamic},
        {"yarn", {"factor"},
         {"original_max_position_embeddings", "attention_factor", "beta_fast", "beta_slow", "mscale",
          "mscale_all_dim", "truncate"},
         compute_yarn},
        {"llama3", {"factor", "original_max_position_embeddings", "low_freq_factor", "high_freq_factor"}, {},
         compute_llama3},
        {"longrope", {"short_factor", "long_factor"},
         {"factor", "original_max_position_embeddings", "attention_factor"}, compute_longrope},
    };
    return types;
}

const RopeType& rope_type_named(const std::string& name) {
    for (const RopeType& t : registry())
        if (t.name == name) return t;
    throw_bad_param("rope_type", '"' + name + '"', one_of(rope_types()));
}

// ---------------------------------------------------------------------------
// Parsing.

/// Reads one scaling key into `out`, with the type and range each key has.
void read_scaling_key(const SpecReader& read, const std::string& key, std::int64_t half, Scaling& out) {
    const double inf = HUGE_VAL;
    if (key == "factor") {
        out.factor_given = read.present(key);
        out.factor = read.number(key, 1.0, 1.0, inf, "a finite number >= 1");
    } else if (key == "original_max_position_embeddings") {
        out.original_max_position_embeddings =
            read.integer(key, out.original_max_position_embeddings, 1, kMaxPosition);
    } else if (key == "attention_factor") {
        out.attention_factor = read.optional_number(key, 0x1p-1022, inf, "a finite number > 0");
    } else if (key == "beta_fast" || key == "beta_slow") {
        (key == "beta_fast" ? out.beta_fast : out.beta_slow) =
            read.number(key, key == "beta_fast" ? 32.0 : 1.0, 0x1p-1022, inf, "a finite number > 0");
    } else if (key == "mscale" || key == "mscale_all_dim") {
        (key == "mscale" ? out.mscale : out.mscale_all_dim) = read.optional_number(key, 0.0, inf, "a finite number >= 0");
    } else if (key == "truncate") {
        out.truncate = read.boolean(key, true);
    } else if (key == "low_freq_factor" || key == "high_freq_factor") {
        (key == "low_freq_factor" ? out.low_freq_factor : out.high_freq_factor) =
            read.number(key, 1.0, 0x1p-1022, inf, "a finite number > 0");
    } else if (key == "short_factor" || key == "long_factor") {
        const char* const allowed = "finite numbers > 0";
        auto list = read.number_list(key, 0x1p-1022, inf, allowed);
        if (list && std::int64_t(list->size()) != half)
            throw_bad_param(key, "a list of " + std::to_string(list->size()) + " numbers",
                            "a list of rotary_dim / 2 = " + std::to_string(half) + " numbers");
        (key == "short_factor" ? out.short_factor : out.long_factor) = list ? *list : std::vector<double>{};
    } else {
        throw std::logic_error("rope: no reader for scaling key " + key);
    }
}

/// The scaling block (v4 rope_scaling, or v5 rope_parameters whose rope_theta
/// the caller has read). `block` may be null: no scaling.
Scaling parse_scaling(const Config* block, const std::string& block_name, bool v5, std::int64_t half,
                      std::int64_t max_position_embeddings, std::optional<std::int64_t> top_level_original) {
    Scaling out;
    std::string type = "default";
    if (block) {
        const bool has_rope_type = block->has("rope_type"), has_type = block->has("type");
        const Value* name = has_rope_type ? &block->at("rope_type") : has_type ? &block->at("type") : nullptr;
        if (!name && !v5)
            throw BadParam("rope_type", block_name + ": missing required key \"rope_type\" (one of default, linear, "
                                                    "ntk, dynamic, yarn, llama3, longrope)");
        if (name) {
            const auto* text = std::get_if<std::string>(name);
            if (!text) throw_bad_param("rope_type", describe(*name), "a string such as \"yarn\"");
            type = *text;
        }
    }
    const RopeType& rope_type = rope_type_named(type);
    out.rope_type = rope_type.name;
    out.original_max_position_embeddings = max_position_embeddings;
    if (!block) {
        if (top_level_original) out.original_max_position_embeddings = *top_level_original;
        return out;
    }

    std::vector<std::string_view> keys = {"rope_type", "type"};
    if (v5) keys.insert(keys.end(), {"rope_theta", "partial_rotary_factor"});
    keys.insert(keys.end(), rope_type.required.begin(), rope_type.required.end());
    keys.insert(keys.end(), rope_type.optional.begin(), rope_type.optional.end());
    const SpecReader read(*block, block_name + " (rope_type \"" + type + "\")", std::move(keys));
    for (const auto& key : rope_type.required)
        if (!read.present(key)) read.require(key, "see the " + type + " scaling");
    for (const auto* group : {&rope_type.required, &rope_type.optional})
        for (const auto& key : *group) read_scaling_key(read, key, half, out);
    if (top_level_original) out.original_max_position_embeddings = *top_level_original;  // v5's priority

    if (type == "llama3" && !(out.low_freq_factor < out.high_freq_factor))
        throw_bad_param("low_freq_factor", format_number(out.low_freq_factor),
                        "a number < high_freq_factor = " + format_number(out.high_freq_factor));
    return out;
}

/// One number of a nested block, checked like a top-level key.
double block_number(const Config& block, const std::string& key, double fallback, double lo, double hi,
                    const std::string& allowed) {
    if (!block.has(key)) return fallback;
    const Config one{{key, block.at(key)}};
    return SpecReader(one, "rope_parameters", {key}).number(key, fallback, lo, hi, allowed);
}

void check_half_even(const std::string& name, std::int64_t value) {
    if (value < 2 || value % 2 != 0) throw_bad_param(name, std::to_string(value), "an even integer >= 2");
}

}  // namespace

const std::vector<std::string>& rope_types() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        for (const RopeType& t : registry()) out.push_back(t.name);
        return out;
    }();
    return names;
}

Spec parse(const Config& config) {
    const SpecReader read(config, "rope spec",
                          {"type", "head_dim", "rope_theta", "partial_rotary_factor", "rotary_dim", "layout",
                           "max_position_embeddings", "original_max_position_embeddings", "rope_scaling",
                           "rope_parameters"});
    Spec spec;
    spec.head_dim = read.integer("head_dim", spec.head_dim, 2, 65536);
    check_half_even("head_dim", spec.head_dim);
    spec.layout = read.choice("layout", "half", {"half", "interleaved"}) == "interleaved" ? Layout::interleaved
                                                                                          : Layout::half;
    spec.max_position_embeddings = read.integer("max_position_embeddings", spec.max_position_embeddings, 1, kMaxPosition);

    const Config* v4 = read.object("rope_scaling");
    const Config* v5 = read.object("rope_parameters");
    if (v4 && v5)
        throw BadParam("rope_scaling", "rope spec: give rope_parameters (transformers v5) or rope_scaling (v4), not both");

    // The rotated width: rotary_dim (GPT-J), else partial_rotary_factor from the
    // top level, else from rope_parameters (v5), else 1.
    if (read.present("partial_rotary_factor") && read.present("rotary_dim"))
        throw BadParam("rotary_dim", "rope spec: give partial_rotary_factor or rotary_dim, not both");
    if (read.present("rotary_dim")) {
        spec.rotary_dim = read.integer("rotary_dim", 0, 2, spec.head_dim);
        check_half_even("rotary_dim", spec.rotary_dim);
    } else {
        const char* const allowed = "a number in (0, 1]";
        double prf = v5 ? block_number(*v5, "partial_rotary_factor", 1.0, 0x1p-1022, 1.0, allowed) : 1.0;
        prf = read.number("partial_rotary_factor", prf, 0x1p-1022, 1.0, allowed);
        spec.rotary_dim = std::int64_t(double(spec.head_dim) * prf) / 2 * 2;
        if (spec.rotary_dim < 2)
            throw_bad_param("partial_rotary_factor", format_number(prf),
                            "a number in (0, 1] with head_dim * partial_rotary_factor >= 2");
    }

    // rope_theta: rope_parameters' own, else the top level's (v5's setdefault), else 10000.
    const char* const theta_allowed = "a finite number > 1";
    spec.rope_theta = read.number("rope_theta", spec.rope_theta, -HUGE_VAL, HUGE_VAL, theta_allowed);
    if (v5) spec.rope_theta = block_number(*v5, "rope_theta", spec.rope_theta, -HUGE_VAL, HUGE_VAL, theta_allowed);
    if (!(spec.rope_theta > 1.0)) throw_bad_param("rope_theta", format_number(spec.rope_theta), theta_allowed);

    std::optional<std::int64_t> top_original;
    if (read.present("original_max_position_embeddings"))
        top_original = read.integer("original_max_position_embeddings", 0, 1, kMaxPosition);
    spec.scaling = parse_scaling(v5 ? v5 : v4, v5 ? "rope_parameters" : "rope_scaling", v5 != nullptr,
                                 spec.rotary_dim / 2, spec.max_position_embeddings, top_original);
    return spec;
}

Frequencies frequencies(const Spec& spec, std::int64_t seq_len) {
    if (seq_len < 1 || seq_len > kMaxPosition)
        throw_bad_param("seq_len", std::to_string(seq_len), "an integer in [1, 2^40]");
    return rope_type_named(spec.scaling.rope_type).compute(spec, seq_len);
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

xt::xtensor<float, 2> apply(const Spec& spec, const xt::xtensor<float, 2>& x, std::int64_t offset) {
    check_rows(x, spec.head_dim, offset);
    xt::xtensor<float, 2> out = xt::empty<float>(x.shape());
    apply(spec, x.data(), std::int64_t(x.shape()[0]), std::int64_t(x.shape()[1]), offset, out.data());
    return out;
}

void apply(const Spec& spec, const float* x, std::int64_t n, std::int64_t d, std::int64_t offset, float* out) {
    check_rows(n, d, spec.head_dim, offset);
    const Frequencies f = frequencies(spec, offset + n);
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

}  // namespace posenc::rope

// ---------------------------------------------------------------------------
// The family's descriptor and the keys of each rope_type (declared in
// posenc/family.hpp while this file is being split; kept at its end).

#include "posenc/family.hpp"

namespace posenc::rope {

namespace {

Family make_family() {
    const std::string positions = "an integer in [1, " + std::to_string(posenc::kMaxPosition) + "]";
    Family f("rope", Acts::rotary, "head_dim",
             "RoPE: q and k rotated pair by pair by an angle proportional to the position",
             "Su et al. 2021, \"RoFormer\", section 3.4; scalings as transformers' modeling_rope_utils.py",
             {Key::integer("head_dim", 128, 2, 65536, "an even integer in [2, 65536]"),
              Key::above("rope_theta", 10000.0, 1.0, "a finite number > 1"),
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
        return RotaryFrequencies{fr.inv_freq, fr.attention_factor, fr.logit_scale, spec.head_dim, spec.rotary_dim};
    };
    set_rotary_slots(f, parse, apply, decay);
    return f;
}

}  // namespace

const Family& family() { return once<make_family>(); }

const std::vector<ScalingKeys>& scaling_keys() {
    static const std::vector<ScalingKeys> keys = [] {
        std::vector<ScalingKeys> out;
        for (const RopeType& t : registry()) out.push_back({t.name, t.required, t.optional});
        return out;
    }();
    return keys;
}

}  // namespace posenc::rope
