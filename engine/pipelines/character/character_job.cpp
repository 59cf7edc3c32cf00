#include "engine/pipelines/character/character_job.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <thread>

#include "engine/api/errors.h"
#include "engine/api/run_meta.h"
#include "guard/memory/pressure.h"
#include "guard/meter/meter.h"
#include "guard/policy/guard_levels.h"
#include "guard/policy/guard_options.h"
#include "guard/process/process_list.h"
#include "guard/runner/admission.h"
#include "guard/runner/guard_runner.h"
#include "guard/trace/summary.h"

namespace stageload {
namespace {

using Clock = std::chrono::steady_clock;

// The guard's side of one run: admission, then the budget at the meter's samples. Its state is
// touched by the meter's thread and the caller's, so every member goes through the mutex.
class RunGuard {
public:
    RunGuard(const GuardParams& params, Clock::time_point epoch, const CharacterJobParams& job)
        : policy_(params, selfAndAncestors(listProcesses())), epoch_(epoch), job_(job) {}

    AdmissionResult admit() {
        AdmissionLoop loop;
        loop.read = [this] { return read(); };
        loop.sleep = [](double s) {
            std::this_thread::sleep_for(std::chrono::duration<double>(std::max(0.0, s)));
            return 0;
        };
        if (job_.cancel) loop.cancelled = [this] { return job_.cancel->load(); };
        loop.onDecision = [this](const GuardDecision& d, const GuardReadings& r) {
            tell(policy_.state(), d, r.t - policy_.since());
        };
        std::lock_guard lock(mutex_);
        auto a = awaitAdmission(policy_, loop);
        lastCheck_ = a.readings.t;
        return a;
    }

    /// At a meter sample: true when the guard wants the run stopped (then, and after, reason()).
    bool breached() {
        std::lock_guard lock(mutex_);
        if (!reason_.empty()) return true;
        const double t = seconds();
        // At the meter's samples every kRunningCheckSeconds at most (the poll when shorter), not
        // only every poll: a run shorter than the poll (5 s by default) is guarded too, and two
        // breaching readings in a row then span a quarter to half a second.
        if (t - lastCheck_ < std::min(policy_.params().poll, kRunningCheckSeconds)) return false;
        lastCheck_ = t;
        const auto d = policy_.check(read());
        if (d.action == GuardAction::Stop) {
            reason_ = d.reason;
            why_ = d.stop;
            stop_ = d.reason + " (" + d.readings + ")";
            tell(GuardState::Stopped, d, 0.0);
            return true;
        }
        if (d.changed) tell(policy_.state(), d, 0.0);
        return false;
    }

    std::string reason() const {
        std::lock_guard lock(mutex_);
        return reason_;
    }
    std::string stopWithReadings() const {
        std::lock_guard lock(mutex_);
        return stop_;
    }
    GuardStop why() const {
        std::lock_guard lock(mutex_);
        return why_;
    }
    std::optional<MemoryPressure> pressure() const { return job_.pressure ? job_.pressure() : readMemoryPressure(); }

private:
    double seconds() const { return std::chrono::duration<double>(Clock::now() - epoch_).count(); }
    GuardReadings read() const {
        GuardReadings r;
        r.t = seconds();
        r.memory = readSystemMemory();
        if (policy_.needsProcesses()) r.processes = listProcesses();
        if (policy_.needsPressure()) r.pressure = pressure();
        return r;
    }
    void tell(GuardState state, const GuardDecision& d, double secondsInState) const {
        if (job_.onGuard) job_.onGuard({state, d.reason, d.readings, secondsInState, d.changed});
    }

    mutable std::mutex mutex_;
    GuardPolicy policy_;
    Clock::time_point epoch_;
    const CharacterJobParams& job_;
    double lastCheck_ = 0.0;
    std::string reason_;  ///< the breach that stopped the run ("" while none)
    std::string stop_;    ///< the same with its readings
    GuardStop why_ = GuardStop::None;
};

void failWith(CharacterJobResult& j, std::exception_ptr error) {
    const auto f = classifyFailure(error);
    j.end = f.kind == FailureKind::Cancelled ? JobEnd::Cancelled : JobEnd::Failed;
    j.failure = f.kind;
    j.message = f.message;
}

}  // namespace

nlohmann::json characterJobJson(const CharacterJobParams& p) {
    auto settings = nlohmann::json::object();
    for (const auto& f : runFields()) settings[std::string(f.key)] = settingText(p.run, f.field);
    return {{"input", p.run.input.string()},   {"output", p.run.output.string()},
            {"weights", p.run.weightsDir.string()}, {"trace", p.trace.string()},
            {"cutout", p.cutout.string()},     {"sample_interval", p.sampleInterval},
            {"meta", p.meta},                  {"settings", settings}};
}

CharacterJobParams characterJobFromJson(const nlohmann::json& j) {
    if (!j.is_object()) throw UsageError("a job must be a JSON object");
    CharacterJobParams p;
    const auto text = [&](const char* key, bool required) -> std::string {
        const auto it = j.find(key);
        if (it == j.end() && !required) return {};
        if (it == j.end() || !it->is_string()) throw UsageError(std::string("the job's \"") + key + "\" must be a string");
        return it->get<std::string>();
    };
    p.run.input = text("input", true);
    p.run.output = text("output", true);
    p.run.weightsDir = text("weights", false);
    p.trace = text("trace", false);
    p.cutout = text("cutout", false);
    for (const auto& [key, value] : j.items()) {
        if (key == "sample_interval") {
            if (!value.is_number()) throw UsageError("the job's \"sample_interval\" must be a number");
            p.sampleInterval = value.get<double>();
        } else if (key == "meta") {
            if (!value.is_object()) throw UsageError("the job's \"meta\" must be an object");
            p.meta = value;
        } else if (key == "settings") {
            if (!value.is_object()) throw UsageError("the job's \"settings\" must be an object");
            for (const auto& [name, setting] : value.items()) {
                const auto& fields = runFields();
                const auto f = std::find_if(fields.begin(), fields.end(), [&](const RunFieldInfo& r) { return r.key == name; });
                if (f == fields.end()) throw UsageError("the job's settings have no \"" + name + "\"");
                if (!setting.is_string()) throw UsageError("the job's setting \"" + name + "\" must be a string");
                setSetting(p.run, f->field, setting.get<std::string>());
            }
        } else if (key != "input" && key != "output" && key != "weights" && key != "trace" && key != "cutout") {
            throw UsageError("a job has no \"" + key + "\"");
        }
    }
    validate(static_cast<const RunSettings&>(p.run));
    return p;
}

int CharacterJobResult::exitCode() const {
    switch (end) {
        case JobEnd::Done: return 0;
        case JobEnd::StoppedByGuard: return exitCodeOf(guardStop);
        case JobEnd::NoRoom: return kExitNoRoom;
        case JobEnd::Cancelled: return kExitCancelled;
        case JobEnd::Failed: return stageload::exitCode(failure);
    }
    return 1;
}

CharacterJobResult runCharacterJob(const CharacterJobParams& params) noexcept {
    const auto epoch = Clock::now();
    CharacterJobResult j;
    const auto finish = [&]() -> CharacterJobResult {
        j.seconds = std::chrono::duration<double>(Clock::now() - epoch).count();
        return std::move(j);
    };
    try {
        CharacterParams p = params.run;
        validateCharacterParams(p);  // before any waiting: a bad setting leaves no trace file

        std::optional<RunGuard> guard;
        if (params.guard) {
            guard.emplace(*params.guard, epoch, params);
            if (const auto notice = unsupportedOptionsNotice(*params.guard, guard->pressure().has_value());
                !notice.empty() && params.onGuardNotice)
                params.onGuardNotice(notice);
            const auto a = guard->admit();
            switch (a.end) {
                case Admission::Start: break;
                case Admission::GiveUp:
                    j.end = JobEnd::NoRoom;
                    j.message = a.decision.reason + " (" + a.decision.readings + ")";
                    return finish();
                case Admission::Cancelled:
                case Admission::Signal:
                    j.end = JobEnd::Cancelled;
                    j.failure = FailureKind::Cancelled;
                    j.message = "Cancelled while waiting for room to start.";
                    return finish();
                case Admission::ReadError:
                    j.end = JobEnd::Failed;
                    j.message = "the guard cannot read the machine's memory: " + a.error;
                    return finish();
            }
        }

        // The pipeline stops at its next step when the user cancels or the guard says so; both
        // are seen at the meter's samples.
        std::atomic<bool> stop{false};
        p.cancel = &stop;
        MeterParams mp;
        mp.tracePath = params.trace.string();
        mp.interval = params.sampleInterval;
        mp.meta = runMeta(p, p.input);
        mp.meta.update(params.meta);
        if (params.guard && guardLevels(*params.guard).any())
            mp.meta[kGuardLevelsKey] = guardLevelsMeta(*params.guard);  // drawn on the chart
        mp.onSample = [&](const MemorySample& sample) {
            if (params.onSample) params.onSample(sample);
            if ((params.cancel && params.cancel->load()) || (guard && guard->breached())) stop.store(true);
        };
        mp.onMark = params.onEvent;  // the stop mark reaches a live chart as the trace gets it
        Meter meter(std::move(mp));
        p.events = fanOut({meter.eventSink(), [&](const Event& e) {
                               if (!params.onEvent) return;
                               Event onTraceClock = e;
                               onTraceClock.t = meter.now();
                               params.onEvent(onTraceClock);
                           }});
        const int count = static_cast<int>(characterStages().size());
        int index = -1;
        p.onStage = [&](const std::string& stage, bool begins) {
            if (begins) ++index;
            if (params.onStage) params.onStage(stage, index, count, begins);
        };
        p.onCutout = [&](const Image& cutout) {
            if (!params.cutout.empty()) writePngFile(params.cutout, cutout);
            if (params.onCutout) params.onCutout(cutout);
        };
        if (params.cancel && params.cancel->load()) stop.store(true);

        try {
            j.result = runCharacter(p);
        } catch (const Cancelled& cancelled) {
            // The same mark the guard writes for a child process: the summary, the chart and the
            // history read where and why from it.
            const std::string breach = guard ? guard->reason() : std::string();
            const std::string why = params.cancelReason ? params.cancelReason() : std::string();
            meter.mark(stopMark(!breach.empty() ? breach : !why.empty() ? why : std::string(kCancelledReason)));
            meter.stop();
            j.traceProblem = meter.traceProblem();
            if (!breach.empty()) {
                j.end = JobEnd::StoppedByGuard;
                j.guardReason = breach;
                j.guardStop = guard->why();
                j.message = guard->stopWithReadings();
            } else {
                j.end = JobEnd::Cancelled;
                j.failure = FailureKind::Cancelled;
                j.message = why.empty() ? std::string(cancelled.what()) : "Stopped: " + why + ".";
            }
            return finish();
        } catch (...) {
            meter.stop();
            j.traceProblem = meter.traceProblem();
            throw;
        }
        meter.stop();
        j.traceProblem = meter.traceProblem();
        j.end = JobEnd::Done;
    } catch (...) {
        failWith(j, std::current_exception());
    }
    return finish();
}

}  // namespace stageload
