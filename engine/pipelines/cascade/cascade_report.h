#pragma once
// Fingerprint files of a cascade run and the comparison of two runs.
//
//   stageload::writeFingerprints("runs/staged", result, {{"mode", "staged"}});
//   auto rows = stageload::compareFingerprints("runs/staged", "runs/eager");
//   for (const auto& r : rows) if (!r.identical()) ...
//
// One JSON file per stage, `NN-<stage>.json`: {"stage", "index", "hash", "shape", "head" (the
// first values of the latent), "peak_rss", "seconds", plus the run's meta}. Each file is
// written atomically. Throws FileError naming the folder or file on problems.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/pipelines/cascade/cascade_run.h"

namespace stageload {

struct StageFingerprint {
    std::string stage;
    int index = 0;
    std::string hash;
    std::int64_t peakRss = 0;
    double seconds = 0.0;
};

void writeFingerprints(const std::filesystem::path& dir, const CascadeResult& result,
                       const std::map<std::string, std::string>& meta = {});

/// The stage files in `dir`, in stage order.
std::vector<StageFingerprint> readFingerprints(const std::filesystem::path& dir);

struct FingerprintComparison {
    std::string stage;
    std::optional<StageFingerprint> a;
    std::optional<StageFingerprint> b;
    bool identical() const { return a && b && a->hash == b->hash; }
};

/// Every stage of either run, in stage order.
std::vector<FingerprintComparison> compareFingerprints(const std::filesystem::path& a,
                                                       const std::filesystem::path& b);

}  // namespace stageload
