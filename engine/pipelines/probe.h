#pragma once
// The lifecycle memory probe of one model: resident memory before loading, after
// loading, after a warm-up forward, after a second (measured) forward and after release, with
// the peak inside each phase — where a model's memory really goes.
//
//   auto r = stageload::probeModel("u2netp.safetensors", {});   // known architecture
//   auto s = stageload::probeModel("depth.pt", {1, 3, 384, 384});  // TorchScript
//
// No Torch here: the CLI and the UI include this header.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace stageload {

struct ProbePhase {
    std::string name;        ///< "load", "warm-up", "inference", "release"
    std::int64_t rssAfter = 0;
    std::int64_t peak = 0;   ///< highest resident memory during the phase
    double seconds = 0.0;
};

struct ProbeResult {
    std::string model;       ///< what the file was recognised as
    std::int64_t rssBefore = 0;
    std::int64_t weightBytes = 0;
    std::int64_t parameters = 0;
    std::vector<std::int64_t> inputShape;
    std::vector<ProbePhase> phases;
};

/// Loads `file` — a TorchScript archive, or a safetensors file of an architecture the engine
/// knows (U²-Netp) — and runs it twice on a seeded random input of `inputShape` (empty: the
/// architecture's own; required for TorchScript). One probe per process: it resets the
/// process's peak resident memory. UsageError for a missing shape, WeightFileError for
/// unreadable or unknown files.
ProbeResult probeModel(const std::filesystem::path& file, std::vector<std::int64_t> inputShape);

}  // namespace stageload
