#include "engine/pipelines/standin/standin_pipeline.h"

#include <chrono>
#include <cmath>
#include <functional>

#include <ATen/CPUGeneratorImpl.h>
#include <spdlog/spdlog.h>

#include "engine/core/fingerprint.h"
#include "engine/load/safetensors.h"
#include "guard/memory/process_memory.h"

namespace stageload {
namespace {

constexpr std::int64_t kWidth = 512;  // one layer = 512x512 floats + bias, about 1 MiB
constexpr std::int64_t kBatch = 8;

// A stack of tanh(Linear) layers: random init draws from the global generator, like real models.
class StandinNet : public torch::nn::Module {
public:
    explicit StandinNet(std::int64_t layers) {
        for (std::int64_t i = 0; i < layers; ++i)
            layers_.push_back(register_module("l" + std::to_string(i),
                                              torch::nn::Linear(kWidth, kWidth)));
    }
    torch::Tensor forward(torch::Tensor x) {
        for (auto& l : layers_) x = torch::tanh(l->forward(x));
        return x;
    }

private:
    std::vector<torch::nn::Linear> layers_;
};

std::int64_t layersFor(double share, double totalMiB) {
    const double layerMiB = static_cast<double>((kWidth + 1) * kWidth * 4) / (1 << 20);
    return std::max<std::int64_t>(1, std::llround(share * totalMiB / layerMiB));
}

// The model's weights, generated from its own generator (never the global one).
std::filesystem::path ensureWeights(const std::filesystem::path& dir, const std::string& name,
                                    std::int64_t layers) {
    const auto path = dir / (name + "-" + std::to_string(layers) + "x" + std::to_string(kWidth) +
                             ".safetensors");
    if (std::filesystem::exists(path)) {
        try {
            auto file = SafetensorsFile::open(path);
            if (file.tensors().size() == static_cast<std::size_t>(2 * layers)) return path;
        } catch (const Error& e) {
            spdlog::warn("regenerating damaged stand-in weights: {}", e.what());
        }
    }
    std::filesystem::create_directories(dir);
    auto gen = at::make_generator<at::CPUGeneratorImpl>(std::hash<std::string>{}(name));
    const double bound = 1.0 / std::sqrt(static_cast<double>(kWidth));
    std::vector<std::pair<std::string, torch::Tensor>> tensors;
    for (std::int64_t i = 0; i < layers; ++i) {
        const auto prefix = "l" + std::to_string(i) + ".";
        tensors.emplace_back(prefix + "weight",
                             torch::rand({kWidth, kWidth}, gen).mul_(2 * bound).sub_(bound));
        tensors.emplace_back(prefix + "bias", torch::rand({kWidth}, gen).mul_(2 * bound).sub_(bound));
    }
    writeSafetensors(path, tensors, {{"stageload", "stand-in model " + name}});
    return path;
}

}  // namespace

const std::vector<StandinModel>& standinModels() {
    // Shares follow the resident sizes of Pixal3D's models (SPEC §5.3).
    static const std::vector<StandinModel> models{
        {"remover", 0.824 / 11.5},        {"backbone", 1.138 / 11.5},
        {"structure_flow", 2.529 / 11.5}, {"shape_flow", 2.616 / 11.5},
        {"shape_decoder", 0.883 / 11.5},  {"texture_flow", 2.616 / 11.5},
        {"texture_decoder", 0.883 / 11.5},
    };
    return models;
}

const std::vector<Stage>& standinPlan() {
    static const std::vector<Stage> plan{
        {"preprocess", {"remover"}},
        {"structure", {"backbone", "structure_flow"}},
        {"shape", {"backbone", "shape_flow", "shape_decoder"}},
        {"texture", {"backbone", "texture_flow"}},
        {"decode", {"shape_decoder", "texture_decoder"}},
        {"export", {}},
    };
    return plan;
}

StandinResult runStandin(const StandinParams& params) {
    std::vector<std::pair<std::string, Loader>> loaders;
    for (const auto& m : standinModels()) {
        const auto layers = layersFor(m.share, params.totalMiB);
        const auto path = ensureWeights(params.cacheDir, m.name, layers);
        loaders.emplace_back(m.name, [path, layers]() -> std::shared_ptr<torch::nn::Module> {
            auto net = std::make_shared<StandinNet>(layers);  // random init: draws global RNG
            loadWeights(*net, SafetensorsFile::open(path));
            return net;
        });
    }

    EventLog log;
    StagedModelsOptions options;
    options.events = fanOut({log.sink(), params.events});
    options.preserveRng = params.preserveRng;
    options.mode = params.mode;
    StagedModels models(std::move(loaders), standinPlan(), std::move(options));

    torch::NoGradGuard noGrad;
    torch::manual_seed(static_cast<std::uint64_t>(params.seed));
    auto latent = torch::zeros({kBatch, kWidth});
    StandinResult result;
    for (const auto& stage : standinPlan()) {
        resetPeakRss();
        const auto start = std::chrono::steady_clock::now();
        models.enter(stage.name);
        // Like a sampler: each model step draws fresh noise after the model is at hand.
        if (stage.models.empty()) latent = latent * 0.5 + torch::randn({kBatch, kWidth});
        for (const auto& name : stage.models) {
            auto net = models.get<StandinNet>(name);
            latent = net(latent * 0.5 + torch::randn({kBatch, kWidth}));
        }

        StandinStage s;
        s.name = stage.name;
        s.latent = latent.clone();
        s.fingerprint = fingerprintHex(latent);
        s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        s.peakRss = readProcessMemory().peakRss;
        s.weightBytes = models.loadedBytes();
        result.stages.push_back(std::move(s));
    }
    models.close();
    result.events = log.events();
    return result;
}

}  // namespace stageload
