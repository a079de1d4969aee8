#include "posenc/shaw.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "posenc/bias.hpp"
#include "posenc/random.hpp"
#include "posenc/train.hpp"
#include "posenc/train_slots.hpp"

namespace posenc::shaw {

namespace {

constexpr double kMaxEmbedding = 1e4;  // |a| entries: q . a stays far inside float32

/// Drawing the [2K + 1, head_dim] embeddings.
budget::Factors embeddings_work(const Spec& spec) {
    return {{double(2 * spec.max_relative_position + 1), "relative positions"}, {double(spec.head_dim), "dimensions"},
            {budget::kDraw, "operations per draw"}};
}

/// Training: the relative keys a_k [2K + 1, d], read by each query at its pair's row (q_i . a_row).
template <class Real>
struct Train {
    static train::Slots<Real> slots() {
        train::Slots<Real> s;
        s.init = [](const Config& own, std::int64_t d) {
            const Spec spec = parse(own);
            train::check_table("encoding.max_relative_position", std::to_string(spec.max_relative_position),
                               double(2 * spec.max_relative_position + 1), d);
            const auto a = embeddings(spec);
            return train::Vec<Real>(a.begin(), a.end());
        };
        s.prepare = [](const Config& c, train::Pass<Real>& pass) {
            const std::int64_t K = parse(c).max_relative_position;
            const std::size_t n = pass.n;
            pass.index.assign(n * n, 0);
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j <= i; ++j) pass.index[i * n + j] = std::int32_t(K - std::min<std::int64_t>(std::int64_t(i - j), K));
        };
        s.bias = [](const Config&, const train::BiasInputs<Real>& in) {
            const std::size_t n = in.pass.n, d = in.pass.d;
            train::HeadBias<Real> out;
            out.b.assign(n * n, Real(0));
            train::each_pair(out.b, n, [&](std::size_t i, std::size_t j) {
                return train::dot(&in.q[i * d], &in.head.pos[std::size_t(in.pass.index[i * n + j]) * d], d);
            });
            return out;
        };
        s.backward = [](const Config&, const train::BiasInputs<Real>& in, const train::HeadBias<Real>&, const Real* ds,
                        const train::BiasGradients<Real>& g) {
            const std::size_t n = in.pass.n, d = in.pass.d;
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j <= i; ++j) {
                    const std::size_t row = std::size_t(in.pass.index[i * n + j]) * d;
                    train::axpy(ds[i * n + j], &in.head.pos[row], &g.dq[i * d], d);
                    train::axpy(ds[i * n + j], &in.q[i * d], &g.head.pos[row], d);
                }
        };
        return s;
    }
};

POSENC_COLD Family make_family() {
    Family f("shaw", Acts::bias, "head_dim",
             "Shaw: a learned vector per clipped relative distance, so the logit gains q_i . a_(j-i)",
             "Shaw et al. 2018, \"Self-Attention with Relative Position Representations\", eq. 4-5; as transformers' modeling_bert.py (relative_key)",
             {Key::integer("head_dim", 64, 1, 4096), Key::integer("max_relative_position", 16, 0, 4096),
              Key::integer("seed", 0, 0, kMaxSeed), Key::boolean("causal", false),
              Key::list("relative_key", Value{}, -kMaxEmbedding, kMaxEmbedding,
                        "numbers in [-1e4, 1e4], (2 max_relative_position + 1) x head_dim of them")});
    f.bias = [](const Config& c, std::int64_t n) { return bias(parse(c), n); };
    f.head_bias = [](const Config& c, const HeadInputs& in) {
        const float* q = in.q;
        const std::int64_t n = in.n, width = in.width;
        const Spec spec = parse(with_head_width(c, "head_dim", width));
        check_head_width("head_dim", spec.head_dim, width);
        HeadBias out;
        out.tile = bias_tile(spec, q, n);
        out.causal = spec.causal;
        return out;
    };
    f.decay = [](const Config& c, std::int64_t max_distance, std::uint64_t) {
        const Spec spec = parse(c);
        const auto a = embeddings(spec);
        const std::int64_t K = spec.max_relative_position;
        // q = ones: b(m) = the sum of row clip(-m) + K of a; rows 0 .. K, each summed once.
        std::vector<double> row_sum(std::size_t(K + 1), 0.0);
        for (std::int64_t row = 0; row <= K; ++row)
            for (std::int64_t col = 0; col < spec.head_dim; ++col) row_sum[std::size_t(row)] += a(row, col);
        return curve("bias", max_distance, [&](std::int64_t m) { return row_sum[std::size_t(std::max(-m, -K) + K)]; });
    };
    f.decay_work = [](const Config& c, std::int64_t max_distance) {
        const Spec spec = parse(c);
        return std::vector<budget::Factors>{embeddings_work(spec), {{double(max_distance + 1), "distances"}}};
    };
    f.bias_work = [](const Config& c, std::int64_t n) {
        const Spec spec = parse(c);
        return std::vector<budget::Factors>{
            embeddings_work(spec),
            {{double(n), "queries"}, {double(2 * std::min(spec.max_relative_position, n - 1) + 1), "relative positions"},
             {double(spec.head_dim), "dimensions"}},
            {{double(n), "rows"}, {double(n), "columns"}}};
    };
    return f;
}

/// What the family does in train() (posenc/train_slots.hpp).
POSENC_COLD train::Training make_training() {
    train::Training t;
    t.position_key = "relative_key";
    t.pair_work = [](const Config&, double d) { return 4 * d; };
    return train::training<Train>(std::move(t));
}

}  // namespace

const Family& family() { return once<make_family>(); }

const train::Training& training() { return train::once<make_training>(); }

Spec parse(const Config& config) {
    const SpecReader read(config, family());
    Spec spec;
    spec.head_dim = read.integer("head_dim");
    spec.max_relative_position = read.integer("max_relative_position");
    spec.seed = std::uint64_t(read.integer("seed"));
    spec.causal = read.boolean("causal");
    spec.relative_key = read.tensor("relative_key", "a number in [-1e4, 1e4]",
                                    {{"(2 max_relative_position + 1)", 2 * spec.max_relative_position + 1},
                                     {"head_dim", spec.head_dim}});
    return spec;
}

xt::xtensor<float, 2> embeddings(const Spec& spec) {
    const std::int64_t rows = 2 * spec.max_relative_position + 1;
    xt::xtensor<float, 2> a = xt::empty<float>({std::size_t(rows), std::size_t(spec.head_dim)});
    if (!spec.relative_key.empty()) {
        std::copy(spec.relative_key.begin(), spec.relative_key.end(), a.data());
        return a;
    }
    Random rng(spec.seed);
    const double scale = 1.0 / std::sqrt(double(spec.head_dim));
    for (float& v : a) v = float(scale * rng.normal());
    return a;
}

namespace {

/// b(i, j) = qa[i, clip(j - i, -K, K) + K], qa [n, 2K + 1] = q_i . a_k in float64, rounded once.
class ShawTile final : public kernels::BiasTile {
public:
    // Over n tokens |j - i| <= n - 1: the rows of a beyond +-(n - 1) are never read, so
    // only K_ = min(K, n - 1) on either side are multiplied (clipping at K_ is the same then).
    ShawTile(const Spec& spec, const float* q, std::int64_t n)
        : K_(std::min(spec.max_relative_position, n - 1)) {
        const std::int64_t d = spec.head_dim, width = 2 * K_ + 1, skip = spec.max_relative_position - K_;
        const auto a = embeddings(spec);
        qa_.resize(std::size_t(n * width));
        for (std::int64_t i = 0; i < n; ++i)
            for (std::int64_t k = 0; k < width; ++k) {
                double s = 0;
                for (std::int64_t c = 0; c < d; ++c) s += double(q[i * d + c]) * a(k + skip, c);
                qa_[std::size_t(i * width + k)] = float(s);
            }
    }
    void add(std::int64_t i0, std::int64_t rows, std::int64_t j0, std::int64_t cols, float* s,
             std::size_t ld) const override {
        const std::int64_t width = 2 * K_ + 1;
        for (std::int64_t r = 0; r < rows; ++r) {
            const std::int64_t i = i0 + r;
            const float* row_qa = qa_.data() + i * width + K_;  // indexed by the clipped j - i
            float* row = s + std::size_t(r) * ld;
            for (std::int64_t c = 0; c < cols; ++c) row[c] += row_qa[std::clamp<std::int64_t>(j0 + c - i, -K_, K_)];
        }
    }

private:
    std::int64_t K_;
    std::vector<float> qa_;
};

}  // namespace

std::unique_ptr<kernels::BiasTile> bias_tile(const Spec& spec, const float* q, std::int64_t n) {
    return std::make_unique<ShawTile>(spec, q, n);
}

xt::xtensor<float, 2> bias(const Spec& spec, const xt::xtensor<float, 2>& q) {
    bias::check_queries(q, spec.head_dim, "head_dim");
    const std::int64_t n = std::int64_t(q.shape()[0]);
    xt::xtensor<float, 2> b = xt::zeros<float>({std::size_t(n), std::size_t(n)});
    bias_tile(spec, q.data(), n)->add(0, n, 0, n, b.data(), std::size_t(n));
    if (spec.causal) bias::mask_causal(b);
    return b;
}

xt::xtensor<float, 2> bias(const Spec& spec, std::int64_t n) {
    return bias(spec, bias::ones_queries(n, spec.head_dim));
}

Formula formula() { return {R"(b(i,j) = q_i\cdot a_{\operatorname{clip}(j-i,-K,K)})", "shown for q_i = (1, …, 1)"}; }

}  // namespace posenc::shaw
