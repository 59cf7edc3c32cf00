#pragma once
// A small stand-in for a multi-model image-to-3D cascade, built to prove the registry's promises
// on any machine in seconds: staged runs hold only the current stage's weights, eager runs hold
// all of them, and both produce bit-identical latents because loading never disturbs the
// random generators.
//
//   stageload::StandinParams p;
//   p.cacheDir = "/tmp/standin";        // weights are written here once, deterministically
//   p.totalMiB = 256;
//   auto staged = stageload::runStandin(p);
//   p.mode = stageload::LoadMode::Eager;
//   auto eager = stageload::runStandin(p);
//   // staged.stages[i].fingerprint == eager.stages[i].fingerprint for every stage
//
// Like real pipelines, each model is constructed with random init (drawing from the global CPU
// generator) and then loaded from its safetensors file; the run seeds once and draws noise from
// the global generator at every stage. Stage plan (after Pixal3D's 1024_cascade):
//   preprocess: remover | structure: backbone, structure_flow |
//   shape: backbone, shape_flow, shape_decoder | texture: backbone, texture_flow |
//   decode: shape_decoder, texture_decoder | export: (none)
// Not thread-safe: one run at a time per process (it measures the process's peak memory).

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "engine/registry/staged_models.h"

namespace stageload {

struct StandinParams {
    std::filesystem::path cacheDir;  ///< where the weight files live (created if missing)
    double totalMiB = 64.0;          ///< total weight bytes of all models, MiB
    std::int64_t seed = 7;
    LoadMode mode = LoadMode::Staged;
    bool preserveRng = true;
    EventSink events;                ///< also receives every registry event
};

struct StandinStage {
    std::string name;
    torch::Tensor latent;       ///< the stage's output
    std::string fingerprint;    ///< fingerprintHex(latent)
    double seconds = 0.0;
    std::int64_t peakRss = 0;   ///< process VmHWM during the stage (bytes)
    std::int64_t weightBytes = 0;  ///< registry bytes resident at the stage's end
};

struct StandinResult {
    std::vector<StandinStage> stages;
    std::vector<Event> events;
};

/// The stand-in's models and their share of the total weights.
struct StandinModel {
    std::string name;
    double share;
};
const std::vector<StandinModel>& standinModels();
const std::vector<Stage>& standinPlan();

/// Runs the whole stand-in once. Throws stageload::Error on file problems.
StandinResult runStandin(const StandinParams& params);

}  // namespace stageload
