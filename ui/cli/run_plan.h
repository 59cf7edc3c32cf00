#pragma once
// What a run about to start is, as far as its forecast goes: the start line it would write
// (from the same flags as `stageload run`), and `--need forecast` made a size from the history.
//
//   const auto meta = plannedMeta("hero.png", "", {}, flags);             // the built-in run
//   const auto need = forecastNeed(meta, earlierRuns("out/hero.glb"));     // nullopt: no history
//   const auto run = parseRunCommand({"stageload", "run", "hero.png", "-o", "hero.glb"});
//
// Throws UsageError for flags that `stageload run` would refuse, GeneratorDefError for a bad
// definition. Single-threaded use (it prints notes on stderr).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/api/run_settings.h"
#include "ui/cli/run_flags.h"

namespace stageload::cli {

/// The start line of a run of `input`: the built-in pipeline with the settings `flags` give, a
/// generator (a definition file or the name of one) with `params` (KEY=VALUE, and --load as its
/// load param), or (`cascadeScale` > 0) the stand-in cascade.
nlohmann::json plannedMeta(const std::string& input, const std::string& generator,
                           const std::vector<std::string>& params, const RunFlags& flags,
                           double cascadeScale = 0.0);

/// Where the earlier runs of a run writing `output` (and `trace`, when given) are: the generator
/// runs beside the output (their <name>.run/trace.jsonl) and the traces beside `trace`.
std::vector<std::filesystem::path> earlierRuns(const std::filesystem::path& output,
                                               const std::filesystem::path& trace = {});

/// `--need forecast`: the forecast peak of the run `meta` describes plus the margin, from the
/// app's history and `more` traces or folders; prints how it was found ("[guard] need …") or,
/// with no earlier run, a note, and returns nullopt.
std::optional<std::int64_t> forecastNeed(const nlohmann::json& meta,
                                         std::vector<std::filesystem::path> more = {});

/// A `stageload run ...` command line (the program's name starts with "stageload"): the meta of
/// the run it asks for, its output and trace. nullopt for any other command.
struct PlannedRun {
    nlohmann::json meta;
    std::filesystem::path output;
    std::filesystem::path trace;  ///< its --trace, "" when none
};
std::optional<PlannedRun> parseRunCommand(const std::vector<std::string>& command);

}  // namespace stageload::cli
