// One rope spec under three stacks (transformers, llama.cpp, vLLM), each checked
// against the closed form of its published formula, and the known differences
// between the stacks given as numbers.
#include <catch2/catch.hpp>

#include <cmath>

#include "posenc/rope_stacks.hpp"

// A namespace of its own: the test files also build as one translation unit (CMake's unity build).
namespace posenc_test_rope_stacks {

using namespace posenc::rope;

namespace {

/// d = 128, theta = 10000, L = max_position_embeddings = 4096: a LLaMA-2-like head.
Spec llama2_like(const std::string& rope_type, double factor = 1.0) {
    Spec s;
    s.head_dim = s.rotary_dim = 128;
    s.rope_theta = 10000.0;
    s.max_position_embeddings = 4096;
    s.scaling.rope_type = rope_type;
    s.scaling.factor = factor;
    s.scaling.original_max_position_embeddings = 4096;
    return s;
}

/// theta^(-2i/d) in double.
double base_inv(double theta, std::int64_t d, std::size_t i) { return std::pow(theta, -double(2 * i) / double(d)); }

/// Checks every pair of `got` against closed(i) within `rel`.
template <class F>
void check_closed_form(const StackFrequencies& got, std::size_t half, double rel, F closed) {
    REQUIRE(got.inv_freq.size() == half);
    for (std::size_t i = 0; i < half; ++i) {
        INFO("pair " << i);
        CHECK(relative_difference(got.inv_freq[i], closed(i)) <= rel);
    }
}

// Tolerances: transformers and vLLM round each value once or twice to float32
// (a few 2^-24); llama.cpp's theta chain multiplies up to 63 times in float32.
constexpr double kFloat = 1e-6;
constexpr double kChain = kStackAgreement;

}  // namespace

TEST_CASE("stack_name names the three stacks; seq_len < 1 is refused", "[rope][stack]") {
    CHECK(std::string(stack_name(Stack::transformers)) == "transformers");
    CHECK(std::string(stack_name(Stack::llama_cpp)) == "llama.cpp");
    CHECK(std::string(stack_name(Stack::vllm)) == "vllm");
    CHECK_THROWS_AS(stack_frequencies(llama2_like("default"), Stack::vllm, 0), std::invalid_argument);
}

TEST_CASE("default: every stack gives theta^(-2i/d); llama.cpp's float32 theta chain drifts by about 2e-6", "[rope][stack]") {
    const Spec s = llama2_like("default");
    const auto closed = [&](std::size_t i) { return base_inv(1e4, 128, i); };
    check_closed_form(stack_frequencies(s, Stack::transformers, 10), 64, kFloat, closed);
    check_closed_form(stack_frequencies(s, Stack::vllm, 10), 64, kFloat, closed);
    const StackFrequencies ggml = stack_frequencies(s, Stack::llama_cpp, 10);
    check_closed_form(ggml, 64, kChain, closed);
    // The chain theta *= powf(1e4, -2/128) is visibly off the pow at the last pair:
    // 1.1547844770e-04 against 1.1547819706e-04 (relative 2.2e-6), yet within float32 agreement.
    CHECK(relative_difference(ggml.inv_freq[63], closed(63)) > 1e-6);
    const StackDifferences diff = stack_differences(s, 10);
    CHECK(diff.max_relative < kStackAgreement);
    CHECK_FALSE(diff.attention_factors_differ);
    for (const StackFrequencies& f : diff.stacks) CHECK(f.attention_factor == 1.0);
}

TEST_CASE("linear: every stack gives theta^(-2i/d) / factor", "[rope][stack]") {
    const Spec s = llama2_like("linear", 4.0);
    const auto closed = [&](std::size_t i) { return base_inv(1e4, 128, i) / 4.0; };  // llama.cpp: freq_scale = 1/4
    check_closed_form(stack_frequencies(s, Stack::transformers, 10), 64, kFloat, closed);
    check_closed_form(stack_frequencies(s, Stack::vllm, 10), 64, kFloat, closed);  // positions / 4
    check_closed_form(stack_frequencies(s, Stack::llama_cpp, 10), 64, kChain, closed);
    CHECK(stack_differences(s, 10).max_relative < kStackAgreement);
}

TEST_CASE("ntk: three different formulas (bloc97's base, none, vLLM's fixed NTK)", "[rope][stack]") {
    const Spec s = llama2_like("ntk", 4.0);
    // transformers (posenc's static NTK): base 1e4 * 4^(128/126).
    const double hf_base = 1e4 * std::pow(4.0, 128.0 / 126.0);
    check_closed_form(stack_frequencies(s, Stack::transformers, 10), 64, kFloat,
                      [&](std::size_t i) { return base_inv(hf_base, 128, i); });
    // llama.cpp: no NTK, the static base.
    check_closed_form(stack_frequencies(s, Stack::llama_cpp, 10), 64, kChain,
                      [&](std::size_t i) { return base_inv(1e4, 128, i); });
    // vLLM NTKScalingRotaryEmbedding: (1e4 * 4)^(-2i/128) / 4^(2/128) = 1e4^(-2i/128) * 4^(-(2i + 2)/128).
    check_closed_form(stack_frequencies(s, Stack::vllm, 10), 64, kFloat, [&](std::size_t i) {
        return base_inv(1e4, 128, i) * std::pow(4.0, -double(2 * i + 2) / 128.0);
    });
    // Pair 0: transformers 1, vLLM 4^(-1/64) = 0.97857; the last pair: transformers and vLLM
    // both 1.1548e-4 / 4 = 2.887e-5, llama.cpp 1.1548e-4 (relative difference 0.75).
    const StackDifferences diff = stack_differences(s, 10);
    CHECK(diff.pairs[0].max_relative == Approx(1.0 - std::pow(4.0, -1.0 / 64.0)).epsilon(1e-5));
    CHECK(diff.pairs[63].max_relative == Approx(0.75).epsilon(1e-4));
}

TEST_CASE("dynamic NTK at seq_len 2L: transformers grows the base, vLLM and llama.cpp keep it", "[rope][stack]") {
    const Spec s = llama2_like("dynamic", 4.0);
    // transformers: base 1e4 * (4 * 8192 / 4096 - 3)^(128/126) = 1e4 * 5^(64/63) = 51,294.
    const double grown = 1e4 * std::pow(5.0, 128.0 / 126.0);
    CHECK(grown == Approx(51293.8).epsilon(1e-5));
    const StackFrequencies hf = stack_frequencies(s, Stack::transformers, 8192);
    check_closed_form(hf, 64, kFloat, [&](std::size_t i) { return base_inv(grown, 128, i); });
    // llama.cpp: no dynamic NTK at all. vLLM: one static base at max_position with
    // max_trained_positions = max_position (a plain config): 1e4 * (4 * 4096/4096 - 3)^... = 1e4.
    // (vLLM before #41277 used 1e4 * (4^2 - 4 + 1)^(64/63) = 1e4 * 13^(64/63) = 1.354e5 for every sequence.)
    const auto unscaled = [&](std::size_t i) { return base_inv(1e4, 128, i); };
    check_closed_form(stack_frequencies(s, Stack::vllm, 8192), 64, kFloat, unscaled);
    check_closed_form(stack_frequencies(s, Stack::llama_cpp, 8192), 64, kChain, unscaled);
    // The last pair: transformers 2.3096e-5, vLLM and llama.cpp 1.1548e-4, five times faster
    // (51294^(-126/128) / 1e4^(-126/128) = 5^(-1)): relative difference 0.8.
    CHECK(hf.inv_freq[63] == Approx(2.3095640e-5).epsilon(1e-6));
    const StackDifferences at_2L = stack_differences(s, 8192);
    CHECK(at_2L.pairs[63].max_relative == Approx(0.8).epsilon(1e-5));
    CHECK(at_2L.pairs[63].first == Stack::transformers);
    // Up to L the three agree (transformers' base stays 1e4).
    CHECK(stack_differences(s, 4096).max_relative < kStackAgreement);
}

TEST_CASE("yarn: the NTK-by-parts ramp between the floored / ceiled correction dims, in every stack", "[rope][stack]") {
    Spec s = llama2_like("yarn", 4.0);
    s.max_position_embeddings = 16384;
    // Correction dims for d = 128, theta = 1e4, L = 4096:
    //   beta_fast = 32: 128 ln(4096 / (32 * 2 pi)) / (2 ln 1e4) = 128 * 3.01415 / 18.42068 = 20.944 -> floor 20
    //   beta_slow = 1:  128 ln(4096 / (2 pi)) / (2 ln 1e4)      = 128 * 6.47988 / 18.42068 = 45.027 -> ceil 46
    const double low_raw = 128.0 * std::log(4096.0 / (32.0 * 2.0 * M_PI)) / (2.0 * std::log(1e4));
    const double high_raw = 128.0 * std::log(4096.0 / (2.0 * M_PI)) / (2.0 * std::log(1e4));
    CHECK(low_raw == Approx(20.944).epsilon(1e-4));
    CHECK(high_raw == Approx(45.027).epsilon(1e-4));
    const double low = 20.0, high = 46.0;
    const auto closed = [&](std::size_t i) {
        const double ramp = std::clamp((double(i) - low) / (high - low), 0.0, 1.0);  // 0 keeps, 1 divides by s
        return base_inv(1e4, 128, i) * ((1.0 - ramp) + ramp / 4.0);
    };
    check_closed_form(stack_frequencies(s, Stack::transformers, 10), 64, kFloat, closed);
    check_closed_form(stack_frequencies(s, Stack::vllm, 10), 64, kFloat, closed);
    check_closed_form(stack_frequencies(s, Stack::llama_cpp, 10), 64, kChain, closed);

    // The attention factor: transformers 0.1 ln 4 + 1 = 1.1386294361; llama.cpp the same
    // through float32 (yarn_attn_factor / (1 + 0.1 ln 4), multiplied back in rope_yarn):
    // 1.13862944 within 1e-7; vLLM yarn_get_mscale(4) = 1.1386294361.
    const StackDifferences diff = stack_differences(s, 10);
    for (const StackFrequencies& f : diff.stacks) CHECK(f.attention_factor == Approx(0.1 * std::log(4.0) + 1.0).epsilon(1e-7));
    CHECK_FALSE(diff.attention_factors_differ);
}

TEST_CASE("yarn attention factors: mscale != 1 without DeepSeek's logit scaling splits llama.cpp from the others", "[rope][stack]") {
    Spec s = llama2_like("yarn", 16.0);
    s.scaling.mscale = 2.0;
    s.scaling.mscale_all_dim = 1.0;
    // transformers and vLLM (DeepseekScalingRotaryEmbedding): m(16, 2) / m(16, 1)
    //   = (0.2 ln 16 + 1) / (0.1 ln 16 + 1) = 1.554518 / 1.277259 = 1.217073;
    // llama.cpp reads no mscale (taken as 1): m(16, 1) / m(16, 1) = 1.
    const double ratio = (0.2 * std::log(16.0) + 1.0) / (0.1 * std::log(16.0) + 1.0);
    CHECK(ratio == Approx(1.217073).epsilon(1e-6));
    CHECK(stack_frequencies(s, Stack::transformers, 10).attention_factor == Approx(ratio));
    CHECK(stack_frequencies(s, Stack::vllm, 10).attention_factor == Approx(ratio));
    CHECK(stack_frequencies(s, Stack::llama_cpp, 10).attention_factor == Approx(1.0).epsilon(1e-7));
    CHECK(stack_differences(s, 10).attention_factors_differ);

    // A config's attention_factor is used by all three (llama.cpp via the GGUF yarn_attn_factor).
    Spec given = llama2_like("yarn", 4.0);
    given.scaling.attention_factor = 1.0;
    for (Stack st : kStacks) CHECK(stack_frequencies(given, st, 10).attention_factor == Approx(1.0).epsilon(1e-7));
}

TEST_CASE("llama3: the three stacks agree within float32 rounding", "[rope][stack]") {
    Spec s = llama2_like("llama3", 8.0);
    s.rope_theta = 500000.0;
    s.max_position_embeddings = 131072;
    s.scaling.original_max_position_embeddings = 8192;
    s.scaling.low_freq_factor = 1.0;
    s.scaling.high_freq_factor = 4.0;
    // Meta's apply_scaling: wavelength 2 pi / f below 8192 / 4 = 2048 keeps f, above 8192 divides by 8,
    // between blends with smooth = (8192 / wavelength - 1) / 3.
    const auto closed = [&](std::size_t i) {
        const double f = base_inv(5e5, 128, i), wavelen = 2.0 * M_PI / f;
        if (wavelen < 2048.0) return f;
        if (wavelen > 8192.0) return f / 8.0;
        const double smooth = (8192.0 / wavelen - 1.0) / 3.0;
        return (1.0 - smooth) * f / 8.0 + smooth * f;
    };
    check_closed_form(stack_frequencies(s, Stack::transformers, 10), 64, kFloat, closed);
    check_closed_form(stack_frequencies(s, Stack::vllm, 10), 64, kFloat, closed);
    check_closed_form(stack_frequencies(s, Stack::llama_cpp, 10), 64, kChain, closed);  // rope_freqs divisors
    const StackDifferences diff = stack_differences(s, 10);
    CHECK(diff.max_relative < kStackAgreement);  // 1.4e-6, from llama.cpp's theta chain
    CHECK_FALSE(diff.attention_factors_differ);
}

TEST_CASE("DeepSeek-V3-style yarn: attention factor 1 in every stack, logit scale (0.1 ln 40 + 1)^2", "[rope][stack]") {
    Spec s;
    s.head_dim = s.rotary_dim = 64;
    s.rope_theta = 10000.0;
    s.layout = Layout::interleaved;
    s.max_position_embeddings = 163840;
    s.scaling.rope_type = "yarn";
    s.scaling.factor = 40.0;
    s.scaling.original_max_position_embeddings = 4096;
    s.scaling.mscale = 1.0;
    s.scaling.mscale_all_dim = 1.0;
    // Correction dims for d = 64: 64 * 3.01415 / 18.42068 = 10.472 -> 10, 64 * 6.47988 / 18.42068 = 22.513 -> 23.
    const auto closed = [&](std::size_t i) {
        const double ramp = std::clamp((double(i) - 10.0) / 13.0, 0.0, 1.0);
        return base_inv(1e4, 64, i) * ((1.0 - ramp) + ramp / 40.0);
    };
    // m(40, 1) = 0.1 ln 40 + 1 = 1.3688879; the rotation's factor m / m = 1 and the softmax
    // scale gains m^2 = 1.8738542 (transformers' DeepseekV3Attention, vLLM's deepseek_v2.py,
    // llama.cpp's deepseek2.cpp kq_scale; llama.cpp in float32: 1.8738540).
    const double m = 0.1 * std::log(40.0) + 1.0;
    CHECK(m * m == Approx(1.8738542).epsilon(1e-7));
    for (Stack st : kStacks) {
        INFO(stack_name(st));
        const StackFrequencies f = stack_frequencies(s, st, 10);
        check_closed_form(f, 32, st == Stack::llama_cpp ? kChain : kFloat, closed);
        CHECK(f.attention_factor == Approx(1.0).epsilon(1e-7));
        CHECK(f.logit_scale == Approx(m * m).epsilon(1e-6));
        CHECK(f.layout == Layout::interleaved);
    }
    const StackDifferences diff = stack_differences(s, 10);
    CHECK_FALSE(diff.attention_factors_differ);
    CHECK_FALSE(diff.logit_scales_differ);
}

TEST_CASE("longrope: transformers switches by seq_len, vLLM and llama.cpp by the served context", "[rope][stack]") {
    Spec s = llama2_like("longrope");
    s.head_dim = s.rotary_dim = 96;
    s.max_position_embeddings = 131072;  // Phi-3-mini-128k: L = 4096, M = 131072
    s.scaling.short_factor.assign(48, 1.0);
    s.scaling.long_factor.assign(48, 2.0);
    const auto with = [&](double rescale) {
        return [rescale](std::size_t i) { return base_inv(1e4, 96, i) / rescale; };
    };
    // A 100-token sequence: transformers uses short_factor; vLLM (max_model_len 131072 > 4096)
    // and llama.cpp (n_ctx 131072 > n_ctx_orig 4096) use long_factor: every pair differs by 2x.
    check_closed_form(stack_frequencies(s, Stack::transformers, 100), 48, kFloat, with(1.0));
    check_closed_form(stack_frequencies(s, Stack::vllm, 100), 48, kFloat, with(2.0));
    check_closed_form(stack_frequencies(s, Stack::llama_cpp, 100), 48, kChain, with(2.0));
    CHECK(stack_differences(s, 100).max_relative == Approx(0.5).epsilon(1e-5));
    // Past L all three use long_factor.
    CHECK(stack_differences(s, 5000).max_relative < kStackAgreement);
    // Attention factor: sqrt(1 + ln(131072 / 4096) / ln 4096) = sqrt(1 + ln 32 / ln 4096) = sqrt(17/12) = 1.1902381.
    const double phi3 = std::sqrt(1.0 + std::log(32.0) / std::log(4096.0));
    CHECK(phi3 == Approx(std::sqrt(17.0 / 12.0)));
    for (Stack st : kStacks) CHECK(stack_frequencies(s, st, 100).attention_factor == Approx(phi3).epsilon(1e-7));
    // With an explicit factor 8, transformers v5 takes sqrt(1 + ln 8 / ln 4096) = sqrt(1.25) = 1.1180340;
    // vLLM and llama.cpp still use max_position / original = 32.
    s.scaling.factor = 8.0;
    s.scaling.factor_given = true;
    CHECK(stack_frequencies(s, Stack::transformers, 100).attention_factor == Approx(std::sqrt(1.25)));
    CHECK(stack_frequencies(s, Stack::vllm, 100).attention_factor == Approx(phi3));
    CHECK(stack_differences(s, 100).attention_factors_differ);
}

TEST_CASE("stack_differences names the pair and the two stacks that differ most", "[rope][stack]") {
    const StackDifferences diff = stack_differences(llama2_like("ntk", 4.0), 10);
    REQUIRE(diff.pairs.size() == 64);
    for (std::size_t i = 0; i < diff.pairs.size(); ++i) {
        CHECK(diff.pairs[i].pair == std::int64_t(i));
        CHECK(diff.pairs[i].first != diff.pairs[i].second);
        CHECK(diff.pairs[i].max_relative <= diff.max_relative);
    }
    // The last pair: llama.cpp (no NTK) against one of the two NTK stacks.
    CHECK((diff.pairs[63].first == Stack::llama_cpp || diff.pairs[63].second == Stack::llama_cpp));
}

TEST_CASE("proportional is modelled for transformers only: the other stacks say so and are left out of the comparison",
          "[stack]") {
    const Spec spec = parse(posenc::Config{{"head_dim", 8.0},
        {"rope_parameters", posenc::Config{{"rope_type", std::string("proportional")}, {"rope_theta", 10000.0},
                                   {"partial_rotary_factor", 0.5}}}});
    const StackDifferences d = stack_differences(spec, 16);
    CHECK(d.modelled == std::array<bool, 3>{true, false, false});
    REQUIRE(d.stacks[0].inv_freq.size() == 4);
    CHECK(d.stacks[0].inv_freq[3] == 0.0);  // the zero tail survives the float32 rounding
    CHECK(d.stacks[1].inv_freq.empty());
    CHECK_THAT(d.stacks[1].note, Catch::Matchers::Contains("not llama.cpp's code"));
    CHECK(d.max_relative == 0.0);  // nothing to compare with
    // The refusal lists what vLLM is modelled for: every rope_type of scaling_types() but proportional.
    try {
        stack_frequencies(spec, Stack::vllm, 16);
        FAIL("vllm accepted proportional");
    } catch (const posenc::BadParam& e) {
        CHECK(e.param == "rope_type");
        CHECK(e.allowed == R"(one of "default", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope")");
    }
}

TEST_CASE("every rope_type of scaling_types() is computed by each stack that models it", "[stack]") {
    // The stacks' per-type formulas are chains over the type's name: a type missing from one would throw logic_error.
    std::int64_t modelled = 0;
    for (const ScalingType& type : scaling_types()) {
        Spec spec = llama2_like(type.name, 4.0);
        spec.scaling.low_freq_factor = 1.0;
        spec.scaling.high_freq_factor = 4.0;
        spec.scaling.short_factor.assign(64, 1.0);
        spec.scaling.long_factor.assign(64, 2.0);
        for (Stack stack : kStacks) {
            CHECK(models_rope_type(type.name, stack) == (stack == Stack::transformers || type.name != "proportional"));
            if (!models_rope_type(type.name, stack)) continue;
            ++modelled;
            INFO(type.name << " in " << stack_name(stack));
            CHECK(stack_frequencies(spec, stack, 8192).inv_freq.size() == 64);
        }
    }
    CHECK(modelled == 3 * std::int64_t(scaling_types().size()) - 2);
}

// Non-finite values (issue 35, finding 9): a stack whose arithmetic gives NaN or Infinity for keys that transformers
// takes is marked with the values and the key that leads there, and no comparison it enters agrees.
namespace {

/// A rope spec from a config's JSON text, as ropeStacks reads it.
Spec rope_config(const char* json) { return parse(posenc::Config::parse(json)); }

/// The comparison of stacks a and b in d (REQUIREd to be there).
const StackComparison& comparison(const StackDifferences& d, Stack a, Stack b) {
    for (const StackComparison& c : d.comparisons)
        if (c.first == a && c.second == b) return c;
    FAIL("no comparison of " << stack_name(a) << " and " << stack_name(b));
    return d.comparisons.front();
}

}  // namespace

TEST_CASE("relative_difference: a NaN or an infinity is not comparable, so it differs from everything, itself included",
          "[rope][stack]") {
    CHECK(relative_difference(2.0, 1.0) == 0.5);
    CHECK(relative_difference(0.0, 0.0) == 0.0);
    for (double bad : {double(NAN), HUGE_VAL, -HUGE_VAL}) {
        CHECK(relative_difference(bad, 1.0) == HUGE_VAL);
        CHECK(relative_difference(1.0, bad) == HUGE_VAL);
        CHECK(relative_difference(bad, bad) == HUGE_VAL);
        CHECK(relative_difference(bad, bad) > kStackAgreement);
    }
}

TEST_CASE("the audit's yarn with factor 1e100: llama.cpp's attention factor is NaN, marked by the key, and differs",
          "[rope][stack]") {
    const Spec s = rope_config(R"({"head_dim": 128, "rope_theta": 10000, "max_position_embeddings": 4096,
                                   "rope_scaling": {"rope_type": "yarn", "factor": 1e100, "original_max_position_embeddings": 4096}})");
    const StackDifferences d = stack_differences(s, 8192);
    // transformers and vLLM, in float64: 0.1 ln(1e100) + 1 = 24.02585093.
    CHECK(d.stacks[0].attention_factor == Approx(0.1 * 100.0 * std::log(10.0) + 1.0));
    CHECK(d.stacks[2].attention_factor == Approx(24.02585093));
    CHECK(d.stacks[0].nonfinite.empty());
    CHECK(d.stacks[2].nonfinite.empty());
    CHECK(d.stacks[0].nonfinite_param.empty());
    // llama.cpp: the GGUF's float32 factor is Infinity, freq_scale 0, and the attention factor
    // yarn_attn / adjust * adjust = Infinity * 0 = NaN.
    const StackFrequencies& ggml = d.stacks[1];
    CHECK(std::isnan(ggml.attention_factor));
    CHECK(ggml.nonfinite_param == "factor");
    CHECK_THAT(ggml.nonfinite, Catch::Matchers::StartsWith("attention_factor = NaN: factor = 1e+100 is past float32's range"));
    CHECK(d.attention_factors_differ);
    CHECK_FALSE(comparison(d, Stack::transformers, Stack::llama_cpp).agree);
    CHECK_FALSE(comparison(d, Stack::llama_cpp, Stack::vllm).agree);
    // transformers and vLLM: the interpolated pairs are below float32's least (1e-104 rounds to 0) in both.
    CHECK(comparison(d, Stack::transformers, Stack::vllm).agree);
    CHECK(d.comparisons.size() == 3);
}

TEST_CASE("the audit's longrope with original_max_position_embeddings 1: llama.cpp's and vLLM's attention factor is "
          "Infinity (ln L = 0), marked by the key; two infinities do not agree",
          "[rope][stack]") {
    const Spec s = rope_config(R"({"head_dim": 8, "rope_theta": 10000, "max_position_embeddings": 4096,
        "rope_scaling": {"rope_type": "longrope", "original_max_position_embeddings": 1, "attention_factor": 1.2,
                         "short_factor": [1, 1, 1, 1], "long_factor": [2, 2, 2, 2]}})");
    const StackDifferences d = stack_differences(s, 16);
    CHECK(d.stacks[0].attention_factor == Approx(1.2));  // transformers takes the config's attention_factor
    CHECK(d.stacks[0].nonfinite.empty());
    for (std::size_t k : {std::size_t(1), std::size_t(2)}) {
        INFO(stack_name(kStacks[k]));
        CHECK(d.stacks[k].attention_factor == HUGE_VAL);  // sqrt(1 + ln 4096 / ln 1)
        CHECK(d.stacks[k].nonfinite_param == "original_max_position_embeddings");
        CHECK_THAT(d.stacks[k].nonfinite, Catch::Matchers::StartsWith("attention_factor = Infinity: original_max_position_embeddings = 1 "
                                                                      "makes ln L = 0"));
    }
    CHECK(d.attention_factors_differ);
    for (const StackComparison& c : d.comparisons) CHECK_FALSE(c.agree);
}

TEST_CASE("other non-finite results name their key: a GGUF float32 mscale_all_dim, vLLM's dynamic base, longrope factors "
          "past float32", "[rope][stack]") {
    // mscale_all_dim 1e300 with factor 1: llama.cpp's float32 log multiplier is Infinity, times ln 1 = 0: NaN.
    const StackDifferences mscale = stack_differences(rope_config(R"({"head_dim": 8, "rope_scaling": {"rope_type": "yarn",
        "factor": 1, "mscale_all_dim": 1e300, "original_max_position_embeddings": 4096}})"), 16);
    CHECK(std::isnan(mscale.stacks[1].logit_scale));
    CHECK(mscale.stacks[1].nonfinite_param == "mscale_all_dim");
    CHECK_THAT(mscale.stacks[1].nonfinite, Catch::Matchers::StartsWith("logit_scale = NaN: mscale_all_dim = 1e+300 is past"));
    CHECK(mscale.logit_scales_differ);

    // dynamic at factor 1e30: vLLM's s * M / M - (s - 1) rounds to 0, so its base is 0 and every pair but the first Infinity.
    const StackDifferences dynamic = stack_differences(rope_config(R"({"head_dim": 8, "max_position_embeddings": 4096,
        "rope_scaling": {"rope_type": "dynamic", "factor": 1e30}})"), 1000000);
    const StackFrequencies& vllm = dynamic.stacks[2];
    CHECK(vllm.inv_freq[0] == 1.0);
    CHECK(vllm.inv_freq[3] == HUGE_VAL);
    CHECK(vllm.nonfinite_param == "factor");
    CHECK(vllm.nonfinite == "inv_freq[1] = Infinity and 2 more pairs: factor = 1e+30 makes s * M / T - (s - 1) = 0 in float64 "
                            "(M = T = max_position_embeddings), so the base is 0");
    CHECK(dynamic.pairs[3].max_relative == HUGE_VAL);
    CHECK_FALSE(comparison(dynamic, Stack::transformers, Stack::vllm).agree);

    // long_factor 1e-40 (served context 4096 > L = 2: llama.cpp and vLLM take it; transformers at 16 tokens takes short_factor).
    const StackDifferences longrope = stack_differences(rope_config(R"({"head_dim": 8, "max_position_embeddings": 4096,
        "rope_scaling": {"rope_type": "longrope", "original_max_position_embeddings": 2,
                         "short_factor": [1, 1, 1, 1], "long_factor": [1e-40, 1, 1, 1]}})"), 2);
    for (std::size_t k : {std::size_t(1), std::size_t(2)}) {
        INFO(stack_name(kStacks[k]));
        CHECK(longrope.stacks[k].inv_freq[0] == HUGE_VAL);
        CHECK(longrope.stacks[k].nonfinite_param == "long_factor");
        CHECK_THAT(longrope.stacks[k].nonfinite, Catch::Matchers::StartsWith("inv_freq[0] = Infinity: long_factor[0] = 1e-40 puts"));
    }
    CHECK(longrope.stacks[0].nonfinite.empty());
}

TEST_CASE("transformers refuses a frequency past float32's range (its inv_freq buffer), naming the value", "[rope][stack]") {
    const Spec s = rope_config(R"({"head_dim": 8, "max_position_embeddings": 4096, "rope_scaling": {"rope_type": "longrope",
        "original_max_position_embeddings": 2, "short_factor": [1e-40, 1, 1, 1], "long_factor": [1, 1, 1, 1]}})");
    // At 2 tokens (<= L) transformers takes short_factor: inv_freq[0] = 1e40 > 3.4e38.
    try {
        stack_differences(s, 2);
        FAIL("no error");
    } catch (const posenc::BadParam& e) {
        CHECK(e.param == "rope_scaling");
        CHECK(e.value == "inv_freq[0] = 1e+40");
        CHECK_THAT(e.what(), Catch::Matchers::Contains("at most 3.4e38"));
    }
}

}  // namespace posenc_test_rope_stacks
