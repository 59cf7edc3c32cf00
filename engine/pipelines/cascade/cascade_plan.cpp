#include "engine/pipelines/cascade/cascade_plan.h"

namespace stageload {
namespace {

// Resident GiB of each model in a real staged Pixal3D trace; the camera estimator is not
// in that trace and is given a small size.
constexpr double kTotalGiB = 0.824 + 0.20 + 1.138 + 0.05 + 2.529 + 0.137 + 2.616 + 0.883 +
                             2.616 + 2.616 + 0.883;

}  // namespace

const std::vector<CascadeModel>& cascadeModels() {
    static const std::vector<CascadeModel> models{
        {"rembg_model", 0.824 / kTotalGiB},
        {"camera_model", 0.20 / kTotalGiB},
        {"image_cond_models", 1.138 / kTotalGiB},
        {"upsampler", 0.05 / kTotalGiB},
        {"sparse_structure_flow_model", 2.529 / kTotalGiB},
        {"sparse_structure_decoder", 0.137 / kTotalGiB},
        {"shape_slat_flow_model_512", 2.616 / kTotalGiB},
        {"shape_slat_decoder", 0.883 / kTotalGiB},
        {"shape_slat_flow_model_1024", 2.616 / kTotalGiB},
        {"tex_slat_flow_model_1024", 2.616 / kTotalGiB},
        {"tex_slat_decoder", 0.883 / kTotalGiB},
    };
    return models;
}

const std::vector<Stage>& cascadePlan() {
    static const std::vector<Stage> plan{
        {"preprocess", {"rembg_model"}},
        {"camera", {"camera_model"}},
        {"structure",
         {"image_cond_models", "sparse_structure_flow_model", "sparse_structure_decoder"}},
        {"shape_512",
         {"image_cond_models", "upsampler", "shape_slat_flow_model_512", "shape_slat_decoder"}},
        {"shape_1024", {"image_cond_models", "upsampler", "shape_slat_flow_model_1024"}},
        {"texture", {"image_cond_models", "upsampler", "tex_slat_flow_model_1024"}},
        {"decode", {"shape_slat_decoder", "tex_slat_decoder"}},
        {"export", {}},
    };
    return plan;
}

double cascadeWorkingShare(const std::string& stage) {
    if (stage == "texture") return 0.30;  // > the texture flow's 0.17: working set dominates
    if (stage == "shape_1024") return 0.12;
    if (stage == "decode" || stage == "export") return 0.08;
    if (stage == "structure" || stage == "shape_512") return 0.06;
    return 0.02;
}

int cascadeSteps(const std::string& stage) {
    if (stage == "structure" || stage == "shape_512" || stage == "shape_1024" || stage == "texture")
        return 4;
    return 1;
}

}  // namespace stageload
