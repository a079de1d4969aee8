// posenc/family.hpp: what an encoding family is to the rest of posenc. Each
// family's source file (sinusoidal.cpp, alibi.cpp, ...) defines its one
// descriptor, `<family>::family()`: its spec `type`, where it acts in the
// attention head, its keys with their defaults and ranges, and the functions it
// computes. The registry (registry.cpp) lists the descriptors and dispatches on
// them; attention.cpp dispatches on `acts`; describe() hands the list to the page.
// What a family does in train() is not in its descriptor but beside it, its
// `<family>::training()` (posenc/train_slots.hpp), which only train.cpp reaches
// (through train::training_of): a module without the trainer leaves it out.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "posenc/budget.hpp"
#include "posenc/config.hpp"
#include "posenc/kernels.hpp"

namespace posenc {

/// Where a family puts position information in an attention head.
enum class Acts {
    absolute,  ///< a table P added to the token embeddings: x + P before W_q, W_k, W_v
    rotary,    ///< rotates q and k after their projections (never v)
    bias,      ///< b(i, j) added to the attention logits
    none,      ///< no position information (NoPE)
    polar,     ///< q and k become magnitudes with position-only phases, [n, 2 d_head] (PoPE); the logits their dots
};

/// "absolute", "rotary", "bias", "none", "polar".
const char* acts_name(Acts acts);

/// Where a function that writes a table puts it: called once, with the
/// table's shape [rows, cols], after every check of the request has passed (so
/// nothing is allocated for a request that will be refused); returns storage
/// for rows * cols floats, row-major. It may throw (e.g. when the caller's
/// buffer has another size); nothing has been written then.
using TableStorage = std::function<float*(std::int64_t rows, std::int64_t cols)>;

/// The sin/cos pairs of a sinusoidal absolute encoding, each [d_model / 2]:
/// inv_freq[i], the angular frequency of pair i in radians per token;
/// wavelength[i] = 2*pi / inv_freq[i], in tokens (computed in double from
/// inv_freq[i]); and the table columns that hold its sine and cosine in the
/// spec's layout.
struct PairFrequencies {
    std::vector<double> inv_freq, wavelength;
    std::vector<std::int64_t> sin_column, cos_column;
};

/// What a rotary encoding (rope, xpos) does at a sequence length.
struct RotaryFrequencies {
    std::vector<double> inv_freq;   ///< [rotary_dim / 2], radians per token
    double attention_factor = 1.0;  ///< multiplies the rotated q and k
    double logit_scale = 1.0;       ///< multiplies the softmax scale (DeepSeek's mscale_all_dim)
    std::int64_t head_dim = 0, rotary_dim = 0;
    /// [rotary_dim / 2]: the columns of q (and k) that pair i rotates, (first, second) as in
    /// [[cos, -sin], [sin, cos]]: (2i, 2i + 1) in the interleaved layout, (i, i + rotary_dim / 2) in half.
    std::vector<std::int64_t> first_column, second_column;
    /// yarn: where its ramp starts and ends, in pairs (rope::Frequencies); NaN otherwise.
    double ramp_low = NAN, ramp_high = NAN;
};

/// first_column and second_column of `pairs` rotary pairs in a layout (interleaved or half).
void set_pair_columns(RotaryFrequencies& f, bool interleaved);

/// Named curves over distance 0 .. max_distance, each [max_distance + 1].
using Curves = std::vector<std::pair<std::string, std::vector<double>>>;

/// What a bias family adds to the logits of one head over n tokens, prepared once
/// for the fused attention kernel (and the page's head).
struct HeadBias {
    /// Adds b(i, j) to a tile of scores: f(j - i) for alibi, t5, kerple; q_i . a_clip(j - i) for shaw. Null for
    /// transformer_xl.
    std::unique_ptr<kernels::BiasTile> tile;
    /// transformer_xl: b(i, j) = q_extra_i . k_extra_j, [n, extra_width] each, row-major (a sum of
    /// angle differences factored into query and key parts; see transformer_xl::relative_factors). Empty otherwise.
    std::vector<float> q_extra, k_extra;
    std::int64_t extra_width = 0;
    /// The spec's own `causal` key: true hides the keys after each query as well.
    bool causal = false;
    /// Multiplies the head's 1/sqrt(d_head) on q . k: DeBERTa divides every term by
    /// sqrt(d_head * scale_factor), so its content scores get 1/sqrt(scale_factor). 1 otherwise.
    double content_scale = 1.0;
    /// Named parts of the bias that the page's head reports in its terms, each a tile
    /// as `tile` is (DeBERTa: "c2p" and "p2c", whose sum is the bias). Empty for most.
    std::vector<std::pair<std::string, std::unique_ptr<kernels::BiasTile>>> parts;
};

/// What a content-dependent bias may read of its head (n tokens, d_model inputs,
/// width = d_head): the projected queries and keys, the projections and the inputs.
struct HeadInputs {
    const float* q = nullptr;   ///< [n, width], row-major: X W_q
    const float* k = nullptr;   ///< [n, width]: X W_k
    const float* wq = nullptr;  ///< [d_model, width]: W_q (DeBERTa projects its relative embeddings with it)
    const float* wk = nullptr;  ///< [d_model, width]: W_k
    std::int64_t n = 0, d_model = 0, width = 0;
    const float* x = nullptr;   ///< [n, d_model]: the head's inputs (FoX's forget gates read them)
};

/// A family's formula with symbols rather than values, TeX (the page sets it beside the source), and what the page
/// says of it besides the source (the equation it writes, what the figures assume). Each family's source file defines
/// `Formula <family>::formula()`; only describe() reads them (describe.cpp), so a module without describe() (the view
/// module) leaves the text out.
struct Formula {
    const char* tex;
    const char* note;
};

/// One encoding family. A slot is null when the family does not compute that
/// (learned has no decay); each takes the spec object and parses it itself. The
/// slots are plain function pointers (std::function wrappers were 12 KB of .wasm, 4.4 KB gzip).
struct Family {
    Family(std::string type, Acts acts, std::string width_key, std::string label, std::string source,
           std::vector<Key> keys)
        : type(std::move(type)), acts(acts), width_key(std::move(width_key)), label(std::move(label)),
          source(std::move(source)), keys(std::move(keys)) {}

    std::string type;        ///< the spec's `type`: "sinusoidal", "none", "rope", ...
    Acts acts = Acts::none;
    /// The spec key that holds the width the head must agree with: "d_model"
    /// (absolute, none), "head_dim" (rope, xpos, shaw), "d_head" (transformer_xl),
    /// or empty (alibi, t5, kerple: no width).
    std::string width_key;
    std::string label;       ///< one line for people: "ALiBi: a linear distance penalty per head"
    std::string source;      ///< the paper (and section) or reference code it follows
    std::vector<Key> keys;   ///< the spec's keys besides `type`, in the order messages list them

    /// The table P [n, d_model] for positions offset .. offset + n - 1 into storage(n, d_model).
    void (*table)(const Config&, std::int64_t n, std::int64_t offset, const TableStorage&) = nullptr;
    PairFrequencies (*frequencies)(const Config&) = nullptr;
    RotaryFrequencies (*rotary)(const Config&, std::int64_t seq_len) = nullptr;
    /// x [n, d] rotated into out [n, d] (out may be x) at positions offset ...
    void (*rotate)(const Config&, const float* x, std::int64_t n, std::int64_t d, std::int64_t offset, float* out) = nullptr;
    /// Acts::polar: x [n, d] of the queries (key false) or keys at positions offset ... into out [n, 2d], the vectors
    /// whose dots are the logits before the 1/sqrt(d) (pope::apply).
    void (*polar)(const Config&, const float* x, std::int64_t n, std::int64_t d, std::int64_t offset, bool key,
                  float* out) = nullptr;
    /// The decay curves over m = 0 .. max_distance (max_distance checked by the caller).
    Curves (*decay)(const Config&, std::int64_t max_distance, std::uint64_t seed) = nullptr;
    /// b(i, j) [n, n] with queries of ones.
    xt::xtensor<float, 2> (*bias)(const Config&, std::int64_t n) = nullptr;
    /// The bias of one head over `in` (n checked by the caller).
    HeadBias (*head_bias)(const Config&, const HeadInputs& in) = nullptr;

    /// The work estimates the budget checks (posenc/budget.hpp) before decay and before
    /// bias / head_bias run, as a sum of terms (setup + main loop). Empty: one
    /// operation per distance (decay), per cell of the [n, n] matrix (bias).
    std::vector<budget::Factors> (*decay_work)(const Config&, std::int64_t max_distance) = nullptr;
    std::vector<budget::Factors> (*bias_work)(const Config&, std::int64_t n) = nullptr;

    /// The key named `name`, or nullptr.
    const Key* key(std::string_view name) const;
};

// ---------------------------------------------------------------------------
// What several descriptors share (core/src/family.cpp).

/// The descriptor `make` builds, built once on first use (a function-local
/// static: no order of static initialisation to rely on). A family's source
/// file defines `POSENC_COLD Family make_family()` and
/// `const Family& family() { return once<make_family>(); }`.
template <Family (*make)()>
const Family& once() {
    static const Family family = make();
    return family;
}

/// The table slot of an absolute family whose header has parse, check
/// (throws for bad n / offset) and write (writes [n, d_model] into a buffer):
/// `f.table = table_slot<Spec, parse, check_table, table>;`.
template <class Spec, Spec (*parse)(const Config&), void (*check)(const Spec&, std::int64_t, std::int64_t),
          void (*write)(const Spec&, std::int64_t, std::int64_t, float*)>
void table_slot(const Config& c, std::int64_t n, std::int64_t offset, const TableStorage& storage) {
    const Spec spec = parse(c);
    check(spec, n, offset);
    write(spec, n, offset, storage(n, spec.d_model));
}

/// The rotate and decay slots of a rotary family whose header has parse,
/// apply (x [n, d] into out) and decay (rope::Decay: upper_bound, ones, random).
template <class Spec, class Decay, Spec (*parse)(const Config&),
          void (*apply)(const Spec&, const float*, std::int64_t, std::int64_t, std::int64_t, float*),
          Decay (*decay)(const Spec&, std::int64_t, std::uint64_t)>
void set_rotary_slots(Family& family) {
    family.rotate = [](const Config& c, const float* x, std::int64_t n, std::int64_t d, std::int64_t offset, float* out) {
        apply(parse(c), x, n, d, offset, out);
    };
    family.decay = [](const Config& c, std::int64_t max_distance, std::uint64_t seed) {
        Decay curves = decay(parse(c), max_distance, seed);
        return Curves{{"upper_bound", std::move(curves.upper_bound)},
                      {"ones", std::move(curves.ones)},
                      {"random", std::move(curves.random)}};
    };
    // Three curves stepped by a complex multiply per pair and distance (rope::rotary_decay).
    family.decay_work = [](const Config& c, std::int64_t max_distance) {
        return std::vector<budget::Factors>{
            {{double(max_distance + 1), "distances"}, {double(parse(c).head_dim / 2), "pairs"}, {6, "operations per pair"}}};
    };
}

/// One named curve f(m) for m = 0 .. max_distance, [max_distance + 1].
Curves curve(const std::string& name, std::int64_t max_distance, const std::function<double(std::int64_t)>& f);

/// A bias that is a function of the relative position r = j - i alone, prepared
/// from one spec (slopes, bucket tables): f(r) and the spec's causal key.
struct RelativeBias {
    std::function<double(std::int64_t)> at;
    bool causal = false;
};

/// What the slots of set_relative_bias compute from a prepared RelativeBias (family.cpp):
/// bias::relative_matrix; the curve "bias" f(-m) (a key m tokens back); a kernels::RelativeBias tile.
xt::xtensor<float, 2> relative_bias_matrix(const RelativeBias& b, std::int64_t n);
Curves relative_bias_decay(const RelativeBias& b, std::int64_t max_distance);
HeadBias relative_head_bias(const RelativeBias& b, const HeadInputs& in);

/// Fills the bias, decay and head_bias slots of a family whose b(i, j) =
/// relative(spec).at(j - i) (alibi, t5, kerple): `set_relative_bias<relative_of>(f)`.
template <RelativeBias (*relative)(const Config&)>
void set_relative_bias(Family& family) {
    family.bias = [](const Config& c, std::int64_t n) { return relative_bias_matrix(relative(c), n); };
    family.decay = [](const Config& c, std::int64_t max_distance, std::uint64_t) { return relative_bias_decay(relative(c), max_distance); };
    family.head_bias = [](const Config& c, const HeadInputs& in) { return relative_head_bias(relative(c), in); };
}

/// `spec` with its width key set to the head's width when absent (or null), for
/// a content-dependent bias (shaw, transformer_xl).
Config with_head_width(const Config& spec, const std::string& key, std::int64_t width);

/// Throws BadParam ("encoding.<key>") unless the spec's width `value` is the head's `width`.
void check_head_width(const std::string& key, std::int64_t value, std::int64_t width);

}  // namespace posenc
