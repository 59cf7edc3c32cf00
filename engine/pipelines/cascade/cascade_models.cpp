#include "engine/pipelines/cascade/cascade_models.h"

#include <chrono>
#include <cmath>
#include <functional>

#include <ATen/CPUGeneratorImpl.h>
#include <spdlog/spdlog.h>

#include "engine/api/errors.h"
#include "engine/load/safetensors.h"

namespace stageload {

LayerStack::LayerStack(std::int64_t layers) {
    for (std::int64_t i = 0; i < layers; ++i)
        layers_.push_back(register_module("l" + std::to_string(i),
                                          torch::nn::Linear(kCascadeWidth, kCascadeWidth)));
}

torch::Tensor LayerStack::forward(torch::Tensor x) {
    for (auto& l : layers_) x = torch::tanh(l->forward(x));
    return x;
}

ImageCondModels::ImageCondModels(const std::function<std::shared_ptr<LayerStack>()>& backbone,
                                 std::int64_t headLayers) {
    for (int i = 0; i < 4; ++i) {
        auto extractor = register_module("extractor" + std::to_string(i),
                                         std::make_shared<torch::nn::Module>());
        backbone_ = backbone();
        extractor->register_module("backbone", backbone_);
        heads_.push_back(extractor->register_module("head", std::make_shared<LayerStack>(headLayers)));
    }
}

torch::Tensor ImageCondModels::forward(torch::Tensor x) {
    const auto features = backbone_->forward(x);
    auto out = torch::zeros_like(features);
    for (auto& head : heads_) out = out + head->forward(features);
    return out / static_cast<double>(heads_.size());
}

std::int64_t layersForBytes(double bytes) {
    const double layerBytes = static_cast<double>((kCascadeWidth + 1) * kCascadeWidth * 4);
    return std::max<std::int64_t>(1, std::llround(bytes / layerBytes));
}

std::filesystem::path ensureStackWeights(const std::filesystem::path& dir, const std::string& name,
                                         std::int64_t layers) {
    const auto path = dir / (name + "-" + std::to_string(layers) + "x" +
                             std::to_string(kCascadeWidth) + ".safetensors");
    if (std::filesystem::exists(path)) {
        try {
            if (SafetensorsFile::open(path).tensors().size() == static_cast<std::size_t>(2 * layers))
                return path;
        } catch (const Error& e) {
            spdlog::warn("regenerating damaged cascade weights: {}", e.what());
        }
    }
    std::filesystem::create_directories(dir);
    // Its own generator: preparing weights never moves the global one.
    auto gen = at::make_generator<at::CPUGeneratorImpl>(std::hash<std::string>{}(name));
    const double bound = 1.0 / std::sqrt(static_cast<double>(kCascadeWidth));
    std::vector<std::pair<std::string, torch::Tensor>> tensors;
    for (std::int64_t i = 0; i < layers; ++i) {
        const auto prefix = "l" + std::to_string(i) + ".";
        tensors.emplace_back(prefix + "weight", torch::rand({kCascadeWidth, kCascadeWidth}, gen)
                                                    .mul_(2 * bound)
                                                    .sub_(bound));
        tensors.emplace_back(prefix + "bias",
                             torch::rand({kCascadeWidth}, gen).mul_(2 * bound).sub_(bound));
    }
    writeSafetensors(path, tensors, {{"stageload", "stand-in cascade model " + name}});
    return path;
}

void readWeights(torch::nn::Module& module, const std::filesystem::path& file,
                 WeightReads* reads) {
    const auto start = std::chrono::steady_clock::now();
    const auto report = loadWeights(module, SafetensorsFile::open(file));
    if (!reads) return;
    reads->seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    reads->bytes += report.bytes;
}

std::shared_ptr<LayerStack> loadStack(const std::filesystem::path& file, std::int64_t layers,
                                      WeightReads* reads) {
    auto stack = std::make_shared<LayerStack>(layers);  // random init draws the global generator
    readWeights(*stack, file, reads);
    return stack;
}

}  // namespace stageload
