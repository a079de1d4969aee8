// The RoPE scalings: one entry per rope_type holding its keys (the table
// scaling_types() lists), its validator and its compute function.
#include "posenc/rope_scaling.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <limits>
#include <stdexcept>

#include "posenc/rope.hpp"

namespace posenc::rope {
namespace {


// ---------------------------------------------------------------------------
// One function per rope_type, all (spec, seq_len) -> Frequencies, as in
// transformers' ROPE_INIT_FUNCTIONS. d = rotary_dim, L = the original context.

/// theta^(-2i/d) for i < d/2 from ln theta: RoFormer eq. 15.
std::vector<double> inv_freq_from_log(double log_theta, std::int64_t d) {
    std::vector<double> inv(static_cast<std::size_t>(d / 2));
    for (std::size_t i = 0; i < inv.size(); ++i) inv[i] = std::exp(-double(2 * i) / double(d) * log_theta);
    return inv;
}

/// theta^(-2i/d) for i < d/2: RoFormer eq. 15.
std::vector<double> base_inv_freq(double theta, std::int64_t d) { return inv_freq_from_log(std::log(theta), d); }

/// The exponent d/(d-2) of NTK's new base; d = 2 has none (the one pair is the
/// fastest and the slowest at once), so it is refused, naming rotary_dim.
double ntk_exponent(const Spec& s) {
    if (s.rotary_dim < 4)
        throw_bad_param("rotary_dim", std::to_string(s.rotary_dim),
                        "an even integer >= 4 with rope_type \"" + s.scaling.rope_type +
                            "\" (its base theta * factor^(d / (d - 2)) is infinite at d = 2)");
    return double(s.rotary_dim) / (double(s.rotary_dim) - 2.0);
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
    // In logs: theta * factor^(d/(d-2)) overflows for a huge factor where its log does not.
    return {inv_freq_from_log(std::log(s.rope_theta) + ntk_exponent(s) * std::log(s.scaling.factor), s.rotary_dim), 1.0};
}

/// Dynamic NTK (emozilla, 2023; transformers' _compute_dynamic_ntk_parameters):
/// for a sequence longer than L = max_position_embeddings the base becomes
/// theta * (s * seq_len / L - (s - 1))^(d/(d-2)); up to L it is the default.
/// (The reference accepts original_max_position_embeddings here but reads
/// max_position_embeddings, in v4 and v5 alike; so does this.)
Frequencies compute_dynamic(const Spec& s, std::int64_t seq_len) {
    const double L = double(s.max_position_embeddings);
    const double len = std::max(double(seq_len), L);
    const double f = s.scaling.factor;
    const double grown = f * len / L - (f - 1.0);  // >= 1
    return {inv_freq_from_log(std::log(s.rope_theta) + ntk_exponent(s) * std::log(grown), s.rotary_dim), 1.0};
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
    f.ramp_low = low;
    f.ramp_high = high;
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
        // Equal factors: the band is the one wavelength L / low_freq_factor, where the reference's blend is 0 / 0;
        // such a pair is kept (no published config has one there).
        if (c.high_freq_factor == c.low_freq_factor) continue;
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
        if (factor > 1.0 && L < 2)
            throw_bad_param("original_max_position_embeddings", format_number(L),
                            "an integer >= 2 with longrope when attention_factor is not given (the factor "
                            "sqrt(1 + ln(s) / ln(L)) divides by ln L = 0 at L = 1)");
        f.attention_factor = factor <= 1.0 ? 1.0 : std::sqrt(1.0 + std::log(factor) / std::log(L));
    }
    return f;
}

/// Proportional RoPE (p-RoPE: Barbero et al. 2025, "Round and Round We Go! What
/// makes Rotary Positional Encodings useful?", section 6; transformers v5
/// _compute_proportional_rope_parameters, Gemma-4's global layers): the first
/// rotated_pairs = floor(partial_rotary_factor * head_dim / 2) pairs turn at
/// rope_theta^(-2i / head_dim), with the exponent over the whole head (not over
/// the rotated width, as partial_rotary_factor means in the other types); the
/// remaining pairs get frequency 0, so they carry no position. Every frequency is
/// divided by factor (default 1); the attention factor is 1.
Frequencies compute_proportional(const Spec& s, std::int64_t) {
    Frequencies f = compute_default(s, 0);  // rotary_dim = head_dim here (parse)
    for (std::size_t i = 0; i < f.inv_freq.size(); ++i)
        f.inv_freq[i] = std::int64_t(i) < s.scaling.rotated_pairs ? f.inv_freq[i] / s.scaling.factor : 0.0;
    return f;
}

// ---------------------------------------------------------------------------
// The validators: one per rope_type, reading its keys in the order of its
// lists (required, then optional) through a KeyReader, which takes each key's
// kind, fallback and range from the type's table.

class KeyReader {
public:
    KeyReader(const SpecReader& read, const ScalingType& type, std::int64_t half)
        : read_(read), type_(type), half_(half) {}

    bool present(std::string_view name) const { return read_.present(key(name).name); }

    /// A number key into `field`; absent: the key's fallback, else `field` as it is.
    void number(std::string_view name, double& field) const {
        const ScalingKey& k = key(name);
        field = read_.number(name, k.fallback.value_or(field), k.lo, k.hi, k.allowed);
    }

    std::optional<double> optional_number(std::string_view name) const {
        const ScalingKey& k = key(name);
        return read_.optional_number(name, k.lo, k.hi, k.allowed);
    }

    void integer(std::string_view name, std::int64_t& field) const {
        const ScalingKey& k = key(name);
        field = read_.integer(name, k.fallback ? std::int64_t(*k.fallback) : field, std::int64_t(k.lo),
                              std::int64_t(k.hi));
    }

    void boolean(std::string_view name, bool& field) const {
        const ScalingKey& k = key(name);
        field = read_.boolean(name, k.fallback ? *k.fallback != 0.0 : field);
    }

    /// A list of rotary_dim / 2 numbers into `field`; absent: `field` as it is.
    void list(std::string_view name, std::vector<double>& field) const {
        const ScalingKey& k = key(name);
        auto values = read_.number_list(name, k.lo, k.hi, k.allowed);
        if (!values) return;
        if (std::int64_t(values->size()) != half_)
            throw_bad_param(k.name, "a list of " + std::to_string(values->size()) + " numbers",
                            "a list of rotary_dim / 2 = " + std::to_string(half_) + " numbers");
        field = std::move(*values);
    }

private:
    /// The type's entry for a key; a validator reading a key its type does not
    /// list is a bug of this file.
    const ScalingKey& key(std::string_view name) const {
        for (const auto* group : {&type_.required, &type_.optional})
            for (const ScalingKey& k : *group)
                if (k.name == name) return k;
        throw std::logic_error("rope: the " + type_.name + " scaling reads an unlisted key " + std::string(name));
    }

    const SpecReader& read_;
    const ScalingType& type_;
    std::int64_t half_;
};

// The keys several types share, read the same way by each.

void read_factor(const KeyReader& r, Scaling& out) {
    out.factor_given = r.present("factor");
    r.number("factor", out.factor);
}

void read_original(const KeyReader& r, Scaling& out) {
    r.integer("original_max_position_embeddings", out.original_max_position_embeddings);
}

void read_attention_factor(const KeyReader& r, Scaling& out) {
    out.attention_factor = r.optional_number("attention_factor");
}

void validate_default(const KeyReader&, Scaling&) {}

void validate_linear(const KeyReader& r, Scaling& out) { read_factor(r, out); }

void validate_ntk(const KeyReader& r, Scaling& out) { read_factor(r, out); }

void validate_dynamic(const KeyReader& r, Scaling& out) {
    read_factor(r, out);
    read_original(r, out);
}

void validate_yarn(const KeyReader& r, Scaling& out) {
    read_factor(r, out);
    read_original(r, out);
    read_attention_factor(r, out);
    r.number("beta_fast", out.beta_fast);
    r.number("beta_slow", out.beta_slow);
    out.mscale = r.optional_number("mscale");
    out.mscale_all_dim = r.optional_number("mscale_all_dim");
    r.boolean("truncate", out.truncate);
}

/// Also low_freq_factor <= high_freq_factor: the blend band runs from wavelength
/// L / high_freq_factor up to L / low_freq_factor. Equal factors (Llama 4's config:
/// both 1) leave no band: every pair is kept or divided (transformers only warns
/// there; its validator refuses nothing).
void validate_llama3(const KeyReader& r, Scaling& out) {
    read_factor(r, out);
    read_original(r, out);
    r.number("low_freq_factor", out.low_freq_factor);
    r.number("high_freq_factor", out.high_freq_factor);
    if (!(out.low_freq_factor <= out.high_freq_factor))
        throw_bad_param("low_freq_factor", format_number(out.low_freq_factor),
                        "a number <= high_freq_factor = " + format_number(out.high_freq_factor));
}

void validate_proportional(const KeyReader& r, Scaling& out) { read_factor(r, out); }

void validate_longrope(const KeyReader& r, Scaling& out) {
    r.list("short_factor", out.short_factor);
    r.list("long_factor", out.long_factor);
    read_factor(r, out);
    read_original(r, out);
    read_attention_factor(r, out);
}

// ---------------------------------------------------------------------------
// The table: rope_type -> {keys, validate, compute}. Plain data (scaling_types()
// builds its strings from it once), which costs the module no code per entry.

constexpr double kInf = HUGE_VAL;
constexpr double kPositive = 0x1p-1022;  // "> 0": the least normal double
constexpr double kNone = std::numeric_limits<double>::quiet_NaN();  // no fallback

/// A ScalingKey as the table declares it; fallback kNone: std::nullopt.
struct KeyDef {
    const char* name;
    const char* kind;
    double fallback, lo, hi;
    const char* allowed;
};

// Each key once, with the range its validator enforces.
constexpr KeyDef kFactor{"factor", "number", kNone, 1.0, kInf, "a finite number >= 1"};
/// Absent: the top-level key, else max_position_embeddings (see Scaling). The
/// allowed text is the one SpecReader::integer writes for [1, kMaxPosition].
constexpr KeyDef kOriginal{"original_max_position_embeddings", "integer", kNone, 1.0, double(kMaxPosition),
                           "an integer in [1, 1099511627776]"};
static_assert(kMaxPosition == 1099511627776, "kOriginal's allowed text names kMaxPosition");
/// Absent: computed by the type.
// attention_factor multiplies q and k (their dot by its square): up to 1e4 keeps every decay and rotation
// within float32 (published configs use 1 to 1.5).
constexpr KeyDef kAttentionFactor{"attention_factor", "number", kNone, kPositive, 1e4, "a number > 0 and <= 1e4"};
constexpr KeyDef kBetaFast{"beta_fast", "number", 32.0, kPositive, kInf, "a finite number > 0"};
constexpr KeyDef kBetaSlow{"beta_slow", "number", 1.0, kPositive, kInf, "a finite number > 0"};
constexpr KeyDef kMscale{"mscale", "number", kNone, 0.0, kInf, "a finite number >= 0"};
constexpr KeyDef kMscaleAllDim{"mscale_all_dim", "number", kNone, 0.0, kInf, "a finite number >= 0"};
constexpr KeyDef kTruncate{"truncate", "boolean", 1.0, 0.0, 1.0, "true or false"};
constexpr KeyDef kLowFreqFactor{"low_freq_factor", "number", kNone, kPositive, kInf, "a finite number > 0"};
constexpr KeyDef kHighFreqFactor{"high_freq_factor", "number", kNone, kPositive, kInf, "a finite number > 0"};
constexpr KeyDef kShortFactor{"short_factor", "list", kNone, kPositive, kInf, "finite numbers > 0"};
constexpr KeyDef kLongFactor{"long_factor", "list", kNone, kPositive, kInf, "finite numbers > 0"};

struct TypeDef {
    const char* name;
    std::array<const KeyDef*, 4> required;  // null-padded
    std::array<const KeyDef*, 7> optional;
    void (*validate)(const KeyReader&, Scaling& out);
    Frequencies (*compute)(const Spec&, std::int64_t seq_len);
    const char* unread = nullptr;  // an optional key checked but never read (ScalingType::unread)
};

constexpr TypeDef kTypes[] = {
    {"default", {}, {}, validate_default, compute_default},
    {"linear", {&kFactor}, {}, validate_linear, compute_linear},
    {"ntk", {&kFactor}, {}, validate_ntk, compute_ntk},
    {"dynamic", {&kFactor}, {&kOriginal}, validate_dynamic, compute_dynamic, "original_max_position_embeddings"},
    {"yarn", {&kFactor}, {&kOriginal, &kAttentionFactor, &kBetaFast, &kBetaSlow, &kMscale, &kMscaleAllDim, &kTruncate},
     validate_yarn, compute_yarn},
    {"llama3", {&kFactor, &kOriginal, &kLowFreqFactor, &kHighFreqFactor}, {}, validate_llama3, compute_llama3},
    {"longrope", {&kShortFactor, &kLongFactor}, {&kFactor, &kOriginal, &kAttentionFactor}, validate_longrope,
     compute_longrope},
    {"proportional", {}, {&kFactor}, validate_proportional, compute_proportional},
};

/// The kTypes (and scaling_types()) index of a rope_type; throws the rope_type error.
std::size_t type_index(std::string_view name) {
    for (std::size_t i = 0; i < std::size(kTypes); ++i)
        if (kTypes[i].name == name) return i;
    throw_bad_param("rope_type", '"' + std::string(name) + '"', one_of(rope_types()));
}

}  // namespace

const std::vector<ScalingType>& scaling_types() {
    static const std::vector<ScalingType> types = [] {
        const auto add = [](const auto& defs, std::vector<ScalingKey>& to) {
            for (const KeyDef* k : defs)
                if (k) to.push_back({k->name, k->kind, std::isnan(k->fallback) ? std::nullopt : std::optional(k->fallback),
                                     k->lo, k->hi, k->allowed});
        };
        std::vector<ScalingType> out;
        for (const TypeDef& def : kTypes) {
            ScalingType& type = out.emplace_back();
            type.name = def.name;
            add(def.required, type.required);
            add(def.optional, type.optional);
            if (def.unread) type.unread.push_back(def.unread);
        }
        return out;
    }();
    return types;
}

const std::vector<std::string>& rope_types() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        for (const TypeDef& def : kTypes) out.emplace_back(def.name);
        return out;
    }();
    return names;
}

const ScalingType& scaling_type(std::string_view rope_type) { return scaling_types()[type_index(rope_type)]; }

void read_scaling(const ScalingType& type, const SpecReader& read, std::int64_t half, Scaling& out) {
    for (const ScalingKey& key : type.required)
        if (!read.present(key.name)) read.require(key.name, "see the " + type.name + " scaling");
    kTypes[type_index(type.name)].validate(KeyReader(read, type, half), out);
}

Frequencies scaled_frequencies(const Spec& spec, std::int64_t seq_len) {
    Frequencies f = kTypes[type_index(spec.scaling.rope_type)].compute(spec, seq_len);
    // No silent NaN, Infinity or 0 downstream (a wavelength 2 pi / inv_freq, a
    // rotation by position * inv_freq, the Float32Array the JS API returns):
    // keys at the edges of their ranges can still combine into one (a factor of
    // 1e308 makes every frequency 0; a longrope factor of 1e-40 makes one past float32's range).
    const auto refuse = [&](const std::string& what, double value) {
        throw BadParam("rope_scaling",
                       "rope_scaling: rope_type \"" + spec.scaling.rope_type + "\" with these keys gives " + what + " = " +
                           format_number(value) + "; expected a finite number > 0 (at most 3.4e38, float32's largest, for a "
                           "frequency, and 1e4 for a factor; choose a smaller factor or keys nearer their defaults)",
                       what + " = " + format_number(value),
                       "keys whose frequencies are > 0 and within float32's range and whose attention factor is in (0, 1e4]");
    };
    constexpr double kFloatMax = double(std::numeric_limits<float>::max());
    // Proportional's pairs from rotated_pairs on are 0 by definition (they carry no position).
    const std::size_t turning = spec.scaling.rope_type == "proportional" ? std::size_t(spec.scaling.rotated_pairs)
                                                                          : f.inv_freq.size();
    for (std::size_t i = 0; i < turning; ++i)
        if (!(f.inv_freq[i] > 0 && f.inv_freq[i] <= kFloatMax) || !std::isfinite(kTwoPi / f.inv_freq[i]) ||
            !std::isfinite(f.inv_freq[i] * double(kMaxPosition)))  // the angle at the last position
            refuse("inv_freq[" + std::to_string(i) + "]", f.inv_freq[i]);
    // Derived factors (mscale's 0.1 mscale ln s + 1, longrope's sqrt(1 + ln s / ln L)) get the key's bound too.
    if (!(std::isfinite(f.attention_factor) && f.attention_factor > 0 && f.attention_factor <= 1e4))
        refuse("attention_factor", f.attention_factor);
    if (!(std::isfinite(f.logit_scale) && f.logit_scale > 0 && f.logit_scale <= 1e4)) refuse("logit_scale", f.logit_scale);
    return f;
}

}  // namespace posenc::rope
