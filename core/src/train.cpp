#include "posenc/train.hpp"

#include <algorithm>
#include <cmath>

#include "posenc/budget.hpp"
#include "posenc/registry.hpp"
#include "posenc/rope.hpp"
#include "posenc/t5.hpp"

namespace posenc::train {

namespace {

using Vec = std::vector<double>;

Vec normals(Random& rng, std::size_t count, double std) {
    Vec out(count);
    for (double& x : out) x = std * rng.normal();
    return out;
}

/// The spec with its width key set to d (sinusoidal, learned, none: d_model; rope: head_dim).
Config sized(const Config& encoding, std::int64_t d) {
    const Family& family = family_of(encoding);
    Config out = encoding;
    if (!family.width_key.empty()) out.set(family.width_key, double(d));
    return out;
}

/// a [rows, inner] . b [inner, cols] into out [rows, cols].
void matmul(const double* a, const double* b, double* out, std::size_t rows, std::size_t inner, std::size_t cols) {
    std::fill(out, out + rows * cols, 0.0);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t p = 0; p < inner; ++p) {
            const double x = a[r * inner + p];
            for (std::size_t c = 0; c < cols; ++c) out[r * cols + c] += x * b[p * cols + c];
        }
}

/// grad_b [inner, cols] += a^T [inner, rows] . g [rows, cols]; grad_a [rows, inner] += g . b^T.
void matmul_backward(const double* a, const double* b, const double* g, double* grad_a, double* grad_b, std::size_t rows,
                     std::size_t inner, std::size_t cols) {
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t p = 0; p < inner; ++p) {
            double s = 0;
            for (std::size_t c = 0; c < cols; ++c) {
                grad_b[p * cols + c] += a[r * inner + p] * g[r * cols + c];
                s += g[r * cols + c] * b[p * cols + c];
            }
            if (grad_a) grad_a[r * inner + p] += s;
        }
}

/// The rotation of a rotary encoding at n positions: per pair its two columns, and per
/// position and pair the cosine and sine of position * inv_freq, times attention_factor.
struct Rotation {
    std::vector<std::size_t> a, b;  // [pairs]
    Vec cos, sin;                   // [n, pairs], each times the attention factor
    /// x [n, d] rotated (inverse: the transpose, for the backward pass).
    void apply(double* x, std::size_t n, std::size_t d, bool inverse) const {
        const std::size_t pairs = a.size();
        for (std::size_t t = 0; t < n; ++t)
            for (std::size_t p = 0; p < pairs; ++p) {
                const double c = cos[t * pairs + p], s = inverse ? -sin[t * pairs + p] : sin[t * pairs + p];
                double& u = x[t * d + a[p]];
                double& w = x[t * d + b[p]];
                const double u0 = u, w0 = w;
                u = u0 * c - w0 * s;
                w = u0 * s + w0 * c;
            }
    }
};

Rotation rotation(const Config& encoding, std::size_t n) {
    const RotaryFrequencies f = rotary_frequencies(encoding, std::int64_t(n));
    const bool interleaved = rope::parse(encoding).layout == rope::Layout::interleaved;
    const std::size_t pairs = f.inv_freq.size();
    Rotation r;
    for (std::size_t p = 0; p < pairs; ++p) {
        r.a.push_back(interleaved ? 2 * p : p);
        r.b.push_back(interleaved ? 2 * p + 1 : p + pairs);
    }
    r.cos.resize(n * pairs);
    r.sin.resize(n * pairs);
    for (std::size_t t = 0; t < n; ++t)
        for (std::size_t p = 0; p < pairs; ++p) {
            const double angle = double(t) * f.inv_freq[p];
            r.cos[t * pairs + p] = f.attention_factor * std::cos(angle);
            r.sin[t * pairs + p] = f.attention_factor * std::sin(angle);
        }
    return r;
}

void zero_like(Params& g, const Params& p) {
    g.layers.resize(p.layers.size());
    auto to = groups(g);
    auto from = groups(const_cast<Params&>(p));
    for (std::size_t k = 0; k < to.size(); ++k) to[k].second->assign(from[k].second->size(), 0.0);
}

/// One layer's values in the forward pass, kept for the backward pass.
struct Cache {
    Vec in, q, k, v, a;  // in [n, d] (the layer's x), q and k as they enter q . k, v, weights [n, n]
};

}  // namespace

std::vector<std::pair<std::string, std::vector<double>*>> groups(Params& params) {
    std::vector<std::pair<std::string, std::vector<double>*>> out = {{"E", &params.E}};
    for (std::size_t l = 0; l < params.layers.size(); ++l) {
        const std::string at = "layer" + std::to_string(l) + ".";
        Layer& layer = params.layers[l];
        out.insert(out.end(), {{at + "Wq", &layer.Wq}, {at + "Wk", &layer.Wk}, {at + "Wv", &layer.Wv}, {at + "t5", &layer.t5}});
    }
    out.insert(out.end(), {{"Wout", &params.Wout}, {"c", &params.c}, {"P", &params.P}});
    return out;
}

Task task_of(const std::string& name) {
    if (name == "copy") return Task::copy;
    if (name == "induction") return Task::induction;
    if (name == "first_marker") return Task::first_marker;
    throw_bad_param("task", '"' + name + '"', "one of \"copy\", \"induction\", \"first_marker\"");
}

Example make_example(Task task, std::int64_t vocab, std::int64_t length, Random& rng) {
    Example e;
    const auto draw = [&](std::int64_t lo) { return int(lo + std::int64_t(rng.uniform() * double(vocab - lo))); };
    e.tokens.resize(std::size_t(length));
    e.targets.assign(std::size_t(length), -1);
    if (task == Task::first_marker) {
        for (int& t : e.tokens) t = draw(1);  // 0 is the marker
        const std::int64_t at = std::int64_t(rng.uniform() * double((length + 1) / 2));
        e.tokens[std::size_t(at)] = 0;
        for (std::int64_t t = at; t < length; ++t) e.targets[std::size_t(t)] = int(at);
        return e;
    }
    for (int& t : e.tokens) t = draw(0);
    for (std::int64_t t = 0; t < length; ++t) {
        if (task == Task::copy) {
            if (t >= 1) e.targets[std::size_t(t)] = e.tokens[std::size_t(t - 1)];
            continue;
        }
        for (std::int64_t s = t - 1; s >= 0; --s)  // induction: the last earlier occurrence, and what followed it
            if (e.tokens[std::size_t(s)] == e.tokens[std::size_t(t)]) {
                e.targets[std::size_t(t)] = e.tokens[std::size_t(s + 1)];
                break;
            }
    }
    return e;
}

Model make_model(const Config& encoding, std::int64_t vocab, std::int64_t d, std::int64_t classes,
                 std::int64_t max_length, std::uint64_t seed, std::int64_t layers) {
    if (layers < 1 || layers > 2) throw_bad_param("layers", std::to_string(layers), "1 or 2");
    Model m;
    m.vocab = vocab;
    m.d = d;
    m.classes = classes;
    m.max_length = max_length;
    m.encoding = sized(encoding, d);
    const std::string type = family_of(m.encoding).type;
    if (type == "none") m.kind = Kind::none;
    else if (type == "sinusoidal") m.kind = Kind::absolute_fixed;
    else if (type == "learned") m.kind = Kind::learned;
    else if (type == "rope") m.kind = Kind::rotary;
    else if (type == "alibi") m.kind = Kind::bias_fixed;
    else if (type == "t5") m.kind = Kind::t5;
    else
        throw_bad_param("encoding.type", '"' + type + '"', "one of \"none\", \"sinusoidal\", \"learned\", \"rope\", \"alibi\", \"t5\" (the families trained so far)");
    Random rng(seed);
    const double std = 1.0 / std::sqrt(double(d));
    Params& p = m.params;
    p.E = normals(rng, std::size_t(vocab * d), std);
    p.layers.resize(std::size_t(layers));
    for (Layer& layer : p.layers) {
        layer.Wq = normals(rng, std::size_t(d * d), std);
        layer.Wk = normals(rng, std::size_t(d * d), std);
        layer.Wv = normals(rng, std::size_t(d * d), std);
        if (m.kind == Kind::t5) layer.t5.assign(std::size_t(t5::parse(m.encoding).num_buckets), 0.0);
    }
    p.Wout = normals(rng, std::size_t(d * classes), std);
    p.c.assign(std::size_t(classes), 0.0);
    if (m.kind == Kind::learned) p.P = normals(rng, std::size_t(max_length * d), 0.02);
    return m;
}

Evaluation loss_and_grad(const Model& model, const Example& example, Params* grad) {
    const std::size_t n = example.tokens.size(), d = std::size_t(model.d), C = std::size_t(model.classes);
    if (n < 1 || std::int64_t(n) > model.max_length)
        throw_bad_param("length", std::to_string(n), "an integer in [1, " + std::to_string(model.max_length) + "]");
    const Params& p = model.params;
    // Forward.
    Vec x(n * d);
    for (std::size_t t = 0; t < n; ++t)
        std::copy_n(p.E.begin() + std::ptrdiff_t(std::size_t(example.tokens[t]) * d), d, x.begin() + std::ptrdiff_t(t * d));
    if (model.kind == Kind::absolute_fixed) {
        const auto table = position_table(model.encoding, std::int64_t(n));
        for (std::size_t k = 0; k < n * d; ++k) x[k] += double(table.data()[k]);
    } else if (model.kind == Kind::learned) {
        for (std::size_t k = 0; k < n * d; ++k) x[k] += p.P[k];
    }
    Rotation rot;
    if (model.kind == Kind::rotary) rot = rotation(model.encoding, n);
    Vec fixed(n * n, 0.0);  // a fixed bias (ALiBi)
    std::vector<std::int32_t> bucket;
    if (model.kind == Kind::bias_fixed) {
        const auto b = attention_bias(model.encoding, std::int64_t(n));
        for (std::size_t ij = 0; ij < n * n; ++ij) fixed[ij] = double(b.data()[ij]);
    } else if (model.kind == Kind::t5) {
        const t5::Spec spec = t5::parse(model.encoding);
        bucket.assign(n * n, 0);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j <= i; ++j)
                bucket[i * n + j] = t5::relative_position_bucket(std::int64_t(j) - std::int64_t(i), spec.bidirectional,
                                                                 spec.num_buckets, spec.max_distance);
    }
    const double scale = 1.0 / std::sqrt(double(d));
    std::vector<Cache> caches(p.layers.size());
    Vec h = x;
    for (std::size_t l = 0; l < p.layers.size(); ++l) {
        const Layer& layer = p.layers[l];
        Cache& cache = caches[l];
        cache.in = h;
        cache.q.resize(n * d);
        cache.k.resize(n * d);
        cache.v.resize(n * d);
        matmul(cache.in.data(), layer.Wq.data(), cache.q.data(), n, d, d);
        matmul(cache.in.data(), layer.Wk.data(), cache.k.data(), n, d, d);
        matmul(cache.in.data(), layer.Wv.data(), cache.v.data(), n, d, d);
        if (model.kind == Kind::rotary) {
            rot.apply(cache.q.data(), n, d, false);
            rot.apply(cache.k.data(), n, d, false);
        }
        Vec& a = cache.a;  // the weights, 0 above the diagonal
        a.assign(n * n, 0.0);
        for (std::size_t i = 0; i < n; ++i) {
            double top = -HUGE_VAL;
            for (std::size_t j = 0; j <= i; ++j) {
                double s = model.kind == Kind::t5 ? layer.t5[std::size_t(bucket[i * n + j])] : fixed[i * n + j];
                for (std::size_t c = 0; c < d; ++c) s += cache.q[i * d + c] * cache.k[j * d + c] * scale;
                a[i * n + j] = s;
                top = std::max(top, s);
            }
            double sum = 0;
            for (std::size_t j = 0; j <= i; ++j) sum += (a[i * n + j] = std::exp(a[i * n + j] - top));
            for (std::size_t j = 0; j <= i; ++j) a[i * n + j] /= sum;
        }
        for (std::size_t i = 0; i < n; ++i)  // the residual: h = in + attention output
            for (std::size_t j = 0; j <= i; ++j)
                for (std::size_t c = 0; c < d; ++c) h[i * d + c] += a[i * n + j] * cache.v[j * d + c];
    }
    Vec z(n * C);
    matmul(h.data(), p.Wout.data(), z.data(), n, d, C);
    Evaluation result;
    Vec dz(n * C, 0.0);
    for (std::size_t t = 0; t < n; ++t)
        if (example.targets[t] >= 0) ++result.targets;
    for (std::size_t t = 0; t < n; ++t) {
        const int y = example.targets[t];
        if (y < 0) continue;
        double top = -HUGE_VAL;
        std::size_t best = 0;
        for (std::size_t c = 0; c < C; ++c) {
            z[t * C + c] += p.c[c];
            if (z[t * C + c] > top) top = z[t * C + c], best = c;
        }
        double sum = 0;
        for (std::size_t c = 0; c < C; ++c) sum += std::exp(z[t * C + c] - top);
        result.loss += (top + std::log(sum) - z[t * C + std::size_t(y)]) / double(result.targets);
        result.correct += best == std::size_t(y);
        for (std::size_t c = 0; c < C; ++c)
            dz[t * C + c] = (std::exp(z[t * C + c] - top) / sum - (c == std::size_t(y) ? 1.0 : 0.0)) / double(result.targets);
    }
    if (!grad || result.targets == 0) return result;

    // Backward.
    if (grad->E.size() != p.E.size() || grad->layers.size() != p.layers.size()) zero_like(*grad, p);
    Vec dh(n * d, 0.0);
    matmul_backward(h.data(), p.Wout.data(), dz.data(), dh.data(), grad->Wout.data(), n, d, C);
    for (std::size_t t = 0; t < n; ++t)
        for (std::size_t c = 0; c < C; ++c) grad->c[c] += dz[t * C + c];
    Vec du = dh;  // the gradient of the current layer's output
    for (std::size_t l = p.layers.size(); l-- > 0;) {
        const Layer& layer = p.layers[l];
        Layer& g = grad->layers[l];
        const Cache& cache = caches[l];
        const Vec& a = cache.a;
        Vec din = du, dq(n * d, 0.0), dk(n * d, 0.0), dv(n * d, 0.0);  // the residual passes du to the input
        for (std::size_t i = 0; i < n; ++i) {
            Vec da(i + 1);
            double weighted = 0;
            for (std::size_t j = 0; j <= i; ++j) {
                double s = 0;
                for (std::size_t c = 0; c < d; ++c) {
                    s += du[i * d + c] * cache.v[j * d + c];
                    dv[j * d + c] += a[i * n + j] * du[i * d + c];
                }
                da[j] = s;
                weighted += a[i * n + j] * s;
            }
            for (std::size_t j = 0; j <= i; ++j) {
                const double ds = a[i * n + j] * (da[j] - weighted);  // the softmax's Jacobian
                if (model.kind == Kind::t5) g.t5[std::size_t(bucket[i * n + j])] += ds;
                for (std::size_t c = 0; c < d; ++c) {
                    dq[i * d + c] += ds * cache.k[j * d + c] * scale;
                    dk[j * d + c] += ds * cache.q[i * d + c] * scale;
                }
            }
        }
        if (model.kind == Kind::rotary) {  // q = R q0: dq0 = R^T dq
            rot.apply(dq.data(), n, d, true);
            rot.apply(dk.data(), n, d, true);
        }
        matmul_backward(cache.in.data(), layer.Wq.data(), dq.data(), din.data(), g.Wq.data(), n, d, d);
        matmul_backward(cache.in.data(), layer.Wk.data(), dk.data(), din.data(), g.Wk.data(), n, d, d);
        matmul_backward(cache.in.data(), layer.Wv.data(), dv.data(), din.data(), g.Wv.data(), n, d, d);
        du = std::move(din);
    }
    const Vec& dx = du;
    for (std::size_t t = 0; t < n; ++t)
        for (std::size_t c = 0; c < d; ++c) {
            grad->E[std::size_t(example.tokens[t]) * d + c] += dx[t * d + c];
            if (model.kind == Kind::learned) grad->P[t * d + c] += dx[t * d + c];
        }
    return result;
}

void Adam::update(Params& params, const Params& grad) {
    if (m.E.size() != params.E.size() || m.layers.size() != params.layers.size()) {
        zero_like(m, params);
        zero_like(v, params);
    }
    ++step;
    const double correction1 = 1.0 - std::pow(beta1, double(step)), correction2 = 1.0 - std::pow(beta2, double(step));
    auto xs = groups(params), ms = groups(m), vs = groups(v);
    auto gs = groups(const_cast<Params&>(grad));
    for (std::size_t k = 0; k < xs.size(); ++k) {
        Vec *x = xs[k].second, *mo = ms[k].second, *ve = vs[k].second;
        const Vec* g = gs[k].second;
        for (std::size_t i = 0; i < x->size(); ++i) {
            const double gi = (*g)[i];
            (*mo)[i] = beta1 * (*mo)[i] + (1 - beta1) * gi;
            (*ve)[i] = beta2 * (*ve)[i] + (1 - beta2) * gi * gi;
            (*x)[i] -= lr * ((*mo)[i] / correction1) / (std::sqrt((*ve)[i] / correction2) + eps);
        }
    }
}

Request parse_request(const Config& config) {
    const SpecReader read(config, "train request",
                          {"task", "encoding", "eval_encoding", "layers", "d_model", "vocab", "train_length", "steps", "seed",
                           "eval_lengths", "eval_examples", "lr"});
    Request r;
    r.task = task_of(read.choice("task", "copy", {"copy", "induction", "first_marker"}));
    if (const Config* encoding = read.object("encoding")) r.encoding = *encoding;
    else r.encoding = Config{{"type", std::string("none")}};
    if (const Config* eval = read.object("eval_encoding")) r.eval_encoding = *eval;
    r.layers = read.integer("layers", 1, 1, 2);
    r.d_model = read.integer("d_model", r.d_model, 2, 256);
    r.vocab = read.integer("vocab", r.vocab, 2, 1024);
    r.train_length = read.integer("train_length", r.train_length, 2, 1024);
    r.steps = read.integer("steps", r.steps, 1, 100000);
    r.seed = read.integer("seed", 0, 0, kMaxSeed);
    r.eval_examples = read.integer("eval_examples", r.eval_examples, 1, 1024);
    r.lr = read.number("lr", r.lr, 1e-6, 1.0, "a number in [1e-6, 1]");
    if (const auto lengths = read.number_list("eval_lengths", 2, 4096, "an integer in [2, 4096]")) {
        if (lengths->empty() || lengths->size() > 16)
            throw_bad_param("eval_lengths", "a list of " + std::to_string(lengths->size()) + " lengths", "1 to 16 lengths");
        r.eval_lengths.clear();
        for (std::size_t i = 0; i < lengths->size(); ++i) {
            const double x = (*lengths)[i];
            if (x != std::floor(x)) throw_bad_param("eval_lengths[" + std::to_string(i) + "]", format_number(x), "an integer in [2, 4096]");
            r.eval_lengths.push_back(std::int64_t(x));
        }
    }
    // The work: each step's (and each evaluated example's) forward and backward passes, about
    // 8 n d^2 (projections, read-out) + 6 n^2 d (scores, weights . v, their gradients) multiply-adds,
    // 4 to a budget operation (plain float64 loops: about 1 ns per multiply-add in wasm, measured).
    const auto pass = [&](double n) {
        return (8 * n * double(r.d_model) * double(std::max(r.d_model, r.vocab)) + 6 * n * n * double(r.d_model)) / 4;
    };
    double evaluation = 0;
    for (const std::int64_t n : r.eval_lengths) evaluation += double(r.eval_examples) * double(r.layers) * pass(double(n)) / 2;
    budget::check_work("train", "steps", {{{double(r.steps), "steps"}, {double(r.layers), "layers"}, {pass(double(r.train_length)), "operations per step"}},
                                           {{1, "evaluation"}, {evaluation, "operations"}}},
                       8.0 * double(r.steps));
    return r;
}

Result run(const Request& request) {
    const std::int64_t longest = std::max(request.train_length, *std::max_element(request.eval_lengths.begin(), request.eval_lengths.end()));
    const std::int64_t classes = request.task == Task::first_marker ? longest : request.vocab;
    Result result;
    result.model = make_model(request.encoding, request.vocab, request.d_model, classes, longest, std::uint64_t(request.seed),
                              request.layers);
    Adam adam;
    adam.lr = request.lr;
    Random rng(std::uint64_t(request.seed));
    result.loss.reserve(std::size_t(request.steps));
    for (std::int64_t step = 0; step < request.steps; ++step) {
        Params grad;
        const Evaluation e = loss_and_grad(result.model, make_example(request.task, request.vocab, request.train_length, rng), &grad);
        result.loss.push_back(e.loss);
        if (e.targets > 0) adam.update(result.model.params, grad);
    }
    Model evaluated = result.model;
    if (!request.eval_encoding.entries().empty()) {
        evaluated.encoding = sized(request.eval_encoding, request.d_model);
        if (family_of(evaluated.encoding).type != family_of(result.model.encoding).type)
            throw_bad_param("eval_encoding.type", '"' + family_of(evaluated.encoding).type + '"',
                            "the trained encoding's family, \"" + family_of(result.model.encoding).type + "\"");
    }
    for (const std::int64_t n : request.eval_lengths) {
        Random eval_rng(std::uint64_t(request.seed) + 1 + std::uint64_t(n) * 0x9E3779B97F4A7C15ull);
        EvalPoint point;
        point.length = n;
        std::int64_t correct = 0, targets = 0;
        for (std::int64_t k = 0; k < request.eval_examples; ++k) {
            const Evaluation e = loss_and_grad(evaluated, make_example(request.task, request.vocab, n, eval_rng), nullptr);
            correct += e.correct;
            targets += e.targets;
            point.loss += e.loss / double(request.eval_examples);
        }
        point.accuracy = targets ? double(correct) / double(targets) : 0.0;
        result.eval.push_back(point);
    }
    return result;
}

}  // namespace posenc::train
