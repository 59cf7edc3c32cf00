#include "guard/runner/guard_runner.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <thread>

#include <spdlog/spdlog.h>

#include "guard/base/utc.h"
#include "guard/keeper/keeper_link.h"
#include "guard/memory/pressure.h"
#include "guard/memory/readers.h"
#include "guard/policy/guard_levels.h"
#include "guard/policy/guard_options.h"
#include "guard/meter/meter.h"
#include "guard/process/group_command.h"
#include "guard/process/signal_block.h"
#include "guard/process/terminal_handover.h"
#include "guard/runner/admission.h"
#include "guard/runner/leftover_group.h"
#include "guard/trace/summary.h"

namespace stageload {

int exitCodeOf(GuardStop why) {
    switch (why) {
        case GuardStop::Pressure: return kExitMemoryPressure;
        case GuardStop::Stalled: return kExitStalled;
        case GuardStop::None:
        case GuardStop::Budget: break;
    }
    return kExitStoppedByGuard;
}

std::string GuardLogEntry::line() const {
    return utc + " guard: " + what + ": " + message +
           (readings.empty() ? "" : " [" + readings + "]");
}

Guard::Guard(GuardParams params, GuardEnv env)
    : params_(std::move(params)), env_(std::move(env)), policy_(params_, {}) {
    if (!env_.memory) env_.memory = [] { return readSystemMemory(); };
    if (!env_.pressure) env_.pressure = [] { return readMemoryPressure(); };
    if (!env_.processes) env_.processes = [] { return listProcesses(); };
    if (!env_.now)
        env_.now = [] {
            return std::chrono::duration<double>(
                       std::chrono::steady_clock::now().time_since_epoch())
                .count();
        };
}

void Guard::log(const std::string& what, const std::string& message, const std::string& readings) {
    GuardLogEntry e;
    e.utc = utcTimestamp(std::chrono::system_clock::now(), true);
    e.t = env_.now() - t0_;
    e.what = what;
    e.message = message;
    e.readings = readings;
    if (onLog)
        onLog(e);
    else
        spdlog::info("{}", e.line());
}

GuardReadings Guard::read() {
    GuardReadings r;
    r.t = env_.now() - t0_;
    r.memory = env_.memory();
    if (policy_.needsProcesses()) r.processes = env_.processes();
    if (policy_.needsPressure()) r.pressure = env_.pressure();
    r.groupCpu = groupCpu_;
    r.printed = printed_;
    printed_ = false;
    return r;
}

void Guard::warnUnsupported() {
    if (!policy_.needsPressure()) return;
    if (const auto notice = unsupportedOptionsNotice(params_, env_.pressure().has_value()); !notice.empty())
        log("warn", notice, "");
}

int Guard::run(const std::vector<std::string>& argv) {
    if (argv.empty())
        throw UsageError("guard needs a command: stageload guard [flags] -- CMD ARGS...");
    // Before any thread (the meter) starts, so they inherit the mask.
    SignalBlock signals(hooks.hostHandlesTermination ? SignalBlock::Waits::ChildOnly : SignalBlock::Waits::All);
    const auto sleep = [&](double s) { return env_.sleep ? env_.sleep(s) : signals.wait(s); };
    const auto cancelled = [&] { return hooks.cancelled && hooks.cancelled(); };
    // With a cancel hook, waits are cut into ticks so a cancel is seen within one.
    const auto step = [&](double s) {
        return hooks.cancelled ? std::min(s, std::max(hooks.tickInterval, 0.01)) : s;
    };
    // A tick that throws must not take the guard down with the command still running.
    const auto tick = [&] {
        if (!hooks.tick) return;
        try {
            hooks.tick();
        } catch (const std::exception& e) {
            log("error", std::string("while following the command: ") + e.what(), "");
        }
    };
    t0_ = env_.now();
    policy_ = GuardPolicy(params_, selfAndAncestors(listProcesses(false)));
    groupCpu_.reset();
    printed_ = false;
    warnUnsupported();

    // --- admission -------------------------------------------------------------------------
    AdmissionLoop loop;
    loop.read = [&] { return read(); };
    loop.sleep = sleep;
    if (hooks.cancelled) loop.cancelled = cancelled;
    loop.tick = hooks.tickInterval;
    loop.onDecision = [&](const GuardDecision& d, const GuardReadings&) {
        if (d.action == GuardAction::Wait && d.changed) log("wait", d.reason, d.readings);
    };
    const AdmissionResult admission = awaitAdmission(policy_, loop);
    switch (admission.end) {
        case Admission::Start:
            log("start", "room to start '" + argv[0] + "'", admission.decision.readings);
            break;
        case Admission::GiveUp:
            log("give up", admission.decision.reason, admission.decision.readings);
            return kExitNoRoom;
        case Admission::Cancelled:
            log("exit", "cancelled while waiting; the command never started", "");
            return kExitCancelled;
        case Admission::Signal:
            log("signal",
                "got signal " + std::to_string(admission.signal) + " while waiting; the command never started", "");
            return 128 + admission.signal;
        case Admission::ReadError:
            log("error", admission.error, "");
            return 1;
    }

    // --- run ---------------------------------------------------------------------------------
    const bool reaper = GroupCommand::setReaper(true);
    struct ReaperOff {
        bool on;
        ~ReaperOff() {
            if (on) GroupCommand::setReaper(false);
        }
    } reaperOff{reaper};

    // The keeper stops the group if this process ends without doing so (SIGKILL, a crash):
    // started first, so there is no moment when the command runs unwatched.
    std::optional<KeeperLink> keeper;
    try {
        keeper.emplace(keeperProgram());
    } catch (const StartError& e) {
        log("warn", std::string(e.what()) + ": if this program is killed, its command keeps running", "");
    }
    std::optional<GroupCommand> cmd;
    try {
        cmd.emplace(argv, &signals.childMask(), hooks.spawn);
    } catch (const StartError& e) {
        log("error", e.what(), "");
        if (keeper) keeper->release();
        return kExitCannotStart;
    }
    if (keeper) keeper->watch(cmd->pgid(), params_.stopGrace);
    // A command that reads the terminal must own it, or SIGTTIN stops it (declared after cmd:
    // the terminal comes back before anything else is torn down).
    std::optional<TerminalHandover> terminal;
    if (!hooks.spawn.captureOutput) terminal.emplace(cmd->pgid());
    std::unique_ptr<Meter> meter;
    std::shared_ptr<GroupMeter> group;  // the meter's members of the group, and who left it
    if (!params_.tracePath.empty()) {
        MeterParams mp;
        mp.tracePath = params_.tracePath;
        mp.interval = params_.traceInterval;
        group = std::make_shared<GroupMeter>(cmd->pgid());
        mp.readers = groupReaders(group);
        for (const auto& reader : hooks.extraReaders) mp.readers.extra.push_back(reader);
        mp.meta = {{"command", argv}, {kGroupKey, cmd->pgid()}, {"guard", "stageload"}};
        // With its leader's start, the next app start tells the group from a later one of that id.
        if (const auto leader = readProcess(cmd->pgid()); leader && leader->startTicks >= 0)
            mp.meta[kGroupStartKey] = leader->startTicks;
        if (guardLevels(params_).any()) mp.meta[kGuardLevelsKey] = guardLevelsMeta(params_);  // drawn on the chart
        mp.meta.update(hooks.traceMeta);
        mp.onSample = hooks.onSample;
        mp.onMark = hooks.onMark;
        try {
            meter = std::make_unique<Meter>(std::move(mp));
        } catch (const Error& e) {
            log("error", std::string("no trace: ") + e.what(), "");
        }
    }
    if (meter && keeper) keeper->trace(params_.tracePath, meter->epoch());
    if (onStarted) onStarted(cmd->pgid());
    if (hooks.started) hooks.started(*cmd);
    if (meter && hooks.meterStarted) hooks.meterStarted(*meter);

    const auto finish = [&](int code, const std::string& what, const std::string& message,
                            const std::string& readings) {
        tick();  // what the command wrote last
        if (keeper) keeper->release();  // the group is stopped: nothing is left to keep
        if (meter) {
            meter->mark("guard: " + what + ": " + message);
            meter->stop();
            traceProblem_ = meter->traceProblem();
            if (!traceProblem_.empty()) log("warn", traceProblem_, "");
        }
        log(what, message, readings);
        return code;
    };
    const auto stopGroup = [&] {
        const bool gone = cmd->stop(params_.stopGrace, [&](double s) {
            const int sig = sleep(s);
            if (SignalBlock::isTermination(sig))
                log("signal", "got signal " + std::to_string(sig) + " while stopping", "");
        });
        if (!gone)
            log("error",
                "some processes of group " + std::to_string(cmd->pgid()) + " survived SIGKILL", "");
        return gone;
    };

    const double poll = hooks.runningPoll > 0.0 ? std::min(params_.poll, hooks.runningPoll) : params_.poll;
    double nextPoll = env_.now() + poll;
    double nextTick = env_.now();
    double nextTrack = env_.now();
    // Descendants that left the group (setsid) are looked for by a scan of every process, a
    // few ms each. While a meter keeps the group's members (group_meter.h), it sees a member's
    // child leave at its next sample, so the scan (for their own children, and for children
    // of a member's other threads) is needed only every 2 s; without one, twice a second.
    const double trackInterval = meter && group ? 2.0 : 0.5;
    std::size_t leaversSeen = 0;
    for (;;) {
        if (auto code = cmd->poll()) {
            // The command is done; what it left running (in its group or not) goes with it.
            cmd->stop(params_.stopGrace, [&](double s) { sleep(s); });
            return finish(*code, "exit", "command exited with code " + std::to_string(*code), "");
        }
        if (env_.now() >= nextTrack) {
            try {
                const auto processes = listProcesses(false);
                cmd->track(processes);
                if (keeper) keeper->escaped(cmd->escapedStarts());
                groupCpu_ = groupCpuSeconds(processes, cmd->pgid(), cmd->escaped());
            } catch (const Error&) {
            }
            nextTrack = env_.now() + trackInterval;
        }
        if (meter && group && group->leaverCount() != leaversSeen) {
            const auto leavers = group->leavers();
            leaversSeen = leavers.size();
            for (const auto& [pid, start] : leavers) cmd->addEscaped(pid, start);
            if (keeper) keeper->escaped(cmd->escapedStarts());
        }
        if (hooks.tick && env_.now() >= nextTick) {
            tick();
            if (hooks.printed && hooks.printed()) printed_ = true;
            nextTick = env_.now() + hooks.tickInterval;
        }
        if (cancelled()) {
            const std::string why = hooks.cancelReason ? hooks.cancelReason() : std::string();
            if (meter) meter->mark(stopMark(why.empty() ? std::string(kCancelledReason) : why));
            log("stop", "stopping group " + std::to_string(cmd->pgid()) + ": " + (why.empty() ? "cancelled" : why), "");
            stopGroup();
            return finish(kExitCancelled, "exit", "cancelled (exit 130)", "");
        }
        const double now = env_.now();
        if (now >= nextPoll) {
            nextPoll = now + poll;
            GuardReadings r;
            try {
                r = read();
            } catch (const Error& e) {
                log("error", e.what(), "");
                continue;
            }
            const GuardDecision d = policy_.check(r);
            if (d.action == GuardAction::Stop) {
                if (meter) meter->mark(stopMark(d.reason));
                log("stop", "stopping group " + std::to_string(cmd->pgid()) + ": " + d.reason,
                    d.readings);
                stopGroup();
                const int code = exitCodeOf(d.stop);
                return finish(code, "exit", "stopped by the guard (exit " + std::to_string(code) + ")", "");
            }
            if (d.changed)
                log(d.reason == "within budget" ? "running" : "warn", d.reason, d.readings);
            continue;
        }
        double wait = std::max(0.0, std::min(nextPoll - now, poll));
        if (hooks.tick) wait = std::min(wait, std::max(0.0, nextTick - now));
        wait = std::min(wait, std::max(0.0, nextTrack - now));
        const int sig = sleep(step(wait));
        if (SignalBlock::isTermination(sig)) {
            if (meter) meter->mark(stopMark(interruptedReason("the guard got " + SignalBlock::describe(sig))));
            log("signal",
                "got signal " + std::to_string(sig) + "; stopping group " +
                    std::to_string(cmd->pgid()) + " first",
                "");
            stopGroup();
            return finish(128 + sig, "exit", "guard ended by signal " + std::to_string(sig), "");
        }
    }
}

}  // namespace stageload
