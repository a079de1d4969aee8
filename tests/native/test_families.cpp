// The families' descriptors (posenc/family.hpp) and the registry's list of
// them: each type once, where it acts, its width key, and its key table agreeing
// with what its parse does (the defaults it fills in, the ranges it enforces).
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "family_facts.hpp"
#include "posenc/describe.hpp"
#include "posenc/registry.hpp"

// A namespace of its own: the test files also build as one translation unit (CMake's unity build).
namespace posenc_test_families {

using namespace posenc;
using Catch::Matchers::Contains;

namespace {

Config spec_of(const std::string& type) { return Config{{"type", type}}; }


/// The types of the families that act at `acts`, as messages list them: "alibi, t5, ..." (from families()).
std::string acting(Acts acts) {
    std::string out;
    for (const Family* f : families())
        if (f->acts == acts) out += (out.empty() ? "" : ", ") + f->type;
    return out;
}

/// Runs the first computation the family has on `spec`, so that its parse reads it.
void parse_through_registry(const Family& f, const Config& spec) {
    if (f.table) position_table(spec, 1);
    else if (f.rotary) rotary_frequencies(spec, 1);
    else if (f.polar) decay(spec, 1, 0);
    else attention_bias(spec, 1);
}

/// The param of the BadParam `call` throws, or "(none)".
std::string rejected_param(const std::function<void()>& call) {
    try {
        call();
    } catch (const BadParam& e) {
        return e.param;
    }
    return "(none)";
}

}  // namespace

TEST_CASE("the registry lists every family once, in the page's order", "[families]") {
    std::vector<std::string> types;
    for (const Family* f : families()) types.push_back(f->type);
    // family_list.hpp's lines, each once: their count, and no type twice.
    std::size_t listed = 0;
#define POSENC_FAMILY(name) ++listed;
#include "posenc/family_list.hpp"
#undef POSENC_FAMILY
    CHECK(types.size() == listed);
    CHECK(std::set<std::string>(types.begin(), types.end()).size() == types.size());
    CHECK(types.front() == "sinusoidal");  // the page opens on the first
    CHECK(known_types() == types);
    for (const Family* f : families()) {
        CHECK(&family_of(spec_of(f->type)) == f);
        CHECK_FALSE(f->label.empty());
        CHECK_FALSE(f->source.empty());
        std::set<std::string_view> names;
        for (const Key& k : f->keys) CHECK(names.insert(k.name).second);  // each key once
        CHECK(names.count("type") == 0);
    }
}

TEST_CASE("each family says where it acts and which key holds its width", "[families]") {
    for (const Family* f : families()) {
        INFO(f->type);
        // Each family's own test file says where it acts and which key holds its width (family_facts.hpp).
        REQUIRE(posenc_test::family_facts().count(f->type) == 1);
        CHECK(f->acts == posenc_test::family_facts().at(f->type).acts);
        CHECK(f->width_key == posenc_test::family_facts().at(f->type).width_key);
        if (!f->width_key.empty()) CHECK(f->key(f->width_key) != nullptr);
        // Where it acts decides what it computes.
        CHECK(bool(f->table) == (f->acts == Acts::absolute || f->acts == Acts::none));
        CHECK(bool(f->rotary) == (f->acts == Acts::rotary));
        CHECK(bool(f->rotate) == (f->acts == Acts::rotary));
        CHECK(bool(f->bias) == (f->acts == Acts::bias));
        CHECK(bool(f->head_bias) == (f->acts == Acts::bias));
    }
    CHECK(types_acting(Acts::rotary) == acting(Acts::rotary));
    CHECK(types_acting(Acts::bias) == acting(Acts::bias));
    CHECK(acting(Acts::rotary).find("rope") == 0);
    CHECK(std::string(acts_name(Acts::absolute)) == "absolute");
}

TEST_CASE("the error texts list the families from the registry", "[families]") {
    CHECK_THROWS_WITH(attention_bias(spec_of("rope"), 4),
                      "attentionBias: type \"rope\" is not a bias family (" + acting(Acts::bias) + ")");
    CHECK_THROWS_WITH(rotary_frequencies(spec_of("alibi"), 4), "ropeInvFreq: type \"alibi\" is not a rotary encoding (" + acting(Acts::rotary) + ")");
    CHECK_THROWS_WITH(position_table(spec_of("t5"), 4), Contains("is not an absolute encoding (sinusoidal, learned, none)"));
}

TEST_CASE("a family's key defaults are what its parse fills in", "[families]") {
    for (const Family* f : families()) {
        REQUIRE(posenc_test::family_facts().count(f->type) == 1);
        const auto parsed = posenc_test::family_facts().at(f->type).parsed(spec_of(f->type));
        for (const Key& k : f->keys) {
            INFO(f->type << "." << k.name);
            if (k.fallback.is_null()) {
                CHECK(parsed.count(std::string(k.name)) == 0);  // no default: required, or derived from other keys
                continue;
            }
            REQUIRE(parsed.count(std::string(k.name)) == 1);
            CHECK(parsed.at(std::string(k.name)) == k.fallback);
        }
    }
}

TEST_CASE("a key's static range is what its parse enforces: below min and above max are refused", "[families]") {
    for (const Family* f : families()) {
        for (const Key& k : f->keys) {
            if (k.kind != Key::Kind::integer && k.kind != Key::Kind::number) continue;
            INFO(f->type << "." << k.name);
            const auto with = [&](double x) {
                Config c = spec_of(f->type);
                c[std::string(k.name)] = x;
                return c;
            };
            const double below = k.exclusive_min ? k.min : k.min - 1;
            if (std::isfinite(k.min)) CHECK(rejected_param([&] { parse_through_registry(*f, with(below)); }) == k.name);
            const double above = k.max + 1 > k.max ? k.max + 1 : std::nextafter(k.max, HUGE_VAL);  // past 2^53, max + 1 is max
            if (std::isfinite(k.max)) CHECK(rejected_param([&] { parse_through_registry(*f, with(above)); }) == k.name);
            if (k.kind == Key::Kind::integer && std::isfinite(k.min))
                CHECK(rejected_param([&] { parse_through_registry(*f, with(k.min + 0.5)); }) == k.name);
        }
    }
}

TEST_CASE("a choice key refuses what is not one of its choices, naming them", "[families]") {
    for (const Family* f : families())
        for (const Key& k : f->keys) {
            if (k.kind != Key::Kind::choice) continue;
            INFO(f->type << "." << k.name);
            Config c = spec_of(f->type);
            c[std::string(k.name)] = std::string("diagonal");
            try {
                parse_through_registry(*f, c);
                FAIL("accepted");
            } catch (const BadParam& e) {
                CHECK(e.param == k.name);
                CHECK(e.allowed == k.allowed);
                for (const auto& choice : k.choices) CHECK_THAT(e.allowed, Contains('"' + std::string(choice) + '"'));
            }
        }
}

TEST_CASE("describe() is the registry's list as JSON: each family once, its keys, rope's types, the limits", "[families][describe]") {
    const std::string json = describe();
    const auto count = [&](const std::string& needle) {
        std::size_t n = 0;
        for (std::size_t at = json.find(needle); at != std::string::npos; at = json.find(needle, at + 1)) ++n;
        return n;
    };
    for (const Family* f : families()) CHECK(count("{\"type\":\"" + f->type + "\",\"acts\":\"" + acts_name(f->acts) + "\"") == 1);
    CHECK(count("\"type\":") == families().size());
    CHECK_THAT(json, Contains("{\"name\":\"d_model\",\"kind\":\"integer\",\"default\":512,\"min\":2,\"max\":16777216,"
                              "\"allowed\":\"an even integer in [2, 16777216]\"}"));
    CHECK_THAT(json, Contains("{\"name\":\"base\",\"kind\":\"number\",\"default\":10000,\"exclusive_min\":1,"));
    CHECK_THAT(json, Contains("{\"name\":\"rotary_dim\",\"kind\":\"integer\",\"default\":null,"));
    CHECK_THAT(json, Contains("\"choices\":[\"log\",\"power\"]"));
    CHECK_THAT(json, Contains("\"computes\":[\"decay\",\"attentionBias\",\"attention\",\"attentionForward\"]"));  // alibi
    CHECK_THAT(json, Contains("{\"name\":\"llama3\",\"required\":[\"factor\",\"original_max_position_embeddings\","
                              "\"low_freq_factor\",\"high_freq_factor\"],\"optional\":[],\"unread\":[],\"keys\":[{\"name\":\"factor\","
                              "\"kind\":\"number\",\"default\":null,\"min\":1,\"allowed\":\"a finite number >= 1\"}"));
    CHECK_THAT(json, Contains("{\"name\":\"dynamic\",\"required\":[\"factor\"],\"optional\":[\"original_max_position_embeddings\"],"
                              "\"unread\":[\"original_max_position_embeddings\"],"));
    CHECK_THAT(json, Contains("\"max_distance\":1000000") && Contains("\"max_position\":1099511627776") &&
                         Contains("\"max_tokens\":2048"));
    CHECK(json.front() == '{');
    CHECK(json.back() == '}');
}

}  // namespace posenc_test_families
