// PoPE (Gopalakrishnan et al. 2025): the polar transform of q and k against numbers worked out by hand from
// the reference's definition (softplus magnitudes, phases t theta_c for queries and s theta_c + delta_c for
// keys, the real part of their product), the head that uses it, and the decay curves.
#include <catch2/catch.hpp>

#include <map>
#include <algorithm>
#include <cmath>
#include <vector>

#include "family_facts.hpp"
#include "identity_head.hpp"
#include "posenc/attention.hpp"
#include "posenc/json.hpp"
#include "posenc/pope.hpp"
#include "posenc/registry.hpp"

// A namespace of its own: the test files also build as one translation unit (CMake's unity build).
namespace posenc_test_pope {

using namespace posenc;
using Catch::Matchers::Contains;

// Where the family acts, its width key and its parsed defaults, for the checks every family passes (test_families.cpp).
const bool pope_facts = posenc_test::add_family_facts(
    "pope", {Acts::polar, "head_dim", [](const Config& c) -> std::map<std::string, Value> {  // phase_bias has no default: zeros when absent
        const auto s = pope::parse(c);
        return {{"head_dim", double(s.head_dim)}, {"theta", s.theta}};
    }});

namespace {

Config S(const std::string& json) { return parse_json_object(json, "spec"); }

}  // namespace

TEST_CASE("pope: a two-component head by hand from the reference's definition", "[pope]") {
    // d = 2, theta = 100: theta_c = (1, 0.1). Tokens x_0 = (0, 1), x_2 = (1, -1) through identity projections;
    // delta = (-0.5, 0). mu(x_0) = (ln 2, softplus 1 = 1.3132616875182228), mu(x_2) = (1.3132616875182228, 0.31326168751822286).
    // logit(0, 2) = [ln 2 * 1.31326 cos(2 - 0.5) + 1.31326 * 0.31326 cos(0.2)] / sqrt 2 = 0.3306325156807369;
    // logit(2, 0) = [1.31326 ln 2 cos(-2 - 0.5) + 0.31326 * 1.31326 cos(-0.2)] / sqrt 2 = -0.2305690323771461 (math.cos, float64).
    attention::Request r;
    r.d_model = r.d_head = 2;
    r.projections = attention::Projections::identity;
    r.encoding = S(R"({"type":"pope","theta":100,"phase_bias":[-0.5,0]})");
    r.x = xt::xtensor<float, 2>{{0, 1}, {0.25f, 0.5f}, {1, -1}};
    r.tokens.assign(3, "");
    const auto head = attention::run(r);
    CHECK(head.logits(0, 2) == Approx(0.3306325156807369).epsilon(1e-6));
    CHECK(head.logits(2, 0) == Approx(-0.2305690323771461).epsilon(1e-6));
    CHECK(head.terms.carrier == "polar");
    // "what" is the logit at zero phase, sum of mu_q mu_k / sqrt(d); what and where sum to the logits.
    CHECK(head.terms.content(0, 2) == Approx((std::log(2.0) * 1.3132616875182228 + 1.3132616875182228 * 0.31326168751822286) /
                                             std::sqrt(2.0)).epsilon(1e-5));
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 3; ++j) CHECK(head.terms.content(i, j) + head.terms.position(i, j) == Approx(head.logits(i, j)).margin(1e-6));
    REQUIRE(head.q.shape()[1] == 4);  // q and k as they enter the dots: [n, 2 d]
    CHECK(head.q(0, 0) == Approx(std::log(2.0)).epsilon(1e-7));  // position 0: phase 0, (mu, 0)
    CHECK(head.q(0, 1) == 0.0f);
}

TEST_CASE("pope: the content only weighs the phases: with delta = 0 every pair's score peaks at distance 0", "[pope]") {
    const Config spec = S(R"({"type":"pope","head_dim":16})");
    const Curves curves = decay(spec, 300, 7);
    REQUIRE(curves.size() == 3);
    CHECK(curves[0].first == "ones");
    CHECK(curves[1].first == "random");
    CHECK(curves[2].first == "rope_random");
    CHECK(curves[0].second[0] == Approx(16 * 1.3132616875182228 * 1.3132616875182228).epsilon(1e-12));
    for (std::size_t k = 0; k < 2; ++k)
        for (std::size_t m = 1; m < curves[k].second.size(); ++m) CHECK(curves[k].second[m] < curves[k].second[0]);
    // RoPE on the same random pairs: the content's angles move the peak; over ten seeds PoPE's stays at 0 and RoPE's
    // is elsewhere for most.
    int rope_elsewhere = 0;
    for (std::uint64_t seed = 0; seed < 10; ++seed) {
        const Curves c = decay(spec, 64, seed);
        const auto peak = [](const std::vector<double>& v) { return std::max_element(v.begin(), v.end()) - v.begin(); };
        CHECK(peak(c[1].second) == 0);
        rope_elsewhere += peak(c[2].second) != 0;
    }
    CHECK(rope_elsewhere >= 5);
    // A phase bias moves each component's peak: the ones curve at 0 is then sum of softplus(1)^2 cos(delta_c).
    std::vector<double> delta(16, -1.0);
    Config shifted = spec;
    shifted["phase_bias"] = delta;
    CHECK(decay(shifted, 4, 0)[0].second[0] == Approx(16 * 1.3132616875182228 * 1.3132616875182228 * std::cos(-1.0)).epsilon(1e-12));
}

TEST_CASE("pope: forward() with the caller's weights agrees with run(), at an offset too", "[pope]") {
    const std::int64_t n = 23, d = 4;
    attention::Request r = posenc_test::identity_request(S(R"({"type":"pope","theta":50,"phase_bias":[-0.1,-3,-6,0]})"), n, d, 0.9,
                                                         [](double t) { return std::sin(t); });
    r.position_offset = 5;
    r.causal = true;
    const auto head = attention::run(r);
    const std::vector<float> out = posenc_test::identity_forward(r);
    for (std::size_t k = 0; k < out.size(); ++k) CHECK(out[k] == Approx(head.output.data()[k]).margin(1e-5));
    // Relative: the same two tokens at another offset give the same logit.
    r.position_offset = 40;
    const auto later = attention::run(r);
    CHECK(later.logits(9, 3) == Approx(head.logits(9, 3)).margin(1e-5));
}

TEST_CASE("pope: bad specs name their key", "[pope]") {
    CHECK_THROWS_WITH(decay(S(R"({"type":"pope","head_dim":2,"phase_bias":[0.5,0]})"), 4, 0),
                      Contains("phase_bias"));
    CHECK_THROWS_WITH(decay(S(R"({"type":"pope","head_dim":2,"phase_bias":[-1]})"), 4, 0),
                      Contains("phase_bias = a list of 1 numbers is invalid: expected head_dim = 2 numbers"));
    CHECK_THROWS_WITH(decay(S(R"({"type":"pope","theta":1})"), 4, 0), Contains("theta = 1 is invalid"));
}

}  // namespace posenc_test_pope
