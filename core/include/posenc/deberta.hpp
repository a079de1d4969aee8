// posenc/deberta.hpp: DeBERTa's disentangled attention (He et al. 2021,
// "DeBERTa: Decoding-enhanced BERT with Disentangled Attention", eq. 2-4 and
// section 3.1), as DeBERTa-v2/v3 compute it in transformers'
// models/deberta_v2/modeling_deberta_v2.py. One table of relative embeddings E
// (2 * att_span rows, hidden_size wide, LayerNorm'd) is projected into position
// keys K_r = E W_k and position queries Q_r = E W_q (share_att_key: the head's
// own projections), and the logit of query i and key j is
//   (q_i . k_j  +  q_i . K_r[idx(i, j)]  +  k_j . Q_r[idx(i, j)]) / sqrt(d * scale_factor)
//    content       content-to-position     position-to-content
// with idx(i, j) = clamp(delta(i - j) + att_span, 0, 2 att_span - 1), delta the
// log-bucketed relative position (query minus key) and scale_factor = 1 + the
// number of position terms in pos_att_type. transformers reaches p2c's row by
// negating a key-by-key table and transposing the gathered scores; since
// delta is odd, that is the same row idx(i, j) as c2p's.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "posenc/config.hpp"
#include "posenc/family.hpp"
#include "posenc/kernels.hpp"

namespace posenc::deberta {

/// The largest head_dim, hidden_size, position_buckets and debertaRelativePosition length.
constexpr std::int64_t kMaxLength = 4096;
/// The largest max_relative_positions and max_position_embeddings.
constexpr std::int64_t kMaxSpan = 65536;

/// The family's descriptor: type "deberta", acts bias, width key head_dim; keys
/// as Spec; computes the bias and decay of a stand-in head (see bias) and the
/// head's disentangled terms.
const Family& family();

/// What the family does in train() (posenc/train_slots.hpp; train.cpp reaches it through
/// train::training_of).
const train::Training& training();

/// `{type: 'deberta', head_dim, hidden_size, position_buckets, max_relative_positions,
/// max_position_embeddings, pos_att_type, relative_attention, share_att_key, norm_rel_ebd,
/// layer_norm_eps, rel_embeddings?, seed, causal}`. The defaults are DeBERTa-v3's
/// (position_buckets 256, max_relative_positions -1 so 512, pos_att_type
/// ["p2c", "c2p"], share_att_key, norm_rel_ebd "layer_norm", layer_norm_eps 1e-7).
struct Spec {
    std::int64_t head_dim = 64;
    /// The width of E's rows: the model's hidden_size; in the page's head its d_model.
    std::int64_t hidden_size = 64;
    /// <= 0: no log buckets (the relative position itself, clamped at +-att_span).
    std::int64_t position_buckets = 256;
    /// < 1: max_position_embeddings (as transformers replaces it).
    std::int64_t max_relative_positions = -1;
    std::int64_t max_position_embeddings = 512;
    bool c2p = true, p2c = true;  ///< pos_att_type
    bool relative_attention = true;
    bool share_att_key = true;
    bool layer_norm = true;       ///< norm_rel_ebd "layer_norm" (else "none")
    double layer_norm_eps = 1e-7;
    /// Explicit E [2 att_span, hidden_size] row-major (before the LayerNorm, which
    /// norm_rel_ebd "none" skips); empty: drawn N(0, 1) from seed, nn.Embedding's init.
    std::vector<float> rel_embeddings;
    std::uint64_t seed = 0;
    bool causal = false;

    /// max_relative_positions, or max_position_embeddings when it is < 1.
    std::int64_t max_relative() const;
    /// att_span (pos_ebd_size): position_buckets when > 0, else max_relative(). E has 2 att_span rows.
    std::int64_t span() const;
    /// 1 + (c2p in pos_att_type) + (p2c in pos_att_type).
    int scale_factor() const;
};

/// Reads a spec. Throws BadParam for a key out of its range, a pos_att_type
/// entry other than "c2p" or "p2c", position_buckets 1, log buckets whose
/// max_relative() - 1 is not above position_buckets / 2 (the bucket formula
/// divides by its log), and rel_embeddings of a length other than 2 att_span hidden_size.
Spec parse(const Config& config);

/// transformers' make_log_bucket_position for one relative position r (query
/// minus key): r itself while |r| <= mid = bucket_size / 2 (integer division),
/// else sign(r) (ceil(ln(|r| / mid) / ln((max_position - 1) / mid) (mid - 1)) + mid),
/// computed in float32 step by step as torch does (the log of a float32 rounded
/// once from float64). Not clamped: |r| >= max_position gives buckets past
/// bucket_size - 1 (r = 1000 at 256 / 512 is 317), which idx later clamps.
/// Requires bucket_size >= 2 and max_position - 1 > mid (parse checks them).
std::int64_t log_bucket(std::int64_t r, std::int64_t bucket_size, std::int64_t max_position);

/// transformers' build_relative_position(query_size, key_size, bucket_size,
/// max_position): [query_size, key_size] row-major, entry (i, j) = i - j,
/// log-bucketed when bucket_size > 0 and max_position > 0. JS
/// debertaRelativePosition(queryLength, keyLength, position_buckets,
/// max_relative_positions). Throws BadParam ("queryLength", "keyLength",
/// "position_buckets", "max_relative_positions") for sizes outside [1, 4096] or a
/// bucketing the formula cannot do (see parse).
std::vector<std::int32_t> relative_position(std::int64_t query_size, std::int64_t key_size, std::int64_t bucket_size,
                                            std::int64_t max_position);

/// Rows first .. first + count - 1 of E as the attention reads it ([count, hidden_size]):
/// explicit or drawn, each row LayerNorm'd (mean 0, variance 1 over hidden_size,
/// eps layer_norm_eps, unit weight and zero bias) when norm_rel_ebd is "layer_norm".
xt::xtensor<float, 2> relative_embeddings(const Spec& spec, std::int64_t first, std::int64_t count);

/// What the head adds: the c2p and p2c terms, already divided by sqrt(d scale_factor).
enum class Part { both, c2p, p2c };

/// The bias of the head over `in` (its q, k and projections W_q, W_k
/// [hidden_size, head_dim]; with share_att_key false, position projections drawn
/// from seed as nn.Linear draws them) as a tile of the fused kernel: rows of E the
/// head can reach (|i - j| < n) projected once, then q_i . K_r and k_j . Q_r per
/// row (float64 sums, rounded once). Null when relative_attention is false or
/// pos_att_type is empty.
std::unique_ptr<kernels::BiasTile> bias_tile(const Spec& spec, const HeadInputs& in, Part part);

/// The bias of a stand-in head, [n, n] (-infinity above the diagonal when causal):
/// every query and key the same vector u ~ N(0, 1) [head_dim] and W_q, W_k
/// drawn as nn.Linear draws them (uniform, +-1 / sqrt(hidden_size)), both from
/// seed, so it shows the position terms alone: (u . K_r[idx] + u . Q_r[idx]) / sqrt(d scale_factor),
/// constant along each diagonal. n in [1, 4096].
xt::xtensor<float, 2> bias(const Spec& spec, std::int64_t n);

}  // namespace posenc::deberta
