#pragma once
// The start line of a run's trace says how the run was set up, in the same keys wherever the
// run was started (the CLI, the app, the benchmarks), so a trace read later shows its settings.
//
//   mp.meta = stageload::runMeta(settings, "hero.png");
//   mp.meta["tool"] = "stageload-studio";
//   RunSettings again = stageload::runSettingsFromMeta(trace.start, RunSettings{});  // and back
//
// Pure and thread-safe.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/api/run_settings.h"
#include "guard/generator/generator_run.h"

namespace stageload {

/// {"pipeline", "load", "seed", "input", "texture_size", "triangles", "height", "thickness",
/// "min_part", "remover", "device"}, the picture's size (addPictureSize()) and, for a learned
/// remover the settings name and that is installed, its weights as preprocess's
/// "stage_weights" (read from the file's header).
nlohmann::json runMeta(const RunSettings& settings, const std::filesystem::path& input);

/// The settings a start line of runMeta()'s (or a record with its keys, and "threads")
/// describes, on top of `base`: each key that is there with a valid value is taken; the others
/// keep `base`'s value and are named in `ignored` ("seed: not a whole number"), when given.
RunSettings runSettingsFromMeta(const nlohmann::json& meta, RunSettings base,
                                std::vector<std::string>* ignored = nullptr);

/// What a generator run's start line has that the guard's run cannot tell by itself: the
/// picture's size (addPictureSize()) and each stage's weights ("stage_weights", from
/// generatorStageWeights(); its problems go to `problems`). runGenerator() takes it as its meta.
nlohmann::json generatorMetaExtras(const GeneratorDef& def, const GeneratorValues& values,
                                   std::vector<std::string>* problems = nullptr);

/// The start line a generator's run of `values` will have: generatorTraceMeta() and
/// generatorMetaExtras(), so forecasts key planned runs the way the history has them.
nlohmann::json generatorRunMeta(const GeneratorDef& def, const GeneratorValues& values,
                                std::vector<std::string>* problems = nullptr);

/// The start line a run about to start will write, so its forecast is keyed the way the
/// history's runs are: runMeta() for the built-in run, else generatorRunMeta() of `generator`
/// given `input`, the settings' seed and texture size, and `params`.
nlohmann::json plannedRunMeta(const RunSettings& settings, const std::filesystem::path& input,
                              const GeneratorDef* generator = nullptr,
                              const std::map<std::string, std::string>& params = {},
                              std::vector<std::string>* problems = nullptr);

/// Adds "picture_width" and "picture_height" (as stored) when `input` is a readable picture:
/// the forecast fits memory across them.
void addPictureSize(nlohmann::json& meta, const std::filesystem::path& input);

}  // namespace stageload
