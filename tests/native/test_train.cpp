// Training (issue 14, first part): the tasks' answers by hand, every gradient of
// the model against central finite differences for each trained family, and a
// short Adam run that learns the copy task.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "posenc/json.hpp"
#include "posenc/attention.hpp"
#include "posenc/fire.hpp"
#include "posenc/train.hpp"

using namespace posenc;
using namespace posenc::train;

namespace {

Config S(const std::string& json) { return parse_json_object(json, "spec"); }

}  // namespace

TEST_CASE("train: the tasks' targets follow their definitions", "[train]") {
    Random rng(3);
    for (int round = 0; round < 20; ++round) {
        const Example copy = make_example(Task::copy, 7, 12, rng);
        CHECK(copy.targets[0] == -1);
        for (std::size_t t = 1; t < 12; ++t) CHECK(copy.targets[t] == copy.tokens[t - 1]);
        const Example induction = make_example(Task::induction, 5, 16, rng);
        for (std::size_t t = 0; t < 16; ++t) {
            int expected = -1;  // the token after the last earlier occurrence of tokens[t]
            for (std::size_t s = 0; s < t; ++s)
                if (induction.tokens[s] == induction.tokens[t]) expected = induction.tokens[s + 1];
            CHECK(induction.targets[t] == expected);
        }
        const Example marker = make_example(Task::first_marker, 9, 10, rng);
        int first = -1;
        for (std::size_t t = 0; t < 10; ++t) {
            if (first < 0 && marker.tokens[t] == 0) first = int(t);
            CHECK(marker.targets[t] == first);
        }
        CHECK(first >= 0);
        CHECK(first < 5);  // placed in the first half
    }
    CHECK_THROWS_WITH(task_of("sort"), Catch::Matchers::Contains("task = \"sort\" is invalid"));
}

TEST_CASE("train: every gradient equals central finite differences, for each trained family", "[train]") {
    const std::vector<std::string> encodings = {
        R"({"type":"none"})", R"({"type":"sinusoidal"})", R"({"type":"learned"})", R"({"type":"rope","rope_theta":100})",
        R"({"type":"rope","layout":"interleaved","rope_scaling":{"rope_type":"yarn","factor":4,"original_max_position_embeddings":4}})",
        R"({"type":"alibi","n_heads":4,"head":1})", R"({"type":"t5","num_buckets":8,"max_distance":16})",
        R"({"type":"xpos","scale_base":8})", R"({"type":"shaw","max_relative_position":3})", R"({"type":"transformer_xl"})",
        R"({"type":"kerple"})", R"({"type":"kerple","variant":"power","r2":1.5})",
        R"({"type":"deberta","position_buckets":4,"max_relative_positions":8})",
        R"({"type":"fire","mlp_width":4,"init_L":3,"init_c":0.5})", R"({"type":"cope","npos_max":4})"};
    Random rng(5);
    const Example example = make_example(Task::copy, 5, 7, rng);
    for (const std::string& json : encodings) {
        INFO(json);
        int checked = 0;
        for (const std::int64_t layers : {1, 2}) {
            INFO(layers << " layers");
            Model<double> model = make_model<double>(S(json), 5, 4, 5, 16, 9, layers);
            for (Layer<double>& layer : model.params.layers)  // away from the initial zeros (t5, cope) and ones (kerple)
                for (std::size_t b = 0; b < layer.pos.size(); ++b) layer.pos[b] += 0.2 * std::sin(double(b) + 1.0);
            Params<double> grad;
            loss_and_grad(model, example, &grad);
            auto values = groups(model.params);
            auto gradients = groups(grad);
            REQUIRE(values.size() == gradients.size());
            for (std::size_t group = 0; group < values.size(); ++group) {
                std::vector<double>& v = *values[group].second;
                const std::vector<double>& g = *gradients[group].second;
                for (std::size_t i = 0; i < v.size(); i += 3) {  // every third entry of each group
                    const double keep = v[i], h = 1e-5;
                    v[i] = keep + h;
                    const double up = loss_and_grad<double>(model, example, nullptr).loss;
                    v[i] = keep - h;
                    const double down = loss_and_grad<double>(model, example, nullptr).loss;
                    v[i] = keep;
                    INFO(values[group].first << "[" << i << "]");
                    CHECK(g[i] == Approx((up - down) / (2 * h)).margin(1e-8).epsilon(1e-6));
                    ++checked;
                }
            }
        }
        CHECK(checked > 20);
    }
}

TEST_CASE("train: Adam learns the copy task with RoPE, and the loss starts at about ln(vocab)", "[train]") {
    const std::int64_t vocab = 8, length = 16;
    Model<float> model = make_model<float>(S(R"({"type":"rope"})"), vocab, 16, vocab, 64, 1);  // float32, as the page trains
    Adam<float> adam;
    adam.lr = 1e-2;
    Random rng(2);
    double first = 0, last = 0;
    std::int64_t correct = 0, targets = 0;
    for (int step = 0; step < 300; ++step) {
        Params<float> grad;
        const Evaluation e = loss_and_grad(model, make_example(Task::copy, vocab, length, rng), &grad);
        if (step == 0) first = e.loss;
        if (step >= 280) {
            last += e.loss / 20;
            correct += e.correct;
            targets += e.targets;
        }
        adam.update(model.params, grad);
    }
    // Untrained: the read-out is near uniform, so the loss is near ln 8 = 2.08.
    CHECK(first == Approx(std::log(8.0)).margin(0.5));
    // Trained: the previous token is found by position (RoPE's relative offsets).
    CHECK(last < 0.3);
    CHECK(double(correct) / double(targets) > 0.9);
}

TEST_CASE("train: an experiment is deterministic, evaluates every length, and can swap RoPE's scaling at test time", "[train]") {
    const Config request = S(R"({"task":"copy","encoding":{"type":"rope"},"d_model":16,"vocab":8,"train_length":16,
        "steps":400,"lr":0.01,"seed":1,"eval_lengths":[16,64],"eval_examples":8})");
    const Result<float> a = run<float>(parse_request(request)), b = run<float>(parse_request(request));
    REQUIRE(a.loss.size() == 400);
    CHECK(a.loss == b.loss);  // bit for bit
    REQUIRE(a.eval.size() == 2);
    CHECK(a.eval[0].length == 16);
    CHECK(a.eval[0].accuracy == b.eval[0].accuracy);
    CHECK(a.eval[0].accuracy > 0.9);  // learned at its training length (seed 4 stays at 0.5: toy runs can stall)
    Config scaled = request;
    scaled["eval_encoding"] = Config(S(R"({"type":"rope","rope_scaling":{"rope_type":"linear","factor":4}})"));
    const Result<float> c = run<float>(parse_request(scaled));
    CHECK(c.loss == a.loss);                 // the same training
    CHECK(c.eval[0].loss != a.eval[0].loss);  // evaluated with positions / 4
    CHECK_THROWS_WITH(run<float>(parse_request(S(R"({"encoding":{"type":"rope"},"eval_encoding":{"type":"alibi"},"steps":1})"))),
                      Catch::Matchers::Contains("eval_encoding.type = \"alibi\" is invalid"));
    CHECK_THROWS_WITH(parse_request(S(R"({"layers":3})")), Catch::Matchers::Contains("layers = 3 is invalid: expected an integer in [1, 2]"));
    CHECK_THROWS_WITH(parse_request(S(R"({"steps":100000,"train_length":1024,"d_model":256})")), Catch::Matchers::Contains("exceeds the limit"));
}

TEST_CASE("train: a Trainer stepped in chunks gives run()'s result bit for bit, with the attention maps", "[train]") {
    const Request request = parse_request(S(R"({"task":"copy","encoding":{"type":"kerple"},"layers":2,"d_model":8,"vocab":6,
        "train_length":8,"steps":23,"seed":2,"eval_lengths":[8,24],"eval_examples":3})"));
    const Result<float> whole = run<float>(request);
    Trainer<float> trainer(request);
    CHECK(trainer.total() == 23);
    CHECK(trainer.step(5) == 5);
    CHECK(trainer.step(7) == 12);
    CHECK(trainer.step(100) == 23);  // stops at total
    const Result<float> chunked = trainer.finish();
    CHECK(chunked.loss == whole.loss);
    CHECK(chunked.eval[1].loss == whole.eval[1].loss);
    // Maps at train_length and at 4 x train_length capped at the longest evaluated length (24).
    REQUIRE(whole.maps.size() == 2);
    CHECK(whole.maps[0].length == 8);
    CHECK(whole.maps[1].length == 24);
    for (const AttentionMap<float>& map : whole.maps) {
        REQUIRE(map.weights.size() == 2);  // one per layer
        const std::size_t n = std::size_t(map.length);
        for (const std::vector<float>& w : map.weights)
            for (std::size_t i = 0; i < n; ++i) {
                double sum = 0;
                for (std::size_t j = 0; j < n; ++j) {
                    if (j > i) CHECK(w[i * n + j] == 0.0);  // causal
                    sum += w[i * n + j];
                }
                CHECK(sum == Approx(1.0).epsilon(1e-6));  // float32 weights
            }
    }
    // KERPLE's r1, r2 were trained (away from 1, 1) and stayed positive.
    const std::vector<float>& r = whole.model.params.layers[0].pos;
    CHECK(r[0] != 1.0);
    CHECK(r[1] > 0.0);
}

TEST_CASE("train: DroPE drops the encoding after training and recalibrates without it", "[train]") {
    const Config base = S(R"({"task":"copy","encoding":{"type":"rope"},"d_model":8,"vocab":6,"train_length":8,"steps":30,
        "seed":1,"eval_lengths":[8],"eval_examples":2})");
    Config dropped = base;
    dropped["recalibration_steps"] = 10.0;
    const Result<float> a = run<float>(parse_request(base)), b = run<float>(parse_request(dropped));
    REQUIRE(b.loss.size() == 40);
    CHECK(std::equal(a.loss.begin(), a.loss.end(), b.loss.begin()));  // the same training first
    CHECK(b.model.family->type == "none");
    CHECK(b.model.encoding.at("type") == Value(std::string("none")));
    // The first recalibration step is the trained model without its rotation: the loss changes.
    CHECK(b.loss[30] != a.loss[29]);
}

TEST_CASE("train: each family's trained spec carries its parameters under the spec's own keys", "[train]") {
    Model<double> t5m = make_model<double>(S(R"({"type":"t5","num_buckets":8})"), 4, 4, 4, 16, 0, 2);
    t5m.params.layers[1].pos[3] = 0.25;
    const Config t5spec = trained_spec(t5m, 1);
    CHECK((t5spec.at("relative_attention_bias")).get<std::vector<double>>()[3] == 0.25);
    CHECK((t5spec.at("n_heads")).get<double>() == 1);
    CHECK((t5spec.at("causal")).get<bool>());
    const Model<double> fm = make_model<double>(S(R"({"type":"fire","mlp_width":3})"), 4, 4, 4, 16, 0);
    const Config fspec = trained_spec(fm, 0);
    CHECK((fspec.at("linear2_weight")).get<std::vector<double>>().size() == 3);
    CHECK((fspec.at("linear2_bias")).get<std::vector<double>>().size() == 1);
    // fire's MLP starts as the family draws it with seed + layer.
    const fire::HeadMlp drawn = fire::head_mlp(fire::parse(S(R"({"type":"fire","mlp_width":3,"n_heads":1,"seed":0})")));
    CHECK((fspec.at("linear1_weight")).get<std::vector<double>>() == drawn.w1);
    const Model<float> lm = make_model<float>(S(R"({"type":"learned"})"), 4, 4, 4, 16, 0);
    const Config lspec = trained_spec(lm, 0);
    CHECK((lspec.at("max_position_embeddings")).get<double>() == 16);
    CHECK((lspec.at("weight")).get<std::vector<double>>() == std::vector<double>(lm.params.P.begin(), lm.params.P.end()));
}

TEST_CASE("train: the trained head, given back to attention() as its spec and W, attends as it did in training (one head)", "[train]") {
    // Layer 0 of a one-layer model: attention() over x = E[tokens] with the trained W_q, W_k,
    // W_v and trained_spec must give train's own (float32) weights.
    for (const std::string& encoding :
         {R"({"type":"none"})", R"({"type":"sinusoidal"})", R"({"type":"learned"})", R"({"type":"rope"})", R"({"type":"xpos","scale_base":16})",
          R"({"type":"t5","num_buckets":8,"max_distance":16})", R"({"type":"shaw","max_relative_position":4})", R"({"type":"transformer_xl"})",
          R"({"type":"alibi"})", R"({"type":"kerple","variant":"power"})", R"({"type":"deberta","position_buckets":8,"max_relative_positions":16})",
          R"({"type":"fire","mlp_width":8,"init_L":6})", R"({"type":"cope","npos_max":6})"}) {
        INFO(encoding);
        const Config request = S(std::string(R"({"task":"copy","d_model":8,"vocab":6,"train_length":12,"steps":40,"seed":3,
            "eval_lengths":[12,20],"eval_examples":1,"encoding":)") + encoding + "}");
        const Result<float> trained = run<float>(parse_request(request));
        const AttentionMap<float>& map = trained.maps[1];  // 20 tokens, past the training length
        const std::size_t n = std::size_t(map.length), d = 8;
        const Params<float>& p = trained.model.params;
        attention::Request head;
        head.d_model = head.d_head = 8;
        head.causal = true;
        head.encoding = trained_spec(trained.model, 0);
        head.projections = attention::Projections::given;
        head.wq.assign(p.layers[0].Wq.begin(), p.layers[0].Wq.end());
        head.wk.assign(p.layers[0].Wk.begin(), p.layers[0].Wk.end());
        head.wv.assign(p.layers[0].Wv.begin(), p.layers[0].Wv.end());
        head.x = xt::zeros<float>({n, d});
        for (std::size_t t = 0; t < n; ++t)
            for (std::size_t c = 0; c < d; ++c) head.x(t, c) = float(p.E[std::size_t(map.example.tokens[t]) * d + c]);
        head.tokens.assign(n, "");
        const attention::Result result = attention::run(head);
        double worst = 0;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j <= i; ++j) worst = std::max(worst, std::abs(double(result.weights(i, j)) - map.weights[0][i * n + j]));
        WARN(encoding << " worst " << worst);
        // One head (kernels::scores, kernels::attend) serves both: where training computes the
        // position step as the page does (a table added to x, a bias that is a lookup of j - i),
        // the weights are the same bit for bit; a rotation or a bias made of products is computed
        // in training's differentiable form, a few float32 ulps apart.
        const std::string type = head.encoding.at("type").get<std::string>();
        if (type == "none" || type == "sinusoidal" || type == "learned" || type == "t5" || type == "alibi")
            CHECK(worst == 0);
        else
            CHECK(worst < 1e-6);
    }
}

TEST_CASE("train: float32 training follows float64 training step for step at first", "[train]") {
    // The page trains in float32. The same request in float64 gives the same losses while the
    // runs are close (rounding differences grow as training goes on: Adam divides by sqrt(v)).
    const Request request = parse_request(S(R"({"task":"copy","encoding":{"type":"rope"},"d_model":16,"vocab":8,
        "train_length":16,"steps":20,"seed":1,"eval_lengths":[16],"eval_examples":2})"));
    const Result<float> f = run<float>(request);
    const Result<double> d = run<double>(request);
    for (std::size_t s = 0; s < 20; ++s) {
        INFO("step " << s);
        CHECK(f.loss[s] == Approx(d.loss[s]).epsilon(1e-4));
    }
}
