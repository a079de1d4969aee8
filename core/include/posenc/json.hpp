// posenc/json.hpp: JSON text in and out of the core. The wasm layer sends a
// spec as JSON.stringify(spec) and parses it once here into a Config; its
// replies quote strings with json_quote. Nothing else in the core reads JSON.
// The parsing and writing are nlohmann/json's (Debian's nlohmann-json3-dev);
// these functions keep posenc's own extension (NaN, Infinity), limits and messages.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "posenc/config.hpp"

namespace posenc {

/// The deepest nesting of objects a spec may have: the spec itself is depth 0,
/// `rope_scaling` depth 1 (JS objects of the old embind layer had the same limit).
constexpr int kMaxJsonDepth = 8;

/// The longest JSON text of one spec or request: 4 MiB (a 2048-token text, a
/// longrope factor list and a pasted config fit many times over). Longer text
/// is refused before a character is parsed, so a huge or deeply nested value of
/// an unknown key (8 levels of 10 keys: 10^8 values) cannot stall the reader.
constexpr std::size_t kMaxJsonBytes = std::size_t(1) << 22;

/// Parses the JSON text of one object into a Config (a nlohmann::json object),
/// as the JS object it was stringified from: every number a double (-0, NaN
/// and the infinities included); strings UTF-8 (every escape, \uXXXX with
/// surrogate pairs); null kept (a SpecReader reads it as absent); arrays only
/// of numbers, or only of strings (an attention request's tokens: the first
/// item decides); nested objects up to kMaxJsonDepth.
/// Duplicate keys: the last one wins, as in JSON.parse. A string must be UTF-8
/// (TextEncoder's output always is); a lone surrogate escape (\ud83d) reads as
/// U+FFFD, as TextEncoder writes it.
/// One extension to JSON: the bare words NaN, Infinity and -Infinity are
/// those numbers. JSON.stringify would write them as null (read as "absent",
/// silently); the JS layer writes them instead, so a non-finite number reaches
/// the family's reader, whose message names the key and its range.
///
/// `what` names the object in messages and paths ("spec", "request"), which
/// are written as in JS: "spec.rope_scaling", "request.tokens[2]".
/// Throws BadParam, param = the innermost key of the path (or `what`), for:
///   - text that is not an object: "spec must be an object such as {type: 'sinusoidal', d_model: 64}";
///   - an array item whose type differs from the first item's (strings) or is
///     not a number: "request.tokens[2] must be a string like the first item, not number"
///     (types named as JS typeof names them, null as "null");
///   - an object nested deeper than kMaxJsonDepth: "spec.a.b.c.d.e.f.g.h.i is nested too deeply";
///   - text longer than kMaxJsonBytes: "spec: a JSON text of 5000000 bytes is too long: expected at most 4194304 bytes";
///   - anything else that is not JSON: "spec: invalid JSON at character 12: expected ':'"
///     (the byte offset where reading stopped, and what was expected there; a
///     string that is not UTF-8: "... at character 8: invalid UTF-8 in a string").
/// Parsed by nlohmann::json's SAX parser over a same-length rewrite of the text
/// (core/src/json.cpp), which maps nlohmann's errors to these messages.
Config parse_json_object(std::string_view text, const std::string& what);

/// `text` (UTF-8) as a JSON string literal, quotes included, in ASCII only:
/// '"', '\' and control characters escaped, every non-ASCII character written
/// as \uXXXX (a surrogate pair above U+FFFF), each byte that is not part of valid
/// UTF-8 as \ufffd. JSON.parse gives back the JS string of the UTF-8 text.
/// Written by nlohmann::json's dump (ensure_ascii). Throws nothing but std::bad_alloc.
std::string json_quote(std::string_view text);

/// About how many bytes of heap `value` holds beyond its own sizeof(Config) (its strings, lists and object nodes,
/// each block with the allocator's few bytes of its own): what a cache of parsed specs counts. A list of numbers
/// holds sizeof(Config) (16 bytes) per number, several times its JSON text.
std::size_t json_heap_bytes(const Config& value);

/// `config` as a JSON object text (ASCII, no spaces) that parse_json_object reads back
/// to the same Config, bit for bit (nlohmann::json's dump): keys in order; an integer
/// without a fraction ("5000"; -0 as "-0.0"; 2^64 or more in exponent form, "1e+20");
/// another number in nlohmann's shortest round-trip form (Grisu2: "0.1", "1e-07",
/// a few in 17 digits where fewer would do); a float32 value (a trained parameter)
/// as the double nearest its 9 significant digits, which reads back as the same
/// float32 (so "0.52975738", or rarely its 17-digit form "0.5297573800000001").
/// Non-finite numbers are written as null; strings as json_quote writes them.
std::string to_json(const Config& config);

}  // namespace posenc
