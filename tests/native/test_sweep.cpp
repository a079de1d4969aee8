// A seeded sweep of random specs of every family, built from each family's key
// table (family.hpp; rope's scalings from rope::scaling_types()): values at and
// near each key's min, max and default, sometimes just outside. Every entry
// point the family supports must either refuse with a BadParam naming its
// parameter or return finite numbers everywhere (a logit or bias may be
// -Infinity only where a causal mask hides the key).
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "posenc/attention.hpp"
#include "posenc/budget.hpp"
#include "posenc/registry.hpp"
#include "posenc/rope.hpp"
#include "posenc/rope_scaling.hpp"

// A namespace of its own: the test files also build as one translation unit (CMake's unity build).
namespace posenc_test_sweep {

using namespace posenc;

namespace {

std::string text(const Config& c) {
    std::string out;
    for (const auto& [k, v] : c.items()) {
        if (v.is_object()) out += k + "={" + text(v) + "} ";
        else out += k + "=" + describe(v) + " ";
    }
    return out;
}

struct Sweep {
    std::mt19937_64 rng{20261123};
    std::int64_t refused = 0, finite = 0, repeated_wide = 0;
    /// Whether the current spec is wide: its family's width key over kWide (sinusoidal's d_model reaches 2^24), or its
    /// decay's work at distance 1 (the family's estimate: CoPE's draw of npos_max x head_dim) over kWideWork.
    bool wide = false;
    /// Each entry point's calls on wide specs so far: it makes the first kWideCalls of them. The rest are counted and
    /// skipped: one such call costs about a second (four seconds under ASan: positionFrequencies' four lists of 2^23
    /// entries, CoPE's 2^24 normal draws), and the sweep draws the largest sizes about 50 times, the same overflow
    /// checks each time.
    std::map<std::string, int> wide_calls;
    static constexpr double kWide = 1 << 20;
    static constexpr double kWideWork = 1 << 24;
    static constexpr int kWideCalls = 3;

    bool is_wide(const Family& family, const Config& spec) const {
        const Value* width = find_key(spec, family.width_key);
        if (width && width->is_number() && width->get<double>() > kWide) return true;
        if (!family.decay_work) return false;
        try {
            double work = 0;
            for (const budget::Factors& term : family.decay_work(spec, 1)) work += budget::operations(term);
            return work > kWideWork;
        } catch (const BadParam&) {
            return false;  // refused: cheap
        }
    }

    double uniform() { return std::uniform_real_distribution<double>(0, 1)(rng); }
    template <class T>
    const T& pick(const std::vector<T>& items) { return items[std::size_t(rng() % items.size())]; }

    /// A value for a numeric range [lo, hi]: an edge, next to one, the default, or
    /// (1 time in 10) outside.
    double number(double lo, double hi, bool exclusive_min, std::optional<double> fallback, bool integer) {
        const double lo_in = exclusive_min ? (lo == 0 ? 1e-300 : std::nextafter(lo, HUGE_VAL)) : lo;
        std::vector<double> v = {lo_in, lo + 1, lo + 1e-9, 2 * lo + 1};
        if (std::isfinite(hi)) v.insert(v.end(), {hi, hi - 1, hi / 2});
        else v.insert(v.end(), {1e308, 1e30, 1e6});
        if (fallback) v.insert(v.end(), {*fallback, *fallback, *fallback * 2, *fallback + 1, std::max(lo_in, *fallback / 2)});
        if (uniform() < 0.1) v = {lo - 1, std::isfinite(hi) ? hi + 1 : NAN, NAN, -HUGE_VAL, 0.5};
        double x = pick(v);
        if (integer && std::isfinite(x)) x = std::round(x);
        return x;
    }

    Value key_value(const Key& k) {
        switch (k.kind) {
            case Key::Kind::boolean: return uniform() < 0.5;
            case Key::Kind::choice: return std::string(pick(k.choices));
            case Key::Kind::integer: case Key::Kind::number: {
                std::optional<double> fallback;
                if (k.fallback.is_number()) fallback = k.fallback.get<double>();
                const bool integer = k.kind == Key::Kind::integer;
                double x = number(k.min, k.max, k.exclusive_min, fallback, integer);
                // even widths mostly (odd ones are refused, which is tested too)
                if (integer && std::isfinite(x) && uniform() < 0.8 && std::fmod(x, 2) != 0 && x + 1 <= k.max) x += 1;
                return x;
            }
            default: return nullptr;
        }
    }

    Config scaling(std::int64_t half) {
        const rope::ScalingType& type = pick(rope::scaling_types());
        Config c;
        c["rope_type"] = type.name;
        for (const auto* group : {&type.required, &type.optional})
            for (const rope::ScalingKey& k : *group) {
                if (group == &type.optional && uniform() < 0.5) continue;
                if (k.kind == "boolean") {
                    c[k.name] = uniform() < 0.5;
                } else if (k.kind == "list") {
                    std::vector<double> list(std::size_t(uniform() < 0.1 ? half + 1 : half));
                    for (double& x : list) x = number(k.lo, k.hi, false, k.fallback, false);
                    c[k.name] = list;
                } else {
                    c[k.name] = number(k.lo, k.hi, k.lo == 0x1p-1022, k.fallback, k.kind == "integer");
                }
            }
        return c;
    }

    Config spec(const Family& f) {
        Config c;
        c["type"] = f.type;
        for (const Key& k : f.keys) {
            if (uniform() < 0.4) continue;  // absent: its default
            if (k.kind == Key::Kind::object) {
                if (k.name == "rope_scaling" && uniform() < 0.7) {
                    const double head_dim = c.contains("head_dim") ? (c.at("head_dim")).get<double>() : 128;
                    c[std::string(k.name)] = scaling(std::isfinite(head_dim) ? std::int64_t(head_dim) / 2 : 1);
                }
                continue;
            }
            c[std::string(k.name)] = key_value(k);
        }
        return c;
    }

    /// Runs one call: a refusal must be a BadParam naming its parameter; a result must pass `check`.
    void call(const std::string& what, const Config& spec, const std::function<void()>& f) {
        if (wide && ++wide_calls[what] > kWideCalls) {
            ++repeated_wide;
            return;
        }
        const auto start = std::chrono::steady_clock::now();
        struct Timer {
            std::chrono::steady_clock::time_point start;
            const std::string& what;
            const Config& spec;
            ~Timer() {
                const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                if (s > 0.05 && std::getenv("SWEEP_SLOW")) std::fprintf(stderr, "%.3f s %s %s\n", s, what.c_str(), text(spec).c_str());
            }
        } timer{start, what, spec};
        try {
            f();
            ++finite;
        } catch (const BadParam& e) {
            INFO(what << " " << e.what());
            CHECK(!e.param.empty());
            ++refused;
        }
    }
};

bool all_finite(const float* p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
        if (!std::isfinite(p[i])) return false;
    return true;
}

bool all_finite(const std::vector<double>& v) {
    for (double x : v)
        if (!std::isfinite(x)) return false;
    return true;
}

/// Finite everywhere, or -Infinity above the diagonal (a causal mask).
bool finite_or_masked(const xt::xtensor<float, 2>& m) {
    const std::size_t n = m.shape()[0], cols = m.shape()[1];
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < cols; ++j)
            if (!std::isfinite(m(i, j)) && !(m(i, j) == -HUGE_VALF && j > i)) return false;
    return true;
}

}  // namespace

TEST_CASE("sweep: random specs of every family through every entry point: refused by name, or finite", "[sweep]") {
    Sweep s;
    const std::vector<std::int64_t> offsets = {0, 1, 1000, 40000, 1000000, kMaxPosition - 20};
    for (int round = 0; round < 330; ++round)  // 300 before the wide cap; 330 keeps its assertion count (17,842) and more
        for (const Family* family : families()) {
            const Config spec = s.spec(*family);
            const std::string about = text(spec);
            s.wide = s.is_wide(*family, spec);
            INFO(about);
            if (family->table) {
                const std::int64_t n = s.pick(std::vector<std::int64_t>{1, 3, 17}), offset = s.pick(offsets);
                s.call("positionTable", spec, [&] {
                    const auto p = position_table(spec, n, offset);
                    CHECK(all_finite(p.data(), p.size()));
                });
                s.call("positionSimilarity", spec, [&] {
                    const auto m = position_similarity(spec, n, s.uniform() < 0.5 ? "dot" : "cosine");
                    CHECK(all_finite(m.data(), m.size()));
                });
            }
            if (family->frequencies)
                s.call("positionFrequencies", spec, [&] {
                    const PairFrequencies f = position_frequencies(spec);
                    CHECK(all_finite(f.inv_freq));
                    CHECK(all_finite(f.wavelength));
                });
            if (family->rotary)
                s.call("ropeInvFreq", spec, [&] {
                    const RotaryFrequencies f = rotary_frequencies(spec, s.pick(std::vector<std::int64_t>{1, 4096, 1000000, kMaxPosition}));
                    CHECK(all_finite(f.inv_freq));
                    CHECK(std::isfinite(f.attention_factor));
                    CHECK(std::isfinite(f.logit_scale));
                });
            if (family->rotate) {
                const Value* w = find_key(spec, family->width_key);
                const double d = w && w->is_number() ? w->get<double>() : family->key(family->width_key)->fallback.get<double>();
                if (std::isfinite(d) && d >= 1 && d <= 4096) {
                    xt::xtensor<float, 2> x = xt::empty<float>({std::size_t(3), std::size_t(d)});
                    for (float& v : x) v = float(s.uniform() * 2 - 1);
                    const std::int64_t offset = s.pick(offsets);
                    s.call("applyRope", spec, [&] {
                        const auto out = apply_rotary(spec, x, offset);
                        CHECK(all_finite(out.data(), out.size()));
                    });
                }
            }
            if (family->decay)
                s.call("decay", spec, [&] {
                    const Curves c = decay(spec, s.pick(std::vector<std::int64_t>{0, 1, 64, 300}), std::int64_t(s.rng() % 1000));
                    for (const auto& [name, values] : c) {
                        INFO(name);
                        CHECK(all_finite(values));
                    }
                });
            if (family->bias)
                s.call("attentionBias", spec, [&] {
                    const auto b = attention_bias(spec, s.pick(std::vector<std::int64_t>{1, 2, 9}));
                    CHECK(finite_or_masked(b));
                });
            // The page's head with this encoding (widths filled from the request when absent).
            s.call("attention", spec, [&] {
                attention::Request r;
                r.tokens = {"the", "cat", "sat", "down"};
                r.d_model = r.d_head = 16;
                r.encoding = spec;
                r.causal = s.uniform() < 0.5;
                r.position_offset = s.pick(offsets);
                const attention::Result out = attention::run(r);
                CHECK(finite_or_masked(out.logits));
                CHECK(all_finite(out.weights.data(), out.weights.size()));
                CHECK(all_finite(out.output.data(), out.output.size()));
            });
        }
    INFO("refused " << s.refused << ", finite " << s.finite << ", wide calls past each entry point's first 3: " << s.repeated_wide);
    CHECK(s.refused > 100);
    CHECK(s.finite > 1000);
    // Every entry point met a wide spec (sinusoidal's table, similarity, frequencies, decay and its head).
    for (const char* what : {"positionTable", "positionSimilarity", "positionFrequencies", "decay", "attention"}) {
        INFO(what);
        CHECK(s.wide_calls[what] >= 1);
    }
}

}  // namespace posenc_test_sweep
