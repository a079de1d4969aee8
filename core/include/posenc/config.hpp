// posenc/config.hpp: the JSON spec objects (nlohmann::json) that select and
// configure an encoding, and the reader that validates them.
//
// A spec is what the page sends and what a user pastes from a model's
// config.json: `{type: 'sinusoidal', d_model: 512, base: 10000}`. The wasm
// layer parses its JSON text into a `Config` (parse_json_object); each
// family reads its keys with a `SpecReader`, which checks types and ranges and
// rejects keys the family does not know, listing the accepted ones.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace posenc {

/// Marks code that runs once (a descriptor's construction) or rarely: compiled
/// for size, not speed (clang's minsize), since the .wasm is what a reader
/// downloads. The 13 make_family were 35 KB of code at -O3,
/// 3.5 KB of .wasm gzip.
#if defined(__clang__)
#define POSENC_COLD __attribute__((minsize, cold))
#else
#define POSENC_COLD __attribute__((cold))
#endif

struct Family;
namespace train {
struct Training;  // what a family does in train() (posenc/train_slots.hpp)
}

/// A spec: one JSON object, as nlohmann::json holds it (keys sorted, so that
/// messages and to_json's text do not depend on the order a spec was written in).
/// Its values are null, booleans, numbers (parse_json_object writes every
/// number as a double), strings, lists of numbers, lists of strings (an
/// attention request's tokens) and nested objects (e.g. `rope_scaling`).
using Config = nlohmann::json;

/// One value of a spec (any JSON value).
using Value = nlohmann::json;

/// The value at `key`, or nullptr when `config` is not an object or has no such key.
const Value* find_key(const Config& config, std::string_view key);

/// Text for a number in messages, as JavaScript would print it: integers in
/// full ("5000", "1000000"), others the shortest text that reads back ("0.1",
/// "1e-07"), "NaN", "Infinity".
std::string format_number(double x);

/// Text for a float32 magnitude in messages: the shortest text that reads back
/// as the same float32 ("3e+38", "1e+20", "2.404163e+38"); a number past
/// float32's range with 3 digits ("2e+40").
std::string format_magnitude(double x);

/// A readable rendering of a value for error messages: `7`, `"concat"`, `true`,
/// `[1, 2]` (the first 4 numbers, then `...`), "a list of 3 strings", `{...}`, `null`.
std::string describe(const Value& value);

/// The allowed-values text of messages: one of "a", "b", "c".
std::string one_of(const std::vector<std::string>& choices);

/// A bad input: std::invalid_argument (so `catch (const std::invalid_argument&)`
/// and what() are unchanged) that also carries its parts, so the JS layer sets
/// `error.param`, `error.value` and `error.allowed` without parsing the message:
///   param    a spec key ("d_model", "factor") or a function argument ("n",
///            "seqLen", "x"), without any index ("long_factor[2]" has param "long_factor");
///   value    the value as the message writes it ("7", "\"concat\"", "string",
///            "an array of length 7"; "undefined" for a missing key);
///   allowed  what was expected ("an even integer in [2, 16777216]").
/// (value and allowed are empty only where a message has no single value, as
/// rope's "give rope_parameters or rope_scaling, not both".)
class BadParam : public std::invalid_argument {
public:
    BadParam(std::string param, const std::string& message, std::string value = {}, std::string allowed = {})
        : std::invalid_argument(message), param(std::move(param)), value(std::move(value)), allowed(std::move(allowed)) {}
    std::string param, value, allowed;
};

/// Throws BadParam with the message
/// "<name> = <value> is invalid: expected <allowed>", the format of every
/// bad-input error of posenc (the page finds <name>'s control by .param), and
/// param = name up to its first '[' ("relativePositions[3]" -> "relativePositions").
/// A value over 120 characters is quoted by its first 100 and its length.
[[noreturn]] void throw_bad_param(const std::string& name, const std::string& value,
                                  const std::string& allowed);

/// One key of a family's spec, declared once in the family's source file: the
/// family's parse reads it (SpecReader's one-argument reads take the default,
/// range and allowed text from here) and describe() lists it for the page.
struct Key {
    enum class Kind { integer, number, boolean, choice, list, object, string };

    Key(std::string_view name, Kind kind) : name(name), kind(kind) {}

    std::string_view name;        ///< the config key, e.g. "d_model" (a literal)
    Kind kind = Kind::number;
    Value fallback;               ///< the default; null when there is none (required, or derived from other keys)
    double min = -HUGE_VAL;       ///< the static range; a dependent one (head < n_heads) is checked by parse
    double max = HUGE_VAL;
    bool exclusive_min = false;   ///< min itself is refused: the key is a number > min
    std::string allowed;          ///< the range as messages write it: "an even integer in [2, 16777216]"
    std::vector<std::string_view> choices;  ///< a choice's values, the default first

    /// An integer in [min, max] (no default: std::nullopt); allowed defaults to "an integer in [min, max]".
    static Key integer(std::string_view name, std::optional<std::int64_t> fallback, std::int64_t min, std::int64_t max,
                       std::string allowed = {});
    /// A finite number in [min, max].
    static Key number(std::string_view name, std::optional<double> fallback, double min, double max, std::string allowed);
    /// A finite number > min (and <= max).
    static Key above(std::string_view name, std::optional<double> fallback, double min, std::string allowed,
                     double max = HUGE_VAL);
    /// true or false.
    static Key boolean(std::string_view name, bool fallback);
    /// One of `choices`, the first the default; allowed: one of "a", "b".
    static Key choice(std::string_view name, std::vector<std::string_view> choices);
    /// A list: of numbers in [min, max], or of strings from `choices` (when given);
    /// `fallback` a list Value, or null (no default).
    static Key list(std::string_view name, Value fallback, double min, double max, std::string allowed,
                    std::vector<std::string_view> choices = {});
    /// A nested object (no default).
    static Key object(std::string_view name, std::string allowed);
};

/// "integer", "number", "boolean", "choice", "list", "object", "string".
const char* kind_name(Key::Kind kind);

/// Reads the keys of one spec object, checking each one's type and range.
///
/// The reader is given every key the family accepts; construction throws if the
/// object holds any other ("sinusoidal spec: unknown key "foo"; accepted keys:
/// type, d_model, base, layout, timescales"), and a missing required key names
/// the same list. Other errors are std::invalid_argument naming the key, the
/// value and the allowed range. A JSON null reads as "absent" (Hugging Face
/// configs write `"rope_scaling": null`).
///
/// Reading builds no strings unless something is wrong (a spec is read on every
/// call from JS): keys, choices and `allowed` texts are views, and messages are
/// written only when one is thrown.
class SpecReader {
public:
    /// `what` names the object in messages, e.g. "sinusoidal spec". The texts
    /// of `accepted_keys` must outlive the reader (literals, or strings of a
    /// static table).
    SpecReader(const Config& config, std::string what, std::vector<std::string_view> accepted_keys);
    /// A reader of a family's spec ("<type> spec" in messages): accepts "type"
    /// and the family's keys, whose one-argument reads below take each key's
    /// default, range and allowed text. `family` must outlive the reader.
    SpecReader(const Config& config, const Family& family);

    /// An integer key's value, checked against the key's range (BadParam with
    /// the key's allowed text); its default when absent (a key without one is
    /// required: its absence throws the "missing required key" error).
    std::int64_t integer(std::string_view key) const;
    /// An integer key checked against a range that depends on other keys (a
    /// head in [0, n_heads - 1]); the message writes that range, or `allowed`
    /// when given (a wide range the caller narrows with messages of its own).
    std::int64_t integer(std::string_view key, std::int64_t lo, std::int64_t hi, std::string_view allowed = {}) const;
    /// A number key's value, finite and in the key's range; its default when absent.
    double number(std::string_view key) const;
    /// A number key checked against a range that depends on other keys.
    double number(std::string_view key, double lo, double hi, std::string_view allowed) const;
    /// A boolean key's value; its default when absent.
    bool boolean(std::string_view key) const;
    /// A choice key's value, one of its choices; its default (the first) when absent.
    std::string choice(std::string_view key) const;

    /// A finite number in [lo, hi]; `fallback` when the key is absent.
    /// `allowed` describes the range in messages ("a finite number > 1").
    double number(std::string_view key, double fallback, double lo, double hi, std::string_view allowed) const;
    /// An integer in [lo, hi]; `fallback` when absent. Non-integral numbers
    /// (7.5), NaN and infinities are rejected.
    std::int64_t integer(std::string_view key, std::int64_t fallback, std::int64_t lo, std::int64_t hi) const;
    /// An integer in [lo, hi] that must be present.
    std::int64_t required_integer(std::string_view key, std::int64_t lo, std::int64_t hi) const;
    /// One of `choices`; `fallback` when absent.
    std::string choice(std::string_view key, std::string_view fallback,
                       std::initializer_list<std::string_view> choices) const;
    /// A finite number in [lo, hi], or nothing when absent or null.
    std::optional<double> optional_number(std::string_view key, double lo, double hi, std::string_view allowed) const;
    /// A boolean; `fallback` when absent.
    bool boolean(std::string_view key, bool fallback) const;
    /// A list of finite numbers in [lo, hi], or nothing when absent or null.
    std::optional<std::vector<double>> number_list(std::string_view key, double lo, double hi,
                                                   std::string_view allowed) const;
    /// One factor of a learned tensor's shape: what it is called in messages (a key,
    /// or an expression of keys: "2 max_relative_position + 1") and its size.
    struct Dim {
        std::string_view name;
        std::int64_t size;
    };
    /// A list key that holds a learned tensor row-major (an explicit-parameter key,
    /// as CoPE's pos_emb: a trained model's parameters given back to the spec): its
    /// numbers rounded to float32, each finite and in the key's declared range (`item`
    /// says so in messages: "a number in [-1e4, 1e4]"); empty when absent or null
    /// (the family then draws the tensor from its seed). A list whose length is not the
    /// product of `shape` is refused naming the key, its length and the count:
    /// "pos_emb = a list of 3 numbers is invalid: expected npos_max x head_dim = 2 x 2 = 4 numbers".
    std::vector<float> tensor(std::string_view key, std::string_view item, std::initializer_list<Dim> shape) const;
    /// A list of strings, or nothing when absent or null.
    std::optional<std::vector<std::string>> string_list(std::string_view key) const;
    /// A nested object, or nullptr when absent or null.
    const Config* object(std::string_view key) const;
    /// A string, or nothing when absent or null.
    std::optional<std::string> text(std::string_view key) const;
    /// Throws the "missing required key" error unless the key is present and not null.
    void require(std::string_view key, std::string_view allowed) const;
    /// True when the key is present and not null.
    bool present(std::string_view key) const { return find(key) != nullptr; }

private:
    const Value* find(std::string_view key) const;
    std::string key_list() const;
    /// The declared Key named `key` (std::logic_error when the reader has no table or no such key).
    const Key& declared(std::string_view key) const;
    void check_keys();

    const Config& config_;
    std::string what_;
    std::vector<std::string_view> accepted_;
    const std::vector<Key>* keys_ = nullptr;
};

}  // namespace posenc

namespace posenc {

/// The largest table any function returns: 2^24 elements (64 MiB of float32),
/// so that a slider at its maximum cannot exhaust the browser's memory.
constexpr std::int64_t kMaxTableElements = std::int64_t(1) << 24;

/// The largest position (and position offset, sequence length, T5 distance): 2^40.
constexpr std::int64_t kMaxPosition = std::int64_t(1) << 40;

/// The largest seed: 2^53, the largest integer a JS number holds exactly.
constexpr std::int64_t kMaxSeed = std::int64_t(1) << 53;

/// The longest decay curve: distances 0 .. 1000000.
constexpr std::int64_t kMaxDistance = 1000000;

/// Throws BadParam "<name> = <value> is invalid: expected an integer in [lo, hi]"
/// unless lo <= value <= hi.
void check_integer(const std::string& name, std::int64_t value, std::int64_t lo, std::int64_t hi);

/// An integer argument of a function of the JS API (positionTable's n,
/// ropeInvFreq's seqLen, ...): its name as the JS function names it, and its
/// range, declared once (posenc/args.hpp). The core entry point that takes it
/// checks it; the wasm layer converts a JS number with it.
struct IntArg {
    const char* name;
    std::int64_t lo, hi;
    /// "an integer in [lo, hi]".
    std::string allowed() const;
    /// Returns value; throws BadParam (param `name`) unless lo <= value <= hi.
    std::int64_t check(std::int64_t value) const;
};

/// An input array of the JS API: `length` floats at `data` (read, not kept).
struct Floats {
    const float* data;
    std::size_t length;
};

/// Throws BadParam "<name> = an array of length <length> is invalid: expected
/// <shape> = <count> numbers" unless array.length == count.
void check_length(const std::string& name, const Floats& array, std::int64_t count, const std::string& shape);

/// Checks a `[n, cols]` request: n in [1, kMaxTableElements] and
/// n * cols <= kMaxTableElements. `cols_name` names the width ("d_model").
/// Throws std::invalid_argument in the format of throw_bad_param.
void check_table_shape(std::int64_t n, std::int64_t cols, const std::string& cols_name);

}  // namespace posenc
