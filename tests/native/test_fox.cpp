// Forgetting Attention (Lin et al. 2025): the forget gates' bias against numbers worked
// out from the official code's definition (fgate_proj, logsigmoid, cumsum, log_lambda_i -
// log_lambda_j), the head that adds it, and the stand-in sentence of the views.
#include <catch2/catch.hpp>

#include <map>
#include <cmath>
#include <limits>
#include <vector>

#include "family_facts.hpp"
#include "identity_head.hpp"
#include "posenc/attention.hpp"
#include "posenc/fox.hpp"
#include "posenc/json.hpp"
#include "posenc/registry.hpp"

// A namespace of its own: the test files also build as one translation unit (CMake's unity build).
namespace posenc_test_fox {

using namespace posenc;
using Catch::Matchers::Contains;

// Where the family acts, its width key and its parsed defaults, for the checks every family passes (test_families.cpp).
const bool fox_facts = posenc_test::add_family_facts(
    "fox", {Acts::bias, "", [](const Config& c) -> std::map<std::string, Value> {  // fgate_weight has no default: drawn from seed when absent
        const auto s = fox::parse(c);
        return {{"hidden_size", double(s.hidden_size)}, {"fgate_bias", s.fgate_bias}, {"seed", double(s.seed)},
                {"causal", s.causal}};
    }});

namespace {

Config S(const std::string& json) { return parse_json_object(json, "spec"); }

constexpr float kMinusInf = -std::numeric_limits<float>::infinity();

/// A head of three tokens x = (0, 0), (1, 0), (0, 2) through identity projections, its gate w = (1, -1), b = 0.5.
attention::Request hand_request(bool causal) {
    attention::Request r;
    r.d_model = r.d_head = 2;
    r.projections = attention::Projections::identity;
    r.encoding = S(std::string(R"({"type":"fox","fgate_weight":[1,-1],"fgate_bias":0.5,"causal":)") + (causal ? "true" : "false") + "}");
    r.x = xt::xtensor<float, 2>{{0, 0}, {1, 0}, {0, 2}};
    r.tokens.assign(3, "");
    return r;
}

}  // namespace

TEST_CASE("fox: the bias of a three-token head, by hand from the reference's definition", "[fox]") {
    // z = w . x + b = (0.5, 1.5, -1.5); log sigmoid(z) = (-0.4740769841801067, -0.2014132779827524, -1.7014132779827524)
    // (math.log1p in float64); log_lambda = cumsum = (-0.4740769841801067, -0.6754902621628591, -2.3769035401456113).
    // b(1, 0) = log f_1; b(2, 0) = log f_1 + log f_2; b(2, 1) = log f_2; the diagonal 0; the first gate never matters.
    const auto head = attention::run(hand_request(true));
    const auto& b = head.terms.position;
    CHECK(b(0, 0) == 0.0f);
    CHECK(b(1, 1) == 0.0f);
    CHECK(b(2, 2) == 0.0f);
    CHECK(b(1, 0) == Approx(-0.20141327798275244).epsilon(1e-7));
    CHECK(b(2, 0) == Approx(-1.9028265559655047).epsilon(1e-7));
    CHECK(b(2, 1) == Approx(-1.7014132779827522).epsilon(1e-7));
    // The logits: q . k / sqrt(2) + b, and the mask above the diagonal.
    CHECK(head.logits(2, 1) == Approx(0.0 + -1.7014132779827522).epsilon(1e-6));
    CHECK(head.logits(1, 0) == Approx(0.0 + -0.20141327798275244).epsilon(1e-6));
    CHECK(head.logits(0, 1) == kMinusInf);
    // Without the mask (posenc's two-way reading): the gates between the two, either way round.
    const auto two_way = attention::run(hand_request(false));
    CHECK(two_way.terms.position(0, 2) == two_way.terms.position(2, 0));
    CHECK(two_way.terms.position(1, 2) == Approx(-1.7014132779827522).epsilon(1e-7));
}

TEST_CASE("fox: log_sigmoid in float64 is exact at both ends and satisfies log s(z) - log s(-z) = z", "[fox]") {
    CHECK(fox::log_sigmoid(0.0) == -std::log(2.0));
    CHECK(fox::log_sigmoid(800.0) == 0.0);           // no overflow: e^-800 underflows to 0
    CHECK(fox::log_sigmoid(-800.0) == -800.0);       // log sigmoid(z) -> z for large -z
    for (const double z : {-30.0, -3.0, -0.25, 0.7, 5.0, 40.0})
        CHECK(fox::log_sigmoid(z) - fox::log_sigmoid(-z) == Approx(z).epsilon(1e-14));
}

TEST_CASE("fox: the mean log gate: log sigmoid(b) for a zero gate weight, and E[log s(z)] - E[log s(-z)] = b", "[fox]") {
    fox::Spec spec;
    spec.hidden_size = 4;
    spec.fgate_weight = {0, 0, 0, 0};
    spec.fgate_bias = 3.0;
    CHECK(fox::mean_log_gate(spec) == fox::log_sigmoid(3.0));
    // With a spread gate, log s(z) - log s(-z) = z for every z, so the two means differ by the mean of z, b, exactly;
    // the quadrature of each is independent, so this checks it to its error.
    spec.fgate_weight = {2, -1, 0.5, 3};
    const double plus = fox::mean_log_gate(spec);
    spec.fgate_bias = -3.0;
    const double minus = fox::mean_log_gate(spec);
    CHECK(plus - minus == Approx(3.0).epsilon(1e-10));
    // Jensen: log sigmoid is concave, so a spread gate forgets more on average than the gate at its mean.
    CHECK(minus < fox::log_sigmoid(-3.0));
}

TEST_CASE("fox: the stand-in sentence's bias telescopes, is the same at every n, and gives the decay curves", "[fox]") {
    const Config spec = S(R"({"type":"fox","hidden_size":16,"seed":3})");
    const auto b = attention_bias(spec, 24);
    const auto small = attention_bias(spec, 10);
    for (std::size_t i = 0; i < 24; ++i)
        for (std::size_t j = 0; j <= i; ++j) {
            CHECK(b(i, j) <= 0.0f);
            if (i < 10) CHECK(small(i, j) == b(i, j));
            for (std::size_t k = 0; k <= j; ++k) CHECK(b(i, k) == Approx(double(b(i, j)) + double(b(j, k))).margin(1e-5));
        }
    CHECK(b(3, 5) == kMinusInf);
    // Not a function of i - j alone: the gates depend on the tokens.
    CHECK(b(5, 4) != b(6, 5));
    const Curves curves = decay(spec, 23, 0);
    REQUIRE(curves.size() == 2);
    CHECK(curves[0].first == "bias");
    CHECK(curves[1].first == "stand_in");
    const double mean = fox::mean_log_gate(fox::parse(spec));
    for (std::size_t m = 0; m <= 23; ++m) {
        CHECK(curves[0].second[m] == Approx(double(m) * mean).epsilon(1e-12));
        CHECK(curves[1].second[m] == Approx(double(b(23, 23 - m))).margin(1e-5));
    }
}

TEST_CASE("fox: the head reads its own inputs; forward() agrees with run()", "[fox]") {
    const std::int64_t n = 29, d = 4;
    const attention::Request r = posenc_test::identity_request(S(R"({"type":"fox","seed":5,"fgate_bias":1})"), n, d, 1.3);
    const auto head = attention::run(r);
    const auto c = fox::cumulative_log_gates(fox::parse(S(R"({"type":"fox","seed":5,"fgate_bias":1,"hidden_size":4})")), r.x.data(), n);
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j <= i; ++j) CHECK(head.terms.position(i, j) == float(c[std::size_t(i)] - c[std::size_t(j)]));
    const std::vector<float> out = posenc_test::identity_forward(r);
    for (std::size_t k = 0; k < out.size(); ++k) CHECK(out[k] == Approx(head.output.data()[k]).margin(1e-5));
}

TEST_CASE("fox: bad specs name their key", "[fox]") {
    CHECK_THROWS_WITH(attention_bias(S(R"({"type":"fox","hidden_size":2,"fgate_weight":[1,2,3]})"), 4),
                      Contains("fgate_weight = a list of 3 numbers is invalid: expected hidden_size = 2 numbers"));
    CHECK_THROWS_WITH(attention_bias(S(R"({"type":"fox","fgate_bias":1e5})"), 4), Contains("fgate_bias = 100000 is invalid"));
    attention::Request r = hand_request(true);
    r.encoding = S(R"({"type":"fox","hidden_size":3})");
    CHECK_THROWS_WITH(attention::run(r), Contains("encoding.hidden_size = 3 is invalid"));
}

}  // namespace posenc_test_fox
