#include "posenc/json.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace posenc {
namespace {

/// The one nlohmann::json type of posenc (describe.cpp's too: one set of its
/// templates in the .wasm); its objects keep their keys in the order written.
using Json = nlohmann::ordered_json;

// Reading: nlohmann::json's SAX parser does the parsing; three things around it
// keep parse_json_object what it was (see its docstring in posenc/json.hpp):
//   - a rewrite of the text, each change of the same length so positions stay:
//     the words NaN, Infinity, -Infinity and numbers that JSON.parse reads as
//     non-finite or as -0 (nlohmann refuses the first, overflows on the second and
//     reads "-0" as the integer 0) become string literals ("N", "Infini"...)
//     whose values a side table keeps; a lone surrogate escape (\ud83d without
//     its pair, which nlohmann refuses) becomes \ufffd, as TextEncoder writes it;
//     a NUL byte outside strings (nlohmann's end of input) becomes \x01;
//   - a SAX handler that builds the Config, checks the nesting depth and that an
//     array's items have the first item's type, naming each value by its path;
//   - its parse_error, which turns nlohmann's error into posenc's message: the
//     character where the old reader stopped and what it expected there.

/// A number written as a string literal by rewrite(): the `ordinal`-th string
/// literal of the text (keys included), at byte `at`.
struct Sentinel {
    std::size_t ordinal;
    std::size_t at;
    double value;
};

struct Rewritten {
    std::string_view text;          ///< the text nlohmann reads: the original, or `copy` when anything changed
    std::string copy;
    std::vector<Sentinel> numbers;  ///< in text order
};

/// The JSON number at text[i] (-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?): its
/// length, or minus where it stops being one (0 when none starts here).
std::ptrdiff_t number_length(std::string_view text, std::size_t i) {
    const std::size_t start = i;
    const auto digit = [&](std::size_t k) { return k < text.size() && text[k] >= '0' && text[k] <= '9'; };
    const auto digits = [&] {
        const std::size_t from = i;
        while (digit(i)) ++i;
        return i > from;
    };
    if (i < text.size() && text[i] == '-') ++i;
    if (i < text.size() && text[i] == '0') ++i;
    else if (!digits()) return -std::ptrdiff_t(i - start);
    if (i < text.size() && text[i] == '.') {
        ++i;
        if (!digits()) return -std::ptrdiff_t(i - start);
    }
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
        if (!digits()) return -std::ptrdiff_t(i - start);
    }
    return std::ptrdiff_t(i - start);
}

/// The value of the 4 hex digits at text[i], or -1.
long hex4(std::string_view text, std::size_t i) {
    if (i + 4 > text.size()) return -1;
    long code = 0;
    for (std::size_t k = i; k < i + 4; ++k) {
        const char c = text[k];
        const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (digit < 0) return -1;
        code = code * 16 + digit;
    }
    return code;
}

Rewritten rewrite(std::string_view text) {
    Rewritten out{text, {}, {}};
    const auto edit = [&](std::size_t at) -> char& {  // the copy is made at the first change (most texts have none)
        if (out.copy.empty()) out.text = out.copy = std::string(text);
        return out.copy[at];
    };
    std::size_t strings = 0;
    const auto sentinel = [&](std::size_t at, std::size_t length, double value) {
        out.numbers.push_back({strings++, at, value});
        edit(at) = '"';
        for (std::size_t k = at + 1; k + 1 < at + length; ++k) edit(k) = 'N';
        edit(at + length - 1) = '"';
    };
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (c == '"') {  // a string literal: skip it, mending lone surrogates
            ++strings;
            for (++i; i < text.size() && text[i] != '"'; ++i) {
                if (text[i] != '\\') continue;
                if (i + 1 < text.size() && text[i + 1] == 'u') {
                    const long code = hex4(text, i + 2);
                    if (code >= 0xD800 && code <= 0xDBFF && text.substr(i + 6, 2) == "\\u") {
                        const long low = hex4(text, i + 8);
                        if (low >= 0xDC00 && low <= 0xDFFF) {
                            i += 11;
                            continue;
                        }
                    }
                    if (code >= 0xD800 && code <= 0xDFFF)
                        for (std::size_t k = 0; k < 4; ++k) edit(i + 2 + k) = "fffd"[k];
                }
                ++i;  // the escaped character
            }
            ++i;  // the closing quote
            continue;
        }
        if (c == '\0') edit(i) = '\x01';
        const std::string_view rest = text.substr(i);
        if (rest.substr(0, 3) == "NaN") {
            sentinel(i, 3, std::numeric_limits<double>::quiet_NaN());
            i += 3;
        } else if (rest.substr(0, 8) == "Infinity") {
            sentinel(i, 8, std::numeric_limits<double>::infinity());
            i += 8;
        } else if (rest.substr(0, 9) == "-Infinity") {
            sentinel(i, 9, -std::numeric_limits<double>::infinity());
            i += 9;
        } else if (const std::ptrdiff_t length = number_length(text, i); length > 0) {
            // Only "-0...", an exponent or 309 digits and more can be -0 or overflow.
            const std::string_view number = rest.substr(0, std::size_t(length));
            if (number.substr(0, 2) == "-0" || number.find_first_of("eE") != std::string_view::npos || length > 300) {
                const double x = std::strtod(std::string(number).c_str(), nullptr);
                if (!std::isfinite(x) || (x == 0 && std::signbit(x))) sentinel(i, number.size(), x);  // 2 bytes or more
            }
            i += std::size_t(length);
        } else {
            i += std::max<std::size_t>(1, std::size_t(-length));  // a broken number: nlohmann stops where it breaks
        }
    }
    return out;
}

/// The JS typeof name of the value starting with `c` (null as "null"), as the
/// old reader named a value from its first character.
const char* type_of_char(char c) {
    switch (c) {
        case '"': return "string";
        case '{': case '[': return "object";
        case 't': case 'f': return "boolean";
        case 'n': return "null";
        default: return "number";
    }
}

/// Builds the Config of one JSON object from nlohmann's SAX events.
class Reader {
public:
    using json = Json;

    Reader(std::string_view original, const Rewritten& rewritten, const std::string& what)
        : original_(original), rewritten_(rewritten), what_(what) {}

    Config result;

    bool null() { return put(nullptr, "null"); }
    bool boolean(bool b) { return put(b, "boolean"); }
    bool number_integer(json::number_integer_t x) { return put(double(x), "number"); }
    bool number_unsigned(json::number_unsigned_t x) { return put(double(x), "number"); }
    bool number_float(json::number_float_t x, const json::string_t&) { return put(double(x), "number"); }
    bool binary(json::binary_t&) { return false; }  // (JSON text has none)
    bool string(json::string_t& s) {
        if (const Sentinel* number = sentinel()) return put(number->value, "number");
        return put(Value(std::move(s)), "string");
    }
    bool key(json::string_t& s) {
        if (const Sentinel* number = sentinel()) fail(number->at, "expected a key in double quotes");
        stack_.back().key = std::move(s);
        return true;
    }
    bool start_object(std::size_t) {
        if (!stack_.empty()) {
            check_item("object");
            const int depth = int(stack_.size());
            if (depth > kMaxJsonDepth)
                throw BadParam(stack_.back().key,
                               path() + "." + stack_.back().key + " is nested too deeply: expected objects nested at most " +
                                   std::to_string(kMaxJsonDepth) + " deep",
                               "an object nested " + std::to_string(depth) + " deep",
                               "objects nested at most " + std::to_string(kMaxJsonDepth) + " deep");
        }
        stack_.emplace_back();
        stack_.back().value = Value::object();
        return true;
    }
    bool end_object() {
        Frame frame = std::move(stack_.back());
        stack_.pop_back();
        if (stack_.empty()) {
            result = std::move(frame.value);
            done_ = true;
            return true;
        }
        return put(std::move(frame.value), "object");
    }
    bool start_array(std::size_t) {
        check_item("object");
        stack_.emplace_back();
        stack_.back().array = true;
        stack_.back().value = Value::array();
        return true;
    }
    bool end_array() {
        Frame frame = std::move(stack_.back());
        stack_.pop_back();
        return put(std::move(frame.value), "object");
    }

    /// nlohmann stopped at byte `position` (the bytes it read, one more at the
    /// end of the text): throws posenc's message, naming the character where the
    /// hand-written reader this replaces stopped and what it expected there.
    bool parse_error(std::size_t position, const std::string& last_token, const nlohmann::detail::exception& error) {
        const std::string message = error.what();
        const auto after = [&](std::string_view prefix) {
            const std::size_t at = message.find(prefix);
            return at == std::string::npos ? std::string() : message.substr(at + prefix.size());
        };
        const std::string context = after("while parsing ").substr(0, after("while parsing ").find(" - "));
        const std::string lexer = after(" - ").substr(0, after(" - ").find("; last read: "));
        const bool lexer_error = message.find("; last read: ") != std::string::npos;
        const std::size_t read = std::min(position, rewritten_.text.size() + 1);
        std::size_t failed = read - 1;  // the byte that stopped it (the text's size: its end)
        const std::size_t start = token_start(read, last_token, lexer_error, lexer);
        // A reason of its own for a bad string or number (where a value or key was expected).
        std::string own;
        if (lexer_error) {
            if (lexer.find("missing closing quote") != std::string::npos) own = "unterminated string";
            else if (lexer.find("control character") != std::string::npos) own = "control character in a string";
            else if (lexer.find("after backslash") != std::string::npos) own = "unknown escape in a string";
            else if (lexer.find("4 hex digits") != std::string::npos) own = "expected four hex digits after \\u";
            else if (lexer.find("UTF-8") != std::string::npos) own = "invalid UTF-8 in a string";
            else if (lexer.find("invalid string") != std::string::npos) own = lexer;  // (a surrogate: mended by rewrite)
            else if (lexer.find("after '.'") != std::string::npos) own = "expected a digit after '.'";
            else if (lexer.find("exponent") != std::string::npos) own = "expected a digit in the exponent";
        }
        const bool in_string = lexer.find("invalid string") != std::string::npos;
        if (lexer.find("4 hex digits") != std::string::npos) {  // named at the first digit if fewer than 4 remain
            std::size_t digits = failed;
            while (digits > 0 && rewritten_.text[digits - 1] != 'u') --digits;
            if (digits + 4 > rewritten_.text.size()) failed = digits;
        }
        if (done_) fail(start, "unexpected text after the object");
        if (context == "object key") {
            if (in_string) fail(failed, own);
            fail(start, "expected a key in double quotes");
        }
        if (context == "object separator") fail(start, "expected ':'");
        if (context == "object") fail(start, "expected ',' or '}'");
        if (context == "array") fail(start, "expected ',' or ']'");
        // context "value": where a value (or an array item) was expected
        const char first = start < original_.size() ? original_[start] : '\0';
        if (!stack_.empty() && stack_.back().array) {
            check_item(type_of_char(first));
            if (!own.empty()) fail(failed, own);
            fail(start, "expected a number");
        }
        if (!own.empty()) fail(failed, own);
        fail(start, "expected a value");
    }

private:
    struct Frame {
        bool array = false;
        Value value;      ///< the object or array being read
        std::string key;  ///< an object's current key
        bool strings = false;  ///< an array's items are strings (as its first item)
    };

    /// The next string literal's sentinel, if it is one (each call counts a literal).
    const Sentinel* sentinel() {
        const std::size_t ordinal = strings_++;
        if (next_ < rewritten_.numbers.size() && rewritten_.numbers[next_].ordinal == ordinal)
            return &rewritten_.numbers[next_++];
        return nullptr;
    }

    /// The path of the innermost container, as JS writes it: "spec.rope_scaling.long_factor".
    std::string path() const {
        std::string out = what_;
        for (std::size_t k = 0; k + 1 < stack_.size(); ++k) out += "." + stack_[k].key;
        return out;
    }

    /// Inside an array: throws unless `type` is the first item's type (a string
    /// or a number: the first item decides).
    void check_item(const char* type) {
        if (stack_.empty() || !stack_.back().array) return;
        Frame& array = stack_.back();
        const std::size_t items = array.value.size();
        if (items == 0) array.strings = std::string_view(type) == "string";
        const char* expected_type = array.strings ? "string" : "number";
        if (std::string_view(type) == expected_type) return;
        const std::string expected = std::string("a ") + expected_type + " like the first item";
        const std::string& name = stack_[stack_.size() - 2].key;
        throw BadParam(name, path() + "[" + std::to_string(items) + "] must be " + expected + ", not " + type, type,
                       expected);
    }

    bool put(Value value, const char* type) {
        Frame& top = stack_.back();
        if (!top.array) {
            top.value[top.key] = std::move(value);
            return true;
        }
        check_item(type);
        top.value.push_back(std::move(value));
        return true;
    }

    /// Where the token nlohmann stopped at begins. `read` counts the bytes it read
    /// (the end of the text counting as one); `last_token` is the text read since
    /// the last string or number began (a control character written as <U+0009>).
    std::size_t token_start(std::size_t read, const std::string& last_token, bool lexer_error,
                            const std::string& lexer) const {
        const std::string_view text = rewritten_.text;
        const auto back_over_token = [&](std::size_t end) {  // a string or number: last_token is it, escaped
            std::size_t at = end, width = 0;
            while (at > 0 && width < last_token.size()) {
                --at;
                width += static_cast<unsigned char>(text[at]) <= 0x1F ? 8 : 1;
            }
            return at;
        };
        if (lexer_error) {
            if (lexer.find("invalid literal") == std::string::npos) return back_over_token(std::min(read, text.size()));
            // A literal read up to a byte it cannot have (or the end), or a byte no token starts with.
            const std::size_t bad = read - 1;
            for (const std::string_view word : {"false", "true", "null"})
                for (std::size_t k = word.size() - 1; k >= 1; --k)
                    if (bad >= k && text.substr(bad - k, k) == word.substr(0, k)) return bad - k;
            return bad;
        }
        // A whole token nlohmann did not expect, ending at `read`, or the end of the text.
        if (read > text.size()) return text.size();
        const char last = text[read - 1];
        if (last == '"' || (last >= '0' && last <= '9')) return back_over_token(read);
        if (last == 'e') return text.substr(read - 4, 4) == "true" ? read - 4 : read - 5;
        if (last == 'l') return read - 4;
        return read - 1;
    }

    [[noreturn]] void fail(std::size_t at, const std::string& reason) const {
        throw BadParam(what_, what_ + ": invalid JSON at character " + std::to_string(at) + ": " + reason,
                       "invalid JSON at character " + std::to_string(at), reason);
    }

    std::string_view original_;
    const Rewritten& rewritten_;
    const std::string& what_;
    std::vector<Frame> stack_;
    std::size_t strings_ = 0, next_ = 0;
    bool done_ = false;
};

// Writing: nlohmann::json's dump, ASCII only (ensure_ascii), with posenc's
// number forms (see to_json) and its U+FFFD for each byte that is not UTF-8.

/// The code point of the UTF-8 sequence at text[i], advancing i past it;
/// U+FFFD (advancing one byte) for an invalid or overlong sequence.
std::uint32_t next_code_point(std::string_view text, std::size_t& i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = byte(i);
    const int extra = lead >= 0xF5 ? -1 : lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC2 ? 1 : -1;
    if (extra < 0 || i + std::size_t(extra) >= text.size()) {
        ++i;
        return 0xFFFD;
    }
    std::uint32_t code = lead & (0x3F >> extra);
    for (int k = 1; k <= extra; ++k) {
        const unsigned char c = byte(i + std::size_t(k));
        if ((c & 0xC0) != 0x80) {
            ++i;
            return 0xFFFD;
        }
        code = (code << 6) | (c & 0x3F);
    }
    const std::uint32_t least[] = {0, 0x80, 0x800, 0x10000};
    if (code < least[extra] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
        ++i;
        return 0xFFFD;
    }
    i += std::size_t(extra) + 1;
    return code;
}

/// `text` with each byte that is not part of a valid UTF-8 sequence replaced by
/// U+FFFD (nlohmann's error_handler_t::replace writes one U+FFFD for a truncated
/// sequence of several bytes; posenc's replies have written one per byte).
std::string valid_utf8(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        if (static_cast<unsigned char>(text[i]) < 0x80) {
            out += text[i++];
            continue;
        }
        const std::size_t from = i;
        const std::uint32_t code = next_code_point(text, i);
        if (code == 0xFFFD && i == from + 1) out += "\xEF\xBF\xBD";
        else out.append(text.substr(from, i - from));
    }
    return out;
}

/// A number of a Config as to_json writes it (see its docstring).
Json number_json(double x) {
    if (!std::isfinite(x)) return nullptr;
    if (x == std::floor(x)) {  // an integer: without nlohmann's ".0" (but -0 keeps its sign: -0.0)
        if (x == 0 && std::signbit(x)) return x;
        if (x >= -0x1p63 && x < 0x1p63) return std::int64_t(x);
        if (x > 0 && x < 0x1p64) return std::uint64_t(x);
        return x;  // (an integer of 2^64 or more: in exponent form, "1e+20")
    }
    if (double(float(x)) == x) {  // a float32 value: the double nearest its 9 significant digits
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.9g", x);
        return std::strtod(buf, nullptr);
    }
    return x;
}

/// A spec value as to_json writes it: numbers as number_json, strings as valid UTF-8.
Json written(const Value& value) {
    if (value.is_number()) return number_json(value.get<double>());
    if (value.is_string()) return valid_utf8(value.get_ref<const std::string&>());
    if (value.is_array()) {
        Json out = Json::array();
        for (const Value& item : value) out.push_back(written(item));
        return out;
    }
    if (value.is_object()) {
        Json out = Json::object();
        for (const auto& item : value.items()) out[valid_utf8(item.key())] = written(item.value());
        return out;
    }
    return value.is_boolean() ? Json(value.get<bool>()) : Json(nullptr);
}

}  // namespace

Config parse_json_object(std::string_view text, const std::string& what) {
    if (text.size() > kMaxJsonBytes) {
        const std::string value = "a JSON text of " + std::to_string(text.size()) + " bytes";
        const std::string allowed = "at most " + std::to_string(kMaxJsonBytes) + " bytes";
        throw BadParam(what, what + ": " + value + " is too long: expected " + allowed, value, allowed);
    }
    const std::size_t first = text.find_first_not_of(" \t\n\r");
    if (first == std::string_view::npos || text[first] != '{')
        throw BadParam(what, what + " must be an object such as {type: 'sinusoidal', d_model: 64}",
                       type_of_char(first == std::string_view::npos ? '\0' : text[first]),
                       "an object such as {type: 'sinusoidal', d_model: 64}");
    const Rewritten rewritten = rewrite(text);
    Reader reader(text, rewritten, what);
    Json::sax_parse(rewritten.text, &reader);
    return std::move(reader.result);
}

std::string json_quote(std::string_view text) {
    return Json(valid_utf8(text)).dump(-1, ' ', true, Json::error_handler_t::replace);
}

std::string to_json(const Config& config) {
    if (config.is_null()) return "{}";  // a default Config: no keys
    return written(config).dump(-1, ' ', true, Json::error_handler_t::replace);
}

}  // namespace posenc

namespace posenc {

std::size_t json_heap_bytes(const Config& value) {
    constexpr std::size_t kBlock = 2 * sizeof(void*);  // the allocator's own bytes per block (its header, rounding)
    const auto text = [&](const std::string& s) { return s.size() < sizeof(std::string) ? std::size_t(0) : s.capacity() + 1 + kBlock; };
    switch (value.type()) {
        case Config::value_t::object: {
            std::size_t bytes = sizeof(Config::object_t) + kBlock;
            for (const auto& [key, item] : value.get_ref<const Config::object_t&>())  // a tree node: 4 links and its pair
                bytes += 4 * sizeof(void*) + sizeof(std::pair<const std::string, Config>) + kBlock + text(key) + json_heap_bytes(item);
            return bytes;
        }
        case Config::value_t::array: {
            const auto& items = value.get_ref<const Config::array_t&>();
            std::size_t bytes = sizeof(Config::array_t) + items.capacity() * sizeof(Config) + 2 * kBlock;
            for (const Config& item : items) bytes += json_heap_bytes(item);
            return bytes;
        }
        case Config::value_t::string:
            return sizeof(Config::string_t) + kBlock + text(value.get_ref<const Config::string_t&>());
        default:
            return 0;  // null, booleans and numbers live in the value itself
    }
}

}  // namespace posenc
