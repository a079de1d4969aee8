// The attention head: tokenizer, embeddings, and each encoding in its place,
// checked against the identities the explainers rely on.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <random>

#include "posenc/alibi.hpp"
#include "posenc/attention.hpp"
#include "posenc/kernels.hpp"
#include "posenc/registry.hpp"
#include "posenc/transformer_xl.hpp"

// A namespace of its own: the test files also build as one translation unit (CMake's unity build).
namespace posenc_test_attention {

using namespace posenc;
using namespace posenc::attention;
using Catch::Matchers::Contains;

namespace {

Value object(Config c) { return Config(std::move(c)); }

Request request(const std::string& text, Config encoding, std::int64_t d = 16, bool causal = false,
                Projections projections = Projections::random) {
    Request r;
    r.tokens = tokenize(text);
    r.d_model = d;
    r.d_head = d;
    r.encoding = std::move(encoding);
    r.causal = causal;
    r.projections = projections;
    r.seed = 3;
    return r;
}

Config spec(const std::string& type) { return Config{{"type", type}}; }

}  // namespace

TEST_CASE("tokenize: lower-cased words, inner apostrophes, punctuation on its own", "[attention]") {
    CHECK(tokenize("The dog, chased THE cat!") == std::vector<std::string>{"the", "dog", ",", "chased", "the", "cat", "!"});
    CHECK(tokenize("don't stop 'til 42") == std::vector<std::string>{"don't", "stop", "'", "til", "42"});
    CHECK(tokenize("Café au lait") == std::vector<std::string>{"café", "au", "lait"});
    std::string long_text;
    for (int i = 0; i < 2048; ++i) long_text += "w ";
    CHECK(tokenize(long_text).size() == 2048);
    CHECK_THROWS_WITH(tokenize(long_text + "w"), Contains("text = a text of 2049 tokens") && Contains("at most 2048 tokens"));
    CHECK_THROWS_WITH(tokenize("   "), Contains("at least one token"));
}

TEST_CASE("a token has one embedding, wherever it stands, N(0, 1/d_model)", "[attention]") {
    CHECK(token_embedding("dog", 64, 0) == token_embedding("dog", 64, 0));
    CHECK(token_embedding("dog", 64, 0) != token_embedding("cat", 64, 0));
    CHECK(token_embedding("dog", 64, 0) != token_embedding("dog", 64, 1));
    double squares = 0;
    const auto e = token_embedding("word", 4096, 0);
    for (float v : e) squares += double(v) * v;
    CHECK(squares / 4096 == Approx(1.0 / 4096).epsilon(0.1));
}

TEST_CASE("the matmul kernel agrees with a double-precision reference", "[attention][kernels]") {
    std::mt19937 rng(1);
    std::normal_distribution<float> normal;
    const std::size_t m = 7, k = 13, n = 5;
    std::vector<float> a(m * k), b(k * n), out(m * n);
    for (auto& v : a) v = normal(rng);
    for (auto& v : b) v = normal(rng);
    kernels::matmul(a.data(), b.data(), out.data(), m, k, n);
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            double ref = 0;
            for (std::size_t p = 0; p < k; ++p) ref += double(a[i * k + p]) * b[p * n + j];
            CHECK(out[i * n + j] == Approx(ref).margin(1e-5));
        }
}

TEST_CASE("weights rows sum to 1 and respect the causal mask", "[attention]") {
    for (const char* type : {"sinusoidal", "rope", "alibi", "none"}) {
        const Result r = run(request("the quick brown fox jumps over the lazy dog .", spec(type), 16, true));
        const std::size_t n = r.tokens.size();
        for (std::size_t i = 0; i < n; ++i) {
            double sum = 0;
            for (std::size_t j = 0; j < n; ++j) {
                sum += r.weights(i, j);
                if (j > i) {
                    CHECK(r.weights(i, j) == 0.0f);
                    CHECK(r.logits(i, j) == -std::numeric_limits<float>::infinity());
                }
            }
            CHECK(sum == Approx(1.0).epsilon(1e-6));
        }
        CHECK(r.output.shape()[1] == 16);
    }
}

TEST_CASE("absolute encodings: the four terms sum to the logits", "[attention][terms]") {
    for (const Family* f : families()) {
        if (f->acts != Acts::absolute) continue;
        const std::string type = f->type;
        const Result r = run(request("the dog chased the cat", spec(type), 32));
        REQUIRE(r.terms.carrier == "absolute");
        for (std::size_t i = 0; i < 5; ++i)
            for (std::size_t j = 0; j < 5; ++j)
                CHECK(r.terms.cc(i, j) + r.terms.cp(i, j) + r.terms.pc(i, j) + r.terms.pp(i, j) ==
                      Approx(r.logits(i, j)).margin(1e-5));
    }
}

TEST_CASE("with identity projections the position-position term depends only on i - j (sinusoidal)", "[attention][terms]") {
    const Result r = run(request("a b c d e f g h", spec("sinusoidal"), 32, false, Projections::identity));
    CHECK(r.terms.pp(1, 4) == Approx(r.terms.pp(3, 6)).margin(1e-6));
    CHECK(r.terms.pp(5, 2) == Approx(r.terms.pp(7, 4)).margin(1e-6));
    CHECK(r.terms.pp(0, 3) != Approx(r.terms.pp(0, 4)).margin(1e-6));
}

TEST_CASE("NoPE: permuting the tokens permutes the output rows; repeated tokens give equal rows", "[attention][none]") {
    const Result a = run(request("the dog chased the cat", spec("none")));
    const Result b = run(request("cat the chased dog the", spec("none")));  // permutation 4 0 2 1 3 of a
    const int perm[5] = {4, 0, 2, 1, 3};
    for (int i = 0; i < 5; ++i)
        for (int c = 0; c < 16; ++c) CHECK(b.output(i, c) == Approx(a.output(perm[i], c)).margin(1e-6));
    // "the" at 0 and 3: identical rows of weights and output.
    for (int c = 0; c < 16; ++c) CHECK(a.output(0, c) == a.output(3, c));
    for (int j = 0; j < 5; ++j) CHECK(a.weights(0, j) == a.weights(3, j));
    CHECK(a.terms.carrier == "none");
    // With positions, the two "the" rows differ.
    const Result p = run(request("the dog chased the cat", spec("sinusoidal")));
    CHECK(p.output(0, 0) != p.output(3, 0));
}

TEST_CASE("RoPE with identity projections: a constant sentence's logits depend only on i - j", "[attention][rope]") {
    Request r = request("the the the the the the the the", spec("rope"), 16, false, Projections::identity);
    const Result a = run(r);
    REQUIRE(a.terms.carrier == "rotary");
    CHECK(a.logits(0, 3) == Approx(a.logits(4, 7)).margin(1e-5));
    CHECK(a.logits(6, 1) == Approx(a.logits(7, 2)).margin(1e-5));
    // Moving the whole sentence (a decoding step far on) changes nothing relative.
    r.position_offset = 100000;
    const Result far = run(r);
    CHECK(far.logits(0, 3) == Approx(a.logits(0, 3)).margin(2e-4));
    // The content term is the logits without rotation: equal everywhere for one token.
    CHECK(a.terms.content(0, 5) == a.terms.content(2, 3));
}

TEST_CASE("ALiBi: logits are the content scores plus -slope * |i - j|", "[attention][alibi]") {
    Config alibi{{"type", std::string("alibi")}, {"n_heads", 8.0}, {"head", 1.0}};  // slope 1/4
    const Result with = run(request("the dog chased the cat", alibi));
    const Result without = run(request("the dog chased the cat", spec("none")));
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j) CHECK(with.logits(i, j) == Approx(without.logits(i, j) - 0.25 * std::abs(i - j)).margin(1e-6));
    CHECK(with.terms.carrier == "bias");
    CHECK(with.terms.position(4, 0) == -1.0f);
}

TEST_CASE("Shaw and Transformer-XL take the head's own queries; xPos runs as query and key", "[attention]") {
    for (const char* type : {"shaw", "transformer_xl", "xpos", "t5", "kerple"}) {
        const Result r = run(request("one two three four", spec(type), 8, true));
        CHECK(r.weights(3, 0) + r.weights(3, 1) + r.weights(3, 2) + r.weights(3, 3) == Approx(1.0));
    }
}

TEST_CASE("bad attention requests throw naming the parameter", "[attention][errors]") {
    Request r = request("a b", spec("sinusoidal"), 16);
    r.d_head = 8;
    r.projections = Projections::identity;
    CHECK_THROWS_WITH(run(r), Contains("d_head = 8") && Contains("d_model = 16 with identity projections"));
    CHECK_THROWS_WITH(run(request("a b", Config{{"type", std::string("sinusoidal")}, {"d_model", 32.0}}, 16)),
                      Contains("encoding.d_model = 32") && Contains("d_model = 16 (the request's)"));
    CHECK_THROWS_WITH(run(request("a b", Config{{"type", std::string("rope")}, {"head_dim", 8.0}}, 16)),
                      Contains("encoding.head_dim = 8"));
    CHECK_THROWS_WITH(parse(Config{{"text", std::string("a")}, {"tokens", std::vector<std::string>{"a"}}}), Contains("not both"));
    CHECK_THROWS_WITH(parse(Config{{"text", std::string("a")}, {"projections", std::string("orthogonal")}}),
                      Contains("projections = \"orthogonal\""));
    CHECK_THROWS_WITH(parse(Config{{"txt", std::string("a")}}), Contains("unknown key \"txt\""));
}

TEST_CASE("embedding_scale s multiplies the inputs: NoPE logits grow by s^2, weights follow softmax", "[attention][none]") {
    Request r = request("the dog chased the cat", spec("none"));
    const Result one = run(r);
    r.embedding_scale = 4.0;
    const Result four = run(r);
    CHECK(four.x(2, 5) == Approx(4.0 * one.x(2, 5)).epsilon(1e-6));
    CHECK(four.logits(1, 3) == Approx(16.0 * one.logits(1, 3)).epsilon(1e-5));
    // Softmax by hand for row 1 from the scaled logits.
    double z = 0;
    for (int j = 0; j < 5; ++j) z += std::exp(double(four.logits(1, j)));
    CHECK(four.weights(1, 2) == Approx(std::exp(double(four.logits(1, 2))) / z).epsilon(1e-5));
    // 0 removes the content: every logit is 0 and the weights are uniform.
    r.embedding_scale = 0.0;
    const Result zero = run(r);
    CHECK(zero.weights(3, 4) == Approx(0.2).epsilon(1e-6));
    CHECK_THROWS_WITH(parse(Config{{"text", std::string("a")}, {"embedding_scale", -1.0}}), Contains("embedding_scale = -1"));
}

TEST_CASE("the result holds the head's own x, P, q, k, v: logits = q k^T / sqrt(d), output = weights v", "[attention]") {
    for (const char* type : {"sinusoidal", "rope"}) {
        const Result r = run(request("the sky is not", spec(type), 8));
        const std::size_t n = 4, d = 8;
        REQUIRE(r.q.shape()[0] == n);
        REQUIRE(r.q.shape()[1] == d);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                double dot = 0;
                for (std::size_t c = 0; c < d; ++c) dot += double(r.q(i, c)) * double(r.k(j, c));
                CHECK(r.logits(i, j) == Approx(dot / std::sqrt(double(d))).margin(1e-5));
            }
        double out = 0;
        for (std::size_t j = 0; j < n; ++j) out += double(r.weights(2, j)) * double(r.v(j, 3));
        CHECK(r.output(2, 3) == Approx(out).margin(1e-6));
        const std::vector<float> sky = token_embedding("sky", 8, 3);
        CHECK(r.x(1, 6) == sky[6]);
    }
    const Result s = run(request("the sky is not", spec("sinusoidal"), 8));
    CHECK(s.positions(2, 0) == Approx(std::sin(2.0)).margin(1e-6));  // pair 0: sin(pos * 1)
    CHECK(s.positions(2, 1) == Approx(std::cos(2.0)).margin(1e-6));
    // RoPE rotates pair c of position i by i * theta_c: norms kept, q_unrotated is X W_q.
    const Result rope = run(request("the sky is not", spec("rope"), 8));
    REQUIRE(rope.q_unrotated.shape()[0] == 4);
    const double a = rope.q_unrotated(3, 0), b = rope.q_unrotated(3, 4);  // half layout: pair 0 is dims 0 and 4
    CHECK(rope.q(3, 0) == Approx(a * std::cos(3.0) - b * std::sin(3.0)).margin(1e-5));
    CHECK(rope.q(3, 4) == Approx(b * std::cos(3.0) + a * std::sin(3.0)).margin(1e-5));
    CHECK(s.q_unrotated.size() == 0);
}

TEST_CASE("forward with the head's own weights gives run's output, for every family, causal or not", "[attention][forward]") {
    // run (the page's head: whole n x n matrices) and forward (the fused kernel) are two
    // paths to the same softmax(q k^T / sqrt(d) + b) v: their outputs agree.
    for (const Family* f : families())
        for (const bool causal : {false, true}) {
            if (f->acts == Acts::absolute) continue;  // added to x before the head: forward refuses it
            const std::string type = f->type;
            Request r = request("the quick brown fox jumps over the lazy dog and the cat naps", spec(type), 16, causal);
            r.position_offset = 5;
            WeightCache cache;
            const Result expected = run(r, &cache);
            const WeightCache::Weights& w = cache.get(r);
            Forward f;
            f.n = std::int64_t(r.tokens.size());
            f.d_model = f.d_head = 16;
            f.causal = causal;
            f.encoding = spec(type);
            f.position_offset = 5;
            std::vector<float> out(std::size_t(f.n * 16));
            forward(f, {expected.x.data(), expected.x.size()}, {w[0].data(), w[0].size()}, {w[1].data(), w[1].size()},
                    {w[2].data(), w[2].size()}, out.data());
            INFO(type << (causal ? " causal" : ""));
            for (std::size_t e = 0; e < out.size(); ++e) CHECK(out[e] == Approx(expected.output.data()[e]).margin(2e-5));
        }
}

TEST_CASE("forward: a long causal sequence equals the full-matrix reference; absolute encodings are refused", "[attention][forward]") {
    const std::int64_t n = 1500, dm = 24, d = 8;
    std::mt19937 rng(5);
    std::normal_distribution<float> normal;
    std::vector<float> x(n * dm), wq(dm * d), wk(dm * d), wv(dm * d), out(n * d), expected(n * d);
    for (auto* m : {&x, &wq, &wk, &wv})
        for (float& v : *m) v = normal(rng) * (m == &x ? 1.0f : 0.2f);  // logits of order 1
    Forward f;
    f.n = n;
    f.d_model = dm;
    f.d_head = d;
    f.causal = true;
    f.encoding = spec("none");
    forward(f, {x.data(), x.size()}, {wq.data(), wq.size()}, {wk.data(), wk.size()}, {wv.data(), wv.size()}, out.data());
    CHECK_THROWS_WITH(forward(f, {x.data(), x.size() - 1}, {wq.data(), wq.size()}, {wk.data(), wk.size()},
                              {wv.data(), wv.size()}, out.data()),
                      "x = an array of length 35999 is invalid: expected n * d_model = 36000 numbers");
    CHECK_THROWS_WITH(forward(f, {x.data(), x.size()}, {wq.data(), wq.size()}, {wk.data(), 1}, {wv.data(), wv.size()},
                              out.data()),
                      "wk = an array of length 1 is invalid: expected d_model * d_head = 192 numbers");
    std::vector<float> q(n * d), k(n * d), v(n * d);
    kernels::matmul_reference(x.data(), wq.data(), q.data(), n, dm, d);
    kernels::matmul_reference(x.data(), wk.data(), k.data(), n, dm, d);
    kernels::matmul_reference(x.data(), wv.data(), v.data(), n, dm, d);
    kernels::attention_reference(q.data(), k.data(), v.data(), n, d, d, 1.0f / std::sqrt(float(d)), true, nullptr,
                                 expected.data());
    for (std::size_t e = 0; e < out.size(); ++e) CHECK(out[e] == Approx(expected[e]).margin(1e-5));

    const Config absolute{{"n", 4.0}, {"d_model", 8.0}, {"d_head", 8.0}, {"encoding", object(spec("sinusoidal"))}};
    CHECK_THROWS_WITH(parse_forward(absolute),
                      Contains("encoding.type = \"sinusoidal\" is invalid") && Contains("add positionTable(spec, n).data to x"));
    CHECK_THROWS_WITH(parse_forward(Config{{"n", 8193.0}, {"d_model", 8.0}, {"d_head", 8.0}}),
                      Contains("n = 8193 is invalid: expected an integer in [1, 8192]"));
    CHECK_THROWS_WITH(parse_forward(Config{{"n", 4.0}, {"d_model", 8.0}, {"d_head", 257.0}}),
                      Contains("d_head = 257 is invalid: expected an integer in [1, 256]"));
    CHECK_THROWS_WITH(parse_forward(Config{{"n", 4.0}, {"d_model", 8.0}}), Contains("missing required key \"d_head\""));
    Forward rope = parse_forward(Config{{"n", 4.0}, {"d_model", 8.0}, {"d_head", 8.0},
                                        {"encoding", object(Config{{"type", std::string("rope")}, {"head_dim", 16.0}})}});
    CHECK_THROWS_WITH(forward(rope, {x.data(), 4 * 8}, {wq.data(), 8 * 8}, {wk.data(), 8 * 8}, {wv.data(), 8 * 8}, out.data()),
                      Contains("encoding.head_dim = 16 is invalid: expected d_head = 8"));
}

TEST_CASE("Transformer-XL's factors Q'.K' reproduce its bias (q_i + v) . R_(i-j)", "[attention][transformer_xl]") {
    transformer_xl::Spec s;
    s.d_head = 16;
    s.seed = 4;
    const std::int64_t n = 40;
    std::mt19937 rng(8);
    std::normal_distribution<float> normal;
    xt::xtensor<float, 2> q = xt::empty<float>({std::size_t(n), std::size_t(16)});
    for (float& v : q) v = normal(rng);
    s.causal = false;
    const auto b = transformer_xl::bias(s, q);
    std::vector<float> qe, ke;
    transformer_xl::relative_factors(s, q.data(), n, qe, ke);
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            double dot = 0;
            for (std::int64_t c = 0; c < 16; ++c) dot += double(qe[i * 16 + c]) * ke[j * 16 + c];
            CHECK(dot == Approx(b(i, j)).margin(2e-5));
        }
}

TEST_CASE("embed_tokens (JS embedTokens) is tokenize + embed: each row the token's embedding, the arguments named as JS names them", "[attention]") {
    const Embedded e = embed_tokens("The sky is not the SKY", 8, 3);
    CHECK(e.tokens == std::vector<std::string>{"the", "sky", "is", "not", "the", "sky"});
    REQUIRE(e.data.shape()[0] == 6);
    REQUIRE(e.data.shape()[1] == 8);
    const std::vector<float> sky = token_embedding("sky", 8, 3);
    for (std::size_t c = 0; c < 8; ++c) {
        CHECK(e.data(1, c) == sky[c]);
        CHECK(e.data(5, c) == sky[c]);  // the same word, the same row, wherever it is
    }
    // run's inputs are the same rows times embedding_scale
    const auto scaled = embed(e.tokens, 8, 3, 2.0);
    CHECK(scaled(1, 0) == float(2.0 * double(sky[0])));
    CHECK_THROWS_WITH(embed_tokens("a", 4097, 0), "dModel = 4097 is invalid: expected an integer in [1, 4096]");
    CHECK_THROWS_WITH(embed_tokens("a", 8, -1), "seed = -1 is invalid: expected an integer in [0, 9007199254740992]");
    CHECK_THROWS_WITH(embed_tokens("  ", 8, 0), Contains("text = \"  \" is invalid"));
}

TEST_CASE("set_inputs takes a request's x from a flat array of n * d_model numbers", "[attention]") {
    Request r;
    r.d_model = 4;
    const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8};
    set_inputs(r, {x.data(), x.size()});
    REQUIRE(r.x.shape()[0] == 2);
    CHECK(r.x(1, 2) == 7.0f);
    CHECK(r.tokens == std::vector<std::string>{"", ""});
    // x and the tokens it stands for are one or the other: a request with text is refused x.
    CHECK_THROWS_WITH(set_inputs(r, {x.data(), x.size()}), Contains("give x or text / tokens, not both"));
    Request fresh;
    fresh.d_model = 4;
    CHECK_THROWS_WITH(set_inputs(fresh, {x.data(), 7}),
                      "x = a Float32Array of length 7 is invalid: expected n * d_model numbers, n in [1, 2048], d_model = 4");
    CHECK_THROWS_WITH(set_inputs(fresh, {x.data(), 0}), Contains("x = a Float32Array of length 0 is invalid"));
    Request empty;
    CHECK_THROWS_WITH(run(empty), "attention request: missing required key \"text\" or \"tokens\" (or x)");
}

}  // namespace posenc_test_attention
