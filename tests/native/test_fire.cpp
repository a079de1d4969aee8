// FIRE (Li et al. 2023, arXiv 2310.04418): b(i, j) = f(psi(i - j) / (psi(max(i, L)) + eps)),
// psi(x) = log(|c x| + 1), f = Linear(1, W) -> ReLU -> Linear(W, H), as the paper's
// appendix code (class FIRE) computes it; numbers worked out by hand from that definition.
#include <catch2/catch.hpp>

#include <map>
#include <cmath>
#include <limits>
#include <random>

#include "family_facts.hpp"
#include "posenc/fire.hpp"
#include "posenc/kernels.hpp"
#include "posenc/registry.hpp"

// A namespace of its own: the test files also build as one translation unit (CMake's unity build).
namespace posenc_test_fire {

using namespace posenc;
using Catch::Matchers::Contains;

// Where the family acts, its width key and its parsed defaults, for the checks every family passes (test_families.cpp).
const bool fire_facts = posenc_test::add_family_facts(
    "fire", {Acts::bias, "", [](const Config& c) -> std::map<std::string, Value> {  // the four weight lists have no default: drawn from seed when absent
        const auto s = fire::parse(c);
        return {{"n_heads", double(s.n_heads)}, {"head", double(s.head)}, {"mlp_width", double(s.mlp_width)},
                {"init_c", s.init_c}, {"init_L", s.init_L}, {"L_multiplier", s.L_multiplier}, {"eps", s.eps},
                {"seed", double(s.seed)}, {"causal", s.causal}};
    }});

namespace {

const float kMinusInf = -std::numeric_limits<float>::infinity();

// A head whose MLP is small enough to work out on paper: W = 2, H = 1,
//   f(x) = 2 relu(1 x + 0) + 3 relu(-1 x + 0.5) + 0.25
//        = 1.75 - x for 0 <= x <= 0.5, and 2 x + 0.25 for x >= 0.5.
// c = 0.1, L = 512 (init_L 512, L_multiplier 1), eps = 1e-6 (the reference defaults).
Config hand_spec(bool causal = true) {
    return Config{{"type", std::string("fire")},
                  {"n_heads", 1.0},
                  {"mlp_width", 2.0},
                  {"linear1_weight", std::vector<double>{1, -1}},
                  {"linear1_bias", std::vector<double>{0, 0.5}},
                  {"linear2_weight", std::vector<double>{2, 3}},
                  {"linear2_bias", std::vector<double>{0.25}},
                  {"causal", causal}};
}

}  // namespace

TEST_CASE("FIRE: b(i, j) by hand with W = 2, c = 0.1, L = 512, below and above L", "[fire]") {
    const fire::Spec spec = fire::parse(hand_spec());
    const fire::HeadMlp mlp = fire::head_mlp(spec);
    CHECK(fire::threshold(spec) == 512.0);
    // i = 10 <= L: psi(10) = ln(1 + 1) = 0.693147; normaliser psi(512) + eps = ln(52.2) + 1e-6 = 3.955083;
    // x = 0.1752548, f = 1.75 - x = 1.5747452.
    CHECK(fire::normalized_distance(spec, 10, 0) == Approx(0.17525475289099296).epsilon(1e-12));
    CHECK(fire::at(spec, mlp, 10, 0) == Approx(1.574745247109007).epsilon(1e-12));
    // i = 300 <= L, the same distance: the same normaliser, the same bias (a function of i - j below L).
    CHECK(fire::at(spec, mlp, 300, 290) == Approx(1.574745247109007).epsilon(1e-12));
    // i = 2000 > L, distance 10: normaliser psi(2000) = ln(201) = 5.303305; x = 0.1307010, f = 1.6192990.
    CHECK(fire::at(spec, mlp, 2000, 1990) == Approx(1.6192990386417996).epsilon(1e-12));
    // i = 600 > L, distance 500: psi(500) = ln(51) = 3.931826, psi(600) = ln(61) = 4.110874;
    // x = 0.9564450 > 0.5, f = 2 x + 0.25 = 2.1628900.
    CHECK(fire::at(spec, mlp, 600, 100) == Approx(2.162889962664922).epsilon(1e-12));
    // i = j: x = 0, f(0) = 3 * 0.5 + 0.25 = 1.75.
    CHECK(fire::at(spec, mlp, 5, 5) == 1.75);
    // Key 0 from query 700 > L: x = psi(700) / (psi(700) + eps) = 0.99999977, f = 2.2499995.
    CHECK(fire::at(spec, mlp, 700, 0) == Approx(2.2499995308116985).epsilon(1e-12));

    // The matrix agrees (float32), and keys after the query are masked.
    const auto b = fire::bias(spec, 2001);
    CHECK(b(10, 0) == Approx(1.5747452).epsilon(1e-6));
    CHECK(b(300, 290) == b(10, 0));
    CHECK(b(2000, 1990) == Approx(1.6192990).epsilon(1e-6));
    CHECK(b(600, 100) == Approx(2.1628900).epsilon(1e-6));
    CHECK(b(5, 5) == 1.75f);
    CHECK(b(700, 0) == Approx(2.2499995).epsilon(1e-6));
    CHECK(b(0, 10) == kMinusInf);
    CHECK(b(1999, 2000) == kMinusInf);
    // Without the mask, a key after the query gets |c (i - j)| (the reference's abs): b(0, 10) = b(10, 0).
    const auto open = fire::bias(fire::parse(hand_spec(false)), 11);
    CHECK(open(0, 10) == Approx(1.5747452).epsilon(1e-6));
}

TEST_CASE("FIRE: the threshold is |L_multiplier * init_L| and eps is added to the normaliser's log", "[fire]") {
    Config c = hand_spec();
    c["init_L"] = 256.0;
    c["L_multiplier"] = -2.0;
    c["eps"] = 0.5;
    c["init_c"] = 1.0;
    const fire::Spec spec = fire::parse(c);
    CHECK(fire::threshold(spec) == 512.0);
    // psi(4) = ln 5; normaliser ln(513) + 0.5.
    CHECK(fire::normalized_distance(spec, 4, 0) == Approx(std::log(5.0) / (std::log(513.0) + 0.5)).epsilon(1e-14));
}

TEST_CASE("FIRE: the piecewise-linear MLP and the tile agree with the network evaluated directly", "[fire]") {
    std::mt19937_64 rng(13);
    std::uniform_real_distribution<double> u(-3, 3);
    for (double width : {1.0, 2.0, 7.0, 32.0}) {
        Config c{{"type", std::string("fire")}, {"mlp_width", width}, {"seed", 5.0}, {"head", 3.0}, {"causal", false},
                 {"init_L", 40.5}};
        const fire::Spec spec = fire::parse(c);
        const fire::HeadMlp mlp = fire::head_mlp(spec);
        const fire::Piecewise f(mlp);
        CHECK(f.segments() <= std::size_t(width) + 1);
        for (int k = 0; k < 200; ++k) {
            const double x = u(rng);
            CHECK(f(x) == Approx(fire::evaluate(mlp, x)).margin(1e-12));
        }
        // Every entry of a 100 x 100 matrix (rows 0..40 at or below L, 41..99 past it), and a tile at an offset.
        const std::int64_t n = 100;
        const auto b = fire::bias(spec, n);
        for (std::int64_t i = 0; i < n; ++i)
            for (std::int64_t j = 0; j < n; ++j) CHECK(b(i, j) == Approx(fire::at(spec, mlp, i, j)).margin(1e-6));
        std::vector<float> tile(7 * 9, 0.0f);
        fire::bias_tile(spec, n)->add(37, 7, 80, 9, tile.data(), 9);
        for (int r = 0; r < 7; ++r)
            for (int col = 0; col < 9; ++col) CHECK(tile[std::size_t(r * 9 + col)] == b(37 + r, 80 + col));
    }
}

TEST_CASE("FIRE: seeded weights follow nn.Linear's default bounds; explicit lists replace only themselves", "[fire]") {
    const fire::Spec drawn = fire::parse(Config{{"type", std::string("fire")}, {"seed", 3.0}, {"head", 2.0}});
    const fire::HeadMlp mlp = fire::head_mlp(drawn);
    REQUIRE(mlp.w1.size() == 32);
    const double bound2 = 1.0 / std::sqrt(32.0);  // Linear(32, 12): U(-1/sqrt(32), 1/sqrt(32))
    double spread = 0;
    for (std::size_t k = 0; k < 32; ++k) {
        CHECK(std::abs(mlp.w1[k]) < 1.0);  // Linear(1, 32): fan_in 1, U(-1, 1)
        CHECK(std::abs(mlp.b1[k]) < 1.0);
        CHECK(std::abs(mlp.w2[k]) < bound2);
        spread = std::max(spread, std::abs(mlp.w1[k]));
    }
    CHECK(spread > 0.5);  // the draws fill the range
    CHECK(std::abs(mlp.b2) < bound2);
    // The same seed gives the same head; giving linear1_weight leaves the other parameters as drawn.
    Config given{{"type", std::string("fire")}, {"seed", 3.0}, {"head", 2.0}, {"linear1_weight", std::vector<double>(32, 0.5)}};
    const fire::HeadMlp partly = fire::head_mlp(fire::parse(given));
    CHECK(partly.w1 == std::vector<double>(32, 0.5));
    CHECK(partly.b1 == mlp.b1);
    CHECK(partly.w2 == mlp.w2);
    CHECK(partly.b2 == mlp.b2);
    // Another head reads another row of linear2 and shares linear1.
    const fire::HeadMlp other = fire::head_mlp(fire::parse(Config{{"type", std::string("fire")}, {"seed", 3.0}, {"head", 5.0}}));
    CHECK(other.w1 == mlp.w1);
    CHECK(other.w2 != mlp.w2);
}

TEST_CASE("FIRE: the decay is the row of the query at max_distance", "[fire]") {
    const fire::Spec spec = fire::parse(hand_spec());
    const fire::HeadMlp mlp = fire::head_mlp(spec);
    for (std::int64_t P : {100, 1000}) {  // below L: every query up to L has this row; past L, the query at P
        const auto d = fire::decay(spec, P);
        REQUIRE(d.bias.size() == std::size_t(P + 1));
        for (std::int64_t m : {std::int64_t(0), std::int64_t(1), P / 3, P}) {
            CHECK(d.bias[std::size_t(m)] == Approx(fire::at(spec, mlp, P, P - m)).margin(1e-12));
            CHECK(d.normalized_distance[std::size_t(m)] == Approx(fire::normalized_distance(spec, P, P - m)).epsilon(1e-14));
        }
    }
    CHECK(fire::decay(spec, 100).bias[10] == Approx(1.574745247109007).epsilon(1e-12));  // the b(10, 0) above: same normaliser
    const Curves through_registry = posenc::decay(hand_spec(), 10, 0);
    CHECK(through_registry.at(0).first == "bias");
    CHECK(through_registry.at(1).first == "normalized_distance");
}

TEST_CASE("FIRE in the attention kernel: the fused blocks match the reference with the same tile", "[fire]") {
    const std::int64_t n = 150, d = 8;
    Config c{{"type", std::string("fire")}, {"init_L", 64.0}, {"seed", 1.0}};
    const auto tile = fire::bias_tile(fire::parse(c), n);
    std::mt19937_64 rng(4);
    std::normal_distribution<float> g(0, 1);
    std::vector<float> q(n * d), k(n * d), v(n * d), out(n * d), ref(n * d);
    for (auto* a : {&q, &k, &v})
        for (float& x : *a) x = g(rng);
    kernels::attention(q.data(), k.data(), v.data(), n, d, d, 0.35f, true, tile.get(), out.data());
    kernels::attention_reference(q.data(), k.data(), v.data(), n, d, d, 0.35f, true, tile.get(), ref.data());
    for (std::size_t x = 0; x < out.size(); ++x) CHECK(out[x] == Approx(ref[x]).margin(1e-5));
}

TEST_CASE("FIRE: bad specs name the key, the length and the expected length", "[fire][errors]") {
    Config c = hand_spec();
    c["linear1_weight"] = std::vector<double>{1, 2, 3};
    CHECK_THROWS_WITH(fire::parse(c),
                      "linear1_weight = a list of 3 numbers is invalid: expected a list of mlp_width = 2 numbers");
    c = hand_spec();
    c["n_heads"] = 2.0;  // linear2_weight [2, 2] and linear2_bias [2] now
    CHECK_THROWS_WITH(fire::parse(c),
                      "linear2_weight = a list of 2 numbers is invalid: expected a list of n_heads * mlp_width = 4 numbers");
    c["linear2_weight"] = std::vector<double>{1, 2, 3, 4};
    CHECK_THROWS_WITH(fire::parse(c), "linear2_bias = a list of 1 numbers is invalid: expected a list of n_heads = 2 numbers");
    c = hand_spec();
    c["linear1_bias"] = std::vector<double>{0, 1e7};
    CHECK_THROWS_WITH(fire::parse(c), "linear1_bias[1] = 10000000 is invalid: expected finite numbers in [-1e6, 1e6]");
    c = hand_spec();
    c["linear1_bias"] = 0.5;
    CHECK_THROWS_WITH(fire::parse(c), Contains("linear1_bias = 0.5 is invalid: expected a list of finite numbers"));
    CHECK_THROWS_WITH(fire::parse(Config{{"type", std::string("fire")}, {"head", 12.0}}), Contains("head = 12") && Contains("[0, 11]"));
    CHECK_THROWS_WITH(fire::parse(Config{{"type", std::string("fire")}, {"init_c", 0.0}}), Contains("init_c = 0") && Contains("> 0"));
    CHECK_THROWS_WITH(fire::parse(Config{{"type", std::string("fire")}, {"eps", 0.0}}), Contains("eps = 0") && Contains("[1e-12, 1e6]"));
    CHECK_THROWS_WITH(fire::parse(Config{{"type", std::string("fire")}, {"mlp_width", 1025.0}}),
                      Contains("mlp_width = 1025") && Contains("[1, 1024]"));
}

TEST_CASE("FIRE at the edges of its ranges stays finite in float32", "[fire]") {
    // The worst case of the comment in fire.cpp: no mask, L = 0, eps 1e-12, c 1e6, weights 1e6, W 1024.
    Config c{{"type", std::string("fire")}, {"n_heads", 1.0}, {"mlp_width", 1024.0}, {"init_c", 1e6}, {"init_L", 0.0},
             {"eps", 1e-12}, {"causal", false},
             {"linear1_weight", std::vector<double>(1024, 1e6)}, {"linear1_bias", std::vector<double>(1024, 1e6)},
             {"linear2_weight", std::vector<double>(1024, 1e6)}, {"linear2_bias", std::vector<double>{1e6}}};
    const auto b = fire::bias(fire::parse(c), 4096);
    for (float x : b) REQUIRE(std::isfinite(x));
    CHECK(b(0, 4095) > 1e27f);
}

}  // namespace posenc_test_fire
