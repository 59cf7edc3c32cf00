#pragma once
// The bytes of weights each stage of a generator run loads, known before it starts: the files
// its definition lists under "stage_weights", safetensors counted from their headers alone (the
// tensors' bytes, exactly), any other file (.ckpt, .pt, .bin, .gguf) by its size. The forecast
// takes them as the exact part of each stage's peak (guard/forecast/forecast.h).
//
//   std::vector<std::string> problems;
//   const auto weights = stageload::generatorStageWeights(def, values, &problems);
//   // {"shape": 7.1 GiB, "texture": 3.4 GiB}; problems: "stage_weights.texture: no file matches …"
//
// A name may have * and ? in its last part (a folder of shards). A name that matches no file,
// or a header that cannot be read, is named in `problems` and its stage is left out, so a
// forecast never takes a partial sum for exact. Reads headers only; thread-safe; throws only
// what expandStageWeights() throws (GeneratorDefError for a bad placeholder).

#include <string>
#include <vector>

#include "guard/forecast/forecast.h"
#include "guard/generator/generator_def.h"

namespace stageload {

StageWeights generatorStageWeights(const GeneratorDef& def, const GeneratorValues& values,
                                   std::vector<std::string>* problems = nullptr);

}  // namespace stageload
