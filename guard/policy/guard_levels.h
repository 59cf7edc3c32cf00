#pragma once
// The guard's start and stop levels as a run's trace keeps them, so a chart draws them as lines
// on the available-memory axis, for a live run and for one reopened months later alike.
//
//   mp.meta[kGuardLevelsKey] = guardLevelsMeta(params);     // {"start_free": 40, "stop_free": 10}
//   if (const auto levels = guardLevelsOf(trace.start)) chart.setGuardLevels(*levels);
//
// Pure functions; nothing throws.

#include <nlohmann/json.hpp>
#include <optional>

#include "guard/policy/guard_params.h"

namespace stageload {

/// Percent of the machine's memory available: a run starts only at startFree or more, and is
/// stopped under stopFree. 0: that level is off.
struct GuardLevels {
    double startFree = 0.0;
    double stopFree = 0.0;

    bool any() const { return startFree > 0.0 || stopFree > 0.0; }
    friend bool operator==(const GuardLevels&, const GuardLevels&) = default;
};

/// The key of the trace's start line that holds them.
inline constexpr const char* kGuardLevelsKey = "guard_levels";

/// The levels `p` runs under (its waitFree and killFree).
GuardLevels guardLevels(const GuardParams& p);

/// {"start_free": …, "stop_free": …}.
nlohmann::json guardLevelsMeta(const GuardParams& p);

/// The levels a trace's start line holds; nullopt when it holds none, none is on, or a value is
/// not a percentage (a trace written by hand, or by a program that is not the guard).
std::optional<GuardLevels> guardLevelsOf(const nlohmann::json& start);

}  // namespace stageload
