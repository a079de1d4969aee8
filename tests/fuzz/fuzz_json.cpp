// libFuzzer target (npm run fuzz; CMake preset fuzz, clang only): the JSON
// reader every spec and request arrives through. Any input must either parse
// into a Config or be refused with std::invalid_argument (BadParam); nothing
// else, no crash, no sanitizer finding, and a Config it returns can be read
// again through every family's spec reader.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "posenc/json.hpp"
#include "posenc/registry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const posenc::Config spec = posenc::parse_json_object(text, "spec");
        (void)posenc::family_of(spec);  // a spec type that is known, or BadParam naming "type"
    } catch (const std::invalid_argument&) {
        // refused, with a message: the expected outcome for most inputs
    }
    return 0;
}
