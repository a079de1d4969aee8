// posenc/describe.hpp: the one list of families, keys and limits, as JSON, for
// the page (its controls, ranges and config reader) and the tests. JS: describe().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace posenc {

/// The registry's families, rope's scaling types and the limits the core
/// checks, as JSON text (ASCII; strings quoted by json_quote):
///   {"version": "0.1.0",
///    "limits": {"max_table_elements": 16777216, "max_tokens": 2048, ...},
///    "families": [{"type": "sinusoidal", "acts": "absolute", "width_key": "d_model",
///                  "label": "...", "source": "...",
///                  "computes": ["positionTable", ...]   (the JS functions that accept it),
///                  "keys": [{"name": "d_model", "kind": "integer", "default": 512,
///                            "min": 2, "max": 16777216, "allowed": "..."}, ...]}, ...],
///    "rope_types": [{"name": "yarn", "required": ["factor"], "optional": [...]}, ...]}
/// in the registry's order. A key's "default" is null when it has none (required,
/// or derived from other keys); "min" / "max" are present only when static and
/// finite, "exclusive_min" instead of "min" for a number that must exceed it;
/// a choice has "choices". Throws nothing but std::bad_alloc.
std::string describe();

/// One of the limits the core checks (describe()'s "limits"): its name there and its value.
struct Limit {
    const char* name;
    std::int64_t value;
};

/// describe()'s "limits", in its order, without the rest of describe() (whose families,
/// keys and JSON writing posenc-view.wasm leaves out; its JS API reads these).
std::vector<Limit> limits();

}  // namespace posenc
