// wasm/bindings.cpp: the raw exports behind the JS API (wasm/post.js wraps
// them). They convert numbers, heap pointers and spec ids to core arguments,
// and core results to a reply; they compute and check nothing of their own:
// a JS number becomes an integer argument with the core's posenc::IntArg
// (posenc/args.hpp: its name and range, which the core function checks too),
// and the core functions check the rest (lengths, dependent ranges, specs).
//
// The calling convention (post.js is the other side):
//  - Each JS function f has one export posenc_<f>. Its first argument, `kinds`,
//    holds the JS type of each of f's JS arguments, 3 bits each (Kind), so a
//    message can say "n = string is invalid". Then, per JS argument: a number
//    or boolean as a double; a spec object as the id of its parsed Config (see
//    posenc_spec_parse); a string as (UTF-8 address, byte length); an array as
//    (address, length) of float32 (or of float64 where noted); the optional
//    `out` buffer as (address, length), address 0 when absent.
//  - It returns the address of the reply: a little-endian uint32 byte count,
//    then that many bytes of ASCII JSON in which every typed array appears as
//    {"$f32": [address, length]} or {"$i32": [address, length]} (pointing into
//    storage the reply owns until posenc_release or the next call) and the
//    caller's out buffer as {"$out": 1}. post.js copies each array out at once.
//  - On failure it returns 0, and posenc_error() returns the reply
//    {"name": "RangeError" | "Error", "message": ..., "param": ..., "value": ..., "allowed": ...}
//    (the last three those of a posenc::BadParam, absent for other errors).
//  - No exception leaves an export (every one is caught here), so no C++
//    frame is ever unwound by JS: the wasm stack and heap cannot leak.
#include <emscripten/emscripten.h>
#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "posenc/alibi.hpp"
#include "posenc/args.hpp"
#include "posenc/attention.hpp"
#include "posenc/config.hpp"
#include "posenc/cope.hpp"
#include "posenc/describe.hpp"
#include "posenc/json.hpp"
#include "posenc/train.hpp"
#include "posenc/registry.hpp"
#include "posenc/t5.hpp"

using posenc::Config;

namespace {

// ---------------------------------------------------------------------------
// Arguments

/// The JS type of an argument, as post.js codes it (typeof, 3 bits).
enum Kind : unsigned { kNumber = 0, kUndefined, kString, kBoolean, kObject, kFunction, kSymbol, kBigint };

/// The `kinds` of a call: the JS type of each argument, by position.
class Kinds {
public:
    explicit Kinds(unsigned bits) : bits_(bits) {}
    Kind of(int index) const { return Kind((bits_ >> (3 * index)) & 7u); }
    /// A JS value C++ did not receive, as the error names it: "<argument 2: string>",
    /// which post.js replaces by the value itself ("\"16\"", "an object").
    std::string type_name(int index) const {
        static const char* const names[] = {"number", "undefined", "string", "boolean", "object", "function", "symbol", "bigint"};
        return "<argument " + std::to_string(index) + ": " + names[of(index)] + ">";
    }

    /// Argument `index` (value `x`) converted to the core's integer argument
    /// `arg` (posenc/args.hpp: its JS name and range, which the core function
    /// checks too); a JS value that is not such an integer is refused with its text.
    std::int64_t integer(int index, double x, const posenc::IntArg& arg) const {
        if (of(index) != kNumber || !std::isfinite(x) || x != std::floor(x) || x < double(arg.lo) || x > double(arg.hi))
            posenc::throw_bad_param(arg.name, of(index) != kNumber ? type_name(index) : posenc::format_number(x),
                                    arg.allowed());
        return static_cast<std::int64_t>(x);
    }

    /// Argument `index`, a JS boolean (post.js passes true as 1).
    bool boolean(int index, double x, const char* name) const {
        if (of(index) != kBoolean) posenc::throw_bad_param(name, type_name(index), "true or false");
        return x != 0;
    }

    /// Argument `index`, a JS string post.js wrote to the heap as UTF-8.
    std::string text(int index, const char* data, double length, const char* name, const std::string& allowed) const {
        if (of(index) != kString) posenc::throw_bad_param(name, type_name(index), allowed);
        return std::string(data, std::size_t(length));
    }

private:
    unsigned bits_;
};

/// The parsed specs, by id (post.js keeps the JSON text -> id map and frees
/// the least recently used). Id k is slot k - 1; freed slots are reused.
std::vector<std::unique_ptr<const Config>> specs;
std::vector<int> free_ids;

const Config& spec_of(int id) {
    if (id < 1 || std::size_t(id) > specs.size() || !specs[std::size_t(id - 1)])
        throw std::logic_error("posenc: unknown spec id " + std::to_string(id));
    return *specs[std::size_t(id - 1)];
}

// ---------------------------------------------------------------------------
// Replies

/// The reply of one call: a JSON text built as the binding adds values, and
/// the storage of its typed arrays, kept until the next call (or
/// posenc_release) so that post.js can copy them out. Its methods are not
/// inlined (NOINLINE): one copy of each, not one per export, keeps the .wasm small.
#define NOINLINE __attribute__((noinline))
class Reply {
public:
    /// Forgets the previous reply and frees its arrays (the text's buffer is kept).
    NOINLINE void clear();
    /// Starts an object: the top-level one (key nullptr) or a member.
    NOINLINE Reply& begin(const char* key = nullptr);
    NOINLINE Reply& end();
    /// Starts a list (its items: begin() ... end() objects, or f32(nullptr, ...) arrays); end_list() closes it.
    NOINLINE Reply& begin_list(const char* key);
    NOINLINE Reply& end_list();
    NOINLINE Reply& number(const char* key, double x);
    NOINLINE Reply& text(const char* key, std::string_view s);
    NOINLINE Reply& texts(const char* key, const std::vector<std::string>& list);
    /// JSON text the core wrote (ASCII, without tagged values), as it is.
    NOINLINE Reply& json(const char* key, std::string_view text);
    /// A Float32Array of `count` floats that the caller writes at the returned
    /// address (uninitialised: the caller writes every one).
    NOINLINE float* f32_storage(const char* key, std::size_t count);
    /// Values narrowed to float32.
    NOINLINE Reply& f32(const char* key, const std::vector<double>& values);
    NOINLINE Reply& f32(const char* key, const std::vector<float>& values);
    /// A matrix, row-major, kept as it is (no copy here).
    NOINLINE Reply& f32(const char* key, xt::xtensor<float, 2>&& m);
    NOINLINE Reply& i32(const char* key, std::vector<std::int32_t>&& values);
    NOINLINE Reply& i32(const char* key, const std::vector<std::int64_t>& values);
    /// The caller's out buffer, which the binding has written.
    NOINLINE Reply& out(const char* key);
    /// The address of the finished reply (byte count, then the text).
    NOINLINE const char* finish();

private:
    void key(const char* key);
    void array(const char* key, const char* tag, const void* data, std::size_t count);
    void append_number(double x);

    std::string text_ = std::string(4, '\0');
    bool comma_ = false;
    std::vector<std::unique_ptr<float[]>> floats_;
    std::vector<std::unique_ptr<xt::xtensor<float, 2>>> tensors_;
    std::vector<std::vector<std::int32_t>> ints_;
};

void Reply::clear() {
    text_.assign(4, '\0');  // room for the byte count
    comma_ = false;
    floats_.clear();
    tensors_.clear();
    ints_.clear();
}

Reply& Reply::begin(const char* key) {
    this->key(key);
    text_ += '{';
    comma_ = false;
    return *this;
}

Reply& Reply::end() {
    text_ += '}';
    comma_ = true;
    return *this;
}

Reply& Reply::begin_list(const char* key) {
    this->key(key);
    text_ += '[';
    comma_ = false;
    return *this;
}

Reply& Reply::end_list() {
    text_ += ']';
    comma_ = true;
    return *this;
}

Reply& Reply::number(const char* key, double x) {
    this->key(key);
    append_number(x);
    return *this;
}

Reply& Reply::text(const char* key, std::string_view s) {
    this->key(key);
    posenc::append_json_quoted(text_, s);
    return *this;
}

Reply& Reply::texts(const char* key, const std::vector<std::string>& list) {
    this->key(key);
    text_ += '[';
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (i) text_ += ',';
        posenc::append_json_quoted(text_, list[i]);
    }
    text_ += ']';
    return *this;
}

Reply& Reply::json(const char* key, std::string_view json) {
    this->key(key);
    text_ += json;
    return *this;
}

float* Reply::f32_storage(const char* key, std::size_t count) {
    floats_.emplace_back(new float[count]);
    array(key, "$f32", floats_.back().get(), count);
    return floats_.back().get();
}

Reply& Reply::f32(const char* key, const std::vector<double>& values) {
    float* out = f32_storage(key, values.size());
    for (std::size_t i = 0; i < values.size(); ++i) out[i] = float(values[i]);
    return *this;
}

Reply& Reply::f32(const char* key, const std::vector<float>& values) {
    float* out = f32_storage(key, values.size());
    std::copy(values.begin(), values.end(), out);
    return *this;
}

Reply& Reply::f32(const char* key, xt::xtensor<float, 2>&& m) {
    tensors_.push_back(std::make_unique<xt::xtensor<float, 2>>(std::move(m)));
    array(key, "$f32", tensors_.back()->data(), tensors_.back()->size());
    return *this;
}

Reply& Reply::i32(const char* key, std::vector<std::int32_t>&& values) {
    ints_.push_back(std::move(values));
    array(key, "$i32", ints_.back().data(), ints_.back().size());
    return *this;
}

Reply& Reply::i32(const char* key, const std::vector<std::int64_t>& values) {
    return i32(key, std::vector<std::int32_t>(values.begin(), values.end()));
}

Reply& Reply::out(const char* key) {
    this->key(key);
    text_ += "{\"$out\":1}";
    return *this;
}

const char* Reply::finish() {
    const std::uint32_t bytes = std::uint32_t(text_.size() - 4);
    std::memcpy(&text_[0], &bytes, 4);
    return text_.data();
}

void Reply::key(const char* key) {
    if (comma_) text_ += ',';
    comma_ = true;
    if (!key) return;
    text_ += '"';
    text_ += key;  // keys are the bindings' own, plain ASCII
    text_ += "\":";
}

void Reply::array(const char* key, const char* tag, const void* data, std::size_t count) {
    this->key(key);
    text_ += "{\"";
    text_ += tag;
    text_ += "\":[";
    text_ += std::to_string(reinterpret_cast<std::uintptr_t>(data));
    text_ += ',';
    text_ += std::to_string(count);
    text_ += "]}";
}

void Reply::append_number(double x) {
    if (!std::isfinite(x)) {  // JSON has no spelling for these; post.js reads the tag
        text_ += std::isnan(x) ? "{\"$num\":\"NaN\"}" : x > 0 ? "{\"$num\":\"Infinity\"}" : "{\"$num\":\"-Infinity\"}";
    } else if (x == std::floor(x) && std::abs(x) < 9007199254740992.0 && !(x == 0 && std::signbit(x))) {
        text_ += std::to_string(static_cast<std::int64_t>(x));
    } else {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%.17g", x);  // reads back as the same double
        text_ += buffer;
    }
}

Reply reply;
Reply error_reply;

/// Stores the error reply; must not throw (it runs in a catch handler, and an
/// exception leaving an export would unwind wasm frames from JS).
NOINLINE void fail(const char* name, const char* message, const posenc::BadParam* bad = nullptr) noexcept {
    reply.clear();
    try {
        error_reply.clear();
        error_reply.begin().text("name", name).text("message", message);
        if (bad) {
            error_reply.text("param", bad->param);
            if (!bad->allowed.empty()) error_reply.text("value", bad->value).text("allowed", bad->allowed);
        }
        error_reply.end();
    } catch (...) {
        error_reply.clear();
        error_reply.begin().end();  // fits in the buffer the first clear kept
    }
}

/// The body of one export: a reference to a lambda, so that guarded below is
/// one function rather than one per export.
class Body {
public:
    template <class F>
    Body(F& f) : object_(&f), call_([](void* object) { (*static_cast<F*>(object))(); }) {}
    void operator()() const { call_(object_); }

private:
    void* object_;
    void (*call_)(void*);
};

/// Runs a binding body that fills `reply`; returns the reply's address, or 0
/// with the error stored for posenc_error (see the top of the file).
NOINLINE const char* guarded(Body body) noexcept {
    try {
        reply.clear();
        body();
        return reply.finish();
    } catch (const posenc::BadParam& e) {
        fail("RangeError", e.what(), &e);
    } catch (const std::invalid_argument& e) {
        fail("RangeError", e.what());
    } catch (const std::bad_alloc&) {
        fail("RangeError", "out of memory: the request is too large for this browser tab");
    } catch (const std::exception& e) {
        fail("Error", e.what());
    } catch (...) {
        fail("Error", "posenc: unknown C++ exception");
    }
    return nullptr;
}

/// Where a result of `rows * cols` floats goes: the caller's out buffer (which
/// must have that length) or a fresh reply array. The shape is checked first, as
/// the core checks it (n * cols <= max_table_elements; `cols_name` names the
/// width), so that nothing is allocated for a request the core refuses.
float* result_storage(const char* key, float* out, double out_length, std::int64_t rows, std::int64_t cols,
                      const char* cols_name, const char* shape) {
    posenc::check_table_shape(rows, cols, cols_name);
    const std::int64_t count = rows * cols;
    if (!out) return reply.f32_storage(key, std::size_t(count));
    if (out_length != double(count))
        posenc::throw_bad_param("out", "a buffer of length " + posenc::format_number(out_length),
                                std::string(shape) + " = " + std::to_string(count) + " floats (allocFloat32(" +
                                    std::to_string(count) + "))");
    reply.out(key);
    return out;
}

}  // namespace

// ---------------------------------------------------------------------------
// Exports (see the top of the file for the convention)

extern "C" {

/// Parses spec JSON text (`length` bytes at `text`) into a Config; returns its
/// id (>= 1), or 0 (error in posenc_error). `what`: 0 names it "spec" in
/// messages, 1 "request" (attention).
EMSCRIPTEN_KEEPALIVE int posenc_spec_parse(const char* text, double length, int what) {
    int id = 0;
    auto body = [&] {
        auto config = std::make_unique<const Config>(
            posenc::parse_json_object(std::string_view(text, std::size_t(length)), what == 1 ? "request" : "spec"));
        if (free_ids.empty()) {
            specs.push_back(std::move(config));
            id = int(specs.size());
        } else {
            id = free_ids.back();
            specs[std::size_t(id - 1)] = std::move(config);
            free_ids.pop_back();
        }
    };
    const char* ok = guarded(body);
    return ok ? id : 0;
}

/// Frees the Config of a spec id (post.js evicts the least recently used).
EMSCRIPTEN_KEEPALIVE void posenc_spec_free(int id) {
    if (id < 1 || std::size_t(id) > specs.size() || !specs[std::size_t(id - 1)]) return;
    specs[std::size_t(id - 1)].reset();
    free_ids.push_back(id);
}

/// The reply describing the last failure.
EMSCRIPTEN_KEEPALIVE const char* posenc_error() { return error_reply.finish(); }

/// Frees the arrays of the last reply (post.js has copied them out).
EMSCRIPTEN_KEEPALIVE void posenc_release() { reply.clear(); }

/// positionTable(spec, n, out?): {data: Float32Array(n * d_model) or out.array, rows: n, cols: d_model}.
EMSCRIPTEN_KEEPALIVE const char* posenc_position_table(unsigned kinds, int spec, double n, float* out, double out_length) {
    auto body = [&] {
        const std::int64_t rows = Kinds(kinds).integer(1, n, posenc::args::rows);
        std::int64_t cols = 0;
        reply.begin();
        posenc::position_table(spec_of(spec), rows, 0, [&](std::int64_t r, std::int64_t c) {
            cols = c;
            return result_storage("data", out, out_length, r, c, "d_model", "n * d_model");
        });
        reply.number("rows", double(rows)).number("cols", double(cols)).end();
    };
    return guarded(body);
}

/// positionFrequencies(spec): {inv_freq, wavelength: Float32Array(d_model / 2),
/// sin_column, cos_column: Int32Array(d_model / 2)}.
EMSCRIPTEN_KEEPALIVE const char* posenc_position_frequencies(unsigned, int spec) {
    auto body = [&] {
        const auto pairs = posenc::position_frequencies(spec_of(spec));
        reply.begin()
            .f32("inv_freq", pairs.inv_freq)
            .f32("wavelength", pairs.wavelength)
            .i32("sin_column", pairs.sin_column)
            .i32("cos_column", pairs.cos_column)
            .end();
    };
    return guarded(body);
}

/// ropeInvFreq(spec, seqLen): {inv_freq: Float32Array(rotary_dim / 2), attention_factor,
/// logit_scale, head_dim, rotary_dim}.
EMSCRIPTEN_KEEPALIVE const char* posenc_rope_inv_freq(unsigned kinds, int spec, double seq_len) {
    auto body = [&] {
        const std::int64_t length = Kinds(kinds).integer(1, seq_len, posenc::args::seq_len);
        const auto f = posenc::rotary_frequencies(spec_of(spec), length);
        reply.begin()
            .f32("inv_freq", f.inv_freq)
            .number("attention_factor", f.attention_factor)
            .number("logit_scale", f.logit_scale)
            .number("head_dim", double(f.head_dim))
            .number("rotary_dim", double(f.rotary_dim))
            .end();
    };
    return guarded(body);
}

/// applyRope(x, n, d, spec, positionOffset, out?): x [n, d] (float32 at `x`,
/// x_length floats) rotated; a fresh Float32Array(n * d), or written into out
/// (which may be x itself).
EMSCRIPTEN_KEEPALIVE const char* posenc_apply_rope(unsigned kinds, const float* x, double x_length, double n, double d,
                                                   int spec, double offset, float* out, double out_length) {
    auto body = [&] {
        const Kinds k(kinds);
        const std::int64_t rows = k.integer(1, n, posenc::args::rows);
        const std::int64_t cols = k.integer(2, d, posenc::args::width);
        const std::int64_t position = k.integer(4, offset, posenc::args::position_offset);
        const posenc::Floats input{x, std::size_t(x_length)};
        const Config& config = spec_of(spec);
        posenc::apply_rotary(config, input, rows, cols, position, result_storage(nullptr, out, out_length, rows, cols, "d", "n * d"));
    };
    return guarded(body);
}

/// decay(spec, maxDistance, seed = 0): {distance: Float32Array(maxDistance + 1),
/// <curve name>: Float32Array(maxDistance + 1) ...} (see posenc::decay).
EMSCRIPTEN_KEEPALIVE const char* posenc_decay(unsigned kinds, int spec, double max_distance, double seed) {
    auto body = [&] {
        const Kinds k(kinds);
        const std::int64_t m = k.integer(1, max_distance, posenc::args::max_distance);
        const std::int64_t s = k.of(2) == kUndefined ? 0 : k.integer(2, seed, posenc::args::seed);
        const auto curves = posenc::decay(spec_of(spec), m, s);
        reply.begin().f32("distance", posenc::decay_distance(m));
        for (const auto& [name, values] : curves) reply.f32(name.c_str(), values);
        reply.end();
    };
    return guarded(body);
}

/// alibiSlopes(nHeads): Float32Array(nHeads), the slope m_h of each head.
EMSCRIPTEN_KEEPALIVE const char* posenc_alibi_slopes(unsigned kinds, double n_heads) {
    auto body = [&] { reply.f32(nullptr, posenc::alibi::slopes(Kinds(kinds).integer(0, n_heads, posenc::args::n_heads))); };
    return guarded(body);
}

/// alibiBias(n, nHeads, head, causal): Float32Array(n * n), -m_head |i - j|
/// (-Infinity above the diagonal when causal).
EMSCRIPTEN_KEEPALIVE const char* posenc_alibi_bias(unsigned kinds, double n, double n_heads, double head, double causal) {
    auto body = [&] {
        const Kinds k(kinds);
        const std::int64_t heads = k.integer(1, n_heads, posenc::args::n_heads);
        const std::int64_t which = k.integer(2, head, posenc::args::head);
        const bool mask = k.boolean(3, causal, "causal");
        reply.f32(nullptr, posenc::alibi::bias(k.integer(0, n, posenc::args::matrix_n), heads, which, mask));
    };
    return guarded(body);
}

/// t5Bucket(relativePositions, bidirectional, numBuckets, maxDistance): Int32Array
/// of the bucket of each relative position (key - query). The positions are
/// `length` float64 (post.js's copy of a list) or float32 (an allocFloat32
/// buffer, read in place) values at `positions`.
EMSCRIPTEN_KEEPALIVE const char* posenc_t5_bucket(unsigned kinds, const void* positions, double length, int float64,
                                                  double bidirectional, double num_buckets, double max_distance) {
    auto body = [&] {
        const Kinds k(kinds);
        const bool both = k.boolean(1, bidirectional, "bidirectional");
        const std::int64_t buckets = k.integer(2, num_buckets, posenc::args::num_buckets);
        const std::int64_t distance = k.integer(3, max_distance, posenc::args::bucket_distance);
        const std::size_t count = std::size_t(length);
        std::vector<double> widened;  // an allocFloat32 buffer's float32 values, as the float64 the core reads
        if (!float64) widened.assign(static_cast<const float*>(positions), static_cast<const float*>(positions) + count);
        const double* values = float64 ? static_cast<const double*>(positions) : widened.data();
        reply.i32(nullptr, posenc::t5::buckets(values, count, both, buckets, distance));
    };
    return guarded(body);
}

/// debertaRelativePosition(queryLength, keyLength, position_buckets, max_relative_positions):
/// Int32Array(queryLength * keyLength), transformers' build_relative_position (query minus key,
/// log-bucketed; posenc::deberta::relative_position).
EMSCRIPTEN_KEEPALIVE const char* posenc_deberta_relative_position(unsigned kinds, double query_length, double key_length,
                                                                  double position_buckets, double max_relative_positions) {
    auto body = [&] {
        const Kinds k(kinds);
        reply.i32(nullptr, posenc::deberta::relative_position(k.integer(0, query_length, posenc::args::query_length),
                                                              k.integer(1, key_length, posenc::args::key_length),
                                                              k.integer(2, position_buckets, posenc::args::position_buckets),
                                                              k.integer(3, max_relative_positions, posenc::args::max_relative_positions)));
    };
    return guarded(body);
}

/// attentionBias(spec, n): Float32Array(n * n), the bias b(i, j) of a bias family.
EMSCRIPTEN_KEEPALIVE const char* posenc_attention_bias(unsigned kinds, int spec, double n) {
    auto body = [&] {
        const std::int64_t rows = Kinds(kinds).integer(1, n, posenc::args::matrix_n);
        reply.f32(nullptr, posenc::attention_bias(spec_of(spec), rows));
    };
    return guarded(body);
}

/// positionSimilarity(spec, n, metric): Float32Array(n * n), p_i . p_j or their cosine.
EMSCRIPTEN_KEEPALIVE const char* posenc_position_similarity(unsigned kinds, int spec, double n, const char* metric,
                                                            double metric_length) {
    auto body = [&] {
        const Kinds k(kinds);
        const std::string name = k.text(2, metric, metric_length, "metric", "one of \"dot\", \"cosine\"");
        const std::int64_t rows = k.integer(1, n, posenc::args::matrix_n);
        reply.f32(nullptr, posenc::position_similarity(spec_of(spec), rows, name));
    };
    return guarded(body);
}

/// attention(request): {tokens, n, d_head, logits, weights (Float32Array(n * n)),
/// output (Float32Array(n * d_head)), x (the inputs, n * d_model), positions (P, n * d_model,
/// absolute encodings only), q, k, v (n * d_head each, q and k as they enter q.k: rotated for
/// rope/xpos), q_unrotated and k_unrotated (rope/xpos only), terms: {carrier, cc, cp, pc, pp} for
/// absolute encodings or {carrier, content, position} for the others, plus the named parts of a
/// bias that splits (DeBERTa: c2p, p2c); and scale, the factor of q . k in them}.
/// request.x (optional), passed apart from the request as x_length floats at x
/// (x_length < 0: none): the inputs [n, d_model] used instead of tokens.
EMSCRIPTEN_KEEPALIVE const char* posenc_attention(unsigned, int request, const float* x, double x_length) {
    auto body = [&] {
        posenc::attention::Request r = posenc::attention::parse(spec_of(request));
        if (x_length >= 0) posenc::attention::set_inputs(r, {x, std::size_t(x_length)});
        static posenc::attention::WeightCache weights;  // the page's head keeps its projections between calls
        auto result = posenc::attention::run(r, &weights);
        reply.begin()
            .texts("tokens", result.tokens)
            .number("n", double(result.logits.shape()[0]))
            .number("d_head", double(r.d_head))
            .f32("logits", std::move(result.logits))
            .f32("weights", std::move(result.weights))
            .f32("output", std::move(result.output))
            .f32("x", std::move(result.x))
            .f32("q", std::move(result.q))
            .f32("k", std::move(result.k))
            .f32("v", std::move(result.v));
        if (result.positions.size() > 0) reply.f32("positions", std::move(result.positions));
        if (result.q_unrotated.size() > 0) {
            reply.f32("q_unrotated", std::move(result.q_unrotated));
            reply.f32("k_unrotated", std::move(result.k_unrotated));
        }
        auto& t = result.terms;
        reply.begin("terms").text("carrier", t.carrier).number("scale", t.scale);
        if (t.carrier == "absolute") {
            reply.f32("cc", std::move(t.cc)).f32("cp", std::move(t.cp)).f32("pc", std::move(t.pc)).f32("pp", std::move(t.pp));
        } else {
            reply.f32("content", std::move(t.content)).f32("position", std::move(t.position));
            for (auto& [name, part] : t.parts) reply.f32(name.c_str(), std::move(part));
        }
        reply.end().end();
    };
    return guarded(body);
}

/// attentionForward({x, wq, wk, wv, n, d_model, d_head, causal, encoding?, position_offset?}):
/// Float32Array(n * d_head), one head with the caller's weights (posenc::attention::forward).
/// The request's other keys are the spec `request`; its arrays come apart, as
/// (address, length) of float32: x [n, d_model], wq, wk, wv [d_model, d_head], row-major.
EMSCRIPTEN_KEEPALIVE const char* posenc_attention_forward(unsigned, int request, const float* x, double x_length,
                                                          const float* wq, double wq_length, const float* wk,
                                                          double wk_length, const float* wv, double wv_length,
                                                          float* out, double out_length) {
    auto body = [&] {
        const posenc::attention::Forward f = posenc::attention::parse_forward(spec_of(request));
        posenc::attention::forward(f, {x, std::size_t(x_length)}, {wq, std::size_t(wq_length)}, {wk, std::size_t(wk_length)},
                                   {wv, std::size_t(wv_length)}, result_storage(nullptr, out, out_length, f.n, f.d_head, "d_head", "n * d_head"));
    };
    return guarded(body);
}

/// cope({q, k, n, d_head, npos_max, causal?, pos_emb}): {gates, positions, bias}, Float32Array(n * n)
/// each (posenc::cope::run). The arrays come apart from the request: q, k [n, d_head] and
/// pos_emb [npos_max, d_head], (address, length) of float32 each, row-major.
EMSCRIPTEN_KEEPALIVE const char* posenc_cope(unsigned, int request, const float* q, double q_length, const float* k,
                                             double k_length, const float* pos_emb, double pos_emb_length) {
    auto body = [&] {
        auto maps = posenc::cope::run(spec_of(request), {q, std::size_t(q_length)}, {k, std::size_t(k_length)},
                                      {pos_emb, std::size_t(pos_emb_length)});
        reply.begin()
            .f32("gates", std::move(maps.gates))
            .f32("positions", std::move(maps.positions))
            .f32("bias", std::move(maps.bias))
            .end();
    };
    return guarded(body);
}

/// The reply of an experiment (trained in float32): {loss: Float32Array(steps + recalibration_steps), eval: [{length,
/// accuracy, loss}], params: {E [vocab, d], layers: [{Wq, Wk, Wv [d, d], encoding}], Wout [d, classes], c},
/// maps: [{length, tokens, targets: Int32Array(length), weights: [Float32Array(length^2) per layer]}]}.
/// Each layer's encoding is its spec with the trained parameters in the family's explicit form
/// (posenc::train::trained_spec), arrays row-major.
void reply_experiment(const posenc::train::Result<float>& result) {
    std::string eval = "[";
    for (const auto& point : result.eval)
        eval += std::string(eval.size() > 1 ? "," : "") + "{\"length\":" + posenc::format_number(double(point.length)) +
                ",\"accuracy\":" + posenc::format_number(point.accuracy) + ",\"loss\":" + posenc::format_number(point.loss) + "}";
    eval += "]";
    const auto& p = result.model.params;
    reply.begin().f32("loss", result.loss).json("eval", eval);
    reply.begin("params").f32("E", p.E).begin_list("layers");
    for (std::size_t l = 0; l < p.layers.size(); ++l) {
        const auto& layer = p.layers[l];
        reply.begin().f32("Wq", layer.Wq).f32("Wk", layer.Wk).f32("Wv", layer.Wv)
            .json("encoding", posenc::to_json(posenc::train::trained_spec(result.model, l))).end();
    }
    reply.end_list().f32("Wout", p.Wout).f32("c", p.c).end();
    reply.begin_list("maps");
    for (const auto& map : result.maps) {
        reply.begin().number("length", double(map.length))
            .i32("tokens", std::vector<std::int32_t>(map.example.tokens.begin(), map.example.tokens.end()))
            .i32("targets", std::vector<std::int32_t>(map.example.targets.begin(), map.example.targets.end()))
            .begin_list("weights");
        for (const auto& w : map.weights) reply.f32(nullptr, w);
        reply.end_list().end();
    }
    reply.end_list().end();
}

/// train({task, encoding, eval_encoding?, layers?, d_model, vocab, train_length, steps, seed,
/// eval_lengths, eval_examples, lr, recalibration_steps}): the experiment in one call
/// (posenc::train::run), as reply_experiment.
EMSCRIPTEN_KEEPALIVE const char* posenc_train(unsigned, int request) {
    auto body = [&] { reply_experiment(posenc::train::run<float>(posenc::train::parse_request(spec_of(request)))); };
    return guarded(body);
}

/// The experiments under way, a few steps at a time (JS trainer(request)); slot k is handle k + 1.
std::vector<std::unique_ptr<posenc::train::Trainer<float>>> trainers;

posenc::train::Trainer<float>& trainer_of(double handle) {
    const std::size_t k = std::size_t(handle) - 1;
    if (!(handle >= 1) || handle != std::floor(handle) || k >= trainers.size() || !trainers[k])
        posenc::throw_bad_param("handle", posenc::format_number(handle),
                                "the handle of an experiment under way (trainerStart's, before trainerFinish)");
    return *trainers[k];
}

/// trainerStart(request): {handle, total}, an experiment ready to step (posenc::train::Trainer).
EMSCRIPTEN_KEEPALIVE const char* posenc_trainer_start(unsigned, int request) {
    auto body = [&] {
        auto trainer = std::make_unique<posenc::train::Trainer<float>>(posenc::train::parse_request(spec_of(request)));
        std::size_t k = 0;
        while (k < trainers.size() && trainers[k]) ++k;
        if (k == trainers.size()) trainers.emplace_back();
        trainers[k] = std::move(trainer);
        reply.begin().number("handle", double(k + 1)).number("total", double(trainers[k]->total())).end();
    };
    return guarded(body);
}

/// trainerStep(handle, count): the steps done after up to count more.
EMSCRIPTEN_KEEPALIVE const char* posenc_trainer_step(unsigned kinds, double handle, double count) {
    auto body = [&] {
        const std::int64_t c = Kinds(kinds).integer(1, count, posenc::args::train_steps);
        reply.number(nullptr, double(trainer_of(handle).step(c)));
    };
    return guarded(body);
}

/// trainerFinish(handle): the rest of the steps, the evaluation, as reply_experiment; frees the trainer.
EMSCRIPTEN_KEEPALIVE const char* posenc_trainer_finish(unsigned, double handle) {
    auto body = [&] {
        trainer_of(handle);  // throws for a handle not under way
        const std::unique_ptr<posenc::train::Trainer<float>> owned = std::move(trainers[std::size_t(handle) - 1]);
        reply_experiment(owned->finish());
    };
    return guarded(body);
}

/// trainerFree(handle): drops an experiment under way (nothing for a handle already finished or freed).
EMSCRIPTEN_KEEPALIVE void posenc_trainer_free(double handle) {
    const std::size_t k = std::size_t(handle) - 1;
    if (handle >= 1 && k < trainers.size()) trainers[k].reset();
}

/// embedTokens(text, dModel, seed): {tokens: string[], data: Float32Array(n * dModel)},
/// the token embeddings the attention head uses (tokenize + token_embedding).
EMSCRIPTEN_KEEPALIVE const char* posenc_embed_tokens(unsigned kinds, const char* text, double text_length, double d_model,
                                                     double seed) {
    auto body = [&] {
        const Kinds k(kinds);
        const std::string words = k.text(0, text, text_length, "text", "a string");
        const std::int64_t width = k.integer(1, d_model, posenc::args::model_dim);
        auto embedded = posenc::attention::embed_tokens(words, width, k.integer(2, seed, posenc::args::seed));
        reply.begin().texts("tokens", embedded.tokens).f32("data", std::move(embedded.data)).end();
    };
    return guarded(body);
}

/// describe(): the families, their keys, rope's scaling types and the limits (posenc::describe).
EMSCRIPTEN_KEEPALIVE const char* posenc_describe() {
    auto body = [] { reply.json(nullptr, posenc::describe()); };
    return guarded(body);
}

/// version(): "posenc <version> (wasm, SIMD on)" (or off).
EMSCRIPTEN_KEEPALIVE const char* posenc_version() {
    auto body = [] {
#ifdef __wasm_simd128__
        reply.text(nullptr, "posenc " POSENC_VERSION " (wasm, SIMD on)");
#else
        reply.text(nullptr, "posenc " POSENC_VERSION " (wasm, SIMD off)");
#endif
    };
    return guarded(body);
}

/// Bytes of wasm heap currently allocated by malloc: a diagnostic for leak tests.
EMSCRIPTEN_KEEPALIVE double posenc_heap_bytes_in_use() { return double(mallinfo().uordblks); }

}  // extern "C"
