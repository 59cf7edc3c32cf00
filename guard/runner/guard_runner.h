#pragma once
// `stageload guard` as a library: waits for room, runs one command in its own process group,
// watches the budget, stops the group, and returns the exit codes below.
//
//   stageload::GuardParams p;                 // thresholds, see guard_params.h
//   p.tracePath = "run.trace.jsonl";          // optional: the group's memory as a trace
//   stageload::Guard guard(p);                // throws UsageError for bad params
//   guard.onLog = [](const stageload::GuardLogEntry& e) { fprintf(stderr, "%s\n",
//   e.line().c_str()); }; int code = guard.run({"python3", "generate.py"});
//
// Exit codes: 3 stopped by the guard (a memory or swap budget), 4 no room within --start-timeout,
// 5 stalled (--stall-kill), 6 memory pressure (--pressure-kill), 127 the command could not start, 128+N the guard got signal N (it stops the command first), 130 cancelled through
// hooks.cancelled, else the command's own code (128+N when signal N ended it).
// The OS boundary is injectable (GuardEnv: memory, process list, clock, sleep) for tests; the
// default reads /proc and sleeps on sigtimedwait. run() blocks SIGTERM/SIGINT/SIGHUP/SIGQUIT/
// SIGCHLD in the calling thread while it runs (see SignalBlock; hooks.hostHandlesTermination
// leaves the first four to the caller's handler), and on Linux makes this process
// adopt the command's orphans so none outlives a stop. Call run() from one thread at a time.
// Throws nothing for command failures (they are exit codes); FileError only when the trace file
// cannot be created.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

#include <nlohmann/json.hpp>

#include "guard/base/event.h"
#include "guard/memory/system_memory.h"
#include "guard/policy/guard_policy.h"
#include "guard/process/group_command.h"
#include "guard/process/process_list.h"

namespace stageload {

inline constexpr int kExitStoppedByGuard = 3;
inline constexpr int kExitNoRoom = 4;
inline constexpr int kExitStalled = 5;          ///< --stall-kill: the command hung
inline constexpr int kExitMemoryPressure = 6;   ///< --pressure-kill: the machine thrashed

/// The exit code of a run the guard stopped for `why`: 3 (a memory or swap budget), 6 (memory
/// pressure), 5 (stalled).
int exitCodeOf(GuardStop why);
inline constexpr int kExitCannotStart = 127;

/// The guard's view of the machine. Empty members fall back to the real thing.
struct GuardEnv {
    std::function<SystemMemory()> memory;
    std::function<std::vector<ProcessInfo>()> processes;
    std::function<double()> now;  ///< monotonic seconds
    /// Waits up to `seconds`; returns a signal number that arrived (0 if none). The default
    /// waits on the guard's blocked signals.
    std::function<int(double)> sleep;
    /// The machine's memory pressure (default: readMemoryPressure()).
    std::function<std::optional<MemoryPressure>()> pressure;
};

class GroupCommand;
class Meter;
struct MemorySample;

/// What a caller that runs a heavy program under the guard (a generator) adds to a plain guarded
/// run: how the command starts, a tick while it runs, the run's meter, and a way to cancel.
/// Every member is optional; all are called on the thread that runs the guard.
struct GuardHooks {
    SpawnOptions spawn;
    double tickInterval = 0.05;  ///< seconds between ticks (and cancel checks) while running
    /// While the command runs, every tickInterval, and once more after it ended (before the
    /// trace is closed). Reads the command's output, follows its trace, ...
    std::function<void()> tick;
    /// The command has started: its pipes are there (spawn.captureOutput).
    std::function<void(const GroupCommand&)> started;
    /// The run's meter (when params.tracePath is set), right after it started.
    std::function<void(Meter&)> meterStarted;
    /// Every sample of the run's meter (the group's memory), on the meter's thread.
    std::function<void(const MemorySample&)> onSample;
    /// Every mark written into the run's trace (the stop mark, the guard's end), as it is written.
    std::function<void(const Event&)> onMark;
    /// While the command runs, judge the readings this often when it is shorter than the poll
    /// (the app: as often as a built-in run's are, so a peak shorter than the poll is caught);
    /// 0: at the poll. Admission keeps the poll (it scans every process's command line).
    double runningPoll = 0.0;
    /// More keys for the run's samples (called on the meter's thread; NaN: no value now).
    std::vector<std::pair<std::string, std::function<double()>>> extraReaders;
    /// Extra keys of the trace's start line.
    nlohmann::json traceMeta = nlohmann::json::object();
    /// True: stop (waiting: give up; running: stop the group) and return kExitCancelled.
    std::function<bool()> cancelled;
    /// Once cancelled: the stop's reason for the trace ("" or unset: the user's "cancelled"; an
    /// interruptedReason() when the program running the guard is being ended).
    std::function<std::string()> cancelReason;
    /// True when the program running the guard handles SIGTERM, SIGINT and SIGHUP itself on
    /// another thread (the app: it cancels through `cancelled` and quits with 128+N). They stay
    /// blocked on the guard's thread, which then never takes one: left to the kernel, a signal
    /// meant for the app could reach the guard, which would stop the run and leave the app
    /// running on, its signal lost.
    bool hostHandlesTermination = false;
    /// True when the command printed something since the previous call (its output is read by
    /// tick): printing counts as activity for --stall-kill.
    std::function<bool()> printed;
};

inline constexpr int kExitCancelled = 130;
/// How often the app judges a run while it runs, built-in (at the meter's samples) or a
/// generator (GuardHooks::runningPoll): a peak shorter than the poll is caught.
inline constexpr double kRunningCheckSeconds = 0.25;

struct GuardLogEntry {
    std::string utc;      ///< "2026-10-05T03:14:39.123Z"
    double t = 0.0;       ///< seconds since the guard started
    std::string what;     ///< "wait", "start", "warn", "stop", "give up", "exit", "signal", "error"
    std::string message;  ///< the decision and its reason
    std::string readings;  ///< the readings behind it ("" when none)

    /// "2026-10-05T03:14:39.123Z guard: stop: swap used ... [available ...]"
    std::string line() const;
};

class Guard {
public:
    explicit Guard(GuardParams params, GuardEnv env = {});

    int run(const std::vector<std::string>& argv);

    std::function<void(const GuardLogEntry&)> onLog;  ///< default: spdlog info
    std::function<void(pid_t pgid)> onStarted;        ///< after the command started
    GuardHooks hooks;
    const GuardPolicy& policy() const { return policy_; }
    /// After run(): "" when its trace (params.tracePath) was written whole, else what was lost.
    const std::string& traceProblem() const { return traceProblem_; }

private:
    void log(const std::string& what, const std::string& message, const std::string& readings);
    GuardReadings read();
    /// Says at start what an option cannot do here (pressure options without PSI).
    void warnUnsupported();

    GuardParams params_;
    GuardEnv env_;
    GuardPolicy policy_;
    double t0_ = 0.0;
    std::string traceProblem_;
    std::optional<double> groupCpu_;  ///< the running command's, at the latest track
    bool printed_ = false;            ///< printed since the latest reading
};

}  // namespace stageload
