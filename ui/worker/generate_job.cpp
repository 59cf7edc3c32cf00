#include "ui/worker/generate_job.h"

#include <spdlog/spdlog.h>

#include <QJsonDocument>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
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
#include "guard/base/atomic_file.h"
#include "engine/pipelines/character/character_job.h"
#include "guard/policy/guard_options.h"
#include "guard/trace/summary.h"
#include "guard/runner/guard_runner.h"
#include "ui/studio/run_history.h"

namespace stageload::worker {
namespace {

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

// The dialog title of a guard's stop, by the guard's exit code: a hang and a thrashing machine
// are named, as the CLI's exit codes tell them apart.
QString guardStopTitle(int exitCode) {
    switch (exitCode) {
        case kExitStalled: return GenerateJob::tr("Stopped: the generator hung");
        case kExitMemoryPressure: return GenerateJob::tr("Stopped: memory pressure");
        default: return GenerateJob::tr("Stopped by the guard");
    }
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

// Freed heap goes back to the system at once, so the chart shows the run's memory returned.
void returnFreedMemory() {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

}  // namespace

GenerateJob::GenerateJob(studio::GenerateRequest request, QObject* parent)
    : QObject(parent), request_(std::move(request)) {}

void GenerateJob::requestCancel(const std::string& reason) {
    {
        std::lock_guard lock(reasonMutex_);
        if (!cancel_.load()) cancelReason_ = reason;  // the first request's reason stands
    }
    cancel_.store(true);
}

std::string GenerateJob::cancelReason() const {
    std::lock_guard lock(reasonMutex_);
    return cancelReason_;
}

double GenerateJob::elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

void GenerateJob::run() {
    lowerPriority(request_.niceness);
    started_ = std::chrono::steady_clock::now();
    outcome_ = {};
    // Nothing may escape the worker thread (it would end the app): what the run itself did not
    // classify (a LibTorch error, no memory) is a failed run.
    try {
        if (request_.generator)
            runExternal();
        else
            runPipeline();
    } catch (...) {
        const auto f = classifyFailure(std::current_exception());
        outcome_.end = studio::RunEnd::Failed;
        outcome_.title = f.kind == FailureKind::OutOfMemory ? tr("Out of memory") : tr("The run failed");
        outcome_.message = QString::fromStdString(f.message);
        outcome_.exitCode = exitCode(f.kind);
    }
    outcome_.seconds = elapsed();
    outcome_.summary = studio::traceSummary(request_.trace);  // here, off the GUI thread
    returnFreedMemory();
    emit finished(outcome_);
}

// The built-in run is the engine's character job; here its callbacks become signals and its
// result an outcome.
void GenerateJob::runPipeline() {
    CharacterJobParams p;
    static_cast<RunSettings&>(p.run) = request_.run;
    p.run.input = request_.input.toStdString();
    p.run.output = request_.output.toStdString();
    p.run.weightsDir = request_.weightsDir.toStdString();
    p.trace = request_.trace.toStdString();
    p.sampleInterval = request_.sampleInterval;
    p.meta = {{"tool", "stageload-studio"}};
    if (request_.guardEnabled) p.guard = request_.guard;
    p.cancel = &cancel_;
    p.cancelReason = [this] { return cancelReason(); };
    p.onGuard = [this](const GuardUpdate& u) {
        if (u.changed) spdlog::info("guard: {} ({})", u.reason, u.readings);
        if (u.state == GuardState::Stopped) spdlog::warn("guard: stopping the run: {} ({})", u.reason, u.readings);
        emit guardChanged(u.state, QString::fromStdString(u.reason), u.secondsInState);
    };
    p.onGuardNotice = [this](const std::string& notice) {
        spdlog::warn("guard: {}", notice);
        addGuardNote(notice);
    };
    p.onSample = [this](const MemorySample& sample) { emit sampled(sample); };
    p.onEvent = [this](const Event& e) { emit eventHappened(e); };
    p.onStage = [this](const std::string& stage, int index, int count, bool begins) {
        spdlog::info("stage {} {}", stage, begins ? "begins" : "done");
        emit stageChanged(QString::fromStdString(stage), index, count, begins);
    };
    p.onCutout = [this](const Image& cutout) {
        if (!request_.cutout.isEmpty()) writePngFile(request_.cutout.toStdString(), cutout);
        emit cutoutReady(cutout);
    };

    auto job = runCharacterJob(p);
    outcome_.exitCode = job.exitCode();
    outcome_.message = QString::fromStdString(job.message);
    if (!job.traceProblem.empty()) {
        spdlog::error("{}", job.traceProblem);
        outcome_.notices << QString::fromStdString(job.traceProblem);
    }
    switch (job.end) {
        case JobEnd::Done: break;
        case JobEnd::StoppedByGuard:
            outcome_.end = studio::RunEnd::Stopped;
            outcome_.title = guardStopTitle(job.exitCode());
            return;
        case JobEnd::NoRoom:
            outcome_.end = studio::RunEnd::Stopped;
            outcome_.title = tr("No room to start in time");
            return;
        case JobEnd::Cancelled:
            outcome_.end = cancelReason().empty() ? studio::RunEnd::Cancelled : studio::RunEnd::Interrupted;
            outcome_.title = cancelReason().empty() ? tr("Cancelled") : tr("Interrupted");
            return;
        case JobEnd::Failed:
            outcome_.end = studio::RunEnd::Failed;
            outcome_.title = failureTitle(job.failure);
            return;
    }
    CharacterResult& r = job.result;
    outcome_.end = studio::RunEnd::Done;
    outcome_.title = tr("Done");
    outcome_.mesh = std::make_shared<const TexturedMesh>(std::move(r.mesh));
    for (const auto& f : r.files) outcome_.files << QString::fromStdString(f.string());
    for (const auto& n : r.notices) outcome_.notices << QString::fromStdString(n);
    outcome_.maskSource = QString::fromLatin1(maskSourceName(r.maskSource));
    outcome_.meshCheck = QString::fromStdString(r.meshReport.describe());
    for (const auto& st : r.stages) outcome_.stageSeconds.append({QString::fromStdString(st.name), st.seconds});
    outcome_.message = tr("%1 vertices, %2 triangles, %3 in %4 s")
                           .arg(outcome_.mesh->vertexCount())
                           .arg(outcome_.mesh->triangleCount())
                           .arg(r.parts == 1 ? tr("1 part") : tr("%1 parts").arg(r.parts))
                           .arg(r.seconds, 0, 'f', 1);
    if (r.droppedParts > 0)
        outcome_.message += r.droppedParts == 1 ? tr(" (1 speck dropped)") : tr(" (%1 specks dropped)").arg(r.droppedParts);
}

void GenerateJob::addGuardNote(const std::string& notice) {
    outcome_.notices << QString::fromStdString(guardReasonInWords(notice));
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
    p.guard = request_.guardEnabled ? request_.guard : guardOff(request_.guard);  // off: only watched
    // Judged as often as a built-in run: a peak shorter than the poll is caught.
    p.runningPoll = kRunningCheckSeconds;
    p.cancel = &cancel_;
    p.cancelReason = [this] { return cancelReason(); };
    p.hostHandlesTermination = true;  // the app's own handler stops the run, then quits with 128+N
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
    p.onOutput = [this](const std::string& line, bool isStderr, bool isProgress) {
        if (!isProgress) spdlog::info("{}{}: {}", request_.generator->name, isStderr ? " (stderr)" : "", line);
    };
    p.onGuardLog = [this](const GuardLogEntry& e) {
        spdlog::info("{}", e.line());
        const auto reason = QString::fromStdString(e.message);
        if (e.what == "wait") emit guardChanged(GuardState::Waiting, reason, e.t);
        if (e.what == "warn") addGuardNote(e.message);
        if (e.what == "start" || e.what == "running") emit guardChanged(GuardState::Running, reason, 0.0);
        if (e.what == "stop") emit guardChanged(GuardState::Stopped, reason, 0.0);
        if (e.what == "give up") emit guardChanged(GuardState::GaveUp, reason, 0.0);
    };

    const auto job = runGeneratorJob(p);
    const auto message = QString::fromStdString(job.message);
    for (const auto& n : job.notices) outcome_.notices << QString::fromStdString(n);
    outcome_.notices.removeDuplicates();  // a trace problem is the guard's warning and the job's notice
    for (const auto& s : job.run.stages) outcome_.stageSeconds.append({QString::fromStdString(s), 0.0});
    for (const auto& f : {job.run.log, job.run.commandTrace})
        if (!f.empty() && std::filesystem::exists(f)) outcome_.files << QString::fromStdString(f.string());
    switch (job.end) {
        case GeneratorEnd::Done:
            outcome_.end = studio::RunEnd::Done;
            outcome_.title = tr("Done");
            outcome_.mesh = std::make_shared<const TexturedMesh>(job.mesh);
            outcome_.files.prepend(request_.output);
            outcome_.meshCheck = QString::fromStdString(checkMesh(job.mesh.positions, job.mesh.indices).describe());
            break;
        case GeneratorEnd::StoppedByGuard:
            outcome_.end = studio::RunEnd::Stopped;
            outcome_.title = guardStopTitle(job.exitCode());
            break;
        case GeneratorEnd::NoRoom:
            outcome_.end = studio::RunEnd::Stopped;
            outcome_.title = tr("No room to start in time");
            break;
        case GeneratorEnd::Cancelled:
            outcome_.end = cancelReason().empty() ? studio::RunEnd::Cancelled : studio::RunEnd::Interrupted;
            outcome_.title = cancelReason().empty() ? tr("Cancelled") : tr("Interrupted");
            break;
        case GeneratorEnd::NotSetUp:
            outcome_.end = studio::RunEnd::Failed;
            outcome_.title = tr("The generator is not set up");
            outcome_.notSetUp = true;
            break;
        case GeneratorEnd::CannotStart:
            outcome_.end = studio::RunEnd::Failed;
            outcome_.title = tr("Cannot start the generator");
            break;
        case GeneratorEnd::Invalid:
            outcome_.end = studio::RunEnd::Failed;
            outcome_.title = tr("The generator cannot be used");
            break;
        case GeneratorEnd::Failed:
            outcome_.end = studio::RunEnd::Failed;
            outcome_.title = tr("The generator failed");
            break;
    }
    outcome_.message = message;
    outcome_.exitCode = job.exitCode();
    for (const auto& a : job.run.argv) outcome_.command << QString::fromStdString(a);
}

}  // namespace stageload::worker
