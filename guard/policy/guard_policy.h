#pragma once
// The guard's decisions as a pure object: readings in, decision out. The CLI's runner
// and the app's in-process runs use the same policy; the app shows state() and reason() live.
//
//   stageload::GuardPolicy policy(params, stageload::selfAndAncestors(stageload::listProcesses()));
//   for (;;) {                                        // waiting
//       auto d = policy.admit({clock.now(), readSystemMemory(), listProcesses()});
//       if (d.changed) log(d.reason, d.readings);
//       if (d.action == GuardAction::Start) break;
//       if (d.action == GuardAction::GiveUp) return 4;
//       sleep(params.poll);
//   }
//   policy.started(readings);                        // remembers swap at start
//   auto d = policy.check(readings);                 // every poll: Continue or Stop
//
// Admission: available >= wait-free, swap used + budget <= swap-limit (if set), and no process
// matching a busy pattern seen for quiet-for (counted from the first reading: the guard cannot
// vouch for time it did not watch; excluded pids - the guard and its ancestors - never count).
// Budget: stop when swap used > swap at start + budget, or > swap-limit, or available <
// kill-free for two readings in a row. With --pressure-wait, admission also needs memory pressure
// at most that; with --pressure-kill, a run stops once pressure has stayed above it for its
// duration; with --stall-kill, once its group used under kStallCpuShare of a core and printed
// nothing for that long. Where the kernel reports no pressure, the pressure options hold no run
// back and stop none (the runner says so at start).
// The constructor throws UsageError (see validate()); the rest throws nothing. Not thread-safe:
// one owner calls it (the app guards it with its own mutex).

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <sys/types.h>

#include "guard/memory/pressure.h"
#include "guard/memory/system_memory.h"
#include "guard/policy/busy_patterns.h"
#include "guard/policy/guard_params.h"
#include "guard/process/process_list.h"

namespace stageload {

struct GuardReadings {
    double t = 0.0;  ///< seconds since the guard started (monotonic)
    SystemMemory memory;
    std::vector<ProcessInfo> processes;  ///< only read when the policy has busy patterns
    /// The machine's memory pressure; read only when the policy needsPressure() (nullopt: the
    /// kernel reports none).
    std::optional<MemoryPressure> pressure;
    /// CPU seconds the run's group has used so far (nullopt: unknown, and --stall-kill stops
    /// nothing: an in-process run, a system without CPU times).
    std::optional<double> groupCpu;
    /// The run printed something since the previous reading (where its output is seen).
    bool printed = false;
};

enum class GuardState { Waiting, Running, Stopped, GaveUp };
enum class GuardAction { Wait, Start, GiveUp, Continue, Stop };
/// Why the guard stopped a run: a memory or swap budget, the machine's memory pressure, or the
/// run itself stalled.
enum class GuardStop { None, Budget, Pressure, Stalled };

const char* toString(GuardState s);
const char* toString(GuardAction a);

struct GuardDecision {
    GuardAction action = GuardAction::Wait;
    std::string reason;    ///< why, e.g. "available 32.0% < --wait-free 40%"
    std::string readings;  ///< the readings behind it, e.g. "available 7.70 GiB of 24.00 GiB ..."
    bool changed = false;  ///< the kind of reason differs from the previous decision: log it
    GuardStop stop = GuardStop::None;  ///< with Stop: why
};

class GuardPolicy {
public:
    explicit GuardPolicy(GuardParams params, std::set<pid_t> excluded = {});

    /// While waiting: Start, Wait (with the reasons) or GiveUp after --start-timeout.
    GuardDecision admit(const GuardReadings& r);
    /// The command was started at these readings (swap at start is the budget's base).
    void started(const GuardReadings& r);
    /// While running: Continue or Stop (with the breach and the readings).
    GuardDecision check(const GuardReadings& r);

    bool needsProcesses() const { return !busy_.empty(); }
    bool needsPressure() const { return params_.pressureWait || params_.pressureKill; }
    const GuardParams& params() const { return params_; }
    GuardState state() const { return state_; }
    const std::string& reason() const { return reason_; }  ///< the latest decision's reason
    double since() const { return since_; }                ///< t the current state began
    std::int64_t swapAtStart() const { return swapAtStart_; }

    /// "available 7.70 GiB of 24.00 GiB (32.1%), swap used 1.20 GiB"
    static std::string describe(const SystemMemory& m);

private:
    GuardDecision decide(GuardAction action, std::string key, std::string reason,
                         const GuardReadings& r, GuardStop stop = GuardStop::None);
    /// While running: the pressure or stall stop due at `r`, if any.
    std::optional<GuardDecision> checkPressure(const GuardReadings& r);
    std::optional<GuardDecision> checkStall(const GuardReadings& r);

    GuardParams params_;
    BusyPatterns busy_;
    std::set<pid_t> excluded_;
    GuardState state_ = GuardState::Waiting;
    std::string reason_;
    std::string lastKey_;
    double since_ = 0.0;
    bool first_ = true;
    double lastBusy_ = 0.0;
    std::int64_t swapAtStart_ = 0;
    int lowSamples_ = 0;
    double pressureSince_ = -1.0;   ///< t pressure went above --pressure-kill (-1: it is not)
    double lastActive_ = 0.0;       ///< t the run last used CPU or printed
    std::optional<double> lastCpu_; ///< groupCpu at the previous reading
    double lastCpuT_ = 0.0;
};

}  // namespace stageload
