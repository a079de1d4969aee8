// posenc/budget.hpp: the work budget. Every entry point estimates, from its
// arguments and before computing anything, the operations it will do and the
// bytes of its result, and calls check_work, which refuses a request above the
// caps with a message naming the factors ("decay: 1000001 distances x 8388608
// pairs x 12 operations per cosine = 1e14 operations exceeds the limit of
// 3e8 operations"). The caps keep every accepted request within about 2 s in
// the browser on one core (measured: core/README.md, "Limits"); describe() exports them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace posenc::budget {

/// The most operations (inner-loop steps: a multiply-add, a table lookup; a
/// sine, cosine or exp counts kTrig) one call may do.
constexpr double kMaxOperations = 3e8;

/// The largest result of one call: 256 MiB.
constexpr double kMaxResultBytes = double(std::int64_t(1) << 28);

/// What a sine, cosine or exp costs, in operations (measured against a multiply-add).
constexpr double kTrig = 12;

/// What a normal draw (posenc::Random::normal) costs, in operations (measured).
constexpr double kDraw = 32;

/// One factor of an estimate: `count` `unit` ("1000001 distances").
struct Factor {
    double count;
    const char* unit;
};
using Factors = std::vector<Factor>;

/// The product of the counts.
double operations(const Factors& factors);

/// Throws BadParam (param `param`, the main size argument: "maxDistance", "n")
/// unless operations(factors) <= kMaxOperations and result_bytes <= kMaxResultBytes.
/// `what` names the entry point in the message ("decay", "attentionBias").
void check_work(const char* what, const char* param, const Factors& factors, double result_bytes);

/// check_work for a sum of estimates (setup + main loop): refuses when their total is above the cap.
void check_work(const char* what, const char* param, const std::vector<Factors>& terms, double result_bytes);

}  // namespace posenc::budget
