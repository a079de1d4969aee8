// The families' descriptors (posenc/family.hpp) and the registry's list of
// them: each type once, where it acts, its width key, and its key table agreeing
// with what its parse does (the defaults it fills in, the ranges it enforces).
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "posenc/alibi.hpp"
#include "posenc/cope.hpp"
#include "posenc/deberta.hpp"
#include "posenc/describe.hpp"
#include "posenc/fire.hpp"
#include "posenc/fox.hpp"
#include "posenc/pope.hpp"
#include "posenc/kerple.hpp"
#include "posenc/learned.hpp"
#include "posenc/nope.hpp"
#include "posenc/registry.hpp"
#include "posenc/rope.hpp"
#include "posenc/shaw.hpp"
#include "posenc/sinusoidal.hpp"
#include "posenc/t5.hpp"
#include "posenc/transformer_xl.hpp"
#include "posenc/xpos.hpp"

// A namespace of its own: the test files also build as one translation unit (CMake's unity build).
namespace posenc_test_families {

using namespace posenc;
using Catch::Matchers::Contains;

namespace {

Config spec_of(const std::string& type) { return Config{{"type", type}}; }

/// The fields of the spec parse gives for {type} alone, by key name.
std::map<std::string, Value> parsed_defaults(const std::string& type) {
    const Config c = spec_of(type);
    if (type == "sinusoidal") {
        const auto s = sinusoidal::parse(c);
        return {{"d_model", double(s.d_model)}, {"base", s.base},
                {"layout", std::string(s.layout == sinusoidal::Layout::concat ? "concat" : "interleaved")},
                {"timescales", std::string(s.timescales == sinusoidal::Timescales::vaswani ? "vaswani" : "tensor2tensor")}};
    }
    if (type == "learned") {
        const auto s = learned::parse(c);
        return {{"d_model", double(s.d_model)}, {"max_position_embeddings", double(s.max_position_embeddings)},
                {"seed", double(s.seed)}, {"std", s.std}};
    }
    if (type == "none") return {{"d_model", double(nope::parse(c).d_model)}};
    if (type == "rope") {
        const auto s = rope::parse(c);
        return {{"head_dim", double(s.head_dim)}, {"rope_theta", s.rope_theta},
                {"partial_rotary_factor", double(s.rotary_dim) / double(s.head_dim)},
                {"layout", std::string(s.layout == rope::Layout::half ? "half" : "interleaved")},
                {"max_position_embeddings", double(s.max_position_embeddings)}};
    }
    if (type == "xpos") {
        const auto s = xpos::parse(c);
        return {{"head_dim", double(s.head_dim)}, {"rope_theta", s.rope_theta}, {"scale_base", s.scale_base},
                {"role", std::string(s.role == xpos::Role::query ? "query" : "key")},
                {"layout", std::string(s.layout == rope::Layout::interleaved ? "interleaved" : "half")}};
    }
    if (type == "alibi") {
        const auto s = alibi::parse(c);
        return {{"n_heads", double(s.n_heads)}, {"head", double(s.head)}, {"causal", s.causal}};
    }
    if (type == "t5") {
        const auto s = t5::parse(c);
        return {{"n_heads", double(s.n_heads)}, {"head", double(s.head)}, {"num_buckets", double(s.num_buckets)},
                {"max_distance", double(s.max_distance)}, {"bidirectional", s.bidirectional},
                {"seed", double(s.seed)}, {"causal", s.causal}};
    }
    if (type == "shaw") {
        const auto s = shaw::parse(c);
        return {{"head_dim", double(s.head_dim)}, {"max_relative_position", double(s.max_relative_position)},
                {"seed", double(s.seed)}, {"causal", s.causal}};
    }
    if (type == "transformer_xl") {
        const auto s = transformer_xl::parse(c);
        return {{"d_head", double(s.d_head)}, {"seed", double(s.seed)}, {"causal", s.causal}};
    }
    if (type == "kerple") {
        const auto s = kerple::parse(c);
        return {{"variant", std::string(s.variant == kerple::Variant::log ? "log" : "power")},
                {"r1", s.r1}, {"r2", s.r2}, {"causal", s.causal}};
    }
    if (type == "deberta") {
        const auto s = deberta::parse(c);
        std::vector<std::string> types;
        if (s.p2c) types.push_back("p2c");
        if (s.c2p) types.push_back("c2p");
        return {{"head_dim", double(s.head_dim)}, {"position_buckets", double(s.position_buckets)},
                {"max_relative_positions", double(s.max_relative_positions)},
                {"max_position_embeddings", double(s.max_position_embeddings)}, {"pos_att_type", types},
                {"relative_attention", s.relative_attention}, {"share_att_key", s.share_att_key},
                {"norm_rel_ebd", std::string(s.layer_norm ? "layer_norm" : "none")}, {"layer_norm_eps", s.layer_norm_eps},
                {"seed", double(s.seed)}, {"causal", s.causal}};
    }
    if (type == "fire") {  // the four weight lists have no default: drawn from seed when absent
        const auto s = fire::parse(c);
        return {{"n_heads", double(s.n_heads)}, {"head", double(s.head)}, {"mlp_width", double(s.mlp_width)},
                {"init_c", s.init_c}, {"init_L", s.init_L}, {"L_multiplier", s.L_multiplier}, {"eps", s.eps},
                {"seed", double(s.seed)}, {"causal", s.causal}};
    }
    if (type == "cope") {
        const auto s = cope::parse(c);
        return {{"head_dim", double(s.head_dim)}, {"npos_max", double(s.npos_max)}, {"seed", double(s.seed)},
                {"causal", s.causal}};
    }
    if (type == "fox") {  // fgate_weight has no default: drawn from seed when absent
        const auto s = fox::parse(c);
        return {{"hidden_size", double(s.hidden_size)}, {"fgate_bias", s.fgate_bias}, {"seed", double(s.seed)},
                {"causal", s.causal}};
    }
    if (type == "pope") {  // phase_bias has no default: zeros when absent
        const auto s = pope::parse(c);
        return {{"head_dim", double(s.head_dim)}, {"theta", s.theta}};
    }
    FAIL("no parse for type " << type);
    return {};
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
    CHECK(types == std::vector<std::string>{"sinusoidal", "learned", "none", "rope", "xpos", "alibi", "t5", "shaw",
                                            "transformer_xl", "kerple", "deberta", "fire", "cope", "fox", "pope"});
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
    const std::map<std::string, std::pair<Acts, std::string>> expected = {
        {"sinusoidal", {Acts::absolute, "d_model"}}, {"learned", {Acts::absolute, "d_model"}},
        {"none", {Acts::none, "d_model"}},           {"rope", {Acts::rotary, "head_dim"}},
        {"xpos", {Acts::rotary, "head_dim"}},        {"alibi", {Acts::bias, ""}},
        {"t5", {Acts::bias, ""}},                    {"shaw", {Acts::bias, "head_dim"}},
        {"transformer_xl", {Acts::bias, "d_head"}},  {"kerple", {Acts::bias, ""}},
        {"deberta", {Acts::bias, "head_dim"}}, {"cope", {Acts::bias, "head_dim"}},
        {"fire", {Acts::bias, ""}}, {"fox", {Acts::bias, ""}}, {"pope", {Acts::polar, "head_dim"}},
    };
    for (const Family* f : families()) {
        INFO(f->type);
        CHECK(f->acts == expected.at(f->type).first);
        CHECK(f->width_key == expected.at(f->type).second);
        if (!f->width_key.empty()) CHECK(f->key(f->width_key) != nullptr);
        // Where it acts decides what it computes.
        CHECK(bool(f->table) == (f->acts == Acts::absolute || f->acts == Acts::none));
        CHECK(bool(f->rotary) == (f->acts == Acts::rotary));
        CHECK(bool(f->rotate) == (f->acts == Acts::rotary));
        CHECK(bool(f->bias) == (f->acts == Acts::bias));
        CHECK(bool(f->head_bias) == (f->acts == Acts::bias));
    }
    CHECK(types_acting(Acts::rotary) == "rope, xpos");
    CHECK(types_acting(Acts::bias) == "alibi, t5, shaw, transformer_xl, kerple, deberta, fire, cope, fox");
    CHECK(std::string(acts_name(Acts::absolute)) == "absolute");
}

TEST_CASE("the error texts list the families from the registry", "[families]") {
    CHECK_THROWS_WITH(attention_bias(spec_of("rope"), 4),
                      "attentionBias: type \"rope\" is not a bias family (alibi, t5, shaw, transformer_xl, kerple, deberta, fire, cope, fox)");
    CHECK_THROWS_WITH(rotary_frequencies(spec_of("alibi"), 4), "ropeInvFreq: type \"alibi\" is not a rotary encoding (rope, xpos)");
    CHECK_THROWS_WITH(position_table(spec_of("t5"), 4), Contains("is not an absolute encoding (sinusoidal, learned, none)"));
}

TEST_CASE("a family's key defaults are what its parse fills in", "[families]") {
    for (const Family* f : families()) {
        const auto parsed = parsed_defaults(f->type);
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
