// The learned table (GPT-2 style init) and NoPE.
#include <catch2/catch.hpp>

#include <map>
#include <cmath>
#include <string>
#include <vector>

#include "family_facts.hpp"
#include "posenc/learned.hpp"
#include "posenc/nope.hpp"
#include "posenc/registry.hpp"

// A namespace of its own: the test files also build as one translation unit (CMake's unity build).
namespace posenc_test_learned {

using namespace posenc;
using Catch::Matchers::Contains;

// Where each family of this file acts, each one's width key and its parsed defaults, for the checks every family passes (test_families.cpp).
const bool learned_facts = posenc_test::add_family_facts(
    "learned", {Acts::absolute, "d_model", [](const Config& c) -> std::map<std::string, Value> {
        const auto s = learned::parse(c);
        return {{"d_model", double(s.d_model)}, {"max_position_embeddings", double(s.max_position_embeddings)},
                {"seed", double(s.seed)}, {"std", s.std}};
    }});
const bool none_facts = posenc_test::add_family_facts(
    "none", {Acts::none, "d_model", [](const Config& c) -> std::map<std::string, Value> {
        return {{"d_model", double(nope::parse(c).d_model)}};
    }});

TEST_CASE("the learned table is N(0, 0.02^2) noise, fixed by its seed", "[learned]") {
    learned::Spec spec;  // 1024 x 768, seed 0, std 0.02
    const auto t = learned::table(spec, 1024);
    double sum = 0, squares = 0;
    for (float v : t) {
        sum += v;
        squares += double(v) * v;
    }
    const double n = double(t.size());
    CHECK(std::abs(sum / n) < 0.02 * 5 / std::sqrt(n));
    CHECK(std::sqrt(squares / n) == Approx(0.02).epsilon(0.01));
    const bool same_again = learned::table(spec, 1024) == t;
    CHECK(same_again);
    learned::Spec other = spec;
    other.seed = 1;
    const auto reseeded = learned::table(other, 4);
    int equal = 0;
    for (std::size_t c = 0; c < 4 * 768; ++c) equal += reseeded.data()[c] == t.data()[c];
    CHECK(equal == 0);
}

TEST_CASE("a row of the learned table does not depend on which rows were asked for", "[learned]") {
    learned::Spec spec;
    spec.d_model = 16;
    spec.max_position_embeddings = 64;
    const auto all = learned::table(spec, 64);
    const auto tail = learned::table(spec, 10, 50);
    for (std::size_t r = 0; r < 10; ++r)
        for (std::size_t c = 0; c < 16; ++c) CHECK(tail(r, c) == all(50 + r, c));
}

TEST_CASE("past max_position_embeddings no embedding exists", "[learned][errors]") {
    learned::Spec spec;
    spec.max_position_embeddings = 100;
    CHECK_NOTHROW(learned::table(spec, 100));
    CHECK_THROWS_WITH(learned::table(spec, 101), Contains("n = 101") && Contains("no embedding exists for position 100"));
    CHECK_THROWS_WITH(learned::table(spec, 10, 95), Contains("max_position_embeddings - 1 = 99"));
    CHECK_THROWS_WITH(learned::parse(Config{{"std", -1.0}}), Contains("std = -1"));
    CHECK_THROWS_WITH(learned::parse(Config{{"d_model", 4096.0}, {"max_position_embeddings", 8192.0}}),
                      Contains("max_position_embeddings = 8192"));
}

TEST_CASE("learned: an explicit weight [max_position_embeddings, d_model] is the table, row p position p's", "[learned]") {
    // GPT-2's wpe.weight for 3 positions of width 2, row-major; seed and std no longer matter.
    const std::vector<double> weight = {0.5, -1, 2, 0.25, -3, 4};
    const Config spec{{"type", std::string("learned")}, {"d_model", 2.0}, {"max_position_embeddings", 3.0},
                      {"seed", 7.0}, {"std", 5.0}, {"weight", weight}};
    const auto t = position_table(spec, 3);
    REQUIRE(t.shape()[0] == 3);
    REQUIRE(t.shape()[1] == 2);
    for (std::size_t p = 0; p < 3; ++p)
        for (std::size_t c = 0; c < 2; ++c) CHECK(t(p, c) == float(weight[p * 2 + c]));
    const auto tail = position_table(spec, 1, 2);  // the row at position 2 alone
    CHECK(tail(0, 0) == -3.0f);
    CHECK(tail(0, 1) == 4.0f);
    // Past the given rows no embedding exists, as for a drawn table.
    CHECK_THROWS_WITH(position_table(spec, 4), Contains("no embedding exists for position 3"));
    // Without weight the same sizes draw from the seed.
    Config drawn = spec;
    drawn["weight"] = nullptr;
    CHECK(position_table(drawn, 1)(0, 0) != 0.5f);
}

TEST_CASE("learned: a weight of the wrong length is refused naming the key and the count", "[learned][errors]") {
    const Config spec{{"type", std::string("learned")}, {"d_model", 2.0}, {"max_position_embeddings", 3.0},
                      {"weight", std::vector<double>{1, 2, 3, 4, 5}}};
    CHECK_THROWS_WITH(position_table(spec, 1),
                      "weight = a list of 5 numbers is invalid: expected max_position_embeddings x d_model = 3 x 2 = 6 numbers");
    Config big = spec;
    big["weight"] = std::vector<double>{1, 2, 3, 4, 5, 2e4};
    CHECK_THROWS_WITH(position_table(big, 1), "weight[5] = 20000 is invalid: expected a number in [-1e4, 1e4]");
}

TEST_CASE("NoPE is a table of zeros", "[none]") {
    const auto z = position_table(Config{{"type", std::string("none")}, {"d_model", 8.0}}, 5);
    CHECK(z.shape()[0] == 5);
    CHECK(z.shape()[1] == 8);
    for (float v : z) CHECK(v == 0.0f);
    CHECK_THROWS_WITH(position_table(Config{{"type", std::string("none")}, {"dmodel", 8.0}}, 5), Contains("unknown key \"dmodel\""));
}

TEST_CASE("position similarity: sinusoidal depends on i - j only, cosine 1 on the diagonal, NoPE 0", "[similarity]") {
    const Config sin_spec{{"type", std::string("sinusoidal")}, {"d_model", 16.0}};
    const auto dot = position_similarity(sin_spec, 30, "dot");
    CHECK(dot(3, 3) == Approx(8.0));  // |p|^2 = d_model / 2
    CHECK(dot(10, 4) == Approx(dot(20, 14)).margin(1e-5));
    const auto cosine = position_similarity(Config{{"type", std::string("learned")}, {"d_model", 32.0}}, 20, "cosine");
    for (int i = 0; i < 20; ++i) CHECK(cosine(i, i) == Approx(1.0));
    CHECK(std::abs(cosine(2, 9)) < 0.9);
    const auto none = position_similarity(Config{{"type", std::string("none")}}, 5, "cosine");
    for (float v : none) CHECK(v == 0.0f);
    CHECK_THROWS_WITH(position_similarity(sin_spec, 5, "l2"), Contains("metric = \"l2\""));
    CHECK_THROWS_WITH(position_similarity(Config{{"type", std::string("alibi")}}, 5, "dot"), Contains("not an absolute encoding"));
}

}  // namespace posenc_test_learned
