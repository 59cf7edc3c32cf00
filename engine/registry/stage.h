#pragma once
// One stage of a pipeline's plan and the models resident during it. Torch-free, so a plan can be
// read (cascade_plan.h) without the registry that runs it (staged_models.h).

#include <string>
#include <vector>

namespace stageload {

struct Stage {
    std::string name;
    std::vector<std::string> models;  ///< models resident during this stage
};

}  // namespace stageload
