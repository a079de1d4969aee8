// wasm/bindings.cpp: the embind layer. It converts JS values to core specs and
// core results to fresh typed arrays; it computes nothing.
//
// Errors: no exception may unwind through wasm frames into JS (the stack pointer
// and C++ objects in those frames would leak), so each binding catches and
// returns an error marker, which wasm/post.js turns into a thrown JS Error.
// Bindings are registered as "<name>__raw"; post.js exposes them as <name>.
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <cmath>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>

#include "posenc/alibi.hpp"
#include "posenc/attention.hpp"
#include "posenc/config.hpp"
#include "posenc/registry.hpp"
#include "posenc/t5.hpp"

using emscripten::val;
using posenc::Config;
using posenc::Value;

namespace {

constexpr int kMaxDepth = 8;  // nesting of spec objects (rope_scaling is depth 2)

Config to_config(const val& object, const std::string& path, int depth, const std::string& skip);

Value to_value(const val& v, const std::string& path, int depth) {
    const std::string type = v.typeOf().as<std::string>();
    if (type == "number") return v.as<double>();
    if (type == "boolean") return v.as<bool>();
    if (type == "string") return v.as<std::string>();
    if (v.isNull()) return std::monostate{};
    if (type == "object" && (val::global("Array").call<bool>("isArray", v) || v.instanceof(val::global("Float32Array")))) {
        // A list of numbers, or of strings (an attention request's tokens).
        const unsigned length = v["length"].as<unsigned>();
        const bool strings = length > 0 && v[0].typeOf().as<std::string>() == "string";
        std::vector<double> numbers;
        std::vector<std::string> texts;
        for (unsigned i = 0; i < length; ++i) {
            const val item = v[i];
            const std::string item_type = item.typeOf().as<std::string>();
            if (item_type != (strings ? "string" : "number"))
                throw std::invalid_argument(path + "[" + std::to_string(i) + "] must be a " + (strings ? "string" : "number") +
                                            " like the first item, not " + item_type);
            if (strings) texts.push_back(item.as<std::string>());
            else numbers.push_back(item.as<double>());
        }
        if (strings) return texts;
        return numbers;
    }
    if (type == "object") return std::make_shared<const Config>(to_config(v, path, depth + 1, ""));
    throw std::invalid_argument(path + " must be a number, string, boolean, list of numbers, object or null, not " +
                                type);
}

Config to_config(const val& object, const std::string& path, int depth, const std::string& skip = "") {
    if (object.typeOf().as<std::string>() != "object" || object.isNull() ||
        val::global("Array").call<bool>("isArray", object))
        throw std::invalid_argument(path + " must be an object such as {type: 'sinusoidal', d_model: 64}");
    if (depth > kMaxDepth) throw std::invalid_argument(path + " is nested too deeply");
    Config config;
    const val keys = val::global("Object").call<val>("keys", object);
    const unsigned count = keys["length"].as<unsigned>();
    for (unsigned i = 0; i < count; ++i) {
        const std::string key = keys[i].as<std::string>();
        if (key == skip) continue;
        const val item = object[key];
        if (item.isUndefined()) continue;  // {base: undefined} means "not given"
        config.set(key, to_value(item, path + "." + key, depth));
    }
    return config;
}

/// A JS number that must be an integer in [lo, hi], named `name` in errors.
std::int64_t to_integer(const val& v, const char* name, std::int64_t lo, std::int64_t hi) {
    const std::string allowed = "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    if (v.typeOf().as<std::string>() != "number") posenc::throw_bad_param(name, v.typeOf().as<std::string>(), allowed);
    const double x = v.as<double>();
    if (!std::isfinite(x) || x != std::floor(x) || x < double(lo) || x > double(hi))
        posenc::throw_bad_param(name, posenc::format_number(x), allowed);
    return static_cast<std::int64_t>(x);
}

val float32_array(const float* data, std::size_t count) {
    // The memory view is detached if wasm memory grows; copy it at once.
    return val(emscripten::typed_memory_view(count, data)).call<val>("slice");
}

val float32_array(const std::vector<double>& values) {
    std::vector<float> narrowed(values.begin(), values.end());
    return float32_array(narrowed.data(), narrowed.size());
}

val int32_array(const std::vector<std::int64_t>& values) {
    std::vector<std::int32_t> narrowed(values.begin(), values.end());
    return val(emscripten::typed_memory_view(narrowed.size(), narrowed.data())).call<val>("slice");
}

val error_marker(const char* name, const std::string& message) {
    val error = val::object();
    error.set("name", name);
    error.set("message", message);
    val marker = val::object();
    marker.set("__posenc_error__", error);
    return marker;
}

/// Runs a binding body; a C++ exception becomes an error marker (see top).
template <class Body>
val guarded(Body&& body) {
    try {
        return body();
    } catch (const std::invalid_argument& e) {
        return error_marker("RangeError", e.what());
    } catch (const std::bad_alloc&) {
        return error_marker("RangeError", "out of memory: the request is too large for this browser tab");
    } catch (const std::exception& e) {
        return error_marker("Error", e.what());
    }
}

/// positionTable(spec, n): {data: Float32Array(n * d_model), rows: n, cols: d_model}.
val position_table(val spec, val n) {
    return guarded([&] {
        const Config config = to_config(spec, "spec", 0, "");
        const auto table = posenc::position_table(config, to_integer(n, "n", 1, posenc::kMaxTableElements));
        val result = val::object();
        result.set("data", float32_array(table.data(), table.size()));
        result.set("rows", double(table.shape()[0]));
        result.set("cols", double(table.shape()[1]));
        return result;
    });
}

/// positionFrequencies(spec): {inv_freq, wavelength} (Float32Array(d_model / 2)),
/// {sin_column, cos_column} (Int32Array(d_model / 2)).
val position_frequencies(val spec) {
    return guarded([&] {
        const auto pairs = posenc::position_frequencies(to_config(spec, "spec", 0, ""));
        std::vector<double> lambda(pairs.inv_freq.size());
        for (std::size_t i = 0; i < lambda.size(); ++i) lambda[i] = 2.0 * M_PI / pairs.inv_freq[i];
        val result = val::object();
        result.set("inv_freq", float32_array(pairs.inv_freq));
        result.set("wavelength", float32_array(lambda));
        result.set("sin_column", int32_array(pairs.sin_column));
        result.set("cos_column", int32_array(pairs.cos_column));
        return result;
    });
}

/// ropeInvFreq(spec, seqLen): {inv_freq: Float32Array(rotary_dim / 2), attention_factor,
/// logit_scale, head_dim, rotary_dim}.
val rope_inv_freq(val spec, val seq_len) {
    return guarded([&] {
        const Config config = to_config(spec, "spec", 0, "");
        const auto f = posenc::rotary_frequencies(config, to_integer(seq_len, "seqLen", 1, std::int64_t(1) << 40));
        val result = val::object();
        result.set("inv_freq", float32_array(f.inv_freq));
        result.set("attention_factor", f.attention_factor);
        result.set("logit_scale", f.logit_scale);
        result.set("head_dim", double(f.head_dim));
        result.set("rotary_dim", double(f.rotary_dim));
        return result;
    });
}

/// applyRope(x, n, d, spec, positionOffset): x is a Float32Array or array of
/// n * d numbers ([n, d] row-major); returns the rotated copy as a Float32Array.
val apply_rope(val x, val n, val d, val spec, val offset) {
    return guarded([&] {
        const std::int64_t rows = to_integer(n, "n", 1, posenc::kMaxTableElements);
        const std::int64_t cols = to_integer(d, "d", 1, posenc::kMaxTableElements);
        posenc::check_table_shape(rows, cols, "d");
        const bool typed = x.instanceof(val::global("Float32Array"));
        if (!typed && !val::global("Array").call<bool>("isArray", x))
            posenc::throw_bad_param("x", x.typeOf().as<std::string>(), "a Float32Array or array of n * d numbers");
        const double length = x["length"].as<double>();
        if (length != double(rows * cols))
            posenc::throw_bad_param("x", "an array of length " + posenc::format_number(length),
                                    "n * d = " + std::to_string(rows * cols) + " numbers");
        xt::xtensor<float, 2> matrix = xt::empty<float>({std::size_t(rows), std::size_t(cols)});
        val(emscripten::typed_memory_view(matrix.size(), matrix.data())).call<void>("set", x);
        const auto rotated = posenc::apply_rotary(to_config(spec, "spec", 0, ""), matrix,
                                                  to_integer(offset, "positionOffset", 0, std::int64_t(1) << 40));
        return float32_array(rotated.data(), rotated.size());
    });
}

/// decay(spec, maxDistance, seed = 0): {distance: Float32Array(maxDistance + 1),
/// <curve name>: Float32Array(maxDistance + 1) ...} (see posenc::decay).
val decay(val spec, val max_distance, val seed) {
    return guarded([&] {
        const std::int64_t m = to_integer(max_distance, "maxDistance", 0, 1000000);
        const std::int64_t s = seed.isUndefined() ? 0 : to_integer(seed, "seed", 0, std::int64_t(1) << 53);
        const auto curves = posenc::decay(to_config(spec, "spec", 0, ""), m, std::uint64_t(s));
        val result = val::object();
        std::vector<double> distance(std::size_t(m + 1));
        for (std::size_t i = 0; i < distance.size(); ++i) distance[i] = double(i);
        result.set("distance", float32_array(distance));
        for (const auto& [name, values] : curves) result.set(name, float32_array(values));
        return result;
    });
}

/// A JS boolean, named `name` in errors.
bool to_bool(const val& v, const char* name) {
    if (v.typeOf().as<std::string>() != "boolean") posenc::throw_bad_param(name, v.typeOf().as<std::string>(), "true or false");
    return v.as<bool>();
}

/// A matrix as a fresh Float32Array, row-major.
val matrix_array(const xt::xtensor<float, 2>& m) { return float32_array(m.data(), m.size()); }

/// alibiSlopes(nHeads): Float32Array(nHeads), the slope m_h of each head.
val alibi_slopes(val n_heads) {
    return guarded([&] { return float32_array(posenc::alibi::slopes(to_integer(n_heads, "nHeads", 1, 4096))); });
}

/// alibiBias(n, nHeads, head, causal): Float32Array(n * n), -m_head |i - j|
/// (-Infinity above the diagonal when causal).
val alibi_bias(val n, val n_heads, val head, val causal) {
    return guarded([&] {
        posenc::alibi::Spec spec;
        spec.n_heads = to_integer(n_heads, "nHeads", 1, 4096);
        spec.head = to_integer(head, "head", 0, spec.n_heads - 1);
        spec.causal = to_bool(causal, "causal");
        return matrix_array(posenc::alibi::bias(spec, to_integer(n, "n", 1, 4096)));
    });
}

/// t5Bucket(relativePositions, bidirectional, numBuckets, maxDistance): Int32Array
/// of the bucket of each relative position (key - query).
val t5_bucket(val relative_positions, val bidirectional, val num_buckets, val max_distance) {
    return guarded([&] {
        const bool both = to_bool(bidirectional, "bidirectional");
        const std::int64_t buckets = to_integer(num_buckets, "numBuckets", -(std::int64_t(1) << 40), std::int64_t(1) << 40);
        const std::int64_t distance = to_integer(max_distance, "maxDistance", -(std::int64_t(1) << 40), std::int64_t(1) << 40);
        posenc::t5::check_buckets(both, buckets, distance);
        if (!relative_positions.instanceof(val::global("Int32Array")) &&
            !val::global("Array").call<bool>("isArray", relative_positions))
            posenc::throw_bad_param("relativePositions", relative_positions.typeOf().as<std::string>(),
                                    "an Int32Array or array of integers");
        const unsigned length = relative_positions["length"].as<unsigned>();
        std::vector<std::int64_t> out(length);
        for (unsigned k = 0; k < length; ++k) {
            const std::string name = "relativePositions[" + std::to_string(k) + "]";
            const std::int64_t r = to_integer(relative_positions[k], name.c_str(), -(std::int64_t(1) << 40), std::int64_t(1) << 40);
            out[k] = posenc::t5::relative_position_bucket(r, both, buckets, distance);
        }
        return int32_array(out);
    });
}

/// attentionBias(spec, n): Float32Array(n * n), the bias b(i, j) of a bias family.
val attention_bias(val spec, val n) {
    return guarded([&] {
        return matrix_array(posenc::attention_bias(to_config(spec, "spec", 0, ""), to_integer(n, "n", 1, 4096)));
    });
}

/// positionSimilarity(spec, n, metric): Float32Array(n * n), p_i . p_j or their cosine.
val position_similarity(val spec, val n, val metric) {
    return guarded([&] {
        if (metric.typeOf().as<std::string>() != "string")
            posenc::throw_bad_param("metric", metric.typeOf().as<std::string>(), "one of \"dot\", \"cosine\"");
        return matrix_array(posenc::position_similarity(to_config(spec, "spec", 0, ""), to_integer(n, "n", 1, 4096),
                                                        metric.as<std::string>()));
    });
}

/// attention(request): {tokens, n, d_head, logits, weights (Float32Array(n * n)),
/// output (Float32Array(n * d_head)), x (the inputs, n * d_model), positions (P, n * d_model,
/// absolute encodings only), q, k, v (n * d_head each, q and k as they enter q.k: rotated for
/// rope/xpos), q_unrotated and k_unrotated (rope/xpos only), terms: {carrier, cc, cp, pc, pp} for
/// absolute encodings or {carrier, content, position} for the others}.
/// request.x (optional): a Float32Array [n, d_model] used instead of tokens.
val attention(val request) {
    return guarded([&] {
        posenc::attention::Request r = posenc::attention::parse(to_config(request, "request", 0, "x"));
        const val x = request["x"];
        if (!x.isUndefined() && !x.isNull()) {
            if (!x.instanceof(val::global("Float32Array")))
                posenc::throw_bad_param("x", x.typeOf().as<std::string>(), "a Float32Array of n * d_model numbers");
            const double length = x["length"].as<double>();
            const double rows = length / double(r.d_model);
            if (rows != std::floor(rows) || rows < 1 || rows > double(posenc::attention::kMaxTokens))
                posenc::throw_bad_param("x", "a Float32Array of length " + posenc::format_number(length),
                                        "n * d_model numbers, n in [1, " + std::to_string(posenc::attention::kMaxTokens) +
                                            "], d_model = " + std::to_string(r.d_model));
            r.x = xt::empty<float>({std::size_t(rows), std::size_t(r.d_model)});
            val(emscripten::typed_memory_view(r.x.size(), r.x.data())).call<void>("set", x);
            r.tokens.assign(std::size_t(rows), "");
        } else if (r.tokens.empty()) {
            throw std::invalid_argument("attention request: missing required key \"text\" or \"tokens\" (or x)");
        }
        static posenc::attention::WeightCache weights;  // the page's head keeps its projections between calls
        const auto result = posenc::attention::run(r, &weights);
        val out = val::object();
        val tokens = val::array();
        for (const auto& t : result.tokens) tokens.call<void>("push", t);
        out.set("tokens", tokens);
        out.set("n", double(result.logits.shape()[0]));
        out.set("d_head", double(r.d_head));
        out.set("logits", matrix_array(result.logits));
        out.set("weights", matrix_array(result.weights));
        out.set("output", matrix_array(result.output));
        out.set("x", matrix_array(result.x));
        out.set("q", matrix_array(result.q));
        out.set("k", matrix_array(result.k));
        out.set("v", matrix_array(result.v));
        if (result.positions.size() > 0) out.set("positions", matrix_array(result.positions));
        if (result.q_unrotated.size() > 0) {
            out.set("q_unrotated", matrix_array(result.q_unrotated));
            out.set("k_unrotated", matrix_array(result.k_unrotated));
        }
        val terms = val::object();
        terms.set("carrier", result.terms.carrier);
        if (result.terms.carrier == "absolute") {
            terms.set("cc", matrix_array(result.terms.cc));
            terms.set("cp", matrix_array(result.terms.cp));
            terms.set("pc", matrix_array(result.terms.pc));
            terms.set("pp", matrix_array(result.terms.pp));
        } else {
            terms.set("content", matrix_array(result.terms.content));
            terms.set("position", matrix_array(result.terms.position));
        }
        out.set("terms", terms);
        return out;
    });
}

/// embedTokens(text, dModel, seed): {tokens: string[], data: Float32Array(n * dModel)},
/// the token embeddings the attention head uses (tokenize + token_embedding).
val embed_tokens(val text, val d_model, val seed) {
    return guarded([&] {
        if (text.typeOf().as<std::string>() != "string") posenc::throw_bad_param("text", text.typeOf().as<std::string>(), "a string");
        const auto tokens = posenc::attention::tokenize(text.as<std::string>());
        const std::int64_t d = to_integer(d_model, "dModel", 1, 4096);
        const std::uint64_t s = std::uint64_t(to_integer(seed, "seed", 0, std::int64_t(1) << 53));
        std::vector<float> data;
        val names = val::array();
        for (const auto& t : tokens) {
            const auto e = posenc::attention::token_embedding(t, d, s);
            data.insert(data.end(), e.begin(), e.end());
            names.call<void>("push", t);
        }
        val out = val::object();
        out.set("tokens", names);
        out.set("data", float32_array(data.data(), data.size()));
        return out;
    });
}

std::string version() {
#ifdef __wasm_simd128__
    return std::string("posenc ") + POSENC_VERSION + " (wasm, SIMD on)";
#else
    return std::string("posenc ") + POSENC_VERSION + " (wasm, SIMD off)";
#endif
}

/// Bytes of wasm heap currently allocated by malloc: a diagnostic for leak tests.
double heap_bytes_in_use() { return double(mallinfo().uordblks); }

}  // namespace

EMSCRIPTEN_BINDINGS(posenc) {
    emscripten::function("positionTable__raw", &position_table);
    emscripten::function("positionFrequencies__raw", &position_frequencies);
    emscripten::function("ropeInvFreq__raw", &rope_inv_freq);
    emscripten::function("applyRope__raw", &apply_rope);
    emscripten::function("decay__raw", &decay);
    emscripten::function("alibiSlopes__raw", &alibi_slopes);
    emscripten::function("alibiBias__raw", &alibi_bias);
    emscripten::function("t5Bucket__raw", &t5_bucket);
    emscripten::function("attentionBias__raw", &attention_bias);
    emscripten::function("positionSimilarity__raw", &position_similarity);
    emscripten::function("attention__raw", &attention);
    emscripten::function("embedTokens__raw", &embed_tokens);
    emscripten::function("version", &version);
    emscripten::function("heapBytesInUse", &heap_bytes_in_use);
}
