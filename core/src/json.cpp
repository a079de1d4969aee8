#include "posenc/json.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

namespace posenc {
namespace {

/// Where a value sits, for messages: a chain of keys and indices back to the
/// root, rendered only when something is wrong (parsing builds no strings for it).
struct Path {
    const Path* parent = nullptr;
    std::string_view key;   ///< the key of an object member, or the root's name
    std::int64_t index = -1;  ///< the index of an array item (key empty)

    std::string text() const {
        std::string out = parent ? parent->text() : std::string();
        if (index >= 0) return out + "[" + std::to_string(index) + "]";
        return parent ? out + "." + std::string(key) : std::string(key);
    }
    /// The innermost key: BadParam's param.
    std::string key_name() const {
        for (const Path* p = this; p; p = p->parent)
            if (p->index < 0) return std::string(p->key);
        return {};
    }
};

/// JSON's two-character escapes: \" \\ \/ \b \f \n \r \t and the characters they stand for.
constexpr std::pair<char, char> kEscapes[] = {{'"', '"'}, {'\\', '\\'}, {'/', '/'},  {'b', '\b'},
                                              {'f', '\f'}, {'n', '\n'},   {'r', '\r'}, {'t', '\t'}};

void append_utf8(std::string& out, std::uint32_t code) {
    if (code < 0x80) {
        out += char(code);
    } else if (code < 0x800) {
        out += char(0xC0 | (code >> 6));
        out += char(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
        out += char(0xE0 | (code >> 12));
        out += char(0x80 | ((code >> 6) & 0x3F));
        out += char(0x80 | (code & 0x3F));
    } else {
        out += char(0xF0 | (code >> 18));
        out += char(0x80 | ((code >> 12) & 0x3F));
        out += char(0x80 | ((code >> 6) & 0x3F));
        out += char(0x80 | (code & 0x3F));
    }
}

class Parser {
public:
    Parser(std::string_view text, const std::string& what) : text_(text), what_(what) {}

    Config document() {
        if (text_.size() > kMaxJsonBytes) {
            const std::string value = "a JSON text of " + std::to_string(text_.size()) + " bytes";
            const std::string allowed = "at most " + std::to_string(kMaxJsonBytes) + " bytes";
            throw BadParam(what_, what_ + ": " + value + " is too long: expected " + allowed, value, allowed);
        }
        const Path root{nullptr, what_, -1};
        skip_space();
        if (peek() != '{')
            throw BadParam(what_, what_ + " must be an object such as {type: 'sinusoidal', d_model: 64}", type_here(),
                           "an object such as {type: 'sinusoidal', d_model: 64}");
        Config config = object(root, 0);
        skip_space();
        if (pos_ != text_.size()) fail("unexpected text after the object");
        return config;
    }

private:
    [[noreturn]] void fail(const std::string& reason) const {
        throw BadParam(what_, what_ + ": invalid JSON at character " + std::to_string(pos_) + ": " + reason,
                       "invalid JSON at character " + std::to_string(pos_), reason);
    }

    char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

    void skip_space() {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
            ++pos_;
    }

    void expect(char c) {
        skip_space();
        if (peek() != c) fail(std::string("expected '") + c + "'");
        ++pos_;
    }

    bool literal(std::string_view word) {
        if (text_.substr(pos_, word.size()) != word) return false;
        pos_ += word.size();
        return true;
    }

    Config object(const Path& path, int depth) {
        if (depth > kMaxJsonDepth)
            throw BadParam(path.key_name(),
                           path.text() + " is nested too deeply: expected objects nested at most " +
                               std::to_string(kMaxJsonDepth) + " deep",
                           "an object nested " + std::to_string(depth) + " deep",
                           "objects nested at most " + std::to_string(kMaxJsonDepth) + " deep");
        Config config;
        expect('{');
        skip_space();
        if (peek() == '}') {
            ++pos_;
            return config;
        }
        do {
            skip_space();
            if (peek() != '"') fail("expected a key in double quotes");
            std::string key = string();
            expect(':');
            const Path member{&path, key, -1};
            Value value = this->value(member, depth);
            config.set(key, std::move(value));
        } while (another('}'));
        return config;
    }

    /// After a member or item: true at ',' (another follows), false at `close` (the end).
    bool another(char close) {
        skip_space();
        const char c = peek();
        if (c != ',' && c != close) fail(std::string("expected ',' or '") + close + "'");
        ++pos_;
        return c == ',';
    }

    Value value(const Path& path, int depth) {
        skip_space();
        switch (peek()) {
            case '{': return std::make_shared<const Config>(object(path, depth + 1));
            case '[': return array(path);
            case '"': return string();
            case 't': if (literal("true")) return true; break;
            case 'f': if (literal("false")) return false; break;
            case 'n': if (literal("null")) return std::monostate{}; break;
            default: {
                double x;
                if (number(x)) return x;
            }
        }
        fail("expected a value");
    }

    /// The JS typeof name of the value starting here (null as "null").
    const char* type_here() const {
        switch (peek()) {
            case '"': return "string";
            case '{': case '[': return "object";
            case 't': case 'f': return "boolean";
            case 'n': return "null";
            default: return "number";
        }
    }

    Value array(const Path& path) {
        expect('[');
        skip_space();
        std::vector<double> numbers;
        std::vector<std::string> texts;
        if (peek() == ']') {
            ++pos_;
            return numbers;
        }
        const bool strings = peek() == '"';
        std::int64_t i = 0;
        do {
            skip_space();
            const char* type = type_here();
            if (type != std::string_view(strings ? "string" : "number")) {
                const Path item{&path, {}, i};
                const std::string expected = std::string("a ") + (strings ? "string" : "number") + " like the first item";
                throw BadParam(path.key_name(), item.text() + " must be " + expected + ", not " + type, type, expected);
            }
            if (strings) {
                texts.push_back(string());
            } else {
                double x;
                if (!number(x)) fail("expected a number");
                numbers.push_back(x);
            }
            ++i;
        } while (another(']'));
        if (strings) return texts;
        return numbers;
    }

    /// A JSON number, or NaN / Infinity / -Infinity (see parse_json_object).
    bool number(double& out) {
        if (literal("NaN")) {
            out = std::numeric_limits<double>::quiet_NaN();
            return true;
        }
        if (literal("Infinity")) {
            out = std::numeric_limits<double>::infinity();
            return true;
        }
        if (literal("-Infinity")) {
            out = -std::numeric_limits<double>::infinity();
            return true;
        }
        const std::size_t start = pos_;
        auto digits = [&] {
            const std::size_t from = pos_;
            while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
            return pos_ > from;
        };
        if (peek() == '-') ++pos_;
        if (peek() == '0') ++pos_;
        else if (!digits()) return pos_ = start, false;
        if (peek() == '.') {
            ++pos_;
            if (!digits()) fail("expected a digit after '.'");
        }
        if (peek() == 'e' || peek() == 'E') {
            ++pos_;
            if (peek() == '+' || peek() == '-') ++pos_;
            if (!digits()) fail("expected a digit in the exponent");
        }
        // strtod needs a terminated string; numbers are short.
        char buffer[64];
        const std::size_t length = pos_ - start;
        if (length >= sizeof buffer) {
            const std::string copy(text_.substr(start, length));
            out = std::strtod(copy.c_str(), nullptr);
        } else {
            text_.copy(buffer, length, start);
            buffer[length] = '\0';
            out = std::strtod(buffer, nullptr);
        }
        return true;
    }

    std::uint32_t hex4() {
        if (pos_ + 4 > text_.size()) fail("expected four hex digits after \\u");
        std::uint32_t code = 0;
        for (int k = 0; k < 4; ++k) {
            const char c = text_[pos_++];
            code <<= 4;
            if (c >= '0' && c <= '9') code |= std::uint32_t(c - '0');
            else if (c >= 'a' && c <= 'f') code |= std::uint32_t(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') code |= std::uint32_t(c - 'A' + 10);
            else --pos_, fail("expected four hex digits after \\u");
        }
        return code;
    }

    /// A string literal (at its opening quote), as UTF-8. A lone surrogate
    /// becomes U+FFFD, as TextEncoder writes it.
    std::string string() {
        ++pos_;  // the opening quote
        std::string out;
        for (;;) {
            if (pos_ >= text_.size()) fail("unterminated string");
            const char c = text_[pos_++];
            if (c == '"') return out;
            if (static_cast<unsigned char>(c) < 0x20) --pos_, fail("control character in a string");
            if (c != '\\') {
                out += c;
                continue;
            }
            const char e = peek();
            ++pos_;
            const auto* escape = std::find_if(std::begin(kEscapes), std::end(kEscapes), [e](auto p) { return p.first == e; });
            if (escape != std::end(kEscapes)) {
                out += escape->second;
                continue;
            }
            switch (e) {
                case 'u': {
                    std::uint32_t code = hex4();
                    if (code >= 0xD800 && code <= 0xDBFF && text_.substr(pos_, 2) == "\\u") {
                        const std::size_t save = pos_;
                        pos_ += 2;
                        const std::uint32_t low = hex4();
                        if (low >= 0xDC00 && low <= 0xDFFF) code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                        else pos_ = save;  // a lone high surrogate; the next escape stands alone
                    }
                    if (code >= 0xD800 && code <= 0xDFFF) code = 0xFFFD;
                    append_utf8(out, code);
                    break;
                }
                default: --pos_, fail("unknown escape in a string");
            }
        }
    }

    std::string_view text_;
    const std::string& what_;
    std::size_t pos_ = 0;
};

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

void append_escape(std::string& out, std::uint32_t unit) {
    static const char digits[] = "0123456789abcdef";
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) out += digits[(unit >> shift) & 0xF];
}

}  // namespace

Config parse_json_object(std::string_view text, const std::string& what) { return Parser(text, what).document(); }

void append_json_quoted(std::string& out, std::string_view text) {
    out += '"';
    for (std::size_t i = 0; i < text.size();) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {  // most characters: as they are
            std::size_t end = i + 1;
            while (end < text.size() && static_cast<unsigned char>(text[end]) >= 0x20 &&
                   static_cast<unsigned char>(text[end]) < 0x80 && text[end] != '"' && text[end] != '\\')
                ++end;
            out.append(text.substr(i, end - i));
            i = end;
            continue;
        }
        if (c >= 0x80) {
            const std::uint32_t code = next_code_point(text, i);
            if (code >= 0x10000) {
                append_escape(out, 0xD800 + ((code - 0x10000) >> 10));
                append_escape(out, 0xDC00 + ((code - 0x10000) & 0x3FF));
            } else {
                append_escape(out, code);
            }
            continue;
        }
        ++i;
        // (a '/' needs no escape)
        const auto* escape = std::find_if(std::begin(kEscapes), std::end(kEscapes),
                                          [c](auto p) { return p.second == char(c) && p.first != '/'; });
        if (escape != std::end(kEscapes)) {
            out += '\\';
            out += escape->first;
        } else if (c < 0x20) {
            append_escape(out, c);
        } else {
            out += char(c);
        }
    }
    out += '"';
}

std::string json_quote(std::string_view text) {
    std::string out;
    append_json_quoted(out, text);
    return out;
}

namespace {

void append_number(std::string& out, double x) {
    if (!std::isfinite(x)) {
        out += "null";
        return;
    }
    if (double(float(x)) == x && x != std::floor(x)) {  // a float32 value: 9 digits name it (one snprintf, not a search)
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.9g", x);
        out += buf;
        return;
    }
    out += format_number(x);
}

void append_config(std::string& out, const Config& config) {
    out += '{';
    bool first = true;
    for (const auto& [key, value] : config.entries()) {
        if (!first) out += ',';
        first = false;
        append_json_quoted(out, key);
        out += ':';
        if (std::holds_alternative<std::monostate>(value)) out += "null";
        else if (const bool* b = std::get_if<bool>(&value)) out += *b ? "true" : "false";
        else if (const double* x = std::get_if<double>(&value)) append_number(out, *x);
        else if (const std::string* s = std::get_if<std::string>(&value)) append_json_quoted(out, *s);
        else if (const auto* list = std::get_if<std::vector<double>>(&value)) {
            out += '[';
            for (std::size_t i = 0; i < list->size(); ++i) {
                if (i) out += ',';
                append_number(out, (*list)[i]);
            }
            out += ']';
        } else if (const auto* texts = std::get_if<std::vector<std::string>>(&value)) {
            out += '[';
            for (std::size_t i = 0; i < texts->size(); ++i) {
                if (i) out += ',';
                append_json_quoted(out, (*texts)[i]);
            }
            out += ']';
        } else append_config(out, *std::get<std::shared_ptr<const Config>>(value));
    }
    out += '}';
}

}  // namespace

std::string to_json(const Config& config) {
    std::string out;
    append_config(out, config);
    return out;
}

}  // namespace posenc
