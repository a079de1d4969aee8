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
#include "posenc/train_slots.hpp"

#include <nlohmann/json.hpp>

namespace posenc {

// Each listed family's formula (its source file defines it): read here only, so the view module leaves the text out.
#define POSENC_FAMILY(name) \
    namespace name {        \
    const Family& family(); \
    Formula formula();      \
    }
#include "posenc/family_list.hpp"
#undef POSENC_FAMILY

namespace {

/// The formula of `family` (one of families()).
Formula formula_of(const Family& family) {
#define POSENC_FAMILY(name) \
    if (&family == &name::family()) return name::formula();
#include "posenc/family_list.hpp"
#undef POSENC_FAMILY
    return {"", ""};
}


/// describe()'s JSON, keys in the order written.
using Json = nlohmann::ordered_json;

/// A number as format_number writes it: an integer without nlohmann's ".0".
Json number(double x) {
    if (x == std::floor(x) && x >= -0x1p63 && x < 0x1p63) return std::int64_t(x);
    return x;
}

/// A key's default: null, a boolean, a number or a string.
Json value(const Value& v) {
    if (v.is_number()) return number(v.get<double>());
    if (v.is_boolean()) return v.get<bool>();
    if (v.is_string()) return v.get<std::string>();
    return nullptr;
}

/// A list of texts (string_views or C strings) as a JSON array of strings.
template <class List>
Json texts(const List& list) {
    Json out = Json::array();
    for (const auto& s : list) out.push_back(std::string(s));
    return out;
}

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

Json key_json(const Key& k) {
    Json out = {{"name", std::string(k.name)}, {"kind", kind_name(k.kind)}, {"default", value(k.fallback)}};
    if (std::isfinite(k.min)) out[k.exclusive_min ? "exclusive_min" : "min"] = number(k.min);
    if (std::isfinite(k.max)) out["max"] = number(k.max);
    out["allowed"] = k.allowed;
    if (!k.choices.empty()) out["choices"] = texts(k.choices);
    return out;
}

/// A scaling key as key_json writes a family's: {name, kind, default, min, max, allowed}.
Json scaling_key_json(const rope::ScalingKey& k) {
    Json out = {{"name", std::string(k.name)}, {"kind", std::string(k.kind)}};
    if (!k.fallback) out["default"] = nullptr;
    else if (k.kind == "boolean") out["default"] = *k.fallback != 0.0;
    else out["default"] = number(*k.fallback);
    if (k.kind != "boolean") {
        if (std::isfinite(k.lo)) out["min"] = number(k.lo);
        if (std::isfinite(k.hi)) out["max"] = number(k.hi);
    }
    out["allowed"] = std::string(k.allowed);
    return out;
}

}  // namespace

std::vector<Limit> limits() {
    return {
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
        {"max_layers", 1024},  // layers of a model's config (web/src/config/hf-config.js MAX_LAYERS, which its readers check)
    };
}

std::string describe() {
    Json out = {{"version", POSENC_VERSION}};
    Json& limit = out["limits"] = Json::object();
    for (const Limit& l : limits()) limit[l.name] = l.value;

    Json& families_json = out["families"] = Json::array();
    for (const Family* f : families()) {
        Json family = {{"type", std::string(f->type)},           {"acts", acts_name(f->acts)},
                       {"width_key", std::string(f->width_key)}, {"label", std::string(f->label)},
                       {"source", std::string(f->source)},       {"computes", texts(computes(*f))}};
        // Whether the family has position parameters that train() learns (a learned table, or a head's own: the
        // page's trained sets, families/trained.js).
        const train::Training& training = train::training_of(*f);
        family["learns"] = !training.position_key.empty() || training.f.table != nullptr;
        const Formula formula = formula_of(*f);
        family["formula"] = std::string(formula.tex);
        family["formula_note"] = std::string(formula.note);
        Json& keys = family["keys"] = Json::array();
        for (const Key& k : f->keys) keys.push_back(key_json(k));
        families_json.push_back(std::move(family));
    }

    Json& types = out["rope_types"] = Json::array();
    for (const rope::ScalingType& t : rope::scaling_types()) {
        Json type = {{"name", std::string(t.name)}};
        for (const auto* group : {&t.required, &t.optional}) {
            Json& names = type[group == &t.required ? "required" : "optional"] = Json::array();
            for (const rope::ScalingKey& k : *group) names.push_back(std::string(k.name));
        }
        type["unread"] = t.unread;  // accepted and checked, read by no frequency
        Json& all = type["keys"] = Json::array();
        for (const auto* group : {&t.required, &t.optional})
            for (const rope::ScalingKey& k : *group) all.push_back(scaling_key_json(k));
        types.push_back(std::move(type));
    }
    return out.dump(-1, ' ', true, Json::error_handler_t::replace);
}

}  // namespace posenc
