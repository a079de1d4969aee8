// posenc/registry.hpp: the list of families (each one's descriptor, see
// family.hpp, lives in the family's own source file) and the entry points that
// take a spec object and dispatch on its `type` key to the family that computes
// it. This is what the wasm bindings call; each family's own header holds the maths.
// Each entry point also estimates its work from its arguments (the family's
// decay_work / bias_work) and refuses a request above posenc/budget.hpp's caps,
// BadParam naming maxDistance or n, before it computes anything.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "posenc/config.hpp"
#include "posenc/family.hpp"

namespace posenc {

/// The spec's `type`. Throws std::invalid_argument when it is missing, not a
/// string, or not one of known_types() (the message lists them).
std::string spec_type(const Config& spec);

/// Every accepted `type`, in the order the page lists them.
const std::vector<std::string>& known_types();

/// Every family's descriptor, in the order the page lists them: see
/// posenc/family_list.hpp, the one list. In a module of some of the families (posenc-view-<group>.wasm,
/// CMakeLists.txt), those, in the same order (core/src/family_set.cpp).
const std::vector<const Family*>& families();

/// The file name of the module when it holds some of the families ("posenc-view-rotary.wasm"), else nullptr
/// (core/src/family_set.cpp).
const char* family_set_module();

/// A spec of a type this module lacks though another has it (family_set_module() is set): BadParam with param "type",
/// which the wasm layer reports as code 'unavailable', as a function the module lacks, so that the engine loads the
/// module with every family.
class NotInModule : public BadParam {
public:
    using BadParam::BadParam;
};

/// The descriptor of the spec's `type`. Throws as spec_type.
const Family& family_of(const Config& spec);

/// The types of the families for which `keep` holds, in families()' order, as
/// messages list them: "rope, xpos" for the rotary ones.
std::string type_list(const std::function<bool(const Family&)>& keep);

/// type_list of the families that act as `acts` ("rope, xpos" for rotary).
std::string types_acting(Acts acts);

/// The absolute position table of `spec` for positions offset .. offset+n-1,
/// shape [n, d_model], row-major float32 (see the family's `table`).
/// Throws BadParam for a bad spec, for bad n (args::rows) / offset, and for a
/// spec type that is not an absolute encoding. (The entry points name their
/// arguments as the JS functions do: n, seqLen, positionOffset, maxDistance.)
xt::xtensor<float, 2> position_table(const Config& spec, std::int64_t n, std::int64_t offset = 0);

/// position_table written into storage(n, d_model) (see TableStorage): the
/// wasm layer's zero-copy output. Throws as position_table, before calling storage.
void position_table(const Config& spec, std::int64_t n, std::int64_t offset, const TableStorage& storage);

/// The pairs of `spec`. Throws std::invalid_argument for a bad spec or a type
/// without sinusoidal pairs.
PairFrequencies position_frequencies(const Config& spec);

/// The frequencies of a rotary spec for a sequence of seq_len tokens (see
/// rope::frequencies). Throws BadParam for a bad spec or seq_len (args::seq_len,
/// "seqLen"), or a type that does not rotate.
RotaryFrequencies rotary_frequencies(const Config& spec, std::int64_t seq_len);

/// x [n, head_dim] rotated as the rotary spec does at positions offset ..
/// offset + n - 1 (rope::apply, xpos::apply).
xt::xtensor<float, 2> apply_rotary(const Config& spec, const xt::xtensor<float, 2>& x, std::int64_t offset);

/// apply_rotary on raw row-major arrays (JS: applyRope(x, n, d, spec,
/// positionOffset, out)): x [n, d] (x.length must be n * d) rotated into out
/// [n, d], which the caller provides; out may be x itself (in place) or must not
/// overlap it. Throws BadParam before writing anything: n (args::rows), d
/// (args::width), n * d <= kMaxTableElements, x's length, positionOffset
/// (args::position_offset), a type that does not rotate, a bad spec, d not the
/// spec's head_dim.
void apply_rotary(const Config& spec, Floats x, std::int64_t n, std::int64_t d, std::int64_t offset, float* out);

/// The decay analysis of a spec over distance m = 0 .. max_distance (a key m
/// tokens before the query):
///   rope, xpos: "upper_bound" (RoFormer 3.4.3), "ones" (q = k = 1), "random"
///     (one seeded q = k ~ N(0, I));
///   sinusoidal: "dot" = p_n . p_(n+m) = sum_i cos(m w_i) (Vaswani's table: it
///     depends only on m);
///   none: "dot" = 0;
///   alibi, t5, kerple: "bias" = b(i, i - m), the logit bias (ALiBi's line,
///     T5's step function, KERPLE's curve);
///   shaw, transformer_xl: "bias" with queries of ones.
/// Throws BadParam for max_distance outside [0, kMaxDistance] ("maxDistance"),
/// seed outside [0, kMaxSeed], a type with no decay (learned: an untrained
/// table has none) or a bad spec.
Curves decay(const Config& spec, std::int64_t max_distance, std::int64_t seed);

/// The distance axis of decay's curves: m = 0, 1, ..., max_distance tokens,
/// [max_distance + 1]. Throws BadParam for max_distance outside
/// [0, kMaxDistance] ("maxDistance"), as decay does.
std::vector<double> decay_distance(std::int64_t max_distance);

/// The position-similarity matrix of an absolute encoding over positions
/// 0 .. n-1, [n, n] row-major: p_i . p_j ("dot") or p_i . p_j / (|p_i| |p_j|)
/// ("cosine"; 0 where a row is all zeros, as NoPE's are). The sinusoidal one
/// depends only on i - j (a band along the diagonal); an untrained learned
/// table's is noise off the diagonal. Throws std::invalid_argument for a bad
/// spec, n outside [1, 4096], or an unknown metric.
xt::xtensor<float, 2> position_similarity(const Config& spec, std::int64_t n, const std::string& metric);

/// The attention-logit bias b(i, j) of a bias family, [n, n] row-major,
/// -infinity where a causal mask hides the key (each family whose `acts` is
/// bias; see its header). Throws std::invalid_argument for a bad spec, n
/// outside [1, 4096], or a type that is not a bias family.
xt::xtensor<float, 2> attention_bias(const Config& spec, std::int64_t n);

/// The bias of a bias family for a head over `in` (queries, keys and projections,
/// read by the content-dependent families, shaw, transformer_xl and deberta, whose
/// width key must equal in.width; a family with a `hidden_size` key gets in.d_model
/// there when the spec has none). Throws std::invalid_argument for a bad spec, n
/// outside [1, 8192], a width that disagrees, or a type that is not a bias family.
HeadBias head_bias(const Config& spec, const HeadInputs& in);

}  // namespace posenc
