#pragma once
// The stand-in cascade's modules and their weight files.
//
// Each model is a stack of tanh(Linear 512x512) layers sized to its share of the weights. Like
// real models, building one runs random init (drawing from the global CPU generator) before the
// weights are loaded from its safetensors file; the files are generated once, deterministically,
// from private generators, so the global generator is never touched by preparation.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/torch_nn.h"

namespace stageload {

/// Width of every layer (one layer is about 1 MiB of float32).
constexpr std::int64_t kCascadeWidth = 512;

class LayerStack : public torch::nn::Module {
public:
    explicit LayerStack(std::int64_t layers);
    torch::Tensor forward(torch::Tensor x);
    std::int64_t layers() const { return static_cast<std::int64_t>(layers_.size()); }

private:
    std::vector<torch::nn::Linear> layers_;
};

/// Four feature extractors, each asking `backbone()` for its backbone (inside a SharedBuilds
/// scope they all get one instance) and holding a head of its own.
class ImageCondModels : public torch::nn::Module {
public:
    ImageCondModels(const std::function<std::shared_ptr<LayerStack>()>& backbone,
                    std::int64_t headLayers);
    torch::Tensor forward(torch::Tensor x);
    const std::vector<std::shared_ptr<LayerStack>>& heads() const { return heads_; }

private:
    std::shared_ptr<LayerStack> backbone_;
    std::vector<std::shared_ptr<LayerStack>> heads_;
};

/// Layers for `bytes` of weights (at least one).
std::int64_t layersForBytes(double bytes);

/// The weight file of a LayerStack with `layers` layers named `name` in `dir`, written once
/// (again if the existing one is damaged). Throws WeightFileError when it cannot be written.
std::filesystem::path ensureStackWeights(const std::filesystem::path& dir, const std::string& name,
                                         std::int64_t layers);

/// Time spent reading weight files into built modules (random init excluded).
struct WeightReads {
    double seconds = 0.0;
    std::int64_t bytes = 0;
};

/// Loads `file` into `module`, adding the read to `reads` when given.
void readWeights(torch::nn::Module& module, const std::filesystem::path& file,
                 WeightReads* reads);

/// Builds a LayerStack (random init) and loads it from `file`.
std::shared_ptr<LayerStack> loadStack(const std::filesystem::path& file, std::int64_t layers,
                                      WeightReads* reads = nullptr);

}  // namespace stageload
