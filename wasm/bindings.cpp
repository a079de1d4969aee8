// wasm/bindings.cpp: the embind bindings of the JS API (wasm/post.js is the
// thin JS layer over them, wasm/posenc.d.ts the contract). They convert staged
// JS values to core arguments and core results to JS values; they compute and
// check nothing of their own: a JS number becomes an integer argument with the
// core's posenc::IntArg (posenc/args.hpp: its name and range, which the core
// function checks too), and the core functions check the rest.
//
// What crosses (post.js is the other side):
//  - post.js has read every JS value of a call before any of these runs (a
//    getter, Proxy or toJSON of the caller's cannot run inside a wasm frame).
//    A scalar arrives as a number, boolean, string or undefined when it has the
//    type the argument wants, else as {shown: "<the value as a message quotes it>"}.
//    A spec or request arrives as the id of a Spec: a Config parsed once from its
//    JSON text (parseSpec) and cached by post.js. An input array arrives as a
//    Float32Array (Int32Array or Float64Array for t5Bucket), copied here, or as
//    {address, length} of an allocFloat32 buffer, read in place; `out` as that
//    buffer's {address, length, buffer}.
//  - A result is a fresh JS value (typed arrays are copies of the core's arrays).
//  - Errors cross as data: no exception leaves a binding. A failing call returns
//    undefined and keeps the error, which lastError() returns as {name, code,
//    message, param?, value?, allowed?}; post.js throws it as a RangeError or Error.
//    So no C++ frame is ever unwound by JS, and the stack and heap cannot leak.
//
// Two modules are linked from this file (CMakeLists.txt): posenc.wasm with every
// binding, and posenc-view.wasm (POSENC_VIEW_MODULE defined) without the ones
// under #ifndef POSENC_VIEW_MODULE (the trainer, the model lab's,
// attentionForward), whose core code the LTO link then drops. A posenc-view-<group>.wasm is posenc-view.wasm with
// some of the families (core/src/family_set.cpp): POSENC_FAMILY_SUBSET and POSENC_HAS_<type> for each family it has
// defined, it also leaves out the bindings of one family each it lacks (alibiSlopes, alibiBias, t5Bucket,
// debertaRelativePosition, cope: post.js throws 'unavailable' for them), and a spec of a family it lacks is refused
// with code 'unavailable' too (posenc::NotInModule).
#include <emscripten/bind.h>
#include <emscripten/em_js.h>
#include <emscripten/emscripten.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <cmath>
#include <cstddef>
#include <algorithm>
#include <list>
#include <cstdint>
#include <exception>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "posenc/kernels.hpp"
#include "posenc/alibi.hpp"
#include "posenc/args.hpp"
#include "posenc/attention.hpp"
#include "posenc/config.hpp"
#include "posenc/cope.hpp"
#include "posenc/describe.hpp"
#include "posenc/json.hpp"
#include "posenc/mrope.hpp"
#include "posenc/nope.hpp"
#include "posenc/registry.hpp"
#include "posenc/rope_stacks.hpp"
#include "posenc/t5.hpp"
#include "posenc/train.hpp"

using emscripten::val;
using posenc::Config;

typedef emscripten::EM_VAL Handle;

// Fresh typed arrays holding copies of `count` items at `data` (one crossing each).
EM_JS(Handle, posenc_f32_copy, (const float* data, std::size_t count),
      { return Emval.toHandle(HEAPF32.slice(data >> 2, (data >> 2) + count)); });
EM_JS(Handle, posenc_i32_copy, (const std::int32_t* data, std::size_t count),
      { return Emval.toHandle(HEAP32.slice(data >> 2, (data >> 2) + count)); });
// Copies the typed array `source` (any element type) into `count` items of type
// `kind` (0 float32, 1 float64) at `data`; false when its length, read with the
// built-in getter, is no longer `count` (a view on the heap is detached when the
// heap grows).
EM_JS(bool, posenc_copy_in, (Handle source, void* data, std::size_t count, int kind), {
  const array = Emval.toValue(source);
  const length = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Int8Array.prototype), 'length').get;
  if (length.call(array) !== count) return false;
  if (kind === 0) HEAPF32.set(array, data >> 2);
  else HEAPF64.set(array, data >> 3);
  return true;
});

// A JS object made in one crossing from the members a Record collected (see Record): each
// member is 32 bytes, {key, kind, number, data, count, handle} at offsets 0, 4, 8, 16, 20, 24.
// kind 0: the number; 1, 2: a Float32Array / Int32Array copy of count items at data; 3: the
// JS value of handle; 4: the UTF-8 text of count bytes at data; 5: a Float64Array copy. kind + 256: the key is not a
// literal (its text is read each time; literals are read once, by address).
EM_JS(Handle, posenc_record, (const void* members, int count), {
  var keys = Module['posencKeys'] || (Module['posencKeys'] = new Map());
  var out = {};
  for (var i = 0; i < count; i++) {
    var p = members + 32 * i;
    var at = HEAPU32[p >> 2], kind = HEAP32[(p + 4) >> 2], key;
    if (kind >= 256) { key = UTF8ToString(at); kind -= 256; }
    else if ((key = keys.get(at)) === undefined) { key = UTF8ToString(at); keys.set(at, key); }
    var data = HEAPU32[(p + 16) >> 2], n = HEAPU32[(p + 20) >> 2];
    out[key] = kind === 0 ? HEAPF64[(p + 8) >> 3]
      : kind === 1 ? HEAPF32.slice(data >> 2, (data >> 2) + n)
      : kind === 2 ? HEAP32.slice(data >> 2, (data >> 2) + n)
      : kind === 3 ? Emval.toValue(HEAPU32[(p + 24) >> 2])
      : kind === 5 ? HEAPF64.slice(data >> 3, (data >> 3) + n)
      : UTF8ToString(data, n);
  }
  return Emval.toHandle(out);
});

// Whether this module has family `type`'s own bindings: every module but a posenc-view-<group>.wasm without it.
#ifdef POSENC_FAMILY_SUBSET
#define POSENC_HAS_FAMILY(type) POSENC_HAS_##type
#else
#define POSENC_HAS_FAMILY(type) 1
#endif

namespace {

/// A result object built in C++ and made in JS in one crossing (posenc_record): a binding
/// adds its members, then value() makes the object. What the members point at (the core's
/// arrays, nested values) must live until value() returns; the Record keeps what it converts.
class Record {
public:
    Record& number(const char* key, double x) { return add(key, 0, x, nullptr, 0); }
    Record& f32(const char* key, const float* data, std::size_t count) { return add(key, 1, 0, data, count); }
    Record& f32(const char* key, const std::vector<float>& v) { return f32(key, v.data(), v.size()); }
    Record& f32(const char* key, const xt::xtensor<float, 2>& m) { return f32(key, m.data(), m.size()); }
    Record& f32(const char* key, const std::vector<double>& v) {
        floats_.emplace_back(v.begin(), v.end());
        return f32(key, floats_.back());
    }
    /// A Float64Array: for values a float32 would round (positions past 2^24).
    Record& f64(const char* key, const std::vector<double>& v) { return add(key, 5, 0, v.data(), v.size()); }
    Record& i32(const char* key, const std::vector<std::int32_t>& v) { return add(key, 2, 0, v.data(), v.size()); }
    Record& i32(const char* key, const std::vector<std::int64_t>& v) {
        ints_.emplace_back(v.begin(), v.end());
        return i32(key, ints_.back());
    }
    Record& value(const char* key, val v) {
        values_.push_back(std::move(v));
        add(key, 3, 0, nullptr, 0);
        members_.back().handle = values_.back().as_handle();
        return *this;
    }
    Record& text(const char* key, const std::string& t) {
        texts_.push_back(t);
        return add(key, 4, 0, texts_.back().data(), texts_.back().size());
    }
    /// Members whose key is not a literal (a curve's name, a term's part).
    Record& f32(const std::string& key, const std::vector<double>& v) { return f32(owned(key), v).dynamic(); }
    Record& value(const std::string& key, val v) { return value(owned(key), std::move(v)).dynamic(); }
    val value() const { return val::take_ownership(posenc_record(members_.data(), int(members_.size()))); }

private:
    struct Member {
        const char* key;
        std::int32_t kind;
        double number;
        const void* data;
        std::uint32_t count;
        Handle handle;
    };
    static_assert(sizeof(void*) != 4 || (sizeof(Member) == 32 && offsetof(Member, number) == 8 &&
                                         offsetof(Member, data) == 16 && offsetof(Member, count) == 20 &&
                                         offsetof(Member, handle) == 24),
                  "posenc_record reads this layout");
    const char* owned(const std::string& key) {
        texts_.push_back(key);
        return texts_.back().c_str();
    }
    Record& dynamic() {
        members_.back().kind += 256;
        return *this;
    }
    Record& add(const char* key, std::int32_t kind, double x, const void* data, std::size_t count) {
        members_.push_back(Member{key, kind, x, data, std::uint32_t(count), nullptr});
        return *this;
    }
    std::vector<Member> members_;
    // Lists whose items do not move when another is added (what members point at).
    std::list<std::vector<float>> floats_;
    std::list<std::vector<std::int32_t>> ints_;
    std::list<std::string> texts_;
    std::list<val> values_;
};

val f32(const float* data, std::size_t count) { return val::take_ownership(posenc_f32_copy(data, count)); }
val f32(const std::vector<float>& v) { return f32(v.data(), v.size()); }
val f32(const xt::xtensor<float, 2>& m) { return f32(m.data(), m.size()); }
val f32(const std::vector<double>& v) { return f32(std::vector<float>(v.begin(), v.end())); }
val i32(const std::vector<std::int32_t>& v) { return val::take_ownership(posenc_i32_copy(v.data(), v.size())); }
val i32(const std::vector<std::int64_t>& v) { return i32(std::vector<std::int32_t>(v.begin(), v.end())); }

val strings(const std::vector<std::string>& list) {
    val out = val::array();
    for (std::size_t i = 0; i < list.size(); ++i) out.set(i, list[i]);
    return out;
}

/// JSON text the core wrote, as the JS value JSON.parse makes of it.
val parsed(const std::string& json) { return val::global("JSON").call<val>("parse", json); }

// ---------------------------------------------------------------------------
// Arguments (see the top of the file for their staged forms)

/// How a message quotes a scalar that has not the argument's type (post.js's {shown}).
std::string shown(const val& v) {
    if (v.isUndefined()) return "undefined";
    if (v.isNumber()) return posenc::format_number(v.as<double>());
    if (v.isTrue()) return "true";
    if (v.isFalse()) return "false";
    return v["shown"].as<std::string>();
}

/// A JS number converted to the core's integer argument `arg` (posenc/args.hpp:
/// its JS name and range, which the core function checks too).
std::int64_t integer(const val& v, const posenc::IntArg& arg) {
    const double x = v.isNumber() ? v.as<double>() : NAN;
    if (!std::isfinite(x) || x != std::floor(x) || x < double(arg.lo) || x > double(arg.hi))
        posenc::throw_bad_param(arg.name, shown(v), arg.allowed());
    return static_cast<std::int64_t>(x);
}

/// A JS number as it is (NaN and infinities too: the core function checks its range).
double real(const val& v, const char* name, const char* allowed) {
    if (!v.isNumber()) posenc::throw_bad_param(name, shown(v), allowed);
    return v.as<double>();
}

bool boolean(const val& v, const char* name) {
    if (!v.isTrue() && !v.isFalse()) posenc::throw_bad_param(name, shown(v), "true or false");
    return v.isTrue();
}

std::string text(const val& v, const char* name, const std::string& allowed) {
    if (!v.isString()) posenc::throw_bad_param(name, shown(v), allowed);
    return v.as<std::string>();
}

/// Scratch memory for `count` items, not initialised (every item is written before it is read:
/// a zero-filled std::vector cost a second pass over the inputs and results, 0.15 ms on RoPE [4096, 128]).
template <class T>
struct Scratch {
    std::unique_ptr<T[]> items;
    std::size_t count = 0;
    T* allocate(std::size_t n) {
        items.reset(new T[n]);
        count = n;
        return items.get();
    }
};

/// An input array as post.js stages it: {typed, length} (a typed array and its length), copied into
/// `storage` as float32 (kind 0) or float64 (kind 1), or {address, length} of an allocFloat32 buffer.
/// Returns the address of the items and their count; `detached` names the array in the error of a typed
/// array detached since it was staged.
template <class T>
std::pair<const void*, std::size_t> items(const val& v, Scratch<T>& storage, const char* name, const char* detached,
                                          const char* allowed) {
    const std::size_t count = v["length"].as<std::size_t>();
    const val address = v["address"];
    if (!address.isUndefined()) return {reinterpret_cast<const void*>(address.as<std::uintptr_t>()), count};
    T* data = storage.allocate(count);  // may grow the heap, which detaches a caller's view on it
    if (!posenc_copy_in(v["typed"].as_handle(), data, count, sizeof(T) == 4 ? 0 : 1))
        posenc::throw_bad_param(name, detached, allowed);
    return {data, count};
}

/// Throws unless every item of the float32 input array `name` is finite (kernels::first_nonfinite, SIMD): a NaN or
/// infinity is named where it is, "wk[17] = NaN", not by a bound of the core's that it breaks later.
void check_finite(const float* x, std::size_t count, const char* name) {
    const std::size_t bad = posenc::kernels::first_nonfinite(x, count);
    if (bad == count) return;
    const std::string value = std::isnan(x[bad]) ? "NaN" : x[bad] > 0 ? "Infinity" : "-Infinity";
    throw posenc::BadParam(name, std::string(name) + "[" + std::to_string(bad) + "] = " + value +
                                     " is invalid: expected a finite number", value, "a finite number");
}

/// An input array of float32 (see items), every item checked finite first (check_finite).
posenc::Floats floats(const val& v, Scratch<float>& storage, const char* name) {
    const auto [data, count] = items(v, storage, name, "a detached Float32Array",
                                     "a live array (a view on the heap is detached when the heap grows: pass the allocFloat32 buffer itself)");
    const float* x = static_cast<const float*>(data);
    check_finite(x, count, name);
    return {x, count};
}

/// A spec or request object, parsed once from its JSON text (parseSpec) and cached by post.js under its id
/// (until freeSpec). Ids, not embind classes: embind's class machinery was 3 KB of gzip glue.
struct Spec {
    Config config;
};

/// The parsed specs; id k is slot k - 1, and a freed slot is reused.
std::vector<std::unique_ptr<Spec>> specs;

const Spec& spec_of(int id) {
    if (id < 1 || std::size_t(id) > specs.size() || !specs[std::size_t(id - 1)])
        throw std::logic_error("posenc: unknown spec id " + std::to_string(id));
    return *specs[std::size_t(id - 1)];
}

/// Where a result of `rows * cols` floats goes: the caller's out buffer (which
/// must have that length) or `storage`. The shape is checked first, as the core
/// checks it (n * cols <= max_table_elements; `cols_name` names the width), so
/// that nothing is allocated for a request the core refuses.
float* result_storage(const val& out, Scratch<float>& storage, std::int64_t rows, std::int64_t cols,
                      const char* cols_name, const char* shape) {
    posenc::check_table_shape(rows, cols, cols_name);
    const std::int64_t count = rows * cols;
    if (out.isUndefined()) {
        return storage.allocate(std::size_t(count));
    }
    const double length = out["length"].as<double>();
    if (length != double(count))
        posenc::throw_bad_param("out", "a buffer of length " + posenc::format_number(length),
                                std::string(shape) + " = " + std::to_string(count) + " floats (allocFloat32(" +
                                    std::to_string(count) + "))");
    return reinterpret_cast<float*>(out["address"].as<std::uintptr_t>());
}

/// The JS value of a result written by result_storage: the out buffer's array, or a copy of `storage`.
val result_value(const val& out, const Scratch<float>& storage) {
    return out.isUndefined() ? f32(storage.items.get(), storage.count) : out["buffer"]["array"];
}

// ---------------------------------------------------------------------------
// Errors: kept as data for lastError(); nothing thrown leaves a binding.

val last_error = val::undefined();

void fail(const char* name, const char* code, const char* message, const posenc::BadParam* bad = nullptr) noexcept {
    try {
        Record error;
        error.text("name", name).text("code", code).text("message", message);
        if (bad) {
            error.text("param", bad->param);
            if (!bad->allowed.empty()) error.text("value", bad->value).text("allowed", bad->allowed);
        }
        last_error = error.value();
    } catch (...) {
        last_error = val::undefined();
    }
}

/// An object used after it was freed (a stale trainer handle): .code 'freed', an Error with .param.
struct Freed : posenc::BadParam {
    using posenc::BadParam::BadParam;
};

/// Runs a binding body; its result, or undefined with the error kept for lastError().
template <class F>
val guarded(F&& body) noexcept {
    try {
        return body();
    } catch (const Freed& e) {
        fail("Error", "freed", e.what(), &e);
    } catch (const posenc::NotInModule& e) {  // a posenc-view-<group>.wasm without the spec's family
        fail("Error", "unavailable", e.what(), &e);
    } catch (const posenc::BadParam& e) {
        fail("RangeError", "bad_param", e.what(), &e);
    } catch (const std::invalid_argument& e) {
        fail("RangeError", "bad_request", e.what());
    } catch (const std::bad_alloc&) {
        fail("RangeError", "out_of_memory", "out of memory: the request is too large for this browser tab");
    } catch (const std::exception& e) {
        fail("Error", "internal", e.what());
    } catch (...) {
        fail("Error", "internal", "posenc: unknown C++ exception");
    }
    return val::undefined();
}

// ---------------------------------------------------------------------------
// The functions of the JS API (their docs: wasm/posenc.d.ts)

/// parseSpec(text, what): {id, bytes}: the id of the Spec of a JSON object text (what: 0 "spec", 1 "request", as
/// messages name it) and the heap bytes it holds (posenc::json_heap_bytes), which post.js's cache counts.
val parse_spec(std::string json, int what) {
    return guarded([&] {
        auto spec = std::make_unique<Spec>(Spec{posenc::parse_json_object(json, what == 1 ? "request" : "spec")});
        const double bytes = double(sizeof(Spec) + posenc::json_heap_bytes(spec->config));
        std::size_t k = 0;
        while (k < specs.size() && specs[k]) ++k;
        if (k == specs.size()) specs.emplace_back();
        specs[k] = std::move(spec);
        return Record().number("id", double(k + 1)).number("bytes", bytes).value();
    });
}

/// freeSpec(id): drops a Spec (nothing for an id not in use).
void free_spec(int id) {
    if (id >= 1 && std::size_t(id) <= specs.size()) specs[std::size_t(id - 1)].reset();
}

/// lastError(): the error of the last failing call (see fail).
val get_last_error() { return last_error; }

/// positionTable(spec, n, out?): {data: Float32Array(n * d_model) or out.array, rows: n, cols: d_model}.
val position_table(int spec_id, val n, val out) {
    return guarded([&] {
        const Spec& spec = spec_of(spec_id);
        const std::int64_t rows = integer(n, posenc::args::rows);
        std::int64_t cols = 0;
        Scratch<float> storage;
        posenc::position_table(spec.config, rows, 0, [&](std::int64_t r, std::int64_t c) {
            cols = c;
            return result_storage(out, storage, r, c, "d_model", "n * d_model");
        });
        return Record().value("data", result_value(out, storage)).number("rows", double(rows)).number("cols", double(cols)).value();
    });
}

/// positionFrequencies(spec): {inv_freq, wavelength: Float32Array(d_model / 2), sin_column, cos_column: Int32Array(d_model / 2)}.
val position_frequencies(int spec_id) {
    return guarded([&] {
        const Spec& spec = spec_of(spec_id);
        const auto pairs = posenc::position_frequencies(spec.config);
        return Record()
            .f32("inv_freq", pairs.inv_freq)
            .f32("wavelength", pairs.wavelength)
            .i32("sin_column", pairs.sin_column)
            .i32("cos_column", pairs.cos_column)
            .value();
    });
}

/// ropeInvFreq(spec, seqLen): {inv_freq: Float32Array(rotary_dim / 2), attention_factor, logit_scale, head_dim, rotary_dim,
/// first_column, second_column: Int32Array(rotary_dim / 2), and yarn's ramp_low, ramp_high}.
val rope_inv_freq(int spec_id, val seq_len) {
    return guarded([&] {
        const Spec& spec = spec_of(spec_id);
        const auto f = posenc::rotary_frequencies(spec.config, integer(seq_len, posenc::args::seq_len));
        Record result;
        result.f32("inv_freq", f.inv_freq)
            .number("attention_factor", f.attention_factor)
            .number("logit_scale", f.logit_scale)
            .number("head_dim", double(f.head_dim))
            .number("rotary_dim", double(f.rotary_dim))
            .i32("first_column", f.first_column)
            .i32("second_column", f.second_column);
        if (!std::isnan(f.ramp_low)) result.number("ramp_low", f.ramp_low).number("ramp_high", f.ramp_high);
        return result.value();
    });
}

#ifndef POSENC_VIEW_MODULE  // the model lab only
/// ropeStacks(spec, seqLen): {stacks: [{name, modelled, inv_freq: Float32Array(rotary_dim / 2) (empty when not modelled),
/// attention_factor, logit_scale, layout, note, nonfinite, nonfinite_param}] for transformers, llama.cpp, vllm;
/// max_relative: Float32Array(rotary_dim / 2) per pair (Infinity where a stack's value is not finite), first, second:
/// Int32Array (the stacks' indices that attain it), overall_max_relative, agreement, comparisons: [{first, second, agree}]
/// for each two modelled stacks, attention_factors_differ, logit_scales_differ} (rope_stacks.hpp stack_differences).
/// spec must be of type "rope".
val rope_stacks(int spec_id, val seq_len) {
    return guarded([&] {
        const Spec& spec = spec_of(spec_id);
        const posenc::Value* type = posenc::find_key(spec.config, "type");
        if (!type || *type != "rope") posenc::throw_bad_param("type", type ? posenc::describe(*type) : "undefined", "\"rope\"");
        const auto rope = posenc::rope::parse(spec.config);
        const auto d = posenc::rope::stack_differences(rope, integer(seq_len, posenc::args::seq_len));
        val stacks = val::array();
        for (std::size_t k = 0; k < d.stacks.size(); ++k) {
            const auto& s = d.stacks[k];
            stacks.set(k, Record()
                              .text("name", posenc::rope::stack_name(posenc::rope::kStacks[k]))
                              .value("modelled", val(bool(d.modelled[k])))
                              .f32("inv_freq", s.inv_freq)
                              .number("attention_factor", s.attention_factor)
                              .number("logit_scale", s.logit_scale)
                              .text("layout", s.layout == posenc::rope::Layout::interleaved ? "interleaved" : "half")
                              .text("note", s.note)
                              .text("nonfinite", s.nonfinite)
                              .text("nonfinite_param", s.nonfinite_param)
                              .value());
        }
        val comparisons = val::array();
        for (std::size_t k = 0; k < d.comparisons.size(); ++k) {
            const auto& c = d.comparisons[k];
            comparisons.set(k, Record()
                                   .number("first", double(c.first))
                                   .number("second", double(c.second))
                                   .value("agree", val(c.agree))
                                   .value());
        }
        std::vector<double> max_relative;
        std::vector<std::int32_t> first, second;
        for (const auto& p : d.pairs) {
            max_relative.push_back(p.max_relative);
            first.push_back(std::int32_t(p.first));
            second.push_back(std::int32_t(p.second));
        }
        return Record()
            .value("stacks", stacks)
            .f32("max_relative", max_relative)
            .i32("first", first)
            .i32("second", second)
            .number("overall_max_relative", d.max_relative)
            .number("agreement", posenc::rope::kStackAgreement)
            .value("comparisons", comparisons)
            .value("attention_factors_differ", val(d.attention_factors_differ))
            .value("logit_scales_differ", val(d.logit_scales_differ))
            .value();
    });
}
#endif  // POSENC_VIEW_MODULE

/// applyRope(x, n, d, spec, positionOffset, out?): x [n, d] rotated, a fresh Float32Array(n * d) or out.array (may be x itself).
val apply_rope(val x, val n, val d, int spec_id, val offset, val out) {
    return guarded([&] {
        const Spec& spec = spec_of(spec_id);
        const std::int64_t rows = integer(n, posenc::args::rows);
        const std::int64_t cols = integer(d, posenc::args::width);
        const std::int64_t position = integer(offset, posenc::args::position_offset);
        Scratch<float> input, storage;
        const posenc::Floats data = floats(x, input, "x");
        posenc::apply_rotary(spec.config, data, rows, cols, position, result_storage(out, storage, rows, cols, "d", "n * d"));
        return result_value(out, storage);
    });
}

/// decay(spec, maxDistance, seed = 0): {distance, <curve name>...: Float32Array(maxDistance + 1)} (posenc::decay).
val decay(int spec_id, val max_distance, val seed) {
    return guarded([&] {
        const Spec& spec = spec_of(spec_id);
        const std::int64_t m = integer(max_distance, posenc::args::max_distance);
        const std::int64_t s = seed.isUndefined() ? 0 : integer(seed, posenc::args::seed);
        const auto curves = posenc::decay(spec.config, m, s);
        Record result;
        result.f32("distance", posenc::decay_distance(m));
        for (const auto& [name, values] : curves) result.f32(name, values);
        return result.value();
    });
}

#ifndef POSENC_VIEW_MODULE  // the model lab only
/// attentionTemperature(floorScale, attnScale, maxPosition): Llama 4's query scale on its NoPE layers at
/// its step points, {positions: Float64Array(m) (tokens), scale: Float32Array(m), sampled: boolean}
/// (posenc::nope::attention_temperature; m <= 4096).
val attention_temperature(val floor_scale, val attn_scale, val max_position) {
    return guarded([&] {
        const double f = real(floor_scale, "floor_scale", "a number of tokens in [1, 2^40]");
        const double a = real(attn_scale, "attn_scale", "a finite number in [-1e6, 1e6]");
        const auto curve = posenc::nope::attention_temperature(f, a, integer(max_position, posenc::args::max_position));
        return Record().f64("positions", curve.positions).f32("scale", curve.scale).value("sampled", val(curve.sampled)).value();
    });
}

/// mropePairAxes(sections, interleaved): Int32Array(sum of sections), the id (0 t, 1 h, 2 w) that drives
/// each rotary pair (posenc::mrope::mrope_pair_axes). sections: 3 integers, staged as float64
/// ({typed, length}, post.js); an allocFloat32 buffer is refused.
val mrope_pair_axes(val sections, val interleaved) {
    return guarded([&] {
        const posenc::IntArg& arg = posenc::args::mrope_section;
        if (!sections["address"].isUndefined())
            posenc::throw_bad_param(arg.name, "an allocFloat32 buffer", "an array of 3 integers");
        Scratch<double> values;
        items(sections, values, arg.name, "a detached Int32Array", "a live array");
        std::vector<std::int64_t> list;
        for (std::size_t i = 0; i < values.count; ++i) {
            const double x = values.items[i];
            if (!std::isfinite(x) || x != std::floor(x) || x < double(arg.lo) || x > double(arg.hi))
                posenc::throw_bad_param(std::string(arg.name) + "[" + std::to_string(i) + "]", posenc::format_number(x), arg.allowed());
            list.push_back(std::int64_t(x));
        }
        const bool mode = boolean(interleaved, "interleaved");
        const std::vector<int> axes = posenc::mrope::mrope_pair_axes(list, mode);
        return i32(std::vector<std::int32_t>(axes.begin(), axes.end()));
    });
}

/// mropePositions(textBefore, gridH, gridW, textAfter): {t, h, w, kind: Int32Array(n)}, n = textBefore +
/// gridH * gridW + textAfter: the three position ids of each token and its kind (0 text, 1 image)
/// (posenc::mrope::mrope_positions).
val mrope_positions(val text_before, val grid_h, val grid_w, val text_after) {
    return guarded([&] {
        const auto p = posenc::mrope::mrope_positions(integer(text_before, posenc::args::text_before),
                                                      integer(grid_h, posenc::args::grid_h),
                                                      integer(grid_w, posenc::args::grid_w),
                                                      integer(text_after, posenc::args::text_after));
        return Record().i32("t", p.ids[0]).i32("h", p.ids[1]).i32("w", p.ids[2]).i32("kind", p.kind).value();
    });
}
#endif  // POSENC_VIEW_MODULE

#if POSENC_HAS_FAMILY(alibi)
/// alibiSlopes(nHeads): Float32Array(nHeads), the slope m_h of each head.
val alibi_slopes(val n_heads) {
    return guarded([&] { return f32(posenc::alibi::slopes(integer(n_heads, posenc::args::n_heads))); });
}
#endif

#if POSENC_HAS_FAMILY(alibi)
/// alibiBias(n, nHeads, head, causal): Float32Array(n * n), -m_head |i - j| (-Infinity above the diagonal when causal).
val alibi_bias(val n, val n_heads, val head, val causal) {
    return guarded([&] {
        const std::int64_t heads = integer(n_heads, posenc::args::n_heads);
        const std::int64_t which = integer(head, posenc::args::head);
        const bool mask = boolean(causal, "causal");
        return f32(posenc::alibi::bias(integer(n, posenc::args::matrix_n), heads, which, mask));
    });
}
#endif

#if POSENC_HAS_FAMILY(t5)
/// t5Bucket(relativePositions, bidirectional, numBuckets, maxDistance): Int32Array, the bucket of each
/// relative position (key - query): a typed array of them (read as float64) or an allocFloat32 buffer.
val t5_bucket(val positions, val bidirectional, val num_buckets, val max_distance) {
    return guarded([&] {
        const bool both = boolean(bidirectional, "bidirectional");
        const std::int64_t buckets = integer(num_buckets, posenc::args::num_buckets);
        const std::int64_t distance = integer(max_distance, posenc::args::bucket_distance);
        Scratch<double> values;
        if (positions["address"].isUndefined()) {
            items(positions, values, "relativePositions", "a detached Int32Array", "a live array");
        } else {  // an allocFloat32 buffer's float32 values, as the float64 the core reads
            Scratch<float> unused;
            const auto [data, count] = items(positions, unused, "relativePositions", "", "");
            check_finite(static_cast<const float*>(data), count, "relativePositions");
            std::copy_n(static_cast<const float*>(data), count, values.allocate(count));
        }
        return i32(posenc::t5::buckets(values.items.get(), values.count, both, buckets, distance));
    });
}
#endif

#if POSENC_HAS_FAMILY(deberta)
/// debertaRelativePosition(queryLength, keyLength, position_buckets, max_relative_positions):
/// Int32Array(queryLength * keyLength), transformers' build_relative_position (posenc::deberta::relative_position).
val deberta_relative_position(val query_length, val key_length, val position_buckets, val max_relative_positions) {
    return guarded([&] {
        return i32(posenc::deberta::relative_position(integer(query_length, posenc::args::query_length),
                                                      integer(key_length, posenc::args::key_length),
                                                      integer(position_buckets, posenc::args::position_buckets),
                                                      integer(max_relative_positions, posenc::args::max_relative_positions)));
    });
}
#endif

/// attentionBias(spec, n): Float32Array(n * n), the bias b(i, j) of a bias family.
val attention_bias(int spec_id, val n) {
    return guarded([&] {
        const Spec& spec = spec_of(spec_id); return f32(posenc::attention_bias(spec.config, integer(n, posenc::args::matrix_n))); });
}

/// positionSimilarity(spec, n, metric): Float32Array(n * n), p_i . p_j or their cosine.
val position_similarity(int spec_id, val n, val metric) {
    return guarded([&] {
        const Spec& spec = spec_of(spec_id);
        const std::string name = text(metric, "metric", "one of \"dot\", \"cosine\"");
        return f32(posenc::position_similarity(spec.config, integer(n, posenc::args::matrix_n), name));
    });
}

/// attention(request, x?): the page's head (posenc::attention::run); x [n, d_model] replaces the tokens when given.
val attention(int request_id, val x) {
    return guarded([&] {
        const Spec& request = spec_of(request_id);
        posenc::attention::Request r = posenc::attention::parse(request.config);
        Scratch<float> inputs;
        if (!x.isUndefined()) posenc::attention::set_inputs(r, floats(x, inputs, "x"));
        static posenc::attention::WeightCache weights;  // the page's head keeps its projections between calls
        auto result = posenc::attention::run(r, &weights);
        const auto& t = result.terms;
        Record terms;
        terms.text("carrier", t.carrier).number("scale", t.scale);
        if (t.carrier == "absolute") {
            terms.f32("cc", t.cc).f32("cp", t.cp).f32("pc", t.pc).f32("pp", t.pp);
        } else {
            terms.f32("content", t.content).f32("position", t.position);
            for (const auto& [name, part] : t.parts) terms.value(name, f32(part));
        }
        Record out;
        out.value("tokens", strings(result.tokens))
            .number("n", double(result.logits.shape()[0]))
            .number("d_head", double(r.d_head))
            .f32("logits", result.logits)
            .f32("weights", result.weights)
            .f32("output", result.output)
            .f32("x", result.x)
            .f32("q", result.q)
            .f32("k", result.k)
            .f32("v", result.v);
        if (result.positions.size() > 0) out.f32("positions", result.positions);
        if (result.q_unrotated.size() > 0) out.f32("q_unrotated", result.q_unrotated).f32("k_unrotated", result.k_unrotated);
        return out.value("terms", terms.value()).value();
    });
}

#ifndef POSENC_VIEW_MODULE  // the API only (no view calls it)
/// attentionForward(request, x, wq, wk, wv, out?): Float32Array(n * d_head) or out.array, one head with the
/// caller's weights (posenc::attention::forward); x [n, d_model], wq, wk, wv [d_model, d_head], row-major.
val attention_forward(int request_id, val x, val wq, val wk, val wv, val out) {
    return guarded([&] {
        const Spec& request = spec_of(request_id);
        const posenc::attention::Forward f = posenc::attention::parse_forward(request.config);
        Scratch<float> xs, qs, ks, vs, storage;
        const posenc::Floats xf = floats(x, xs, "x"), qf = floats(wq, qs, "wq"), kf = floats(wk, ks, "wk"),
                             vf = floats(wv, vs, "wv");
        posenc::attention::forward(f, xf, qf, kf, vf, result_storage(out, storage, f.n, f.d_head, "d_head", "n * d_head"));
        return result_value(out, storage);
    });
}
#endif  // POSENC_VIEW_MODULE

#if POSENC_HAS_FAMILY(cope)
/// cope(request, q, k, pos_emb): {gates, positions, bias}, Float32Array(n * n) each (posenc::cope::run);
/// q, k [n, d_head], pos_emb [npos_max, d_head], row-major.
val cope(int request_id, val q, val k, val pos_emb) {
    return guarded([&] {
        const Spec& request = spec_of(request_id);
        Scratch<float> qs, ks, ps;
        const posenc::Floats qf = floats(q, qs, "q");
        const posenc::Floats kf = floats(k, ks, "k");
        const posenc::Floats pf = floats(pos_emb, ps, "pos_emb");
        auto maps = posenc::cope::run(request.config, qf, kf, pf);
        return Record().f32("gates", maps.gates).f32("positions", maps.positions).f32("bias", maps.bias).value();
    });
}
#endif

#ifndef POSENC_VIEW_MODULE  // the trainer
/// UTF-8 of the corpus characters `tokens` index.
std::string characters(const posenc::train::Corpus& corpus, const std::vector<int>& tokens) {
    std::string out;
    for (const int t : tokens) {
        const std::uint32_t c = corpus.characters[std::size_t(t)];
        if (c < 0x80) out += char(c);
        else if (c < 0x800) out += {char(0xC0 | (c >> 6)), char(0x80 | (c & 0x3F))};
        else if (c < 0x10000) out += {char(0xE0 | (c >> 12)), char(0x80 | ((c >> 6) & 0x3F)), char(0x80 | (c & 0x3F))};
        else out += {char(0xF0 | (c >> 18)), char(0x80 | ((c >> 12) & 0x3F)), char(0x80 | ((c >> 6) & 0x3F)), char(0x80 | (c & 0x3F))};
    }
    return out;
}

/// An experiment's result (trained in float32): {loss: Float32Array(steps + recalibration_steps), eval: [{length,
/// accuracy, loss, perplexity, loss_se, windows, characters}] (posenc::train::EvalPoint), validation: [{step, loss}],
/// params: {E [vocab, d], layers: [{heads: [{Wq, Wk, Wv [d, head_dim], encoding}], Wo? [d, d], norm1?, norm2? [d],
/// W1? [d, m], b1? [m], W2? [m, d], b2? [d]}], norm? [d], Wout [d, classes], c}, maps: [{length, tokens, targets:
/// Int32Array(length), weights: [Float32Array(length^2) per layer (head 0's)]}], samples: [{prompt, generated}] (task
/// "text": strings), characters (task "text": the vocabulary, token k = characters[k])}. Each head's encoding is its
/// spec with the trained parameters in the family's explicit form (posenc::train::trained_spec), arrays row-major; the
/// optional arrays are present when the model has them (several heads, an MLP, norm "rms_norm").
val experiment(const posenc::train::Result<float>& result, const posenc::train::Corpus* corpus) {
    val eval = val::array();
    for (std::size_t i = 0; i < result.eval.size(); ++i) {
        val point = val::object();
        point.set("length", double(result.eval[i].length));
        point.set("accuracy", result.eval[i].accuracy);
        point.set("loss", result.eval[i].loss);
        point.set("perplexity", result.eval[i].perplexity());
        point.set("loss_se", result.eval[i].loss_se);
        point.set("windows", double(result.eval[i].windows));
        point.set("characters", double(result.eval[i].characters));
        eval.set(i, point);
    }
    val validation = val::array();
    for (std::size_t i = 0; i < result.validation.size(); ++i)
        validation.set(i, Record().number("step", double(result.validation[i].step)).number("loss", result.validation[i].loss).value());
    const auto& p = result.model.params;
    const auto optional = [](val& object, const char* name, const std::vector<float>& values) {
        if (!values.empty()) object.set(name, f32(values));
    };
    val layers = val::array();
    for (std::size_t l = 0; l < p.layers.size(); ++l) {
        const auto& source = p.layers[l];
        val heads = val::array();
        for (std::size_t h = 0; h < source.heads.size(); ++h) {
            val head = val::object();
            head.set("Wq", f32(source.heads[h].Wq));
            head.set("Wk", f32(source.heads[h].Wk));
            head.set("Wv", f32(source.heads[h].Wv));
            head.set("encoding", parsed(posenc::to_json(posenc::train::trained_spec(result.model, l, h))));
            heads.set(h, head);
        }
        val layer = val::object();
        layer.set("heads", heads);
        optional(layer, "Wo", source.Wo);
        optional(layer, "norm1", source.norm1);
        optional(layer, "norm2", source.norm2);
        optional(layer, "W1", source.W1);
        optional(layer, "b1", source.b1);
        optional(layer, "W2", source.W2);
        optional(layer, "b2", source.b2);
        layers.set(l, layer);
    }
    val params = val::object();
    params.set("E", f32(p.E));
    params.set("embedding_scale", double(posenc::train::embedding_scale(result.model)));
    params.set("layers", layers);
    optional(params, "norm", p.norm);
    params.set("Wout", f32(p.Wout));
    params.set("c", f32(p.c));
    val maps = val::array();
    for (std::size_t m = 0; m < result.maps.size(); ++m) {
        const auto& map = result.maps[m];
        val weights = val::array();
        for (std::size_t l = 0; l < map.weights.size(); ++l) weights.set(l, f32(map.weights[l]));
        val item = val::object();
        item.set("length", double(map.length));
        item.set("tokens", i32(std::vector<std::int32_t>(map.example.tokens.begin(), map.example.tokens.end())));
        item.set("targets", i32(std::vector<std::int32_t>(map.example.targets.begin(), map.example.targets.end())));
        item.set("weights", weights);
        maps.set(m, item);
    }
    val out = val::object();
    out.set("loss", f32(result.loss));
    out.set("eval", eval);
    out.set("validation", validation);
    out.set("params", params);
    out.set("maps", maps);
    if (corpus) {
        val samples = val::array();
        for (std::size_t k = 0; k < result.samples.size(); ++k)
            samples.set(k, Record().text("prompt", characters(*corpus, result.samples[k].prompt))
                               .text("generated", characters(*corpus, result.samples[k].generated)).value());
        out.set("samples", samples);
        std::vector<int> all(corpus->characters.size());
        for (std::size_t k = 0; k < all.size(); ++k) all[k] = int(k);
        out.set("characters", characters(*corpus, all));
    }
    return out;
}

/// train(request): the experiment in one call (posenc::train::run), as experiment().
val train(int request_id) {
    return guarded([&] {
        const posenc::train::Request request = posenc::train::parse_request(spec_of(request_id).config);
        return experiment(posenc::train::run<float>(request), request.corpus.get());
    });
}

/// The experiments under way, a few steps at a time (JS trainer(request)), each in a slot with its generation: how many
/// trainers the slot held before. A handle names one trainer for its life: slot + 1 + generation x kSlots (an integer
/// below 2^53), so a freed slot's next trainer has another handle, and a stale one reaches nothing.
struct TrainerSlot {
    std::unique_ptr<posenc::train::Trainer<float>> trainer;
    double generation = 0;
};
std::vector<TrainerSlot> trainers;
/// The most trainers at once (a slot's number stays below it in a handle).
constexpr double kSlots = 1 << 20;

/// The slot of a live trainer's handle. Throws Freed ("handle") for a handle of a trainer since freed or finished,
/// BadParam ("handle") for a number that was never a handle.
std::size_t trainer_slot(const val& handle) {
    const double h = handle.isNumber() ? handle.as<double>() : NAN;
    const bool whole = h >= 1 && h == std::floor(h) && h < 9007199254740992.0;  // so the conversions below are defined
    const std::size_t k = whole ? std::size_t(std::fmod(h - 1, kSlots)) : 0;
    const double generation = whole ? std::floor((h - 1) / kSlots) : 0;
    const bool issued = whole && k < trainers.size() && generation <= trainers[k].generation;
    if (!issued)
        posenc::throw_bad_param("handle", shown(handle),
                                "the handle of an experiment under way (trainerStart's, before trainerFinish)");
    if (generation < trainers[k].generation || !trainers[k].trainer) {
        const std::string allowed = "the handle of an experiment under way (trainerStart's, before trainerFinish or trainerFree)";
        throw Freed("handle", "handle = " + shown(handle) + " is invalid: its trainer was finished or freed; expected " + allowed,
                    shown(handle), allowed);
    }
    return k;
}

/// trainerStart(request): {handle, total, evaluationTotal, stepsPerCall}, an experiment ready to step
/// (posenc::train::Trainer); stepsPerCall: the most steps one trainerStep call takes.
val trainer_start(int request_id) {
    return guarded([&] {
        const Spec& request = spec_of(request_id);
        auto trainer = std::make_unique<posenc::train::Trainer<float>>(posenc::train::parse_request(request.config));
        std::size_t k = 0;
        while (k < trainers.size() && trainers[k].trainer) ++k;
        if (double(k) >= kSlots) posenc::throw_bad_param("request", "a trainer beyond 1048576 at once", "at most 1048576 trainers at once");
        if (k == trainers.size()) trainers.emplace_back();
        else trainers[k].generation += 1;  // a slot used before: the handles of its earlier trainers stay stale
        trainers[k].trainer = std::move(trainer);
        const posenc::train::Trainer<float>& t = *trainers[k].trainer;
        return Record().number("handle", double(k) + 1 + trainers[k].generation * kSlots).number("total", double(t.total()))
            .number("evaluationTotal", double(t.evaluation_total())).number("stepsPerCall", double(t.steps_per_call())).value();
    });
}

/// trainerStep(handle, count): the steps done after up to count more.
val trainer_step(val handle, val count) {
    return guarded([&] {
        const std::int64_t c = integer(count, posenc::args::train_steps);
        return val(double(trainers[trainer_slot(handle)].trainer->step(c)));
    });
}

/// trainerEvaluate(handle, count): the evaluation's units done after up to count more (after the steps).
val trainer_evaluate(val handle, val count) {
    return guarded([&] {
        const std::int64_t c = integer(count, posenc::args::train_steps);
        return val(double(trainers[trainer_slot(handle)].trainer->evaluate(c)));
    });
}

/// trainerFinish(handle): the rest of the steps and the evaluation, as experiment(); frees the trainer. Held to the
/// budget of one call as train() is (Trainer::check_finish: BadParam "steps", the trainer kept).
val trainer_finish(val handle) {
    return guarded([&] {
        const std::size_t k = trainer_slot(handle);
        trainers[k].trainer->check_finish("trainerFinish");
        const std::unique_ptr<posenc::train::Trainer<float>> owned = std::move(trainers[k].trainer);
        return experiment(owned->finish(), owned->request().corpus.get());
    });
}

/// trainerLosses(handle, from): {loss: Float32Array(done - from), validation: [{step, loss}]}: the training loss of the
/// steps after `from` (0 <= from <= done; the steps a caller has not read yet) and every validation point so far, as
/// finish() will return them. Copies only those: cheap to call between chunks.
val trainer_losses(val handle, val from) {
    return guarded([&] {
        const posenc::train::Trainer<float>& t = *trainers[trainer_slot(handle)].trainer;
        const std::vector<double>& loss = t.losses();
        const std::int64_t first = integer(from, posenc::IntArg{"from", 0, std::int64_t(loss.size())});
        const std::vector<double> tail(loss.begin() + std::ptrdiff_t(first), loss.end());
        val validation = val::array();
        for (std::size_t i = 0; i < t.validation().size(); ++i)
            validation.set(i, Record().number("step", double(t.validation()[i].step)).number("loss", t.validation()[i].loss).value());
        return Record().f32("loss", tail).value("validation", validation).value();
    });
}

/// trainerFree(handle): drops an experiment under way (nothing for a handle already finished or freed, stale or never
/// issued: no other trainer).
void trainer_free(val handle) {
    try {
        trainers[trainer_slot(handle)].trainer.reset();
    } catch (const posenc::BadParam&) {
        // not a live trainer's handle: nothing to free
    }
}
#endif  // POSENC_VIEW_MODULE

/// embedTokens(text, dModel, seed): {tokens: string[], data: Float32Array(n * dModel)},
/// the token embeddings the attention head uses (tokenize + token_embedding).
val embed_tokens(val words, val d_model, val seed) {
    return guarded([&] {
        const std::string t = text(words, "text", "a string");
        const std::int64_t width = integer(d_model, posenc::args::model_dim);
        auto embedded = posenc::attention::embed_tokens(t, width, integer(seed, posenc::args::seed));
        return Record().value("tokens", strings(embedded.tokens)).f32("data", embedded.data).value();
    });
}

/// tokenIds(text, vocab): {tokens: string[], ids: Int32Array(tokens.length)}, each token's id among vocab
/// (posenc::attention::token_id: the trained head's reading of a word).
val token_ids(val words, val vocab) {
    return guarded([&] {
        const std::string t = text(words, "text", "a string");
        const std::int64_t v = integer(vocab, posenc::args::vocab);
        const std::vector<std::string> tokens = posenc::attention::tokenize(t);
        std::vector<std::int32_t> ids;
        for (const std::string& token : tokens) ids.push_back(posenc::attention::token_id(token, v));
        return Record().value("tokens", strings(tokens)).i32("ids", ids).value();
    });
}

#ifndef POSENC_VIEW_MODULE  // the page reads web/generated/describe.json; its JS API reads limits()
/// describe(): the families, their keys, rope's scaling types and the limits (posenc::describe).
val describe() {
    return guarded([] { return parsed(posenc::describe()); });
}
#endif  // POSENC_VIEW_MODULE

/// The JS API's own (post.js limits()): describe().limits, {max_table_elements: 16777216, ...}
/// (posenc::limits), in both modules.
val limits() {
    return guarded([] {
        Record out;
        for (const posenc::Limit& l : posenc::limits()) out.number(l.name, double(l.value));
        return out.value();
    });
}

/// version(): "posenc <version> (wasm, SIMD on)" (or off).
std::string version() {
#ifdef __wasm_simd128__
    return "posenc " POSENC_VERSION " (wasm, SIMD on)";
#else
    return "posenc " POSENC_VERSION " (wasm, SIMD off)";
#endif
}

/// setMicroKernels(tile4, tile1, weightedSum4x2, weightedSum1x2, tile6, weightedSum6x2, softmaxRows): installs the
/// micro-kernels at those indices of the module's function table (0: the C++ kernel; the last three: 0 for none) with
/// posenc::kernels::set_micro_kernels. Called by wasm/post.js only (useKernels), with the table slots it filled with
/// wasm/relaxed-kernels.wat's functions; each must have the type of kernels::TileKernel / WeightedSumKernel /
/// SoftmaxKernel (a call_indirect checks it).
void set_micro_kernels(double tile4, double tile1, double weighted_sum_4x2, double weighted_sum_1x2, double tile6,
                       double weighted_sum_6x2, double softmax_rows) {
    // In wasm32 a function pointer is its index in the table.
    using posenc::kernels::TileKernel;
    using posenc::kernels::WeightedSumKernel;
    posenc::kernels::MicroKernels kernels;
    kernels.tile4 = reinterpret_cast<TileKernel>(static_cast<std::uintptr_t>(tile4));
    kernels.tile1 = reinterpret_cast<TileKernel>(static_cast<std::uintptr_t>(tile1));
    kernels.weighted_sum_4x2 = reinterpret_cast<WeightedSumKernel>(static_cast<std::uintptr_t>(weighted_sum_4x2));
    kernels.weighted_sum_1x2 = reinterpret_cast<WeightedSumKernel>(static_cast<std::uintptr_t>(weighted_sum_1x2));
    kernels.tile6 = reinterpret_cast<TileKernel>(static_cast<std::uintptr_t>(tile6));
    kernels.weighted_sum_6x2 = reinterpret_cast<WeightedSumKernel>(static_cast<std::uintptr_t>(weighted_sum_6x2));
    kernels.softmax_rows = reinterpret_cast<posenc::kernels::SoftmaxKernel>(static_cast<std::uintptr_t>(softmax_rows));
    posenc::kernels::set_micro_kernels(kernels);
}

/// heapBytesInUse(): bytes of wasm heap allocated by malloc, a diagnostic for leak tests.
double heap_bytes_in_use() { return double(mallinfo().uordblks); }

}  // namespace

EMSCRIPTEN_BINDINGS(posenc) {
    // Module.posenc_<name>: the functions post.js's API of the same name wraps (it stages the arguments
    // and throws the errors). Plain functions, not a class: embind's class machinery is 3 KB of gzip glue.
    using emscripten::function;
    function("posenc_parseSpec", &parse_spec);
    function("posenc_freeSpec", &free_spec);
    function("posenc_lastError", &get_last_error);
    function("posenc_positionTable", &position_table);
    function("posenc_positionFrequencies", &position_frequencies);
    function("posenc_ropeInvFreq", &rope_inv_freq);
    function("posenc_applyRope", &apply_rope);
    function("posenc_decay", &decay);
#if POSENC_HAS_FAMILY(alibi)
    function("posenc_alibiSlopes", &alibi_slopes);
    function("posenc_alibiBias", &alibi_bias);
#endif
#if POSENC_HAS_FAMILY(t5)
    function("posenc_t5Bucket", &t5_bucket);
#endif
#if POSENC_HAS_FAMILY(deberta)
    function("posenc_debertaRelativePosition", &deberta_relative_position);
#endif
    function("posenc_attentionBias", &attention_bias);
    function("posenc_positionSimilarity", &position_similarity);
    function("posenc_attention", &attention);
#if POSENC_HAS_FAMILY(cope)
    function("posenc_cope", &cope);
#endif
    function("posenc_embedTokens", &embed_tokens);
    function("posenc_tokenIds", &token_ids);  // the trained head's reading: a shipped head draws on the view module
    function("posenc_limits", &limits);
    function("posenc_version", &version);
    function("posenc_heapBytesInUse", &heap_bytes_in_use);
    function("posenc_setMicroKernels", &set_micro_kernels);
#ifndef POSENC_VIEW_MODULE
    // posenc.wasm only: the trainer, the model lab's, attentionForward and describe.
    // Absent from posenc-view.wasm (post.js throws code 'unavailable' for them; the engine then loads posenc.wasm).
    function("posenc_ropeStacks", &rope_stacks);
    function("posenc_attentionTemperature", &attention_temperature);
    function("posenc_mropePairAxes", &mrope_pair_axes);
    function("posenc_mropePositions", &mrope_positions);
    function("posenc_attentionForward", &attention_forward);
    function("posenc_train", &train);
    function("posenc_trainerStart", &trainer_start);
    function("posenc_trainerStep", &trainer_step);
    function("posenc_trainerEvaluate", &trainer_evaluate);
    function("posenc_trainerFinish", &trainer_finish);
    function("posenc_trainerFree", &trainer_free);
    function("posenc_trainerLosses", &trainer_losses);
    function("posenc_describe", &describe);
#endif
}
