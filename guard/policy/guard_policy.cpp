#include "guard/policy/guard_policy.h"

#include <utility>

#include "guard/base/units.h"

namespace stageload {
namespace {

std::string shortLine(const std::string& s) {
    return s.size() > 80 ? s.substr(0, 77) + "..." : s;
}

}  // namespace

const char* toString(GuardState s) {
    switch (s) {
        case GuardState::Waiting:
            return "waiting";
        case GuardState::Running:
            return "running";
        case GuardState::Stopped:
            return "stopped";
        case GuardState::GaveUp:
            return "gave up";
    }
    return "?";
}

const char* toString(GuardAction a) {
    switch (a) {
        case GuardAction::Wait:
            return "wait";
        case GuardAction::Start:
            return "start";
        case GuardAction::GiveUp:
            return "give up";
        case GuardAction::Continue:
            return "continue";
        case GuardAction::Stop:
            return "stop";
    }
    return "?";
}

GuardPolicy::GuardPolicy(GuardParams params, std::set<pid_t> excluded)
    : params_(std::move(params)), excluded_(std::move(excluded)) {
    validate(params_);
    busy_ = BusyPatterns(params_.busy);
}

std::string GuardPolicy::describe(const SystemMemory& m) {
    return "available " + formatBytes(m.available) + " of " + formatBytes(m.total) + " (" +
           formatPercent(m.availablePercent()) + "), swap used " + formatBytes(m.swapUsed());
}

GuardDecision GuardPolicy::decide(GuardAction action, std::string key, std::string reason,
                                  const GuardReadings& r, GuardStop stop) {
    GuardDecision d;
    d.action = action;
    d.stop = stop;
    d.reason = std::move(reason);
    d.readings = describe(r.memory) +
                 (r.pressure ? ", memory pressure " + formatPercent(r.pressure->fullAvg10) : std::string());
    d.changed = first_ || key != lastKey_;
    first_ = false;
    lastKey_ = std::move(key);
    reason_ = d.reason;
    return d;
}

GuardDecision GuardPolicy::admit(const GuardReadings& r) {
    if (first_) {
        since_ = r.t;
        lastBusy_ = r.t;  // the quiet period counts from the first reading
    }
    std::string key, reason;
    const auto add = [&](const std::string& k, const std::string& why) {
        key += k + ";";
        reason += (reason.empty() ? "" : "; ") + why;
    };
    const SystemMemory& m = r.memory;
    if (m.availablePercent() < params_.waitFree)
        add("memory",
            "available " + formatPercent(m.availablePercent()) + " < --wait-free " + formatPercent(params_.waitFree));
    if (params_.need && m.available < *params_.need)
        add("need", "available " + formatBytes(m.available) + " < --need " + formatBytes(*params_.need));
    if (params_.swapLimit && m.swapUsed() + params_.swapBudget > *params_.swapLimit)
        add("swap", "swap used " + formatBytes(m.swapUsed()) + " + budget " +
                        formatBytes(params_.swapBudget) + " > --swap-limit " +
                        formatBytes(*params_.swapLimit));
    if (params_.pressureWait && r.pressure && r.pressure->fullAvg10 > *params_.pressureWait)
        add("pressure", "memory pressure " + formatPercent(r.pressure->fullAvg10) + " > --pressure-wait " +
                            formatPercent(*params_.pressureWait));
    if (!busy_.empty()) {
        std::vector<const ProcessInfo*> busyNow;
        std::set<std::size_t> patterns;  // the reason's kind: which patterns, not which pids
        for (const auto& p : r.processes) {
            if (excluded_.count(p.pid) || p.state == 'Z') continue;
            if (const auto i = busy_.match(p.cmdline)) {
                busyNow.push_back(&p);
                patterns.insert(*i);
            }
        }
        if (!busyNow.empty()) {
            lastBusy_ = r.t;
            std::string kind = "busy:";
            for (std::size_t i : patterns) kind += std::to_string(i) + ",";
            const auto more = busyNow.size() - 1;
            add(kind, "busy: pid " + std::to_string(busyNow.front()->pid) + " '" +
                          shortLine(busyNow.front()->cmdline) + "'" +
                          (more ? " and " + std::to_string(more) + " more" : ""));
        } else if (r.t - lastBusy_ < params_.quietFor) {
            add("quiet", "quiet for " + formatDuration(r.t - lastBusy_) + " of --quiet-for " +
                             formatDuration(params_.quietFor));
        }
    }
    if (key.empty()) {
        state_ = GuardState::Running;
        return decide(GuardAction::Start, "start", "room to start", r);
    }
    if (r.t - since_ >= params_.startTimeout) {
        state_ = GuardState::GaveUp;
        since_ = r.t;
        return decide(GuardAction::GiveUp, "give-up",
                      "no room within --start-timeout " + formatDuration(params_.startTimeout) +
                          ": " + reason,
                      r);
    }
    return decide(GuardAction::Wait, key, reason, r);
}

void GuardPolicy::started(const GuardReadings& r) {
    state_ = GuardState::Running;
    since_ = r.t;
    swapAtStart_ = r.memory.swapUsed();
    lowSamples_ = 0;
    pressureSince_ = -1.0;
    lastActive_ = r.t;
    lastCpu_ = r.groupCpu;
    lastCpuT_ = r.t;
}

std::optional<GuardDecision> GuardPolicy::checkPressure(const GuardReadings& r) {
    if (!params_.pressureKill || !r.pressure) return std::nullopt;
    const PressureLimit& limit = *params_.pressureKill;
    if (r.pressure->fullAvg10 <= limit.percent) {
        pressureSince_ = -1.0;
        return std::nullopt;
    }
    if (pressureSince_ < 0) pressureSince_ = r.t;
    const std::string above = "memory pressure " + formatPercent(r.pressure->fullAvg10) + " > --pressure-kill " +
                              formatPercent(limit.percent);
    if (r.t - pressureSince_ < limit.seconds)
        return decide(GuardAction::Continue, "pressure",
                      above + " for " + formatDuration(r.t - pressureSince_) + " (stops at " +
                          formatDuration(limit.seconds) + ")",
                      r);
    state_ = GuardState::Stopped;
    return decide(GuardAction::Stop, "stop-pressure", above + " for " + formatDuration(r.t - pressureSince_), r,
                  GuardStop::Pressure);
}

std::optional<GuardDecision> GuardPolicy::checkStall(const GuardReadings& r) {
    if (!params_.stallKill || !r.groupCpu) return std::nullopt;
    if (r.printed) lastActive_ = r.t;
    if (!lastCpu_ || *r.groupCpu - *lastCpu_ >= kStallCpuShare * (r.t - lastCpuT_)) lastActive_ = r.t;
    lastCpu_ = r.groupCpu;
    lastCpuT_ = r.t;
    if (r.t - lastActive_ < *params_.stallKill) return std::nullopt;
    state_ = GuardState::Stopped;
    return decide(GuardAction::Stop, "stop-stall",
                  "stalled: the group used under " + formatPercent(100.0 * kStallCpuShare) +
                      " of a core and printed nothing for " + formatDuration(r.t - lastActive_) +
                      " (--stall-kill " + formatDuration(*params_.stallKill) + ")",
                  r, GuardStop::Stalled);
}

GuardDecision GuardPolicy::check(const GuardReadings& r) {
    const SystemMemory& m = r.memory;
    const std::int64_t swap = m.swapUsed();
    if (swap > swapAtStart_ + params_.swapBudget) {
        state_ = GuardState::Stopped;
        return decide(GuardAction::Stop, "stop-swap",
                      "swap used " + formatBytes(swap) + " > " + formatBytes(swapAtStart_) +
                          " at start + --swap-budget " + formatBytes(params_.swapBudget),
                      r, GuardStop::Budget);
    }
    if (params_.swapLimit && swap > *params_.swapLimit) {
        state_ = GuardState::Stopped;
        return decide(
            GuardAction::Stop, "stop-limit",
            "swap used " + formatBytes(swap) + " > --swap-limit " + formatBytes(*params_.swapLimit),
            r, GuardStop::Budget);
    }
    const auto pressure = checkPressure(r);
    if (pressure && pressure->action == GuardAction::Stop) return *pressure;
    if (auto stall = checkStall(r)) return *stall;
    if (m.availablePercent() < params_.killFree) {
        ++lowSamples_;
        if (lowSamples_ >= 2) {
            state_ = GuardState::Stopped;
            return decide(GuardAction::Stop, "stop-memory",
                          "available " + formatPercent(m.availablePercent()) + " < --kill-free " +
                              formatPercent(params_.killFree) + " for " + std::to_string(lowSamples_) +
                              " readings in a row",
                          r, GuardStop::Budget);
        }
        return decide(GuardAction::Continue, "low",
                      "available " + formatPercent(m.availablePercent()) + " < --kill-free " +
                          formatPercent(params_.killFree) + " (1 reading; stops at 2 in a row)",
                      r);
    }
    lowSamples_ = 0;
    if (pressure) return *pressure;  // above --pressure-kill, not for long enough yet
    return decide(GuardAction::Continue, "ok", "within budget", r);
}

}  // namespace stageload
