// The portable generator: its log and cos against libm, its normals' moments.
#include <catch2/catch.hpp>

#include <cmath>

#include "posenc/random.hpp"

// A namespace of its own: the test files also build as one translation unit (CMake's unity build).
namespace posenc_test_random {

using namespace posenc;

TEST_CASE("portable_log matches libm within 4 ulp over (0, 1e300)", "[random]") {
    double worst = 0;
    for (double x : {1e-300, 1e-10, 0.001, 0.1, 0.5, 0.70710678, 0.9999999, 1.0, 1.5, 2.0, 10.0, 12345.678, 1e300}) {
        const double exact = std::log(x);
        const double ulp = std::nextafter(std::abs(exact), INFINITY) - std::abs(exact);
        worst = std::max(worst, exact == 0 ? std::abs(portable_log(x)) : std::abs(portable_log(x) - exact) / ulp);
    }
    CHECK(worst <= 4);
    CHECK(portable_log(1.0) == 0.0);
    CHECK(portable_log(2.0) == Approx(M_LN2).epsilon(1e-16));
}

TEST_CASE("portable_cos_turns(u) = cos(2 pi u) within 1e-15", "[random]") {
    for (int k = 0; k < 1000; ++k) {
        const double u = (k + 0.37) / 1000.0;
        CHECK(portable_cos_turns(u) == Approx(std::cos(2 * M_PI * u)).margin(1e-15));
    }
    CHECK(portable_cos_turns(0.0) == 1.0);
    CHECK(portable_cos_turns(0.5) == -1.0);
}

TEST_CASE("normals have mean 0 and variance 1; the same seed gives the same stream", "[random]") {
    Random a(7), b(7), c(8);
    double sum = 0, squares = 0;
    const int n = 200000;
    bool same = true, differs = false;
    for (int i = 0; i < n; ++i) {
        const double x = a.normal();
        sum += x;
        squares += x * x;
        same = same && x == b.normal();
        differs = differs || x != c.normal();
    }
    CHECK(std::abs(sum / n) < 0.01);                // 4.5 standard errors
    CHECK(std::abs(squares / n - 1.0) < 0.015);     // 4.7 standard errors (var of x^2 is 2)
    CHECK(same);
    CHECK(differs);
}

}  // namespace posenc_test_random
