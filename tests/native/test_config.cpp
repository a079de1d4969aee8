// Spec objects: key checking, null-as-default, the registry's type dispatch and
// the number formatting used in every error message.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>

#include "posenc/config.hpp"
#include "posenc/registry.hpp"
#include "posenc/sinusoidal.hpp"
#include "bad_param.hpp"

// A namespace of its own: the test files also build as one translation unit (CMake's unity build).
namespace posenc_test_config {

using namespace posenc;
using Catch::Matchers::Contains;

TEST_CASE("format_number prints the shortest text that reads back exactly", "[config]") {
    CHECK(format_number(0.1) == "0.1");
    CHECK(format_number(7) == "7");
    CHECK(format_number(1e6) == "1000000");
    CHECK(format_number(5000) == "5000");
    CHECK(format_number(-0.5) == "-0.5");
    CHECK(format_number(1e-7) == "1e-07");
    CHECK(format_number(1.0 / 3.0) == "0.3333333333333333");
    CHECK(format_number(NAN) == "NaN");
    CHECK(format_number(-INFINITY) == "-Infinity");
}

TEST_CASE("an unknown key is rejected with the list of accepted keys", "[config]") {
    CHECK_THROWS_WITH(sinusoidal::parse({{"type", std::string("sinusoidal")}, {"dmodel", 64.0}}),
                      Contains("sinusoidal spec: unknown key \"dmodel\"") &&
                          Contains("accepted keys: type, d_model, base, layout, timescales"));
}

TEST_CASE("absent and null keys take the paper's defaults", "[config]") {
    const auto spec = sinusoidal::parse({{"base", nullptr}});
    CHECK(spec.d_model == 512);
    CHECK(spec.base == 10000.0);
    CHECK(spec.layout == sinusoidal::Layout::interleaved);
    CHECK(spec.timescales == sinusoidal::Timescales::vaswani);
}

TEST_CASE("a missing required key names the key and the accepted ones", "[config]") {
    const Config config{{"b", 1.0}};
    const SpecReader read(config, "test spec", {"a", "b"});
    CHECK_THROWS_WITH(read.required_integer("a", 1, 10),
                      Contains("test spec: missing required key \"a\"") && Contains("accepted keys: a, b"));
    CHECK(read.required_integer("b", 1, 10) == 1);
    CHECK_THROWS_AS(read.integer("c", 0, 0, 1), std::logic_error);  // undeclared key: a programming error
}

TEST_CASE("the registry dispatches on type and rejects unknown types", "[config][registry]") {
    CHECK_THROWS_WITH(position_table(Config{{"d_model", 8.0}}, 4), Contains("missing required key \"type\""));
    CHECK_THROWS_WITH(position_table(Config{{"type", std::string("sinusiodal")}}, 4),
                      Contains("type = \"sinusiodal\"") && Contains("\"sinusoidal\""));
    CHECK_THROWS_WITH(position_table(Config{{"type", 3.0}}, 4), Contains("type = 3"));
    CHECK(position_table(Config{{"type", std::string("sinusoidal")}, {"d_model", 4.0}}, 3).shape()[1] == 4);
}

TEST_CASE("bad input is a BadParam naming the parameter, without any index", "[config]") {
    auto param_of = [](auto&& call) -> std::string {
        try {
            call();
        } catch (const BadParam& e) {
            return e.param;
        }
        return "(no BadParam)";
    };
    CHECK(param_of([] { throw_bad_param("n", "0", "an integer >= 1"); }) == "n");
    CHECK(param_of([] { throw_bad_param("long_factor[2]", "NaN", "a finite number"); }) == "long_factor");
    CHECK_THROWS_AS(throw_bad_param("n", "0", "an integer >= 1"), std::invalid_argument);
    CHECK_THROWS_WITH(throw_bad_param("n", "0", "an integer >= 1"), "n = 0 is invalid: expected an integer >= 1");
    CHECK(param_of([] { sinusoidal::parse({{"dmodel", 64.0}}); }) == "dmodel");
    CHECK(param_of([] { sinusoidal::parse({{"base", 1.0}}); }) == "base");
    const Config config{{"b", 1.0}};
    const SpecReader read(config, "test spec", {"a", "b"});
    CHECK(param_of([&] { read.required_integer("a", 1, 10); }) == "a");
    CHECK(param_of([] { position_table(Config{{"d_model", 8.0}}, 4); }) == "type");
    CHECK(param_of([] { position_table(Config{{"type", std::string("alibi")}}, 4); }) == "type");
    CHECK(param_of([] { position_table(Config{{"type", std::string("sinusoidal")}, {"d_model", 4.0}}, 0); }) == "n");
}

TEST_CASE("a BadParam carries its param, value and allowed range apart from the message", "[config]") {
    const BadParam odd = bad_param_of([] { sinusoidal::parse({{"d_model", 7.0}}); });
    CHECK(odd.param == "d_model");
    CHECK(odd.value == "7");
    CHECK(odd.allowed == "an even integer in [2, 16777216]");
    CHECK(std::string(odd.what()) == "d_model = 7 is invalid: expected an even integer in [2, 16777216]");

    const BadParam indexed = bad_param_of([] { throw_bad_param("long_factor[2]", "NaN", "finite numbers > 0"); });
    CHECK(indexed.param == "long_factor");
    CHECK(indexed.value == "NaN");
    CHECK(indexed.allowed == "finite numbers > 0");

    const BadParam layout = bad_param_of([] { sinusoidal::parse({{"layout", std::string("diagonal")}}); });
    CHECK(layout.value == "\"diagonal\"");
    CHECK(layout.allowed == "one of \"interleaved\", \"concat\"");

    const BadParam unknown = bad_param_of([] { sinusoidal::parse({{"dmodel", 64.0}}); });
    CHECK(unknown.param == "dmodel");
    CHECK(unknown.value == "64");
    CHECK_THAT(unknown.allowed, Contains("accepted keys: type, d_model, base, layout, timescales"));

    const BadParam missing = bad_param_of([] { position_table(Config{{"d_model", 8.0}}, 4); });
    CHECK(missing.param == "type");
    CHECK(missing.value == "undefined");
    CHECK_THAT(missing.allowed, Contains("\"sinusoidal\"") && Contains("\"kerple\""));

    const BadParam wrong_family = bad_param_of([] { position_table(Config{{"type", std::string("alibi")}}, 4); });
    CHECK(wrong_family.param == "type");
    CHECK(wrong_family.value == "\"alibi\"");
    CHECK(wrong_family.allowed == "an absolute encoding (sinusoidal, learned, none)");
}

}  // namespace posenc_test_config
