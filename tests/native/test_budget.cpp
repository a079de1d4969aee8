// The work budget (posenc/budget.hpp): requests that ran for minutes in the
// browser are refused at once, naming the size argument and the cap.
#include <catch2/catch.hpp>

#include <functional>
#include <string>

#include "posenc/attention.hpp"
#include "posenc/budget.hpp"
#include "posenc/json.hpp"
#include "posenc/registry.hpp"

// A namespace of its own: the test files also build as one translation unit (CMake's unity build).
namespace posenc_test_budget {

using namespace posenc;
using Catch::Matchers::Contains;

namespace {

Config spec(const char* json) { return parse_json_object(json, "spec"); }

/// Runs f, which must throw BadParam with param `param` and the budget's message (the budget is
/// checked before any work; how long that takes is npm run bench's business, not a test's).
void refused(const std::function<void()>& f, const std::string& param) {
    try {
        f();
        FAIL("not refused");
    } catch (const BadParam& e) {
        CHECK(e.param == param);
        CHECK_THAT(std::string(e.what()), Contains("exceeds the limit of 3e8 operations"));
        CHECK(e.allowed == "at most 3e8 operations");
    }
}

}  // namespace

TEST_CASE("budget: the slow requests of issue 12 are refused before any work", "[budget]") {
    refused([] { decay(spec(R"({"type":"sinusoidal","d_model":16777216})"), 1000000, 0); }, "maxDistance");
    refused([] { decay(spec(R"({"type":"rope","head_dim":65536})"), 1000000, 0); }, "maxDistance");
    refused([] { decay(spec(R"({"type":"xpos","head_dim":65536})"), 1000000, 0); }, "maxDistance");
    refused([] { decay(spec(R"({"type":"transformer_xl","d_head":4096})"), 1000000, 0); }, "maxDistance");
    refused([] { attention_bias(spec(R"({"type":"shaw","head_dim":4096,"max_relative_position":4096})"), 4096); }, "n");
    refused([] { attention_bias(spec(R"({"type":"transformer_xl","d_head":4096})"), 4096); }, "n");
    refused([] { position_similarity(spec(R"({"type":"sinusoidal","d_model":4096})"), 4096, "cosine"); }, "n");
}

TEST_CASE("budget: the message names the factors", "[budget]") {
    try {
        decay(spec(R"({"type":"sinusoidal","d_model":16777216})"), 1000000, 0);
        FAIL("not refused");
    } catch (const BadParam& e) {
        CHECK(std::string(e.what()) ==
              "decay (maxDistance): 1000001 distances x 8388608 pairs x 12 operations per cosine = 1e14 operations exceeds the limit "
              "of 3e8 operations");
    }
}

TEST_CASE("budget: T5 decay over 65536 buckets and 2^40 distance, and requests at the cap, run", "[budget]") {
    const Curves c = decay(spec(R"({"type":"t5","num_buckets":65536,"max_distance":1099511627776})"), 1000000, 0);
    CHECK(c[0].second.size() == 1000001);
    CHECK(decay(spec(R"({"type":"sinusoidal","d_model":48})"), 1000000, 0)[0].second.size() == 1000001);
    CHECK(attention_bias(spec(R"({"type":"transformer_xl","d_head":16})"), 4096).shape()[0] == 4096);
}

TEST_CASE("budget: shaw's bias reads only the relative positions within +-(n - 1)", "[budget]") {
    // K = 64 >= n - 1 = 7: the same matrix as K = 7 would give with a's middle rows.
    const auto wide = attention_bias(spec(R"({"type":"shaw","head_dim":8,"max_relative_position":64})"), 8);
    const auto narrow = attention_bias(spec(R"({"type":"shaw","head_dim":8,"max_relative_position":3})"), 8);
    CHECK(wide.shape()[0] == 8);
    CHECK(narrow.shape()[0] == 8);
}

TEST_CASE("budget: a spec over 4 MiB, or nested deeper than 8, is refused at once", "[budget][json]") {
    // An unknown key holding 8 levels of 10 keys: 10^8 values as text is far over the cap.
    std::string big = R"({"type":"rope","junk":[)";
    for (int i = 0; i < 3000000; ++i) big += "1,";
    big += "1]}";
    try {
        parse_json_object(big, "spec");
        FAIL("not refused");
    } catch (const BadParam& e) {
        CHECK(e.param == "spec");
        CHECK_THAT(std::string(e.what()), Contains("is too long: expected at most 4194304 bytes"));
    }
    std::string deep = R"({"type":"rope","junk":)";
    for (int i = 0; i < 12; ++i) deep += R"({"a":)";
    deep += "1";
    for (int i = 0; i < 12; ++i) deep += "}";
    deep += "}";
    CHECK_THROWS_WITH(parse_json_object(deep, "spec"), Contains("nested too deeply"));
    // Within the limits, the unknown key is named before anything reads its value.
    CHECK_THROWS_WITH(decay(spec(R"({"type":"rope","junk":{"a":{"b":{"c":1}}}})"), 10, 0),
                      Contains("unknown key \"junk\"; accepted keys: type, head_dim"));
}

}  // namespace posenc_test_budget
