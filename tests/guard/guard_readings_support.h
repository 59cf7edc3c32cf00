#pragma once
// Made-up readings for the guard's decisions, shared by the policy and the panel suites: a
// machine of 100 GiB memory and 64 GiB swap at one moment.
#include <cstdint>
#include <utility>
#include <vector>

#include "guard/policy/guard_policy.h"

namespace stageload::test {

inline constexpr std::int64_t MiB = std::int64_t(1) << 20;
inline constexpr std::int64_t GiB = std::int64_t(1) << 30;

/// The readings at `t` with `availablePct` % of memory available and `swapUsed` bytes of swap.
inline GuardReadings readingsAt(double t, double availablePct, std::int64_t swapUsed = 0,
                                std::vector<ProcessInfo> processes = {}) {
    GuardReadings r;
    r.t = t;
    r.memory.total = 100 * GiB;
    r.memory.available = static_cast<std::int64_t>(availablePct * GiB);
    r.memory.swapTotal = 64 * GiB;
    r.memory.swapFree = 64 * GiB - swapUsed;
    r.processes = std::move(processes);
    return r;
}

}  // namespace stageload::test
