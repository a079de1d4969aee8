// Reading a rotary spec: the top-level keys and the scaling block of either
// config generation (transformers v4 `rope_scaling`, v5 `rope_parameters`),
// with v5's precedence rules (rope.hpp, parse). The keys of each rope_type are
// read by its validator (rope_scaling.cpp).
#include <cmath>
#include <string_view>

#include "posenc/rope.hpp"
#include "posenc/family.hpp"
#include "posenc/rope_scaling.hpp"

namespace posenc::rope {
namespace {

/// "default, linear, ..., longrope": the known types as the missing-rope_type message lists them.
std::string type_list() {
    std::string out;
    for (const std::string& name : rope_types()) (out += out.empty() ? "" : ", ") += name;
    return out;
}

/// The scaling block (v4 rope_scaling, or v5 rope_parameters whose rope_theta
/// the caller has read). `block` may be null: no scaling.
Scaling parse_scaling(const Config* block, const std::string& block_name, bool v5, std::int64_t half,
                      std::int64_t max_position_embeddings, std::optional<std::int64_t> top_level_original) {
    Scaling out;
    std::string type = "default";
    if (block) {
        const bool has_rope_type = block->contains("rope_type"), has_type = block->contains("type");
        const Value* name = has_rope_type ? &block->at("rope_type") : has_type ? &block->at("type") : nullptr;
        if (!name && !v5)
            throw BadParam("rope_type", block_name + ": missing required key \"rope_type\" (one of " + type_list() + ")");
        if (name) {
            if (!name->is_string()) throw_bad_param("rope_type", describe(*name), "a string such as \"yarn\"");
            type = name->get<std::string>();
        }
    }
    const ScalingType& scaling = scaling_type(type);
    out.rope_type = scaling.name;
    out.original_max_position_embeddings = max_position_embeddings;
    if (!block) {
        if (top_level_original) out.original_max_position_embeddings = *top_level_original;
        return out;
    }

    std::vector<std::string_view> keys = {"rope_type", "type"};
    if (v5) keys.insert(keys.end(), {"rope_theta", "partial_rotary_factor"});
    for (const auto* group : {&scaling.required, &scaling.optional})
        for (const ScalingKey& key : *group) keys.push_back(key.name);
    const SpecReader read(*block, block_name + " (rope_type \"" + type + "\")", std::move(keys));
    read_scaling(scaling, read, half, out);
    if (top_level_original) out.original_max_position_embeddings = *top_level_original;  // v5's priority
    return out;
}

/// One number of a nested block, checked like a top-level key.
double block_number(const Config& block, const std::string& key, double fallback, double lo, double hi,
                    const std::string& allowed) {
    if (!block.contains(key)) return fallback;
    const Config one{{key, block.at(key)}};
    return SpecReader(one, "rope_parameters", {key}).number(key, fallback, lo, hi, allowed);
}

/// The rope_type a scaling block names (its "rope_type", else the legacy "type"),
/// or "" when there is none or it is not a string (parse_scaling says so).
std::string scaling_name(const Config* block) {
    if (!block) return "";
    for (const char* key : {"rope_type", "type"})
        if (const Value* name = find_key(*block, key)) return name->is_string() ? name->get<std::string>() : "";
    return "";
}

void check_half_even(const std::string& name, std::int64_t value) {
    if (value < 2 || value % 2 != 0) throw_bad_param(name, std::to_string(value), "an even integer >= 2");
}

}  // namespace

Spec parse(const Config& config) {
    const SpecReader read(config, family());  // the keys, defaults and ranges of rope.cpp's descriptor
    Spec spec;
    spec.head_dim = read.integer("head_dim");
    check_half_even("head_dim", spec.head_dim);
    spec.layout = read.choice("layout") == "interleaved" ? Layout::interleaved : Layout::half;
    spec.max_position_embeddings = read.integer("max_position_embeddings");

    std::int64_t rotated_pairs = 0;
    const Config* v4 = read.object("rope_scaling");
    const Config* v5 = read.object("rope_parameters");
    if (v4 && v5)
        throw BadParam("rope_scaling", "rope spec: give rope_parameters (transformers v5) or rope_scaling (v4), not both");

    // The rotated width: rotary_dim (GPT-J), else partial_rotary_factor from the
    // top level, else from rope_parameters (v5), else 1.
    if (read.present("partial_rotary_factor") && read.present("rotary_dim"))
        throw BadParam("rotary_dim", "rope spec: give partial_rotary_factor or rotary_dim, not both");
    // Proportional RoPE keeps every pair and gives the non-rotating ones frequency 0
    // (transformers' _compute_proportional_rope_parameters): the factor counts pairs.
    const bool proportional = scaling_name(v5 ? v5 : v4) == "proportional";
    if (read.present("rotary_dim")) {
        if (proportional)
            throw BadParam("rotary_dim", "rope spec: rope_type \"proportional\" rotates a share of head_dim's pairs; "
                           "give partial_rotary_factor, not rotary_dim", "rotary_dim", "partial_rotary_factor instead");
        spec.rotary_dim = read.integer("rotary_dim", 2, spec.head_dim);
        check_half_even("rotary_dim", spec.rotary_dim);
    } else {
        const char* const allowed = "a number in (0, 1]";
        double prf = v5 ? block_number(*v5, "partial_rotary_factor", 1.0, 0x1p-1022, 1.0, allowed) : 1.0;
        prf = read.number("partial_rotary_factor", prf, 0x1p-1022, 1.0, allowed);
        if (proportional) {
            // rope_angles = int(partial_rotary_factor * head_dim // 2) in the reference.
            spec.rotary_dim = spec.head_dim;
            rotated_pairs = std::int64_t(std::floor(prf * double(spec.head_dim) / 2.0));
            if (rotated_pairs < 1)
                throw_bad_param("partial_rotary_factor", format_number(prf),
                                "a number in (0, 1] with head_dim * partial_rotary_factor >= 2 (at least one pair turns)");
        } else {
            spec.rotary_dim = std::int64_t(double(spec.head_dim) * prf) / 2 * 2;
            if (spec.rotary_dim < 2)
                throw_bad_param("partial_rotary_factor", format_number(prf),
                                "a number in (0, 1] with head_dim * partial_rotary_factor >= 2");
        }
    }

    // rope_theta: rope_parameters' own, else the top level's (v5's setdefault), else 10000.
    // The slowest pair's wavelength is about 2 pi rope_theta tokens, handed to JS as float32 (at most 3.4e38).
    const char* const theta_allowed = "a finite number > 1 and <= 1e37";
    spec.rope_theta = read.number("rope_theta", spec.rope_theta, -HUGE_VAL, HUGE_VAL, theta_allowed);
    if (v5) spec.rope_theta = block_number(*v5, "rope_theta", spec.rope_theta, -HUGE_VAL, HUGE_VAL, theta_allowed);
    if (!(spec.rope_theta > 1.0) || spec.rope_theta > 1e37) throw_bad_param("rope_theta", format_number(spec.rope_theta), theta_allowed);

    std::optional<std::int64_t> top_original;
    if (read.present("original_max_position_embeddings"))
        top_original = read.integer("original_max_position_embeddings");
    spec.scaling = parse_scaling(v5 ? v5 : v4, v5 ? "rope_parameters" : "rope_scaling", v5 != nullptr,
                                 spec.rotary_dim / 2, spec.max_position_embeddings, top_original);
    spec.scaling.rotated_pairs = proportional ? rotated_pairs : spec.rotary_dim / 2;
    return spec;
}

}  // namespace posenc::rope
