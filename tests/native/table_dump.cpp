// table_dump: writes the float32 bytes of positionTable(spec, n) to stdout, so
// the wasm tests can compare the native build's bytes with the module's.
// Usage: table_dump <type> <key=value>... <n>   (numbers only, e.g. seed=3)
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "posenc/registry.hpp"

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: table_dump <type> [key=value ...] <n>\n");
        return 2;
    }
    try {
        posenc::Config spec{{"type", std::string(argv[1])}};
        for (int k = 2; k < argc - 1; ++k) {
            const std::string pair = argv[k];
            const auto eq = pair.find('=');
            spec.set(pair.substr(0, eq), std::strtod(pair.c_str() + eq + 1, nullptr));
        }
        const auto table = posenc::position_table(spec, std::strtoll(argv[argc - 1], nullptr, 10));
        std::fwrite(table.data(), sizeof(float), table.size(), stdout);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
