// posenc_bench: the native build's timings of the workloads `npm run bench`
// measures in wasm (tests/bench/run.mjs reads its JSON; the ids are those of
// tests/bench/workloads.mjs). Same shapes, same entry points as the JS API calls
// (attention::forward, apply_rotary, position_table, kernels::matmul).
// Prints JSON: {workload id: {median_ms, backend}}.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "posenc/attention.hpp"
#include "posenc/kernels.hpp"
#include "posenc/registry.hpp"

using namespace posenc;

namespace {

/// Median milliseconds of `run` after warming up for about 0.2 s; at least 5 runs, about 1 s in all.
double median_ms(const std::function<void()>& run) {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    int warm = 0;
    while (warm < 3 || clock::now() - start < std::chrono::milliseconds(200)) {
        run();
        ++warm;
    }
    std::vector<double> times;
    const auto measure_start = clock::now();
    while (times.size() < 5 || (clock::now() - measure_start < std::chrono::seconds(1) && times.size() < 200)) {
        const auto t0 = clock::now();
        run();
        times.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

std::vector<float> normals(std::size_t count, unsigned seed, float scale) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal;
    std::vector<float> out(count);
    for (float& v : out) v = normal(rng) * scale;
    return out;
}

}  // namespace

int main() {
    std::vector<std::pair<std::string, double>> results;
    for (const auto& [n, d, causal] : std::vector<std::tuple<int, int, bool>>{
             {128, 64, false}, {128, 64, true}, {512, 64, false}, {512, 64, true}, {1024, 64, false}, {1024, 64, true},
             {2048, 64, false}, {2048, 64, true}, {1024, 128, false}, {1024, 128, true}}) {
        const auto x = normals(std::size_t(n * d), 1, 1.0f);
        const float w = 1.0f / std::sqrt(float(d));
        const auto wq = normals(std::size_t(d * d), 2, w), wk = normals(std::size_t(d * d), 3, w),
                   wv = normals(std::size_t(d * d), 4, w);
        attention::Forward f;
        f.n = n;
        f.d_model = f.d_head = d;
        f.causal = causal;
        f.encoding = Config{{"type", std::string("none")}};
        std::vector<float> out(std::size_t(n * d));
        const std::string id = "attention-d" + std::to_string(d) + "-n" + std::to_string(n) + (causal ? "-causal" : "");
        results.emplace_back(id, median_ms([&] { attention::forward(f, {x.data(), x.size()}, {wq.data(), wq.size()}, {wk.data(), wk.size()},
                                                                  {wv.data(), wv.size()}, out.data()); }));
    }
    for (const std::string layout : {"half", "interleaved"}) {
        xt::xtensor<float, 2> x = xt::empty<float>({std::size_t(4096), std::size_t(128)});
        const auto values = normals(x.size(), 5, 1.0f);
        std::copy(values.begin(), values.end(), x.begin());
        const Config spec{{"type", std::string("rope")}, {"head_dim", 128.0}, {"layout", layout}};
        results.emplace_back("rope-4096x128-" + layout, median_ms([&] { apply_rotary(spec, x, 0); }));
    }
    const Config sinusoid{{"type", std::string("sinusoidal")}, {"d_model", 512.0}};
    results.emplace_back("sinusoid-4096x512", median_ms([&] { position_table(sinusoid, 4096); }));
    {
        const auto a = normals(512 * 512, 6, 1.0f), b = normals(512 * 512, 7, 1.0f);
        std::vector<float> c(512 * 512);
        results.emplace_back("matmul-512x512x512", median_ms([&] { kernels::matmul(a.data(), b.data(), c.data(), 512, 512, 512); }));
    }

    std::printf("{");
    for (std::size_t k = 0; k < results.size(); ++k)
        std::printf("%s\n \"%s\": {\"median_ms\": %.5f, \"backend\": \"%s\"}", k ? "," : "", results[k].first.c_str(),
                    results[k].second, kernels::backend());
    std::printf("\n}\n");
    return 0;
}
