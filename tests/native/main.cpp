// Catch2's main, in a translation unit of its own (built once, at -O0).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
