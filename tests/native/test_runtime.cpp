// Per-layer runtime maths of real models: Llama 4's attention temperature on its NoPE
// layers (posenc/nope.hpp) and Qwen-VL's M-RoPE axes and position ids (posenc/mrope.hpp),
// against values written out by hand from the transformers code each header cites.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "posenc/config.hpp"
#include "posenc/mrope.hpp"
#include "posenc/nope.hpp"

// A namespace of its own: the test files also build as one translation unit (CMake's unity build).
namespace posenc_test_runtime {

using namespace posenc;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::int64_t k2to40 = std::int64_t(1) << 40;

/// The param of the BadParam that call throws ("" when it throws none).
std::string param_of(const std::function<void()>& call) {
    try {
        call();
    } catch (const BadParam& e) {
        return e.param;
    }
    return "";
}

std::vector<int> count_axes(const std::vector<int>& axes) {
    std::vector<int> counts(3, 0);
    for (int a : axes) ++counts[std::size_t(a)];
    return counts;
}

}  // namespace

TEST_CASE("temperature: 1 until p + 1 reaches floor_scale, then 1 + attn_scale ln(1 + k)", "[runtime][temperature]") {
    using nope::attention_temperature_at;
    CHECK(attention_temperature_at(8192, 0.1, 0) == 1.0);
    CHECK(attention_temperature_at(8192, 0.1, 8190) == 1.0);                           // floor(8191 / 8192) = 0
    CHECK(attention_temperature_at(8192, 0.1, 8191) == Approx(1.0693147180559945));    // floor(8192 / 8192) = 1: 1 + 0.1 ln 2
    CHECK(attention_temperature_at(8192, 0.1, 16382) == Approx(1.0693147180559945));   // floor(16383 / 8192) = 1
    CHECK(attention_temperature_at(8192, 0.1, 16383) == Approx(1.1098612288668110));   // 2: 1 + 0.1 ln 3
    CHECK(attention_temperature_at(8192, 0.1, 9999999) == Approx(1.0 + 0.1 * std::log(1221.0)));  // floor(1e7 / 8192) = 1220
    CHECK(attention_temperature_at(8192, 0.2, 8191) == Approx(1.1386294361119891));    // 1 + 0.2 ln 2
}

TEST_CASE("temperature curve: 0, each step start, the end", "[runtime][temperature]") {
    const auto c = nope::attention_temperature(8192, 0.1, 40000);  // floor(40001 / 8192) = 4 steps
    CHECK(c.positions == std::vector<double>{0, 8191, 16383, 24575, 32767, 40000});
    REQUIRE(c.scale.size() == 6);
    CHECK(c.scale[0] == 1.0);
    for (int k = 1; k <= 4; ++k) CHECK(c.scale[std::size_t(k)] == Approx(1.0 + 0.1 * std::log(1.0 + k)));
    CHECK(c.scale[5] == c.scale[4]);
    CHECK_FALSE(c.sampled);

    // a non-integer floor_scale 2.5 over 0..10: floor((p + 1) / 2.5) changes at p + 1 = 3, 5, 8, 10
    CHECK(nope::attention_temperature(2.5, 1, 10).positions == std::vector<double>{0, 2, 4, 7, 9, 10});
    // floor_scale 1: every position is a step (and position 0 already has k = 1)
    const auto ones = nope::attention_temperature(1, 1, 5);
    CHECK(ones.positions == std::vector<double>{0, 1, 2, 3, 4, 5});
    CHECK(ones.scale[0] == Approx(1 + std::log(2.0)));
    // a step start at the end is not doubled; a floor_scale past the end gives the two ends
    CHECK(nope::attention_temperature(8192, 0.1, 8191).positions == std::vector<double>{0, 8191});
    CHECK(nope::attention_temperature(1e12, 0.1, 5).positions == std::vector<double>{0, 5});
}

TEST_CASE("temperature curve: Llama 4 at 10M tokens has its 1220 steps; 2^40 is sampled", "[runtime][temperature]") {
    const auto ten_m = nope::attention_temperature(8192, 0.1, 9999999);
    REQUIRE(ten_m.positions.size() == 1222);
    CHECK(ten_m.positions[1220] == 1220.0 * 8192 - 1);
    CHECK_FALSE(ten_m.sampled);

    for (double floor_scale : {8192.0, 1.0, 3.7}) {
        const auto far = nope::attention_temperature(floor_scale, 0.1, k2to40);
        CHECK(far.sampled);
        REQUIRE(far.positions.size() <= std::size_t(nope::kMaxTemperaturePoints));
        CHECK(far.positions.size() > 1000);
        CHECK(far.positions.front() == 0);
        CHECK(far.positions.back() == double(k2to40));
        for (std::size_t i = 1; i < far.positions.size(); ++i) {
            const auto p = std::int64_t(far.positions[i]);
            CHECK(far.positions[i] > far.positions[i - 1]);
            CHECK(far.scale[i] == nope::attention_temperature_at(floor_scale, 0.1, p));
            // each point but the end starts a step: its step index differs from its predecessor's
            if (i + 1 < far.positions.size())
                CHECK(std::floor((double(p) + 1) / floor_scale) != std::floor(double(p) / floor_scale));
        }
    }
}

TEST_CASE("temperature: bad inputs name floor_scale, attn_scale, max_position", "[runtime][temperature]") {
    using nope::attention_temperature;
    for (double f : {0.0, -1.0, 0.5, kNaN, HUGE_VAL, 2e12}) CHECK(param_of([&] { attention_temperature(f, 0.1, 10); }) == "floor_scale");
    for (double a : {kNaN, HUGE_VAL, -HUGE_VAL, 2e6}) CHECK(param_of([&] { attention_temperature(8192, a, 10); }) == "attn_scale");
    for (std::int64_t m : {std::int64_t(0), std::int64_t(-5), k2to40 + 1})
        CHECK(param_of([&] { attention_temperature(8192, 0.1, m); }) == "max_position");
    CHECK(param_of([] { nope::attention_temperature_at(8192, 0.1, -1); }) == "position");
    CHECK_NOTHROW(attention_temperature(8192, -0.5, 10));  // a negative attn_scale is finite: it flattens instead
}

TEST_CASE("mrope axes, sectioned: [16, 24, 24] drives pairs 0-15 by t, 16-39 by h, 40-63 by w", "[runtime][mrope]") {
    const auto axes = mrope::mrope_pair_axes({16, 24, 24}, false);
    REQUIRE(axes.size() == 64);
    for (int i = 0; i < 64; ++i) CHECK(axes[std::size_t(i)] == (i < 16 ? 0 : i < 40 ? 1 : 2));
    CHECK(mrope::mrope_pair_axes({0, 0, 2}, false) == std::vector<int>{2, 2});
}

TEST_CASE("mrope axes, interleaved: [24, 20, 20] is THW repeated to pair 59, then tttt", "[runtime][mrope]") {
    const auto axes = mrope::mrope_pair_axes({24, 20, 20}, true);
    REQUIRE(axes.size() == 64);
    for (int i = 0; i < 60; ++i) CHECK(axes[std::size_t(i)] == i % 3);
    for (int i = 60; i < 64; ++i) CHECK(axes[std::size_t(i)] == 0);
    CHECK(count_axes(axes) == std::vector<int>{24, 20, 20});
    // the code's slices stop at the last pair: [16, 24, 24] interleaved gives h and w 21 pairs each, t 22
    CHECK(count_axes(mrope::mrope_pair_axes({16, 24, 24}, true)) == std::vector<int>{22, 21, 21});
    // s_t is not read: t takes what h and w leave
    CHECK(mrope::mrope_pair_axes({4, 1, 0}, true) == std::vector<int>{0, 1, 0, 0, 0});
}

TEST_CASE("mrope positions: 2 text + a 2 x 3 image + 2 text, as get_rope_index", "[runtime][mrope]") {
    const auto p = mrope::mrope_positions(2, 2, 3, 2);
    using V = std::vector<std::int32_t>;
    CHECK(p.ids[0] == V{0, 1, 2, 2, 2, 2, 2, 2, 5, 6});
    CHECK(p.ids[1] == V{0, 1, 2, 2, 2, 3, 3, 3, 5, 6});
    CHECK(p.ids[2] == V{0, 1, 2, 3, 4, 2, 3, 4, 5, 6});
    CHECK(p.kind == V{0, 0, 1, 1, 1, 1, 1, 1, 0, 0});
    // an image first: the text after starts at max(h, w)
    const auto q = mrope::mrope_positions(0, 3, 1, 1);
    CHECK(q.ids[0] == V{0, 0, 0, 3});
    CHECK(q.ids[1] == V{0, 1, 2, 3});
    CHECK(q.ids[2] == V{0, 0, 0, 3});
}

TEST_CASE("mrope: bad inputs name sections, textBefore, gridH, gridW, textAfter", "[runtime][mrope]") {
    using mrope::mrope_pair_axes;
    using mrope::mrope_positions;
    for (bool interleaved : {false, true}) {
        CHECK(param_of([&] { mrope_pair_axes({16, 24}, interleaved); }) == "sections");
        CHECK(param_of([&] { mrope_pair_axes({16, 24, 24, 1}, interleaved); }) == "sections");
        CHECK(param_of([&] { mrope_pair_axes({16, -1, 24}, interleaved); }) == "sections");
        CHECK(param_of([&] { mrope_pair_axes({0, 0, 0}, interleaved); }) == "sections");
        CHECK(param_of([&] { mrope_pair_axes({4096, 1, 0}, interleaved); }) == "sections");
    }
    CHECK(param_of([] { mrope_positions(-1, 2, 2, 0); }) == "textBefore");
    CHECK(param_of([] { mrope_positions(257, 2, 2, 0); }) == "textBefore");
    CHECK(param_of([] { mrope_positions(0, 0, 2, 0); }) == "gridH");
    CHECK(param_of([] { mrope_positions(0, 65, 2, 0); }) == "gridH");
    CHECK(param_of([] { mrope_positions(0, 2, 0, 0); }) == "gridW");
    CHECK(param_of([] { mrope_positions(0, 2, 65, 0); }) == "gridW");
    CHECK(param_of([] { mrope_positions(0, 2, 2, 257); }) == "textAfter");
    CHECK_NOTHROW(mrope_positions(256, 64, 64, 256));
}

}  // namespace posenc_test_runtime
