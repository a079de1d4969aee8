// The JSON reader that turns JSON.stringify(spec) into a Config, and the
// string quoting of the wasm layer's replies: exact values and exact messages.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "posenc/json.hpp"

// A namespace of its own: the test files also build as one translation unit (CMake's unity build).
namespace posenc_test_json {

using namespace posenc;

namespace {

/// The BadParam a parse throws (fails the test when it throws nothing).
BadParam error_of(const std::string& text, const std::string& what = "spec") {
    try {
        parse_json_object(text, what);
    } catch (const BadParam& e) {
        return e;
    }
    FAIL("no BadParam for " << text);
    throw;  // unreachable
}

const Config& nested(const Config& c, const std::string& key) { return c.at(key); }

}  // namespace

TEST_CASE("json: every kind of value becomes the Value a JS object would give", "[json]") {
    const Config c = parse_json_object(
        R"( { "type" : "rope", "head_dim": 128, "on": true, "off": false, "gone": null,
              "rope_scaling": {"rope_type": "llama3", "factor": 8}, "long_factor": [1, 2.5, -3e-2],
              "tokens": ["the", "dog"], "empty": [] } )",
        "spec");
    CHECK(c.size() == 9);
    CHECK((c.at("type")).get<std::string>() == "rope");
    CHECK((c.at("head_dim")).get<double>() == 128.0);
    CHECK((c.at("on")).get<bool>() == true);
    CHECK((c.at("off")).get<bool>() == false);
    CHECK(c.at("gone").is_null());
    CHECK((nested(c, "rope_scaling").at("rope_type")).get<std::string>() == "llama3");
    CHECK((nested(c, "rope_scaling").at("factor")).get<double>() == 8.0);
    CHECK((c.at("long_factor")).get<std::vector<double>>() == std::vector<double>{1, 2.5, -0.03});
    CHECK((c.at("tokens")).get<std::vector<std::string>>() == std::vector<std::string>{"the", "dog"});
    CHECK((c.at("empty")).get<std::vector<double>>().empty());
    CHECK(parse_json_object("{}", "spec").empty());
}

TEST_CASE("json: numbers read exactly as JSON.parse reads them", "[json]") {
    const Config c = parse_json_object(
        R"({"a": 0, "b": -0, "c": 0.1, "d": 1e21, "e": 1.5E-7, "f": 500000, "g": 9007199254740993, "h": 1e400, "i": 5e-324})", "spec");
    CHECK((c.at("a")).get<double>() == 0.0);
    CHECK(std::signbit((c.at("b")).get<double>()));
    CHECK((c.at("c")).get<double>() == 0.1);
    CHECK((c.at("d")).get<double>() == 1e21);
    CHECK((c.at("e")).get<double>() == 1.5e-7);
    CHECK((c.at("f")).get<double>() == 500000.0);
    CHECK((c.at("g")).get<double>() == 9007199254740992.0);  // rounded to the nearest double, as in JS
    CHECK((c.at("h")).get<double>() == INFINITY);
    CHECK((c.at("i")).get<double>() == 5e-324);
}

TEST_CASE("json: NaN, Infinity and -Infinity are read as numbers (the JS layer's extension)", "[json]") {
    const Config c = parse_json_object(R"({"base": NaN, "r": Infinity, "s": -Infinity, "list": [1, NaN]})", "spec");
    CHECK(std::isnan((c.at("base")).get<double>()));
    CHECK((c.at("r")).get<double>() == INFINITY);
    CHECK((c.at("s")).get<double>() == -INFINITY);
    CHECK(std::isnan((c.at("list")).get<std::vector<double>>()[1]));
}

TEST_CASE("json: the words NaN and Infinity, -0 and overflowing numbers are read where a value stands, not in strings", "[json]") {
    const Config c = parse_json_object(
        R"({"s": "NaN, Infinity, -Infinity, -0, 1e400", "NaN": "-0", "z": -0, "y": -0.0e5, "w": -1e-400,)"
        R"( "x": [1e400, -1e400, NaN], "t": ["NaN"], "u": "\ud83d NaN"})",
        "spec");
    CHECK((c.at("s")).get<std::string>() == "NaN, Infinity, -Infinity, -0, 1e400");
    CHECK((c.at("NaN")).get<std::string>() == "-0");
    for (const char* key : {"z", "y", "w"}) {
        CHECK((c.at(key)).get<double>() == 0.0);
        CHECK(std::signbit((c.at(key)).get<double>()));
    }
    const auto& x = (c.at("x")).get<std::vector<double>>();
    CHECK(x[0] == INFINITY);
    CHECK(x[1] == -INFINITY);
    CHECK(std::isnan(x[2]));
    CHECK((c.at("t")).get<std::vector<std::string>>() == std::vector<std::string>{"NaN"});
    CHECK((c.at("u")).get<std::string>() == "\xEF\xBF\xBD NaN");
    // Where a key or a separator stands, the words are refused as any other text.
    CHECK(std::string(error_of(R"({NaN: 1})").what()) == "spec: invalid JSON at character 1: expected a key in double quotes");
    CHECK(std::string(error_of(R"({"a" -Infinity})").what()) == "spec: invalid JSON at character 5: expected ':'");
    CHECK(std::string(error_of(R"({"a": 1 NaN})").what()) == "spec: invalid JSON at character 8: expected ',' or '}'");
    CHECK(std::string(error_of(R"({"a": 1e-Infinity})").what()) == "spec: invalid JSON at character 9: expected a digit in the exponent");
    CHECK(std::string(error_of(R"({"t": ["a", NaN]})").what()) == "spec.t[1] must be a string like the first item, not number");
    CHECK(std::string(error_of(std::string("{\"a\": 1}\0", 9)).what()) == "spec: invalid JSON at character 8: unexpected text after the object");
}

TEST_CASE("json: strings with every escape, \\u escapes and surrogate pairs become UTF-8", "[json]") {
    const Config c = parse_json_object(
        R"({"esc": "q\"b\\s\/b\bf\fn\nr\rt\t", "e": "caf\u00e9", "E": "caf\u00C9", "raw": "café",)"
        R"( "smile": "\ud83d\ude00", "lone": "a\ud83db", "low": "\ude00", "nul": "a\u0000b", "k\u0065y": 1})",
        "spec");
    CHECK((c.at("esc")).get<std::string>() == "q\"b\\s/b\bf\fn\nr\rt\t");
    CHECK((c.at("e")).get<std::string>() == "caf\xC3\xA9");
    CHECK((c.at("E")).get<std::string>() == "caf\xC3\x89");
    CHECK((c.at("raw")).get<std::string>() == "caf\xC3\xA9");
    CHECK((c.at("smile")).get<std::string>() == "\xF0\x9F\x98\x80");
    CHECK((c.at("lone")).get<std::string>() == "a\xEF\xBF\xBD" "b");  // a lone surrogate: U+FFFD, as TextEncoder writes it
    CHECK((c.at("low")).get<std::string>() == "\xEF\xBF\xBD");
    CHECK((c.at("nul")).get<std::string>() == std::string("a\0b", 3));
    CHECK(c.contains("key"));
}

TEST_CASE("json: a string that is not UTF-8 is refused at the byte where its UTF-8 breaks (JSON text is UTF-8)", "[json]") {
    CHECK(std::string(error_of("{\"a\": \"x\x80y\"}").what()) == "spec: invalid JSON at character 8: invalid UTF-8 in a string");
    CHECK(std::string(error_of("{\"caf\xC3\": 1}").what()) == "spec: invalid JSON at character 6: invalid UTF-8 in a string");
}

TEST_CASE("json: a repeated key keeps the last value, as JSON.parse does", "[json]") {
    CHECK((parse_json_object(R"({"a": 1, "a": 2})", "spec").at("a")).get<double>() == 2.0);
}

TEST_CASE("json: text that is not an object is refused as the old JS layer refused it", "[json]") {
    for (const char* text : {"null", "4", "\"sinusoidal\"", "[1, 2]", "true", "", "  "}) {
        const BadParam e = error_of(text);
        CHECK(std::string(e.what()) == "spec must be an object such as {type: 'sinusoidal', d_model: 64}");
        CHECK(e.param == "spec");
    }
    CHECK(std::string(error_of("[]", "request").what()) ==
          "request must be an object such as {type: 'sinusoidal', d_model: 64}");
}

TEST_CASE("json: an array item unlike the first names its path and type", "[json]") {
    BadParam e = error_of(R"({"text": "a", "tokens": ["a", "b", 2]})", "request");
    CHECK(std::string(e.what()) == "request.tokens[2] must be a string like the first item, not number");
    CHECK(e.param == "tokens");
    e = error_of(R"({"rope_scaling": {"long_factor": [1, "a"]}})");
    CHECK(std::string(e.what()) == "spec.rope_scaling.long_factor[1] must be a number like the first item, not string");
    CHECK(e.param == "long_factor");
    CHECK(std::string(error_of(R"({"x": [{"a": 1}]})").what()) == "spec.x[0] must be a number like the first item, not object");
    CHECK(std::string(error_of(R"({"x": [[1]]})").what()) == "spec.x[0] must be a number like the first item, not object");
    CHECK(std::string(error_of(R"({"x": [true]})").what()) == "spec.x[0] must be a number like the first item, not boolean");
    CHECK(std::string(error_of(R"({"x": [1, null]})").what()) == "spec.x[1] must be a number like the first item, not null");
    CHECK(std::string(error_of(R"({"x": ["a", null]})").what()) == "spec.x[1] must be a string like the first item, not null");
}

TEST_CASE("json: objects nested up to 8 deep are read, deeper ones refused", "[json]") {
    auto nest = [](int levels) {
        std::string text = "{\"k\": 1}";
        for (int i = 0; i < levels; ++i) text = "{\"a\": " + text + "}";
        return text;
    };
    const Config eight = parse_json_object(nest(8), "spec");  // spec.a.a.a.a.a.a.a.a is depth 8
    const Config* c = &eight;
    for (int i = 0; i < 8; ++i) c = &nested(*c, "a");
    CHECK((c->at("k")).get<double>() == 1.0);
    const BadParam e = error_of(nest(9));
    CHECK(std::string(e.what()) == "spec.a.a.a.a.a.a.a.a.a is nested too deeply: expected objects nested at most 8 deep");
    CHECK(e.param == "a");
    // Deep text is refused at depth 9 whatever follows (no deep recursion).
    CHECK(std::string(error_of(std::string(100000, '{')).what()) == "spec: invalid JSON at character 1: expected a key in double quotes");
    CHECK(std::string(error_of("{\"a\":" + std::string(100000, '{')).what()) ==
          "spec: invalid JSON at character 6: expected a key in double quotes");
    std::string deep = "{";
    for (int i = 0; i < 20; ++i) deep += "\"a\":{";
    CHECK(std::string(error_of(deep).what()) == "spec.a.a.a.a.a.a.a.a.a is nested too deeply: expected objects nested at most 8 deep");
}

TEST_CASE("json: malformed text names the character and what was expected", "[json]") {
    const std::pair<const char*, const char*> cases[] = {
        {R"({"a": 1,})", "spec: invalid JSON at character 8: expected a key in double quotes"},
        {R"({"a" 1})", "spec: invalid JSON at character 5: expected ':'"},
        {R"({"a": 1} x)", "spec: invalid JSON at character 9: unexpected text after the object"},
        {R"({"a": 1 "b": 2})", "spec: invalid JSON at character 8: expected ',' or '}'"},
        {R"({"a": [1 2]})", "spec: invalid JSON at character 9: expected ',' or ']'"},
        {R"({"a": tru})", "spec: invalid JSON at character 6: expected a value"},
        {R"({"a": nan})", "spec: invalid JSON at character 6: expected a value"},
        {R"({"a": 1.})", "spec: invalid JSON at character 8: expected a digit after '.'"},
        {R"({"a": 1e})", "spec: invalid JSON at character 8: expected a digit in the exponent"},
        {R"({"a": -})", "spec: invalid JSON at character 6: expected a value"},
        {R"({"a": .5})", "spec: invalid JSON at character 6: expected a value"},
        {R"({"a": "x)", "spec: invalid JSON at character 8: unterminated string"},
        {R"({"a": "\x"})", "spec: invalid JSON at character 8: unknown escape in a string"},
        {R"({"a": "\u12G4"})", "spec: invalid JSON at character 11: expected four hex digits after \\u"},
        {"{\"a\": \"\t\"}", "spec: invalid JSON at character 7: control character in a string"},
        {R"({a: 1})", "spec: invalid JSON at character 1: expected a key in double quotes"},
        {R"({"a": 1)", "spec: invalid JSON at character 7: expected ',' or '}'"},
    };
    for (const auto& [text, message] : cases) {
        INFO(text);
        const BadParam e = error_of(text);
        CHECK(std::string(e.what()) == message);
        CHECK(e.param == "spec");
    }
}

TEST_CASE("json_quote writes ASCII JSON that reads back as the same text", "[json]") {
    CHECK(json_quote("") == R"("")");
    CHECK(json_quote("n = 4 is invalid") == R"("n = 4 is invalid")");
    CHECK(json_quote("say \"hi\" \\ now") == R"("say \"hi\" \\ now")");
    CHECK(json_quote("a\nb\tc\rd") == R"("a\nb\tc\rd")");
    CHECK(json_quote("\b\f/") == R"("\b\f/")");
    CHECK(json_quote(std::string("\x01\x1f\0", 3)) == R"("\u0001\u001f\u0000")");
    CHECK(json_quote("caf\xC3\xA9") == R"("caf\u00e9")");
    CHECK(json_quote("\xE2\x82\xAC") == R"("\u20ac")");
    CHECK(json_quote("\xF0\x9F\x98\x80") == R"("\ud83d\ude00")");
    // Invalid UTF-8: each bad byte becomes U+FFFD (a stray continuation, a
    // truncated sequence, an overlong form, an encoded surrogate).
    CHECK(json_quote("a\x80z") == R"("a\ufffdz")");
    CHECK(json_quote("\xC3") == R"("\ufffd")");
    CHECK(json_quote("\xE2\x82") == R"("\ufffd\ufffd")");
    CHECK(json_quote("\xC0\xAF") == R"("\ufffd\ufffd")");
    CHECK(json_quote("\xED\xA0\x80") == R"("\ufffd\ufffd\ufffd")");
    CHECK(json_quote("\xFF") == R"("\ufffd")");
    for (const std::string text : {"plain", "caf\xC3\xA9 \xF0\x9F\x98\x80 \"q\" \\", "tab\there"}) {
        const Config c = parse_json_object("{\"s\": " + json_quote(text) + "}", "spec");
        CHECK((c.at("s")).get<std::string>() == text);
    }
}

}  // namespace posenc_test_json
