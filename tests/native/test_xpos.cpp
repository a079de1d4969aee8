// xPos (Sun et al. 2022): RoPE rotation times zeta_i^(+-position / scale_base).
#include <catch2/catch.hpp>

#include <map>
#include <cmath>
#include <memory>
#include <random>

#include "family_facts.hpp"
#include "posenc/xpos.hpp"

// A namespace of its own: the test files also build as one translation unit (CMake's unity build).
namespace posenc_test_xpos {

using namespace posenc;
using Catch::Matchers::Contains;

// Where the family acts, its width key and its parsed defaults, for the checks every family passes (test_families.cpp).
const bool xpos_facts = posenc_test::add_family_facts(
    "xpos", {Acts::rotary, "head_dim", [](const Config& c) -> std::map<std::string, Value> {
        const auto s = xpos::parse(c);
        return {{"head_dim", double(s.head_dim)}, {"rope_theta", s.rope_theta}, {"scale_base", s.scale_base},
                {"role", std::string(s.role == xpos::Role::query ? "query" : "key")},
                {"layout", std::string(s.layout == rope::Layout::interleaved ? "interleaved" : "half")}};
    }});

namespace {
xpos::Spec spec_of(const Config& keys) { return xpos::parse(Config(keys)); }

double dot(const xt::xtensor<float, 2>& a, const xt::xtensor<float, 2>& b) {
    double s = 0;
    for (std::size_t c = 0; c < a.shape()[1]; ++c) s += double(a(0, c)) * b(0, c);
    return s;
}
}  // namespace

TEST_CASE("zeta_i = (2i/d + 0.4) / 1.4: 0.2857 for the fastest pair, near 1 for the slowest", "[xpos]") {
    const auto z = xpos::zeta(spec_of({{"head_dim", 8.0}}));
    REQUIRE(z.size() == 4);
    CHECK(z[0] == Approx(0.4 / 1.4).epsilon(1e-15));
    CHECK(z[1] == Approx((0.25 + 0.4) / 1.4).epsilon(1e-15));
    CHECK(z[3] == Approx((0.75 + 0.4) / 1.4).epsilon(1e-15));
}

TEST_CASE("a query at position n is scaled by zeta^(n/scale_base), a key by zeta^(-n/scale_base)", "[xpos]") {
    // Pair 0 of a d = 2 head: inv_freq 1, zeta 0.4/1.4. At position 3 with
    // scale_base 2, (1, 0) turns by 3 rad and scales by zeta^(1.5) (query) or zeta^(-1.5) (key).
    const xt::xtensor<float, 2> x = {{1.0f, 0.0f}};
    const double z = 0.4 / 1.4;
    const auto q = xpos::apply(spec_of({{"head_dim", 2.0}, {"scale_base", 2.0}}), x, 3);
    const auto k = xpos::apply(spec_of({{"head_dim", 2.0}, {"scale_base", 2.0}, {"role", std::string("key")}}), x, 3);
    CHECK(q(0, 0) == Approx(std::cos(3.0) * std::pow(z, 1.5)).epsilon(1e-6));
    CHECK(q(0, 1) == Approx(std::sin(3.0) * std::pow(z, 1.5)).epsilon(1e-6));
    CHECK(k(0, 1) == Approx(std::sin(3.0) * std::pow(z, -1.5)).epsilon(1e-6));
}

TEST_CASE("q_n . k_m depends only on n - m and decays like zeta^((n - m)/scale_base)", "[xpos]") {
    const auto qs = spec_of({{"head_dim", 16.0}, {"scale_base", 512.0}});
    const auto ks = spec_of({{"head_dim", 16.0}, {"scale_base", 512.0}, {"role", std::string("key")}});
    std::mt19937 rng(1);
    std::normal_distribution<float> normal;
    xt::xtensor<float, 2> q = xt::empty<float>({std::size_t(1), std::size_t(16)}), k = q;
    for (auto& v : q) v = normal(rng);
    for (auto& v : k) v = normal(rng);
    for (int n : {10, 300, 1000}) {
        const double shifted = dot(xpos::apply(qs, q, n + 50), xpos::apply(ks, k, 50));
        const double base = dot(xpos::apply(qs, q, n), xpos::apply(ks, k, 0));
        CHECK(shifted == Approx(base).epsilon(1e-4));
    }
    // q = k = 1: the decay curve at distance m is sum_i 2 cos(m w_i) zeta_i^(m/512).
    const auto d = xpos::decay(qs, 600);
    double expected = 0;
    const auto z = xpos::zeta(qs);
    const auto w = xpos::inv_freq(qs);
    for (std::size_t i = 0; i < 8; ++i) expected += 2 * std::cos(600 * w[i]) * std::pow(z[i], 600.0 / 512.0);
    CHECK(d.ones[600] == Approx(expected).epsilon(1e-12));
    CHECK(d.ones[0] == Approx(16.0));
}

TEST_CASE("bad xpos input throws naming the key", "[xpos][errors]") {
    CHECK_THROWS_WITH(spec_of({{"head_dim", 5.0}}), Contains("head_dim = 5"));
    CHECK_THROWS_WITH(spec_of({{"scale_base", 0.0}}), Contains("scale_base = 0") && Contains("[1, 1e9]"));
    CHECK_THROWS_WITH(spec_of({{"role", std::string("value")}}), Contains("role = \"value\"") && Contains("\"query\", \"key\""));
    CHECK_THROWS_WITH(spec_of({{"rope_theta", 1.0}}), Contains("rope_theta = 1"));
    CHECK_THROWS_WITH(spec_of({{"rope_scaling", 1.0}}), Contains("unknown key \"rope_scaling\""));
}

}  // namespace posenc_test_xpos
