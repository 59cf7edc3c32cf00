#pragma once
// TorchScript models (exported from Python with torch.jit.save) as registry modules.
//
//   auto depth = stageload::loadTorchScript("depth.pt", torch::kCPU);
//   torch::Tensor d = depth->forward(image);                     // single tensor in and out
//   auto out = depth->forward(std::vector<torch::jit::IValue>{image, mask});
//
// ScriptModel is a torch::nn::Module so the registry can load, count and release it like any
// other model; its tensors live in the wrapped script module.

#include <filesystem>
#include <memory>
#include <vector>

#include <torch/script.h>
#include "engine/core/torch_nn.h"

namespace stageload {

class ScriptModel : public torch::nn::Module {
public:
    explicit ScriptModel(torch::jit::Module script);

    /// Runs the script's forward with these inputs.
    torch::jit::IValue forward(std::vector<torch::jit::IValue> inputs);
    /// Convenience for one tensor in, one tensor out; throws stageload::Error if the script
    /// returns something else.
    torch::Tensor forward(torch::Tensor input);

    torch::jit::Module& script() { return script_; }
    const torch::jit::Module& script() const { return script_; }

private:
    torch::jit::Module script_;
};

/// Loads a TorchScript file straight onto `device` in eval mode. Throws WeightFileError naming
/// the file when it is missing or not a TorchScript archive.
std::shared_ptr<ScriptModel> loadTorchScript(const std::filesystem::path& file,
                                             torch::Device device = torch::kCPU);

}  // namespace stageload
