// posenc/rope_stacks.hpp: one rope Spec as three inference stacks compute it
// (issue 26, point 4, "the same config under three stacks").
//
//   transformers  rope_scaling.cpp's scaled_frequencies (modeling_rope_utils.py),
//                 its double result rounded once to the float32 inv_freq buffer.
//   llama.cpp     ggml's CPU rope (ggml/src/ggml-cpu/ops.cpp: ggml_rope_cache_init,
//                 rope_yarn, rope_yarn_ramp; ggml.c ggml_rope_yarn_corr_dims) fed with
//                 the GGUF keys convert_hf_to_gguf.py writes, in float32, theta
//                 advanced by repeated multiplication.
//   vLLM          vllm/model_executor/layers/rotary_embedding/ (get_rope and the
//                 classes it picks), float32 torch arithmetic.
//
// Sources read (ggml-org/llama.cpp and vllm-project/vllm, via the stored index;
// the commit of each file as read):
//   llama.cpp ggml/src/ggml-cpu/ops.cpp @ 0049e3cb (rope_yarn, ggml_rope_cache_init,
//     ggml_compute_forward_rope_flt), src/llama-hparams.cpp @ 01b77b57
//     (yarn_attn_factor_adjust), src/models/deepseek2.cpp @ 07bede6a (kq_scale),
//     convert_hf_to_gguf.py (TextModel.set_gguf_parameters: rope types it writes;
//     LlamaModel.generate_extra_tensors: rope_freqs for llama3).
//   vLLM __init__.py @ 07b12f1b (get_rope), base.py @ 04458da0 (_compute_inv_freq),
//     common.py @ 002d181a (yarn_find_correction_range, yarn_linear_ramp_mask,
//     yarn_get_mscale), yarn_scaling_rope.py @ 0cd57848, deepseek_scaling_rope.py
//     @ 00d678e1, dynamic_ntk_scaling_rope.py (the max_trained_positions version
//     after vllm-project/vllm#41277), ntk_scaling_rope.py @ 03587f55,
//     linear_scaling_rope.py @ 0f17ee06, llama3_rope.py @ 045d7575,
//     phi3_long_rope_scaled_rope.py @ 17d618b0.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "posenc/rope.hpp"

namespace posenc::rope {

enum class Stack { transformers, llama_cpp, vllm };

/// All three stacks, in the order of the enum.
constexpr std::array<Stack, 3> kStacks{Stack::transformers, Stack::llama_cpp, Stack::vllm};

/// "transformers", "llama.cpp" or "vllm".
const char* stack_name(Stack stack);

/// What one stack computes for a spec.
struct StackFrequencies {
    /// [rotary_dim / 2], radians per token: the angle pair i turns by per
    /// position (llama.cpp: the float32 theta chain started at position 1).
    std::vector<double> inv_freq;
    /// The factor the stack multiplies cos and sin by (so q.k scales by its square).
    double attention_factor = 1.0;
    /// A further factor on the softmax scale 1/sqrt(d) that the stack's
    /// DeepSeek-V2/V3 attention applies when the config has mscale_all_dim; 1 otherwise.
    double logit_scale = 1.0;
    /// Which dimensions form a pair (see rope.hpp). Every stack rotates the
    /// spec's layout: transformers by config, vLLM by the model's is_neox_style,
    /// llama.cpp by the architecture's rope type (NORM = interleaved, NEOX = half;
    /// for LLaMA the converter permutes q/k so HF's half layout runs as NORM).
    Layout layout = Layout::half;
    /// What the stack does with this rope_type, in a sentence or two.
    std::string note;
    /// Empty when inv_freq, attention_factor and logit_scale are all finite. Otherwise
    /// the values that are not ("attention_factor = NaN", "inv_freq[0] = Infinity and
    /// 3 more pairs") and, where posenc traces it, the config key that leads there and
    /// how ("factor = 1e+100 is past float32's range, where llama.cpp's GGUF keeps it").
    /// Such values are what the stack's arithmetic gives (its reference code may raise
    /// instead); they are marked, never compared (relative_difference).
    std::string nonfinite;
    /// The config key that leads to the non-finite values ("factor",
    /// "original_max_position_embeddings"), "rope_scaling" where posenc does not
    /// trace one; empty when every value is finite.
    std::string nonfinite_param;
};

/// The frequencies and attention factor that `stack` computes for `spec` for a
/// sequence of seq_len tokens (>= 1). seq_len matters only for transformers'
/// dynamic (base grown per sequence length) and longrope (long factors when
/// seq_len > original_max_position_embeddings). vLLM and llama.cpp choose the
/// longrope factors by the served context instead, taken here as
/// max_position_embeddings (their default without --max-model-len / -c).
/// Per stack and rope_type (d = rotary_dim, s = factor, L = original context):
///   default  all: theta^(-2i/d) (llama.cpp: theta_scale = powf(theta, -2/d),
///            theta *= theta_scale per pair, float32).
///   linear   all: theta^(-2i/d) / s (llama.cpp freq_scale = 1/s; vLLM divides
///            the positions by s).
///   ntk      transformers (posenc's static NTK): base theta s^(d/(d-2)).
///            llama.cpp: none (the converter writes no scaling): theta^(-2i/d).
///            vLLM NTKScalingRotaryEmbedding: base theta s, then / s^(2/d), i.e.
///            theta^(-2i/d) s^(-(2i+2)/d).
///   dynamic  transformers: base theta (s n / L' - (s - 1))^(d/(d-2)), n =
///            max(seq_len, L'), L' = max_position_embeddings. llama.cpp: none.
///            vLLM DynamicNTKScalingRotaryEmbedding: the same base once, with
///            n = max_position and L' = max_trained_positions, which a plain
///            config lacks (so L' = max_position): the base stays theta.
///   yarn     all: NTK-by-parts between floor/ceil of the correction dims of
///            beta_fast/beta_slow over L; attention factor: the config's, else
///            m(s, mscale) / m(s, mscale_all_dim) when both are non-zero, else
///            m(s, 1), m(s, k) = 0.1 k ln s + 1. llama.cpp ignores truncate and
///            mscale (assumed 1); vLLM's DeepSeek class ignores truncate.
///   llama3   all: Meta's wavelength blend (llama.cpp via the rope_freqs tensor).
///   longrope all: theta^(-2i/d) / factor_i; transformers picks long by seq_len,
///            the others by the served context; vLLM's and llama.cpp's attention
///            factor is sqrt(1 + ln(M/L) / ln L), M = max_position_embeddings,
///            ignoring the config's factor and attention_factor.
/// proportional: transformers only; llama.cpp and vLLM throw BadParam (param
/// "rope_type"): posenc does not model their Gemma-4 code.
/// Non-finite results: the transformers stack never has one (scaled_frequencies
/// refuses them); llama.cpp and vLLM compute in float32 and their own formulas, so
/// keys that transformers takes can give them NaN or Infinity (yarn's factor past
/// 3.4e38 in a GGUF float, longrope's ln L = 0 at original_max_position_embeddings
/// 1, vLLM's dynamic base rounding to 0 at a factor of 1e30): the result then
/// carries nonfinite and nonfinite_param, and is returned, not thrown.
/// Throws std::invalid_argument when seq_len < 1, and BadParam where
/// scaled_frequencies does (the transformers frequencies are checked for
/// every stack, so a spec one stack refuses is refused by all).
StackFrequencies stack_frequencies(const Spec& spec, Stack stack, std::int64_t seq_len);

/// Relative difference of two stacks' values: |a - b| / max(|a|, |b|), 0 when both
/// are 0, and +infinity when either is NaN or infinite (not comparable: such a value
/// never agrees with anything, another infinity included).
double relative_difference(double a, double b);

/// Two stacks agree on a value when its relative difference is at most this:
/// float32 rounding, including llama.cpp's theta chain of up to 64 float
/// multiplications (each 2^-24 relative), stays below it for rotary_dim <= 256.
constexpr double kStackAgreement = 2e-5;

/// Where the stacks differ on one pair.
struct PairDifference {
    std::int64_t pair = 0;      ///< i, 0 <= i < rotary_dim / 2
    double max_relative = 0.0;  ///< the largest relative difference of inv_freq[i] over the three stack pairs
    Stack first = Stack::transformers, second = Stack::llama_cpp;  ///< the two stacks that attain it
};

/// Whether two stacks compute the same thing for a spec.
struct StackComparison {
    Stack first = Stack::transformers, second = Stack::llama_cpp;
    /// Every inv_freq, the attention factor and the logit scale of the two within
    /// kStackAgreement of each other; false when either has a non-finite value.
    bool agree = true;
};

/// The three stacks side by side for one spec and sequence length.
struct StackDifferences {
    std::array<StackFrequencies, 3> stacks;  ///< in the order of kStacks
    std::array<bool, 3> modelled{true, true, true};  ///< stack_models, in the same order
    /// [rotary_dim / 2]: for each pair, the largest relative difference of its
    /// inv_freq between two stacks, and which two (+infinity where a stack's
    /// inv_freq is not finite: see relative_difference).
    std::vector<PairDifference> pairs;
    double max_relative = 0.0;  ///< the largest over pairs
    /// Each two modelled stacks, in the order of kStacks (transformers-llama.cpp,
    /// transformers-vllm, llama.cpp-vllm when all three are modelled).
    std::vector<StackComparison> comparisons;
    /// Whether two attention factors (or two logit scales) differ by more than
    /// kStackAgreement, or one of them is not finite.
    bool attention_factors_differ = false;
    bool logit_scales_differ = false;
};

/// Whether posenc models what `stack` computes for rope_type `rope_type` (one of
/// scaling_types()): every type in transformers; every one but proportional in
/// llama.cpp and vLLM.
bool models_rope_type(const std::string& rope_type, Stack stack);

/// Whether posenc models what `stack` computes for spec's rope_type; when not,
/// `why` (if given) says so in a sentence (proportional outside transformers).
bool stack_models(const Spec& spec, Stack stack, std::string* why = nullptr);

/// Computes stack_frequencies for the stacks that stack_models and compares
/// them pair by pair; a stack it does not model keeps an empty inv_freq and its
/// note says why (stacks_modelled is false for it). A non-finite value (a stack's
/// nonfinite) makes every comparison it enters differ. Throws as stack_frequencies.
StackDifferences stack_differences(const Spec& spec, std::int64_t seq_len);

}  // namespace posenc::rope
