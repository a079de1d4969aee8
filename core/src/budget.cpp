#include "posenc/budget.hpp"

#include <cstdio>

#include "posenc/config.hpp"

namespace posenc::budget {
namespace {

/// 8.4e12, 4e8, 1000001: integers below 1e7 in full, others with two significant digits.
std::string short_number(double x) {
    if (x < 1e7 && x == double(std::int64_t(x))) return std::to_string(std::int64_t(x));
    char text[32];
    std::snprintf(text, sizeof text, "%.2g", x);
    std::string out;  // 4e+08 -> 4e8
    for (const char* p = text; *p; ++p) {
        if (*p == '+') continue;
        if (*p == '0' && !out.empty() && (out.back() == 'e' || (out.back() == '-' && out.size() > 1 && out[out.size() - 2] == 'e')))
            continue;
        out += *p;
    }
    return out;
}

std::string product_text(const Factors& factors) {
    std::string out;
    for (const Factor& f : factors) (out += out.empty() ? "" : " x ") += short_number(f.count) + " " + f.unit;
    return out;
}

}  // namespace

double operations(const Factors& factors) {
    double total = 1;
    for (const Factor& f : factors) total *= f.count;
    return total;
}

void check_work(const char* what, const char* param, const std::vector<Factors>& terms, double result_bytes) {
    double total = 0;
    for (const Factors& t : terms) total += operations(t);
    if (total > kMaxOperations) {
        std::string sum;
        for (const Factors& t : terms) (sum += sum.empty() ? "" : " + ") += product_text(t);
        const std::string value = sum + " = " + short_number(total) + " operations";
        const std::string allowed = "at most " + short_number(kMaxOperations) + " operations";
        throw BadParam(param, std::string(what) + " (" + param + "): " + value + " exceeds the limit of " + short_number(kMaxOperations) +
                                  " operations",
                       value, allowed);
    }
    if (result_bytes > kMaxResultBytes) {
        const std::string value = "a result of " + short_number(result_bytes) + " bytes";
        throw BadParam(param, std::string(what) + " (" + param + "): " + value + " exceeds the limit of " +
                                  short_number(kMaxResultBytes) + " bytes (256 MiB)",
                       value, "at most " + short_number(kMaxResultBytes) + " bytes");
    }
}

void check_work(const char* what, const char* param, const Factors& factors, double result_bytes) {
    check_work(what, param, std::vector<Factors>{factors}, result_bytes);
}

}  // namespace posenc::budget
