// posenc/rope_scaling.hpp: the RoPE scalings, one entry per rope_type (as
// transformers' ROPE_INIT_FUNCTIONS and its per-type validators in
// modeling_rope_utils.py): the keys each accepts, the validator that reads
// them, and the function that computes its frequencies (core/src/rope_scaling.cpp).
//
// scaling_types() is the listing describe() hands the page; the validators read
// their ranges from the same table, so what the page shows is what parse enforces.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace posenc {
class SpecReader;
}

namespace posenc::rope {

/// 2 pi: radians per turn, which turns a frequency (radians per token) into its wavelength (tokens).
inline constexpr double kTwoPi = 2.0 * M_PI;

struct Scaling;
struct Spec;
struct Frequencies;

/// One key of a scaling block and the values it accepts.
struct ScalingKey {
    std::string name;  ///< the config key, e.g. "beta_fast"
    /// "integer", "number", "boolean" (lo, hi unused: 0, 1) or "list" (of numbers,
    /// rotary_dim / 2 of them, each in [lo, hi]).
    std::string kind;
    /// The value taken when the key is absent (a boolean's: 1 = true); none when
    /// the key is required or its absence is resolved otherwise (see Scaling).
    std::optional<double> fallback;
    double lo, hi;        ///< the accepted range, bounds included (hi may be +inf)
    std::string allowed;  ///< the range as error messages write it: "a finite number >= 1"
};

/// One rope_type: its name and the keys its scaling block requires and allows
/// (besides rope_type / type, and in rope_parameters rope_theta and
/// partial_rotary_factor, which every block accepts).
struct ScalingType {
    std::string name;  ///< the rope_type, e.g. "yarn"
    std::vector<ScalingKey> required, optional;
    /// Keys of `optional` that the reference accepts in this type's block and checks, but whose value no
    /// frequency reads (dynamic's original_max_position_embeddings: transformers reads max_position_embeddings).
    std::vector<std::string> unread;
};

/// Every rope_type, in the order of rope_types(): default, linear, ntk,
/// dynamic, yarn, llama3, longrope, proportional, with the keys and ranges parse enforces.
const std::vector<ScalingType>& scaling_types();

/// The entry of `rope_type`. Throws BadParam (param "rope_type") naming the
/// value and listing the known types when there is none.
const ScalingType& scaling_type(std::string_view rope_type);

/// Reads a scaling block of type `type` into `out`: throws the "missing
/// required key" error of `read` for the first absent required key, then runs
/// the type's validator, which reads each key with the type and range of its
/// ScalingKey (and llama3's low_freq_factor <= high_freq_factor). `half` =
/// rotary_dim / 2, the length short_factor and long_factor must have. `read`
/// must accept the type's keys. Errors are BadParam naming the key, the value
/// and the allowed range.
void read_scaling(const ScalingType& type, const SpecReader& read, std::int64_t half, Scaling& out);

/// The frequencies of spec.scaling.rope_type's compute function for a
/// sequence of seq_len tokens (>= 1; not checked here: rope::frequencies does).
/// inv_freq is [rotary_dim / 2], radians per token. Throws BadParam (param
/// "rope_scaling", naming the value) when keys valid alone combine into a
/// frequency that is not > 0 or past float32's largest (3.4e38: every buffer
/// of the API is float32), a wavelength or last angle that is not finite, or
/// an attention factor or logit scale outside (0, 1e4].
Frequencies scaled_frequencies(const Spec& spec, std::int64_t seq_len);

}  // namespace posenc::rope
