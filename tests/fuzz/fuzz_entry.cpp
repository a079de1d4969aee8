// libFuzzer target (npm run fuzz; CMake preset fuzz, clang only): every entry
// point of the JS API, as wasm/bindings.cpp calls it, on a spec or request read
// from the input. Byte 0 picks the function, bytes 1-3 its small sizes, the
// rest is the spec's JSON text. A call must return or throw
// std::invalid_argument (BadParam: a refusal); any other exception, crash or
// sanitizer finding is a bug. Sizes stay small so that each input runs fast.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "posenc/alibi.hpp"
#include "posenc/attention.hpp"
#include "posenc/json.hpp"
#include "posenc/registry.hpp"
#include "posenc/t5.hpp"

namespace {

/// `count` floats in [-1, 1], from a simple generator seeded by the input.
std::vector<float> values(std::size_t count, std::uint32_t seed) {
    std::vector<float> out(count);
    for (auto& x : out) {
        seed = seed * 1664525u + 1013904223u;
        x = float(seed >> 8) / float(1u << 23) - 1.0f;
    }
    return out;
}

void run(std::uint8_t which, std::int64_t a, std::int64_t b, std::int64_t c, std::string_view text) {
    using namespace posenc;
    const std::int64_t n = 1 + a % 16;
    switch (which % 12) {
        case 0: position_table(parse_json_object(text, "spec"), n, b); break;
        case 1: position_frequencies(parse_json_object(text, "spec")); break;
        case 2: rotary_frequencies(parse_json_object(text, "spec"), 1 + (b << 12) + c); break;
        case 3: {
            const std::int64_t d = 1 + b % 64;
            const auto x = values(std::size_t(n * d), std::uint32_t(c));
            std::vector<float> out(x.size());
            apply_rotary(parse_json_object(text, "spec"), Floats{x.data(), x.size()}, n, d, c << 20, out.data());
            break;
        }
        case 4: decay(parse_json_object(text, "spec"), a * 4, b); break;
        case 5: position_similarity(parse_json_object(text, "spec"), n, c % 2 ? "dot" : "cosine"); break;
        case 6: attention_bias(parse_json_object(text, "spec"), n); break;
        case 7: {
            const auto request = attention::parse(parse_json_object(text, "request"));
            if (request.d_model > 256 || request.d_head > 256 || request.tokens.size() > 64) return;  // keep it quick
            attention::run(request);
            break;
        }
        case 8: {
            const auto f = attention::parse_forward(parse_json_object(text, "request"));
            if (f.n * f.d_model > 4096 || f.d_model * f.d_head > 4096) return;
            const auto x = values(std::size_t(f.n * f.d_model), 1);
            const auto w = values(std::size_t(f.d_model * f.d_head), 2);
            std::vector<float> out(std::size_t(f.n * f.d_head));
            attention::forward(f, {x.data(), x.size()}, {w.data(), w.size()}, {w.data(), w.size()}, {w.data(), w.size()},
                               out.data());
            break;
        }
        case 9: alibi::bias(n, 1 + b % 64, c % 64, a % 2); break;
        case 10: {
            std::vector<double> positions;
            for (char ch : text.substr(0, 32)) positions.push_back(double(std::int8_t(ch)) * double(1 + c));
            t5::buckets(positions.data(), positions.size(), a % 2, 2 + b, 1 + c);
            break;
        }
        default: attention::embed_tokens(std::string(text.substr(0, 256)), 1 + b % 64, c); break;
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 4) return 0;
    try {
        run(data[0], data[1], data[2], data[3], std::string_view(reinterpret_cast<const char*>(data + 4), size - 4));
    } catch (const std::invalid_argument&) {
        // refused, naming what was wrong: expected
    }
    return 0;
}
