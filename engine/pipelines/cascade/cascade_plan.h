#pragma once
// The stand-in cascade's models and stage plan: Pixal3D's 1024_cascade with model
// sizes in the proportions measured in the real staged trace, scaled to any total.
//
//   for (const auto& m : stageload::cascadeModels()) bytes[m.name] = m.share * totalBytes;
//   const auto& plan = stageload::cascadePlan();          // preprocess ... export

#include <string>
#include <vector>

#include "engine/registry/stage.h"

namespace stageload {

struct CascadeModel {
    std::string name;
    double share;  ///< fraction of all weights
};

/// Models in registration order. `image_cond_models` is four feature extractors sharing one
/// backbone (built once through SharedBuilds) plus their small heads.
const std::vector<CascadeModel>& cascadeModels();

/// Stages in order, each with the models resident during it.
const std::vector<Stage>& cascadePlan();

/// Working memory of a stage (activations, sampler state) as a fraction of all weights. The
/// texture stage's working set is larger than its weights, as in the real run.
double cascadeWorkingShare(const std::string& stage);

/// Number of flow-like sampler steps a stage runs.
int cascadeSteps(const std::string& stage);

}  // namespace stageload
