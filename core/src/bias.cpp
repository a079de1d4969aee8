#include "posenc/bias.hpp"

#include <limits>
#include <string>

#include "posenc/config.hpp"

namespace posenc::bias {

void check_n(std::int64_t n) {
    if (n < 1 || n > kMaxN) throw_bad_param("n", std::to_string(n), "an integer in [1, " + std::to_string(kMaxN) + "]");
}

void check_queries(const xt::xtensor<float, 2>& q, std::int64_t width, const char* width_name) {
    const std::int64_t n = std::int64_t(q.shape()[0]), d = std::int64_t(q.shape()[1]);
    check_n(n);
    if (d != width)
        throw_bad_param("q", "[" + std::to_string(n) + ", " + std::to_string(d) + "]",
                        std::string("a [n, ") + width_name + "] matrix with " + width_name + " = " + std::to_string(width));
}

xt::xtensor<float, 2> ones_queries(std::int64_t n, std::int64_t width) {
    check_n(n);
    return xt::ones<float>({std::size_t(n), std::size_t(width)});
}

void mask_causal(xt::xtensor<float, 2>& b) {
    const std::size_t n = b.shape()[0];
    float* p = b.data();
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j) p[i * n + j] = -std::numeric_limits<float>::infinity();
}

xt::xtensor<float, 2> relative_matrix(std::int64_t n, bool causal, const std::function<double(std::int64_t)>& f) {
    check_n(n);
    // One value per relative position j - i in [-(n-1), n-1].
    std::vector<float> by_distance(std::size_t(2 * n - 1));
    for (std::int64_t r = -(n - 1); r <= n - 1; ++r) by_distance[std::size_t(r + n - 1)] = float(f(r));
    xt::xtensor<float, 2> b = xt::empty<float>({std::size_t(n), std::size_t(n)});
    float* p = b.data();  // [n, n]
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) p[i * n + j] = by_distance[std::size_t(j - i + n - 1)];
    if (causal) mask_causal(b);
    return b;
}

}  // namespace posenc::bias
