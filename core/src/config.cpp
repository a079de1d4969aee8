#include "posenc/config.hpp"

#include "posenc/family.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdio>
#include <cstdlib>

namespace posenc {

std::string format_number(double x) {
    if (std::isnan(x)) return "NaN";
    if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
    char buf[40];
    if (x == std::floor(x) && std::abs(x) < 1e21) {  // integers in full, as JavaScript prints them
        std::snprintf(buf, sizeof buf, "%.0f", x);
        return buf;
    }
    for (int precision = 1; precision <= 17; ++precision) {
        std::snprintf(buf, sizeof buf, "%.*g", precision, x);
        if (std::strtod(buf, nullptr) == x) break;
    }
    return buf;
}

std::string format_magnitude(double x) {
    char buf[40];
    if (!(std::abs(x) <= double(std::numeric_limits<float>::max()))) {  // past float32 (or not finite): 3 digits
        if (!std::isfinite(x)) return format_number(x);
        std::snprintf(buf, sizeof buf, "%.3g", x);
        return buf;
    }
    const float f = float(x);
    for (int precision = 1; precision <= 9; ++precision) {
        std::snprintf(buf, sizeof buf, "%.*g", precision, double(f));
        if (std::strtof(buf, nullptr) == f) break;
    }
    return buf;
}

const Value* find_key(const Config& config, std::string_view key) {
    if (!config.is_object()) return nullptr;
    const auto it = config.find(key);
    return it == config.end() ? nullptr : &*it;
}

/// A list whose items are all numbers (an empty list is one), or all strings.
static bool number_list_value(const Value& value) {
    return value.is_array() && std::all_of(value.begin(), value.end(), [](const Value& x) { return x.is_number(); });
}
static bool string_list_value(const Value& value) {
    return value.is_array() && !value.empty() &&
           std::all_of(value.begin(), value.end(), [](const Value& x) { return x.is_string(); });
}

std::string describe(const Value& value) {
    if (value.is_null()) return "null";
    if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
    if (value.is_number()) return format_number(value.get<double>());
    if (value.is_string()) return '"' + value.get_ref<const std::string&>() + '"';
    if (string_list_value(value)) return "a list of " + std::to_string(value.size()) + " strings";
    if (value.is_array()) {
        std::string out = "[";
        for (std::size_t i = 0; i < value.size() && i < 4; ++i) out += (i ? ", " : "") + describe(value[i]);
        return out + (value.size() > 4 ? ", ...]" : "]");
    }
    return "{...}";
}

std::string one_of(const std::vector<std::string>& choices) {
    std::string allowed = "one of";
    for (std::size_t i = 0; i < choices.size(); ++i) allowed += (i ? ", \"" : " \"") + choices[i] + '"';
    return allowed;
}

/// A value as a message quotes it: whole up to 120 characters, else its first
/// 100 and its length (a 5 MB text must not make a 5 MB message).
static std::string shortened(const std::string& value) {
    if (value.size() <= 120) return value;
    std::size_t cut = 100;
    while (cut > 0 && (static_cast<unsigned char>(value[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
    return value.substr(0, cut) + "... (" + std::to_string(value.size()) + " characters)";
}

void throw_bad_param(const std::string& name, const std::string& value, const std::string& allowed) {
    const std::string shown = shortened(value);
    throw BadParam(name.substr(0, name.find('[')), name + " = " + shown + " is invalid: expected " + allowed, shown,
                   allowed);
}

static std::string integer_range(std::int64_t lo, std::int64_t hi) {
    return "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
}

/// An integral double in [lo, hi] (the checks of an integer key).
static bool integer_in(double x, double lo, double hi) {
    return std::isfinite(x) && x == std::floor(x) && x >= lo && x <= hi;
}

Key Key::integer(std::string_view name, std::optional<std::int64_t> fallback, std::int64_t min, std::int64_t max,
                 std::string allowed) {
    Key key(name, Kind::integer);
    if (fallback) key.fallback = double(*fallback);
    key.min = double(min);
    key.max = double(max);
    key.allowed = allowed.empty() ? integer_range(min, max) : std::move(allowed);
    return key;
}

Key Key::number(std::string_view name, std::optional<double> fallback, double min, double max, std::string allowed) {
    Key key(name, Kind::number);
    if (fallback) key.fallback = *fallback;
    key.min = min;
    key.max = max;
    key.allowed = std::move(allowed);
    return key;
}

Key Key::above(std::string_view name, std::optional<double> fallback, double min, std::string allowed, double max) {
    Key key = number(name, fallback, min, max, std::move(allowed));
    key.exclusive_min = true;
    return key;
}

Key Key::boolean(std::string_view name, bool fallback) {
    Key key(name, Kind::boolean);
    key.fallback = fallback;
    key.allowed = "true or false";
    return key;
}

Key Key::choice(std::string_view name, std::vector<std::string_view> choices) {
    Key key(name, Kind::choice);
    key.fallback = std::string(choices.at(0));
    key.allowed = one_of(std::vector<std::string>(choices.begin(), choices.end()));
    key.choices = std::move(choices);
    return key;
}

Key Key::list(std::string_view name, Value fallback, double min, double max, std::string allowed,
               std::vector<std::string_view> choices) {
    Key key(name, Kind::list);
    key.fallback = std::move(fallback);
    key.min = min;
    key.max = max;
    key.allowed = std::move(allowed);
    key.choices = std::move(choices);
    return key;
}

Key Key::object(std::string_view name, std::string allowed) {
    Key key(name, Kind::object);
    key.allowed = std::move(allowed);
    return key;
}

const char* kind_name(Key::Kind kind) {
    switch (kind) {
        case Key::Kind::integer: return "integer";
        case Key::Kind::number: return "number";
        case Key::Kind::boolean: return "boolean";
        case Key::Kind::choice: return "choice";
        case Key::Kind::list: return "list";
        case Key::Kind::object: return "object";
        case Key::Kind::string: return "string";
    }
    return "?";
}

SpecReader::SpecReader(const Config& config, std::string what, std::vector<std::string_view> accepted_keys)
    : config_(config), what_(std::move(what)), accepted_(std::move(accepted_keys)) {
    check_keys();
}

SpecReader::SpecReader(const Config& config, const Family& family)
    : config_(config), what_(family.type + " spec"), keys_(&family.keys) {
    accepted_.reserve(family.keys.size() + 1);
    accepted_.push_back("type");
    for (const Key& key : family.keys) accepted_.push_back(key.name);
    check_keys();
}

void SpecReader::check_keys() {
    if (!config_.is_object()) return;
    for (const auto& entry : config_.items()) {
        const std::string& key = entry.key();
        if (std::find(accepted_.begin(), accepted_.end(), key) == accepted_.end())
            throw BadParam(key, what_ + ": unknown key \"" + key + "\"; accepted keys: " + key_list(),
                           describe(entry.value()), "no key \"" + key + "\" (accepted keys: " + key_list() + ")");
    }
}

std::string SpecReader::key_list() const {
    std::string keys;
    for (const auto& k : accepted_) (keys += keys.empty() ? "" : ", ") += k;
    return keys;
}

const Value* SpecReader::find(std::string_view key) const {
    if (std::find(accepted_.begin(), accepted_.end(), key) == accepted_.end())
        throw std::logic_error(what_ + ": key \"" + std::string(key) + "\" read but not declared");
    const Value* value = find_key(config_, key);
    return value && !value->is_null() ? value : nullptr;
}

static double as_number(std::string_view key, const Value& value, std::string_view allowed) {
    if (!value.is_number()) throw_bad_param(std::string(key), describe(value), std::string(allowed));
    return value.get<double>();
}

double SpecReader::number(std::string_view key, double fallback, double lo, double hi, std::string_view allowed) const {
    const Value* value = find(key);
    if (!value) return fallback;
    const double x = as_number(key, *value, allowed);
    if (!std::isfinite(x) || x < lo || x > hi) throw_bad_param(std::string(key), format_number(x), std::string(allowed));
    return x;
}

std::int64_t SpecReader::integer(std::string_view key, std::int64_t fallback, std::int64_t lo, std::int64_t hi) const {
    const Value* value = find(key);
    if (!value) return fallback;
    if (!value->is_number()) throw_bad_param(std::string(key), describe(*value), integer_range(lo, hi));
    const double x = value->get<double>();
    if (!integer_in(x, double(lo), double(hi))) throw_bad_param(std::string(key), format_number(x), integer_range(lo, hi));
    return static_cast<std::int64_t>(x);
}

void SpecReader::require(std::string_view key, std::string_view allowed) const {
    if (!find(key))
        throw BadParam(std::string(key),
                       what_ + ": missing required key \"" + std::string(key) + "\" (" + std::string(allowed) +
                           "); accepted keys: " + key_list(),
                       "undefined", std::string(allowed));
}

std::int64_t SpecReader::required_integer(std::string_view key, std::int64_t lo, std::int64_t hi) const {
    if (!find(key)) require(key, integer_range(lo, hi));
    return integer(key, 0, lo, hi);
}

std::string SpecReader::choice(std::string_view key, std::string_view fallback,
                               std::initializer_list<std::string_view> choices) const {
    const Value* value = find(key);
    if (!value) return std::string(fallback);
    if (value->is_string()) {
        const std::string& s = value->get_ref<const std::string&>();
        if (std::find(choices.begin(), choices.end(), s) != choices.end()) return s;
    }
    throw_bad_param(std::string(key), describe(*value), one_of(std::vector<std::string>(choices.begin(), choices.end())));
}

std::optional<double> SpecReader::optional_number(std::string_view key, double lo, double hi,
                                                  std::string_view allowed) const {
    if (!find(key)) return std::nullopt;
    return number(key, 0.0, lo, hi, allowed);
}

bool SpecReader::boolean(std::string_view key, bool fallback) const {
    const Value* value = find(key);
    if (!value) return fallback;
    if (value->is_boolean()) return value->get<bool>();
    throw_bad_param(std::string(key), describe(*value), "true or false");
}

std::optional<std::vector<double>> SpecReader::number_list(std::string_view key, double lo, double hi,
                                                           std::string_view allowed) const {
    const Value* value = find(key);
    if (!value) return std::nullopt;
    if (!value->is_array()) throw_bad_param(std::string(key), describe(*value), "a list of " + std::string(allowed));
    std::vector<double> list;
    list.reserve(value->size());
    for (const Value& item : *value) {  // one pass (a learned table is read on every call): types and ranges
        const double* stored = item.get_ptr<const double*>();  // (parse_json_object stores every number as a double)
        if (!stored && !item.is_number()) throw_bad_param(std::string(key), describe(*value), "a list of " + std::string(allowed));
        const double x = stored ? *stored : item.get<double>();
        if (!std::isfinite(x) || x < lo || x > hi)
            throw_bad_param(std::string(key) + "[" + std::to_string(list.size()) + "]", format_number(x), std::string(allowed));
        list.push_back(x);
    }
    return list;
}

std::vector<float> SpecReader::tensor(std::string_view key, std::string_view item, std::initializer_list<Dim> shape) const {
    const Key& k = declared(key);
    const Value* value = find(key);
    if (value && !number_list_value(*value))
        throw_bad_param(std::string(key), describe(*value), "a list of " + k.allowed);  // "a list of numbers in ..., d_head of them"
    const std::optional<std::vector<double>> values = number_list(key, k.min, k.max, item);
    if (!values) return {};
    double expected = 1;
    for (const Dim& dim : shape) expected *= double(dim.size);
    if (double(values->size()) != expected) {
        std::string names, sizes;
        for (const Dim& dim : shape) {
            names += (names.empty() ? "" : " x ") + std::string(dim.name);
            sizes += (sizes.empty() ? "" : " x ") + std::to_string(dim.size);
        }
        throw_bad_param(std::string(key), "a list of " + std::to_string(values->size()) + " numbers",
                        names + " = " + (shape.size() > 1 ? sizes + " = " : "") + format_number(expected) + " numbers");
    }
    return std::vector<float>(values->begin(), values->end());
}

std::optional<std::vector<std::string>> SpecReader::string_list(std::string_view key) const {
    const Value* value = find(key);
    if (!value) return std::nullopt;
    if (string_list_value(*value) || (value->is_array() && value->empty())) return value->get<std::vector<std::string>>();
    throw_bad_param(std::string(key), describe(*value), "a list of strings");
}

std::optional<std::string> SpecReader::text(std::string_view key) const {
    const Value* value = find(key);
    if (!value) return std::nullopt;
    if (value->is_string()) return value->get<std::string>();
    throw_bad_param(std::string(key), describe(*value), "a string");
}

const Config* SpecReader::object(std::string_view key) const {
    const Value* value = find(key);
    if (!value) return nullptr;
    if (!value->is_object()) throw_bad_param(std::string(key), describe(*value), "an object");
    return value;
}

const Key& SpecReader::declared(std::string_view key) const {
    if (keys_)
        for (const Key& k : *keys_)
            if (k.name == key) return k;
    throw std::logic_error(what_ + ": key \"" + std::string(key) + "\" read but not in the family's key table");
}

std::int64_t SpecReader::integer(std::string_view key) const {
    const Key& k = declared(key);
    const Value* value = find(key);
    if (!value) {
        if (k.fallback.is_number()) return k.fallback.get<std::int64_t>();
        require(key, k.allowed);
    }
    if (!value->is_number()) throw_bad_param(std::string(key), describe(*value), k.allowed);
    const double x = value->get<double>();
    if (!integer_in(x, k.min, k.max)) throw_bad_param(std::string(key), format_number(x), k.allowed);
    return static_cast<std::int64_t>(x);
}

std::int64_t SpecReader::integer(std::string_view key, std::int64_t lo, std::int64_t hi, std::string_view allowed) const {
    const Key& k = declared(key);
    const Value* value = find(key);
    if (!value && k.fallback.is_null()) require(key, k.allowed);
    if (allowed.empty() || !value) return integer(key, value ? 0 : k.fallback.get<std::int64_t>(), lo, hi);
    if (!value->is_number()) throw_bad_param(std::string(key), describe(*value), std::string(allowed));
    const double x = value->get<double>();
    if (!integer_in(x, double(lo), double(hi))) throw_bad_param(std::string(key), format_number(x), std::string(allowed));
    return static_cast<std::int64_t>(x);
}

double SpecReader::number(std::string_view key) const {
    const Key& k = declared(key);
    const Value* value = find(key);
    if (!value) {
        if (k.fallback.is_number()) return k.fallback.get<double>();
        require(key, k.allowed);
    }
    const double x = as_number(key, *value, k.allowed);
    if (!std::isfinite(x) || x < k.min || x > k.max || (k.exclusive_min && x == k.min))
        throw_bad_param(std::string(key), format_number(x), k.allowed);
    return x;
}

double SpecReader::number(std::string_view key, double lo, double hi, std::string_view allowed) const {
    const Key& k = declared(key);
    const Value* fallback = find(key) ? nullptr : &k.fallback;
    if (fallback && fallback->is_null()) require(key, k.allowed);
    return number(key, fallback ? fallback->get<double>() : 0.0, lo, hi, allowed);
}

bool SpecReader::boolean(std::string_view key) const {
    return boolean(key, declared(key).fallback.get<bool>());
}

std::string SpecReader::choice(std::string_view key) const {
    const Key& k = declared(key);
    const Value* value = find(key);
    if (!value) return k.fallback.get<std::string>();
    if (value->is_string()) {
        const std::string& s = value->get_ref<const std::string&>();
        if (std::find(k.choices.begin(), k.choices.end(), s) != k.choices.end()) return s;
    }
    throw_bad_param(std::string(key), describe(*value), k.allowed);
}

}  // namespace posenc

namespace posenc {

void check_integer(const std::string& name, std::int64_t value, std::int64_t lo, std::int64_t hi) {
    if (value < lo || value > hi) throw_bad_param(name, std::to_string(value), integer_range(lo, hi));
}

std::string IntArg::allowed() const { return integer_range(lo, hi); }

std::int64_t IntArg::check(std::int64_t value) const {
    check_integer(name, value, lo, hi);
    return value;
}

void check_length(const std::string& name, const Floats& array, std::int64_t count, const std::string& shape) {
    if (array.length != std::size_t(count))
        throw_bad_param(name, "an array of length " + std::to_string(array.length),
                        shape + " = " + std::to_string(count) + " numbers");
}

void check_table_shape(std::int64_t n, std::int64_t cols, const std::string& cols_name) {
    if (n < 1 || n > kMaxTableElements)
        throw_bad_param("n", std::to_string(n),
                        "an integer in [1, " + std::to_string(kMaxTableElements) + "]");
    if (n * cols > kMaxTableElements)
        throw_bad_param("n", std::to_string(n),
                        "n * " + cols_name + " <= " + std::to_string(kMaxTableElements) + " (" +
                            cols_name + " = " + std::to_string(cols) + ", so n <= " +
                            std::to_string(kMaxTableElements / cols) + ")");
}

}  // namespace posenc
