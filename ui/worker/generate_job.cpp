#include "ui/worker/generate_job.h"

#include <spdlog/spdlog.h>

#include <QJsonDocument>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <limits>
#include <optional>
#include <regex>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(__linux__)
#include <sys/resource.h>
#include <unistd.h>
#endif

#include "engine/api/failure.h"
#include "engine/api/generator_job.h"
#include "engine/api/run_meta.h"
#include "engine/base/atomic_file.h"
#include "engine/pipelines/character/character_run.h"
#include "guard/meter/meter.h"
#include "guard/process/process_list.h"
#include "guard/trace/summary.h"

namespace stageload::studio {
namespace {

// How often a running in-app run's budget is checked (at most; the poll when shorter).
constexpr double kBudgetCheckSeconds = 0.25;

// The dialog title of each kind of failure.
QString failureTitle(FailureKind kind) {
    switch (kind) {
        case FailureKind::Usage: return GenerateJob::tr("Invalid settings");
        case FailureKind::Picture: return GenerateJob::tr("Cannot read the picture");
        case FailureKind::NoSubject: return GenerateJob::tr("No subject found");
        case FailureKind::NoPicture: return GenerateJob::tr("No such picture");
        case FailureKind::NotInstalled: return GenerateJob::tr("Not installed");
        case FailureKind::Weights: return GenerateJob::tr("Broken weights");
        case FailureKind::CannotWrite: return GenerateJob::tr("Cannot write the result");
        case FailureKind::Cancelled: return GenerateJob::tr("Cancelled");
        case FailureKind::OutOfMemory: return GenerateJob::tr("Out of memory");
        case FailureKind::Other: return GenerateJob::tr("The run failed");
    }
    return GenerateJob::tr("The run failed");
}

GuardReadings readingsAt(double t, const GuardPolicy& policy) {
    GuardReadings r;
    r.t = t;
    r.memory = readSystemMemory();
    if (policy.needsProcesses()) r.processes = listProcesses();
    return r;
}

// Lowers this thread's CPU priority. On Linux niceness is per thread and inherited by the threads
// it starts: the meter and, on the first run, LibTorch's worker pool. The GUI thread keeps its
// priority, so the window stays smooth while the pipeline uses every core.
void lowerPriority(int niceness) {
#if defined(__linux__)
    if (niceness > 0 && setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), niceness) != 0)
        spdlog::debug("could not lower the run's priority");
#else
    (void)niceness;
#endif
}

// The summary of the trace the run wrote, for the history; computed here, off the GUI thread.
QJsonObject traceSummary(const QString& tracePath) {
    if (tracePath.isEmpty()) return {};
    try {
        const auto json = toJson(summarize(readTrace(tracePath.toStdString())));
        return QJsonDocument::fromJson(QByteArray::fromStdString(json.dump())).object();
    } catch (const stageload::Error& e) {  // no trace: the run failed before the meter started
        spdlog::debug("no summary for {}: {}", tracePath.toStdString(), e.what());
        return {};
    }
}

// Freed heap goes back to the system at once, so the chart shows the run's memory returned.
void returnFreedMemory() {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

}  // namespace

GenerateJob::GenerateJob(GenerateRequest request, QObject* parent)
    : QObject(parent), request_(std::move(request)) {}

void GenerateJob::requestCancel() {
    cancel_.store(true);
    std::lock_guard lock(mutex_);
    wake_.notify_all();
}

double GenerateJob::elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

bool GenerateJob::sleepUnlessCancelled(double seconds) {
    std::unique_lock lock(mutex_);
    return !wake_.wait_for(lock, std::chrono::duration<double>(seconds),
                           [this] { return cancel_.load(); });
}

void GenerateJob::run() {
    lowerPriority(request_.niceness);
    started_ = std::chrono::steady_clock::now();
    outcome_ = {};
    // Nothing may escape the worker thread (it would end the app): what the run itself did not
    // classify (a guard reading that failed, a LibTorch error, no memory) is a failed run.
    try {
        if (request_.generator) {
            runExternal();
        } else {
            std::optional<GuardPolicy> policy;
            if (request_.guardEnabled) {
                policy.emplace(request_.guard, selfAndAncestors(listProcesses()));
                if (!waitForRoom(*policy)) {
                    emit finished(outcome_);
                    return;
                }
            }
            runPipeline(policy ? &*policy : nullptr);
        }
    } catch (...) {
        const auto f = classifyFailure(std::current_exception());
        outcome_.end = RunEnd::Failed;
        outcome_.title = f.kind == FailureKind::OutOfMemory ? tr("Out of memory") : tr("The run failed");
        outcome_.message = QString::fromStdString(f.message);
        outcome_.exitCode = exitCode(f.kind);
    }
    outcome_.seconds = elapsed();
    outcome_.summary = traceSummary(request_.trace);
    returnFreedMemory();
    emit finished(outcome_);
}

bool GenerateJob::waitForRoom(GuardPolicy& policy) {
    for (;;) {
        const auto r = readingsAt(elapsed(), policy);
        const auto d = policy.admit(r);
        if (d.changed) spdlog::info("guard: {} ({})", d.reason, d.readings);
        emit guardChanged(policy.state(), QString::fromStdString(d.reason), r.t - policy.since());
        if (d.action == GuardAction::Start) {
            std::lock_guard lock(mutex_);
            policy.started(r);
            lastCheck_ = r.t;
            return true;
        }
        if (d.action == GuardAction::GiveUp) {
            outcome_.end = RunEnd::Stopped;
            outcome_.title = tr("No room to start in time");
            outcome_.message = QString::fromStdString(d.reason + " (" + d.readings + ")");
            outcome_.exitCode = kExitNoRoom;
            return false;
        }
        if (!sleepUnlessCancelled(policy.params().poll)) {
            outcome_.end = RunEnd::Cancelled;
            outcome_.title = tr("Cancelled");
            outcome_.message = tr("Cancelled while waiting for room to start.");
            outcome_.exitCode = kExitCancelled;
            return false;
        }
    }
}

// Called on the meter thread with every sample: a budget check every kBudgetCheckSeconds (or
// poll, when shorter).
void GenerateJob::checkBudget(GuardPolicy& policy, double t) {
    std::lock_guard lock(mutex_);
    // At the meter's samples, not only every poll: a run shorter than the poll (5 s by default)
    // is guarded too. Two breaching readings in a row then span a quarter to half a second.
    if (!guardStop_.isEmpty() || t - lastCheck_ < std::min(policy.params().poll, kBudgetCheckSeconds)) return;
    lastCheck_ = t;
    const auto d = policy.check(readingsAt(t, policy));
    if (d.changed) spdlog::info("guard: {} ({})", d.reason, d.readings);
    if (d.action == GuardAction::Stop) {
        guardReason_ = d.reason;
        guardStop_ = QString::fromStdString(d.reason + " (" + d.readings + ")");
        spdlog::warn("guard: stopping the run: {}", guardStop_.toStdString());
        cancel_.store(true);
        wake_.notify_all();
        emit guardChanged(GuardState::Stopped, QString::fromStdString(d.reason), 0.0);
    } else if (d.changed) {
        emit guardChanged(policy.state(), QString::fromStdString(d.reason), 0.0);
    }
}

void GenerateJob::runPipeline(GuardPolicy* policy) {
    CharacterParams p;
    static_cast<RunSettings&>(p) = request_.run;
    p.input = request_.input.toStdString();
    p.output = request_.output.toStdString();
    p.weightsDir = request_.weightsDir.toStdString();
    p.cancel = &cancel_;

    const auto stages = characterStages();
    const int count = static_cast<int>(stages.size());
    int index = -1;
    p.onStage = [&](const std::string& stage, bool begins) {
        if (begins) ++index;
        spdlog::info("stage {} {}", stage, begins ? "begins" : "done");
        emit stageChanged(QString::fromStdString(stage), index, count, begins);
    };
    p.onCutout = [&](const Image& cutout) {
        if (!request_.cutout.isEmpty()) writePngFile(request_.cutout.toStdString(), cutout);
        emit cutoutReady(cutout);
    };

    try {
        validateCharacterParams(p);  // a bad setting leaves no trace file behind

        MeterParams mp;
        mp.tracePath = request_.trace.toStdString();
        mp.interval = request_.sampleInterval;
        mp.meta = runMeta(p, p.input);
        mp.meta["tool"] = "stageload-studio";
        mp.onSample = [this, policy](const MemorySample& sample) {
            emit sampled(sample);
            if (policy) checkBudget(*policy, elapsed());
        };
        Meter meter(std::move(mp));
        p.events = fanOut({meter.eventSink(), [this, &meter](const Event& e) {
                               Event onTraceClock = e;
                               onTraceClock.t = meter.now();
                               emit eventHappened(onTraceClock);
                           }});

        CharacterResult r;
        try {
            r = runCharacter(p);
        } catch (const Cancelled&) {
            // The same mark the guard writes for a child process: the summary, the chart and
            // the history read where and why from it.
            std::string reason = kCancelledReason;
            {
                std::lock_guard lock(mutex_);
                if (!guardReason_.empty()) reason = guardReason_;
            }
            meter.mark(stopMark(reason));
            throw;
        }
        meter.stop();
        if (const auto lost = meter.traceProblem(); !lost.empty()) {
            spdlog::error("{}", lost);
            outcome_.notices << QString::fromStdString(lost);
        }

        outcome_.end = RunEnd::Done;
        outcome_.title = tr("Done");
        outcome_.mesh = std::make_shared<const TexturedMesh>(std::move(r.mesh));
        for (const auto& f : r.files) outcome_.files << QString::fromStdString(f.string());
        for (const auto& n : r.notices) outcome_.notices << QString::fromStdString(n);
        outcome_.maskSource = QString::fromLatin1(maskSourceName(r.maskSource));
        outcome_.meshCheck = QString::fromStdString(r.meshReport.describe());
        for (const auto& st : r.stages)
            outcome_.stageSeconds.append({QString::fromStdString(st.name), st.seconds});
        outcome_.message = tr("%1 vertices, %2 triangles, %3 in %4 s")
                               .arg(outcome_.mesh->vertexCount())
                               .arg(outcome_.mesh->triangleCount())
                               .arg(r.parts == 1 ? tr("1 part") : tr("%1 parts").arg(r.parts))
                               .arg(r.seconds, 0, 'f', 1);
        if (r.droppedParts > 0)
            outcome_.message += r.droppedParts == 1 ? tr(" (1 speck dropped)")
                                                    : tr(" (%1 specks dropped)").arg(r.droppedParts);
    } catch (...) {
        const auto f = classifyFailure(std::current_exception());
        std::lock_guard lock(mutex_);
        if (f.kind == FailureKind::Cancelled && !guardStop_.isEmpty()) {
            outcome_ = {RunEnd::Stopped, tr("Stopped by the guard"), guardStop_};
            outcome_.exitCode = kExitStoppedByGuard;
            return;
        }
        outcome_ = {f.kind == FailureKind::Cancelled ? RunEnd::Cancelled : RunEnd::Failed,
                    failureTitle(f.kind), QString::fromStdString(f.message)};
        outcome_.exitCode = exitCode(f.kind);
    }
}

void GenerateJob::runExternal() {
    GeneratorRunParams p;
    p.def = *request_.generator;
    p.values.input = request_.input.toStdString();
    p.values.output = request_.output.toStdString();
    p.values.runDir = request_.runDir.toStdString();
    p.values.trace = (std::filesystem::path(p.values.runDir) / "command.trace.jsonl");
    p.values.seed = request_.run.seed;
    p.values.textureSize = request_.run.textureSize;
    p.values.stageload = request_.stageloadCommand.toStdString();
    p.values.params = request_.generatorParams;
    std::vector<std::string> problems;
    p.meta = generatorMetaExtras(p.def, p.values, &problems);  // the picture's size, each stage's weights
    for (const auto& problem : problems) spdlog::warn("{}: {}", p.def.source.string(), problem);
    p.trace = request_.trace.toStdString();
    p.sampleInterval = std::max(0.1, request_.sampleInterval);  // the group is summed over /proc
    p.guard = request_.guard;
    if (!request_.guardEnabled) {  // no admission and no budget: the run is only watched
        p.guard.waitFree = 0;
        p.guard.killFree = 0;
        p.guard.swapBudget = std::numeric_limits<std::int64_t>::max() / 2;
        p.guard.swapLimit.reset();
        p.guard.busy.clear();
    }
    p.cancel = &cancel_;
    p.onSample = [this](const MemorySample& s) { emit sampled(s); };
    p.onEvent = [this](const Event& e) { emit eventHappened(e); };
    int index = -1;
    p.onProgress = [this, &index](const std::string& stage, double percent) {
        if (percent < 0) {
            if (index >= 0) emit stageChanged(QString(), index, 0, false);
            spdlog::info("{}: stage {}", request_.generator->name, stage);
            emit stageChanged(QString::fromStdString(stage), ++index, 0, true);
        } else {
            emit percentChanged(percent);
        }
    };
    // Its output in the log pane; progress-bar lines only update the status bar.
    std::optional<std::regex> progress;
    if (!request_.generator->progressPattern.empty()) progress.emplace(request_.generator->progressPattern);
    p.onOutput = [this, &progress](const std::string& line, bool isStderr) {
        bool bar = false;
        try {
            bar = progress && std::regex_search(line, *progress);
        } catch (const std::regex_error&) {  // a pattern too costly for this line: log it
        }
        if (!bar) spdlog::info("{}{}: {}", request_.generator->name, isStderr ? " (stderr)" : "", line);
    };
    p.onGuardLog = [this](const GuardLogEntry& e) {
        spdlog::info("{}", e.line());
        const auto reason = QString::fromStdString(e.message);
        if (e.what == "wait") emit guardChanged(GuardState::Waiting, reason, e.t);
        if (e.what == "start" || e.what == "running" || e.what == "warn")
            emit guardChanged(GuardState::Running, reason, 0.0);
        if (e.what == "stop") emit guardChanged(GuardState::Stopped, reason, 0.0);
        if (e.what == "give up") emit guardChanged(GuardState::GaveUp, reason, 0.0);
    };

    const auto job = runGeneratorJob(p);
    const auto message = QString::fromStdString(job.message);
    for (const auto& n : job.notices) outcome_.notices << QString::fromStdString(n);
    for (const auto& s : job.run.stages) outcome_.stageSeconds.append({QString::fromStdString(s), 0.0});
    for (const auto& f : {job.run.log, job.run.commandTrace})
        if (!f.empty() && std::filesystem::exists(f)) outcome_.files << QString::fromStdString(f.string());
    switch (job.end) {
        case GeneratorEnd::Done:
            outcome_.end = RunEnd::Done;
            outcome_.title = tr("Done");
            outcome_.mesh = std::make_shared<const TexturedMesh>(job.mesh);
            outcome_.files.prepend(request_.output);
            outcome_.meshCheck = QString::fromStdString(checkMesh(job.mesh.positions, job.mesh.indices).describe());
            break;
        case GeneratorEnd::StoppedByGuard:
            outcome_.end = RunEnd::Stopped;
            outcome_.title = tr("Stopped by the guard");
            break;
        case GeneratorEnd::NoRoom:
            outcome_.end = RunEnd::Stopped;
            outcome_.title = tr("No room to start in time");
            break;
        case GeneratorEnd::Cancelled:
            outcome_.end = RunEnd::Cancelled;
            outcome_.title = tr("Cancelled");
            break;
        case GeneratorEnd::CannotStart:
            outcome_.end = RunEnd::Failed;
            outcome_.title = tr("Cannot start the generator");
            break;
        case GeneratorEnd::Invalid:
            outcome_.end = RunEnd::Failed;
            outcome_.title = tr("The generator cannot be used");
            break;
        case GeneratorEnd::Failed:
            outcome_.end = RunEnd::Failed;
            outcome_.title = tr("The generator failed");
            break;
    }
    outcome_.message = message;
    outcome_.exitCode = job.exitCode();
}

}  // namespace stageload::studio
