#include "posenc/attention.hpp"

#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>

#include <xtensor/xadapt.hpp>

#include "posenc/args.hpp"
#include "posenc/budget.hpp"
#include "posenc/kernels.hpp"
#include "posenc/random.hpp"
#include "posenc/registry.hpp"

namespace posenc::attention {
namespace {

using Matrix = xt::xtensor<float, 2>;

Matrix zeros(std::size_t m, std::size_t n) { return xt::zeros<float>({m, n}); }

/// a [m, k] . b [k, n]
Matrix matmul(const Matrix& a, const Matrix& b) {
    Matrix out = xt::empty<float>({a.shape()[0], b.shape()[1]});
    kernels::matmul(a.data(), b.data(), out.data(), a.shape()[0], a.shape()[1], b.shape()[1]);
    return out;
}

/// a [m, k] . b [n, k]^T * scale: every q.k at once (the head's kernels::scores).
Matrix scores(const Matrix& a, const Matrix& b, float scale) {
    Matrix out = xt::empty<float>({a.shape()[0], b.shape()[0]});
    kernels::scores(a.data(), b.data(), out.data(), a.shape()[0], b.shape()[0], a.shape()[1], scale);
    return out;
}

Matrix add(const Matrix& a, const Matrix& b) {
    Matrix out = a;
    for (std::size_t k = 0; k < out.size(); ++k) out.data()[k] += b.data()[k];
    return out;
}

Matrix subtract(const Matrix& a, const Matrix& b) {
    Matrix out = a;
    for (std::size_t k = 0; k < out.size(); ++k) out.data()[k] -= b.data()[k];
    return out;
}

/// The float32 range of a head on the caller's inputs. Token embeddings are
/// small (N(0, 1/d_model) times at most 1e6), but a caller's x (and, in
/// forward, its weights) may hold any finite float32, and a head on them could
/// overflow: an infinite or NaN projection, a rotated pair past 3.4e38, or a
/// logit that overflows to -infinity and silently gets weight 0. Each step is
/// checked as it is made; a failure is BadParam "x" with the inputs' magnitudes.
struct Range {
    /// The largest magnitudes of the inputs, for the message ("numbers up to 3e+38 in magnitude").
    std::function<std::string()> inputs;

    [[noreturn]] void refuse(const std::string& allowed) const { throw_bad_param("x", inputs(), allowed); }

    /// q, k or v [rows, cols] made from the inputs: every entry finite.
    void projection(const float* a, std::size_t count, const char* what) const {
        if (kernels::first_nonfinite(a, count) != count)
            refuse(std::string("inputs whose projections stay within float32 (3.4e38); here the ") + what + " x W overflow");
    }
    void projection(const Matrix& a, const char* what) const { projection(a.data(), a.size(), what); }

    /// The head's output [count]: finite when the checks above passed (a last guard).
    void output(const float* a, std::size_t count) const {
        if (kernels::first_nonfinite(a, count) != count)
            refuse("inputs for which the head's output stays within float32 (3.4e38)");
    }

    /// The logits q_i . k_j * scale of q [n, d], k [m, d]: |logit| <= scale * sum_c max|q_c| max|k_c| must
    /// be <= kMaxLogit, and sum_c max|q_c| <= kMaxLogit / 100, which leaves room for a relative
    /// bias q_i . a(j - i) with entries up to 100 (Shaw, Transformer-XL).
    void logits(const float* q, std::size_t n, const float* k, std::size_t m, std::size_t d, double scale) const {
        std::vector<float> qmax(d), kmax(d);
        kernels::column_max_abs(q, n, d, qmax.data());
        kernels::column_max_abs(k, m, d, kmax.data());
        double bound = 0.0, qsum = 0.0;
        for (std::size_t c = 0; c < d; ++c) {
            bound += double(qmax[c]) * double(kmax[c]);
            qsum += double(qmax[c]);
        }
        bound *= std::max(scale, 1.0);  // the kernels sum q . k before they scale it
        if (bound > kMaxLogit || qsum > kMaxLogit / 100)
            refuse("inputs whose logits stay within +-1e38: here sum_c max|q_c| max|k_c|" +
                   (scale > 1 ? " x the scale " + format_magnitude(scale) : std::string()) + " = " +
                   format_magnitude(bound) + " (at most 1e38) and sum_c max|q_c| = " + format_magnitude(qsum) +
                   " (at most 1e36)");
    }
    void logits(const Matrix& q, const Matrix& k, double scale) const {
        logits(q.data(), q.shape()[0], k.data(), k.shape()[0], q.shape()[1], scale);
    }

    /// Runs `body` (which fills a content-dependent bias from q and k: CoPE's q . e), naming
    /// a bias past float32 as the inputs' range ("q" there is the head's q = x W_q).
    template <class Body>
    auto within(Body body) const {
        try {
            return body();
        } catch (const BadParam& e) {
            if (e.param != "q") throw;
            refuse("inputs whose queries x W_q keep the bias within float32: " + e.allowed);
        }
    }

    static constexpr double kMaxLogit = 1e38;
};

/// "numbers up to 3e+38 in magnitude": the largest |x|.
std::string magnitude(const float* x, std::size_t count) {
    return "numbers up to " + format_magnitude(kernels::max_abs(x, count)) + " in magnitude";
}

/// W [d_model, d_head] number `which` (0 q, 1 k, 2 v): Xavier normal, std sqrt(2/(fan_in + fan_out)).
Matrix projection(const Request& r, int which) {
    Matrix w = zeros(std::size_t(r.d_model), std::size_t(r.d_head));
    if (r.projections == Projections::identity) {
        for (std::int64_t c = 0; c < r.d_model; ++c) w(c, c) = 1.0f;
        return w;
    }
    const double std = std::sqrt(2.0 / double(r.d_model + r.d_head));
    Random rng = Random::at(r.seed ^ 0xA77E57100ull, std::uint64_t(which) * std::uint64_t(r.d_model * r.d_head));
    for (float& v : w) v = float(std * rng.normal());
    return w;
}

/// The encoding spec with its width key (the family's width_key, if any) taken
/// from the request when absent, and an error when it disagrees: d_model for
/// absolute encodings and none, d_head for the others.
Config with_width(const Family& family, const Config& spec, std::int64_t d_model, std::int64_t d_head) {
    Config out = spec;
    const std::string& key = family.width_key;
    if (key.empty()) return out;
    const bool on_x = family.acts == Acts::absolute || family.acts == Acts::none;
    const std::int64_t width = on_x ? d_model : d_head;
    const Value* given = find_key(spec, key);
    if (!given || given->is_null()) {
        out[key] = double(width);
    } else {
        if (!given->is_number() || given->get<double>() != double(width))
            throw_bad_param("encoding." + key, describe(*given),
                            std::string(on_x ? "d_model" : "d_head") + " = " + std::to_string(width) + " (the request's)");
    }
    return out;
}

/// Rotates q and k ([n, d_head] each, rows at positions offset ..) as the rotary
/// spec does (a family with a `role` key, xPos, scales q up and k down); returns
/// the scaling's logit_scale. A rotation past float32 is refused as range does.
double rotate_qk(const Family& family, const Config& spec, std::int64_t offset, Matrix& q, Matrix& k,
                 const Range& range) {
    const std::int64_t n = std::int64_t(q.shape()[0]);
    const RotaryFrequencies f = rotary_frequencies(spec, offset + n);
    Config query = spec, key = spec;
    if (family.key("role")) {
        query["role"] = "query";
        key["role"] = "key";
    }
    try {
        q = apply_rotary(query, q, offset);
        k = apply_rotary(key, k, offset);
    } catch (const BadParam& e) {  // named as the request names them: the offset, and x for a q or k too large
        if (e.param == "x") range.refuse("inputs whose queries x W_q and keys x W_k can be rotated: here " + e.allowed);
        if (e.param != "positionOffset") throw;
        throw_bad_param("position_offset", e.value, e.allowed);
    }
    return f.logit_scale;
}

/// A polar family's q and k [n, d] at positions offset ... as the vectors [n, 2d] whose dots are its logits.
std::pair<Matrix, Matrix> polar_qk(const Family& family, const Config& spec, std::int64_t offset, const Matrix& q,
                                   const Matrix& k) {
    const std::size_t n = q.shape()[0], d = q.shape()[1];
    std::pair<Matrix, Matrix> out{xt::empty<float>({n, 2 * d}), xt::empty<float>({n, 2 * d})};
    family.polar(spec, q.data(), std::int64_t(n), std::int64_t(d), offset, false, out.first.data());
    family.polar(spec, k.data(), std::int64_t(n), std::int64_t(d), offset, true, out.second.data());
    return out;
}

/// The magnitudes [n, d] of a polar family's vectors [n, 2d]: |(a, b)| per component.
Matrix magnitudes(const Matrix& polar) {
    const std::size_t n = polar.shape()[0], d = polar.shape()[1] / 2;
    Matrix out = xt::empty<float>({n, d});
    for (std::size_t t = 0; t < n; ++t)
        for (std::size_t c = 0; c < d; ++c) out(t, c) = float(std::hypot(double(polar(t, 2 * c)), double(polar(t, 2 * c + 1))));
    return out;
}

/// b(i, j) as an [n, n] matrix, -infinity where the spec's own causal key masks.
Matrix bias_matrix(const HeadBias& b, std::int64_t n) {
    Matrix out = zeros(std::size_t(n), std::size_t(n));
    if (b.tile) b.tile->add(0, n, 0, n, out.data(), std::size_t(n));
    if (b.extra_width > 0) {
        Matrix product = xt::empty<float>({std::size_t(n), std::size_t(n)});
        kernels::matmul_bt(b.q_extra.data(), b.k_extra.data(), product.data(), std::size_t(n), std::size_t(b.extra_width),
                           std::size_t(n));
        out = add(out, product);
    }
    if (b.causal)
        for (std::int64_t i = 0; i < n; ++i)
            for (std::int64_t j = i + 1; j < n; ++j) out(i, j) = -std::numeric_limits<float>::infinity();
    return out;
}

}  // namespace

const WeightCache::Weights& WeightCache::get(const Request& r) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
        if (it->seed == r.seed && it->d_model == r.d_model && it->d_head == r.d_head && it->projections == r.projections) {
            entries_.splice(entries_.begin(), entries_, it);
            return entries_.front().weights;
        }
    entries_.push_front({r.seed, r.d_model, r.d_head, r.projections, {projection(r, 0), projection(r, 1), projection(r, 2)}});
    if (entries_.size() > 4) entries_.pop_back();
    return entries_.front().weights;
}

std::vector<std::string> tokenize(const std::string& text) {
    std::vector<std::string> tokens;
    const auto is_word = [](unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c >= 0x80; };
    std::string lower = text;
    for (char& c : lower)
        if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    std::size_t i = 0;
    while (i < lower.size()) {
        const unsigned char c = static_cast<unsigned char>(lower[i]);
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            ++i;
            continue;
        }
        std::size_t end = i + 1;
        if (is_word(c)) {
            while (end < lower.size()) {
                const unsigned char e = static_cast<unsigned char>(lower[end]);
                if (is_word(e)) ++end;
                else if (e == '\'' && end + 1 < lower.size() && is_word(static_cast<unsigned char>(lower[end + 1]))) end += 2;
                else break;
            }
        }
        tokens.push_back(lower.substr(i, end - i));
        i = end;
    }
    if (tokens.empty()) throw_bad_param("text", "\"" + text + "\"", "at least one token (a word or a punctuation mark)");
    if (std::int64_t(tokens.size()) > kMaxTokens)
        throw_bad_param("text", "a text of " + std::to_string(tokens.size()) + " tokens",
                        "at most " + std::to_string(kMaxTokens) + " tokens");
    return tokens;
}

std::vector<float> token_embedding(const std::string& token, std::int64_t d_model, std::uint64_t seed) {
    std::uint64_t hash = 1469598103934665603ull;  // FNV-1a 64
    for (const unsigned char c : token) {
        hash ^= c;
        hash *= 1099511628211ull;
    }
    Random rng(hash ^ (seed * 0x9E3779B97F4A7C15ull));
    const double std = 1.0 / std::sqrt(double(d_model));
    std::vector<float> e(static_cast<std::size_t>(d_model));
    for (float& v : e) v = float(std * rng.normal());
    return e;
}

xt::xtensor<float, 2> embed(const std::vector<std::string>& tokens, std::int64_t d_model, std::uint64_t seed,
                            double scale) {
    Matrix x = xt::empty<float>({tokens.size(), std::size_t(d_model)});
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const auto e = token_embedding(tokens[i], d_model, seed);
        for (std::size_t c = 0; c < e.size(); ++c) x.data()[i * std::size_t(d_model) + c] = float(double(e[c]) * scale);
    }
    return x;
}

Embedded embed_tokens(const std::string& text, std::int64_t d_model, std::int64_t seed) {
    std::vector<std::string> tokens = tokenize(text);
    args::model_dim.check(d_model);
    args::seed.check(seed);
    Matrix data = embed(tokens, d_model, std::uint64_t(seed));
    return {std::move(tokens), std::move(data)};
}

std::int32_t token_id(const std::string& token, std::int64_t vocab) {
    args::vocab.check(vocab);
    std::uint32_t h = 0x811c9dc5u;
    const auto mix = [&](std::uint32_t unit) { h = (h ^ unit) * 0x01000193u; };
    // UTF-8 -> code points -> UTF-16 units; an invalid byte reads as U+FFFD, as TextDecoder does.
    for (std::size_t i = 0; i < token.size();) {
        const unsigned char b = static_cast<unsigned char>(token[i]);
        const int extra = b < 0x80 ? 0 : (b >> 5) == 6 ? 1 : (b >> 4) == 14 ? 2 : (b >> 3) == 30 ? 3 : -1;
        std::uint32_t cp = extra == 0 ? b : extra == 1 ? b & 0x1f : extra == 2 ? b & 0x0f : b & 0x07;
        bool ok = extra >= 0 && i + std::size_t(extra) < token.size();
        for (int k = 1; ok && k <= extra; ++k) {
            const unsigned char c = static_cast<unsigned char>(token[i + std::size_t(k)]);
            ok = (c >> 6) == 2;
            cp = (cp << 6) | (c & 0x3f);
        }
        if (!ok) {
            mix(0xfffd);
            ++i;
            continue;
        }
        i += std::size_t(extra) + 1;
        if (cp >= 0x10000) {
            mix(0xd800 + ((cp - 0x10000) >> 10));
            mix(0xdc00 + ((cp - 0x10000) & 0x3ff));
        } else {
            mix(cp);
        }
    }
    return std::int32_t(h % std::uint32_t(vocab));
}

void set_inputs(Request& r, Floats x) {
    if (!r.tokens.empty())
        throw BadParam("x", "attention request: give x or text / tokens, not both (x is the inputs the tokens would give)",
                       "an array and text", "x, or text or tokens");
    const std::size_t width = std::size_t(r.d_model), rows = x.length / width;
    if (x.length % width != 0 || rows < 1 || rows > std::size_t(kMaxTokens))
        throw_bad_param("x", "a Float32Array of length " + std::to_string(x.length),
                        "n * d_model numbers, n in [1, " + std::to_string(kMaxTokens) + "], d_model = " +
                            std::to_string(r.d_model));
    r.x = xt::empty<float>({rows, width});
    std::copy(x.data, x.data + x.length, r.x.data());  // the request owns its inputs
    r.tokens.assign(rows, "");
}

Request parse(const Config& config) {
    const SpecReader read(config, "attention request",
                          {"tokens", "text", "d_model", "d_head", "encoding", "causal", "seed", "projections", "position_offset",
                           "embedding_scale", "wq", "wk", "wv"});
    Request r;
    const auto tokens = read.string_list("tokens");
    const auto text = read.text("text");
    if (tokens && text)
        throw BadParam("tokens", "attention request: give tokens or text, not both", "tokens and text", "tokens or text, not both");
    if (text) r.tokens = tokenize(*text);
    if (tokens) {
        if (tokens->empty() || std::int64_t(tokens->size()) > kMaxTokens)
            throw_bad_param("tokens", "a list of " + std::to_string(tokens->size()) + " tokens",
                            "1 to " + std::to_string(kMaxTokens) + " tokens");
        r.tokens = *tokens;
    }
    r.d_model = read.integer("d_model", r.d_model, 1, kMaxModelDim);
    r.d_head = read.integer("d_head", r.d_head, 1, kMaxModelDim);
    if (const Config* encoding = read.object("encoding")) r.encoding = *encoding;
    else r.encoding = Config{{"type", std::string("none")}};
    r.causal = read.boolean("causal", false);
    r.seed = std::uint64_t(read.integer("seed", 0, 0, kMaxSeed));
    const bool given = read.present("wq") || read.present("wk") || read.present("wv");
    const std::string projections = read.choice("projections", given ? "given" : "random", {"random", "identity", "given"});
    r.projections = projections == "identity" ? Projections::identity : projections == "given" ? Projections::given : Projections::random;
    if (r.projections == Projections::given) {
        const std::size_t count = std::size_t(r.d_model * r.d_head);
        const std::string shape = std::to_string(count) + " numbers in [-1e4, 1e4] (d_model * d_head = " + std::to_string(r.d_model) +
                                  " * " + std::to_string(r.d_head) + ", row-major [d_model, d_head])";
        for (const auto& [key, out] : {std::pair<const char*, std::vector<float>*>{"wq", &r.wq}, {"wk", &r.wk}, {"wv", &r.wv}}) {
            const auto list = read.number_list(key, -1e4, 1e4, "a number in [-1e4, 1e4]");
            if (!list) throw_bad_param(key, "undefined", shape + ": projections \"given\" takes wq, wk and wv");
            if (list->size() != count) throw_bad_param(key, "a list of " + std::to_string(list->size()) + " numbers", shape);
            out->assign(list->begin(), list->end());
        }
    }
    r.position_offset = read.integer("position_offset", 0, 0, kMaxPosition);
    r.embedding_scale = read.number("embedding_scale", 1.0, 0.0, 1e6, "a number in [0, 1e6]");
    return r;
}

/// The work of a head: three projections [n, d_model] x [d_model, d_head], then
/// `products` [n, n] products of length d_head (logits, terms, weights . v) in
/// the blocked SIMD kernels, which do 16 multiply-adds in the time the budget
/// gives one scalar operation (kernels::matmul_bt runs at 29 GFLOP/s in wasm,
/// README "Benchmark"; the budget's operation is about 7 ns), and the softmax's
/// exp of every [n, n] weight; before them, drawing W_q, W_k, W_v (random projections,
/// counted even when the WeightCache has them: 17M normals take 1.1 s in wasm).
static std::vector<budget::Factors> head_work(std::int64_t n, std::int64_t d_model, std::int64_t d_head, int products,
                                              bool drawn) {
    return {{{drawn ? 3.0 : 0.0, "drawn projections"}, {double(d_model), "inputs"}, {double(d_head), "outputs"},
             {budget::kDraw, "operations per draw"}},
            {{3, "projections"}, {double(n), "tokens"}, {double(d_model), "inputs"}, {double(d_head) / 16, "SIMD steps per output"}},
            {{double(products), "n x n products"}, {double(n), "queries"}, {double(n), "keys"},
             {double(d_head) / 16, "SIMD steps per dot"}},
            {{double(n), "queries"}, {double(n), "keys"}, {budget::kTrig, "operations per exp"}}};
}

Result run(const Request& r, WeightCache* cache) {
    if (r.projections == Projections::identity && r.d_head != r.d_model)
        throw_bad_param("d_head", std::to_string(r.d_head),
                        "d_model = " + std::to_string(r.d_model) + " with identity projections");
    if (r.x.size() == 0 && r.tokens.empty())
        throw BadParam("text", "attention request: missing required key \"text\" or \"tokens\" (or x)", "undefined",
                       "text, tokens or x");
    Result result;
    result.tokens = r.tokens;
    Matrix x;
    if (r.x.size() > 0) {
        if (std::int64_t(r.x.shape()[1]) != r.d_model)
            throw_bad_param("x", "[" + std::to_string(r.x.shape()[0]) + ", " + std::to_string(r.x.shape()[1]) + "]",
                            "a [n, d_model] matrix with d_model = " + std::to_string(r.d_model));
        x = r.x;
    } else {
        x = embed(r.tokens, r.d_model, r.seed, r.embedding_scale);
    }
    const std::int64_t n = std::int64_t(x.shape()[0]);
    if (n < 1 || n > kMaxTokens)
        throw_bad_param("tokens", std::to_string(n) + " tokens", "1 to " + std::to_string(kMaxTokens) + " tokens");

    budget::check_work("attention", "tokens", head_work(n, r.d_model, r.d_head, 6, r.projections == Projections::random),
                       4.0 * double(n) * (10.0 * double(n) + 6.0 * double(r.d_model + r.d_head)));
    const Family& family = family_of(r.encoding);
    const Config encoding = with_width(family, r.encoding, r.d_model, r.d_head);
    WeightCache local;
    WeightCache::Weights trained;
    if (r.projections == Projections::given)
        for (std::size_t k = 0; k < 3; ++k) {
            const std::vector<float>& from = k == 0 ? r.wq : k == 1 ? r.wk : r.wv;
            trained[k] = xt::adapt(from, {std::size_t(r.d_model), std::size_t(r.d_head)});
        }
    const WeightCache::Weights& w = r.projections == Projections::given ? trained : (cache ? *cache : local).get(r);
    const Matrix &wq = w[0], &wk = w[1], &wv = w[2];
    float scale = float(1.0 / std::sqrt(double(r.d_head)));
    Matrix v;
    Terms& t = result.terms;
    const Range range{[&] { return magnitude(x.data(), x.size()); }};
    // x W, and q k^T * scale, each checked against float32's range (Range).
    const auto project = [&](const Matrix& a, const Matrix& weights, const char* what) {
        Matrix out = matmul(a, weights);
        range.projection(out, what);
        return out;
    };
    const auto logits = [&](const Matrix& a, const Matrix& b, float s) {
        range.logits(a, b, s);
        return scores(a, b, s);
    };

    if (family.acts == Acts::absolute) {
        const Matrix p = position_table(encoding, n, r.position_offset);  // [n, d_model]
        const Matrix h = add(x, p);
        const Matrix q = project(h, wq, "queries"), k = project(h, wk, "keys");
        v = project(h, wv, "values");
        result.logits = logits(q, k, scale);
        result.positions = p;
        t.scale = double(scale);
        result.q = q;
        result.k = k;
        const Matrix qw = project(x, wq, "queries"), kw = project(x, wk, "keys"), qp = matmul(p, wq), kp = matmul(p, wk);
        t.carrier = acts_name(family.acts);
        t.cc = logits(qw, kw, scale);
        t.cp = logits(qw, kp, scale);
        t.pc = logits(qp, kw, scale);
        t.pp = scores(qp, kp, scale);
    } else {
        const Matrix q = project(x, wq, "queries"), k = project(x, wk, "keys");
        v = project(x, wv, "values");
        HeadBias hb;  // a bias family's, prepared from the head's own q, k and projections
        if (family.acts == Acts::bias)
            hb = head_bias(encoding, HeadInputs{q.data(), k.data(), wq.data(), wk.data(), n, r.d_model, r.d_head, x.data()});
        // The content scores q . k (a polar family's content is its magnitudes' scores instead, below).
        const Matrix content = family.acts == Acts::polar ? Matrix() : logits(q, k, float(scale * hb.content_scale));
        t.scale = double(float(scale * hb.content_scale));
        if (family.acts == Acts::rotary) {
            Matrix qr = q, kr = k;
            const double logit_scale = rotate_qk(family, encoding, r.position_offset, qr, kr, range);
            result.logits = logits(qr, kr, float(scale * logit_scale));
            t.scale = double(float(scale * logit_scale));
            result.q_unrotated = q;
            result.k_unrotated = k;
            result.q = qr;
            result.k = kr;
            t.carrier = acts_name(family.acts);
            t.position = subtract(result.logits, content);
        } else if (family.acts == Acts::polar) {
            // PoPE: the logits of the polar vectors; "what", the logits with every phase 0 (sum of mu_q mu_k / sqrt(d));
            // "where", the rest, what the phases change.
            const auto [qp, kp] = polar_qk(family, encoding, r.position_offset, q, k);
            result.logits = logits(qp, kp, scale);
            result.q_unrotated = q;
            result.k_unrotated = k;
            result.q = qp;
            result.k = kp;
            t.carrier = acts_name(family.acts);
            t.content = scores(magnitudes(qp), magnitudes(kp), scale);
            t.position = subtract(result.logits, t.content);
        } else if (family.acts == Acts::none) {
            result.logits = content;
            t.carrier = acts_name(family.acts);
            t.position = zeros(std::size_t(n), std::size_t(n));
        } else {
            const Matrix b = range.within([&] { return bias_matrix(hb, n); });
            result.logits = add(content, b);
            t.carrier = acts_name(family.acts);
            t.position = b;
            for (const auto& named : hb.parts) {
                Matrix part = zeros(std::size_t(n), std::size_t(n));
                const kernels::BiasTile& tile = *named.second;
                range.within([&] { tile.add(0, n, 0, n, part.data(), std::size_t(n)); });
                t.parts.emplace_back(named.first, std::move(part));
            }
        }
        if (family.acts != Acts::polar) t.content = content;
        if (family.acts != Acts::rotary && family.acts != Acts::polar) {
            result.q = q;
            result.k = k;
        }
    }

    // The head's last steps, as training takes them (kernels::attend: mask, softmax, weights . v).
    result.weights = result.logits;
    result.output = xt::empty<float>({std::size_t(n), v.shape()[1]});
    kernels::attend(result.weights.data(), v.data(), result.output.data(), std::size_t(n), v.shape()[1], r.causal);
    if (r.causal)  // the logits as the softmax saw them
        for (std::int64_t i = 0; i < n; ++i)
            for (std::int64_t j = i + 1; j < n; ++j) result.logits(i, j) = -std::numeric_limits<float>::infinity();
    range.output(result.output.data(), result.output.size());
    result.x = std::move(x);
    result.v = std::move(v);
    return result;
}

Forward parse_forward(const Config& config) {
    const SpecReader read(config, "attentionForward request",
                          {"n", "d_model", "d_head", "causal", "encoding", "position_offset"});
    Forward f;
    f.n = read.required_integer("n", 1, kMaxForwardTokens);
    f.d_model = read.required_integer("d_model", 1, kMaxModelDim);
    f.d_head = read.required_integer("d_head", 1, kMaxForwardHeadDim);
    f.causal = read.boolean("causal", false);
    f.position_offset = read.integer("position_offset", 0, 0, kMaxPosition);
    if (const Config* encoding = read.object("encoding")) f.encoding = *encoding;
    else f.encoding = Config{{"type", std::string("none")}};
    const Family& family = family_of(f.encoding);
    if (family.acts == Acts::absolute)
        throw_bad_param("encoding.type", '"' + family.type + '"',
                        "a rotary (" + types_acting(Acts::rotary) + "), polar (" + types_acting(Acts::polar) +
                            ") or bias family (" + types_acting(Acts::bias) + ") or none; an absolute encoding is added to x before the head: add positionTable(spec, "
                            "n).data to x");
    return f;
}

void forward(const Forward& f, Floats x, Floats wq, Floats wk, Floats wv, float* out) {
    check_length("x", x, f.n * f.d_model, "n * d_model");
    check_length("wq", wq, f.d_model * f.d_head, "d_model * d_head");
    check_length("wk", wk, f.d_model * f.d_head, "d_model * d_head");
    check_length("wv", wv, f.d_model * f.d_head, "d_model * d_head");
    // kernels::attention: fused blocks, 4-wide SIMD dots, one exp per (query, key) (measured: core/README.md, "Limits").
    budget::check_work("attentionForward", "n",
                       {{{3, "projections"}, {double(f.n), "tokens"}, {double(f.d_model), "inputs"}, {double(f.d_head), "outputs"}},
                        {{double(f.n), "queries"}, {double(f.n), "keys"},
                         {double(f.d_head + 4) / 4, "operations per pair (a SIMD dot of d_head, an exp)"}}},
                       4.0 * double(f.n) * double(f.d_head));
    const std::size_t n = std::size_t(f.n), d_model = std::size_t(f.d_model), d = std::size_t(f.d_head);
    const Range range{[&] {
        return magnitude(x.data, x.length) + " (wq, wk, wv up to " + format_magnitude(kernels::max_abs(wq.data, wq.length)) +
               ", " + format_magnitude(kernels::max_abs(wk.data, wk.length)) + ", " +
               format_magnitude(kernels::max_abs(wv.data, wv.length)) + ")";
    }};
    Matrix q = xt::empty<float>({n, d}), k = xt::empty<float>({n, d}), v = xt::empty<float>({n, d});
    kernels::matmul(x.data, wq.data, q.data(), n, d_model, d);
    kernels::matmul(x.data, wk.data, k.data(), n, d_model, d);
    kernels::matmul(x.data, wv.data, v.data(), n, d_model, d);
    range.projection(q, "queries");
    range.projection(k, "keys");
    range.projection(v, "values");
    const float scale = float(1.0 / std::sqrt(double(f.d_head)));
    const Family& family = family_of(f.encoding);
    const Config encoding = with_width(family, f.encoding, f.d_model, f.d_head);
    if (family.acts == Acts::none) {
        range.logits(q, k, scale);
        kernels::attention(q.data(), k.data(), v.data(), f.n, f.d_head, f.d_head, scale, f.causal, nullptr, out);
    } else if (family.acts == Acts::polar) {
        const auto [qp, kp] = polar_qk(family, encoding, f.position_offset, q, k);
        range.logits(qp.data(), n, kp.data(), n, 2 * d, scale);
        kernels::attention(qp.data(), kp.data(), v.data(), f.n, 2 * f.d_head, f.d_head, scale, f.causal, nullptr, out);
    } else if (family.acts == Acts::rotary) {
        const double logit_scale = rotate_qk(family, encoding, f.position_offset, q, k, range);
        range.logits(q, k, scale * logit_scale);
        kernels::attention(q.data(), k.data(), v.data(), f.n, f.d_head, f.d_head, float(scale * logit_scale), f.causal,
                           nullptr, out);
    } else {
        const HeadBias b = head_bias(encoding, HeadInputs{q.data(), k.data(), wq.data, wk.data, f.n, f.d_model, f.d_head, x.data});
        const float scale_b = float(scale * b.content_scale);
        range.logits(q, k, scale_b);
        const bool causal = f.causal || b.causal;
        if (b.extra_width == 0) {
            range.within([&] { kernels::attention(q.data(), k.data(), v.data(), f.n, f.d_head, f.d_head, scale_b, causal, b.tile.get(), out); });
        } else {
            // Transformer-XL: [q | Q'/scale] . [k | K'] * scale = q.k * scale + Q'.K' (see relative_factors).
            const std::size_t e = std::size_t(b.extra_width), wide = d + e;
            std::vector<float> qa(n * wide), ka(n * wide);
            for (std::size_t i = 0; i < n; ++i) {
                std::copy(q.data() + i * d, q.data() + (i + 1) * d, qa.data() + i * wide);
                std::copy(k.data() + i * d, k.data() + (i + 1) * d, ka.data() + i * wide);
                for (std::size_t c = 0; c < e; ++c) {
                    qa[i * wide + d + c] = b.q_extra[i * e + c] / scale;
                    ka[i * wide + d + c] = b.k_extra[i * e + c];
                }
            }
            range.logits(qa.data(), n, ka.data(), n, wide, scale);
            kernels::attention(qa.data(), ka.data(), v.data(), f.n, std::int64_t(wide), f.d_head, scale, causal,
                               b.tile.get(), out);
        }
    }
    range.output(out, n * d);
}

}  // namespace posenc::attention
