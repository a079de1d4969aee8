#include "posenc/deberta.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "posenc/args.hpp"
#include "posenc/bias.hpp"
#include "posenc/random.hpp"
#include "posenc/train.hpp"
#include "posenc/train_slots.hpp"

namespace posenc::deberta {

namespace {

constexpr std::int64_t kMaxSize = kMaxLength;
constexpr double kMaxEmbedding = 1e4;      // |E| entries: q . E W stays far inside float32

// The streams of one seed: E's normals, u's normals (the stand-in head) and the uniform projections.
constexpr std::uint64_t kStandInStream = 0xDEBE27A0ull, kProjectionStream = 0xDEBE27A1ull;

/// The rows of E an n-token head reads: idx(i, j) over |i - j| <= n - 1, a range
/// [first, first + count) since idx is monotone in i - j.
struct Rows {
    std::int64_t first, count;
};

std::int64_t bucket(const Spec& spec, std::int64_t r) {
    return spec.position_buckets > 0 ? log_bucket(r, spec.position_buckets, spec.max_relative()) : r;
}

std::int64_t index_of(const Spec& spec, std::int64_t r) {
    return std::clamp<std::int64_t>(bucket(spec, r) + spec.span(), 0, 2 * spec.span() - 1);
}

Rows rows_for(const Spec& spec, std::int64_t n) {
    const std::int64_t lo = index_of(spec, -(n - 1)), hi = index_of(spec, n - 1);
    return {lo, hi - lo + 1};
}

/// W [hidden_size, head_dim] drawn as nn.Linear(hidden_size, head_dim) draws its
/// weight: uniform in +-1 / sqrt(fan_in), stream `which` of the seed.
std::vector<float> drawn_projection(const Spec& spec, std::uint64_t which) {
    Random rng(spec.seed ^ (kProjectionStream + which * 0x9E3779B97F4A7C15ull));
    const double bound = 1.0 / std::sqrt(double(spec.hidden_size));
    std::vector<float> w(std::size_t(spec.hidden_size * spec.head_dim));
    for (float& x : w) x = float(bound * (2.0 * rng.uniform() - 1.0));
    return w;
}

/// E rows [rows.count, hidden] times W [hidden, d]: [rows.count, d] in float64.
std::vector<double> project_rows(const xt::xtensor<float, 2>& e, const float* w, std::int64_t d) {
    const std::size_t count = e.shape()[0], hidden = e.shape()[1];
    std::vector<double> out(count * std::size_t(d), 0.0);
    for (std::size_t r = 0; r < count; ++r)
        for (std::size_t h = 0; h < hidden; ++h) {
            const double x = e(r, h);
            for (std::int64_t c = 0; c < d; ++c) out[r * std::size_t(d) + std::size_t(c)] += x * double(w[h * std::size_t(d) + std::size_t(c)]);
        }
    return out;
}

/// [n, count]: row i is a_i . P[m] for the position vectors P [count, d] (a: [n, d]), times scale.
std::vector<float> dots(const float* a, std::int64_t n, const std::vector<double>& p, std::int64_t count, std::int64_t d,
                        double scale) {
    std::vector<float> out(std::size_t(n * count));
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t m = 0; m < count; ++m) {
            double s = 0;
            for (std::int64_t c = 0; c < d; ++c) s += double(a[i * d + c]) * p[std::size_t(m * d + c)];
            out[std::size_t(i * count + m)] = float(s * scale);
        }
    return out;
}

/// b(i, j) = qa[i, idx(i - j)] + ka[j, idx(i - j)] (each present when its term is):
/// the c2p and p2c scores, already divided by sqrt(d scale_factor).
class DisentangledTile final : public kernels::BiasTile {
public:
    DisentangledTile(std::vector<float> qa, std::vector<float> ka, std::vector<std::int32_t> by_relative,
                     std::int64_t n, std::int64_t count)
        : qa_(std::move(qa)), ka_(std::move(ka)), by_relative_(std::move(by_relative)), n_(n), count_(count) {}
    void add(std::int64_t i0, std::int64_t rows, std::int64_t j0, std::int64_t cols, float* s,
             std::size_t ld) const override {
        for (std::int64_t r = 0; r < rows; ++r) {
            const std::int64_t i = i0 + r;
            float* row = s + std::size_t(r) * ld;
            for (std::int64_t c = 0; c < cols; ++c) {
                const std::int64_t j = j0 + c, m = by_relative_[std::size_t(i - j + n_ - 1)];
                float b = 0.0f;
                if (!qa_.empty()) b += qa_[std::size_t(i * count_ + m)];
                if (!ka_.empty()) b += ka_[std::size_t(j * count_ + m)];
                row[c] += b;
            }
        }
    }

private:
    std::vector<float> qa_, ka_;
    std::vector<std::int32_t> by_relative_;  // idx(r) - first for r = -(n - 1) .. n - 1
    std::int64_t n_, count_;
};

/// The work of a head's bias over n tokens: drawing E's rows, projecting them twice,
/// and the two [n, rows] tables of dots.
std::vector<budget::Factors> head_work(const Spec& spec, std::int64_t n) {
    const double rows = double(rows_for(spec, n).count);
    return {{{rows, "rows of E"}, {double(spec.hidden_size), "hidden dimensions"}, {budget::kDraw, "operations per draw"}},
            {{2, "drawn projections"}, {double(spec.hidden_size), "hidden dimensions"}, {double(spec.head_dim), "head dimensions"},
             {4, "operations per uniform draw"}},
            {{2, "projections"}, {rows, "rows of E"}, {double(spec.hidden_size), "hidden dimensions"}, {double(spec.head_dim), "head dimensions"}},
            {{2, "terms"}, {double(n), "tokens"}, {rows, "rows of E"}, {double(spec.head_dim), "head dimensions"}},
            {{double(n), "queries"}, {double(n), "keys"}}};
}

/// The stand-in head's position term for rows first .. first + count - 1 of E:
/// (u . K_r[m] + u . Q_r[m]) / sqrt(d scale_factor), with u ~ N(0, 1) [head_dim] and
/// W_q, W_k drawn as nn.Linear draws them (see bias). Every query and key is u, so one
/// value per row is the whole bias.
std::vector<double> stand_in_rows(const Spec& spec, std::int64_t first, std::int64_t count) {
    std::vector<double> out(std::size_t(count), 0.0);
    if (!spec.relative_attention) return out;
    std::vector<float> u(std::size_t(spec.head_dim));
    Random rng(spec.seed ^ kStandInStream);
    for (float& x : u) x = float(rng.normal());
    const auto e = relative_embeddings(spec, first, count);
    const double scale = 1.0 / std::sqrt(double(spec.head_dim * spec.scale_factor()));
    for (const auto& [on, which] : {std::pair{spec.c2p, std::uint64_t(1)}, std::pair{spec.p2c, std::uint64_t(0)}}) {
        if (!on) continue;  // c2p reads K_r = E W_k (draw 1), p2c Q_r = E W_q (draw 0)
        const std::vector<float> w = drawn_projection(spec, which);
        const std::vector<float> term = dots(u.data(), 1, project_rows(e, w.data(), spec.head_dim), count, spec.head_dim, scale);
        for (std::size_t k = 0; k < out.size(); ++k) out[k] += double(term[k]);
    }
    return out;
}

/// Training: the relative embeddings E [2 att_span, d_model] as the attention reads them (norm_rel_ebd "none"),
/// projected by the head's W_k and W_q [d_model, head_dim]: b(i, j) = (q_i . K_r[idx] + k_j . Q_r[idx]) / sqrt(3 head_dim).
template <class Real>
struct Train {
    static train::Slots<Real> slots() {
        train::Slots<Real> s;
        s.init = [](const Config& own, std::int64_t) {
            const Spec spec = parse(own);
            train::check_table(spec.position_buckets > 0 ? "encoding.position_buckets" : "encoding.max_relative_positions",
                               std::to_string(spec.position_buckets > 0 ? spec.position_buckets : spec.max_relative()),
                               double(2 * spec.span()), spec.hidden_size);
            const auto E = relative_embeddings(spec, 0, 2 * spec.span());
            return train::Vec<Real>(E.begin(), E.end());
        };
        s.prepare = [](const Config& c, train::Pass<Real>& pass) {
            const Spec spec = parse(c);
            const std::size_t n = pass.n;
            pass.content_scale = Real(1.0 / std::sqrt(double(pass.d) * double(spec.scale_factor())));
            const auto delta = relative_position(std::int64_t(n), std::int64_t(n), spec.position_buckets, spec.max_relative());
            const std::int64_t span = spec.span();
            pass.index.assign(n * n, 0);
            std::int64_t lo = 2 * span, hi = 0;
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j <= i; ++j) {
                    const std::int64_t idx = std::clamp<std::int64_t>(delta[i * n + j] + span, 0, 2 * span - 1);
                    pass.index[i * n + j] = std::int32_t(idx);
                    lo = std::min(lo, idx);
                    hi = std::max(hi, idx);
                }
            pass.first = std::size_t(lo);
            pass.count = std::size_t(hi - lo + 1);
        };
        s.bias = [](const Config&, const train::BiasInputs<Real>& in) {  // saved: K_r = E W_k, Q_r = E W_q of the rows reached
            const train::Pass<Real>& pass = in.pass;
            const std::size_t n = pass.n, d = pass.d, d_in = pass.d_in;
            const Real* E = &in.head.pos[pass.first * d_in];
            train::HeadBias<Real> out;
            out.b.assign(n * n, Real(0));
            out.saved.assign(2, train::Vec<Real>(pass.count * d));
            train::Vec<Real>&Kr = out.saved[0], &Qr = out.saved[1];
            train::matmul(E, in.head.Wk.data(), Kr.data(), pass.count, d_in, d);
            train::matmul(E, in.head.Wq.data(), Qr.data(), pass.count, d_in, d);
            train::each_pair(out.b, n, [&](std::size_t i, std::size_t j) {
                const std::size_t r = std::size_t(pass.index[i * n + j]) - pass.first;
                return pass.content_scale * (train::dot(&in.q[i * d], &Kr[r * d], d) + train::dot(&in.k[j * d], &Qr[r * d], d));
            });
            return out;
        };
        s.backward = [](const Config&, const train::BiasInputs<Real>& in, const train::HeadBias<Real>& fw, const Real* ds,
                        const train::BiasGradients<Real>& g) {
            const train::Pass<Real>& pass = in.pass;
            const std::size_t n = pass.n, d = pass.d, d_in = pass.d_in;
            const train::Vec<Real>&Kr = fw.saved[0], &Qr = fw.saved[1];
            train::Vec<Real> dKr(pass.count * d, Real(0)), dQr(pass.count * d, Real(0));
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j <= i; ++j) {
                    const std::size_t r = std::size_t(pass.index[i * n + j]) - pass.first;
                    const Real s_ = ds[i * n + j] * pass.content_scale;
                    train::axpy(s_, &in.q[i * d], &dKr[r * d], d);
                    train::axpy(s_, &Kr[r * d], &g.dq[i * d], d);
                    train::axpy(s_, &in.k[j * d], &dQr[r * d], d);
                    train::axpy(s_, &Qr[r * d], &g.dk[j * d], d);
                }
            const Real* E = &in.head.pos[pass.first * d_in];
            Real* dE = &g.head.pos[pass.first * d_in];
            train::matmul_backward(E, in.head.Wk.data(), dKr.data(), dE, g.head.Wk.data(), pass.count, d_in, d);
            train::matmul_backward(E, in.head.Wq.data(), dQr.data(), dE, g.head.Wq.data(), pass.count, d_in, d);
        };
        return s;
    }
};

POSENC_COLD Family make_family() {
    Family f("deberta", Acts::bias, "head_dim",
             "DeBERTa: disentangled attention, content-to-position and position-to-content scores over log-bucketed "
             "relative positions",
             "He et al. 2021, \"DeBERTa: Decoding-enhanced BERT with Disentangled Attention\", eq. 2-4; DeBERTa-v2/v3 "
             "as transformers' modeling_deberta_v2.py",
             {Key::integer("head_dim", 64, 1, kMaxSize),
              Key::integer("hidden_size", std::nullopt, 1, kMaxSize,
                           "an integer in [1, 4096] (absent: head_dim; in attention(), the head's d_model)"),
              Key::integer("position_buckets", 256, -1, kMaxSize,
                           "an integer in [-1, 4096] other than 1 (<= 0: no log buckets)"),
              Key::integer("max_relative_positions", -1, -1, kMaxSpan,
                           "an integer in [-1, 65536] (< 1: max_position_embeddings)"),
              Key::integer("max_position_embeddings", 512, 1, kMaxSpan),
              Key::list("pos_att_type", std::vector<std::string>{"p2c", "c2p"}, -HUGE_VAL, HUGE_VAL,
                        "a list of \"c2p\" and \"p2c\"", {"c2p", "p2c"}),
              Key::boolean("relative_attention", true), Key::boolean("share_att_key", true),
              Key::choice("norm_rel_ebd", {"layer_norm", "none"}),
              Key::above("layer_norm_eps", 1e-7, 0.0, "a number > 0 and <= 1", 1.0),
              Key::list("rel_embeddings", Value{}, -kMaxEmbedding, kMaxEmbedding,
                        "numbers in [-1e4, 1e4], 2 att_span x hidden_size of them"),
              Key::integer("seed", 0, 0, kMaxSeed), Key::boolean("causal", false)});
    f.bias = [](const Config& c, std::int64_t n) { return bias(parse(c), n); };
    f.head_bias = [](const Config& c, const HeadInputs& in) {
        const Spec spec = parse(with_head_width(with_head_width(c, "head_dim", in.width), "hidden_size", in.d_model));
        check_head_width("head_dim", spec.head_dim, in.width);
        if (spec.hidden_size != in.d_model)
            throw_bad_param("encoding.hidden_size", std::to_string(spec.hidden_size),
                            "the head's d_model = " + std::to_string(in.d_model));
        HeadBias out;
        out.content_scale = 1.0 / std::sqrt(double(spec.scale_factor()));
        out.causal = spec.causal;
        out.tile = bias_tile(spec, in, Part::both);
        if (out.tile) {
            if (spec.c2p) out.parts.emplace_back("c2p", bias_tile(spec, in, Part::c2p));
            if (spec.p2c) out.parts.emplace_back("p2c", bias_tile(spec, in, Part::p2c));
        }
        return out;
    };
    f.decay = [](const Config& c, std::int64_t max_distance, std::uint64_t) {
        // The stand-in head's bias for a key m tokens before the query: i - j = m.
        const Spec spec = parse(c);
        const std::int64_t first = spec.span();  // the rows of i - j >= 0
        const std::vector<double> rows = stand_in_rows(spec, first, spec.span());
        return curve("bias", max_distance, [&](std::int64_t m) { return rows[std::size_t(index_of(spec, m) - first)]; });
    };
    f.decay_work = [](const Config& c, std::int64_t max_distance) {
        const Spec spec = parse(c);
        return std::vector<budget::Factors>{
            {{double(spec.span()), "rows of E"}, {double(spec.hidden_size), "hidden dimensions"},
             {2 * double(spec.head_dim) + budget::kDraw, "operations per entry (a draw, two projections)"}},
            {{2, "drawn projections"}, {double(spec.hidden_size), "hidden dimensions"}, {double(spec.head_dim), "head dimensions"},
             {4, "operations per uniform draw"}},
            {{double(max_distance + 1), "distances"}, {budget::kTrig, "operations per bucket (a log)"}}};
    };
    f.bias_work = [](const Config& c, std::int64_t n) { return head_work(parse(c), n); };
    return f;
}

/// What the family does in train() (posenc/train_slots.hpp).
POSENC_COLD train::Training make_training() {
    train::Training t;
    t.size = [](Config& spec, std::int64_t d) {
        spec["hidden_size"] = double(d);
        spec["norm_rel_ebd"] = std::string("none");
    };
    t.position_key = "rel_embeddings";
    t.pair_work = [](const Config&, double d) { return 9 * d + 80; };  // + its log bucket per pair
    return train::training<Train>(std::move(t));
}

}  // namespace

const Family& family() { return once<make_family>(); }

const train::Training& training() { return train::once<make_training>(); }

std::int64_t Spec::max_relative() const {
    return max_relative_positions < 1 ? max_position_embeddings : max_relative_positions;
}

std::int64_t Spec::span() const { return position_buckets > 0 ? position_buckets : max_relative(); }

int Spec::scale_factor() const { return 1 + int(c2p) + int(p2c); }

/// Throws unless make_log_bucket_position can run at (bucket_size, max_position):
/// mid = bucket_size / 2 >= 1, and ln((max_position - 1) / mid) > 0.
static void check_buckets(std::int64_t bucket_size, std::int64_t max_position, const char* buckets_name,
                          const char* max_name) {
    if (bucket_size == 1)
        throw_bad_param(buckets_name, "1", "an integer other than 1 (<= 0: no log buckets; >= 2: half of it exact)");
    if (bucket_size > 1 && max_position > 0 && max_position - 1 <= bucket_size / 2)
        throw_bad_param(max_name, std::to_string(max_position),
                        "an integer > " + std::to_string(bucket_size / 2 + 1) + " = " + buckets_name +
                            " / 2 + 1 (the log buckets divide by ln((" + max_name + " - 1) / (" + buckets_name + " / 2)))");
}

Spec parse(const Config& config) {
    const SpecReader read(config, family());
    Spec spec;
    spec.head_dim = read.integer("head_dim");
    spec.hidden_size = read.present("hidden_size") ? read.integer("hidden_size") : spec.head_dim;
    spec.position_buckets = read.integer("position_buckets");
    spec.max_relative_positions = read.integer("max_relative_positions");
    spec.max_position_embeddings = read.integer("max_position_embeddings");
    check_buckets(spec.position_buckets, spec.max_relative(), "position_buckets",
                  spec.max_relative_positions < 1 ? "max_position_embeddings" : "max_relative_positions");
    const auto types = read.string_list("pos_att_type").value_or(std::vector<std::string>{"p2c", "c2p"});
    spec.c2p = spec.p2c = false;
    for (std::size_t i = 0; i < types.size(); ++i) {
        if (types[i] == "c2p") spec.c2p = true;
        else if (types[i] == "p2c") spec.p2c = true;
        else
            throw_bad_param("pos_att_type[" + std::to_string(i) + "]", '"' + types[i] + '"',
                            "\"c2p\" or \"p2c\" (content-to-position, position-to-content)");
    }
    spec.relative_attention = read.boolean("relative_attention");
    spec.share_att_key = read.boolean("share_att_key");
    spec.layer_norm = read.choice("norm_rel_ebd") == "layer_norm";
    spec.layer_norm_eps = read.number("layer_norm_eps");
    spec.seed = std::uint64_t(read.integer("seed"));
    spec.causal = read.boolean("causal");
    if (const auto table = read.number_list("rel_embeddings", -kMaxEmbedding, kMaxEmbedding, "a number in [-1e4, 1e4]")) {
        const double expected = 2.0 * double(spec.span()) * double(spec.hidden_size);
        if (double(table->size()) != expected)
            throw_bad_param("rel_embeddings", "a list of " + std::to_string(table->size()) + " numbers",
                            "2 att_span x hidden_size = 2 x " + std::to_string(spec.span()) + " x " +
                                std::to_string(spec.hidden_size) + " = " + format_number(expected) + " numbers");
        spec.rel_embeddings.assign(table->begin(), table->end());
    }
    return spec;
}

std::int64_t log_bucket(std::int64_t r, std::int64_t bucket_size, std::int64_t max_position) {
    const std::int64_t mid = bucket_size / 2;
    const std::int64_t magnitude = r < 0 ? -r : r;
    if (magnitude <= mid) return r;
    // torch: abs_pos / mid and the python float (max_position - 1) / mid become float32 tensors;
    // log, the quotient, the product by mid - 1 and ceil are float32 operations.
    const float ratio = float(magnitude) / float(mid);
    const float base = float(double(max_position - 1) / double(mid));
    const float log_ratio = float(std::log(double(ratio))), log_base = float(std::log(double(base)));
    const float t = log_ratio / log_base * float(mid - 1);
    const std::int64_t log_pos = std::int64_t(std::ceil(t)) + mid;
    return r < 0 ? -log_pos : log_pos;
}

std::vector<std::int32_t> relative_position(std::int64_t query_size, std::int64_t key_size, std::int64_t bucket_size,
                                            std::int64_t max_position) {
    args::query_length.check(query_size);
    args::key_length.check(key_size);
    args::position_buckets.check(bucket_size);
    args::max_relative_positions.check(max_position);
    check_buckets(bucket_size, max_position, "position_buckets", "max_relative_positions");
    const bool log_buckets = bucket_size > 0 && max_position > 0;
    // One bucket per relative position r = i - j in [-(key_size - 1), query_size - 1].
    std::vector<std::int32_t> by_relative(std::size_t(query_size + key_size - 1));
    for (std::int64_t r = -(key_size - 1); r <= query_size - 1; ++r)
        by_relative[std::size_t(r + key_size - 1)] = std::int32_t(log_buckets ? log_bucket(r, bucket_size, max_position) : r);
    std::vector<std::int32_t> out(std::size_t(query_size * key_size));
    for (std::int64_t i = 0; i < query_size; ++i)
        for (std::int64_t j = 0; j < key_size; ++j)
            out[std::size_t(i * key_size + j)] = by_relative[std::size_t(i - j + key_size - 1)];
    return out;
}

xt::xtensor<float, 2> relative_embeddings(const Spec& spec, std::int64_t first, std::int64_t count) {
    const std::size_t hidden = std::size_t(spec.hidden_size);
    xt::xtensor<float, 2> e = xt::empty<float>({std::size_t(count), hidden});
    for (std::int64_t r = 0; r < count; ++r) {
        float* row = e.data() + std::size_t(r) * hidden;
        if (!spec.rel_embeddings.empty()) {
            const float* from = spec.rel_embeddings.data() + std::size_t(first + r) * hidden;
            std::copy(from, from + hidden, row);
        } else {
            Random rng = Random::at(spec.seed, std::uint64_t(first + r) * hidden);  // row first + r of the whole table
            for (std::size_t h = 0; h < hidden; ++h) row[h] = float(rng.normal());
        }
        if (!spec.layer_norm) continue;
        double mean = 0, variance = 0;  // torch's LayerNorm: biased variance, eps inside the root
        for (std::size_t h = 0; h < hidden; ++h) mean += row[h];
        mean /= double(hidden);
        for (std::size_t h = 0; h < hidden; ++h) variance += (row[h] - mean) * (row[h] - mean);
        variance /= double(hidden);
        const double inv = 1.0 / std::sqrt(variance + spec.layer_norm_eps);
        for (std::size_t h = 0; h < hidden; ++h) row[h] = float((row[h] - mean) * inv);
    }
    return e;
}

std::unique_ptr<kernels::BiasTile> bias_tile(const Spec& spec, const HeadInputs& in, Part part) {
    if (!spec.relative_attention || (!spec.c2p && !spec.p2c)) return nullptr;
    const std::int64_t n = in.n, d = spec.head_dim;
    const Rows rows = rows_for(spec, n);
    const auto e = relative_embeddings(spec, rows.first, rows.count);
    const double scale = 1.0 / std::sqrt(double(d * spec.scale_factor()));
    std::vector<float> qa, ka;
    // c2p: q_i . K_r with K_r = E W_k; p2c: k_j . Q_r with Q_r = E W_q (share_att_key), else E times
    // pos_key_proj / pos_query_proj, drawn here.
    if (spec.c2p && part != Part::p2c) {
        const std::vector<float> own = spec.share_att_key ? std::vector<float>{} : drawn_projection(spec, 1);
        qa = dots(in.q, n, project_rows(e, spec.share_att_key ? in.wk : own.data(), d), rows.count, d, scale);
    }
    if (spec.p2c && part != Part::c2p) {
        const std::vector<float> own = spec.share_att_key ? std::vector<float>{} : drawn_projection(spec, 0);
        ka = dots(in.k, n, project_rows(e, spec.share_att_key ? in.wq : own.data(), d), rows.count, d, scale);
    }
    std::vector<std::int32_t> by_relative(std::size_t(2 * n - 1));
    for (std::int64_t r = -(n - 1); r <= n - 1; ++r)
        by_relative[std::size_t(r + n - 1)] = std::int32_t(index_of(spec, r) - rows.first);
    return std::make_unique<DisentangledTile>(std::move(qa), std::move(ka), std::move(by_relative), n, rows.count);
}

xt::xtensor<float, 2> bias(const Spec& spec, std::int64_t n) {
    bias::check_n(n);
    const Rows reach = rows_for(spec, n);
    const std::vector<double> rows = stand_in_rows(spec, reach.first, reach.count);
    std::vector<float> by_relative(std::size_t(2 * n - 1));  // b for i - j = -(n - 1) .. n - 1
    for (std::int64_t r = -(n - 1); r <= n - 1; ++r)
        by_relative[std::size_t(r + n - 1)] = float(rows[std::size_t(index_of(spec, r) - reach.first)]);
    xt::xtensor<float, 2> b = xt::empty<float>({std::size_t(n), std::size_t(n)});
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) b(std::size_t(i), std::size_t(j)) = by_relative[std::size_t(i - j + n - 1)];
    if (spec.causal) bias::mask_causal(b);
    return b;
}

Formula formula() { return {R"(a_{ij} = \frac{q_i\cdot k_j + q_i\cdot K_r[\delta(i-j)] + k_j\cdot Q_r[\delta(i-j)]}{\sqrt{3d}})", "the formula: eq. 4; the bias shown is c2p + p2c for one drawn vector u"}; }

}  // namespace posenc::deberta
