// Sinusoidal encoding (Vaswani et al. 2017, section 3.5): values checked against
// closed-form identities and an independent long-double evaluation.
#include <catch2/catch.hpp>

#include <map>
#include <cmath>
#include <random>

#include "family_facts.hpp"
#include "posenc/registry.hpp"
#include "posenc/sinusoidal.hpp"

// A namespace of its own: the test files also build as one translation unit (CMake's unity build).
namespace posenc_test_sinusoidal {

using namespace posenc;
using sinusoidal::Layout;
using sinusoidal::Spec;
using sinusoidal::Timescales;

// Where the family acts, its width key and its parsed defaults, for the checks every family passes (test_families.cpp).
const bool sinusoidal_facts = posenc_test::add_family_facts(
    "sinusoidal", {Acts::absolute, "d_model", [](const Config& c) -> std::map<std::string, Value> {
        const auto s = sinusoidal::parse(c);
        return {{"d_model", double(s.d_model)}, {"base", s.base},
                {"layout", std::string(s.layout == sinusoidal::Layout::concat ? "concat" : "interleaved")},
                {"timescales", std::string(s.timescales == sinusoidal::Timescales::vaswani ? "vaswani" : "tensor2tensor")}};
    }});

namespace {

Spec make(std::int64_t d_model, double base = 10000.0, Layout layout = Layout::interleaved,
          Timescales timescales = Timescales::vaswani) {
    Spec s;
    s.d_model = d_model;
    s.base = base;
    s.layout = layout;
    s.timescales = timescales;
    return s;
}

// omega_i written straight from the paper in long double, independent of the
// implementation's exp/log route.
long double reference_omega(const Spec& s, std::int64_t i) {
    const long double exponent = s.timescales == Timescales::vaswani
                                     ? 2.0L * i / s.d_model
                                     : (long double)i / std::max<std::int64_t>(s.d_model / 2 - 1, 1);
    return 1.0L / std::pow((long double)s.base, exponent);
}

}  // namespace

TEST_CASE("PE(0) is [0, 1, 0, 1, ...] interleaved and [0...0, 1...1] concatenated", "[sinusoidal]") {
    for (std::int64_t d : {2, 8, 512}) {
        const auto inter = sinusoidal::table(make(d), 1);
        const auto concat = sinusoidal::table(make(d, 10000, Layout::concat), 1);
        for (std::int64_t c = 0; c < d; ++c) {
            CHECK(inter(0, c) == (c % 2 == 0 ? 0.0f : 1.0f));
            CHECK(concat(0, c) == (c < d / 2 ? 0.0f : 1.0f));
        }
    }
}

TEST_CASE("PE(1) for d_model = 8 matches the hand computation", "[sinusoidal]") {
    // omega = 10000^(-2i/8) = 1, 0.1, 0.01, 0.001
    const auto pe = sinusoidal::table(make(8), 4);
    const double expected[8] = {std::sin(1.0),  std::cos(1.0),  std::sin(0.1),   std::cos(0.1),
                                std::sin(0.01), std::cos(0.01), std::sin(0.001), std::cos(0.001)};
    for (int c = 0; c < 8; ++c) CHECK(pe(1, c) == Approx(expected[c]).margin(1e-7));
    // Position 3, pair 1: sin(0.3).
    CHECK(pe(3, 2) == Approx(std::sin(0.3)).margin(1e-7));
}

TEST_CASE("frequencies and wavelengths follow each timescale convention", "[sinusoidal]") {
    const auto vaswani = sinusoidal::inv_freq(make(8));
    REQUIRE(vaswani.size() == 4);
    CHECK(vaswani[0] == 1.0);
    CHECK(vaswani[1] == Approx(0.1).epsilon(1e-15));
    CHECK(vaswani[3] == Approx(0.001).epsilon(1e-15));

    // tensor2tensor: exponent -i/(d/2 - 1), so omega_3 = 1/base exactly, and
    // omega_1 = 10000^(-1/3).
    const auto t2t = sinusoidal::inv_freq(make(8, 10000, Layout::concat, Timescales::tensor2tensor));
    CHECK(t2t[1] == Approx(std::pow(10000.0, -1.0 / 3.0)).epsilon(1e-15));
    CHECK(t2t[3] == Approx(1e-4).epsilon(1e-15));
    const auto lambda = sinusoidal::wavelength(make(8, 10000, Layout::concat, Timescales::tensor2tensor));
    CHECK(lambda[3] == Approx(2 * M_PI * 10000).epsilon(1e-14));
    // The paper's longest wavelength is 2*pi*base^((d-2)/d), short of 2*pi*base.
    CHECK(sinusoidal::wavelength(make(8)).back() == Approx(2 * M_PI * 1000).epsilon(1e-14));

    // d_model = 2 has a single pair at frequency 1 in both conventions.
    CHECK(sinusoidal::inv_freq(make(2, 10000, Layout::interleaved, Timescales::tensor2tensor))[0] == 1.0);
}

TEST_CASE("p_m . p_n = sum_i cos((m - n) omega_i): the dot product depends only on distance",
          "[sinusoidal]") {
    const Spec spec = make(64);
    const auto omega = sinusoidal::inv_freq(spec);
    const auto pe = sinusoidal::table(spec, 2048);
    std::mt19937 rng(42);
    std::uniform_int_distribution<int> pos(0, 2047);
    for (int trial = 0; trial < 50; ++trial) {
        const int m = pos(rng), n = pos(rng);
        double dot = 0, expected = 0;
        for (int c = 0; c < 64; ++c) dot += double(pe(m, c)) * pe(n, c);
        for (double w : omega) expected += std::cos((m - n) * w);
        CHECK(dot == Approx(expected).margin(1e-5));
    }
}

TEST_CASE("PE(pos + k) restricted to pair i is PE(pos) rotated by k * omega_i", "[sinusoidal]") {
    for (Layout layout : {Layout::interleaved, Layout::concat}) {
        const Spec spec = make(32, 10000, layout);
        const auto omega = sinusoidal::inv_freq(spec);
        const auto pe = sinusoidal::table(spec, 600);
        for (int pos : {0, 7, 250}) {
            for (int k : {1, 3, 100, 349}) {
                for (std::int64_t i = 0; i < 16; ++i) {
                    const auto s = sinusoidal::column(spec, i, false), c = sinusoidal::column(spec, i, true);
                    const double a = k * omega[std::size_t(i)];
                    // [sin(x + a), cos(x + a)] = [[cos a, sin a], [-sin a, cos a]] [sin x, cos x]
                    const double rs = std::cos(a) * pe(pos, s) + std::sin(a) * pe(pos, c);
                    const double rc = -std::sin(a) * pe(pos, s) + std::cos(a) * pe(pos, c);
                    CHECK(pe(pos + k, s) == Approx(rs).margin(2e-7));
                    CHECK(pe(pos + k, c) == Approx(rc).margin(2e-7));
                }
            }
        }
    }
}

TEST_CASE("the interleaved and concat layouts are the same numbers permuted", "[sinusoidal]") {
    const std::int64_t d = 24;
    const auto inter = sinusoidal::table(make(d), 50);
    const auto concat = sinusoidal::table(make(d, 10000, Layout::concat), 50);
    for (int pos = 0; pos < 50; ++pos) {
        for (int i = 0; i < d / 2; ++i) {
            CHECK(concat(pos, i) == inter(pos, 2 * i));
            CHECK(concat(pos, d / 2 + i) == inter(pos, 2 * i + 1));
        }
    }
}

TEST_CASE("entries are within 1e-6 of a long-double evaluation up to position 1e6", "[sinusoidal]") {
    for (Timescales ts : {Timescales::vaswani, Timescales::tensor2tensor}) {
        const Spec spec = make(16, 10000, Layout::interleaved, ts);
        const std::int64_t n = 100, offset = 1000000 - n + 1;  // last row is position 1e6
        const auto pe = sinusoidal::table(spec, n, offset);
        double worst = 0;
        for (std::int64_t r = 0; r < n; ++r) {
            for (std::int64_t i = 0; i < 8; ++i) {
                const long double angle = (long double)(offset + r) * reference_omega(spec, i);
                worst = std::max(worst, std::abs(double(pe(r, 2 * i)) - double(std::sin(angle))));
                worst = std::max(worst, std::abs(double(pe(r, 2 * i + 1)) - double(std::cos(angle))));
            }
        }
        CHECK(worst < 1e-6);
    }
}

TEST_CASE("every entry is within [-1, 1]: the audit's base 32.27 table and a sweep of bases and widths", "[sinusoidal]") {
    // Issue 24's fuzzer found -1.0000001192 (one float32 ulp below -1) at row 53, column 136 of this table.
    const Spec audit = make(150, 32.26876309860319, Layout::concat, Timescales::vaswani);
    const auto table = sinusoidal::table(audit, 143);
    CHECK(table(53, 136) == -1.0f);
    CHECK(double(table(53, 136)) == Approx(std::cos(53.0 * reference_omega(audit, 136 - 75))).margin(3e-7));
    std::int64_t outside = 0, entries = 0;
    for (double base : {2.0, 7.5, 32.26876309860319, 100.0, 10000.0, 1e6})
        for (std::int64_t d : {2, 6, 64, 150, 254}) {
            const auto t = sinusoidal::table(make(d, base, Layout::interleaved, Timescales::vaswani), 600, 3);
            for (float v : t) outside += (v < -1.0f || v > 1.0f) ? 1 : 0;
            entries += std::int64_t(t.size());
        }
    CHECK(entries == 6 * (2 + 6 + 64 + 150 + 254) * 600);
    CHECK(outside == 0);
}

TEST_CASE("a spec object selects the same table through the registry", "[sinusoidal][registry]") {
    const Config spec{{"type", std::string("sinusoidal")},
                      {"d_model", 6.0},
                      {"base", 100.0},
                      {"layout", std::string("concat")},
                      {"timescales", std::string("tensor2tensor")}};
    const auto via_registry = position_table(spec, 5, 2);
    const auto direct = sinusoidal::table(make(6, 100, Layout::concat, Timescales::tensor2tensor), 5, 2);
    CHECK(via_registry == direct);
    // Position 2, pair 1 (omega = 100^(-1/2) = 0.1): sin(0.2) in column 1.
    CHECK(via_registry(0, 1) == Approx(std::sin(0.2)).margin(1e-7));
}

TEST_CASE("bad sinusoidal input throws a message naming parameter, value and range", "[sinusoidal][errors]") {
    using Catch::Matchers::Contains;
    CHECK_THROWS_WITH(sinusoidal::table(make(7), 4), Contains("d_model = 7") && Contains("even integer"));
    CHECK_THROWS_WITH(sinusoidal::table(make(0), 4), Contains("d_model = 0"));
    CHECK_THROWS_WITH(sinusoidal::table(make(8, 1.0), 4), Contains("base = 1 ") && Contains("> 1"));
    CHECK_THROWS_WITH(sinusoidal::table(make(8, 0.5), 4), Contains("base = 0.5"));
    CHECK_THROWS_WITH(sinusoidal::table(make(8, NAN), 4), Contains("base = NaN"));
    CHECK_THROWS_WITH(sinusoidal::table(make(8, INFINITY), 4), Contains("base = Infinity"));
    CHECK_THROWS_WITH(sinusoidal::table(make(8), 0), Contains("n = 0") && Contains("[1, 16777216]"));
    CHECK_THROWS_WITH(sinusoidal::table(make(8), -3), Contains("n = -3"));
    CHECK_THROWS_WITH(sinusoidal::table(make(1024), 16385),
                      Contains("n = 16385") && Contains("n * d_model <= 16777216") && Contains("n <= 16384"));
    CHECK_NOTHROW(sinusoidal::table(make(1024), 16384));
    CHECK_THROWS_WITH(sinusoidal::table(make(8), 4, -1), Contains("offset = -1"));
    CHECK_THROWS_AS(sinusoidal::table(make(8), 0), std::invalid_argument);

    // Through a spec object: wrong types and values are named too.
    CHECK_THROWS_WITH(sinusoidal::parse({{"d_model", 7.5}}), Contains("d_model = 7.5") && Contains("integer"));
    CHECK_THROWS_WITH(sinusoidal::parse({{"d_model", std::string("64")}}), Contains("d_model = \"64\""));
    CHECK_THROWS_WITH(sinusoidal::parse({{"layout", std::string("pairs")}}),
                      Contains("layout = \"pairs\"") && Contains("\"interleaved\", \"concat\""));
    CHECK_THROWS_WITH(sinusoidal::parse({{"timescales", std::string("fairseq")}}),
                      Contains("\"vaswani\", \"tensor2tensor\""));
    CHECK_THROWS_WITH(sinusoidal::parse({{"base", -HUGE_VAL}}), Contains("base = -Infinity"));
}

TEST_CASE("position_frequencies gives each pair's wavelength 2 pi / inv_freq in tokens", "[sinusoidal][registry]") {
    const auto pairs = position_frequencies(Config{{"type", std::string("sinusoidal")}, {"d_model", 8.0}});
    REQUIRE(pairs.wavelength.size() == 4);
    for (std::size_t i = 0; i < 4; ++i) CHECK(pairs.wavelength[i] == 2.0 * M_PI / pairs.inv_freq[i]);
    CHECK(pairs.wavelength[3] == Approx(2.0 * M_PI * 1000.0).epsilon(1e-12));
}

TEST_CASE("position_table into caller storage: the same bytes, storage asked for only after the checks", "[sinusoidal][registry]") {
    for (const Family* f : families()) {
        if (!f->table) continue;  // the families with a position table (absolute, and none's zeros)
        const std::string& type = f->type;
        INFO(type);
        const Config spec{{"type", std::string(type)}, {"d_model", 6.0}};
        const auto expected = position_table(spec, 5, 3);
        std::vector<float> storage(30, -1.0f);
        std::int64_t asked_rows = 0, asked_cols = 0;
        position_table(spec, 5, 3, [&](std::int64_t rows, std::int64_t cols) {
            asked_rows = rows;
            asked_cols = cols;
            return storage.data();
        });
        CHECK(asked_rows == 5);
        CHECK(asked_cols == 6);
        CHECK(std::equal(storage.begin(), storage.end(), expected.begin()));
        bool asked = false;
        const auto refuse = [&](std::int64_t, std::int64_t) -> float* { asked = true; return nullptr; };
        CHECK_THROWS_AS(position_table(spec, 0, 0, refuse), std::invalid_argument);
        CHECK_THROWS_AS(position_table(spec, 4, -1, refuse), std::invalid_argument);
        CHECK_FALSE(asked);
    }
}

}  // namespace posenc_test_sinusoidal
