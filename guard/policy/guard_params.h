#pragma once
// The guard's thresholds, with the CLI's defaults.
//
//   stageload::GuardParams p;              // --wait-free 40 --kill-free 10 --swap-budget 8G ...
//   p.busy = {"ffmpeg", "python .*train"};
//   p.swapLimit = stageload::parseSize("16G");
//   stageload::validate(p);                // throws UsageError saying what is wrong
//
// Plain data; validate() is pure and thread-safe.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stageload {

struct GuardParams {
    double waitFree = 40.0;  ///< start only when available memory >= this percent
    double killFree = 10.0;  ///< stop when available memory < this percent two samples in a row
    std::int64_t swapBudget = std::int64_t(8) << 30;  ///< allowed swap growth while running
    std::optional<std::int64_t> swapLimit;            ///< absolute swap ceiling, if set
    std::optional<std::int64_t> need;  ///< start only when at least this much is available
    std::vector<std::string> busy;  ///< POSIX extended regexes over whole command lines
    double quietFor = 60.0;         ///< seconds without a busy process before starting
    double startTimeout = 1800.0;   ///< give up waiting after this many seconds (exit 4)
    double poll = 5.0;              ///< seconds between readings
    double stopGrace = 5.0;         ///< SIGTERM to the group, SIGKILL after this many seconds
    std::string tracePath;          ///< when set, the command's group memory goes to this trace
    double traceInterval = 0.5;     ///< seconds between trace samples
};

/// Throws SettingError (a UsageError whose field() is the threshold's key in guardOptions())
/// for a percentage out of 0..100, a zero or negative poll, negative sizes or
/// durations, a bad regex, or a trace interval under 20 ms.
void validate(const GuardParams& p);

/// Valid params that are likely a mistake, in a sentence ("the stop level (50 % free) is at or
/// above the start level ..."); "" when there is nothing to say.
std::string guardWarning(const GuardParams& p);

}  // namespace stageload
