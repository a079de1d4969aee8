#include "posenc/describe.hpp"

#include <cmath>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "posenc/alibi.hpp"
#include "posenc/attention.hpp"
#include "posenc/bias.hpp"
#include "posenc/budget.hpp"
#include "posenc/json.hpp"
#include "posenc/registry.hpp"
#include "posenc/rope.hpp"
#include "posenc/t5.hpp"

namespace posenc {
namespace {

/// A JSON writer for describe's few shapes: objects and lists of strings, numbers, booleans.
class Writer {
public:
    Writer& open(const char* key, char bracket) {
        name(key);
        out_ += bracket;
        first_ = true;
        return *this;
    }
    Writer& close(char bracket) {
        out_ += bracket;
        first_ = false;
        return *this;
    }
    Writer& text(const char* key, std::string_view s) {
        name(key);
        append_json_quoted(out_, s);
        return *this;
    }
    Writer& number(const char* key, double x) {
        name(key);
        out_ += format_number(x);  // finite here: integers in full, others the shortest text that reads back
        return *this;
    }
    Writer& value(const char* key, const Value& v) {
        if (const double* x = std::get_if<double>(&v)) return number(key, *x);
        if (const bool* b = std::get_if<bool>(&v)) return raw(key, *b ? "true" : "false");
        if (const auto* s = std::get_if<std::string>(&v)) return text(key, *s);
        return raw(key, "null");
    }
    template <class List>
    Writer& texts(const char* key, const List& list) {
        open(key, '[');
        for (const auto& s : list) text(nullptr, s);
        return close(']');
    }
    std::string take() { return std::move(out_); }

private:
    Writer& raw(const char* key, const char* json) {
        name(key);
        out_ += json;
        return *this;
    }
    void name(const char* key) {
        if (!first_) out_ += ',';
        first_ = false;
        if (key) {
            append_json_quoted(out_, key);
            out_ += ':';
        }
    }

    std::string out_;
    bool first_ = true;
};

/// The JS functions of the module that accept a spec of this family.
std::vector<const char*> computes(const Family& f) {
    std::vector<const char*> out;
    if (f.table) out.insert(out.end(), {"positionTable", "positionSimilarity"});
    if (f.frequencies) out.push_back("positionFrequencies");
    if (f.rotary) out.push_back("ropeInvFreq");
    if (f.rotate) out.push_back("applyRope");
    if (f.decay) out.push_back("decay");
    if (f.bias) out.push_back("attentionBias");
    out.push_back("attention");
    if (f.acts != Acts::absolute) out.push_back("attentionForward");  // an absolute encoding belongs to x
    return out;
}

void write_key(Writer& w, const Key& k) {
    w.open(nullptr, '{').text("name", k.name).text("kind", kind_name(k.kind)).value("default", k.fallback);
    if (std::isfinite(k.min)) w.number(k.exclusive_min ? "exclusive_min" : "min", k.min);
    if (std::isfinite(k.max)) w.number("max", k.max);
    w.text("allowed", k.allowed);
    if (!k.choices.empty()) w.texts("choices", k.choices);
    w.close('}');
}

/// A scaling key as write_key writes a family's: {name, kind, default, min, max, allowed}.
void write_scaling_key(Writer& w, const rope::ScalingKey& k) {
    w.open(nullptr, '{').text("name", k.name).text("kind", k.kind);
    if (!k.fallback) w.value("default", Value{});
    else if (k.kind == "boolean") w.value("default", Value{*k.fallback != 0.0});
    else w.number("default", *k.fallback);
    if (k.kind != "boolean") {
        if (std::isfinite(k.lo)) w.number("min", k.lo);
        if (std::isfinite(k.hi)) w.number("max", k.hi);
    }
    w.text("allowed", k.allowed).close('}');
}

}  // namespace

std::string describe() {
    Writer w;
    w.open(nullptr, '{').text("version", POSENC_VERSION);
    const std::pair<const char*, std::int64_t> limits[] = {
        {"max_table_elements", kMaxTableElements},                // n * width of any table
        {"max_tokens", attention::kMaxTokens},                    // attention(): tokens
        {"max_forward_tokens", attention::kMaxForwardTokens},     // attentionForward(): n
        {"max_forward_head_dim", attention::kMaxForwardHeadDim},  // attentionForward(): d_head
        {"max_model_dim", attention::kMaxModelDim},               // d_model, d_head of attention(), embedTokens()
        {"max_distance", kMaxDistance},                           // decay(): maxDistance
        {"max_matrix_n", bias::kMaxN},                            // attentionBias, alibiBias, positionSimilarity: n
        {"max_position", kMaxPosition},                           // positions, offsets, seqLen, T5 distances
        {"max_seed", kMaxSeed},
        {"max_heads", alibi::kMaxHeads},
        {"max_buckets", t5::kMaxBuckets},
        {"max_operations", std::int64_t(budget::kMaxOperations)},    // every call: estimated operations (budget.hpp)
        {"max_result_bytes", std::int64_t(budget::kMaxResultBytes)},  // every call: bytes of the result
        {"max_json_bytes", std::int64_t(kMaxJsonBytes)},              // the JSON text of a spec or request
        {"max_json_depth", kMaxJsonDepth},
    };
    w.open("limits", '{');
    for (const auto& [name, value] : limits) w.number(name, double(value));
    w.close('}');

    w.open("families", '[');
    for (const Family* f : families()) {
        w.open(nullptr, '{')
            .text("type", f->type)
            .text("acts", acts_name(f->acts))
            .text("width_key", f->width_key)
            .text("label", f->label)
            .text("source", f->source)
            .texts("computes", computes(*f));
        w.open("keys", '[');
        for (const Key& k : f->keys) write_key(w, k);
        w.close(']').close('}');
    }
    w.close(']');

    w.open("rope_types", '[');
    for (const rope::ScalingType& t : rope::scaling_types()) {
        w.open(nullptr, '{').text("name", t.name);
        for (const auto* group : {&t.required, &t.optional}) {
            w.open(group == &t.required ? "required" : "optional", '[');
            for (const rope::ScalingKey& k : *group) w.text(nullptr, k.name);
            w.close(']');
        }
        w.open("keys", '[');
        for (const auto* group : {&t.required, &t.optional})
            for (const rope::ScalingKey& k : *group) write_scaling_key(w, k);
        w.close(']').close('}');
    }
    w.close(']');
    return w.close('}').take();
}

}  // namespace posenc
