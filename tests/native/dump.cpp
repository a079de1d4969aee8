// posenc_dump: the native build's float32 bytes of a table or an attention
// result on stdout, so the wasm tests can compare the module with the native build.
//   posenc_dump table <type> [key=number ...] <n>
//   posenc_dump attention "<text>" <type> d=<d_model = d_head> seed=<s> causal=<0|1> [key=number ...]
//   posenc_dump train '<request JSON>' | @<file of the request JSON>
//   posenc_dump trained @<file of the request JSON>   (JSON: layer 0 head 0's trained spec, the final loss)
// attention writes logits, weights, then output; train its float64 losses, then each eval
// length's accuracy and loss.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>

#include "posenc/attention.hpp"
#include "posenc/json.hpp"
#include "posenc/registry.hpp"
#include "posenc/train.hpp"

namespace {

void write(const xt::xtensor<float, 2>& m) { std::fwrite(m.data(), sizeof(float), m.size(), stdout); }

/// key=number arguments: request settings (d, seed, causal) or encoding keys.
void read_pairs(char** begin, char** end, posenc::Config& spec, posenc::attention::Request* request) {
    for (char** arg = begin; arg != end; ++arg) {
        const std::string pair = *arg;
        const auto eq = pair.find('=');
        const std::string key = pair.substr(0, eq);
        const double value = std::strtod(pair.c_str() + eq + 1, nullptr);
        if (request && key == "d") request->d_model = request->d_head = std::int64_t(value);
        else if (request && key == "seed") request->seed = std::uint64_t(value);
        else if (request && key == "causal") request->causal = value != 0;
        else spec[key] = value;
    }
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const std::string mode = argc > 1 ? argv[1] : "";
        if (mode == "table" && argc >= 4) {
            posenc::Config spec{{"type", std::string(argv[2])}};
            read_pairs(argv + 3, argv + argc - 1, spec, nullptr);
            write(posenc::position_table(spec, std::strtoll(argv[argc - 1], nullptr, 10)));
            return 0;
        }
        if (mode == "attention" && argc >= 4) {
            posenc::attention::Request request;
            request.tokens = posenc::attention::tokenize(argv[2]);
            posenc::Config spec{{"type", std::string(argv[3])}};
            read_pairs(argv + 4, argv + argc, spec, &request);
            request.encoding = spec;
            const auto result = posenc::attention::run(request);
            write(result.logits);
            write(result.weights);
            write(result.output);
            return 0;
        }
        if ((mode == "train" || mode == "trained") && argc == 3) {
            // Trainer::finish: in chunks, so a run above one call's work budget can be compared too.
            // A request in a file (@path): a text task's corpus is longer than one argument may be.
            std::string json = argv[2];
            if (!json.empty() && json[0] == '@') {
                std::FILE* file = std::fopen(json.c_str() + 1, "rb");
                if (!file) throw std::runtime_error("cannot read " + json.substr(1));
                json.clear();
                char buffer[65536];
                for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, file)) > 0;) json.append(buffer, got);
                std::fclose(file);
            }
            posenc::train::Trainer<float> trainer(posenc::train::parse_request(posenc::parse_json_object(json, "request")));
            // Head 0 of layer 0 before the first step: the parameters training starts from.
            const std::string initial = posenc::to_json(posenc::train::trained_spec(trainer.model(), 0, 0));
            const auto result = trainer.finish();
            if (mode == "trained") {  // JSON: head 0 of layer 0's trained and initial specs, the mean loss of the last 20 steps
                double tail = 0;
                const std::size_t from = result.loss.size() > 20 ? result.loss.size() - 20 : 0;
                for (std::size_t s = from; s < result.loss.size(); ++s) tail += result.loss[s] / double(result.loss.size() - from);
                std::printf("{\"encoding\":%s,\"initial\":%s,\"final_loss\":%.17g}\n",
                            posenc::to_json(posenc::train::trained_spec(result.model, 0, 0)).c_str(), initial.c_str(), tail);
                return 0;
            }
            std::fwrite(result.loss.data(), sizeof(double), result.loss.size(), stdout);
            for (const auto& point : result.eval) {
                std::fwrite(&point.accuracy, sizeof(double), 1, stdout);
                std::fwrite(&point.loss, sizeof(double), 1, stdout);
            }
            return 0;
        }
        std::fprintf(stderr, "usage: posenc_dump table <type> [key=number ...] <n>\n"
                             "       posenc_dump attention <text> <type> [d= seed= causal= key=number ...]\n"
                             "       posenc_dump train <request JSON>\n");
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
