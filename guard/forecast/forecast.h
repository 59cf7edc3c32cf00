#pragma once
// How much memory a run will need, stage by stage, before it starts: learned from the traces of
// earlier runs of the same pipeline or generator, fitted across the settings that change
// memory (texture size, triangle budget, picture size, the cascade's scale, numeric generator
// params), with the load mode and every other choice required to match.
//
//   std::vector<stageload::RunPoint> history = stageload::readRunPoints({historyDir});
//   stageload::RunKey key = stageload::runKeyOf(traceMeta);      // what is about to run
//   stageload::Forecast f = stageload::forecastRun(history, key);
//   for (const auto& s : f.stages) printf("%s %s\n", s.stage.c_str(), s.basis.c_str());
//
// The fit, per stage: with runs at one setting only, their mean (exact when the settings are
// the same; "rough" when not, widened by a stated margin: kRoughMargin, and a whole more for
// each doubling of a size past the largest the runs had); with runs at two or more values of
// the settings that differ among them, a straight line through the peaks against the one of
// those settings that explains them best (least squares), evaluated at the new value and
// widened by kFitMargin. Peaks are the trace summary's per-stage peaks of stages that ran to
// their end (a stopped run's last stage and the stage a trace without an end line was cut in
// are left out: they are lower bounds).
// Pure functions except the readers; thread-safe.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "guard/trace/trace_reader.h"

namespace stageload {

/// What a run is, as far as memory goes: `pipeline` ("character", "cascade",
/// "generator:NAME"), `choices` that must match exactly (load mode, remover, device, string
/// params), `sizes` that memory is fitted across (texture_size, triangles, picture_pixels,
/// scale_gib, param:NAME for numeric params).
/// The bytes of weights each stage loads, where they are known ahead (a generator's
/// "stage_weights", counted from the files' headers: engine/api/stage_weights.h).
using StageWeights = std::map<std::string, std::int64_t>;

struct RunKey {
    std::string pipeline;
    std::map<std::string, std::string> choices;
    std::map<std::string, double> sizes;
    StageWeights weights;  ///< not matched: the exact part of each stage's peak
};

/// The key of the run a trace's start line describes (runMeta() or a generator's meta, whose
/// "stage_weights" object gives `weights`). An empty pipeline when the meta says neither
/// pipeline nor generator.
RunKey runKeyOf(const nlohmann::json& meta);

/// One earlier run: its key and the peak footprint of each stage that ran to its end.
struct RunPoint {
    std::string source;  ///< the trace it was read from
    RunKey key;
    /// The footprint at the trace's first sample: what its program held before the run began
    /// (the app or the CLI, for a built-in run in it; next to nothing for a new process).
    std::int64_t baseline = 0;
    std::vector<std::pair<std::string, std::int64_t>> stagePeaks;  ///< in run order
};

/// The run point of a trace; nullopt when it has no usable key or no complete stage.
std::optional<RunPoint> runPointOf(const Trace& trace, const std::string& source);

/// Every usable run point in `paths`: trace files, and folders searched (recursively) for
/// files named *.jsonl. Unreadable or foreign files are skipped and, when `skipped` is given,
/// counted there.
std::vector<RunPoint> readRunPoints(const std::vector<std::filesystem::path>& paths,
                                    int* skipped = nullptr);

/// The folder the app keeps its runs in (QStandardPaths::AppDataLocation + "/runs" on Linux:
/// ${XDG_DATA_HOME:-~/.local/share}/Stageload/Stageload Studio/runs).
std::filesystem::path defaultHistoryDir();

struct StageForecast {
    std::string stage;
    std::optional<std::int64_t> peak;  ///< nullopt: no earlier run had this stage, no weights known
    int runs = 0;                      ///< earlier runs it rests on
    std::string basis;                 ///< "fit over scale_gib (3 runs)", "same settings (2 runs)", ...
    bool rough = false;                ///< one setting only, and not the new run's
    double margin = 0.0;               ///< added to a rough mean or a fit, as a fraction (said in basis)
    std::optional<std::int64_t> weights;  ///< the stage's weights, known exactly ahead
    bool lowerBound = false;           ///< no earlier run: `peak` is the weights alone
};

struct Forecast {
    std::vector<StageForecast> stages;  ///< in the order the earlier runs ran them
    int runs = 0;                       ///< earlier runs of the same pipeline and choices
    /// The largest stage peak; nullopt with no forecast stage.
    std::optional<std::int64_t> peak() const;
    /// The stage of peak(); "" without one.
    std::string peakStage() const;
    /// Some stage is only a lower bound (its weights, no earlier run): the peak may be higher.
    bool partial() const;
};

/// What a rough forecast (a mean over runs at other settings) adds at least, as a fraction.
inline constexpr double kRoughMargin = 0.25;
/// What a forecast from a line fitted through earlier runs adds, as a fraction: the scatter of
/// a stage's peak between runs, so that it is not under the run's peak (goal: under by at most
/// 5 %, over by at most 15 %, at settings never run: `stageload bench forecast`).
inline constexpr double kFitMargin = 0.08;

/// The forecast for a run `key` from `history` (runs of other pipelines or choices are ignored).
/// `held` > 0: the run happens in a process that holds that much now (the app's built-in run):
/// each earlier run counts from what its own process held when it began (its baseline), and the
/// forecast adds `held`, so what the app keeps from run to run is neither missed nor counted
/// twice. 0: a new process, peaks as the traces have them.
/// Where key.weights knows a stage's weights, they are its exact part: the fit is of what the
/// earlier runs held besides their own weights (theirs when their trace says, else these), and
/// the forecast is never below the weights; a stage no earlier run has is forecast as its
/// weights alone, a lower bound, after the stages the history orders.
Forecast forecastRun(const std::vector<RunPoint>& history, const RunKey& key, std::int64_t held = 0);

/// The forecast as JSON: {"runs", "peak", "peak_stage", "stages": [{"stage", "peak", "peak_gb",
/// "runs", "basis", "rough", the "margin" of a rough one, and where known "weights",
/// "weights_gb", "lower_bound"}]}.
nlohmann::ordered_json toJson(const Forecast& f);

/// A table for terminals: stage, forecast GiB, weights GiB where known, basis.
std::string formatForecast(const Forecast& f);

}  // namespace stageload
