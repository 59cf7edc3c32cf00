#include "guard/policy/guard_params.h"

#include <cmath>

#include "guard/core/error.h"
#include "guard/policy/busy_patterns.h"

namespace stageload {
namespace {

void percent(double v, const char* flag) {
    if (!(v >= 0.0 && v <= 100.0))
        throw UsageError(std::string(flag) + " " + std::to_string(v) +
                         ": out of range, expected 0 to 100");
}

void nonNegative(double v, const char* flag) {
    if (!(v >= 0.0) || !std::isfinite(v))
        throw UsageError(std::string(flag) + ": out of range, must not be negative");
}

}  // namespace

void validate(const GuardParams& p) {
    percent(p.waitFree, "--wait-free");
    percent(p.killFree, "--kill-free");
    if (p.swapBudget < 0) throw UsageError("--swap-budget: out of range, must not be negative");
    if (p.swapLimit && *p.swapLimit < 0)
        throw UsageError("--swap-limit: out of range, must not be negative");
    nonNegative(p.quietFor, "--quiet-for");
    nonNegative(p.startTimeout, "--start-timeout");
    nonNegative(p.stopGrace, "stop grace");
    if (!(p.poll > 0.0) || !std::isfinite(p.poll))
        throw UsageError("--poll: a zero poll is refused, use e.g. 5s or 250ms");
    if (!p.tracePath.empty() && !(p.traceInterval >= 0.02))
        throw UsageError("trace interval: out of range, at least 20ms");
    BusyPatterns check(p.busy);  // throws "bad regex"
}

}  // namespace stageload
