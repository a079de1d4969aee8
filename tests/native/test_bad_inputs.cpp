// A table-driven catalogue of bad inputs to the public C++ entry points: each
// row a call, the exception type it must throw, the parameter it must name
// (BadParam::param) and texts the message must hold for the value and the
// allowed range. Then the unusual but valid texts, which must be accepted.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>

#include "posenc/alibi.hpp"
#include "posenc/attention.hpp"
#include "posenc/json.hpp"
#include "posenc/registry.hpp"
#include "posenc/t5.hpp"

// A namespace of its own: the test files also build as one translation unit (CMake's unity build).
namespace posenc_test_bad_inputs {

using namespace posenc;

namespace {

enum class Type { invalid_argument, out_of_range };

struct Case {
    const char* name;
    std::function<void()> call;
    Type type;
    std::string param, value, allowed;  // value and allowed: texts the message holds
};

Config S(const std::string& json) { return parse_json_object(json, "spec"); }

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = HUGE_VAL;

/// The sinusoidal spec with d_model (as a number: NaN, Infinity, 7.5 ... pass through).
Config sinusoidal_width(double d_model) { return Config{{"type", std::string("sinusoidal")}, {"d_model", d_model}}; }
Config sinusoidal_base(double base) { return Config{{"type", std::string("sinusoidal")}, {"base", base}}; }
Config rope_head(double head_dim) { return Config{{"type", std::string("rope")}, {"head_dim", head_dim}}; }

void table(const Config& spec, std::int64_t n = 4, std::int64_t offset = 0) { position_table(spec, n, offset); }

attention::Request text_request(const std::string& text) {
    attention::Request r;
    r.tokens = attention::tokenize(text);
    r.d_model = r.d_head = 8;
    r.encoding = S(R"({"type":"none"})");
    return r;
}

std::string words(std::size_t count) {
    std::string out;
    for (std::size_t i = 0; i < count; ++i) out += "w ";
    return out;
}

const std::string kSinAllowed = "an even integer in [2, 16777216]";
const std::string kBaseAllowed = "a finite number > 1 and <= 1e37";

std::vector<Case> catalogue() {
    const Type I = Type::invalid_argument;
    std::vector<Case> c = {
        // Non-finite, negative, zero, fractional and huge values of an integer key.
        {"d_model NaN", [] { table(sinusoidal_width(kNaN)); }, I, "d_model", "d_model = NaN", kSinAllowed},
        {"d_model Infinity", [] { table(sinusoidal_width(kInf)); }, I, "d_model", "d_model = Infinity", kSinAllowed},
        {"d_model -Infinity", [] { table(sinusoidal_width(-kInf)); }, I, "d_model", "d_model = -Infinity", kSinAllowed},
        {"d_model negative", [] { table(sinusoidal_width(-2)); }, I, "d_model", "d_model = -2", kSinAllowed},
        {"d_model zero", [] { table(sinusoidal_width(0)); }, I, "d_model", "d_model = 0", kSinAllowed},
        {"d_model fractional", [] { table(sinusoidal_width(7.5)); }, I, "d_model", "d_model = 7.5", kSinAllowed},
        {"d_model odd", [] { table(sinusoidal_width(7)); }, I, "d_model", "d_model = 7", kSinAllowed},
        {"d_model 1e308", [] { table(sinusoidal_width(1e308)); }, I, "d_model", "d_model = 1e+308", kSinAllowed},
        {"d_model 2^53", [] { table(sinusoidal_width(9007199254740992.0)); }, I, "d_model", "d_model = 9007199254740992", kSinAllowed},
        {"d_model 2^31", [] { table(sinusoidal_width(2147483648.0)); }, I, "d_model", "d_model = 2147483648", kSinAllowed},
        {"d_model a string", [] { table(Config{{"type", std::string("sinusoidal")}, {"d_model", std::string("64")}}); }, I,
         "d_model", "\"64\"", kSinAllowed},
        // A number key.
        {"base NaN", [] { table(sinusoidal_base(kNaN)); }, I, "base", "base = NaN", kBaseAllowed},
        {"base Infinity", [] { table(sinusoidal_base(kInf)); }, I, "base", "base = Infinity", kBaseAllowed},
        {"base 1", [] { table(sinusoidal_base(1)); }, I, "base", "base = 1 ", kBaseAllowed},
        {"base negative", [] { table(sinusoidal_base(-10)); }, I, "base", "base = -10", kBaseAllowed},
        {"base 1e308", [] { table(sinusoidal_base(1e308)); }, I, "base", "base = 1e+308", kBaseAllowed},
        {"rope_theta 0", [] { table(S(R"({"type":"sinusoidal"})")); rotary_frequencies(S(R"({"type":"rope","rope_theta":0})"), 4); },
         I, "rope_theta", "rope_theta = 0", "> 1"},
        {"head_dim 2^31", [] { rotary_frequencies(rope_head(2147483648.0), 4); }, I, "head_dim", "head_dim = 2147483648",
         "an even integer in [2, 65536]"},
        {"kerple r1 1e308", [] { attention_bias(S(R"({"type":"kerple","r1":1e308})"), 4); }, I, "r1", "r1 = 1e+308",
         "<= 1e6"},
        {"fire list of the wrong length", [] { attention_bias(S(R"({"type":"fire","mlp_width":4,"linear1_bias":[1,2,3]})"), 4); },
         I, "linear1_bias", "linear1_bias = a list of 3 numbers", "a list of mlp_width = 4 numbers"},
        // The explicit-parameter lists: a wrong length names the key and the count.
        {"learned weight of the wrong length",
         [] { table(S(R"({"type":"learned","d_model":2,"max_position_embeddings":2,"weight":[1,2,3]})"), 1); }, I, "weight",
         "weight = a list of 3 numbers", "max_position_embeddings x d_model = 2 x 2 = 4 numbers"},
        {"learned weight item 1e5",
         [] { table(S(R"({"type":"learned","d_model":1,"max_position_embeddings":2,"weight":[1,1e5]})"), 1); }, I, "weight",
         "weight[1] = 100000", "a number in [-1e4, 1e4]"},
        {"t5 relative_attention_bias of the wrong length",
         [] { attention_bias(S(R"({"type":"t5","n_heads":2,"num_buckets":4,"max_distance":8,"relative_attention_bias":[1,2]})"), 4); },
         I, "relative_attention_bias", "relative_attention_bias = a list of 2 numbers",
         "num_buckets x n_heads = 4 x 2 = 8 numbers"},
        {"shaw relative_key of the wrong length",
         [] { attention_bias(S(R"({"type":"shaw","head_dim":2,"max_relative_position":2,"relative_key":[1,2,3]})"), 4); }, I,
         "relative_key", "relative_key = a list of 3 numbers", "(2 max_relative_position + 1) x head_dim = 5 x 2 = 10 numbers"},
        {"transformer_xl r_w_bias of the wrong length",
         [] { attention_bias(S(R"({"type":"transformer_xl","d_head":2,"r_w_bias":[1]})"), 4); }, I, "r_w_bias",
         "r_w_bias = a list of 1 numbers", "d_head = 2 numbers"},
        {"transformer_xl r_r_bias not a list", [] { attention_bias(S(R"({"type":"transformer_xl","r_r_bias":1})"), 4); }, I,
         "r_r_bias", "r_r_bias = 1", "expected a list of numbers in [-1e4, 1e4], d_head of them"},
        {"learned std Infinity", [] { table(Config{{"type", std::string("learned")}, {"std", kInf}}); }, I, "std",
         "std = Infinity", "[0, 1e6]"},
        // Function arguments.
        {"positionTable n 0", [] { table(S(R"({"type":"sinusoidal"})"), 0); }, I, "n", "n = 0", "[1, 16777216]"},
        {"positionTable n negative", [] { table(S(R"({"type":"sinusoidal"})"), -1); }, I, "n", "n = -1", "[1, 16777216]"},
        {"positionTable n 2^53", [] { table(S(R"({"type":"sinusoidal"})"), std::int64_t(1) << 53); }, I, "n",
         "n = 9007199254740992", "[1, 16777216]"},
        {"positionTable offset negative", [] { table(S(R"({"type":"sinusoidal"})"), 4, -1); }, I, "offset", "offset = -1",
         "[0, 2^40]"},
        {"positionTable offset 2^53", [] { table(S(R"({"type":"sinusoidal"})"), 4, std::int64_t(1) << 53); }, I, "offset",
         "offset = 9007199254740992", "[0, 2^40]"},
        {"learned offset past the table", [] { table(S(R"({"type":"learned","max_position_embeddings":8})"), 4, 6); }, I,
         "n", "n = 4", "max_position_embeddings - 1 = 7"},
        {"learned offset + n overflows int64",
         [] { table(S(R"({"type":"learned","max_position_embeddings":8})"), 4, std::numeric_limits<std::int64_t>::max()); },
         I, "n", "n = 4", "max_position_embeddings - 1 = 7"},
        // Sizes whose product overflows 32 bits or exceeds the memory cap.
        {"n * d_model = 2^32", [] { table(sinusoidal_width(65536), 65536); }, I, "n", "n = 65536", "n * d_model <= 16777216"},
        {"applyRope n * d = 2^32",
         [] {
             std::vector<float> x(4);
             apply_rotary(rope_head(65536), Floats{x.data(), x.size()}, 65536, 65536, 0, x.data());
         },
         I, "n", "n = 65536", "n * d <= 16777216"},
        {"learned table over 2^24 elements",
         [] { table(S(R"({"type":"learned","d_model":16777216,"max_position_embeddings":2})")); }, I,
         "max_position_embeddings", "max_position_embeddings = 2", "max_position_embeddings * d_model <= 16777216"},
        {"decay over the work cap", [] { decay(sinusoidal_width(16777216), 1000000, 0); }, I, "maxDistance",
         "1000001 distances x 8388608 pairs", "the limit of 3e8 operations"},
        {"shaw bias over the work cap",
         [] { attention_bias(S(R"({"type":"shaw","head_dim":4096,"max_relative_position":4096})"), 4096); }, I, "n",
         "4096 queries x 8191 relative positions x 4096 dimensions", "3e8 operations"},
        {"similarity over the work cap", [] { position_similarity(sinusoidal_width(4096), 4096, "cosine"); }, I, "n",
         "x 4096 dimensions", "3e8 operations"},
        {"attention over the work cap",
         [] {
             attention::Request r = text_request(words(2048));
             r.d_model = r.d_head = 4096;
             attention::run(r);
         },
         I, "tokens", "2048 queries x 2048 keys x 256 SIMD steps per dot", "3e8 operations"},
        {"decay maxDistance negative", [] { decay(S(R"({"type":"alibi"})"), -1, 0); }, I, "maxDistance", "maxDistance = -1",
         "[0, 1000000]"},
        {"decay maxDistance 1000001", [] { decay(S(R"({"type":"alibi"})"), 1000001, 0); }, I, "maxDistance",
         "maxDistance = 1000001", "[0, 1000000]"},
        {"decay seed negative", [] { decay(S(R"({"type":"alibi"})"), 4, -1); }, I, "seed", "seed = -1", "[0, 9007199254740992]"},
        {"decay seed 2^53 + 1", [] { decay(S(R"({"type":"alibi"})"), 4, (std::int64_t(1) << 53) + 1); }, I, "seed",
         "seed = 9007199254740993", "[0, 9007199254740992]"},
        {"decay of learned", [] { decay(S(R"({"type":"learned"})"), 4, 0); }, I, "type", "\"learned\"", "a family with a decay curve"},
        {"decay_distance negative", [] { decay_distance(-1); }, I, "maxDistance", "maxDistance = -1", "[0, 1000000]"},
        {"ropeInvFreq seqLen 0", [] { rotary_frequencies(S(R"({"type":"rope"})"), 0); }, I, "seqLen", "seqLen = 0",
         "[1, 1099511627776]"},
        {"ropeInvFreq seqLen 2^40 + 1", [] { rotary_frequencies(S(R"({"type":"rope"})"), (std::int64_t(1) << 40) + 1); }, I,
         "seqLen", "seqLen = 1099511627777", "[1, 1099511627776]"},
        {"ropeInvFreq of alibi", [] { rotary_frequencies(S(R"({"type":"alibi"})"), 4); }, I, "type", "\"alibi\"", "rope, xpos"},
        {"applyRope x of the wrong length",
         [] {
             std::vector<float> x(7);
             apply_rotary(rope_head(4), Floats{x.data(), x.size()}, 2, 4, 0, x.data());
         },
         I, "x", "an array of length 7", "n * d = 8 numbers"},
        {"applyRope d is not head_dim",
         [] {
             std::vector<float> x(8);
             apply_rotary(rope_head(8), Floats{x.data(), x.size()}, 2, 4, 0, x.data());
         },
         I, "x", "[2, 4]", "head_dim = 8"},
        {"applyRope offset negative",
         [] {
             std::vector<float> x(8);
             apply_rotary(rope_head(4), Floats{x.data(), x.size()}, 2, 4, -1, x.data());
         },
         I, "positionOffset", "positionOffset = -1", "[0, 1099511627776]"},
        {"xpos past its float32 range",
         [] {
             std::vector<float> x(8);
             apply_rotary(S(R"({"type":"xpos","head_dim":4})"), Floats{x.data(), x.size()}, 2, 4, 40000, x.data());
         },
         I, "positionOffset", "positionOffset = 40000", "overflows float32"},
        {"attention with xpos past its float32 range",
         [] {
             attention::Request r = text_request("a b c");
             r.encoding = S(R"({"type":"xpos"})");
             r.position_offset = 40000;
             attention::run(r);
         },
         I, "position_offset", "position_offset = 40000", "up to 32695 for xpos with scale_base = 512"},
        {"attentionBias n 0", [] { attention_bias(S(R"({"type":"alibi"})"), 0); }, I, "n", "n = 0", "[1, 4096]"},
        {"attentionBias n 4097", [] { attention_bias(S(R"({"type":"alibi"})"), 4097); }, I, "n", "n = 4097", "[1, 4096]"},
        {"attentionBias of rope", [] { attention_bias(S(R"({"type":"rope"})"), 4); }, I, "type", "\"rope\"", "a bias family"},
        {"similarity metric", [] { position_similarity(S(R"({"type":"sinusoidal"})"), 4, "euclid"); }, I, "metric",
         "\"euclid\"", "\"dot\", \"cosine\""},
        {"similarity n 2^31", [] { position_similarity(S(R"({"type":"sinusoidal"})"), std::int64_t(1) << 31, "dot"); }, I, "n",
         "n = 2147483648", "[1, 4096]"},
        {"head_bias n 8193",
         [] {
             std::vector<float> q(8);
             head_bias(S(R"({"type":"alibi"})"), HeadInputs{q.data(), q.data(), nullptr, nullptr, 8193, 1, 1});
         },
         I, "n", "n = 8193", "[1, 8192]"},
        {"head_bias width disagrees",
         [] {
             std::vector<float> q(8);
             head_bias(S(R"({"type":"shaw","head_dim":4})"), HeadInputs{q.data(), q.data(), nullptr, nullptr, 2, 8, 8});
         },
         I, "encoding.head_dim", "encoding.head_dim = 4", "d_head = 8"},
        {"alibi slopes 0", [] { alibi::slopes(0); }, I, "nHeads", "nHeads = 0", "[1, 4096]"},
        {"alibi slopes 2^31", [] { alibi::slopes(std::int64_t(1) << 31); }, I, "nHeads", "nHeads = 2147483648", "[1, 4096]"},
        {"t5 relative position fractional",
         [] {
             const double r[] = {0.5};
             t5::buckets(r, 1, true, 32, 128);
         },
         I, "relativePositions", "relativePositions[0] = 0.5", "an integer in"},
        {"t5 relative position NaN",
         [] {
             const double r[] = {1, kNaN};
             t5::buckets(r, 2, true, 32, 128);
         },
         I, "relativePositions", "relativePositions[1] = NaN", "an integer in"},
        {"t5 two bidirectional buckets (0 / 0 before)",
         [] {
             const double r[] = {0};
             t5::buckets(r, 1, true, 2, 1);
         },
         I, "numBuckets", "numBuckets = 2", "an even integer in [4, "},
        {"t5 odd bidirectional buckets",
         [] {
             const double r[] = {0};
             t5::buckets(r, 1, true, 33, 128);
         },
         I, "numBuckets", "numBuckets = 33", "even"},
        // Missing and unknown keys.
        {"no type", [] { table(S(R"({"d_model":8})")); }, I, "type", "missing required key \"type\"", "\"sinusoidal\", \"learned\""},
        {"unknown type", [] { table(S(R"({"type":"sinusiodal"})")); }, I, "type", "\"sinusiodal\"", "\"sinusoidal\""},
        {"type not a string", [] { table(Config{{"type", 3.0}}); }, I, "type", "3", "\"sinusoidal\""},
        {"unknown key", [] { table(S(R"({"type":"sinusoidal","dmodel":8})")); }, I, "dmodel",
         "unknown key \"dmodel\"", "accepted keys: type, d_model, base, layout, timescales"},
        {"unknown key with a deep value", [] { table(S(R"({"type":"sinusoidal","x":{"a":{"b":{"c":[1,2]}}}})")); }, I, "x",
         "unknown key \"x\"", "accepted keys: type, d_model"},
        {"unknown choice", [] { table(S(R"({"type":"sinusoidal","layout":"zigzag"})")); }, I, "layout", "\"zigzag\"",
         "\"interleaved\", \"concat\""},
        {"rope_scaling without rope_type", [] { rotary_frequencies(S(R"({"type":"rope","rope_scaling":{"factor":2}})"), 4); },
         I, "rope_type", "missing required key \"rope_type\"", "linear"},
        {"yarn without factor",
         [] { rotary_frequencies(S(R"({"type":"rope","rope_scaling":{"rope_type":"yarn"}})"), 4); }, I, "factor", "missing required key \"factor\"",
         "accepted keys: rope_type, type, factor"},
        {"unknown key in rope_scaling",
         [] { rotary_frequencies(S(R"({"type":"rope","rope_scaling":{"rope_type":"linear","factor":2,"beta":1}})"), 4); }, I,
         "beta", "unknown key \"beta\"", "rope_type, type, factor"},
        // Inconsistent configs.
        {"longrope list of the wrong length",
         [] {
             rotary_frequencies(
                 S(R"({"type":"rope","head_dim":8,"rope_scaling":{"rope_type":"longrope","short_factor":[1,1,1],"long_factor":[1,1,1,1]}})"),
                 4);
         },
         I, "short_factor", "a list of 3 numbers", "rotary_dim"},
        {"alibi head >= n_heads", [] { attention_bias(S(R"({"type":"alibi","n_heads":4,"head":4})"), 4); }, I, "head",
         "head = 4", "[0, 3]"},
        {"alibiBias head >= nHeads", [] { alibi::bias(4, 8, 8, false); }, I, "head", "head = 8", "[0, 7]"},
        {"t5 max_distance < num_buckets / 2",
         [] { attention_bias(S(R"({"type":"t5","num_buckets":32,"max_distance":8})"), 4); }, I, "max_distance",
         "max_distance = 8", "num_buckets / 2 = 16"},
        {"rotary_dim > head_dim", [] { rotary_frequencies(S(R"({"type":"rope","head_dim":8,"rotary_dim":16})"), 4); }, I,
         "rotary_dim", "rotary_dim = 16", "[2, 8]"},
        {"ntk with rotary_dim 2",
         [] { rotary_frequencies(S(R"({"type":"rope","head_dim":2,"rope_scaling":{"rope_type":"ntk","factor":2}})"), 16); },
         I, "rotary_dim", "rotary_dim = 2", "an even integer >= 4 with rope_type \"ntk\""},
        {"dynamic with rotary_dim 2",
         [] { rotary_frequencies(S(R"({"type":"rope","head_dim":2,"rope_scaling":{"rope_type":"dynamic","factor":2}})"), 16); },
         I, "rotary_dim", "rotary_dim = 2", "an even integer >= 4 with rope_type \"dynamic\""},
        {"longrope L = 1",
         [] {
             rotary_frequencies(
                 S(R"({"type":"rope","head_dim":4,"rope_scaling":{"rope_type":"longrope","short_factor":[1,1],"long_factor":[1,1],"factor":2,"original_max_position_embeddings":1}})"),
                 4);
         },
         I, "original_max_position_embeddings", "original_max_position_embeddings = 1", "ln L = 0"},
        {"linear factor 1e308 (every frequency 0)",
         [] { rotary_frequencies(S(R"({"type":"rope","rope_scaling":{"rope_type":"linear","factor":1e308}})"), 4); }, I,
         "rope_scaling", "inv_freq[0] = 1e-308", "expected a finite number > 0"},
        {"llama3 low_freq_factor > high_freq_factor",
         [] {
             rotary_frequencies(
                 S(R"({"type":"rope","rope_scaling":{"rope_type":"llama3","factor":8,"low_freq_factor":5,"high_freq_factor":4,"original_max_position_embeddings":8192}})"),
                 4);
         },
         I, "low_freq_factor", "low_freq_factor = 5", "<= high_freq_factor = 4"},
        {"forward with an absolute encoding",
         [] { attention::parse_forward(S(R"({"n":2,"d_model":4,"d_head":4,"encoding":{"type":"sinusoidal"}})")); }, I,
         "encoding.type", "\"sinusoidal\"", "positionTable"},
        {"forward n 8193", [] { attention::parse_forward(S(R"({"n":8193,"d_model":4,"d_head":4})")); }, I, "n", "n = 8193",
         "[1, 8192]"},
        {"identity projections with d_head != d_model",
         [] {
             attention::Request r = text_request("a b");
             r.d_head = 4;
             r.projections = attention::Projections::identity;
             attention::run(r);
         },
         I, "d_head", "d_head = 4", "d_model = 8 with identity projections"},
        // Inputs near float32's largest (3.4e38): refused before they overflow.
        {"applyRope x of 3e38",
         [] { apply_rotary(S(R"({"type":"rope","head_dim":4})"), xt::xtensor<float, 2>{{3e38f, 3e38f, 1, 1}}, 0); }, I,
         "x", "numbers up to 3e+38 in magnitude", "|x| <= 2.40416"},
        {"applyRope yarn x of 2.3e38 (attention_factor 1.0693)",
         [] {
             apply_rotary(S(R"({"type":"rope","head_dim":4,"rope_scaling":{"rope_type":"yarn","factor":2,"original_max_position_embeddings":8}})"),
                          xt::xtensor<float, 2>{{2.3e38f, 1, 1, 1}}, 0);
         },
         I, "x", "numbers up to 2.3e+38", "attention_factor = 1.069314"},
        {"applyRope xpos key at position 1e6",
         [] { apply_rotary(S(R"({"type":"xpos","head_dim":4,"role":"key","scale_base":1e5})"), xt::xtensor<float, 2>{{1e34f, 1, 1, 1}}, 1000000); },
         I, "x", "numbers up to 1e+34", "the largest xPos scale zeta^(+-position / scale_base) here = 275854.75"},
        {"attention x whose values overflow",
         [] {
             attention::Request r;
             r.d_model = r.d_head = 4;
             r.projections = attention::Projections::identity;
             r.encoding = S(R"({"type":"none"})");
             r.x = xt::xtensor<float, 2>{{3e38f, 3e38f, 3e38f, 3e38f}, {1, 2, 3, 4}};
             r.tokens.assign(2, "");
             attention::run(r);
         },
         I, "x", "numbers up to 3e+38", "logits stay within +-1e38"},
        {"attentionForward projections past float32",
         [] {
             const std::vector<float> x = {3e38f, 3e38f}, w = {1, 1};
             std::vector<float> out(1);
             attention::forward(attention::parse_forward(S(R"({"n":1,"d_model":2,"d_head":1})")), Floats{x.data(), 2},
                                Floats{w.data(), 2}, Floats{w.data(), 2}, Floats{w.data(), 2}, out.data());
         },
         I, "x", "numbers up to 3e+38 in magnitude (wq, wk, wv up to 1, 1, 1)", "the queries x W overflow"},
        {"attentionForward logits past 1e38",
         [] {
             const std::vector<float> x = {1e20f, 1e20f, 1e20f, 1e20f}, w = {1, 0, 0, 1};
             std::vector<float> out(4);
             attention::forward(attention::parse_forward(S(R"({"n":2,"d_model":2,"d_head":2})")), Floats{x.data(), 4},
                                Floats{w.data(), 4}, Floats{w.data(), 4}, Floats{w.data(), 4}, out.data());
         },
         I, "x", "numbers up to 1e+20 in magnitude (wq, wk, wv up to 1, 1, 1)", "= 2e+40"},
        // Texts.
        {"text empty", [] { attention::tokenize(""); }, I, "text", "\"\"", "at least one token"},
        {"text of spaces and newlines", [] { attention::tokenize(" \n\t "); }, I, "text", "text = ", "at least one token"},
        {"text of 100 KB", [] { attention::tokenize(words(51200)); }, I, "text", "a text of 51200 tokens", "at most 2048 tokens"},
        {"text one token over the limit", [] { attention::tokenize(words(2049)); }, I, "text", "a text of 2049 tokens",
         "at most 2048 tokens"},
        {"embedTokens dModel 0", [] { attention::embed_tokens("a b", 0, 0); }, I, "dModel", "dModel = 0", "[1, 4096]"},
        {"embedTokens seed negative", [] { attention::embed_tokens("a b", 8, -1); }, I, "seed", "seed = -1",
         "[0, 9007199254740992]"},
        // The JSON reader.
        {"JSON NaN for d_model", [] { table(S(R"({"type":"sinusoidal","d_model":NaN})")); }, I, "d_model", "d_model = NaN",
         kSinAllowed},
        {"JSON not an object", [] { S("[1]"); }, I, "spec", "spec must be an object", "an object such as"},
        {"JSON invalid", [] { S(R"({"type" "rope"})"); }, I, "spec", "invalid JSON at character", "expected ':'"},
        {"JSON nested too deeply", [] { S(R"({"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":{}}}}}}}}}})"); }, I, "i",
         "nested too deeply", "at most 8 deep"},
        {"JSON over 4 MiB", [] { S("{\"type\":\"" + std::string(std::size_t(1) << 22, 'a') + "\"}"); }, I, "spec",
         "a JSON text of 4194315 bytes", "at most 4194304 bytes"},
        {"JSON mixed array", [] { S(R"({"tokens":["a",1]})"); }, I, "tokens", "must be a string like the first item", "number"},
    };
    return c;
}

}  // namespace

TEST_CASE("bad inputs: each is refused with its exception type, the parameter, the value and the allowed range",
          "[bad_inputs]") {
    const std::vector<Case> cases = catalogue();
    for (const Case& c : cases) {
        INFO(c.name);
        bool thrown = false;
        try {
            c.call();
        } catch (const BadParam& e) {
            thrown = true;
            CHECK(c.type == Type::invalid_argument);
            CHECK(e.param == c.param);
            INFO(e.what());
            CHECK(std::string(e.what()).find(c.value) != std::string::npos);
            CHECK(std::string(e.what()).find(c.allowed) != std::string::npos);
        } catch (const std::out_of_range& e) {
            thrown = true;
            CHECK(c.type == Type::out_of_range);
            INFO(e.what());
            CHECK(std::string(e.what()).find(c.value) != std::string::npos);
        } catch (const std::exception& e) {
            thrown = true;
            FAIL_CHECK("not a BadParam or std::out_of_range: " << typeid(e).name() << ": " << e.what());
        }
        CHECK(thrown);
    }
    CHECK(cases.size() >= 90);
}

TEST_CASE("bad inputs: unusual but valid texts are accepted, one token per mark", "[bad_inputs]") {
    const std::vector<std::pair<std::string, std::size_t>> texts = {
        {"\xF0\x9F\x98\x80 \xF0\x9F\x98\x80", 2},                  // emoji
        {"\xD7\xA9\xD7\x9C\xD7\x95\xD7\x9D \xD7\xA2\xD7\x95\xD7\x9C\xD7\x9D", 2},  // Hebrew (RTL)
        {"\xE2\x80\x8F" "abc", 1},                                  // RLM glued to a word
        {"a\x01" "b", 3},                                           // a control character
        {std::string("a\0b", 3), 3},                                // NUL
        {words(2048), 2048},                                        // at the limit
    };
    for (const auto& [text, count] : texts) {
        INFO(text.size());
        const auto tokens = attention::tokenize(text);
        CHECK(tokens.size() == count);
        const attention::Result r = attention::run(text_request(text));
        bool finite = true;
        for (float w : r.weights) finite = finite && std::isfinite(w);
        CHECK(finite);
    }
}

}  // namespace posenc_test_bad_inputs
