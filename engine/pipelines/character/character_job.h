#pragma once
// One built-in character run from start to end, written once for every front end: admission
// under the guard (when it is on), the meter and its trace, the guard's budget checked at the
// meter's samples, cancel, the stop mark in the trace, and whatever went wrong classified with
// its exit code. `stageload run` only prints what comes back; the app's worker only forwards the
// callbacks to its signals. The generator job (engine/api/generator_job.h) is its counterpart for
// external programs.
//
//   stageload::CharacterJobParams p;
//   p.run.input = "hero.png";
//   p.run.output = "hero.glb";
//   p.trace = "hero.trace.jsonl";
//   p.guard = guardParams;                       // nullopt (the default): the guard is off
//   p.cancel = &stopRequested;                   // optional
//   p.onStage = [](const std::string& s, int i, int n, bool begins) { ... };
//   auto job = stageload::runCharacterJob(p);
//   if (!job.ok()) { fprintf(stderr, "%s\n", job.message.c_str()); return job.exitCode(); }
//
// Callbacks run on the calling thread, except onSample and onGuard during the run (the meter's
// thread). Never throws. No Torch here: the UI may include this header.

#include <atomic>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/api/failure.h"
#include "engine/pipelines/character/character_run.h"
#include "guard/memory/readers.h"
#include "guard/policy/guard_params.h"
#include "guard/policy/guard_policy.h"

namespace stageload {

/// What the guard just decided, for a front end to show: waiting (every poll, with how long it
/// has waited), running, stopped or given up.
struct GuardUpdate {
    GuardState state = GuardState::Waiting;
    std::string reason;    ///< "available 32.0% < --wait-free 40%"
    std::string readings;  ///< the readings behind it
    double secondsInState = 0.0;
    bool changed = false;  ///< the kind of reason changed: worth a log line
};

struct CharacterJobParams {
    /// The picture, output, weights and settings; its callbacks and cancel are the job's own
    /// (set the ones below instead).
    CharacterParams run;
    std::filesystem::path trace;      ///< the trace to write; empty: none (samples still flow)
    std::filesystem::path cutout;     ///< also write the cut-out (RGBA PNG) here, once found
    double sampleInterval = 0.05;     ///< the meter's, seconds
    nlohmann::json meta = nlohmann::json::object();  ///< more keys of the trace's start line
    std::optional<GuardParams> guard;  ///< nullopt: no admission and no budget
    /// The machine's memory pressure as the guard reads it; unset: readMemoryPressure().
    std::function<std::optional<MemoryPressure>()> pressure;
    const std::atomic<bool>* cancel = nullptr;  ///< set: stop at the next step (waiting: at once)
    /// Once *cancel is set: why ("" or unset: the user's cancel; an interruptedReason() when the
    /// program is being ended), for the trace's stop mark and the message.
    std::function<std::string()> cancelReason;

    std::function<void(const GuardUpdate&)> onGuard;
    /// Said once, before admission: what a threshold set cannot do here ("--pressure-kill
    /// cannot work here: ..."), so it is not silently ignored.
    std::function<void(const std::string&)> onGuardNotice;
    std::function<void(const MemorySample&)> onSample;  ///< t on the trace's clock
    std::function<void(const Event&)> onEvent;          ///< t on the trace's clock
    /// A stage begins or ends; `index` counts from 0 of `count` stages.
    std::function<void(const std::string& stage, int index, int count, bool begins)> onStage;
    std::function<void(const Image& cutout)> onCutout;
};

enum class JobEnd {
    Done,
    StoppedByGuard,  ///< exit 3 (a budget breach) or 6 (memory pressure) stopped the run between steps
    NoRoom,          ///< exit 4: no room to start within the start timeout
    Cancelled,       ///< exit 130
    Failed,          ///< `failure` says which kind (bad picture, no subject, weights, ...)
};

struct CharacterJobResult {
    JobEnd end = JobEnd::Failed;
    FailureKind failure = FailureKind::Other;  ///< Failed and Cancelled: the kind
    std::string message;                       ///< the whole story, naming the file or threshold
    std::string guardReason;                   ///< StoppedByGuard: the breach, without readings
    GuardStop guardStop = GuardStop::None;     ///< StoppedByGuard: which kind of breach
    std::string traceProblem;                  ///< "" when the trace was written whole
    CharacterResult result;                    ///< Done
    double seconds = 0.0;                      ///< from the call to the end, waiting included

    bool ok() const { return end == JobEnd::Done; }
    /// 0, 3, 4, 6, 130, or exitCode(failure) (engine/api/failure.h).
    int exitCode() const;
};

CharacterJobResult runCharacterJob(const CharacterJobParams& params) noexcept;

/// The job as one JSON object, for a child process that runs it (`stageload run-job JSON`):
/// "input", "output", "weights", "trace", "cutout", "sample_interval", "meta", and "settings"
/// with every setting as settingText() under its key in runFields(). Callbacks, cancel and the
/// guard are not part of it (the guard is the parent's).
nlohmann::json characterJobJson(const CharacterJobParams& params);

/// characterJobJson()'s form back. UsageError naming the key for a missing "input" or "output",
/// an unknown key or a value of the wrong type; SettingError for a setting that is not valid.
CharacterJobParams characterJobFromJson(const nlohmann::json& json);

}  // namespace stageload
