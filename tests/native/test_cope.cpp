// CoPE's gates, contextual positions and bias, against numbers worked out by
// hand from x-transformers' CoPE (sigmoid gates, reverse cumulative sum,
// clamp at npos_max - 1, floor / ceil interpolation of q . e) and the head that adds it.
#include <catch2/catch.hpp>

#include <map>
#include <cmath>
#include <limits>
#include <vector>

#include "family_facts.hpp"
#include "identity_head.hpp"
#include "posenc/attention.hpp"
#include "posenc/cope.hpp"
#include "posenc/json.hpp"
#include "posenc/registry.hpp"

// A namespace of its own: the test files also build as one translation unit (CMake's unity build).
namespace posenc_test_cope {

using namespace posenc;
using Catch::Matchers::Contains;

// Where the family acts, its width key and its parsed defaults, for the checks every family passes (test_families.cpp).
const bool cope_facts = posenc_test::add_family_facts(
    "cope", {Acts::bias, "head_dim", [](const Config& c) -> std::map<std::string, Value> {
        const auto s = cope::parse(c);
        return {{"head_dim", double(s.head_dim)}, {"npos_max", double(s.npos_max)}, {"seed", double(s.seed)},
                {"causal", s.causal}};
    }});

namespace {

Config S(const std::string& json) { return parse_json_object(json, "spec"); }

}  // namespace

TEST_CASE("cope: gates, suffix sums and the interpolated bias of a two-token head, by hand", "[cope]") {
    // d = 1, q = k = (1, 2), scale 1: g_00 = s(1) = 0.7310586, g_10 = s(2) = 0.8807971, g_11 = s(4) = 0.9820138.
    // p_00 = 0.7310586; p_11 = 0.9820138; p_10 = g_10 + g_11 = 1.8628109.
    // e = (0.5, -1, 2): q_0 . e = (0.5, -1, 2), q_1 . e = (1, -2, 4).
    // b_00 = -1 * 0.7310586 + 0.5 * 0.2689414 = -0.5965879
    // b_11 = -2 * 0.9820138 + 1 * 0.0179862 = -1.9460414
    // b_10 = 4 * 0.8628109 + (-2) * 0.1371891 = 3.1768654
    cope::Spec spec;
    spec.head_dim = 1;
    spec.npos_max = 3;
    spec.pos_emb = {0.5f, -1.0f, 2.0f};
    const std::vector<float> q = {1, 2};
    const auto m = cope::maps(spec, q.data(), q.data(), 2, 1.0);
    CHECK(m.gates(0, 0) == Approx(0.7310586));
    CHECK(m.gates(1, 0) == Approx(0.8807971));
    CHECK(m.gates(1, 1) == Approx(0.9820138));
    CHECK(m.gates(0, 1) == 0.0f);
    CHECK(m.positions(0, 0) == Approx(0.7310586));
    CHECK(m.positions(1, 1) == Approx(0.9820138));
    CHECK(m.positions(1, 0) == Approx(1.8628109));
    CHECK(m.bias(0, 0) == Approx(-0.5965879));
    CHECK(m.bias(1, 1) == Approx(-1.9460414));
    CHECK(m.bias(1, 0) == Approx(3.1768654));
    CHECK(m.bias(0, 1) == -std::numeric_limits<float>::infinity());
    // npos_max 2 clamps p_10 = 1.86 to 1: b_10 = q_1 . e[1] = -2 exactly.
    spec.npos_max = 2;
    spec.pos_emb = {0.5f, -1.0f};
    const auto clamped = cope::maps(spec, q.data(), q.data(), 2, 1.0);
    CHECK(clamped.positions(1, 0) == 1.0f);
    CHECK(clamped.bias(1, 0) == -2.0f);
}

TEST_CASE("cope: without the mask every key is gated and the sums run to the row's end", "[cope]") {
    // Row 0 of the two-token head: p_01 = g_01 = s(2) = 0.8807971, p_00 = g_00 + g_01 = 1.6118557.
    cope::Spec spec;
    spec.head_dim = 1;
    spec.npos_max = 3;
    spec.pos_emb = {0.5f, -1.0f, 2.0f};
    spec.causal = false;
    const std::vector<float> q = {1, 2};
    const auto m = cope::maps(spec, q.data(), q.data(), 2, 1.0);
    CHECK(m.positions(0, 1) == Approx(0.8807971));
    CHECK(m.positions(0, 0) == Approx(1.6118557));
}

TEST_CASE("cope: the head adds the bias unscaled to q.k/sqrt(d); its terms carry gates and positions; forward agrees", "[cope]") {
    const std::int64_t n = 37, d = 4;
    const attention::Request r = posenc_test::identity_request(S(R"({"type":"cope","npos_max":8,"seed":5})"), n, d, 1.3);
    const auto head = attention::run(r);
    const auto m = cope::maps(cope::parse(S(R"({"type":"cope","npos_max":8,"seed":5,"head_dim":4})")), r.x.data(), r.x.data(), n, 0.5);
    REQUIRE(head.terms.parts.size() == 2);
    CHECK(head.terms.parts[0].first == "gates");
    CHECK(head.terms.parts[1].first == "positions");
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j <= i; ++j) {
            double qk = 0;
            for (std::int64_t c = 0; c < d; ++c) qk += double(r.x(i, c)) * double(r.x(j, c));
            CHECK(head.logits(i, j) == Approx(qk / 2.0 + double(m.bias(i, j))).margin(1e-5));
            CHECK(head.terms.parts[0].second(i, j) == m.gates(i, j));
            CHECK(head.terms.parts[1].second(i, j) == m.positions(i, j));
        }
    CHECK(head.logits(0, 1) == -std::numeric_limits<float>::infinity());  // CoPE is causal
    const std::vector<float> out = posenc_test::identity_forward(r);
    for (std::size_t k = 0; k < out.size(); ++k) CHECK(out[k] == Approx(head.output.data()[k]).margin(1e-5));
}

TEST_CASE("cope: the stand-in head counts keys back, so its bias depends on i - j alone", "[cope]") {
    const auto b = attention_bias(S(R"({"type":"cope","npos_max":8})"), 24);
    for (std::size_t i = 1; i < 24; ++i)
        for (std::size_t j = 1; j <= i; ++j) CHECK(b(i, j) == Approx(b(i - 1, j - 1)).margin(1e-6));
    // Past npos_max - 1 = 7 counted keys (g < 1, so at least 8 back) every key reads e[7]: one value.
    CHECK(b(23, 0) == b(22, 0));
}

TEST_CASE("cope: bad specs and requests name their key", "[cope]") {
    CHECK_THROWS_WITH(attention_bias(S(R"({"type":"cope","head_dim":2,"npos_max":2,"pos_emb":[1,2,3]})"), 4),
                      Contains("pos_emb = a list of 3 numbers is invalid: expected npos_max x head_dim = 2 x 2 = 4 numbers"));
    const std::vector<float> q(4), e(4);
    CHECK_THROWS_WITH(cope::run(S(R"({"n":2,"d_head":2,"npos_max":2})"), {q.data(), 3}, {q.data(), 4}, {e.data(), 4}),
                      Contains("q = an array of length 3 is invalid"));
    CHECK_THROWS_WITH(cope::run(S(R"({"n":2,"d_head":2})"), {q.data(), 4}, {q.data(), 4}, {e.data(), 4}),
                      Contains("npos_max"));
}

}  // namespace posenc_test_cope
