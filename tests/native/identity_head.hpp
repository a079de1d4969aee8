// The page's head over raw inputs through identity projections (attention::run), and the same inputs through
// attention::forward with identity weights: the two paths the family tests compare (forward's fused kernel
// against the head's step by step).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "posenc/attention.hpp"
#include "posenc/config.hpp"

namespace posenc_test {

/// A request of the page's head with `encoding` over x [n, d], x's entry k = wave(c k) (a cosine or a sine of the
/// entry's index), identity projections, d_model = d_head = d.
inline posenc::attention::Request identity_request(const posenc::Config& encoding, std::int64_t n, std::int64_t d, double c,
                                                   double (*wave)(double) = [](double t) { return std::cos(t); }) {
    posenc::attention::Request r;
    r.d_model = r.d_head = d;
    r.projections = posenc::attention::Projections::identity;
    r.encoding = encoding;
    r.x = xt::xtensor<float, 2>(xt::xtensor<float, 2>::shape_type{std::size_t(n), std::size_t(d)});
    for (std::size_t k = 0; k < r.x.size(); ++k) r.x.data()[k] = float(wave(c * double(k)));
    r.tokens.assign(std::size_t(n), "");
    return r;
}

/// attention::forward over the request's x (its encoding, causal and position_offset) with identity W_q, W_k, W_v:
/// the output [n, d], row-major.
inline std::vector<float> identity_forward(const posenc::attention::Request& r) {
    const std::int64_t n = std::int64_t(r.x.shape()[0]), d = r.d_head;
    std::vector<float> eye(std::size_t(d * d), 0.0f), out(std::size_t(n * d));
    for (std::int64_t c = 0; c < d; ++c) eye[std::size_t(c * d + c)] = 1.0f;
    const posenc::Config request{{"n", double(n)}, {"d_model", double(d)}, {"d_head", double(d)}, {"causal", r.causal},
                                 {"position_offset", double(r.position_offset)}, {"encoding", r.encoding}};
    posenc::attention::forward(posenc::attention::parse_forward(request), {r.x.data(), r.x.size()}, {eye.data(), eye.size()},
                               {eye.data(), eye.size()}, {eye.data(), eye.size()}, out.data());
    return out;
}

}  // namespace posenc_test
