// What each family's own test file says of it, for the checks every family passes (test_families.cpp): where
// it acts, the key that holds its width, and the spec its parse gives for {type} alone, by key name. A family's
// test file adds its facts once, at namespace scope:
//   const bool facts_added = posenc_test::add_family_facts("fox", {Acts::bias, "", [](const Config& c) { ... }});
// so a new family's checks live in its own test file, and test_families.cpp names no family.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "posenc/config.hpp"
#include "posenc/family.hpp"

namespace posenc_test {

struct FamilyFacts {
    posenc::Acts acts;
    std::string width_key;
    /// The fields of parse({type}) by key name: each key with a default, as the family's Spec holds it.
    std::function<std::map<std::string, posenc::Value>(const posenc::Config&)> parsed;
    /// The specs the trainer's checks (test_train.cpp: finite differences, float32 against float64) use for it, JSON,
    /// with its keys set where the defaults would hide a part of its gradient; empty: {type} alone.
    std::vector<std::string> train_specs = {};
};

/// Every family's facts, by spec type.
inline std::map<std::string, FamilyFacts>& family_facts() {
    static std::map<std::string, FamilyFacts> all;
    return all;
}

/// Adds `type`'s facts; true (for a namespace-scope constant that runs it before the tests).
inline bool add_family_facts(const std::string& type, FamilyFacts facts) {
    family_facts()[type] = std::move(facts);
    return true;
}

}  // namespace posenc_test
