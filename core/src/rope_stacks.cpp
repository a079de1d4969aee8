// The same rope spec under three stacks: transformers, llama.cpp, vLLM
// (rope_stacks.hpp lists the sources read). Float32 steps are written with
// float variables on purpose: the rounding is part of what each stack computes.
#include "posenc/rope_stacks.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace posenc::rope {
namespace {

constexpr double kFloatMaxDouble = double(std::numeric_limits<float>::max());

/// m(s, k) = 0.1 k ln s + 1, 1 for s <= 1: YaRN's get_mscale in double (Python floats).
double mscale_of(double s, double k) { return s <= 1.0 ? 1.0 : 0.1 * k * std::log(s) + 1.0; }

// ---------------------------------------------------------------------------
// Non-finite results: which values, and the key that leads there.

/// The first config value a stack could not keep as it stores it, or the first
/// step of its formula that breaks: the likely cause of a non-finite result
/// (reported by mark_nonfinite only when there is one).
struct Cause {
    std::string param, why;
    void note(const std::string& key, const std::string& text) {
        if (param.empty()) {
            param = key;
            why = text;
        }
    }
};

constexpr const char* kGguf = "llama.cpp's GGUF (a float32)";
constexpr const char* kTorch = "vLLM's float32 tensors";

/// value as the float32 a stack keeps it in (`where`); notes `shown` (param `key`)
/// in cause when the rounding loses it: past float32's range, or a value > 0 that rounds to 0.
float as_float32(const std::string& key, const std::string& shown, double value, const char* where, Cause& cause) {
    const float f = float(value);
    if (std::isinf(f) && std::isfinite(value))
        cause.note(key, shown + " = " + format_number(value) + " is past float32's range (3.4e38) in " + where);
    else if (f == 0.0f && value != 0.0)
        cause.note(key, shown + " = " + format_number(value) + " rounds to 0 in " + where);
    return f;
}

/// longrope's attention factor sqrt(1 + ln(M / L) / ln L) in llama.cpp and vLLM divides by ln L.
void note_longrope_length(const Spec& spec, Cause& cause) {
    if (spec.scaling.original_max_position_embeddings == 1 && spec.max_position_embeddings > 1)
        cause.note("original_max_position_embeddings",
                   "original_max_position_embeddings = 1 makes ln L = 0 the divisor of the attention factor "
                   "sqrt(1 + ln(M / L) / ln L), M = max_position_embeddings = " + std::to_string(spec.max_position_embeddings));
}

/// Sets out.nonfinite (and nonfinite_param) when a value of out is NaN or infinite.
void mark_nonfinite(StackFrequencies& out, const Cause& cause) {
    std::string values;
    const auto add = [&](const std::string& text) { values += (values.empty() ? "" : ", ") + text; };
    std::size_t first = out.inv_freq.size(), count = 0;
    for (std::size_t i = 0; i < out.inv_freq.size(); ++i)
        if (!std::isfinite(out.inv_freq[i])) {
            first = std::min(first, i);
            ++count;
        }
    if (count)
        add("inv_freq[" + std::to_string(first) + "] = " + format_number(out.inv_freq[first]) +
            (count > 1 ? " and " + std::to_string(count - 1) + " more pair" + (count > 2 ? "s" : "") : ""));
    if (!std::isfinite(out.attention_factor)) add("attention_factor = " + format_number(out.attention_factor));
    if (!std::isfinite(out.logit_scale)) add("logit_scale = " + format_number(out.logit_scale));
    if (values.empty()) return;
    out.nonfinite = cause.param.empty() ? values + " (from rope_scaling keys that are each valid; posenc does not trace which)"
                                        : values + ": " + cause.why;
    out.nonfinite_param = cause.param.empty() ? "rope_scaling" : cause.param;
}

// ---------------------------------------------------------------------------
// transformers: posenc's scaled_frequencies, rounded to the float32 buffer.

StackFrequencies transformers_stack(const Spec& spec, std::int64_t seq_len) {
    const Frequencies f = scaled_frequencies(spec, seq_len);
    StackFrequencies out;
    out.inv_freq.resize(f.inv_freq.size());
    for (std::size_t i = 0; i < f.inv_freq.size(); ++i) out.inv_freq[i] = double(float(f.inv_freq[i]));
    out.attention_factor = f.attention_factor;
    out.logit_scale = f.logit_scale;
    out.layout = spec.layout;
    const std::string& t = spec.scaling.rope_type;
    if (t == "dynamic")
        out.note = "base grown per sequence: theta * (s * max(n, L) / L - (s - 1))^(d/(d-2)), n = seq_len";
    else if (t == "longrope")
        out.note = std::string("factors chosen by seq_len: ") +
                   (double(seq_len) > double(spec.scaling.original_max_position_embeddings) ? "long" : "short");
    else
        out.note = "modeling_rope_utils.py, rope_type \"" + t + "\"";
    mark_nonfinite(out, Cause{});  // scaled_frequencies refused any non-finite value already
    return out;
}

// ---------------------------------------------------------------------------
// llama.cpp: ggml_rope_cache_init + rope_yarn in float32.

/// theta_scale^i by repeated float multiplication from 1.0f (ggml starts the
/// chain at the position p; at p = 1 this is the angle per token).
std::vector<float> ggml_theta_chain(float freq_base, std::int64_t n_dims) {
    const float theta_scale = std::pow(freq_base, -2.0f / float(n_dims));
    std::vector<float> theta(static_cast<std::size_t>(n_dims / 2));
    float t = 1.0f;
    for (float& x : theta) {
        x = t;
        t *= theta_scale;
    }
    return theta;
}

/// ggml_rope_yarn_corr_dim in float: the pair index at which a pair turns
/// n_rot times over n_ctx_orig tokens (times 2 for the dimension index).
float ggml_corr_dim(std::int64_t n_dims, std::int64_t n_ctx_orig, float n_rot, float base) {
    return float(n_dims) * std::log(float(n_ctx_orig) / (n_rot * 2.0f * float(M_PI))) / (2.0f * std::log(base));
}

StackFrequencies llama_cpp_stack(const Spec& spec) {
    const Scaling& c = spec.scaling;
    const std::string& t = c.rope_type;
    const std::int64_t d = spec.rotary_dim;
    const float freq_base = float(spec.rope_theta);  // GGUF rope.freq_base is a float32
    const std::vector<float> theta = ggml_theta_chain(freq_base, d);

    StackFrequencies out;
    Cause cause;
    out.layout = spec.layout;
    out.inv_freq.resize(theta.size());
    const auto plain = [&](float freq_scale) {
        for (std::size_t i = 0; i < theta.size(); ++i) out.inv_freq[i] = double(freq_scale * theta[i]);
    };

    if (t == "default") {
        plain(1.0f);
        out.note = "theta_scale = powf(base, -2/d), theta *= theta_scale per pair (float32)";
    } else if (t == "linear") {
        plain(1.0f / as_float32("factor", "factor", c.factor, kGguf, cause));
        out.note = "rope scaling LINEAR: freq_scale = 1/factor";
    } else if (t == "ntk" || t == "dynamic") {
        plain(1.0f);
        out.note = "no NTK in llama.cpp: convert_hf_to_gguf writes no scaling, so the static base runs";
    } else if (t == "yarn") {
        // rope scaling YARN: freq_scale = 1/factor, ext_factor = 1 (llama-context's
        // default for YARN), corr dims over n_ctx_orig_yarn, always floored/ceiled.
        const float freq_scale = 1.0f / as_float32("factor", "factor", c.factor, kGguf, cause);
        const float beta_fast = as_float32("beta_fast", "beta_fast", c.beta_fast, kGguf, cause);
        const float beta_slow = as_float32("beta_slow", "beta_slow", c.beta_slow, kGguf, cause);
        const float low = std::max(0.0f, std::floor(ggml_corr_dim(d, c.original_max_position_embeddings, beta_fast, freq_base)));
        const float high = std::min(float(d - 1), std::ceil(ggml_corr_dim(d, c.original_max_position_embeddings, beta_slow, freq_base)));
        for (std::size_t i = 0; i < theta.size(); ++i) {
            const float y = (float(i) - low) / std::max(0.001f, high - low);  // rope_yarn_ramp on i0 / 2 = i
            const float ramp_mix = 1.0f - std::min(1.0f, std::max(0.0f, y));  // ext_factor = 1
            const float interp = freq_scale * theta[i];
            out.inv_freq[i] = double(interp * (1.0f - ramp_mix) + theta[i] * ramp_mix);
        }
        // The rotation's magnitude: cparams.yarn_attn_factor (the GGUF's yarn_attn_factor,
        // which convert writes from attention_factor, else get_mscale(s, 1) / get_mscale(s,
        // mscale_all_dims), mscale taken as 1), divided by yarn_attn_factor_adjust's
        // 1 + 0.1 ln(1/freq_scale), which rope_yarn multiplies back.
        const float factor = 1.0f / freq_scale;
        const auto get_mscale = [](float s, float k) { return s <= 1.0f ? 1.0f : 0.1f * k * std::log(s) + 1.0f; };
        const float all_dims = c.mscale_all_dim ? as_float32("mscale_all_dim", "mscale_all_dim", *c.mscale_all_dim, kGguf, cause) : 0.0f;
        const float yarn_attn = c.attention_factor ? as_float32("attention_factor", "attention_factor", *c.attention_factor, kGguf, cause)
                                                   : get_mscale(factor, 1.0f) / get_mscale(factor, all_dims);
        const float adjust = 1.0f + 0.1f * std::log(1.0f / freq_scale);
        const float attn_factor = yarn_attn * (1.0f / adjust);
        out.attention_factor = double(attn_factor * adjust);
        if (all_dims != 0.0f) {
            // deepseek2.cpp: kq_scale = (attn_factor_org * (1 + 0.1 log_mul ln s))^2 / sqrt(d_k).
            const float m = yarn_attn * (1.0f + 0.1f * all_dims * std::log(1.0f / freq_scale));
            out.logit_scale = double(m * m);
        }
        out.note = "rope scaling YARN: freq_scale = 1/factor, ext_factor = 1, ramp on floor/ceil corr dims "
                   "(truncate ignored), mscale taken as 1";
    } else if (t == "llama3") {
        // convert_hf_to_gguf (LlamaModel.generate_extra_tensors) writes rope_freqs: the
        // divisor of each pair, from float32 base frequencies, in Python floats.
        const double L = double(c.original_max_position_embeddings);
        const double low_wavelen = L / c.low_freq_factor, high_wavelen = L / c.high_freq_factor;
        for (std::size_t i = 0; i < theta.size(); ++i) {
            const float freq = 1.0f / std::pow(float(spec.rope_theta), float(2 * i) / float(d));
            const double wavelen = kTwoPi / double(freq);
            double ff = 1.0;
            if (wavelen > low_wavelen) {
                ff = c.factor;
            } else if (wavelen >= high_wavelen) {
                const double smooth = (L / wavelen - c.low_freq_factor) / (c.high_freq_factor - c.low_freq_factor);
                ff = 1.0 / ((1.0 - smooth) / c.factor + smooth);
            }
            out.inv_freq[i] = double(theta[i] / float(ff));  // rope_yarn(theta / ff, ...)
        }
        out.note = "llama3 via the rope_freqs tensor (freq_factors) that convert_hf_to_gguf writes";
    } else if (t == "longrope") {
        // Phi-3: rope_factors_long / rope_factors_short, picked by llama_model::get_rope_factors
        // when the context per sequence exceeds n_ctx_orig_yarn; rope.scaling.attn_factor from the
        // converter; ext_factor 0, so rope_yarn multiplies by attn_factor alone.
        const double L = double(c.original_max_position_embeddings);
        const bool use_long = double(spec.max_position_embeddings) > L;
        const std::vector<double>& rescale = use_long ? c.long_factor : c.short_factor;
        const std::string list = use_long ? "long_factor" : "short_factor";
        for (std::size_t i = 0; i < theta.size(); ++i) {
            const std::string shown = list + "[" + std::to_string(i) + "]";
            out.inv_freq[i] = double(theta[i] / as_float32(list, shown, rescale[i], kGguf, cause));
            if (!std::isfinite(out.inv_freq[i]))
                cause.note(list, shown + " = " + format_number(rescale[i]) + " puts theta_" + std::to_string(i) + " / " + shown +
                                     " past float32's range");
        }
        const double scale = double(spec.max_position_embeddings) / L;
        note_longrope_length(spec, cause);
        out.attention_factor = double(float(scale <= 1.0 ? 1.0 : std::sqrt(1.0 + std::log(scale) / std::log(L))));
        out.note = std::string("longrope factors chosen by the context (n_ctx = max_position_embeddings): ") +
                   (use_long ? "long" : "short");
    } else {
        throw std::logic_error("rope_stacks: no llama.cpp model for rope_type " + t);
    }
    mark_nonfinite(out, cause);
    return out;
}

// ---------------------------------------------------------------------------
// vLLM: RotaryEmbedding._compute_inv_freq and the classes of get_rope, float32.

/// base.py _compute_inv_freq: 1 / base ** (arange(0, d, 2, float32) / d), a float32 pow.
std::vector<float> vllm_inv_freq(double base, std::int64_t d) {
    std::vector<float> inv(static_cast<std::size_t>(d / 2));
    for (std::size_t i = 0; i < inv.size(); ++i) inv[i] = 1.0f / std::pow(float(base), float(2 * i) / float(d));
    return inv;
}

StackFrequencies vllm_stack(const Spec& spec) {
    const Scaling& c = spec.scaling;
    const std::string& t = c.rope_type;
    const std::int64_t d = spec.rotary_dim;
    StackFrequencies out;
    Cause cause;
    out.layout = spec.layout;
    std::vector<float> inv = vllm_inv_freq(spec.rope_theta, d);
    const auto take = [&](const std::vector<float>& v) { out.inv_freq.assign(v.begin(), v.end()); };

    if (t == "default") {
        take(inv);
        out.note = "RotaryEmbedding: 1 / base ** (arange(0, d, 2) / d) in float32";
    } else if (t == "linear") {
        // LinearScalingRotaryEmbedding divides the positions t by the factor; per token that is inv / s.
        for (float& x : inv) x /= float(c.factor);
        take(inv);
        out.note = "LinearScalingRotaryEmbedding: positions divided by the factor";
    } else if (t == "ntk") {
        // NTKScalingRotaryEmbedding (fixed NTK, kexue.fm/archives/9706): base * s, then / s^(2/d).
        inv = vllm_inv_freq(spec.rope_theta * c.factor, d);
        const float shrink = float(std::pow(c.factor, 2.0 / double(d)));
        for (float& x : inv) x /= shrink;
        take(inv);
        out.note = "NTKScalingRotaryEmbedding: base * factor, then / factor^(2/d) (not bloc97's d/(d-2) exponent)";
    } else if (t == "dynamic") {
        // DynamicNTKScalingRotaryEmbedding: one base for the whole cache,
        // theta * (s * max_position / max_trained_positions - (s - 1))^(d/(d-2));
        // get_rope passes max_position = max_position_embeddings and, without the
        // (nomic) max_trained_positions key, max_trained_positions = max_position.
        const double M = double(spec.max_position_embeddings), T = M, s = c.factor;
        const double growth = s * M / T - (s - 1.0);  // 1 in exact arithmetic; float64 rounding at large s
        const double base = spec.rope_theta * std::pow(growth, double(d) / double(d - 2));
        if (!(base > 1.0 && base <= kFloatMaxDouble))
            cause.note("factor", "factor = " + format_number(s) + " makes s * M / T - (s - 1) = " + format_number(growth) +
                                     " in float64 (M = T = max_position_embeddings), so the base is " + format_number(base));
        take(vllm_inv_freq(base, d));
        out.note = "DynamicNTKScalingRotaryEmbedding: a static base computed once at max_position; without "
                   "max_trained_positions it is the unscaled base (before vllm#41277: theta * (s^2 - s + 1)^(d/(d-2)))";
    } else if (t == "yarn") {
        // With mscale_all_dim the DeepSeek models build DeepseekScalingRotaryEmbedding
        // (truncate ignored, attention mscale(s, mscale) / mscale(s, mscale_all_dim) * attn_factor);
        // otherwise YaRNScalingRotaryEmbedding. Both: float32 frequencies, Python-float ramp ends.
        const bool deepseek = c.mscale_all_dim.has_value();
        const double L = double(c.original_max_position_embeddings);
        const auto corr = [&](double rotations) {
            return double(d) * std::log(L / (rotations * kTwoPi)) / (2.0 * std::log(spec.rope_theta));
        };
        double low = corr(c.beta_fast), high = corr(c.beta_slow);
        if (c.truncate || deepseek) {
            low = std::floor(low);
            high = std::ceil(high);
        }
        low = std::max(low, 0.0);
        high = std::min(high, double(d - 1));
        if (low == high) high += 0.001;
        for (std::size_t i = 0; i < inv.size(); ++i) {
            const float pos_freq = 1.0f / inv[i];  // base ** (2i/d), the float32 pow
            const float extrapolation = 1.0f / pos_freq;
            const float interpolation = 1.0f / (float(c.factor) * pos_freq);
            const float ramp = std::clamp(float((float(i) - float(low)) / float(high - low)), 0.0f, 1.0f);
            const float mask = 1.0f - ramp;
            inv[i] = interpolation * (1.0f - mask) + extrapolation * mask;
        }
        take(inv);
        if (deepseek) {
            const double mscale = c.mscale.value_or(1.0);
            out.attention_factor = mscale_of(c.factor, mscale) / mscale_of(c.factor, *c.mscale_all_dim);
            if (*c.mscale_all_dim != 0.0) {
                const double m = mscale_of(c.factor, *c.mscale_all_dim);  // deepseek_v2.py: scaling *= m * m
                out.logit_scale = m * m;
            }
            out.note = "DeepseekScalingRotaryEmbedding (deepseek_yarn): mscale(s, mscale) / mscale(s, mscale_all_dim)";
        } else {
            if (c.attention_factor)
                out.attention_factor = *c.attention_factor;
            else if (c.mscale && *c.mscale != 0.0 && c.mscale_all_dim && *c.mscale_all_dim != 0.0)
                out.attention_factor = mscale_of(c.factor, *c.mscale) / mscale_of(c.factor, *c.mscale_all_dim);
            else
                out.attention_factor = mscale_of(c.factor, 1.0);
            out.note = "YaRNScalingRotaryEmbedding: attention_factor, else the mscale ratio, else 0.1 ln s + 1";
        }
    } else if (t == "llama3") {
        // Llama3RotaryEmbedding._compute_inv_freq: the blend on float32 tensors.
        const float L = float(c.original_max_position_embeddings);
        const float lo = float(c.low_freq_factor), hi = float(c.high_freq_factor), s = float(c.factor);
        const float low_wavelen = float(double(c.original_max_position_embeddings) / c.low_freq_factor);
        const float high_wavelen = float(double(c.original_max_position_embeddings) / c.high_freq_factor);
        for (float& x : inv) {
            const float wavelen = float(kTwoPi) / x;
            const float smooth = (L / wavelen - lo) / (hi - lo);
            if (wavelen < high_wavelen) continue;
            x = wavelen > low_wavelen ? x / s : (1.0f - smooth) * x / s + smooth * x;
        }
        take(inv);
        out.note = "Llama3RotaryEmbedding: Meta's blend in float32";
    } else if (t == "longrope") {
        // Phi3LongRoPEScaledRotaryEmbedding: long factors whenever max_model_len > original
        // (max_model_len defaults to max_position_embeddings); 1 / (factor_i * base ** (2i/d)).
        const double L = double(c.original_max_position_embeddings);
        const bool use_long = double(spec.max_position_embeddings) > L;
        const std::vector<double>& rescale = use_long ? c.long_factor : c.short_factor;
        const std::string list = use_long ? "long_factor" : "short_factor";
        for (std::size_t i = 0; i < inv.size(); ++i) {
            const std::string shown = list + "[" + std::to_string(i) + "]";
            const float pos_freq = std::pow(float(spec.rope_theta), float(2 * i) / float(d));
            inv[i] = 1.0f / (as_float32(list, shown, rescale[i], kTorch, cause) * pos_freq);
            if (!std::isfinite(inv[i]))
                cause.note(list, shown + " = " + format_number(rescale[i]) + " puts 1 / (" + shown + " * base^(2i/d)) past float32's range");
        }
        take(inv);
        const double scale = double(spec.max_position_embeddings) / L;
        note_longrope_length(spec, cause);
        out.attention_factor = scale <= 1.0 ? 1.0 : std::sqrt(1.0 + std::log(scale) / std::log(L));
        out.note = std::string("Phi3LongRoPEScaledRotaryEmbedding: factors chosen by max_model_len (= max_position_embeddings): ") +
                   (use_long ? "long" : "short") + "; scale = max_position / original (config factor ignored)";
    } else {
        throw std::logic_error("rope_stacks: no vLLM model for rope_type " + t);
    }
    mark_nonfinite(out, cause);
    return out;
}

}  // namespace

const char* stack_name(Stack stack) {
    switch (stack) {
        case Stack::transformers: return "transformers";
        case Stack::llama_cpp: return "llama.cpp";
        case Stack::vllm: return "vllm";
    }
    return "?";
}

StackFrequencies stack_frequencies(const Spec& spec, Stack stack, std::int64_t seq_len) {
    if (seq_len < 1) throw std::invalid_argument("stack_frequencies: seq_len must be >= 1, got " + std::to_string(seq_len));
    // The transformers result validates the spec (finite, positive frequencies) for every stack.
    StackFrequencies hf = transformers_stack(spec, seq_len);
    std::string why;
    if (!stack_models(spec, stack, &why)) {
        // The rope_types this stack models: scaling_types(), the one list, less those it refuses.
        std::vector<std::string> modelled;
        for (const ScalingType& type : scaling_types())
            if (models_rope_type(type.name, stack)) modelled.push_back(type.name);
        throw BadParam("rope_type", "rope_type = \"" + spec.scaling.rope_type + "\" is invalid for " + stack_name(stack) + ": " + why,
                       '"' + spec.scaling.rope_type + '"', one_of(modelled));
    }
    switch (stack) {
        case Stack::transformers: return hf;
        case Stack::llama_cpp: return llama_cpp_stack(spec);
        case Stack::vllm: return vllm_stack(spec);
    }
    throw std::logic_error("stack_frequencies: unknown stack");
}

double relative_difference(double a, double b) {
    if (!std::isfinite(a) || !std::isfinite(b)) return HUGE_VAL;  // not comparable: never within any tolerance
    const double scale = std::max(std::abs(a), std::abs(b));
    return scale == 0.0 ? 0.0 : std::abs(a - b) / scale;
}

bool models_rope_type(const std::string& rope_type, Stack stack) {
    return stack == Stack::transformers || rope_type != "proportional";
}

bool stack_models(const Spec& spec, Stack stack, std::string* why) {
    if (models_rope_type(spec.scaling.rope_type, stack)) return true;
    if (why)
        *why = std::string("posenc models transformers' _compute_proportional_rope_parameters (Gemma-4's global layers) "
                           "only, not ") + stack_name(stack) + "'s code for it";
    return false;
}

StackDifferences stack_differences(const Spec& spec, std::int64_t seq_len) {
    StackDifferences out;
    for (std::size_t k = 0; k < kStacks.size(); ++k) {
        out.modelled[k] = stack_models(spec, kStacks[k], &out.stacks[k].note);
        if (out.modelled[k]) out.stacks[k] = stack_frequencies(spec, kStacks[k], seq_len);
        out.stacks[k].layout = spec.layout;
    }
    const std::size_t half = out.stacks[0].inv_freq.size();
    out.pairs.resize(half);
    for (std::size_t i = 0; i < half; ++i) {
        PairDifference& p = out.pairs[i];
        p.pair = std::int64_t(i);
        for (std::size_t a = 0; a < kStacks.size(); ++a)
            for (std::size_t b = a + 1; b < kStacks.size(); ++b) {
                if (!out.modelled[a] || !out.modelled[b]) continue;
                const double r = relative_difference(out.stacks[a].inv_freq[i], out.stacks[b].inv_freq[i]);
                if (r > p.max_relative) {
                    p.max_relative = r;
                    p.first = kStacks[a];
                    p.second = kStacks[b];
                }
            }
        out.max_relative = std::max(out.max_relative, p.max_relative);
    }
    for (std::size_t a = 0; a < kStacks.size(); ++a)
        for (std::size_t b = a + 1; b < kStacks.size(); ++b) {
            if (!out.modelled[a] || !out.modelled[b]) continue;
            const StackFrequencies &x = out.stacks[a], &y = out.stacks[b];
            StackComparison& cmp = out.comparisons.emplace_back(StackComparison{kStacks[a], kStacks[b], true});
            for (std::size_t i = 0; i < half; ++i)
                if (relative_difference(x.inv_freq[i], y.inv_freq[i]) > kStackAgreement) cmp.agree = false;
            if (relative_difference(x.attention_factor, y.attention_factor) > kStackAgreement) {
                out.attention_factors_differ = true;
                cmp.agree = false;
            }
            if (relative_difference(x.logit_scale, y.logit_scale) > kStackAgreement) {
                out.logit_scales_differ = true;
                cmp.agree = false;
            }
        }
    return out;
}

}  // namespace posenc::rope
