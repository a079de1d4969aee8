// The attention-bias families: ALiBi, T5 buckets, Shaw, Transformer-XL, KERPLE,
// against values computed by hand from each paper's formula.
#include <catch2/catch.hpp>

#include <map>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "family_facts.hpp"
#include "posenc/alibi.hpp"
#include "posenc/kerple.hpp"
#include "posenc/registry.hpp"
#include "posenc/shaw.hpp"
#include "posenc/t5.hpp"
#include "posenc/transformer_xl.hpp"

// A namespace of its own: the test files also build as one translation unit (CMake's unity build).
namespace posenc_test_bias {

using namespace posenc;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;

// Where each family of this file acts, each one's width key and its parsed defaults, for the checks every family passes (test_families.cpp).
const bool alibi_facts = posenc_test::add_family_facts(
    "alibi", {Acts::bias, "", [](const Config& c) -> std::map<std::string, Value> {
        const auto s = alibi::parse(c);
        return {{"n_heads", double(s.n_heads)}, {"head", double(s.head)}, {"causal", s.causal}};
    }});
const bool t5_facts = posenc_test::add_family_facts(
    "t5", {Acts::bias, "", [](const Config& c) -> std::map<std::string, Value> {
        const auto s = t5::parse(c);
        return {{"n_heads", double(s.n_heads)}, {"head", double(s.head)}, {"num_buckets", double(s.num_buckets)},
                {"max_distance", double(s.max_distance)}, {"bidirectional", s.bidirectional},
                {"seed", double(s.seed)}, {"causal", s.causal}};
    }});
const bool shaw_facts = posenc_test::add_family_facts(
    "shaw", {Acts::bias, "head_dim", [](const Config& c) -> std::map<std::string, Value> {
        const auto s = shaw::parse(c);
        return {{"head_dim", double(s.head_dim)}, {"max_relative_position", double(s.max_relative_position)},
                {"seed", double(s.seed)}, {"causal", s.causal}};
    }});
const bool transformer_xl_facts = posenc_test::add_family_facts(
    "transformer_xl", {Acts::bias, "d_head", [](const Config& c) -> std::map<std::string, Value> {
        const auto s = transformer_xl::parse(c);
        return {{"d_head", double(s.d_head)}, {"seed", double(s.seed)}, {"causal", s.causal}};
    }});
const bool kerple_facts = posenc_test::add_family_facts(
    "kerple", {Acts::bias, "", [](const Config& c) -> std::map<std::string, Value> {
        const auto s = kerple::parse(c);
        return {{"variant", std::string(s.variant == kerple::Variant::log ? "log" : "power")},
                {"r1", s.r1}, {"r2", s.r2}, {"causal", s.causal}};
    }});

namespace {
template <class Parse>
auto spec_of(Parse parse, const Config& keys) { return parse(Config(keys)); }
const float kMinusInf = -std::numeric_limits<float>::infinity();
}  // namespace

TEST_CASE("ALiBi slopes for 8 heads are 1/2, 1/4, ..., 1/256", "[alibi]") {
    const auto s = alibi::slopes(8);
    REQUIRE(s.size() == 8);
    for (int h = 0; h < 8; ++h) CHECK(s[h] == std::ldexp(1.0, -(h + 1)));
}

TEST_CASE("ALiBi slopes for 12 heads: the 8-head slopes, then every other 16-head slope", "[alibi]") {
    // 16 heads: 2^(-0.5 k), k = 1..16; every other from the first: 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5.
    const auto s = alibi::slopes(12);
    REQUIRE(s.size() == 12);
    for (int h = 0; h < 8; ++h) CHECK(s[h] == std::ldexp(1.0, -(h + 1)));
    CHECK(s[8] == Approx(0.70710678118654752).epsilon(1e-15));
    CHECK(s[9] == Approx(0.35355339059327376).epsilon(1e-15));
    CHECK(s[10] == Approx(0.17677669529663688).epsilon(1e-15));
    CHECK(s[11] == Approx(0.08838834764831844).epsilon(1e-15));
    CHECK(alibi::slopes(1) == std::vector<double>{1.0 / 256});
}

TEST_CASE("ALiBi bias is -m|i - j|, symmetric, and causal masks the keys after the query", "[alibi]") {
    const auto b = alibi::bias(spec_of(alibi::parse, {{"n_heads", 8.0}, {"head", 2.0}}), 6);  // m = 1/8
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
            CHECK(b(i, j) == float(-0.125 * std::abs(i - j)));
            CHECK(b(i, j) == b(j, i));
        }
    const auto c = alibi::bias(spec_of(alibi::parse, {{"n_heads", 8.0}, {"head", 2.0}, {"causal", true}}), 6);
    CHECK(c(4, 1) == -0.375f);
    CHECK(c(1, 4) == kMinusInf);
    CHECK(c(3, 3) == 0.0f);
}

TEST_CASE("T5 buckets, bidirectional, 32 buckets, max_distance 128: exact, log and saturated regions", "[t5]") {
    // 16 buckets a side, exact below 8; then 8 + floor(ln(d/8) / ln(16) * 8):
    // d = 11 -> 8.92 -> 8, d = 12 -> 8 + 1.17 -> 9, d = 16 -> 10, d = 127 -> 15.98 -> 15,
    // d >= 128 -> 16, capped at 15. Keys after the query (j - i > 0) add 16.
    const auto bucket = [](std::int64_t r) { return t5::relative_position_bucket(r, true, 32, 128); };
    CHECK(bucket(0) == 0);
    for (int d = 1; d < 8; ++d) {
        CHECK(bucket(-d) == d);
        CHECK(bucket(d) == 16 + d);
    }
    CHECK(bucket(-8) == 8);
    CHECK(bucket(-11) == 8);
    CHECK(bucket(-12) == 9);
    CHECK(bucket(-16) == 10);
    CHECK(bucket(16) == 26);
    CHECK(bucket(-127) == 15);
    CHECK(bucket(-128) == 15);
    CHECK(bucket(200) == 31);
    // Over -200..200: never decreasing with distance on each side, within its half.
    for (int d = 1; d <= 200; ++d) {
        CHECK(bucket(-d) >= bucket(-(d - 1)));
        CHECK(bucket(-d) <= 15);
        CHECK(bucket(d) >= 16);
        CHECK(bucket(d) <= 31);
    }
}

TEST_CASE("T5 buckets, unidirectional: future keys share bucket 0, exact below 16, then logarithmic", "[t5]") {
    // 32 buckets, exact below 16; d = 20: 16 + floor(ln(20/16) / ln(8) * 16) = 16 + floor(1.717) = 17.
    const auto bucket = [](std::int64_t r) { return t5::relative_position_bucket(r, false, 32, 128); };
    for (int r : {1, 5, 200}) CHECK(bucket(r) == 0);
    CHECK(bucket(-15) == 15);
    CHECK(bucket(-16) == 16);
    CHECK(bucket(-20) == 17);
    CHECK(bucket(-128) == 31);
    CHECK(bucket(-200) == 31);
}

TEST_CASE("T5 bias matrix reads the head's table at bucket(j - i)", "[t5]") {
    const auto spec = spec_of(t5::parse, {{"n_heads", 4.0}, {"head", 3.0}, {"seed", 5.0}});
    const auto table = t5::bucket_bias(spec);
    const auto b = t5::bias(spec, 40);
    CHECK(b(30, 0) == float(table[std::size_t(t5::relative_position_bucket(-30, true, 32, 128))]));
    CHECK(b(0, 30) == float(table[std::size_t(t5::relative_position_bucket(30, true, 32, 128))]));
    CHECK(b(5, 5) == float(table[0]));
    // Another head draws another table.
    CHECK(t5::bucket_bias(spec_of(t5::parse, {{"n_heads", 4.0}, {"head", 2.0}, {"seed", 5.0}})) != table);
}

TEST_CASE("T5: an explicit relative_attention_bias [num_buckets, n_heads] gives head h's column", "[t5]") {
    // 8 buckets x 2 heads, row-major: entry (bucket, head) = 10 bucket + head + 0.25.
    std::vector<double> table;
    for (int bucket = 0; bucket < 8; ++bucket)
        for (int head = 0; head < 2; ++head) table.push_back(10.0 * bucket + head + 0.25);
    Config spec{{"type", std::string("t5")}, {"n_heads", 2.0}, {"head", 1.0}, {"num_buckets", 8.0},
                {"max_distance", 16.0}, {"seed", 9.0}, {"relative_attention_bias", table}};
    // Bidirectional, 8 buckets: 4 a direction, 2 exact. j - i = 1 is bucket 4 + 1, j - i = -1 bucket 1.
    REQUIRE(t5::relative_position_bucket(1, true, 8, 16) == 5);
    REQUIRE(t5::relative_position_bucket(-1, true, 8, 16) == 1);
    const auto b = attention_bias(spec, 4);
    CHECK(b(0, 1) == 51.25f);  // relative_attention_bias[5][1]
    CHECK(b(2, 1) == 11.25f);  // [1][1]
    CHECK(b(3, 3) == 1.25f);   // [0][1]
    CHECK(decay(spec, 1, 0).front().second == std::vector<double>{1.25, 11.25});  // f(0), f(-1)
    spec["head"] = 0.0;
    CHECK(attention_bias(spec, 4)(0, 1) == 50.25f);  // [5][0]
    // The head's bias in the fused kernel reads the same column.
    HeadInputs in;
    in.n = 4;
    float row[4] = {0, 0, 0, 0};
    head_bias(spec, in).tile->add(2, 1, 0, 4, row, 4);
    CHECK(row[1] == 10.25f);
    CHECK(row[3] == 50.25f);
}

TEST_CASE("T5: a relative_attention_bias of the wrong length is refused naming the key and the count", "[t5][errors]") {
    const Config spec{{"type", std::string("t5")}, {"n_heads", 2.0}, {"num_buckets", 8.0}, {"max_distance", 16.0},
                      {"relative_attention_bias", std::vector<double>(8, 1.0)}};
    CHECK_THROWS_WITH(attention_bias(spec, 2), "relative_attention_bias = a list of 8 numbers is invalid: expected "
                                               "num_buckets x n_heads = 8 x 2 = 16 numbers");
}

TEST_CASE("Shaw: q_i . a_clip(j - i), constant past max_relative_position", "[shaw]") {
    const auto spec = spec_of(shaw::parse, {{"head_dim", 4.0}, {"max_relative_position", 2.0}, {"seed", 3.0}});
    const auto a = shaw::embeddings(spec);
    REQUIRE(a.shape()[0] == 5);
    xt::xtensor<float, 2> q = {{1, 0, 0, 0}, {0, 2, 0, 0}, {0, 0, 0, -1}, {1, 1, 1, 1}, {0, 0, 3, 0}, {1, 0, 0, 1}};
    const auto b = shaw::bias(spec, q);
    // q_1 = (0, 2, 0, 0), key 5: j - i = 4, clipped to 2 -> row 4 of a, 2 * a[4][1].
    CHECK(b(1, 5) == Approx(2.0 * a(4, 1)));
    // q_4 = (0, 0, 3, 0), key 0: j - i = -4 -> -2 -> row 0.
    CHECK(b(4, 0) == Approx(3.0 * a(0, 2)));
    CHECK(b(2, 2) == Approx(-a(2, 3)));
    const auto ones = shaw::bias(spec, 8);
    CHECK(ones(0, 7) == ones(0, 2));
    CHECK(ones(7, 0) == ones(5, 0));
    CHECK(ones(0, 1) != ones(0, 2));
}

TEST_CASE("Shaw: an explicit relative_key [2K + 1, head_dim], row k + K a_k, is what every output reads", "[shaw]") {
    // K = 1, head_dim 2: a_(-1) = (1, 2), a_0 = (3, 4), a_1 = (5, 6).
    const Config spec{{"type", std::string("shaw")}, {"head_dim", 2.0}, {"max_relative_position", 1.0}, {"seed", 4.0},
                      {"relative_key", std::vector<double>{1, 2, 3, 4, 5, 6}}};
    const bool given = shaw::embeddings(shaw::parse(spec)) == xt::xtensor<float, 2>{{1, 2}, {3, 4}, {5, 6}};
    CHECK(given);
    // Queries of ones: b(i, j) is the sum of row clip(j - i, -1, 1) + 1.
    const auto b = attention_bias(spec, 4);
    CHECK(b(0, 1) == 11.0f);
    CHECK(b(0, 3) == 11.0f);  // clipped
    CHECK(b(2, 2) == 7.0f);
    CHECK(b(3, 0) == 3.0f);
    CHECK(decay(spec, 2, 0).front().second == std::vector<double>{7, 3, 3});  // a key m back: row clip(-m) + 1
    // The head's bias: q_0 = (1, 0), q_1 = (0, 1).
    const std::vector<float> q = {1, 0, 0, 1};
    HeadInputs in;
    in.q = q.data();
    in.n = 2;
    in.width = 2;
    float s[4] = {0, 0, 0, 0};
    head_bias(spec, in).tile->add(0, 2, 0, 2, s, 2);
    CHECK(s[1] == 5.0f);  // q_0 . a_1
    CHECK(s[2] == 2.0f);  // q_1 . a_(-1)
}

TEST_CASE("Shaw: a relative_key of the wrong length is refused naming the key and the count", "[shaw][errors]") {
    const Config spec{{"type", std::string("shaw")}, {"head_dim", 2.0}, {"max_relative_position", 1.0},
                      {"relative_key", std::vector<double>{1, 2, 3, 4}}};
    CHECK_THROWS_WITH(attention_bias(spec, 2), "relative_key = a list of 4 numbers is invalid: expected "
                                               "(2 max_relative_position + 1) x head_dim = 3 x 2 = 6 numbers");
}

TEST_CASE("Transformer-XL: (q_i + v) . R_(i-j) with R = [sin | cos] of the distance", "[transformer_xl]") {
    const auto spec = spec_of(transformer_xl::parse, {{"d_head", 8.0}, {"causal", false}});
    const auto v = transformer_xl::v(spec);
    const auto b = transformer_xl::bias(spec, 10);
    // R_0 = [0, 0, 0, 0, 1, 1, 1, 1]: b(i, i) = sum of (1 + v_c) over the cosine half.
    double diagonal = 0;
    for (int c = 4; c < 8; ++c) diagonal += 1 + v[c];
    CHECK(b(3, 3) == Approx(diagonal).epsilon(1e-6));
    // R_3: sin(3 w_c), cos(3 w_c), w_c = 10000^(-2c/8).
    double three = 0;
    for (int c = 0; c < 4; ++c) {
        const double w = std::pow(10000.0, -2.0 * c / 8.0);
        three += (1 + v[c]) * std::sin(3 * w) + (1 + v[c + 4]) * std::cos(3 * w);
    }
    CHECK(b(7, 4) == Approx(three).epsilon(1e-6));
    CHECK(b(9, 6) == b(7, 4));  // depends on i - j only
    CHECK(transformer_xl::bias(spec_of(transformer_xl::parse, {{"d_head", 8.0}}), 4)(0, 1) == kMinusInf);  // causal by default
}

TEST_CASE("Transformer-XL: explicit r_w_bias (u) and r_r_bias (v) [d_head] replace the draws", "[transformer_xl]") {
    const Config spec{{"type", std::string("transformer_xl")}, {"d_head", 2.0}, {"causal", false},
                      {"r_w_bias", std::vector<double>{7, 8}}, {"r_r_bias", std::vector<double>{0.5, -2}}};
    const auto parsed = transformer_xl::parse(spec);
    CHECK(transformer_xl::u(parsed) == std::vector<double>{7, 8});
    CHECK(transformer_xl::v(parsed) == std::vector<double>{0.5, -2});
    // d_head 2: R_r = [sin r, cos r] (w_0 = 1). Queries of ones, (i, j) = (3, 1):
    // (q_3 + v) . R_2 = 1.5 sin 2 - cos 2.
    const double by_hand = 1.5 * std::sin(2.0) - std::cos(2.0);
    CHECK(attention_bias(spec, 4)(3, 1) == Approx(by_hand).epsilon(1e-6));
    CHECK(decay(spec, 2, 0).front().second[2] == Approx(by_hand).epsilon(1e-12));
    // The head's factored bias: q_3 = (1, 1), so Q'_3 . K'_1 is the same number.
    const std::vector<float> q(8, 1.0f);
    HeadInputs in;
    in.q = q.data();
    in.n = 4;
    in.width = 2;
    const HeadBias head = head_bias(spec, in);
    REQUIRE(head.extra_width == 2);
    const double factored = double(head.q_extra[6]) * head.k_extra[2] + double(head.q_extra[7]) * head.k_extra[3];
    CHECK(factored == Approx(by_hand).epsilon(1e-6));
}

TEST_CASE("Transformer-XL: r_w_bias or r_r_bias of the wrong length is refused naming the key and the count",
          "[transformer_xl][errors]") {
    Config spec{{"type", std::string("transformer_xl")}, {"d_head", 4.0}, {"r_r_bias", std::vector<double>{1, 2}}};
    CHECK_THROWS_WITH(attention_bias(spec, 2), "r_r_bias = a list of 2 numbers is invalid: expected d_head = 4 numbers");
    spec["r_r_bias"] = nullptr;
    spec["r_w_bias"] = std::vector<double>{1, 2, 3};
    CHECK_THROWS_WITH(attention_bias(spec, 2), "r_w_bias = a list of 3 numbers is invalid: expected d_head = 4 numbers");
}

TEST_CASE("KERPLE: -r1 ln(1 + r2 d) and -r1 d^r2, decreasing with distance", "[kerple]") {
    const auto log = spec_of(kerple::parse, {{"r1", 2.0}, {"r2", 0.5}});
    CHECK(kerple::at_distance(log, 2) == Approx(-2 * std::log(2.0)).epsilon(1e-15));
    const auto power = spec_of(kerple::parse, {{"variant", std::string("power")}, {"r1", 1.0}, {"r2", 1.5}});
    CHECK(kerple::at_distance(power, 4) == Approx(-8.0).epsilon(1e-15));
    for (const auto& spec : {log, power}) {
        const auto b = kerple::bias(spec, 50);
        CHECK(b(10, 10) == 0.0f);
        for (int j = 1; j < 50; ++j) CHECK(b(0, j) < b(0, j - 1));
        CHECK(b(20, 3) == b(3, 20));
    }
}

TEST_CASE("decay curves: ALiBi's line, T5's steps, KERPLE's curve, the sinusoidal cosine sum", "[registry][decay]") {
    const auto alibi_curve = decay(Config{{"type", std::string("alibi")}, {"n_heads", 8.0}}, 10, 0);
    CHECK(alibi_curve[0].first == "bias");
    CHECK(alibi_curve[0].second[10] == Approx(-5.0));  // slope 1/2
    const auto t5_curve = decay(Config{{"type", std::string("t5")}}, 200, 0)[0].second;
    CHECK(t5_curve[130] == t5_curve[200]);  // saturated: one bucket
    CHECK(t5_curve[3] != t5_curve[4]);
    const auto sin_curve = decay(Config{{"type", std::string("sinusoidal")}, {"d_model", 8.0}}, 5, 0)[0].second;
    CHECK(sin_curve[0] == 4.0);
    CHECK(sin_curve[5] == Approx(std::cos(5.0) + std::cos(0.5) + std::cos(0.05) + std::cos(0.005)));
    CHECK(decay(Config{{"type", std::string("none")}}, 3, 0)[0].second == std::vector<double>(4, 0.0));
    CHECK_THROWS_WITH(decay(Config{{"type", std::string("learned")}}, 3, 0), Contains("no decay curve"));
}

TEST_CASE("bad bias input throws naming the parameter, value and range", "[errors]") {
    CHECK_THROWS_WITH(spec_of(alibi::parse, {{"n_heads", 0.0}}), Contains("n_heads = 0") && Contains("[1, 4096]"));
    CHECK_THROWS_WITH(spec_of(alibi::parse, {{"n_heads", 8.0}, {"head", 8.0}}), Contains("head = 8") && Contains("[0, 7]"));
    CHECK_THROWS_WITH(spec_of(t5::parse, {{"num_buckets", 1.0}}), Contains("num_buckets = 1"));
    CHECK_THROWS_WITH(spec_of(t5::parse, {{"num_buckets", 31.0}}), Contains("num_buckets = 31") && Contains("even"));
    CHECK_NOTHROW(spec_of(t5::parse, {{"num_buckets", 31.0}, {"bidirectional", false}}));
    CHECK_THROWS_WITH(spec_of(t5::parse, {{"num_buckets", 32.0}, {"max_distance", 15.0}}),
                      Contains("max_distance = 15") && Contains(">= num_buckets / 2 = 16"));
    // A value that is no integer gets the key's own range, not the wide one check_buckets narrows.
    CHECK_THROWS_WITH(spec_of(t5::parse, {{"num_buckets", 3.5}}),
                      Equals("num_buckets = 3.5 is invalid: expected an integer in [2, 65536], even when bidirectional"));
    CHECK_THROWS_WITH(spec_of(t5::parse, {{"max_distance", 0.5}}), Contains("max_distance = 0.5") && !Contains("-1099511627776"));
    CHECK_THROWS_WITH(spec_of(kerple::parse, {{"r1", -1.0}}), Contains("r1 = -1") && Contains("> 0"));
    CHECK_THROWS_WITH(spec_of(kerple::parse, {{"variant", std::string("power")}, {"r2", 2.5}}), Contains("r2 = 2.5") && Contains("(0, 2]"));
    CHECK_THROWS_WITH(spec_of(shaw::parse, {{"max_relative_position", -1.0}}), Contains("max_relative_position = -1"));
    CHECK_THROWS_WITH(spec_of(transformer_xl::parse, {{"d_head", 7.0}}), Contains("d_head = 7"));
    CHECK_THROWS_WITH(alibi::bias(alibi::Spec{}, 0), Contains("n = 0") && Contains("[1, 4096]"));
    CHECK_THROWS_WITH(attention_bias(Config{{"type", std::string("rope")}}, 4), Contains("not a bias family"));
}

TEST_CASE("t5 buckets (JS t5Bucket): one bucket per position, the arguments checked and named as JS names them", "[t5]") {
    const std::vector<double> r = {0, -1, -8, -200, 1, 12, 200};
    const auto buckets = t5::buckets(r.data(), r.size(), true, 32, 128);
    REQUIRE(buckets.size() == r.size());
    for (std::size_t k = 0; k < r.size(); ++k)
        CHECK(buckets[k] == t5::relative_position_bucket(std::int64_t(r[k]), true, 32, 128));
    CHECK(buckets == std::vector<std::int32_t>{0, 1, 8, 15, 17, 25, 31});
    CHECK_THROWS_WITH(t5::buckets(nullptr, 0, true, 31, 128), Contains("numBuckets = 31 is invalid"));
    CHECK_THROWS_WITH(t5::buckets(nullptr, 0, true, 32, 15), Contains("maxDistance = 15 is invalid: expected an integer >= numBuckets / 2 = 16"));
    const std::vector<double> bad = {1, 2.5};
    CHECK_THROWS_WITH(t5::buckets(bad.data(), bad.size(), true, 32, 128),
                      "relativePositions[1] = 2.5 is invalid: expected an integer in [-1099511627776, 1099511627776]");
    CHECK_THROWS_WITH(t5::parse({{"num_buckets", 31.0}}), Contains("num_buckets = 31 is invalid"));  // the spec's key
}

TEST_CASE("decay_distance is the axis 0 .. max_distance", "[registry]") {
    CHECK(decay_distance(3) == std::vector<double>{0, 1, 2, 3});
    CHECK(decay_distance(0) == std::vector<double>{0});
    CHECK_THROWS_WITH(decay_distance(-1), "maxDistance = -1 is invalid: expected an integer in [0, 1000000]");
}

TEST_CASE("alibi bias (JS alibiBias): the spec's bias, the arguments checked and named as JS names them", "[alibi]") {
    alibi::Spec spec;
    spec.n_heads = 12;
    spec.head = 5;
    spec.causal = true;
    const auto expected = alibi::bias(spec, 6);
    const auto b = alibi::bias(6, 12, 5, true);
    CHECK(b == expected);
    CHECK(b(5, 0) == Approx(-5 * alibi::slopes(12)[5]));
    CHECK_THROWS_WITH(alibi::bias(6, 12, 12, true), "head = 12 is invalid: expected an integer in [0, 11]");
    CHECK_THROWS_WITH(alibi::bias(6, 0, 0, true), "nHeads = 0 is invalid: expected an integer in [1, 4096]");
    CHECK_THROWS_WITH(alibi::bias(0, 12, 0, true), "n = 0 is invalid: expected an integer in [1, 4096]");
}

TEST_CASE("the registry's entry points check and name their arguments as the JS functions do", "[registry]") {
    const Config rope{{"type", std::string("rope")}, {"head_dim", 4.0}};
    const std::vector<float> x(8, 1.0f);
    std::vector<float> out(8);
    CHECK_THROWS_WITH(apply_rotary(rope, {x.data(), 7}, 2, 4, 0, out.data()),
                      "x = an array of length 7 is invalid: expected n * d = 8 numbers");
    CHECK_THROWS_WITH(apply_rotary(rope, {x.data(), 8}, 2, 4, -1, out.data()),
                      "positionOffset = -1 is invalid: expected an integer in [0, 1099511627776]");
    apply_rotary(rope, {x.data(), 8}, 2, 4, 0, out.data());
    CHECK(out[0] == 1.0f);  // position 0: no rotation
    CHECK(out[4] == Approx(std::cos(1.0) - std::sin(1.0)));  // half layout, pair 0 of row 1: (1, 1) turned by 1 radian
    CHECK_THROWS_WITH(rotary_frequencies(rope, 0), "seqLen = 0 is invalid: expected an integer in [1, 1099511627776]");
    CHECK_THROWS_WITH(decay(rope, 10, -1), "seed = -1 is invalid: expected an integer in [0, 9007199254740992]");
    CHECK_THROWS_WITH(decay(rope, 1000001, 0), "maxDistance = 1000001 is invalid: expected an integer in [0, 1000000]");
}

}  // namespace posenc_test_bias
