#include "engine/pipelines/stage_runner.h"

#include <chrono>

#include "engine/api/errors.h"
#include "engine/registry/staged_models.h"
#include "guard/memory/process_memory.h"

namespace stageload {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace

StageRunner::StageRunner(StagedModels& models, const EventLog& log,
                         std::function<void(const std::string&, bool)> onStage,
                         const std::atomic<bool>* cancel, std::string what)
    : models_(models), log_(log), onStage_(std::move(onStage)), cancel_(cancel), what_(std::move(what)) {}

void StageRunner::beginRun() { resetPeakRss(); }

StageStats StageRunner::run(const std::string& name, const std::function<void()>& work) {
    if (cancel_ && cancel_->load()) throw Cancelled(what_ + " was cancelled before stage '" + name + "'");
    if (first_) {  // the setup's peak, from beginRun(); its mark comes before any stage event
        models_.mark(kStagePeakMark, {}, readProcessMemory().peakRss, 0.0);
        first_ = false;
    }
    if (onStage_) onStage_(name, true);
    const auto eventsBefore = log_.events().size();
    StageStats s;
    s.name = name;
    s.rssBeforeEnter = readProcessMemory().rss;
    const auto start = Clock::now();
    models_.enter(name);
    s.enterSeconds = secondsSince(start);
    s.rssAfterEnter = readProcessMemory().rss;
    // The stage's window opens once the releases its start triggered are done (as in the trace
    // summary), so its peak is its own and not the previous stage's.
    resetPeakRss();
    work();
    s.seconds = secondsSince(start);
    s.peakRss = readProcessMemory().peakRss;
    s.weightBytes = models_.loadedBytes();
    const auto events = log_.events();
    for (std::size_t i = eventsBefore; i < events.size(); ++i) {
        const auto& e = events[i];
        if (e.kind == EventKind::Load || e.kind == EventKind::Reload) {
            ++s.loads;
            s.loadSeconds += e.seconds;
            s.loadBytes += e.nbytes;
        } else if (e.kind == EventKind::Release) {
            ++s.releases;
            s.releasedBytes += e.nbytes;
        }
    }
    models_.mark(kStagePeakMark, {}, s.peakRss, s.seconds);
    if (onStage_) onStage_(name, false);
    return s;
}

}  // namespace stageload
