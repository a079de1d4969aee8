// DeBERTa's relative positions and disentangled attention, checked against
// numbers worked out by hand from transformers' modeling_deberta_v2.py
// (make_log_bucket_position, build_relative_position,
// disentangled_attention_bias) and against a literal transcription of its
// gathers (the torch steps, one loop per tensor operation).
#include <catch2/catch.hpp>

#include <map>
#include <algorithm>
#include <cmath>
#include <vector>

#include "family_facts.hpp"
#include "identity_head.hpp"
#include "posenc/attention.hpp"
#include "posenc/deberta.hpp"
#include "posenc/json.hpp"
#include "posenc/registry.hpp"

// A namespace of its own: the test files also build as one translation unit (CMake's unity build).
namespace posenc_test_deberta {

using namespace posenc;
using Catch::Matchers::Contains;

// Where the family acts, its width key and its parsed defaults, for the checks every family passes (test_families.cpp).
const bool deberta_facts = posenc_test::add_family_facts(
    "deberta", {Acts::bias, "head_dim", [](const Config& c) -> std::map<std::string, Value> {
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
    }});

namespace {

Config S(const std::string& json) { return parse_json_object(json, "spec"); }

/// The numpy version of make_log_bucket_position (transformers 4.x before torch): float64 throughout.
std::int64_t log_bucket_float64(std::int64_t r, std::int64_t bucket_size, std::int64_t max_position) {
    const std::int64_t mid = bucket_size / 2, magnitude = std::abs(r);
    if (magnitude <= mid) return r;
    const double t = std::log(double(magnitude) / double(mid)) / std::log(double(max_position - 1) / double(mid)) * double(mid - 1);
    const std::int64_t log_pos = std::int64_t(std::ceil(t)) + mid;
    return r < 0 ? -log_pos : log_pos;
}

}  // namespace

TEST_CASE("deberta: log buckets at position_buckets 256, max_relative_positions 512 (DeBERTa-v3)", "[deberta]") {
    // mid = 128; beyond it, bucket = ceil(ln(|r| / 128) / ln(511 / 128) * 127) + 128, ln(511/128) = 1.3843411.
    //   r = 129: ln(1.0078125) = 0.0077821, / 1.3843411 * 127 = 0.714 -> ceil 1 -> 129
    //   r = 200: ln(1.5625) = 0.4462871 -> 40.94 -> 41 -> 169
    //   r = 255: ln(1.9921875) = 0.6892332 -> 63.23 -> 64 -> 192;  r = 256: ln 2 -> 63.59 -> 64 -> 192
    //   r = 511: the two logs are of the same float: exactly 127 -> 255
    //   r = 512: ln 4 = 1.3862944 -> 127.18 -> 128 -> 256 (past bucket_size - 1: not clamped here)
    //   r = 1000: ln(7.8125) = 2.0557250 -> 188.59 -> 189 -> 317
    const std::vector<std::pair<std::int64_t, std::int64_t>> cases = {
        {0, 0},     {1, 1},     {127, 127}, {128, 128}, {129, 129},  {200, 169},   {255, 192},
        {256, 192}, {511, 255}, {512, 256}, {1000, 317}, {-129, -129}, {-200, -169}, {-1000, -317}};
    for (const auto& [r, expected] : cases) {
        INFO("r = " << r);
        CHECK(deberta::log_bucket(r, 256, 512) == expected);
    }
}

TEST_CASE("deberta: torch's float32 buckets and numpy's float64 ones differ only where t is within float32 rounding of an integer", "[deberta]") {
    // At 256 / 512 (DeBERTa-v3) and 128 / 512 no relative position up to 20000 tells them apart;
    // at 512 / 1024 two do (t within 1e-5 of an integer: 10128 and 12051).
    for (const auto& [buckets, max_position] : std::vector<std::pair<int, int>>{{256, 512}, {128, 512}, {256, 1024}}) {
        int differ = 0;
        for (std::int64_t r = 0; r <= 20000; ++r)
            differ += deberta::log_bucket(r, buckets, max_position) != log_bucket_float64(r, buckets, max_position);
        INFO(buckets << " / " << max_position);
        CHECK(differ == 0);
    }
    std::vector<std::int64_t> differ;
    for (std::int64_t r = 0; r <= 20000; ++r)
        if (deberta::log_bucket(r, 512, 1024) != log_bucket_float64(r, 512, 1024)) differ.push_back(r);
    CHECK(differ == std::vector<std::int64_t>{10128, 12051});
}

TEST_CASE("deberta: build_relative_position is query minus key, bucketed only with both sizes > 0", "[deberta]") {
    CHECK(deberta::relative_position(3, 3, -1, -1) == std::vector<std::int32_t>{0, -1, -2, 1, 0, -1, 2, 1, 0});
    CHECK(deberta::relative_position(2, 4, -1, -1) == std::vector<std::int32_t>{0, -1, -2, -3, 1, 0, -1, -2});
    CHECK(deberta::relative_position(2, 4, 4, -1) == deberta::relative_position(2, 4, -1, -1));  // max_position <= 0
    // bucket_size 4, max_position 8: mid 2; |r| = 3: ceil(ln 1.5 / ln 3.5 * 1) + 2 = ceil(0.324) + 2 = 3;
    // |r| = 7: exactly 1 + 2 = 3; |r| = 8 is past max_position - 1: ceil(ln 4 / ln 3.5) + 2 = ceil(1.107) + 2 = 4.
    const auto row = deberta::relative_position(9, 1, 4, 8);
    CHECK(row == std::vector<std::int32_t>{0, 1, 2, 3, 3, 3, 3, 3, 4});
    CHECK_THROWS_WITH(deberta::relative_position(2, 2, 1, 8), Contains("position_buckets = 1 is invalid"));
    CHECK_THROWS_WITH(deberta::relative_position(2, 2, 256, 129),
                      Contains("max_relative_positions = 129 is invalid: expected an integer > 129"));
    CHECK_THROWS_WITH(deberta::relative_position(0, 2, -1, -1), Contains("queryLength = 0 is invalid"));
    CHECK_THROWS_WITH(deberta::relative_position(2, 4097, -1, -1), Contains("keyLength = 4097 is invalid"));
}

TEST_CASE("deberta: the head's logits are (q.k + c2p + p2c) / sqrt(3 d), c2p and p2c gathered as transformers does", "[deberta]") {
    // d = 2, no buckets, max_relative_positions 2: att_span 2, E has 4 rows (relative -2 .. 1),
    // norm_rel_ebd none, identity projections: K_r = Q_r = E.
    const std::vector<double> e = {1, 0, 0, 1, 1, 1, 2, -1};  // rows for delta = -2, -1, 0, 1
    Config spec = S(R"({"type":"deberta","head_dim":2,"position_buckets":-1,"max_relative_positions":2,"norm_rel_ebd":"none"})");
    spec["rel_embeddings"] = e;
    attention::Request r;
    r.d_model = r.d_head = 2;
    r.projections = attention::Projections::identity;
    r.encoding = spec;
    r.x = xt::xtensor<float, 2>{{1, 2}, {3, -1}, {0.5f, 0.25f}};
    r.tokens.assign(3, "");
    const auto result = attention::run(r);
    const std::int64_t n = 3, span = 2;
    const auto& x = r.x;  // q = k = x
    const auto E = [&](std::int64_t row, std::int64_t c) { return e[std::size_t(row * 2 + c)]; };
    const auto dot_e = [&](std::int64_t i, std::int64_t row) { return x(i, 0) * E(row, 0) + x(i, 1) * E(row, 1); };
    // torch: c2p_att = q K_r^T [n, 2 span]; c2p = gather(c2p_att, -1, clamp(rel + span, 0, 2 span - 1)).
    // p2c_att = k Q_r^T; g = gather(p2c_att, -1, clamp(-rel + span, ...)); p2c = g^T.
    const auto rel = [](std::int64_t i, std::int64_t j) { return i - j; };
    const auto clamp = [&](std::int64_t v) { return std::clamp<std::int64_t>(v, 0, 2 * span - 1); };
    const double scale = std::sqrt(2.0 * 3.0);
    REQUIRE(result.terms.parts.size() == 2);
    const auto& c2p = result.terms.parts[0].first == "c2p" ? result.terms.parts[0].second : result.terms.parts[1].second;
    const auto& p2c = result.terms.parts[0].first == "p2c" ? result.terms.parts[0].second : result.terms.parts[1].second;
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            INFO(i << ", " << j);
            const double c2p_ij = dot_e(i, clamp(rel(i, j) + span));
            const double g_ji = dot_e(j, clamp(-rel(j, i) + span));  // g[j][i], transposed to (i, j)
            const double content = x(i, 0) * x(j, 0) + x(i, 1) * x(j, 1);
            CHECK(c2p(i, j) == Approx(c2p_ij / scale).margin(1e-6));
            CHECK(p2c(i, j) == Approx(g_ji / scale).margin(1e-6));
            CHECK(result.terms.content(i, j) == Approx(content / scale).margin(1e-6));
            CHECK(result.logits(i, j) == Approx((content + c2p_ij + g_ji) / scale).margin(1e-6));
        }
    // One by hand: i = 2, j = 0, relative 2 -> clamp(4) = 3, E row 3 = (2, -1).
    // c2p = q_2 . (2, -1) = 0.5 * 2 - 0.25 = 0.75; p2c = k_0 . (2, -1) = 2 - 2 = 0; content = 0.5 + 0.5 = 1.
    CHECK(result.logits(2, 0) == Approx((1.0 + 0.75 + 0.0) / std::sqrt(6.0)).margin(1e-6));
}

TEST_CASE("deberta: scale_factor counts pos_att_type; relative_attention false keeps the scale, drops the terms", "[deberta]") {
    attention::Request r;
    r.d_model = r.d_head = 4;
    r.projections = attention::Projections::identity;
    r.x = xt::xtensor<float, 2>{{1, 0, 2, 0}, {0, 3, 0, 1}};
    r.tokens.assign(2, "");
    // q0 . k1 = 0; q1 . k1 = 10.
    r.encoding = S(R"({"type":"deberta","pos_att_type":["c2p"],"relative_attention":false})");
    auto result = attention::run(r);
    CHECK(result.logits(1, 1) == Approx(10.0 / std::sqrt(4.0 * 2.0)));
    CHECK(result.terms.parts.empty());
    r.encoding = S(R"({"type":"deberta","pos_att_type":[],"relative_attention":true})");
    result = attention::run(r);
    CHECK(result.logits(1, 1) == Approx(10.0 / std::sqrt(4.0)));
    CHECK(result.terms.position(1, 0) == 0.0f);
}

TEST_CASE("deberta: the fused kernel (attentionForward) agrees with the page's head", "[deberta]") {
    const std::int64_t n = 40, d = 8;
    const attention::Request r = posenc_test::identity_request(
        S(R"({"type":"deberta","position_buckets":8,"max_relative_positions":16,"seed":3})"), n, d, 0.7, [](double t) { return std::sin(t); });
    const auto head = attention::run(r);
    const std::vector<float> out = posenc_test::identity_forward(r);
    for (std::size_t k = 0; k < out.size(); ++k) CHECK(out[k] == Approx(head.output.data()[k]).margin(1e-5));
}

TEST_CASE("deberta: the stand-in bias depends on i - j only, and is constant past the last bucket", "[deberta]") {
    const auto b = attention_bias(S(R"({"type":"deberta","position_buckets":8,"max_relative_positions":16})"), 40);
    for (std::size_t i = 1; i < 40; ++i)
        for (std::size_t j = 1; j < 40; ++j) CHECK(b(i, j) == b(i - 1, j - 1));
    // att_span 8, idx = clamp(bucket + 8, 0, 15); mid 4, ln(15 / 4) = 1.3218: r = 9 gives
    // ceil(ln 2.25 / 1.3218 * 3) + 4 = ceil(1.84) + 4 = 6 (idx 14), r = 10 gives ceil(2.08) + 4 = 7
    // (idx 15), and so does every r up to 15 (exactly 3 + 4); r = 16 gives 8, clamped to idx 15.
    CHECK(deberta::log_bucket(9, 8, 16) == 6);
    CHECK(deberta::log_bucket(10, 8, 16) == 7);
    CHECK(deberta::log_bucket(15, 8, 16) == 7);
    CHECK(deberta::log_bucket(16, 8, 16) == 8);
    for (std::size_t i = 11; i < 40; ++i) CHECK(b(i, 0) == b(10, 0));
    CHECK(b(9, 0) != b(10, 0));
}

TEST_CASE("deberta: bad specs name their key", "[deberta]") {
    CHECK_THROWS_WITH(attention_bias(S(R"({"type":"deberta","pos_att_type":["p2p"]})"), 4),
                      Contains("pos_att_type[0] = \"p2p\" is invalid: expected \"c2p\" or \"p2c\""));
    CHECK_THROWS_WITH(attention_bias(S(R"({"type":"deberta","position_buckets":1})"), 4), Contains("position_buckets = 1"));
    CHECK_THROWS_WITH(attention_bias(S(R"({"type":"deberta","position_buckets":256,"max_relative_positions":100})"), 4),
                      Contains("max_relative_positions = 100 is invalid: expected an integer > 129"));
    CHECK_THROWS_WITH(attention_bias(S(R"({"type":"deberta","head_dim":2,"position_buckets":2,"max_relative_positions":4,"rel_embeddings":[1,2,3]})"), 4),
                      Contains("rel_embeddings = a list of 3 numbers is invalid: expected 2 att_span x hidden_size = 2 x 2 x 2 = 8 numbers"));
}

}  // namespace posenc_test_deberta
