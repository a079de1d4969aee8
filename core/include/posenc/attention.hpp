// posenc/attention.hpp: a single attention head over a sentence, with every
// encoding acting where it belongs (Vaswani et al. 2017, eq. 1):
//   absolute (and none): H = X + P, then q, k, v = H W_q, H W_k, H W_v
//   rotary: q, k = X W_q, X W_k rotated by position (never v)
//   bias: logits + b(i, j), which may read the head's q and k (cope, deberta) or its inputs (fox)
//   polar: q, k = X W_q, X W_k as magnitudes with position phases, [n, 2 d_head] (pope)
// (each family's `acts`, family.hpp; the families: see families()).
// logits = q k^T / sqrt(d_head) (times a rotary scaling's logit_scale), an
// optional causal mask, a stable row softmax, and output = weights . v.
#pragma once

#include <array>
#include <cstdint>
#include <list>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "posenc/config.hpp"

namespace posenc::attention {

/// The most tokens a request of the page's head (run) may have: it returns
/// several [n, n] matrices (logits, weights, terms), 16 MiB each at 2048.
constexpr std::int64_t kMaxTokens = 2048;

/// The limits of forward (the caller's own weights; nothing n x n is stored).
constexpr std::int64_t kMaxForwardTokens = 8192;
constexpr std::int64_t kMaxForwardHeadDim = 256;
constexpr std::int64_t kMaxModelDim = 4096;

/// Splits text into lower-cased tokens. A token is a run of letters and digits
/// (ASCII a-z, 0-9, and any non-ASCII UTF-8 byte, so "café" stays whole) with
/// inner apostrophes kept ("don't"); every other non-space character is a token
/// of its own. As a regex on the lower-cased text: [a-z0-9\x80-\xff]+(?:'[a-z0-9\x80-\xff]+)*|\S
/// Throws std::invalid_argument when there are more than kMaxTokens tokens
/// ("text = a text of 513 tokens is invalid: expected at most 512 tokens") or none.
std::vector<std::string> tokenize(const std::string& text);

/// The embedding of a token, [d_model]: N(0, 1/d_model) draws seeded by the
/// FNV-1a hash of the token's bytes and `seed`, so the same word has the same
/// vector at every position and on every platform.
std::vector<float> token_embedding(const std::string& token, std::int64_t d_model, std::uint64_t seed);

/// The token embeddings of a sentence, [tokens.size(), d_model] row-major:
/// row i is token_embedding(tokens[i], d_model, seed) times `scale` (rounded once to float32).
xt::xtensor<float, 2> embed(const std::vector<std::string>& tokens, std::int64_t d_model, std::uint64_t seed,
                            double scale = 1.0);

/// What embed_tokens returns: the tokens and their embeddings, data [n, d_model].
struct Embedded {
    std::vector<std::string> tokens;
    xt::xtensor<float, 2> data;
};

/// JS embedTokens(text, dModel, seed): the head's token embeddings of `text`
/// (tokenize, then embed with scale 1). Throws BadParam as tokenize does
/// ("text"), for d_model outside [1, kMaxModelDim] ("dModel") and seed outside
/// [0, kMaxSeed] ("seed").
Embedded embed_tokens(const std::string& text, std::int64_t d_model, std::int64_t seed);

/// A token's id among `vocab` (the trained head's reading of a word: the same word, the same id):
/// the 32-bit FNV-1a hash of its UTF-16 code units (as JS's charCodeAt reads them), mod vocab.
/// Throws BadParam ("vocab") outside [1, 1024].
std::int32_t token_id(const std::string& token, std::int64_t vocab);

enum class Projections { random, identity, given };

/// An attention request (JS: `attention(request)`).
struct Request {
    std::vector<std::string> tokens;  ///< the sentence, or
    xt::xtensor<float, 2> x;          ///< raw inputs [n, d_model] (used when non-empty)
    std::int64_t d_model = 64;
    std::int64_t d_head = 64;
    Config encoding;                  ///< a spec; d_model / head_dim / d_head filled from the request when absent
    bool causal = false;
    std::uint64_t seed = 0;
    Projections projections = Projections::random;  ///< random: Xavier N(0, 2/(d_model + d_head)); identity: d_head = d_model;
                                                    ///< given: wq, wk, wv below (a trained head's, train())
    std::vector<float> wq, wk, wv;    ///< given: [d_model, d_head] each, row-major
    std::int64_t position_offset = 0;
    /// Multiplies every token embedding (not x, not the positions). Vaswani et al. 2017 (section 3.4)
    /// scale their embeddings by sqrt(d_model); with the N(0, 1/d_model) embeddings here, that makes
    /// the content logits of order 1 (a sharper head). In [0, 1e6]; 1 leaves the embeddings as drawn.
    double embedding_scale = 1.0;
};

/// How the logits split by where position enters.
struct Terms {
    /// "absolute": logits = cc + cp + pc + pp, the four terms of (w + p) W_q ((w + p) W_k)^T / sqrt(d):
    ///   content-content, content-position, position-content, position-position.
    /// "rotary": content = the logits of the unrotated q, k; position = logits - content.
    /// "bias": content = q k^T / sqrt(d); position = the bias b(i, j).
    /// "polar": content = the logits with every phase 0 ("what": the magnitudes' products / sqrt(d)); position = logits - content.
    /// "none": content = the logits; position = 0.
    std::string carrier;
    xt::xtensor<float, 2> cc, cp, pc, pp;  ///< [n, n] each, "absolute" only
    xt::xtensor<float, 2> content, position;  ///< [n, n] each, the other carriers
    /// The factor of q . k in the content scores (and logits): 1/sqrt(d_head), times a
    /// rotary scaling's logit_scale or a bias family's content_scale (DeBERTa: 1/sqrt(3 d_head)).
    double scale = 1.0;
    /// "bias" families that split their bias (HeadBias::parts): DeBERTa's "c2p" and "p2c", [n, n] each.
    std::vector<std::pair<std::string, xt::xtensor<float, 2>>> parts;
};

struct Result {
    std::vector<std::string> tokens;
    xt::xtensor<float, 2> x;          ///< [n, d_model], the inputs: token embeddings (times embedding_scale), or the request's x
    xt::xtensor<float, 2> positions;  ///< [n, d_model], P added to x ("absolute" only; empty otherwise)
    xt::xtensor<float, 2> q, k, v;    ///< [n, d_head] each, as they enter q k^T (rotated for "rotary"; q and k
                                      ///< [n, 2 d_head] for "polar", the magnitudes with their phases, cos and sin interleaved)
    xt::xtensor<float, 2> q_unrotated, k_unrotated;  ///< [n, d_head], X W_q and X W_k before the rotation ("rotary", "polar")
    xt::xtensor<float, 2> logits;   ///< [n, n], -infinity where masked
    xt::xtensor<float, 2> weights;  ///< [n, n], rows sum to 1, 0 where masked
    xt::xtensor<float, 2> output;   ///< [n, d_head]
    Terms terms;                    ///< unmasked (the mask applies to the logits)
};

/// W_q, W_k, W_v [d_model, d_head] of the page's head, kept between requests:
/// drawing them costs far more than a small head (0.7 ms at d 64, 3 ms at 128).
/// Keyed by (seed, d_model, d_head, projections); holds the last 4 used.
class WeightCache {
public:
    using Weights = std::array<xt::xtensor<float, 2>, 3>;
    const Weights& get(const Request& request);

private:
    struct Entry {
        std::uint64_t seed;
        std::int64_t d_model, d_head;
        Projections projections;
        Weights weights;
    };
    std::list<Entry> entries_;  // most recent first
};

/// Runs the head. Throws std::invalid_argument for a bad encoding spec, an
/// encoding width that disagrees with d_model / d_head, identity projections
/// with d_head != d_model, no tokens, more than kMaxTokens, or x that is not
/// [n, d_model]; each message names the parameter, value and allowed range.
/// cache (may be null) keeps the projection weights for the next call.
Result run(const Request& request, WeightCache* cache = nullptr);

/// Reads a request object {tokens | text, d_model, d_head, encoding, causal,
/// seed, projections, position_offset, embedding_scale, wq?, wk?, wv?} (keys as in JS); x is
/// passed separately. wq, wk, wv (lists of d_model * d_head numbers in [-1e4, 1e4], row-major
/// [d_model, d_head], all three or none) give the head's projections (projections "given", the
/// default when they are present). Throws BadParam naming the key for a missing or wrong-length list.
Request parse(const Config& config);

/// Sets the request's inputs x [n, d_model] from a flat row-major array (JS:
/// request.x), and its tokens to n empty names. Throws BadParam ("x") when the
/// request also has text or tokens, or unless x.length is n * d_model with n in [1, kMaxTokens].
void set_inputs(Request& request, Floats x);

/// The shape and encoding of forward (JS: attentionForward(request)).
struct Forward {
    std::int64_t n = 0;        ///< tokens, [1, kMaxForwardTokens]
    std::int64_t d_model = 0;  ///< input width, [1, kMaxModelDim]
    std::int64_t d_head = 0;   ///< head width, [1, kMaxForwardHeadDim]
    bool causal = false;       ///< keys after the query are hidden
    Config encoding;           ///< {type: 'none'} when absent
    std::int64_t position_offset = 0;  ///< position of row 0, [0, 2^40]
};

/// Reads {n, d_model, d_head, causal, encoding, position_offset} (keys as in JS;
/// x, wq, wk, wv are passed as arrays beside it) and checks the encoding: a
/// rotary or bias family or none (their `acts`; the message lists them from
/// families()); an absolute encoding is refused, since it belongs to x before
/// the head: add its positionTable to x.
Forward parse_forward(const Config& config);

/// One attention head with the caller's weights (Vaswani et al. 2017, eq. 1):
///   Q = X W_q, K = X W_k, V = X W_v   (x [n, d_model], w* [d_model, d_head], row-major)
///   rotary encodings rotate Q and K (never V) at positions offset .. offset + n - 1;
///   S = Q K^T / sqrt(d_head) * logit_scale (a rotary scaling's) + b(i, j) (a bias family's);
///   causal (or the bias spec's own causal key): keys after the query are hidden;
///   out [n, d_head] = softmax_rows(S) V,
/// by kernels::attention, blockwise, so nothing n x n is held. Throws BadParam
/// for arrays whose length is not their shape's ("x": n * d_model; "wq", "wk",
/// "wv": d_model * d_head), a bad encoding spec, or one whose width disagrees
/// with d_head, before writing anything.
void forward(const Forward& request, Floats x, Floats wq, Floats wk, Floats wv, float* out);

}  // namespace posenc::attention
