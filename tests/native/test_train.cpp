// Training (issue 14, first part): the tasks' answers by hand, every gradient of
// the model against central finite differences for each trained family, and a
// short Adam run that learns the copy task.
#include <catch2/catch.hpp>
#include <algorithm>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "posenc/json.hpp"
#include "posenc/attention.hpp"
#include "posenc/fire.hpp"
#include "posenc/registry.hpp"
#include "posenc/train.hpp"
#include "posenc/train_slots.hpp"
#include "bad_param.hpp"
#include "family_facts.hpp"

// A namespace of its own: the test files also build as one translation unit (CMake's unity build).
namespace posenc_test_train {

using namespace posenc;
using namespace posenc::train;

namespace {

Config S(const std::string& json) { return parse_json_object(json, "spec"); }

/// Every family, with its keys set where the defaults would hide a part of its gradient: those written here, then each
/// family of families() not among them, as its own test file gives it (family_facts.hpp train_specs) or {type} alone.
std::vector<std::string> encodings() {
    std::vector<std::string> out = {
        R"({"type":"none"})", R"({"type":"sinusoidal"})", R"({"type":"learned"})", R"({"type":"rope","rope_theta":100})",
        R"({"type":"rope","layout":"interleaved","rope_scaling":{"rope_type":"yarn","factor":4,"original_max_position_embeddings":4}})",
        R"({"type":"alibi","n_heads":4,"head":1})", R"({"type":"t5","num_buckets":8,"max_distance":16})",
        R"({"type":"xpos","scale_base":8})", R"({"type":"shaw","max_relative_position":3})", R"({"type":"transformer_xl"})",
        R"({"type":"kerple"})", R"({"type":"kerple","variant":"power","r2":1.5})",
        R"({"type":"deberta","position_buckets":4,"max_relative_positions":8})",
        R"({"type":"fire","mlp_width":4,"init_L":3,"init_c":0.5})", R"({"type":"cope","npos_max":4})", R"({"type":"fox"})", R"({"type":"pope","theta":100})"};
    const std::size_t written = out.size();
    for (const Family* f : families()) {
        const std::string type = "\"" + f->type + "\"";
        if (std::any_of(out.begin(), out.begin() + std::ptrdiff_t(written), [&](const std::string& j) { return j.find(type) != std::string::npos; }))
            continue;
        const auto facts = posenc_test::family_facts().find(f->type);
        if (facts != posenc_test::family_facts().end() && !facts->second.train_specs.empty())
            out.insert(out.end(), facts->second.train_specs.begin(), facts->second.train_specs.end());
        else
            out.push_back(R"({"type":")" + f->type + R"("})");
    }
    return out;
}

/// The attention-only model with one and two layers, and the transformer: two layers of two heads
/// (W_o), an MLP of width 6 and RMSNorm before each part and the read-out.
std::vector<Architecture> test_architectures() {
    std::vector<Architecture> architectures(3);
    architectures[1].layers = 2;
    architectures[2] = Architecture{2, 2, 6, true};
    return architectures;
}

/// A model of the tests' small sizes whose norms, MLP biases and position parameters are moved away from their
/// first values (the norms' gains from 1, the biases and T5's and CoPE's zeros from 0, KERPLE's ones).
template <class Real>
Model<Real> moved_model(const std::string& json, const Architecture& arch) {
    Model<Real> model = make_model<Real>(S(json), 5, 4, 5, 16, 9, arch);
    for (Layer<Real>& layer : model.params.layers) {
        for (std::vector<Real>* v : {&layer.norm1, &layer.norm2, &layer.b1, &layer.b2})
            for (std::size_t b = 0; b < v->size(); ++b) (*v)[b] += Real(0.3 * std::cos(double(b) + 2.0));
        for (Head<Real>& head : layer.heads)
            for (std::size_t b = 0; b < head.pos.size(); ++b) head.pos[b] += Real(0.2 * std::sin(double(b) + 1.0));
    }
    return model;
}

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

TEST_CASE("train: every family of the registry has its training listed, its own", "[train][registry]") {
    // training_of's list sits apart from families() (a module without the trainer drops the training code):
    // each family there, and each training distinct (no line pairs a family with another's training).
    std::vector<const Training*> seen;
    for (const Family* family : families()) {
        INFO(family->type);
        const Training* training = nullptr;
        REQUIRE_NOTHROW(training = &training_of(*family));
        for (const Training* other : seen) CHECK(other != training);
        seen.push_back(training);
    }
    // The trained-parameter keys name the family's own spec keys (the first of a comma-separated list).
    for (const Family* family : families()) {
        const std::string& key = training_of(*family).position_key;
        if (key.empty()) continue;
        INFO(family->type << ": " << key);
        CHECK(family->key(key.substr(0, key.find(','))) != nullptr);
    }
}

TEST_CASE("train: every gradient equals central finite differences, for each trained family", "[train]") {
    Random rng(5);
    const Example example = make_example(Task::copy, 5, 7, rng);
    for (const std::string& json : encodings()) {
        INFO(json);
        int checked = 0;
        for (const Architecture& arch : test_architectures()) {
            INFO(arch.layers << " layers, " << arch.n_heads << " heads, MLP " << arch.intermediate_size << ", norm " << arch.norm);
            Model<double> model = moved_model<double>(json, arch);
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

TEST_CASE("train: a batch's gradient is the sum of its examples' gradients, for each trained family", "[train]") {
    // batch_loss_and_grad (Trainer::step's) against a plain loop of loss_and_grad over the same examples. In float64,
    // every entry within 1e-12 relative (the sums' order differs only for a positional family's bias parameters and
    // DeBERTa's W_q, W_k, which its bias's backward pass also reaches). In float32, every other entry bit for bit.
    Random rng(11);
    std::vector<Example> batch;
    for (int b = 0; b < 3; ++b) batch.push_back(make_example(Task::copy, 5, 7, rng));
    for (const std::string& json : encodings()) {
        INFO(json);
        for (const Architecture& arch : test_architectures()) {
            INFO(arch.layers << " layers, " << arch.n_heads << " heads, MLP " << arch.intermediate_size << ", norm " << arch.norm);
            const Model<double> model = moved_model<double>(json, arch);
            Params<double> each, all;
            Evaluation sum;
            for (const Example& e : batch) {
                const Evaluation one = loss_and_grad(model, e, &each);
                sum.loss += one.loss;
                sum.correct += one.correct;
                sum.targets += one.targets;
            }
            const Evaluation together = batch_loss_and_grad(model, batch, &all);
            CHECK(together.loss == Approx(sum.loss).epsilon(1e-14));
            CHECK(together.correct == sum.correct);
            CHECK(together.targets == sum.targets);
            auto want = groups(each), got = groups(all);
            std::size_t compared = 0;
            for (std::size_t group = 0; group < want.size(); ++group) {
                INFO(want[group].first);
                REQUIRE(got[group].second->size() == want[group].second->size());
                for (std::size_t i = 0; i < want[group].second->size(); ++i, ++compared) {
                    const double a = (*want[group].second)[i], b = (*got[group].second)[i];
                    CHECK(std::abs(a - b) <= 1e-12 * (1 + std::abs(a)));
                }
            }
            CHECK(compared > 50);

            const Model<float> single = moved_model<float>(json, arch);
            Params<float> each32, all32;
            for (const Example& e : batch) loss_and_grad(single, e, &each32);
            batch_loss_and_grad(single, batch, &all32);
            const bool positional = slots<float>(*single.training).positional, deberta = single.family->type == "deberta";
            auto want32 = groups(each32), got32 = groups(all32);
            for (std::size_t group = 0; group < want32.size(); ++group) {
                const std::string& name = want32[group].first;
                const auto ends = [&](const std::string& tail) { return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0; };
                if ((positional && ends(".pos")) || (deberta && (ends(".Wq") || ends(".Wk")))) continue;
                INFO(name);
                CHECK(*got32[group].second == *want32[group].second);
            }
        }
    }
    // One length per batch.
    Random other(2);
    std::vector<Example> mixed = batch;
    mixed.push_back(make_example(Task::copy, 5, 6, other));
    const Model<double> model = make_model<double>(S(R"({"type":"t5"})"), 5, 4, 5, 16, 9);
    const BadParam e = bad_param_of([&] { batch_loss_and_grad<double>(model, mixed, nullptr); });
    CHECK(e.param == "length");
    CHECK(bad_param_of([&] { batch_loss_and_grad<double>(model, {}, nullptr); }).param == "batch_size");
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
    CHECK_THROWS_WITH(parse_request(S(R"({"encoding":{"type":"rope"},"eval_encoding":{"type":"alibi"},"steps":1})")),
                      Catch::Matchers::Contains("eval_encoding.type = \"alibi\" is invalid"));
    CHECK_THROWS_WITH(parse_request(S(R"({"layers":7})")), Catch::Matchers::Contains("layers = 7 is invalid: expected an integer in [1, 6]"));
    CHECK_THROWS_WITH(parse_request(S(R"({"d_model":12,"n_heads":5})")),
                      Catch::Matchers::Contains("n_heads = 5 is invalid: expected a divisor of d_model = 12"));
    CHECK_THROWS_WITH(parse_request(S(R"({"norm":"layer_norm"})")), Catch::Matchers::Contains("norm = \"layer_norm\" is invalid"));
    CHECK_THROWS_WITH(parse_request(S(R"({"task":"text"})")), Catch::Matchers::Contains("text = absent is invalid"));
    CHECK_THROWS_WITH(parse_request(S(R"({"task":"copy","text":"abc"})")), Catch::Matchers::Contains("only with task \"text\""));
    // One call (run) holds at most the budget; a Trainer runs more in chunks, but one step or one evaluated example must fit.
    CHECK_THROWS_WITH(run<float>(parse_request(S(R"({"steps":100000,"train_length":1024,"d_model":256})"))),
                      Catch::Matchers::Contains("train (steps): 100000 steps"));
    CHECK_THROWS_WITH(parse_request(S(R"({"train_length":8,"eval_lengths":[4096],"d_model":256})")),
                      Catch::Matchers::Contains("train (eval_lengths): 1 example x 1 layers"));
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
    CHECK_THROWS_WITH(Trainer<float>(request).evaluate(1), Catch::Matchers::Contains("an evaluation after the training's 23 steps (0 done)"));
    CHECK(trainer.evaluation_total() == 2 * 3 + 2);  // 3 examples at each of 2 lengths, 2 attention maps
    CHECK(trainer.evaluate(4) == 4);  // the evaluation in units too: the same result
    const Result<float> chunked = trainer.finish();
    CHECK(chunked.loss == whole.loss);
    CHECK(chunked.eval[0].loss == whole.eval[0].loss);
    CHECK(chunked.eval[0].accuracy == whole.eval[0].accuracy);
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
    const std::vector<float>& r = whole.model.params.layers[0].heads[0].pos;
    CHECK(r[0] != 1.0);
    CHECK(r[1] > 0.0);
}

TEST_CASE("train: whatever parse_request accepts runs step(1) and evaluate(1): a whole step and every unit fit one call", "[train]") {
    // A step is its whole batch: one sequence of 128 tokens at d_model 256 and 6 layers fits one call, 256 of them
    // (1.8e10 operations) do not, and are refused at the start as batch_size; one sequence too long, as train_length.
    const BadParam batch = bad_param_of([] { parse_request(S(R"({"d_model":256,"layers":6,"train_length":128,"batch_size":256,"eval_lengths":[128]})")); });
    CHECK(batch.param == "batch_size");
    CHECK_THAT(batch.what(), Catch::Matchers::StartsWith("train (batch_size): 1 steps x 1.8e10 operations per step = 1.8e10 operations exceeds"));
    CHECK(bad_param_of([] { parse_request(S(R"({"d_model":256,"layers":2,"train_length":1024,"eval_lengths":[128]})")); }).param == "train_length");
    // The validation a step may end with counts too (validation_every): 16 examples here, forward only.
    const Config validated = S(R"({"d_model":128,"layers":4,"train_length":64,"batch_size":48,"eval_lengths":[64],"validation_every":5})");
    Config plain = validated;
    plain.erase("validation_every");
    CHECK_NOTHROW(parse_request(plain));
    CHECK(bad_param_of([&] { parse_request(validated); }).param == "batch_size");
    // At the largest batch the start accepts, step(1) runs; steps_per_call() steps run in one call, one more do not.
    Config request = S(R"({"d_model":64,"layers":2,"n_heads":4,"intermediate_size":256,"train_length":64,"eval_lengths":[64,512],
        "eval_examples":2,"steps":3,"validation_every":2})");
    std::int64_t largest = 1;
    for (std::int64_t b = 2; b <= 256; ++b) {
        request["batch_size"] = double(b);
        try {
            parse_request(request);
            largest = b;
        } catch (const BadParam& e) {
            CHECK(e.param == "batch_size");
            break;
        }
    }
    CHECK(largest > 1);
    CHECK(largest < 256);
    request["batch_size"] = double(largest);
    Trainer<float> trainer(parse_request(request));
    CHECK(trainer.steps_per_call() == 1);
    CHECK(trainer.step(1) == 1);
    CHECK(bad_param_of([&] { trainer.step(2); }).param == "count");
    CHECK(trainer.step(1) == 2);
    CHECK(trainer.step(1) == 3);
    // Every evaluation unit fits alone, the longest (an example at 512 tokens) included.
    for (std::int64_t k = 0; k < trainer.evaluation_total(); ++k) CHECK(trainer.evaluate(1) == k + 1);
    // A small model takes many steps a call: exactly as many as the budget holds.
    Trainer<float> small(parse_request(S(R"({"d_model":16,"train_length":16,"steps":100000,"eval_lengths":[16]})")));
    const std::int64_t most = small.steps_per_call();
    CHECK(most > 1000);
    CHECK(small.step(most) == most);
    CHECK(bad_param_of([&] { small.step(most + 1); }).param == "count");
}

TEST_CASE("train: run() and a Trainer's finish check share one budget: the steps and the evaluation left", "[train]") {
    const Request request = parse_request(S(R"({"d_model":16,"train_length":16,"steps":100000,"eval_lengths":[16]})"));
    const BadParam whole = bad_param_of([&] { run<float>(request); });
    Trainer<float> trainer(request);
    const BadParam rest = bad_param_of([&] { trainer.check_finish("trainerFinish"); });
    CHECK(whole.param == "steps");
    CHECK(rest.param == "steps");
    CHECK(std::string(whole.what()) == "train (steps): " + std::string(rest.what()).substr(std::string("trainerFinish (steps): ").size()));
    // Stepped down to what one call holds, finish's check passes, and finish() gives run()'s result for that many steps.
    trainer.step(trainer.steps_per_call());
    while (trainer.total() - trainer.done() > trainer.steps_per_call() / 2) trainer.step(trainer.steps_per_call());
    CHECK_NOTHROW(trainer.check_finish("trainerFinish"));
}

TEST_CASE("train: an eval_encoding is checked at the start: its family, its learned parameters' shape, its keys", "[train]") {
    CHECK(bad_param_of([] { parse_request(S(R"({"encoding":{"type":"rope"},"eval_encoding":{"type":"alibi"}})")); }).param == "eval_encoding.type");
    // Evaluated with 64 buckets, a T5 model trained with 8 would read past its table.
    const Request buckets = parse_request(S(R"({"encoding":{"type":"t5","num_buckets":8},"eval_encoding":{"type":"t5","num_buckets":64},
        "d_model":16,"train_length":8,"eval_lengths":[32]})"));
    const BadParam shape = bad_param_of([&] { Trainer<float> t(buckets); });
    CHECK(shape.param == "eval_encoding");
    CHECK_THAT(shape.what(), Catch::Matchers::Contains("8 numbers of relative_attention_bias"));
    // A scaling the family refuses: at the start, named by its own key.
    const Request yarn = parse_request(S(R"({"encoding":{"type":"rope"},"eval_encoding":{"type":"rope","rope_scaling":{"rope_type":"yarn",
        "factor":-1}},"d_model":16,"train_length":8,"eval_lengths":[32]})"));
    CHECK(bad_param_of([&] { Trainer<float> t(yarn); }).param == "factor");
    // Another spec of the same shape is fine.
    CHECK_NOTHROW(Trainer<float>(parse_request(S(R"({"encoding":{"type":"t5","num_buckets":8},"eval_encoding":{"type":"t5","num_buckets":8,
        "max_distance":16},"d_model":16,"train_length":8,"eval_lengths":[32]})"))));
}

TEST_CASE("train: a head width the encoding refuses is named as the request's n_heads or d_model", "[train]") {
    const BadParam heads = bad_param_of([] { Trainer<float> t(parse_request(S(R"({"encoding":{"type":"rope"},"n_heads":16,"d_model":16})"))); });
    CHECK(heads.param == "n_heads");
    CHECK_THAT(heads.what(), Catch::Matchers::StartsWith("n_heads = 16 is invalid: expected a value that gives rope a head_dim it takes "
                                                         "(head_dim = d_model / n_heads = 16 / 16 = 1; head_dim = 1 is invalid"));
    CHECK(bad_param_of([] { Trainer<float> t(parse_request(S(R"({"encoding":{"type":"transformer_xl"},"d_model":3})"))); }).param == "d_model");
    CHECK(bad_param_of([] { Trainer<float> t(parse_request(S(R"({"encoding":{"type":"xpos"},"n_heads":2,"d_model":6})"))); }).param == "n_heads");
    // RoPE's NTK scaling at test time needs 4 rotated dimensions: d_model 2 is the request's key that gave it 2.
    CHECK(bad_param_of([] {
              Trainer<float> t(parse_request(S(R"({"encoding":{"type":"rope"},"eval_encoding":{"type":"rope","rope_scaling":{"rope_type":"ntk",
                  "factor":8}},"d_model":2,"train_length":8,"eval_lengths":[16]})")));
          }).param == "d_model");
    // A width key the caller gave is theirs: rotary_dim named as itself.
    CHECK(bad_param_of([] { Trainer<float> t(parse_request(S(R"({"encoding":{"type":"rope","rotary_dim":3},"d_model":8})"))); }).param == "rotary_dim");
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
    t5m.params.layers[1].heads[0].pos[3] = 0.25;
    const Config t5spec = trained_spec(t5m, 1);
    CHECK((t5spec.at("relative_attention_bias")).get<std::vector<double>>()[3] == 0.25);
    CHECK((t5spec.at("n_heads")).get<double>() == 1);
    CHECK((t5spec.at("causal")).get<bool>());
    const Model<double> fm = make_model<double>(S(R"({"type":"fire","mlp_width":3})"), 4, 4, 4, 16, 0);
    const Config fspec = trained_spec(fm, 0);
    CHECK((fspec.at("linear2_weight")).get<std::vector<double>>().size() == 3);
    CHECK((fspec.at("linear2_bias")).get<std::vector<double>>().size() == 1);
    // fire's MLP starts as the family draws it with the head's own seed (head_seed: model seed 0, layer 0, head 0).
    Config fire0 = S(R"({"type":"fire","mlp_width":3,"n_heads":1})");
    fire0["seed"] = double(head_seed(0, 0, 0));
    const fire::HeadMlp drawn = fire::head_mlp(fire::parse(fire0));
    CHECK((fspec.at("linear1_weight")).get<std::vector<double>>() == drawn.w1);
    // fox's gate starts as the reference's (fgate_proj: weight N(0, 0.02^2), bias 0), read at the model's width d_model.
    const Model<double> xm = make_model<double>(S(R"({"type":"fox"})"), 4, 8, 4, 16, 0);
    const Config xspec = trained_spec(xm, 0);
    CHECK((xspec.at("hidden_size")).get<double>() == 8);
    const auto w = (xspec.at("fgate_weight")).get<std::vector<double>>();
    REQUIRE(w.size() == 8);
    for (const double v : w) CHECK(std::abs(v) < 0.1);
    CHECK((xspec.at("fgate_bias")).get<double>() == 0);
    const Model<float> lm = make_model<float>(S(R"({"type":"learned"})"), 4, 4, 4, 16, 0);
    const Config lspec = trained_spec(lm, 0);
    CHECK((lspec.at("max_position_embeddings")).get<double>() == 16);
    CHECK((lspec.at("weight")).get<std::vector<double>>() == std::vector<double>(lm.params.P.begin(), lm.params.P.end()));
}

TEST_CASE("train: sinusoidal's model reads sqrt(d_model) E[token] + P, the learned model with that table and 4 E", "[train]") {
    // Vaswani et al. 2017, section 3.4: the embeddings multiplied by sqrt(d_model) (here 16: 4, exactly in binary) before
    // the table is added. The learned family adds its own P to E as they are: given the sinusoidal table as P and 4 E,
    // the same model, the same loss; and the other families read E as it is.
    const std::int64_t vocab = 5, d = 16, n = 12;
    const Model<double> sinusoidal = make_model<double>(S(R"({"type":"sinusoidal"})"), vocab, d, vocab, n, 2);
    CHECK(embedding_scale(sinusoidal) == 4.0);
    for (const char* other : {R"({"type":"none"})", R"({"type":"learned"})", R"({"type":"rope"})", R"({"type":"alibi"})"})
        CHECK(embedding_scale(make_model<double>(S(other), vocab, d, vocab, n, 2)) == 1.0);
    Model<double> learned = make_model<double>(S(R"({"type":"learned"})"), vocab, d, vocab, n, 2);
    const std::vector<double> table = learned.params.P;  // its shape
    learned.params = sinusoidal.params;
    for (double& e : learned.params.E) e *= 4;
    const auto sines = posenc::position_table(sinusoidal.encoding, n);
    learned.params.P.assign(sines.begin(), sines.end());
    REQUIRE(learned.params.P.size() == table.size());
    Random rng(3);
    const Example example = make_example(Task::copy, vocab, n, rng);
    const double expected = loss_and_grad<double>(learned, example, nullptr).loss;
    CHECK(loss_and_grad<double>(sinusoidal, example, nullptr).loss == Approx(expected).epsilon(1e-14));
    // Unscaled (E as it is + P) is another model: the check above could fail.
    learned.params.E = sinusoidal.params.E;
    CHECK(std::abs(loss_and_grad<double>(learned, example, nullptr).loss - expected) > 1e-6);
}

TEST_CASE("train: the trained head, given back to attention() as its spec and W, attends as it did in training (one head)", "[train]") {
    // Layer 0 of a one-layer model: attention() over x = E[tokens] (sinusoidal's x sqrt(d_model)) with the trained W_q, W_k,
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
        const Head<float>& trained_head = p.layers[0].heads[0];
        head.wq.assign(trained_head.Wq.begin(), trained_head.Wq.end());
        head.wk.assign(trained_head.Wk.begin(), trained_head.Wk.end());
        head.wv.assign(trained_head.Wv.begin(), trained_head.Wv.end());
        head.x = xt::zeros<float>({n, d});
        for (std::size_t t = 0; t < n; ++t)
            for (std::size_t c = 0; c < d; ++c)
                head.x(t, c) = float(p.E[std::size_t(map.example.tokens[t]) * d + c] * embedding_scale(trained.model));
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

TEST_CASE("train: clipping scales the whole gradient to the norm, and the schedule warms up and decays", "[train]") {
    Model<double> model = make_model<double>(S(R"({"type":"rope"})"), 3, 4, 3, 8, 1);
    Params<double> grad = model.params;  // any numbers: the parameters themselves
    double sum = 0;
    for (auto& group : groups(grad))
        for (const double x : *group.second) sum += x * x;
    const double before = std::sqrt(sum);
    const std::vector<double> E = grad.E;
    CHECK(clip_gradient(grad, before * 2) == Approx(before));  // under the limit: unchanged
    CHECK(grad.E == E);
    CHECK(clip_gradient(grad, 0.5) == Approx(before));
    double after = 0;
    for (auto& group : groups(grad))
        for (const double x : *group.second) after += x * x;
    CHECK(std::sqrt(after) == Approx(0.5));
    CHECK(grad.E[1] == Approx(E[1] * 0.5 / before));  // every entry by the same factor
    // Warm-up over 4 steps: lr / 4, 2 lr / 4, ... then the half cosine from lr at step 4 to lr / 10 at step 9.
    CHECK(learning_rate(1.0, 0, 10, 4, true) == Approx(0.25));
    CHECK(learning_rate(1.0, 3, 10, 4, true) == Approx(1.0));
    CHECK(learning_rate(1.0, 4, 10, 4, true) == Approx(1.0));
    CHECK(learning_rate(1.0, 9, 10, 4, true) == Approx(0.1));
    CHECK(learning_rate(1.0, 6, 10, 4, true) == Approx(0.1 + 0.9 * 0.5 * (1 + std::cos(M_PI * 2 / 5))));
    CHECK(learning_rate(0.3, 7, 10, 0, false) == 0.3);  // constant, bit for bit
}

TEST_CASE("train: a corpus reads UTF-8 as characters, sorts its vocabulary and splits at a line start", "[train]") {
    std::string text;
    for (int line = 0; line < 200; ++line) text += "ab\xE2\x80\x94" "c d " + std::to_string(line % 10) + "\n";  // an em dash
    const auto corpus = corpus_of(text, 0.25);
    // Characters: '\n', ' ', '0'..'9', 'a', 'b', 'c', 'd', U+2014.
    REQUIRE(corpus->vocab() == 17);
    CHECK(corpus->characters.front() == '\n');
    CHECK(corpus->characters.back() == 0x2014);
    CHECK(corpus->tokens.size() == 200 * 9);
    CHECK(corpus->tokens[2] == 16);  // the em dash, one token
    CHECK(corpus->train_end % 9 == 0);  // after a newline
    CHECK(corpus->train_end == 9 * 150);
    Random rng(1);
    for (int k = 0; k < 50; ++k) {
        const Example e = corpus->example(8, rng);
        REQUIRE(e.tokens.size() == 8);
        for (std::size_t t = 0; t + 1 < 8; ++t) CHECK(e.targets[t] == e.tokens[t + 1]);  // the next character
    }
    const Example last = corpus->validation(8, 3, 4);  // the last of 4 windows ends inside the text
    CHECK(last.targets.back() == corpus->tokens[corpus->train_end + 3 * (450 - 8) / 4 + 8]);
    CHECK_THROWS_WITH(corpus_of("ab\xE2\x80", 0.1), Catch::Matchers::Contains("text = a text with byte 226 at 2 is invalid: expected UTF-8 text"));
    CHECK_THROWS_WITH(corpus_of("\xC0\xAF" + text, 0.1), Catch::Matchers::Contains("UTF-8"));  // overlong
    CHECK_THROWS_WITH(corpus_of("short", 0.1), Catch::Matchers::Contains("at least 1000 characters"));
    CHECK_THROWS_WITH(corpus->validation(450, 0, 1), Catch::Matchers::Contains("eval_lengths = 450 is invalid"));
}

TEST_CASE("train: several heads read their own ALiBi slope and their own learned parameters", "[train]") {
    Architecture arch{1, 4, 0, false};
    const Model<double> alibi = make_model<double>(S(R"({"type":"alibi"})"), 4, 8, 4, 16, 0, arch);
    for (std::size_t h = 0; h < 4; ++h) {  // the paper's slopes for 4 heads: 2^-2, 2^-4, 2^-6, 2^-8
        const Config spec = trained_spec(alibi, 0, h);
        CHECK(spec.at("n_heads").get<double>() == 4);
        CHECK(spec.at("head").get<double>() == double(h));
    }
    const Model<double> shaw = make_model<double>(S(R"({"type":"shaw","max_relative_position":2})"), 4, 8, 4, 16, 0, arch);
    CHECK(shaw.head_dim() == 2);
    CHECK(shaw.params.layers[0].heads[1].pos.size() == 5 * 2);  // relative_key [2K + 1, head_dim]
    CHECK(shaw.params.layers[0].heads[1].pos != shaw.params.layers[0].heads[2].pos);  // drawn with each head's head_seed
    CHECK(shaw.params.layers[0].Wo.size() == 64);
    CHECK_THROWS_WITH((make_model<double>(S(R"({"type":"none"})"), 4, 8, 4, 16, 0, Architecture{1, 3, 0, false})),
                      Catch::Matchers::Contains("n_heads = 3 is invalid: expected a divisor of d_model = 8"));
}

TEST_CASE("train: a small transformer learns a text's characters better than their frequencies, and generates", "[train]") {
    // A text with structure a model can learn from the previous characters: words from a small list.
    const std::vector<std::string> words = {"the ", "whale ", "sea ", "ship ", "and ", "of ", "captain ", "ahab "};
    std::string text;
    Random pick(7);
    for (int w = 0; w < 3000; ++w) text += words[std::size_t(pick.uniform() * 8)] + (w % 12 == 11 ? "\n" : "");
    Config request = S(R"({"task":"text","encoding":{"type":"rope"},"layers":2,"n_heads":2,"d_model":32,"intermediate_size":64,
        "norm":"rms_norm","train_length":32,"steps":150,"batch_size":8,"lr":0.01,"warmup_steps":10,"lr_decay":"cosine",
        "grad_clip":1,"validation_every":50,"eval_lengths":[32,64],"eval_examples":8,"samples":2,"sample_length":40,"seed":1})");
    request["text"] = text;
    const Request r = parse_request(request);
    const Result<float> result = Trainer<float>(r).finish();  // in chunks: above one call's budget
    // The unigram perplexity of the training part: exp of the entropy of its character frequencies.
    std::vector<double> counts(std::size_t(r.vocab), 0.0);
    for (std::size_t t = 0; t < r.corpus->train_end; ++t) counts[std::size_t(r.corpus->tokens[t])] += 1;
    double entropy = 0;
    for (const double c : counts)
        if (c > 0) entropy -= c / double(r.corpus->train_end) * std::log(c / double(r.corpus->train_end));
    const double unigram = std::exp(entropy);
    INFO("unigram perplexity " << unigram << ", validation " << result.eval[0].perplexity());
    CHECK(result.eval[0].perplexity() < 0.5 * unigram);
    REQUIRE(result.validation.size() == 3);
    CHECK(result.validation[0].step == 50);
    CHECK(result.validation[2].step == 150);
    CHECK(result.validation[2].loss < result.validation[0].loss);
    CHECK(result.validation[2].loss == Approx(result.eval[0].loss).epsilon(0.2));  // the same windows' kind, other windows
    REQUIRE(result.samples.size() == 2);
    CHECK(result.samples[0].prompt.size() == 24);  // min(4 x 32, max_length 64 - 40)
    CHECK(result.samples[0].generated.size() == 40);
    // Generated text is made of the list's words (most of the time): count the words it spells.
    std::string sample;
    for (const int t : result.samples[1].generated) sample += char(r.corpus->characters[std::size_t(t)]);
    int known = 0;
    for (const std::string& w : words)
        for (std::size_t at = sample.find(w); at != std::string::npos; at = sample.find(w, at + 1)) ++known;
    INFO(sample);
    CHECK(known >= 3);
}

namespace {

/// A text of words from a small list, `words` of them, a line every 12 (the text tests' corpus).
std::string word_text(int words, std::uint64_t seed) {
    const std::vector<std::string> list = {"the ", "whale ", "sea ", "ship ", "and ", "of ", "captain ", "ahab "};
    std::string text;
    Random pick(seed);
    for (int w = 0; w < words; ++w) text += list[std::size_t(pick.uniform() * 8)] + (w % 12 == 11 ? "\n" : "");
    return text;
}

/// The loss over windows by a plain loop: each window [at, at + length] of the corpus's tokens, its first length the
/// tokens and its last length the targets, through loss_and_grad; their mean loss (every window has length targets),
/// the sample standard deviation of their losses / sqrt(windows), and the share of right answers.
struct Plain {
    double loss = 0, se = 0, accuracy = 0;
};
Plain plain_loop(const Model<float>& model, const Corpus& corpus, std::int64_t length, const std::vector<std::size_t>& starts) {
    std::vector<double> losses;
    std::int64_t correct = 0;
    for (const std::size_t at : starts) {
        Example e;
        for (std::int64_t t = 0; t < length; ++t) {
            e.tokens.push_back(corpus.tokens[at + std::size_t(t)]);
            e.targets.push_back(corpus.tokens[at + std::size_t(t) + 1]);
        }
        const Evaluation r = loss_and_grad<float>(model, e, nullptr);
        losses.push_back(r.loss);
        correct += r.correct;
    }
    Plain p;
    const double n = double(losses.size());
    for (const double x : losses) p.loss += x / n;
    double squares = 0;
    for (const double x : losses) squares += (x - p.loss) * (x - p.loss);
    p.se = std::sqrt(squares / (n - 1) / n);
    p.accuracy = double(correct) / (n * double(length));
    return p;
}

}  // namespace

TEST_CASE("train: a text is evaluated over every non-overlapping window of its validation part, as a plain loop over them", "[train]") {
    // The trainer stacks a length's windows in batches and computes a positional family's bias once per length
    // (ALiBi's slopes, FIRE's MLP), the plain loop each window alone: the same numbers.
    const std::string type = GENERATE(as<std::string>{}, "alibi", "t5", "kerple", "fire", "rope");
    INFO(type);
    Config request = S(R"({"task":"text","encoding":{"type":"alibi"},"layers":2,"n_heads":2,"d_model":16,"intermediate_size":32,
        "norm":"rms_norm","train_length":16,"steps":30,"batch_size":4,"lr":0.01,"eval_lengths":[5,16,40],"eval_examples":3,"seed":2})");
    request["text"] = word_text(1500, 3);
    request["encoding"]["type"] = type;
    const Request r = parse_request(request);
    const Corpus& corpus = *r.corpus;
    const std::size_t split = corpus.tokens.size() - corpus.train_end;  // the validation part's characters
    REQUIRE(split > 700);
    Trainer<float> trainer(r);
    trainer.step(30);
    // Every window of every length is a unit: floor((split - 1) / L) of them, then the 2 maps.
    std::int64_t windows = 0;
    for (const std::int64_t L : r.eval_lengths) windows += std::int64_t((split - 1) / std::size_t(L));
    CHECK(trainer.evaluation_total() == windows + 2);
    trainer.evaluate(7);  // in chunks: the same result as at once (below)
    const Result<float> result = trainer.finish();
    REQUIRE(result.eval.size() == 3);
    for (std::size_t l = 0; l < 3; ++l) {
        const std::int64_t L = r.eval_lengths[l];
        const std::size_t count = (split - 1) / std::size_t(L);
        INFO("length " << L << ", " << count << " windows");
        std::vector<std::size_t> starts;
        for (std::size_t j = 0; j < count; ++j) starts.push_back(corpus.train_end + j * std::size_t(L));
        const Plain plain = plain_loop(result.model, corpus, L, starts);
        const EvalPoint& point = result.eval[l];
        CHECK(point.length == L);
        CHECK(point.windows == std::int64_t(count));
        CHECK(point.characters == std::int64_t(count) * L);
        CHECK(point.characters + L > std::int64_t(split) - 1);  // all but the last (split - 1) mod L characters with a target
        CHECK(point.loss == Approx(plain.loss).epsilon(1e-12));
        CHECK(point.loss_se == Approx(plain.se).epsilon(1e-9));
        CHECK(point.loss_se > 0);
        CHECK(point.accuracy == Approx(plain.accuracy).epsilon(1e-12));
        CHECK(point.perplexity() == Approx(std::exp(plain.loss)).epsilon(1e-12));
    }
    CHECK(result.eval[0].loss > result.eval[1].loss);  // 5 characters of context read worse than 16
    const Result<float> once = run<float>(r);  // run() in one go: the same numbers as the chunks
    CHECK(once.eval[1].loss == result.eval[1].loss);
    CHECK(once.eval[1].loss_se == result.eval[1].loss_se);
}

TEST_CASE("train: the samples are generate()'s, the positional bias read from the evaluation's once-computed one", "[train]") {
    // The trainer's samples read each family's bias as the top-left block of one computed at max_length (Reuse);
    // generate() alone computes it for every character's context: the same characters, drawn from the same stream.
    const std::string type = GENERATE(as<std::string>{}, "alibi", "t5", "kerple", "fire");
    INFO(type);
    Config request = S(R"({"task":"text","encoding":{"type":"alibi"},"layers":2,"n_heads":2,"d_model":16,"intermediate_size":32,
        "norm":"rms_norm","train_length":16,"steps":20,"batch_size":4,"lr":0.01,"eval_lengths":[16,64],"eval_examples":2,
        "eval_characters":64,"samples":2,"sample_length":20,"seed":3})");
    request["text"] = word_text(1500, 5);
    request["encoding"]["type"] = type;
    const Request r = parse_request(request);
    const Result<float> result = Trainer<float>(r).finish();
    REQUIRE(result.samples.size() == 2);
    Random rng(stream_seed(3, Stream::sampling));
    for (const Sample& sample : result.samples) {
        REQUIRE(sample.prompt.size() == 44);  // min(4 x 16, max_length 64 - 20): the context grows from 44 to 63
        CHECK(generate<float>(result.model, sample.prompt, 20, 0.8, rng) == sample.generated);
    }
}

TEST_CASE("train: eval_characters reads that many characters' windows spread evenly, and is checked", "[train]") {
    Config request = S(R"({"task":"text","encoding":{"type":"rope"},"d_model":8,"train_length":8,"steps":5,
        "eval_lengths":[8,32],"eval_characters":100,"seed":1})");
    request["text"] = word_text(1500, 4);
    const Request r = parse_request(request);
    CHECK(r.eval_characters == 100);
    const Corpus& corpus = *r.corpus;
    const std::size_t split = corpus.tokens.size() - corpus.train_end;
    Trainer<float> trainer(r);
    trainer.step(5);
    CHECK(trainer.evaluation_total() == 13 + 4 + 2);  // ceil(100 / 8) windows at 8, ceil(100 / 32) at 32, the maps
    const Result<float> result = trainer.finish();
    for (std::size_t l = 0; l < 2; ++l) {
        const std::int64_t L = r.eval_lengths[l];
        const std::size_t all = (split - 1) / std::size_t(L), count = std::size_t((100 + L - 1) / L);
        std::vector<std::size_t> starts;  // window floor(k all / count) of the non-overlapping ones
        for (std::size_t k = 0; k < count; ++k) starts.push_back(corpus.train_end + (k * all / count) * std::size_t(L));
        CHECK(starts.back() > corpus.train_end + split / 2);  // spread over the part, not its start
        const Plain plain = plain_loop(result.model, corpus, L, starts);
        const EvalPoint& point = result.eval[l];
        CHECK(point.windows == std::int64_t(count));
        CHECK(point.characters == std::int64_t(count) * L);
        CHECK(point.characters >= 100);
        CHECK(point.loss == Approx(plain.loss).epsilon(1e-12));
        CHECK(point.loss_se == Approx(plain.se).epsilon(1e-9));
    }
    // More characters than the part holds: every window.
    request["eval_characters"] = 1e6;
    const Result<float> whole = run<float>(parse_request(request));
    CHECK(whole.eval[0].windows == std::int64_t((split - 1) / 8));
    // Checked: its range, and only with a text.
    request["eval_characters"] = 0.0;
    const BadParam zero = bad_param_of([&] { parse_request(request); });
    CHECK(zero.param == "eval_characters");
    CHECK_THAT(zero.what(), Catch::Matchers::Contains("eval_characters = 0 is invalid"));
    CHECK(bad_param_of([] { parse_request(S(R"({"task":"copy","eval_characters":100})")); }).param == "eval_characters");
    // A synthetic task: eval_examples examples per length, the same fields.
    const Result<float> copy = run<float>(parse_request(S(R"({"task":"copy","d_model":8,"vocab":4,"train_length":8,"steps":5,
        "eval_lengths":[8],"eval_examples":6})")));
    CHECK(copy.eval[0].windows == 6);
    CHECK(copy.eval[0].characters == 48);
    CHECK(copy.eval[0].loss_se > 0);
}

TEST_CASE("train: the initialisation, the training windows and each head's parameters come from streams of their own", "[train]") {
    Config request = S(R"({"task":"text","encoding":{"type":"fire","mlp_width":4},"n_heads":2,"d_model":8,"train_length":16,
        "steps":1,"eval_lengths":[16],"seed":5})");
    request["text"] = word_text(1500, 5);
    const Request r = parse_request(request);
    // The initial model is make_model's for the seed: E is the init stream's first normals, nothing of the data stream.
    const Model<double> initial = make_model<double>(r.encoding, r.vocab, 8, r.vocab, 16, 5, Architecture{1, 2, 0, false});
    Random init(stream_seed(5, Stream::init));
    for (std::size_t k = 0; k < 8; ++k) CHECK(initial.params.E[k] == (1.0 / std::sqrt(8.0)) * init.normal());
    // The first training window is the data stream's first: the first step's loss is that window's under make_model's
    // model (float, as the Trainer trains), and not the window the init stream (or Random(seed), before) would draw.
    const Model<float> model = make_model<float>(r.encoding, r.vocab, 8, r.vocab, 16, 5, Architecture{1, 2, 0, false});
    Random data(stream_seed(5, Stream::data));
    const Example window = r.corpus->example(16, data);
    Trainer<float> trainer(r);
    trainer.step(1);
    const Result<float> result = trainer.finish();
    CHECK(result.loss[0] == loss_and_grad<float>(model, window, nullptr).loss);
    for (const std::uint64_t other : {stream_seed(5, Stream::init), std::uint64_t(5)}) {
        Random rng(other);
        CHECK(r.corpus->example(16, rng).tokens != window.tokens);
    }
    // Each head of each layer of each model seed draws its own FIRE MLP and Shaw table: no two of seeds 0..99 share one
    // (before, seed + layer x n_heads + head: seed 1's head 0 was seed 0's head 1).
    for (const char* json : {R"({"type":"fire","mlp_width":4})", R"({"type":"shaw","max_relative_position":2})"}) {
        INFO(json);
        std::set<std::vector<double>> drawn;
        std::size_t heads = 0;
        for (std::uint64_t seed = 0; seed < 100; ++seed) {
            const Model<double> m = make_model<double>(S(json), 4, 8, 4, 16, seed, Architecture{2, 4, 0, false});
            for (const Layer<double>& layer : m.params.layers)
                for (const Head<double>& head : layer.heads) {
                    drawn.insert(head.pos);
                    ++heads;
                }
        }
        CHECK(heads == 800);
        CHECK(drawn.size() == heads);
    }
    CHECK(head_seed(1, 0, 0) != head_seed(0, 0, 1));
    CHECK(head_seed(0, 1, 0) != head_seed(0, 0, 4));
    CHECK(head_seed(7, 3, 2) < (std::uint64_t(1) << 53));  // a spec's seed
}

}  // namespace posenc_test_train
