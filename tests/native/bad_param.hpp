// tests/native/bad_param.hpp: the native tests' one way to catch a posenc::BadParam and read its parts.
#pragma once

#include <catch2/catch.hpp>

#include <functional>

#include "posenc/config.hpp"

/// The BadParam `call` throws (a failed check when it throws none).
inline posenc::BadParam bad_param_of(const std::function<void()>& call) {
    try {
        call();
    } catch (const posenc::BadParam& e) {
        return e;
    }
    FAIL("no BadParam thrown");
    return posenc::BadParam("", "");
}
