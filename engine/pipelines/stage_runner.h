#pragma once
// One stage of a staged pipeline, run the same way in every pipeline: check for a cancel, tell
// the caller, enter() the stage (its releases timed), reset the peak, run the stage's work, and
// measure it — seconds, peak resident memory, weights resident at its end, and what the registry
// loaded and released in it, counted from its event log. The peak also goes into the event
// stream as a kStagePeakMark, so a trace (and its summary) has it; so does the setup's (what
// the run did before its first stage), measured from StageRunner::beginRun().
//
//   stageload::StageRunner::beginRun();                    // first thing in the run
//   ... read the picture, build the registry ...
//   stageload::StageRunner stages(models, log, params.onStage, params.cancel, "the character run");
//   CharacterStage s = stages.run("texture", [&] { atlas = bake(...); });
//
// Throws Cancelled (before a stage) and whatever the work throws. Not thread-safe: the thread
// that runs the pipeline owns it.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "guard/base/event.h"

namespace stageload {

class StagedModels;

/// What one stage did.
struct StageStats {
    std::string name;
    double seconds = 0.0;            ///< enter() and the work
    double enterSeconds = 0.0;       ///< enter(): the stage event and the releases it triggers
    std::int64_t peakRss = 0;        ///< process VmHWM from the end of enter() to the stage's end
    std::int64_t rssBeforeEnter = 0;  ///< VmRSS just before enter()
    std::int64_t rssAfterEnter = 0;  ///< VmRSS right after enter() returned
    std::int64_t weightBytes = 0;    ///< registry objects resident at the stage's end
    int loads = 0;                   ///< load and reload events in the stage
    double loadSeconds = 0.0;
    std::int64_t loadBytes = 0;
    int releases = 0;
    std::int64_t releasedBytes = 0;
};

class StageRunner {
public:
    /// `what` names the run in the Cancelled message ("the cascade run was cancelled before
    /// stage 'texture'"). `log` must be a sink of `models`' events.
    StageRunner(StagedModels& models, const EventLog& log,
                std::function<void(const std::string& stage, bool begins)> onStage,
                const std::atomic<bool>* cancel, std::string what);

    StageStats run(const std::string& name, const std::function<void()>& work);

    /// Opens the setup's peak window: call it first thing in a run, so that the setup's peak
    /// (marked when the first stage begins) is this run's and not what the process did before
    /// (an earlier run in the app).
    static void beginRun();

private:
    StagedModels& models_;
    const EventLog& log_;
    std::function<void(const std::string&, bool)> onStage_;
    const std::atomic<bool>* cancel_;
    std::string what_;
    bool first_ = true;
};

}  // namespace stageload
