#pragma once
// Runs the stand-in cascade: the staged-vs-eager measurement of a real Pixal3D run, reproducible
// on any machine.
//
//   stageload::CascadeParams p;
//   p.scaleGiB = 6;                         // all weights together
//   p.cacheDir = "~/.cache/stageload/cascade";
//   p.events = meter.eventSink();           // loads, releases and stages into the trace
//   auto r = stageload::runCascade(p);      // per stage: latent fingerprint, peak, seconds
//
// The run seeds the global CPU generator once and draws noise from it at every sampler step.
// Staged and eager runs (and runs with preserveRng) give bit-identical latents; with
// preserveRng off a staged run diverges from the first stage that builds a model.
// One run at a time per process: it resets and reads the process's peak resident memory.

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/api/choices.h"
#include "engine/api/errors.h"
#include "engine/pipelines/stage_runner.h"
#include "guard/base/event.h"

namespace stageload {

struct CascadeParams {
    std::filesystem::path cacheDir;  ///< weight files, generated there on first use
    double scaleGiB = 1.0;           ///< total weights of all models
    std::int64_t seed = 7;
    LoadMode mode = LoadMode::Staged;
    bool preserveRng = true;
    std::string stopAt;              ///< stop when this stage would begin ("" = run to the end)
    EventSink events;                ///< every registry event, as it happens
    /// Called when a stage begins and ends (on the calling thread), e.g. for progress.
    std::function<void(const std::string& stage, bool begins)> onStage;
    const std::atomic<bool>* cancel = nullptr;  ///< checked between steps; stops with Cancelled
    /// The process's own RSS before any model, for the result's baselineRss; measured when the
    /// run starts if unset. A caller that touches memory first (a pre-read) measures it before.
    std::optional<std::int64_t> baselineRss;
};

/// One stage: what every pipeline measures (stage_runner.h), and the cascade's own numbers.
struct CascadeStage : StageStats {
    std::vector<float> latent;       ///< the stage's output (small), flattened
    std::vector<std::int64_t> latentShape;
    std::string fingerprint;         ///< fingerprintHex() of the latent tensor
    std::int64_t workingBytes = 0;   ///< the stage's working buffer
    double readSeconds = 0.0;        ///< reading the weight files alone
    std::int64_t readBytes = 0;
};

struct CascadeResult {
    std::vector<CascadeStage> stages;
    std::vector<Event> events;
    std::string stoppedAt;           ///< the stage --stop-at stopped before, if any
    /// VmRSS before any model is built: the process's own memory (LibTorch, the tables), which
    /// is in every stage's peak but is neither weights nor working memory.
    std::int64_t baselineRss = 0;
    double seconds = 0.0;
    double readSeconds = 0.0;        ///< all weight-file reads (eager: at construction too)
    std::int64_t readBytes = 0;
};

/// The weight files the cascade at this scale uses (generating missing ones).
std::vector<std::filesystem::path> prepareCascadeWeights(const std::filesystem::path& cacheDir,
                                                         double scaleGiB);

/// Runs the cascade. Throws UnknownStageError for a bad stopAt, WeightFileError for weight
/// problems, Cancelled when `cancel` is set.
CascadeResult runCascade(const CascadeParams& params);

}  // namespace stageload
