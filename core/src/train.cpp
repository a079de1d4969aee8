#include "posenc/train.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "posenc/budget.hpp"
#include "posenc/registry.hpp"
#include "posenc/train_slots.hpp"

namespace posenc::train {

void check_table(const std::string& key, const std::string& value, double rows, std::int64_t d) {
    if (rows * double(d) > double(1 << 20))
        throw_bad_param(key, value, "a table of at most 2^20 numbers to train: here " + format_number(rows) + " rows x d_model " +
                                        std::to_string(d));
}

namespace {

/// The spec as the model uses it: its width key d, one head, causal (see Model::encoding).
Config sized(const Config& encoding, std::int64_t d) {
    const Family& family = family_of(encoding);
    Config out = encoding;
    if (!family.width_key.empty()) out[family.width_key] = double(d);
    if (family.key("causal")) out["causal"] = true;
    if (family.training.size) family.training.size(out, d);
    return out;
}

/// The spec with its seed key set to `seed` (the draw of one layer's parameters).
Config seeded(const Config& encoding, std::uint64_t seed) {
    Config out = encoding;
    out["seed"] = double(seed);
    return out;
}

/// What a pass over n tokens precomputes: the content scale 1 / sqrt(d), then the family's prepare slot.
template <class Real>
Pass<Real> pass_of(const Model<Real>& m, std::size_t n) {
    Pass<Real> pass;
    pass.n = n;
    pass.d = std::size_t(m.d);
    pass.content_scale = Real(1.0 / std::sqrt(double(m.d)));
    const Slots<Real>& slot = slots<Real>(m.family->training);
    if (slot.prepare) slot.prepare(m.encoding, pass);
    return pass;
}

template <class Real>
void zero_like(Params<Real>& g, const Params<Real>& p) {
    g.layers.resize(p.layers.size());
    auto to = groups(g);
    auto from = groups(const_cast<Params<Real>&>(p));
    for (std::size_t k = 0; k < to.size(); ++k) to[k].second->assign(from[k].second->size(), 0.0);
}

/// One layer's values in the forward pass, kept for the backward pass.
template <class Real>
struct Cache {
    Vec<Real> in, q, k, v, a;  // in [n, d] (the layer's x), q and k as they enter q . k, v, weights [n, n]
    LayerBias<Real> bias;
};

}  // namespace

template <class Real>
std::vector<std::pair<std::string, std::vector<Real>*>> groups(Params<Real>& params) {
    std::vector<std::pair<std::string, std::vector<Real>*>> out = {{"E", &params.E}};
    for (std::size_t l = 0; l < params.layers.size(); ++l) {
        const std::string at = "layer" + std::to_string(l) + ".";
        Layer<Real>& layer = params.layers[l];
        out.insert(out.end(), {{at + "Wq", &layer.Wq}, {at + "Wk", &layer.Wk}, {at + "Wv", &layer.Wv}, {at + "pos", &layer.pos}});
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

template <class Real>
Model<Real> make_model(const Config& encoding, std::int64_t vocab, std::int64_t d, std::int64_t classes,
                 std::int64_t max_length, std::uint64_t seed, std::int64_t layers) {
    if (layers < 1 || layers > 2) throw_bad_param("layers", std::to_string(layers), "1 or 2");
    Model<Real> m;
    m.vocab = vocab;
    m.d = d;
    m.classes = classes;
    m.max_length = max_length;
    m.encoding = sized(encoding, d);
    m.family = &family_of(m.encoding);
    const Slots<Real>& slot = slots<Real>(m.family->training);
    Random rng(seed);
    const Real std = Real(1.0 / std::sqrt(double(d)));
    Params<Real>& p = m.params;
    p.E = normals(rng, std::size_t(vocab * d), std);
    p.layers.resize(std::size_t(layers));
    for (std::size_t l = 0; l < p.layers.size(); ++l) {
        Layer<Real>& layer = p.layers[l];
        layer.Wq = normals(rng, std::size_t(d * d), std);
        layer.Wk = normals(rng, std::size_t(d * d), std);
        layer.Wv = normals(rng, std::size_t(d * d), std);
        const Config own = family_of(m.encoding).key("seed") ? seeded(m.encoding, seed + l) : m.encoding;
        if (slot.init) layer.pos = slot.init(own, d);
    }
    p.Wout = normals(rng, std::size_t(d * classes), std);
    p.c.assign(std::size_t(classes), 0.0);
    if (slot.table) p.P = slot.table(rng, max_length, d);
    return m;
}

template <class Real>
Config trained_spec(const Model<Real>& model, std::size_t layer) {
    Config out = model.encoding;
    const Vec<Real>& pos = model.params.layers.at(layer).pos;
    const Training& training = model.family->training;
    const std::vector<double> values(pos.begin(), pos.end());
    if (training.write)
        training.write(out, Trained{values, std::vector<double>(model.params.P.begin(), model.params.P.end()), model.max_length});
    else if (!training.position_key.empty())
        out[training.position_key] = values;
    return out;
}

template <class Real>
Evaluation loss_and_grad(const Model<Real>& model, const Example& example, Params<Real>* grad, std::vector<std::vector<Real>>* weights) {
    const std::size_t n = example.tokens.size(), d = std::size_t(model.d), C = std::size_t(model.classes);
    if (n < 1 || std::int64_t(n) > model.max_length)
        throw_bad_param("length", std::to_string(n), "an integer in [1, " + std::to_string(model.max_length) + "]");
    const Params<Real>& p = model.params;
    // Forward.
    Vec<Real> x(n * d);
    for (std::size_t t = 0; t < n; ++t)
        std::copy_n(p.E.begin() + std::ptrdiff_t(std::size_t(example.tokens[t]) * d), d, x.begin() + std::ptrdiff_t(t * d));
    const Pass<Real> sh = pass_of(model, n);
    const Slots<Real>& slot = slots<Real>(model.family->training);
    if (!sh.table.empty())  // an absolute family's fixed table
        for (std::size_t k = 0; k < n * d; ++k) x[k] += sh.table[k];
    else if (!p.P.empty())  // its learned table
        for (std::size_t k = 0; k < n * d; ++k) x[k] += p.P[k];
    const bool biased = bool(slot.bias);
    std::vector<Cache<Real>> caches(p.layers.size());
    Vec<Real> h = x;
    for (std::size_t l = 0; l < p.layers.size(); ++l) {
        const Layer<Real>& layer = p.layers[l];
        Cache<Real>& cache = caches[l];
        cache.in = h;
        cache.q.resize(n * d);
        cache.k.resize(n * d);
        cache.v.resize(n * d);
        matmul(cache.in.data(), layer.Wq.data(), cache.q.data(), n, d, d);
        matmul(cache.in.data(), layer.Wk.data(), cache.k.data(), n, d, d);
        matmul(cache.in.data(), layer.Wv.data(), cache.v.data(), n, d, d);
        if (sh.rotary) {
            sh.rq.apply(cache.q.data(), n, d, false);
            sh.rk.apply(cache.k.data(), n, d, false);
        }
        Vec<Real>& a = cache.a;  // the content scores, then the scores, then the weights; 0 above the diagonal
        a.resize(n * n);
        scores(cache.q.data(), cache.k.data(), a.data(), n, n, d, sh.content_scale);
        if (biased) {
            cache.bias = slot.bias(model.encoding, BiasInputs<Real>{sh, layer, cache.q, cache.k, a});
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j <= i; ++j) a[i * n + j] += cache.bias.b[i * n + j];
        }
        Vec<Real> o(n * d);  // the head's output, added to the residual: h = in + o
        attend(a.data(), cache.v.data(), o.data(), n, d, true);
        for (std::size_t e = 0; e < n * d; ++e) h[e] += o[e];
        if (weights) weights->push_back(a);
    }
    Vec<Real> z(n * C);
    matmul(h.data(), p.Wout.data(), z.data(), n, d, C);
    Evaluation result;
    Vec<Real> dz(n * C, 0.0);
    for (std::size_t t = 0; t < n; ++t)
        if (example.targets[t] >= 0) ++result.targets;
    for (std::size_t t = 0; t < n; ++t) {
        const int y = example.targets[t];
        if (y < 0) continue;
        Real top = -HUGE_VAL;
        std::size_t best = 0;
        for (std::size_t c = 0; c < C; ++c) {
            z[t * C + c] += p.c[c];
            if (z[t * C + c] > top) top = z[t * C + c], best = c;
        }
        Real sum = 0;
        for (std::size_t c = 0; c < C; ++c) sum += std::exp(z[t * C + c] - top);
        result.loss += (top + std::log(sum) - z[t * C + std::size_t(y)]) / Real(result.targets);
        result.correct += best == std::size_t(y);
        for (std::size_t c = 0; c < C; ++c)
            dz[t * C + c] = (std::exp(z[t * C + c] - top) / sum - (c == std::size_t(y) ? Real(1) : Real(0))) / Real(result.targets);
    }
    if (!grad || result.targets == 0) return result;

    // Backward.
    if (grad->E.size() != p.E.size() || grad->layers.size() != p.layers.size()) zero_like(*grad, p);
    Vec<Real> dh(n * d, 0.0);
    matmul_backward(h.data(), p.Wout.data(), dz.data(), dh.data(), grad->Wout.data(), n, d, C);
    for (std::size_t t = 0; t < n; ++t)
        for (std::size_t c = 0; c < C; ++c) grad->c[c] += dz[t * C + c];
    Vec<Real> du = dh;  // the gradient of the current layer's output
    for (std::size_t l = p.layers.size(); l-- > 0;) {
        const Layer<Real>& layer = p.layers[l];
        Layer<Real>& g = grad->layers[l];
        const Cache<Real>& cache = caches[l];
        const Vec<Real>& a = cache.a;
        Vec<Real> din = du, dq(n * d, 0.0), dk(n * d, 0.0), dv(n * d, 0.0);  // the residual passes du to the input
        Vec<Real> ds(n * n, 0.0);  // d loss / d s_ij
        for (std::size_t i = 0; i < n; ++i) {
            Real weighted = 0;
            for (std::size_t j = 0; j <= i; ++j) {
                ds[i * n + j] = dot(&du[i * d], &cache.v[j * d], d);
                axpy(a[i * n + j], &du[i * d], &dv[j * d], d);
                weighted += a[i * n + j] * ds[i * n + j];
            }
            for (std::size_t j = 0; j <= i; ++j) ds[i * n + j] = a[i * n + j] * (ds[i * n + j] - weighted);  // the softmax's Jacobian
        }
        Vec<Real> dcontent = ds;  // d loss / d (scale q_i . k_j)
        if (biased && slot.backward)
            slot.backward(model.encoding, BiasInputs<Real>{sh, layer, cache.q, cache.k, a}, cache.bias, ds,
                          BiasGradients<Real>{g, dq, dk, dcontent});
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j <= i; ++j) {
                const Real s = dcontent[i * n + j] * sh.content_scale;
                axpy(s, &cache.k[j * d], &dq[i * d], d);
                axpy(s, &cache.q[i * d], &dk[j * d], d);
            }
        if (sh.rotary) {  // q = R q0: dq0 = R^T dq
            sh.rq.apply(dq.data(), n, d, true);
            sh.rk.apply(dk.data(), n, d, true);
        }
        matmul_backward(cache.in.data(), layer.Wq.data(), dq.data(), din.data(), g.Wq.data(), n, d, d);
        matmul_backward(cache.in.data(), layer.Wk.data(), dk.data(), din.data(), g.Wk.data(), n, d, d);
        matmul_backward(cache.in.data(), layer.Wv.data(), dv.data(), din.data(), g.Wv.data(), n, d, d);
        du = std::move(din);
    }
    const Vec<Real>& dx = du;
    for (std::size_t t = 0; t < n; ++t)
        for (std::size_t c = 0; c < d; ++c) {
            grad->E[std::size_t(example.tokens[t]) * d + c] += dx[t * d + c];
            if (!p.P.empty()) grad->P[t * d + c] += dx[t * d + c];
        }
    return result;
}

template <class Real>
void constrain(Model<Real>& model) {
    const Slots<Real>& slot = slots<Real>(model.family->training);
    if (!slot.constrain) return;
    for (Layer<Real>& layer : model.params.layers) slot.constrain(model.encoding, layer.pos);
}

template <class Real>
void Adam<Real>::update(Params<Real>& params, const Params<Real>& grad) {
    if (m.E.size() != params.E.size() || m.layers.size() != params.layers.size()) {
        zero_like(m, params);
        zero_like(v, params);
    }
    ++step;
    // In Real throughout: Adam's constants rounded once, as a float32 optimiser holds them.
    const Real b1 = Real(beta1), b2 = Real(beta2), rate = Real(lr), epsilon = Real(eps);
    const Real correction1 = Real(1) - std::pow(b1, Real(step)), correction2 = Real(1) - std::pow(b2, Real(step));
    auto xs = groups(params), ms = groups(m), vs = groups(v);
    auto gs = groups(const_cast<Params<Real>&>(grad));
    for (std::size_t k = 0; k < xs.size(); ++k) {
        Vec<Real> *x = xs[k].second, *mo = ms[k].second, *ve = vs[k].second;
        const Vec<Real>* g = gs[k].second;
        for (std::size_t i = 0; i < x->size(); ++i) {
            const Real gi = (*g)[i];
            (*mo)[i] = b1 * (*mo)[i] + (Real(1) - b1) * gi;
            (*ve)[i] = b2 * (*ve)[i] + (Real(1) - b2) * gi * gi;
            (*x)[i] -= rate * ((*mo)[i] / correction1) / (std::sqrt((*ve)[i] / correction2) + epsilon);
        }
    }
}

Request parse_request(const Config& config) {
    const SpecReader read(config, "train request",
                          {"task", "encoding", "eval_encoding", "layers", "d_model", "vocab", "train_length", "steps", "seed",
                           "eval_lengths", "eval_examples", "lr", "recalibration_steps", "batch_size"});
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
    r.recalibration_steps = read.integer("recalibration_steps", 0, 0, 100000);
    r.batch_size = read.integer("batch_size", 1, 1, 256);
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
    // 8 n d^2 multiply-adds (projections, read-out) and, per (query, key) pair, 6 d (scores,
    // weights . v, their gradients) + 80 (the exp, the softmax's bookkeeping) + the encoding's own
    // (deberta 9 d for c2p, p2c and their gradients; cope 2 d + 50 for its gates and interpolation;
    // fire 8 mlp_width; shaw 4 d; transformer_xl 6 d; 80 for a log per pair: t5's and deberta's
    // buckets, fire's psi), 8 to a budget operation. Measured in wasm
    // on this machine (README "Limits"): about 0.5 ns per multiply-add and 40 ns of the 80 per
    // pair, so the budget's 3e8 operations are about 1.2 s.
    const double d = double(r.d_model);
    const Config encoding = sized(r.encoding, r.d_model);
    const Training& training = family_of(encoding).training;
    const double own = training.pair_work ? training.pair_work(encoding, d) : 0.0;
    const auto pass = [&](double n) { return (8 * n * d * double(std::max(r.d_model, r.vocab)) + n * n * (6 * d + 80 + own)) / 8; };
    // Per step besides the passes: drawing the example, the gradient's buffers, and Adam over every
    // parameter (a sqrt and a division each: about 3 operations), measured: about 4000 operations
    // of overhead at toy sizes (d_model 4: 78432 steps took 2 s when only the passes were counted).
    const double longest_length = double(std::max(r.train_length, *std::max_element(r.eval_lengths.begin(), r.eval_lengths.end())));
    const double classes = r.task == Task::first_marker ? longest_length : double(r.vocab);
    const double parameters = d * (double(r.vocab) + 3 * double(r.layers) * d + classes + (training.f.table ? longest_length : 0.0));
    r.step_work = double(r.batch_size) * (double(r.layers) * pass(double(r.train_length)) + 4000) + 3 * parameters;
    for (const std::int64_t n : r.eval_lengths)
        r.evaluation_work += double(r.eval_examples) * double(r.layers) * pass(double(n)) / 2;  // forward only
    // A request is refused when one step, or the evaluation, is above the budget of one call;
    // its steps are counted by run() (one call) or by each Trainer::step (a chunk).
    budget::check_work("train", "train_length",
                       budget::Factors{{1, "step"}, {double(r.layers), "layers"}, {pass(double(r.train_length)), "operations per layer"}}, 0);
    budget::check_work("train", "eval_lengths", budget::Factors{{1, "evaluation"}, {r.evaluation_work, "operations"}}, 0);
    return r;
}

namespace {

/// The longest sequence an experiment reads: train_length, or the longest of eval_lengths.
std::int64_t longest(const Request& r) {
    return std::max(r.train_length, *std::max_element(r.eval_lengths.begin(), r.eval_lengths.end()));
}

template <class Real>
Model<Real> model_of(const Request& r) {
    const std::int64_t classes = r.task == Task::first_marker ? longest(r) : r.vocab;
    return make_model<Real>(r.encoding, r.vocab, r.d_model, classes, longest(r), std::uint64_t(r.seed), r.layers);
}

}  // namespace

template <class Real>
Trainer<Real>::Trainer(Request request) : request_(std::move(request)), model_(model_of<Real>(request_)), rng_(std::uint64_t(request_.seed)) {
    adam_.lr = request_.lr;
    loss_.reserve(std::size_t(total()));
}

template <class Real>
std::int64_t Trainer<Real>::step(std::int64_t count) {
    count = std::min(count, total() - done_);
    budget::check_work("trainerStep", "count", budget::Factors{{double(count), "steps"}, {request_.step_work, "operations per step"}}, 0);
    for (std::int64_t k = 0; k < count && done_ < total(); ++k, ++done_) {
        if (done_ == request_.steps) {  // DroPE: the encoding is dropped, the rest recalibrates without it
            model_.encoding = sized(Config{{"type", std::string("none")}}, request_.d_model);
            model_.family = &family_of(model_.encoding);
            model_.params.P.clear();
            for (Layer<Real>& layer : model_.params.layers) layer.pos.clear();
            adam_ = Adam<Real>{};  // fresh moments for the parameters that remain
            adam_.lr = request_.lr;
        }
        Params<Real> grad;
        const Evaluation e = loss_and_grad(model_, make_example(request_.task, request_.vocab, request_.train_length, rng_), &grad);
        if (request_.batch_size == 1) {
            loss_.push_back(e.loss);
            if (e.targets > 0) {
                adam_.update(model_.params, grad);
                constrain(model_);
            }
            continue;
        }
        // A mini-batch: the mean of the sequences' gradients (loss_and_grad adds each one's to grad), the mean loss.
        double loss = e.loss;
        std::int64_t targets = e.targets;
        for (std::int64_t b = 1; b < request_.batch_size; ++b) {
            const Evaluation more = loss_and_grad(model_, make_example(request_.task, request_.vocab, request_.train_length, rng_), &grad);
            loss += more.loss;
            targets += more.targets;
        }
        const Real mean = Real(1) / Real(request_.batch_size);
        for (auto& group : groups(grad))
            for (Real& x : *group.second) x *= mean;
        loss_.push_back(loss / double(request_.batch_size));
        if (targets > 0) {
            adam_.update(model_.params, grad);
            constrain(model_);
        }
    }
    return done_;
}

template <class Real>
Result<Real> Trainer<Real>::finish() {
    while (done_ < total()) step(std::max<std::int64_t>(1, std::int64_t(budget::kMaxOperations / std::max(1.0, request_.step_work))));
    Result<Real> result;
    result.loss = loss_;
    result.model = model_;
    Model<Real>& evaluated = result.model;
    if (!request_.eval_encoding.empty()) {
        const Config eval = sized(request_.eval_encoding, request_.d_model);
        if (family_of(eval).type != family_of(evaluated.encoding).type)
            throw_bad_param("eval_encoding.type", '"' + family_of(eval).type + '"',
                            "the trained encoding's family, \"" + family_of(evaluated.encoding).type + "\"");
        evaluated.encoding = eval;
    }
    for (const std::int64_t n : request_.eval_lengths) {
        Random eval_rng(std::uint64_t(request_.seed) + 1 + std::uint64_t(n) * 0x9E3779B97F4A7C15ull);
        EvalPoint point;
        point.length = n;
        std::int64_t correct = 0, targets = 0;
        for (std::int64_t k = 0; k < request_.eval_examples; ++k) {
            const Evaluation e = loss_and_grad<Real>(evaluated, make_example(request_.task, request_.vocab, n, eval_rng), nullptr);
            correct += e.correct;
            targets += e.targets;
            point.loss += e.loss / double(request_.eval_examples);
        }
        point.accuracy = targets ? double(correct) / double(targets) : 0.0;
        result.eval.push_back(point);
    }
    for (const std::int64_t n : {request_.train_length, std::min(4 * request_.train_length, evaluated.max_length)}) {
        Random map_rng(std::uint64_t(request_.seed) + 2 + std::uint64_t(n) * 0x9E3779B97F4A7C15ull);
        AttentionMap<Real> map;
        map.length = n;
        map.example = make_example(request_.task, request_.vocab, n, map_rng);
        loss_and_grad<Real>(evaluated, map.example, nullptr, &map.weights);
        result.maps.push_back(std::move(map));
    }
    return result;
}

template <class Real>
Result<Real> run(const Request& request) {
    const double steps = double(request.steps + request.recalibration_steps);
    budget::check_work("train", "steps", {{{steps, "steps"}, {request.step_work, "operations per step"}},
                                           {{1, "evaluation"}, {request.evaluation_work, "operations"}}},
                       8.0 * steps);
    return Trainer<Real>(request).finish();
}

#define POSENC_TRAIN_INSTANTIATE(Real)                                                                                     \
    template std::vector<std::pair<std::string, std::vector<Real>*>> groups(Params<Real>&);                              \
    template Model<Real> make_model(const Config&, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::uint64_t, \
                                    std::int64_t);                                                                        \
    template Config trained_spec(const Model<Real>&, std::size_t);                                                        \
    template Evaluation loss_and_grad(const Model<Real>&, const Example&, Params<Real>*, std::vector<std::vector<Real>>*); \
    template void constrain(Model<Real>&);                                                                                \
    template struct Adam<Real>;                                                                                           \
    template class Trainer<Real>;                                                                                         \
    template Result<Real> run(const Request&);
POSENC_TRAIN_INSTANTIATE(float)
POSENC_TRAIN_INSTANTIATE(double)
#undef POSENC_TRAIN_INSTANTIATE

}  // namespace posenc::train
