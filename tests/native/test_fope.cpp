// FoPE (Hua et al. 2025): the frequency floor, the Fourier series of each pair and the transform against numbers
// worked out by hand (Python's math, float64) from vLLM's FourierRotaryEmbedding (keep inv_freq > 2 pi / L, the
// series C = cos(t omega) . cos_coef and S = sin(t omega) . sin_coef, the clipped pairs padded with 1, then
// x cos + rotate_neox(x) sin); identity coefficients against posenc's RoPE; the head that uses it; the draw.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <vector>

#include "family_facts.hpp"
#include "identity_head.hpp"
#include "posenc/attention.hpp"
#include "posenc/fope.hpp"
#include "posenc/json.hpp"
#include "posenc/registry.hpp"

// A namespace of its own: the test files also build as one translation unit (CMake's unity build).
namespace posenc_test_fope {

using namespace posenc;
using Catch::Matchers::Contains;

// Where the family acts, its width key and its parsed defaults, for the checks every family passes
// (test_families.cpp); the trainer's checks use L = 1000 so that a 4-wide head keeps both its frequencies (1, 0.01).
const bool fope_facts = posenc_test::add_family_facts(
    "fope", {Acts::rotary, "head_dim",
             [](const Config& c) -> std::map<std::string, Value> {  // num_inv_freq, cos_coef, sin_coef: none by default
                 const auto s = fope::parse(c);
                 return {{"head_dim", double(s.head_dim)}, {"rope_theta", s.rope_theta},
                         {"max_position_embeddings", double(s.max_position_embeddings)},
                         {"rope_fourier_init_norm_gain", s.rope_fourier_init_norm_gain}, {"seed", double(s.seed)}};
             },
             {R"({"type":"fope","max_position_embeddings":1000})"}});

namespace {

Config S(const std::string& json) { return parse_json_object(json, "spec"); }

/// x [1, 4] = (1, 2, 3, 4) transformed at position t.
std::vector<float> at(const Config& spec, std::int64_t t) {
    const xt::xtensor<float, 2> x{{1, 2, 3, 4}};
    const xt::xtensor<float, 2> y = apply_rotary(spec, x, t);
    return {y(0, 0), y(0, 1), y(0, 2), y(0, 3)};
}

}  // namespace

TEST_CASE("fope: the frequency floor keeps the periods shorter than max_position_embeddings", "[fope]") {
    // head_dim 64, rope_theta 10000: omega_p = 10000^(-p / 32) > 2 pi / L for p < 32 ln(L / 2 pi) / ln 10000: 15.29 at
    // L = 512 (16 kept), 8.06 at the default L = 64 (9 kept).
    CHECK(fope::kept(fope::parse(S(R"({"type":"fope","max_position_embeddings":512})"))) == 16);
    CHECK(fope::kept(fope::parse(S(R"({"type":"fope"})"))) == 9);
    CHECK(fope::kept(fope::parse(S(R"({"type":"fope","max_position_embeddings":7})"))) == 1);  // only omega_0 = 1 (period 6.28)
    CHECK(fope::kept(fope::parse(S(R"({"type":"fope","num_inv_freq":5})"))) == 5);
    // ropeInvFreq: the kept frequencies, 0 for the clipped pairs; the half layout's columns.
    const RotaryFrequencies f = rotary_frequencies(S(R"({"type":"fope","head_dim":8,"rope_theta":100,"max_position_embeddings":20})"), 20);
    REQUIRE(f.inv_freq.size() == 4);
    CHECK(f.inv_freq[0] == 1.0);
    CHECK(f.inv_freq[1] == Approx(std::pow(100.0, -0.25)).epsilon(1e-15));  // period 19.87 < 20
    CHECK(f.inv_freq[2] == 0.0);                                              // 0.1: period 62.8
    CHECK(f.inv_freq[3] == 0.0);
    CHECK(f.first_column[1] == 1);
    CHECK(f.second_column[1] == 5);
}

TEST_CASE("fope: each pair turned by its Fourier series, the clipped pair by the padding, by hand", "[fope]") {
    // head_dim 4, rope_theta 100: omega = (1, 0.1). L = 20 keeps omega_0 only (0.1 < 2 pi / 20): K = 1.
    // cos_coef [[2]], sin_coef [[0.5]] at t = 3: C = 2 cos 3, S = 0.5 sin 3; pair 0 = columns (0, 2): (1, 3) ->
    // (1 C - 3 S, 3 C + 1 S) = (-2.191665005290692, -5.86939497557274); pair 1 = columns (1, 3), clipped: C = S = 1,
    // (2, 4) -> (2 - 4, 4 + 2) = (-2, 6).
    const auto one = at(S(R"({"type":"fope","head_dim":4,"rope_theta":100,"max_position_embeddings":20,"cos_coef":[2],"sin_coef":[0.5]})"), 3);
    CHECK(one[0] == Approx(-2.191665005290692).epsilon(1e-6));
    CHECK(one[2] == Approx(-5.86939497557274).epsilon(1e-6));
    CHECK(one[1] == -2.0f);
    CHECK(one[3] == 6.0f);
    // L = 100 keeps both (K = 2); cos_coef [[1, 0.2], [-0.3, 1]], sin_coef [[0.5, 0], [0.1, 2]] ([D, d]) at t = 5:
    // C_d = sum_D cos(5 omega_D) cos_coef[D][d], S_d likewise with sin; pair d = columns (d, d + 2).
    const auto two = at(S(R"({"type":"fope","head_dim":4,"rope_theta":100,"max_position_embeddings":100,)"
                          R"("cos_coef":[1,0.2,-0.3,1],"sin_coef":[0.5,0,0.1,2]})"), 5);
    CHECK(two[0] == Approx(1.3149461673095613).epsilon(1e-6));
    CHECK(two[1] == Approx(-1.9667743108675881).epsilon(1e-6));
    CHECK(two[2] == Approx(-0.3703573327828056).epsilon(1e-6));
    CHECK(two[3] == Approx(5.654962150348884).epsilon(1e-6));
}

TEST_CASE("fope: identity coefficients over every frequency are RoPE's half layout; clipped pairs carry no position", "[fope]") {
    const std::int64_t d = 16, K = d / 2;
    std::vector<double> eye(std::size_t(K * K), 0.0);
    for (std::int64_t e = 0; e < K; ++e) eye[std::size_t(e * K + e)] = 1.0;
    Config fope = S(R"({"type":"fope","head_dim":16,"rope_theta":500,"num_inv_freq":8})");
    fope["cos_coef"] = eye;
    fope["sin_coef"] = eye;
    const Config rope = S(R"({"type":"rope","head_dim":16,"rope_theta":500,"layout":"half"})");
    xt::xtensor<float, 2> x = xt::empty<float>({std::size_t(5), std::size_t(d)});
    for (std::size_t e = 0; e < x.size(); ++e) x.data()[e] = float(std::sin(0.7 * double(e) + 0.3));
    const auto a = apply_rotary(fope, x, 11), b = apply_rotary(rope, x, 11);
    for (std::size_t e = 0; e < x.size(); ++e) CHECK(a.data()[e] == Approx(b.data()[e]).margin(2e-6));
    // With the floor (rope_theta 500, L = 64 keeps omega_p > 0.098: p <= 2) the kept pairs are still RoPE's (identity
    // over the K = 3 kept), and a clipped pair is the same at every position: (a - b, b + a).
    Config floor = S(R"({"type":"fope","head_dim":16,"rope_theta":500,"max_position_embeddings":64,)"
                     R"("cos_coef":[1,0,0,0,1,0,0,0,1],"sin_coef":[1,0,0,0,1,0,0,0,1]})");
    REQUIRE(fope::kept(fope::parse(floor)) == 3);
    const auto c = apply_rotary(floor, x, 11);
    for (std::size_t t = 0; t < 5; ++t)
        for (std::size_t p = 0; p < 8; ++p) {
            if (p < 3) {
                CHECK(c(t, p) == Approx(b(t, p)).margin(2e-6));
                CHECK(c(t, p + 8) == Approx(b(t, p + 8)).margin(2e-6));
            } else {
                CHECK(c(t, p) == x(t, p) - x(t, p + 8));
                CHECK(c(t, p + 8) == x(t, p + 8) + x(t, p));
            }
        }
}

TEST_CASE("fope: the decay curves against their closed forms, and a score that is not a function of the distance alone", "[fope]") {
    // Identity coefficients: q = k = 1 at m against 0 is 2 sum_{d<K} cos(m omega_d) + 4 per clipped pair.
    std::vector<double> eye(9, 0.0);
    eye[0] = eye[4] = eye[8] = 1.0;
    Config spec = S(R"({"type":"fope","head_dim":16,"rope_theta":500,"max_position_embeddings":64})");
    spec["cos_coef"] = eye;
    spec["sin_coef"] = eye;
    const Curves curves = decay(spec, 100, 3);
    REQUIRE(curves.size() == 3);
    CHECK(curves[0].first == "ones");
    CHECK(curves[1].first == "random");
    CHECK(curves[2].first == "rope_ones");
    for (const std::size_t m : {0, 1, 17, 100}) {
        double ones = 4.0 * 5, rope = 0;
        for (int p = 0; p < 8; ++p) {
            const double w = std::pow(500.0, -double(p) / 8);
            if (p < 3) ones += 2 * std::cos(double(m) * w);
            rope += 2 * std::cos(double(m) * w);
        }
        CHECK(curves[0].second[m] == Approx(ones).epsilon(1e-12));
        CHECK(curves[2].second[m] == Approx(rope).epsilon(1e-12));
    }
    // Drawn coefficients: the same two tokens at another offset get another logit (RoPE's would not).
    attention::Request r = posenc_test::identity_request(S(R"({"type":"fope","head_dim":8,"rope_theta":100,"max_position_embeddings":64})"),
                                                         9, 8, 0.9, [](double t) { return std::cos(t); });
    const auto head = attention::run(r);
    r.position_offset = 7;
    const auto later = attention::run(r);
    CHECK(std::abs(later.logits(6, 2) - head.logits(6, 2)) > 1e-3);
    // ... and with identity coefficients it does not move (RoPE over the kept pairs, a fixed map on the others).
    Config same = r.encoding;
    same["cos_coef"] = same["sin_coef"] = std::vector<double>{1, 0, 0, 0, 1, 0, 0, 0, 1};  // K = 3: omega = 1, 0.32, 0.1 > 2 pi / 64
    r.encoding = same;
    const auto early = attention::run(r);
    r.position_offset = 0;
    const auto late = attention::run(r);
    CHECK(early.logits(6, 2) == Approx(late.logits(6, 2)).margin(1e-5));
}

TEST_CASE("fope: forward() with the caller's weights agrees with run(), at an offset too", "[fope]") {
    attention::Request r = posenc_test::identity_request(S(R"({"type":"fope","head_dim":8,"rope_theta":30,"max_position_embeddings":40,"seed":4})"),
                                                         21, 8, 0.8, [](double t) { return std::sin(t); });
    r.position_offset = 6;
    r.causal = true;
    const auto head = attention::run(r);
    CHECK(head.terms.carrier == "rotary");
    const std::vector<float> out = posenc_test::identity_forward(r);
    for (std::size_t k = 0; k < out.size(); ++k) CHECK(out[k] == Approx(head.output.data()[k]).margin(1e-5));
}

TEST_CASE("fope: the drawn coefficients are I plus N(0, gain^2 / K), from the seed", "[fope]") {
    // K = 256 (num_inv_freq): 65280 off-diagonal draws of sd 0.3 / 16 = 0.01875 (the sample sd within 1%: its own
    // error is 1 / sqrt(2 x 65280) = 0.28%), 256 diagonal ones of mean 1 (within 4 sd of the mean: 4 x 0.01875 / 16).
    const fope::Spec spec = fope::parse(S(R"({"type":"fope","head_dim":512,"num_inv_freq":256,"seed":9})"));
    const fope::Coefficients coef = fope::coefficients(spec);
    REQUIRE(coef.cos.size() == 65536);
    double off = 0, diagonal = 0;
    for (std::size_t e = 0; e < coef.cos.size(); ++e) {
        if (e / 256 == e % 256) diagonal += coef.cos[e];
        else off += coef.cos[e] * coef.cos[e];
    }
    CHECK(std::sqrt(off / 65280) == Approx(0.01875).epsilon(0.01));
    CHECK(std::abs(diagonal / 256 - 1) < 4 * 0.01875 / 16);
    CHECK(coef.sin != coef.cos);  // two draws
    CHECK(fope::coefficients(spec).cos == coef.cos);  // the same seed, the same draw
}

TEST_CASE("fope: bad specs name their key", "[fope]") {
    CHECK_THROWS_WITH(decay(S(R"({"type":"fope","head_dim":5})"), 4, 0), Contains("head_dim = 5 is invalid"));
    CHECK_THROWS_WITH(decay(S(R"({"type":"fope","head_dim":4,"rope_theta":100,"max_position_embeddings":100,"cos_coef":[1,2,3]})"), 4, 0),
                      Contains("cos_coef = a list of 3 numbers is invalid: expected K x K = 2 x 2 = 4 numbers"));
    CHECK_THROWS_WITH(decay(S(R"({"type":"fope","num_inv_freq":40})"), 4, 0),
                      Contains("num_inv_freq = 40 is invalid: expected an integer in [1, head_dim / 2 = 32]"));
    CHECK_THROWS_WITH(decay(S(R"({"type":"fope","sin_coef":[20000]})"), 4, 0), Contains("sin_coef"));
}

}  // namespace posenc_test_fope
