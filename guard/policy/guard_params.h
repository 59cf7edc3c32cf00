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

/// Below this share of one core a run's group counts as idle for --stall-kill.
inline constexpr double kStallCpuShare = 0.01;

/// A pressure threshold held for a while: `--pressure-kill 60/10s`.
struct PressureLimit {
    double percent = 0.0;  ///< memory pressure (PSI full avg10) above this ...
    double seconds = 0.0;  ///< ... for this long
    bool operator==(const PressureLimit&) const = default;
};

struct GuardParams {
    double waitFree = 40.0;  ///< start only when available memory >= this percent
    double killFree = 10.0;  ///< stop when available memory < this percent two samples in a row
    std::int64_t swapBudget = std::int64_t(8) << 30;  ///< allowed swap growth while running
    std::optional<std::int64_t> swapLimit;            ///< absolute swap ceiling, if set
    std::optional<std::int64_t> need;  ///< start only when at least this much is available
    /// `--need forecast`: whoever starts the run sets `need` from the run's forecast first (the
    /// guard itself knows no forecasts); need is then unset.
    bool needForecast = false;
    /// Start only when the machine's memory pressure (PSI full avg10) is at most this percent.
    std::optional<double> pressureWait;
    /// Stop when memory pressure stays above `percent` for `seconds` (systemd-oomd's measure).
    std::optional<PressureLimit> pressureKill;
    /// Stop a run whose group used less than kStallCpuShare of a core and printed nothing (where
    /// its output is seen) for this many seconds: a hung generator.
    std::optional<double> stallKill;
    std::vector<std::string> busy;  ///< POSIX extended regexes over whole command lines
    double quietFor = 60.0;         ///< seconds without a busy process before starting
    double startTimeout = 1800.0;   ///< give up waiting after this many seconds (exit 4)
    double poll = 5.0;              ///< seconds between readings
    double stopGrace = 5.0;         ///< SIGTERM to the group, SIGKILL after this many seconds
    std::string tracePath;          ///< when set, the command's group memory goes to this trace
    double traceInterval = 0.5;     ///< seconds between trace samples
};

/// The guard off, keeping how `p` polls, stops and traces: no admission (no wait, no need, no
/// busy programs) and no budget, so a run is only watched.
GuardParams guardOff(GuardParams p = {});

/// Throws SettingError (a UsageError whose field() is the threshold's key in guardOptions())
/// for a percentage out of 0..100, a zero or negative poll, negative sizes or
/// durations, a zero stall or pressure duration, a bad regex, or a trace interval under 20 ms.
void validate(const GuardParams& p);

/// Valid params that are likely a mistake, in a sentence ("the stop level (50 % free) is at or
/// above the start level ..."); "" when there is nothing to say.
std::string guardWarning(const GuardParams& p);

}  // namespace stageload
