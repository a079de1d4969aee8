// posenc/registry.hpp: the entry points that take a spec object and dispatch
// on its `type` key to the family that computes it. This is what the wasm
// bindings call; each family's own header holds the maths.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "posenc/config.hpp"

namespace posenc {

/// The spec's `type`. Throws std::invalid_argument when it is missing, not a
/// string, or not one of known_types() (the message lists them).
std::string spec_type(const Config& spec);

/// Every accepted `type`, in the order the page lists them.
const std::vector<std::string>& known_types();

/// The absolute position table of `spec` for positions offset .. offset+n-1,
/// shape [n, d_model], row-major float32 (see the family's `table`).
/// Throws std::invalid_argument for a bad spec, for bad n / offset, and for a
/// spec type that is not an absolute encoding.
xt::xtensor<float, 2> position_table(const Config& spec, std::int64_t n, std::int64_t offset = 0);

/// Angular frequency of each sin/cos pair of an absolute encoding, radians per
/// token, shape [d_model / 2] (wavelength = 2*pi / frequency, in tokens).
/// Throws std::invalid_argument for a bad spec or one without frequencies.
std::vector<double> position_frequencies(const Config& spec);

}  // namespace posenc
