// The families this build holds: families() and train::training_of(), apart from registry.cpp so that a module of
// some of the families compiles only this file of its own. By default every family of posenc/family_list.hpp; a
// posenc-view-<group>.wasm (CMakeLists.txt) defines POSENC_FAMILY_SET, a header of POSENC_FAMILY(name) lines (its
// group's, in family_list.hpp's order), and POSENC_FAMILY_SET_MODULE, its file name; the LTO link then drops the
// other families' code.
#include <stdexcept>
#include <utility>
#include <vector>

#include "posenc/registry.hpp"
#include "posenc/train_slots.hpp"

#ifndef POSENC_FAMILY_SET
#define POSENC_FAMILY_SET "posenc/family_list.hpp"
#endif

namespace posenc {

// Each listed family's two entry points (its header declares them too).
#define POSENC_FAMILY(name)                 \
    namespace name {                        \
    const Family& family();                 \
    const train::Training& training();      \
    }
#include "posenc/family_list.hpp"
#undef POSENC_FAMILY

const std::vector<const Family*>& families() {
    // The set's list, in family_list.hpp's order.
    static const std::vector<const Family*> all = {
#define POSENC_FAMILY(name) &name::family(),
#include POSENC_FAMILY_SET
#undef POSENC_FAMILY
    };
    return all;
}

const train::Training& train::training_of(const Family& family) {
    // Each family's training beside its descriptor: reached from here, not from the descriptor, so that only
    // train.cpp reaches the training code (a module without the trainer, posenc-view.wasm, drops it).
    static const std::vector<std::pair<const Family*, const Training*>> all = {
#define POSENC_FAMILY(name) {&name::family(), &name::training()},
#include POSENC_FAMILY_SET
#undef POSENC_FAMILY
    };
    for (const auto& [f, training] : all)
        if (f == &family) return *training;
    throw std::logic_error("registry: type \"" + family.type + "\" has no training listed");
}

const char* family_set_module() {
#ifdef POSENC_FAMILY_SET_MODULE
    return POSENC_FAMILY_SET_MODULE;
#else
    return nullptr;
#endif
}

}  // namespace posenc
