// RoPE and its scalings, checked against closed forms and values derived by
// hand from each paper's formula (the derivations are in the comments).
#include <catch2/catch.hpp>

#include <map>
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <random>

#include "family_facts.hpp"
#include "posenc/rope.hpp"

// A namespace of its own: the test files also build as one translation unit (CMake's unity build).
namespace posenc_test_rope {

using namespace posenc;
using Catch::Matchers::Contains;
using rope::Layout;

// Where the family acts, its width key and its parsed defaults, for the checks every family passes (test_families.cpp).
const bool rope_facts = posenc_test::add_family_facts(
    "rope", {Acts::rotary, "head_dim", [](const Config& c) -> std::map<std::string, Value> {
        const auto s = rope::parse(c);
        return {{"head_dim", double(s.head_dim)}, {"rope_theta", s.rope_theta},
                {"partial_rotary_factor", double(s.rotary_dim) / double(s.head_dim)},
                {"layout", std::string(s.layout == rope::Layout::half ? "half" : "interleaved")},
                {"max_position_embeddings", double(s.max_position_embeddings)}};
    }});

namespace {

Config scaling_block(const Config& keys) {
    return Config(keys);
}

Value object(Config c) { return Config(std::move(c)); }

rope::Spec spec_of(const Config& keys) {
    return rope::parse(Config(keys));
}

xt::xtensor<float, 2> random_matrix(std::size_t n, std::size_t d, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    xt::xtensor<float, 2> x = xt::empty<float>({n, d});
    for (auto& v : x) v = normal(rng);
    return x;
}

double dot_rows(const xt::xtensor<float, 2>& a, std::size_t i, const xt::xtensor<float, 2>& b, std::size_t j) {
    double sum = 0;
    for (std::size_t c = 0; c < a.shape()[1]; ++c) sum += double(a(i, c)) * b(j, c);
    return sum;
}

}  // namespace

TEST_CASE("default inv_freq is theta^(-2i/d): d = 8, theta = 10000 gives 1, 0.1, 0.01, 0.001", "[rope]") {
    const auto f = rope::frequencies(spec_of({{"head_dim", 8.0}}), 1);
    REQUIRE(f.inv_freq.size() == 4);
    CHECK(f.inv_freq[0] == 1.0);
    CHECK(f.inv_freq[1] == Approx(0.1).epsilon(1e-14));
    CHECK(f.inv_freq[3] == Approx(0.001).epsilon(1e-14));
    CHECK(f.attention_factor == 1.0);
}

TEST_CASE("rotation preserves the norm of every row, in both layouts and with partial rotary", "[rope]") {
    for (const char* layout : {"half", "interleaved"}) {
        for (double prf : {1.0, 0.25}) {
            const auto spec = spec_of({{"head_dim", 64.0}, {"layout", std::string(layout)}, {"partial_rotary_factor", prf}});
            const auto x = random_matrix(20, 64, 1);
            const auto y = rope::apply(spec, x, 99990);
            for (std::size_t r = 0; r < 20; ++r)
                CHECK(std::sqrt(dot_rows(y, r, y, r)) == Approx(std::sqrt(dot_rows(x, r, x, r))).epsilon(1e-6));
        }
    }
}

TEST_CASE("q_m . k_n = q_0 . k_(n-m): the score depends only on the relative position", "[rope]") {
    const auto spec = spec_of({{"head_dim", 64.0}, {"rope_theta", 10000.0}});
    const auto q = random_matrix(1, 64, 2), k = random_matrix(1, 64, 3);
    std::mt19937 rng(4);
    std::uniform_int_distribution<int> position(0, 100000);
    for (int trial = 0; trial < 20; ++trial) {
        const int m = position(rng), n = position(rng);
        const double moved = dot_rows(rope::apply(spec, q, m), 0, rope::apply(spec, k, n), 0);
        const double reference = n >= m ? dot_rows(rope::apply(spec, q, 0), 0, rope::apply(spec, k, n - m), 0)
                                        : dot_rows(rope::apply(spec, q, m - n), 0, rope::apply(spec, k, 0), 0);
        CHECK(moved == Approx(reference).margin(2e-4));
    }
}

TEST_CASE("the half and interleaved layouts are the same rotation under the pair permutation", "[rope]") {
    const std::size_t d = 16, half = d / 2;
    const auto x = random_matrix(5, d, 5);
    // interleaved column 2i <-> half column i, 2i+1 <-> i + d/2
    xt::xtensor<float, 2> x_inter = x;
    for (std::size_t r = 0; r < 5; ++r)
        for (std::size_t i = 0; i < half; ++i) {
            x_inter(r, 2 * i) = x(r, i);
            x_inter(r, 2 * i + 1) = x(r, i + half);
        }
    const auto y_half = rope::apply(spec_of({{"head_dim", 16.0}, {"layout", std::string("half")}}), x, 7);
    const auto y_inter = rope::apply(spec_of({{"head_dim", 16.0}, {"layout", std::string("interleaved")}}), x_inter, 7);
    for (std::size_t r = 0; r < 5; ++r)
        for (std::size_t i = 0; i < half; ++i) {
            CHECK(y_inter(r, 2 * i) == y_half(r, i));
            CHECK(y_inter(r, 2 * i + 1) == y_half(r, i + half));
        }
}

TEST_CASE("one pair rotates by position * inv_freq, counter-clockwise", "[rope]") {
    // Pair 1 of an interleaved d = 4 head: inv_freq = 10000^(-2/4) = 0.01; at
    // position 50 the angle is 0.5 rad, so (1, 0) -> (cos 0.5, sin 0.5).
    xt::xtensor<float, 2> x = {{0.0f, 0.0f, 1.0f, 0.0f}};
    const auto y = rope::apply(spec_of({{"head_dim", 4.0}, {"layout", std::string("interleaved")}}), x, 50);
    CHECK(y(0, 2) == Approx(std::cos(0.5)).margin(1e-7));
    CHECK(y(0, 3) == Approx(std::sin(0.5)).margin(1e-7));
}

TEST_CASE("partial rotary leaves the tail untouched and rotates rotary_dim = head_dim * factor", "[rope]") {
    // GPT-NeoX-20B: head_dim 96, rotary_pct 0.25 -> rotary_dim 24.
    const auto spec = spec_of({{"head_dim", 96.0}, {"partial_rotary_factor", 0.25}});
    CHECK(spec.rotary_dim == 24);
    CHECK(rope::frequencies(spec, 1).inv_freq.size() == 12);
    const auto x = random_matrix(3, 96, 6);
    const auto y = rope::apply(spec, x, 1234);
    for (std::size_t r = 0; r < 3; ++r)
        for (std::size_t c = 24; c < 96; ++c) CHECK(y(r, c) == x(r, c));
    CHECK(y(1, 0) != x(1, 0));
    // Rounded down to even: 64 * 0.4 = 25.6 -> 24. GPT-J names the width itself.
    CHECK(spec_of({{"head_dim", 64.0}, {"partial_rotary_factor", 0.4}}).rotary_dim == 24);
    CHECK(spec_of({{"head_dim", 256.0}, {"rotary_dim", 64.0}}).rotary_dim == 64);
}

TEST_CASE("linear (Position Interpolation) divides every frequency by the factor", "[rope][scaling]") {
    const auto f = rope::frequencies(
        spec_of({{"head_dim", 8.0}, {"rope_scaling", object({{"rope_type", std::string("linear")}, {"factor", 4.0}})}}), 1);
    CHECK(f.inv_freq[0] == 0.25);
    CHECK(f.inv_freq[2] == Approx(0.0025).epsilon(1e-14));
}

TEST_CASE("ntk changes the base to theta * s^(d/(d-2)): fastest pair kept, slowest divided by s", "[rope][scaling]") {
    const auto spec = spec_of({{"head_dim", 8.0}, {"rope_scaling", object({{"rope_type", std::string("ntk")}, {"factor", 4.0}})}});
    const auto f = rope::frequencies(spec, 1);
    // theta' = 10000 * 4^(8/6); the slowest pair, theta'^(-6/8) = 10000^(-3/4) * 4^(-1) = 0.001 / 4.
    CHECK(f.inv_freq[0] == 1.0);
    CHECK(f.inv_freq[3] == Approx(0.00025).epsilon(1e-12));
    CHECK(f.inv_freq[1] == Approx(std::pow(10000.0 * std::pow(4.0, 8.0 / 6.0), -0.25)).epsilon(1e-14));
}

TEST_CASE("dynamic NTK equals default up to max_position_embeddings and rescales the base beyond", "[rope][scaling]") {
    const auto spec = spec_of({{"head_dim", 8.0}, {"max_position_embeddings", 2048.0},
                               {"rope_scaling", object({{"rope_type", std::string("dynamic")}, {"factor", 2.0}})}});
    const auto plain = rope::frequencies(spec_of({{"head_dim", 8.0}}), 1).inv_freq;
    for (std::int64_t len : {1, 100, 2048}) CHECK(rope::frequencies(spec, len).inv_freq == plain);
    // seq_len 4096 = 2L, s = 2: base = 10000 * (2 * 2 - 1)^(8/6) = 10000 * 3^(4/3).
    const auto longer = rope::frequencies(spec, 4096).inv_freq;
    CHECK(longer[3] == Approx(std::pow(10000.0 * std::pow(3.0, 4.0 / 3.0), -0.75)).epsilon(1e-13));
    CHECK(longer[3] == Approx(0.001 / 3.0).epsilon(1e-12));  // slowest pair: divided by 3 exactly
}

TEST_CASE("yarn ramps from extrapolation (i <= 20) to interpolation (i >= 46) for d = 128, L = 4096",
          "[rope][scaling]") {
    // low  = floor(128 ln(4096 / (32 * 2 pi)) / (2 ln 10000)) = floor(20.944) = 20
    // high = ceil (128 ln(4096 / ( 1 * 2 pi)) / (2 ln 10000)) = ceil (45.027) = 46
    const auto spec = spec_of({{"head_dim", 128.0}, {"max_position_embeddings", 16384.0},
                               {"rope_scaling", object({{"rope_type", std::string("yarn")}, {"factor", 4.0},
                                                        {"original_max_position_embeddings", 4096.0}})}});
    const auto f = rope::frequencies(spec, 1);
    const auto base = [](int i) { return std::pow(10000.0, -2.0 * i / 128.0); };
    for (int i : {0, 10, 20}) CHECK(f.inv_freq[i] == Approx(base(i)).epsilon(1e-13));
    for (int i : {46, 50, 63}) CHECK(f.inv_freq[i] == Approx(base(i) / 4.0).epsilon(1e-13));
    // i = 33: ramp (33 - 20) / (46 - 20) = 0.5 of the way to interpolation.
    CHECK(f.inv_freq[33] == Approx(base(33) * (0.5 / 4.0 + 0.5)).epsilon(1e-13));
    CHECK(f.attention_factor == Approx(0.1 * std::log(4.0) + 1.0).epsilon(1e-15));  // 1.1386
}

TEST_CASE("yarn with truncate = false keeps the fractional ramp ends 20.944 and 45.027", "[rope][scaling]") {
    const auto spec = spec_of({{"head_dim", 128.0},
                               {"rope_scaling", object({{"rope_type", std::string("yarn")}, {"factor", 4.0}, {"truncate", false},
                                                        {"original_max_position_embeddings", 4096.0}})}});
    const double low = 128 * std::log(4096 / (32 * 2 * M_PI)) / (2 * std::log(10000.0));
    const double high = 128 * std::log(4096 / (2 * M_PI)) / (2 * std::log(10000.0));
    CHECK(low == Approx(20.944).margin(1e-3));
    const auto f = rope::frequencies(spec, 1);
    const double ramp = (30 - low) / (high - low);
    CHECK(f.inv_freq[30] == Approx(std::pow(10000.0, -60.0 / 128.0) * (ramp / 4.0 + 1.0 - ramp)).epsilon(1e-13));
    CHECK(f.inv_freq[21] != Approx(std::pow(10000.0, -42.0 / 128.0)));  // 21 > 20.944: already ramping
}

TEST_CASE("yarn's attention factor: given, or DeepSeek's mscale ratio", "[rope][scaling]") {
    const auto with = [](const Config& extra) {
        Config block{{"rope_type", std::string("yarn")}, {"factor", 40.0}, {"original_max_position_embeddings", 4096.0}};
        for (const auto& kv : extra.items()) block[kv.key()] = kv.value();
        return rope::frequencies(spec_of({{"head_dim", 64.0}, {"rope_scaling", object(block)}}), 1).attention_factor;
    };
    CHECK(with({{"attention_factor", 1.5}}) == 1.5);
    // mscale 1 and mscale_all_dim 1: (0.1 ln 40 + 1) / (0.1 ln 40 + 1) = 1.
    CHECK(with({{"mscale", 1.0}, {"mscale_all_dim", 1.0}}) == 1.0);
    // mscale 1, mscale_all_dim 0.707: (0.1 ln 40 + 1) / (0.0707 ln 40 + 1) = 1.3689 / 1.2608.
    CHECK(with({{"mscale", 1.0}, {"mscale_all_dim", 0.707}}) ==
          Approx((0.1 * std::log(40.0) + 1) / (0.0707 * std::log(40.0) + 1)).epsilon(1e-14));
    CHECK(with({}) == Approx(1.3688879454113936).epsilon(1e-15));
    // DeepSeek's attention multiplies its softmax scale by m(s, mscale_all_dim)^2
    // (0.1 ln 40 + 1)^2 = 1.87386; without mscale_all_dim it stays 1.
    const auto logit = [](Config block) {
        return rope::frequencies(spec_of({{"head_dim", 64.0}, {"rope_scaling", object(block)}}), 1).logit_scale;
    };
    CHECK(logit({{"rope_type", std::string("yarn")}, {"factor", 40.0}, {"mscale", 1.0}, {"mscale_all_dim", 1.0}}) ==
          Approx(std::pow(0.1 * std::log(40.0) + 1, 2)).epsilon(1e-14));
    CHECK(logit({{"rope_type", std::string("yarn")}, {"factor", 40.0}}) == 1.0);
}

TEST_CASE("llama3 keeps wavelengths < L/4, divides those > L by s, and blends pairs 29..34", "[rope][scaling]") {
    // Llama 3.1: theta 500000, d 128, s 8, low 1, high 4, L 8192. Wavelength
    // 2 pi 500000^(i/64) crosses 2048 between i = 28 (1956) and 29 (2402), and
    // 8192 between i = 34 (6695) and 35 (8219).
    const auto spec = spec_of({{"head_dim", 128.0}, {"rope_theta", 500000.0}, {"max_position_embeddings", 131072.0},
                               {"rope_scaling", object({{"rope_type", std::string("llama3")}, {"factor", 8.0},
                                                        {"low_freq_factor", 1.0}, {"high_freq_factor", 4.0},
                                                        {"original_max_position_embeddings", 8192.0}})}});
    const auto f = rope::frequencies(spec, 1);
    const auto base = [](int i) { return std::pow(500000.0, -i / 64.0); };
    for (int i : {0, 20, 28}) CHECK(f.inv_freq[i] == Approx(base(i)).epsilon(1e-13));
    for (int i : {35, 50, 63}) CHECK(f.inv_freq[i] == Approx(base(i) / 8.0).epsilon(1e-13));
    // i = 30: wavelength 2948.30, smooth = (8192 / 2948.30 - 1) / 3 = 0.592849.
    const double smooth = (8192.0 / (2 * M_PI / base(30)) - 1.0) / 3.0;
    CHECK(smooth == Approx(0.592849).margin(1e-6));
    CHECK(f.inv_freq[30] == Approx((1 - smooth) * base(30) / 8.0 + smooth * base(30)).epsilon(1e-13));
    CHECK(f.attention_factor == 1.0);
}

TEST_CASE("llama3 with equal low and high factors (Llama 4: both 1) keeps pairs shorter than L and divides the rest",
          "[rope][scaling]") {
    // Llama-4-Scout: theta 5e5, d 128, L 8192, s 16, low = high = 1. Pair i has wavelength 2 pi 5e5^(2i/128), which
    // crosses L = 8192 between i = 34 (2 pi 5e5^(68/128) = 8054 tokens) and i = 35 (2 pi 5e5^(70/128) = 9916 tokens).
    const auto spec = spec_of({{"head_dim", 128.0}, {"rope_theta", 500000.0},
                               {"rope_scaling", object({{"rope_type", std::string("llama3")}, {"factor", 16.0},
                                                        {"low_freq_factor", 1.0}, {"high_freq_factor", 1.0},
                                                        {"original_max_position_embeddings", 8192.0}})}});
    const auto f = rope::frequencies(spec, 1);
    CHECK(f.inv_freq[34] == Approx(std::pow(500000.0, -68.0 / 128)).epsilon(1e-14));
    CHECK(f.inv_freq[35] == Approx(std::pow(500000.0, -70.0 / 128) / 16).epsilon(1e-14));
    CHECK(f.inv_freq[63] == Approx(std::pow(500000.0, -126.0 / 128) / 16).epsilon(1e-14));
    for (double x : f.inv_freq) CHECK(std::isfinite(x));
}

TEST_CASE("longrope picks short_factor up to L and long_factor beyond, attention factor sqrt(1 + ln s / ln L)",
          "[rope][scaling]") {
    // Phi-3-mini-128k style: L = 4096 at the top level, max 131072, s = 32:
    // sqrt(1 + ln 32 / ln 4096) = sqrt(1 + 5/12) = 1.190238.
    const Config block{{"rope_type", std::string("longrope")},
                       {"short_factor", std::vector<double>{1, 1, 1, 1}},
                       {"long_factor", std::vector<double>{1, 2, 4, 8}}};
    const auto spec = spec_of({{"head_dim", 8.0}, {"max_position_embeddings", 131072.0},
                               {"original_max_position_embeddings", 4096.0}, {"rope_scaling", object(block)}});
    const auto short_f = rope::frequencies(spec, 4096);
    const auto long_f = rope::frequencies(spec, 4097);
    CHECK(short_f.inv_freq[3] == Approx(0.001).epsilon(1e-14));
    CHECK(long_f.inv_freq[1] == Approx(0.1 / 2).epsilon(1e-14));
    CHECK(long_f.inv_freq[3] == Approx(0.001 / 8).epsilon(1e-14));
    CHECK(short_f.attention_factor == Approx(std::sqrt(17.0 / 12.0)).epsilon(1e-15));
    CHECK(long_f.attention_factor == short_f.attention_factor);
    // An explicit factor wins over max_position_embeddings / L (transformers v5):
    // s = 4 gives sqrt(1 + ln 4 / ln 4096) = sqrt(1 + 1/6).
    Config with_factor = block;
    with_factor["factor"] = 4.0;
    const auto explicit_spec = spec_of({{"head_dim", 8.0}, {"max_position_embeddings", 131072.0},
                                        {"original_max_position_embeddings", 4096.0}, {"rope_scaling", object(with_factor)}});
    CHECK(rope::frequencies(explicit_spec, 1).attention_factor == Approx(std::sqrt(7.0 / 6.0)).epsilon(1e-15));
}

TEST_CASE("proportional keeps floor(prf * head_dim / 2) pairs at theta^(-2i/head_dim) and zeroes the rest",
          "[rope][scaling]") {
    // transformers' _compute_proportional_rope_parameters: head_dim 8, prf 0.5 gives
    // rope_angles = int(0.5 * 8 // 2) = 2 pairs at 10000^(-0/8) = 1 and 10000^(-2/8) = 0.1,
    // then 8 // 2 - 2 = 2 zeros; factor 2 halves the turning ones.
    const Config keys{{"rope_theta", 10000.0}, {"rope_type", std::string("proportional")}, {"partial_rotary_factor", 0.5}};
    const auto spec = spec_of({{"head_dim", 8.0}, {"rope_parameters", object(keys)}});
    CHECK(spec.rotary_dim == 8);
    CHECK(spec.scaling.rotated_pairs == 2);
    const auto f = rope::frequencies(spec, 1);
    REQUIRE(f.inv_freq.size() == 4);
    CHECK(f.inv_freq[0] == 1.0);
    CHECK(f.inv_freq[1] == Approx(0.1).epsilon(1e-14));
    CHECK(f.inv_freq[2] == 0.0);
    CHECK(f.inv_freq[3] == 0.0);
    CHECK(f.attention_factor == 1.0);
    Config halved = keys;
    halved["factor"] = 2.0;
    const auto g = rope::frequencies(spec_of({{"head_dim", 8.0}, {"rope_parameters", object(halved)}}), 1);
    CHECK(g.inv_freq[1] == Approx(0.05).epsilon(1e-14));
    CHECK(g.inv_freq[3] == 0.0);

    // Gemma-4's global layers: global_head_dim 512, prf 0.25, theta 1e6: 64 pairs turn, the
    // slowest at 1e6^(-126/512) = 10^(-1.4765625) = 0.033377 rad/token (wavelength 188 tokens),
    // where partial_rotary_factor in the default type (rotary_dim 128) would put it at
    // 1e6^(-126/128) = 10^(-5.90625) (wavelength 5.07 million tokens).
    const Config gemma{{"rope_theta", 1e6}, {"rope_type", std::string("proportional")}, {"partial_rotary_factor", 0.25}};
    const auto global = rope::frequencies(spec_of({{"head_dim", 512.0}, {"rope_parameters", object(gemma)}}), 1);
    REQUIRE(global.inv_freq.size() == 256);
    CHECK(global.inv_freq[63] == Approx(std::pow(10.0, -1.4765625)).epsilon(1e-13));
    CHECK(global.inv_freq[64] == 0.0);
    CHECK(global.inv_freq[255] == 0.0);
    const auto partial = rope::frequencies(spec_of({{"head_dim", 512.0}, {"rope_theta", 1e6}, {"partial_rotary_factor", 0.25}}), 1);
    REQUIRE(partial.inv_freq.size() == 64);
    CHECK(partial.inv_freq[63] == Approx(std::pow(10.0, -5.90625)).epsilon(1e-13));

    // The top-level partial_rotary_factor (the page's v4 form) counts pairs too; a zero-frequency
    // pair leaves the rotation the identity there: position 5 changes only dimensions 0, 1, 4, 5 (half layout).
    const auto v4 = spec_of({{"head_dim", 8.0}, {"partial_rotary_factor", 0.5},
                             {"rope_scaling", object({{"rope_type", std::string("proportional")}})}});
    CHECK(v4.scaling.rotated_pairs == 2);
    const auto x = random_matrix(1, 8, 3);
    const auto y = rope::apply(v4, x, 5);
    for (std::size_t c : {2u, 3u, 6u, 7u}) CHECK(y(0, c) == x(0, c));
    CHECK(y(0, 0) != x(0, 0));

    // Too few pairs, and GPT-J's rotary_dim, are refused naming the key.
    CHECK_THROWS_WITH(spec_of({{"head_dim", 6.0}, {"partial_rotary_factor", 0.25},
                               {"rope_scaling", object({{"rope_type", std::string("proportional")}})}}),
                      Contains("partial_rotary_factor = 0.25 is invalid") && Contains("at least one pair turns"));
    CHECK_THROWS_WITH(spec_of({{"head_dim", 8.0}, {"rotary_dim", 4.0},
                               {"rope_scaling", object({{"rope_type", std::string("proportional")}})}}),
                      Contains("give partial_rotary_factor, not rotary_dim"));
}

TEST_CASE("the attention factor scales the rotated part, so q.k scales by its square", "[rope][scaling]") {
    const auto plain = spec_of({{"head_dim", 16.0}});
    const auto yarn = spec_of({{"head_dim", 16.0},
                               {"rope_scaling", object({{"rope_type", std::string("yarn")}, {"factor", 4.0}, {"attention_factor", 1.5}})}});
    const auto q = random_matrix(1, 16, 8);
    const auto a = rope::apply(yarn, q, 0);  // position 0: no rotation, pure scale
    for (std::size_t c = 0; c < 16; ++c) CHECK(a(0, c) == Approx(1.5 * q(0, c)).epsilon(1e-6));
    CHECK(dot_rows(a, 0, a, 0) == Approx(2.25 * dot_rows(rope::apply(plain, q, 0), 0, q, 0)).epsilon(1e-5));
}

TEST_CASE("both config generations read the same: rope_theta + rope_scaling and rope_parameters", "[rope][config]") {
    const auto v4 = spec_of({{"head_dim", 128.0}, {"rope_theta", 500000.0},
                             {"rope_scaling", object({{"type", std::string("yarn")}, {"factor", 4.0},
                                                      {"original_max_position_embeddings", 32768.0}})}});
    const auto v5 = spec_of({{"head_dim", 128.0},
                             {"rope_parameters", object({{"rope_type", std::string("yarn")}, {"rope_theta", 500000.0},
                                                         {"factor", 4.0}, {"original_max_position_embeddings", 32768.0}})}});
    CHECK(v4.rope_theta == 500000.0);
    CHECK(v5.rope_theta == 500000.0);
    CHECK(v4.scaling.rope_type == "yarn");
    CHECK(rope::frequencies(v4, 1).inv_freq == rope::frequencies(v5, 1).inv_freq);
    // rope_parameters with rope_type "default" and no scaling keys.
    // head_dim 4, theta 100: inv_freq[1] = 100^(-2/4) = 0.1.
    const auto plain = spec_of({{"head_dim", 4.0}, {"rope_parameters", object({{"rope_type", std::string("default")}, {"rope_theta", 100.0}})}});
    CHECK(rope::frequencies(plain, 1).inv_freq[1] == Approx(0.1).epsilon(1e-14));
    // v5 also carries partial_rotary_factor inside rope_parameters.
    CHECK(spec_of({{"head_dim", 64.0}, {"rope_parameters", object({{"rope_type", std::string("default")},
                                                                   {"partial_rotary_factor", 0.5}})}}).rotary_dim == 32);
    // v5 takes a top-level rope_theta as the block's default, and the block's own over it.
    CHECK(spec_of({{"rope_theta", 50.0}, {"rope_parameters", object({{"rope_type", std::string("default")}})}}).rope_theta == 50.0);
    CHECK(spec_of({{"rope_theta", 50.0}, {"rope_parameters", object({{"rope_type", std::string("default")}, {"rope_theta", 70.0}})}}).rope_theta == 70.0);
    // A null rope_scaling (as configs write it) means no scaling.
    CHECK(spec_of({{"rope_scaling", nullptr}}).scaling.rope_type == "default");
}

TEST_CASE("original_max_position_embeddings: the top level (v5 gives it priority), the block, max_position_embeddings",
          "[rope][config]") {
    const auto yarn = [](const Config& top, bool in_block) {
        Config block{{"rope_type", std::string("yarn")}, {"factor", 2.0}};
        if (in_block) block["original_max_position_embeddings"] = 1000.0;
        Config config(top);
        config["rope_scaling"] = object(block);
        return rope::parse(config).scaling.original_max_position_embeddings;
    };
    CHECK(yarn({{"max_position_embeddings", 8000.0}, {"original_max_position_embeddings", 2000.0}}, true) == 2000);
    CHECK(yarn({{"max_position_embeddings", 8000.0}}, true) == 1000);
    CHECK(yarn({{"max_position_embeddings", 8000.0}, {"original_max_position_embeddings", 2000.0}}, false) == 2000);
    CHECK(yarn({{"max_position_embeddings", 8000.0}}, false) == 8000);
}

TEST_CASE("RoFormer's decay curves start where the closed forms say and fall with distance", "[rope][analysis]") {
    const auto spec = spec_of({{"head_dim", 128.0}});
    const auto d = rope::decay(spec, 2000, 1);
    REQUIRE(d.upper_bound.size() == 2001);
    // m = 0: every S_j = j, so (1/64) sum_{j=1..64} j = 32.5; q = k = 1 gives |q|^2 = 128.
    CHECK(d.upper_bound[0] == Approx(32.5).epsilon(1e-14));
    CHECK(d.ones[0] == Approx(128.0).epsilon(1e-14));
    CHECK(d.random[0] > 64.0);  // |q|^2 of a 128-dim standard normal, about 128
    // Long-term decay (RoFormer fig. 2): far below the start by distance 250.
    CHECK(d.upper_bound[250] < 0.3 * d.upper_bound[0]);
    CHECK(d.ones[1] == Approx([] { double s = 0; for (int i = 0; i < 64; ++i) s += 2 * std::cos(std::pow(10000.0, -i / 64.0)); return s; }()).epsilon(1e-12));
    // Partial rotary adds the untouched tail: head 96, rotary 24 -> 72 + 24 at m = 0.
    CHECK(rope::decay(spec_of({{"head_dim", 96.0}, {"partial_rotary_factor", 0.25}}), 3).ones[0] == Approx(96.0));
}

TEST_CASE("bad rope input throws naming the key, value and allowed range", "[rope][errors]") {
    CHECK_THROWS_WITH(spec_of({{"head_dim", 7.0}}), Contains("head_dim = 7") && Contains("even integer"));
    CHECK_THROWS_WITH(spec_of({{"head_dim", 64.0}, {"rotary_dim", 33.0}}), Contains("rotary_dim = 33"));
    CHECK_THROWS_WITH(spec_of({{"head_dim", 64.0}, {"rotary_dim", 128.0}}), Contains("rotary_dim = 128"));
    CHECK_THROWS_WITH(spec_of({{"partial_rotary_factor", 0.0}}), Contains("partial_rotary_factor = 0"));
    CHECK_THROWS_WITH(spec_of({{"rope_theta", NAN}}), Contains("rope_theta = NaN") && Contains("> 1"));
    CHECK_THROWS_WITH(spec_of({{"rope_theta", INFINITY}}), Contains("rope_theta = Infinity"));
    CHECK_THROWS_WITH(spec_of({{"rope_scaling", object({{"rope_type", std::string("linear")}, {"factor", 0.5}})}}),
                      Contains("factor = 0.5") && Contains(">= 1"));
    CHECK_THROWS_WITH(spec_of({{"rope_scaling", object({{"rope_type", std::string("su")}})}}),
                      Contains("rope_type = \"su\"") && Contains("\"default\", \"linear\", \"ntk\", \"dynamic\", \"yarn\", \"llama3\", \"longrope\", \"proportional\""));
    CHECK_THROWS_WITH(spec_of({{"rope_scaling", object({{"rope_type", std::string("linear")}})}}),
                      Contains("missing required key \"factor\""));
    CHECK_THROWS_WITH(spec_of({{"rope_scaling", object({{"factor", 2.0}})}}), Contains("missing required key \"rope_type\""));
    CHECK_THROWS_WITH(spec_of({{"rope_scaling", object({{"rope_type", std::string("linear")}, {"factor", 2.0}, {"beta_fast", 3.0}})}}),
                      Contains("unknown key \"beta_fast\"") && Contains("accepted keys: rope_type, type, factor"));
    CHECK_THROWS_WITH(spec_of({{"head_dim", 8.0}, {"rope_scaling", object({{"rope_type", std::string("longrope")},
                                                                          {"short_factor", std::vector<double>{1, 1, 1}},
                                                                          {"long_factor", std::vector<double>{1, 1, 1, 1}}})}}),
                      Contains("short_factor = a list of 3 numbers") && Contains("rotary_dim / 2 = 4"));
    CHECK_THROWS_WITH(spec_of({{"rope_scaling", object({{"rope_type", std::string("llama3")}, {"factor", 8.0},
                                                        {"low_freq_factor", 5.0}, {"high_freq_factor", 4.0},
                                                        {"original_max_position_embeddings", 8192.0}})}}),
                      Contains("low_freq_factor = 5") && Contains("<= high_freq_factor"));
    CHECK_THROWS_WITH(spec_of({{"rope_scaling", object({{"rope_type", std::string("default")}})},
                               {"rope_parameters", object({{"rope_type", std::string("default")}})}}),
                      Contains("not both"));
    CHECK_THROWS_WITH(spec_of({{"rope_parameters", object({{"rope_type", std::string("default")}, {"rope_theta", 0.5}})}}),
                      Contains("rope_theta = 0.5"));
    CHECK_THROWS_WITH(spec_of({{"rope_scale", 2.0}}), Contains("unknown key \"rope_scale\""));
    const auto spec = spec_of({{"head_dim", 8.0}});
    CHECK_THROWS_WITH(rope::apply(spec, xt::xtensor<float, 2>::from_shape({2, 6}), 0), Contains("head_dim = 8"));
    CHECK_THROWS_WITH(rope::apply(spec, xt::xtensor<float, 2>::from_shape({2, 8}), -1), Contains("offset = -1"));
    CHECK_THROWS_WITH(rope::frequencies(spec, 0), Contains("seq_len = 0"));
    CHECK_THROWS_WITH(rope::decay(spec, -1), Contains("max_distance = -1"));
}

TEST_CASE("apply on raw arrays: the same bytes as the xtensor apply, also in place", "[rope]") {
    const auto spec = spec_of({{"head_dim", 8.0}, {"rope_scaling", Config(Config{
                                                                        {"rope_type", std::string("yarn")}, {"factor", 4.0}})}});
    xt::xtensor<float, 2> x = xt::empty<float>({3, 8});
    for (std::size_t k = 0; k < x.size(); ++k) x.data()[k] = float(std::sin(double(k)));
    const auto expected = rope::apply(spec, x, 17);
    std::vector<float> out(24);
    rope::apply(spec, x.data(), 3, 8, 17, out.data());
    CHECK(std::equal(out.begin(), out.end(), expected.begin()));
    std::vector<float> in_place(x.begin(), x.end());
    rope::apply(spec, in_place.data(), 3, 8, 17, in_place.data());
    CHECK(in_place == out);
    CHECK_THROWS_WITH(rope::apply(spec, x.data(), 4, 6, 0, out.data()), Contains("x = [4, 6] is invalid"));
}

// ---------------------------------------------------------------------------
// scaling_types(): the table describe() lists is the one parse enforces.

namespace {

/// A valid scaling block of each rope_type holding exactly its required keys
/// (head_dim 8: short/long_factor have 4 entries).
Config required_block(const std::string& type) {
    Config block{{"rope_type", type}};
    const std::vector<double> ones{1, 1, 1, 1};
    if (type == "linear" || type == "ntk" || type == "dynamic" || type == "yarn") block["factor"] = 2.0;
    if (type == "llama3") {
        for (const auto& [key, value] : std::vector<std::pair<std::string, double>>{
                 {"factor", 8.0}, {"original_max_position_embeddings", 8192.0}, {"low_freq_factor", 1.0},
                 {"high_freq_factor", 4.0}})
            block[key] = value;
    }
    if (type == "longrope") {
        block["short_factor"] = ones;
        block["long_factor"] = ones;
    }
    return block;
}

/// A rope spec of head_dim 8 with `block` as its rope_scaling (v4) or rope_parameters (v5).
rope::Spec parse_block(const Config& block, bool v5) {
    return rope::parse(Config{{"head_dim", 8.0}, {v5 ? "rope_parameters" : "rope_scaling", object(block)}});
}

/// The param and message of the BadParam parse throws, or {"", ""} when it accepts.
std::pair<std::string, std::string> refusal(const Config& block, bool v5 = false) {
    try {
        parse_block(block, v5);
    } catch (const BadParam& e) {
        return {e.param, e.what()};
    }
    return {"", ""};
}

/// The field a scalar key is read into (a boolean as 0 / 1; an absent optional as NaN).
double field(const rope::Scaling& s, const std::string& key) {
    if (key == "factor") return s.factor;
    if (key == "original_max_position_embeddings") return double(s.original_max_position_embeddings);
    if (key == "attention_factor") return s.attention_factor.value_or(NAN);
    if (key == "beta_fast") return s.beta_fast;
    if (key == "beta_slow") return s.beta_slow;
    if (key == "mscale") return s.mscale.value_or(NAN);
    if (key == "mscale_all_dim") return s.mscale_all_dim.value_or(NAN);
    if (key == "truncate") return s.truncate ? 1.0 : 0.0;
    if (key == "low_freq_factor") return s.low_freq_factor;
    if (key == "high_freq_factor") return s.high_freq_factor;
    FAIL("no field for " << key);
    return 0;
}

}  // namespace

TEST_CASE("scaling_types() lists every rope_type once, in the order of rope_types()", "[rope][scaling][table]") {
    const auto& types = rope::scaling_types();
    REQUIRE(types.size() == rope::rope_types().size());
    for (std::size_t i = 0; i < types.size(); ++i) {
        CHECK(types[i].name == rope::rope_types()[i]);
        CHECK(&rope::scaling_type(types[i].name) == &types[i]);
        for (const auto* group : {&types[i].required, &types[i].optional})
            for (const auto& key : *group) {
                INFO(types[i].name << "." << key.name);
                CHECK((key.kind == "integer" || key.kind == "number" || key.kind == "boolean" || key.kind == "list"));
                CHECK(key.lo <= key.hi);
                CHECK(!key.allowed.empty());
                if (group == &types[i].required) CHECK(!key.fallback);
            }
    }
    CHECK(rope::rope_types() ==
          std::vector<std::string>{"default", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope", "proportional"});
    CHECK_THROWS_WITH(rope::scaling_type("su"), Contains("rope_type = \"su\" is invalid: expected one of \"default\""));
}

TEST_CASE("an unread key is accepted and checked, and no frequency reads it: dynamic's original context", "[rope][scaling][table]") {
    for (const auto& type : rope::scaling_types())
        for (const std::string& key : type.unread) {
            INFO(type.name << "." << key);
            CHECK(std::any_of(type.optional.begin(), type.optional.end(), [&](const auto& k) { return k.name == key; }));
        }
    CHECK(rope::scaling_type("dynamic").unread == std::vector<std::string>{"original_max_position_embeddings"});
    CHECK(rope::scaling_type("yarn").unread.empty());
    // transformers' _compute_dynamic_ntk_parameters grows the base from max_position_embeddings (4096 here): at
    // seq_len 8192 with factor 2 the base is theta (2 * 8192 / 4096 - 1)^(d / (d - 2)) = theta 3^(8/6), whatever the
    // block's original context says (still checked: 0 is refused).
    const auto dynamic = [](double original) {
        return rope::frequencies(spec_of({{"head_dim", 8.0}, {"max_position_embeddings", 4096.0},
            {"rope_scaling", object({{"rope_type", std::string("dynamic")}, {"factor", 2.0},
                                     {"original_max_position_embeddings", original}})}}), 8192).inv_freq;
    };
    CHECK(dynamic(1024.0) == dynamic(4096.0));
    CHECK_THAT(dynamic(1024.0)[1], Catch::Matchers::WithinRel(std::pow(10000.0 * std::pow(3.0, 8.0 / 6.0), -2.0 / 8.0), 1e-12));
    CHECK_THROWS_AS(dynamic(0.0), BadParam);
}

TEST_CASE("parse requires each listed required key and refuses any key outside a type's lists",
          "[rope][scaling][table]") {
    std::vector<std::string> every_key{"beta", "rope_scale"};  // and every key some type lists
    for (const auto& type : rope::scaling_types())
        for (const auto* group : {&type.required, &type.optional})
            for (const auto& key : *group) every_key.push_back(key.name);
    for (const bool v5 : {false, true}) {
        for (const auto& type : rope::scaling_types()) {
            INFO((v5 ? "rope_parameters " : "rope_scaling ") << type.name);
            const Config block = required_block(type.name);
            std::vector<std::string> required;
            for (const auto& key : type.required) required.push_back(key.name);
            std::vector<std::string> given;
            for (const auto& [key, value] : block.items())
                if (key != "rope_type") given.push_back(key);
            std::sort(required.begin(), required.end());
            CHECK(given == required);  // the example holds exactly the listed required keys
            CHECK(parse_block(block, v5).scaling.rope_type == type.name);
            for (const auto& key : type.required) {
                Config missing = block;
                missing[key.name] = nullptr;  // null reads as absent
                const auto [param, message] = refusal(missing, v5);
                CHECK(param == key.name);
                CHECK_THAT(message, Contains("missing required key \"" + key.name + "\""));
            }
            for (const auto& key : every_key) {
                bool listed = false;
                for (const auto* group : {&type.required, &type.optional})
                    for (const auto& k : *group) listed = listed || k.name == key;
                if (listed) continue;
                Config extra = block;
                extra[key] = 1.0;
                const auto [param, message] = refusal(extra, v5);
                INFO(key);
                CHECK(param == key);
                CHECK_THAT(message, Contains("unknown key \"" + key + "\""));
            }
        }
    }
}

TEST_CASE("parse enforces each ScalingKey's lo and hi: just outside refused, at the bound accepted",
          "[rope][scaling][table]") {
    // llama3's own rule, low_freq_factor <= high_freq_factor, refuses two bounds
    // whatever the ranges: low at +max and high at the least normal.
    const auto cross_rule = [](const std::pair<std::string, std::string>& refused) {
        return refused.first == "low_freq_factor" && refused.second.find("<= high_freq_factor") != std::string::npos;
    };
    for (const auto& type : rope::scaling_types()) {
        for (const auto* group : {&type.required, &type.optional}) {
            for (const auto& key : *group) {
                INFO(type.name << "." << key.name << " in [" << key.lo << ", " << key.hi << "]");
                const auto with = [&](Value value) {
                    Config block = required_block(type.name);
                    if (key.kind == "list") {
                        std::vector<double> list{1, 1, 1, 1};
                        list[2] = (value).get<double>();
                        value = list;
                    }
                    block[key.name] = value;
                    return block;
                };
                const auto refused = [&](double x) {
                    const auto [param, message] = refusal(with(x));
                    CHECK(param == key.name);
                    CHECK_THAT(message, Contains(key.name + (key.kind == "list" ? "[2]" : "") + " = " + format_number(x) +
                                                 " is invalid: expected " + key.allowed));
                };
                const auto accepted = [&](double x) {
                    const auto refused_by = refusal(with(x));
                    if (type.name == "llama3" && cross_rule(refused_by)) return;
                    CHECK(refused_by.first.empty());
                    if (!refused_by.first.empty()) return;
                    const rope::Scaling s = parse_block(with(x), false).scaling;
                    if (key.kind == "list")
                        CHECK((key.name == "short_factor" ? s.short_factor : s.long_factor)[2] == x);
                    else
                        CHECK(field(s, key.name) == x);  // read into its own field
                };
                if (key.kind == "boolean") {
                    CHECK(refusal(with(1.0)).second.find(key.allowed) != std::string::npos);
                    CHECK(field(parse_block(with(false), false).scaling, key.name) == 0.0);
                    continue;
                }
                const double step = key.kind == "integer" ? 1.0 : 0.0;  // the next integer, or the next double
                refused(step ? key.lo - step : std::nextafter(key.lo, -INFINITY));
                accepted(key.lo);
                if (std::isinf(key.hi)) {  // any finite number
                    refused(INFINITY);
                    accepted(std::numeric_limits<double>::max());
                } else {
                    refused(step ? key.hi + step : std::nextafter(key.hi, INFINITY));
                    accepted(key.hi);
                }
            }
        }
    }
}

TEST_CASE("an absent optional key reads as its ScalingKey's fallback", "[rope][scaling][table]") {
    for (const auto& type : rope::scaling_types()) {
        const rope::Scaling s = parse_block(required_block(type.name), false).scaling;
        for (const auto& key : type.optional) {
            if (!key.fallback) continue;
            INFO(type.name << "." << key.name);
            CHECK(field(s, key.name) == *key.fallback);
        }
    }
    // The ones without: original_max_position_embeddings (max_position_embeddings
    // here), attention_factor and the mscales (none given), longrope's factor (1,
    // with max_position_embeddings / L in the attention factor).
    const auto yarn = parse_block(required_block("yarn"), false).scaling;
    CHECK(yarn.original_max_position_embeddings == 4096);
    CHECK(!yarn.attention_factor);
    CHECK(!yarn.mscale);
    CHECK(!parse_block(required_block("longrope"), false).scaling.factor_given);
}

TEST_CASE("float32 range: x up to 3.4e38 / (sqrt(2) attention_factor) rotates to finite numbers; past it, refused", "[rope]") {
    // A pair (a, a) at 45 degrees from an axis rotates onto it at angle pi/4: its norm
    // sqrt(2) |a| lands in one entry. Pair 0 has inv_freq 1, so position 1 turns it by
    // 1 rad; the worst angle over positions is reached near p = 7 (7 rad = 2 pi + 0.717).
    const auto spec = spec_of({{"head_dim", 2.0}});
    const double allowed = 3.4e38 / std::sqrt(2.0);
    xt::xtensor<float, 2> x = {{float(allowed * 0.9999), float(allowed * 0.9999)}};
    for (std::int64_t p = 0; p < 64; ++p) {
        const auto y = rope::apply(spec, x, p);
        CHECK(std::isfinite(y(0, 0)));
        CHECK(std::isfinite(y(0, 1)));
    }
    // At |a| = 3e38 (refused), position 7 would give a cos 7 - a sin 7 = -3.3e38 and
    // a sin 7 + a cos 7 = 4.2e38: past float32's largest, 3.4028235e38.
    CHECK(3e38 * (std::sin(7.0) + std::cos(7.0)) > double(std::numeric_limits<float>::max()));
    x = {{3e38f, 3e38f}};
    CHECK_THROWS_WITH(rope::apply(spec, x, 7), Contains("x = numbers up to 3e+38 in magnitude") &&
                                                   Contains("|x| <= 2.404163e+38"));
}

}  // namespace posenc_test_rope
