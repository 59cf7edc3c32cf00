#include "engine/pipelines/cascade/cascade_run.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <vector>

#include "engine/core/fingerprint.h"
#include "engine/pipelines/cascade/cascade_models.h"
#include "engine/pipelines/cascade/cascade_plan.h"
#include "engine/registry/shared_builds.h"
#include "engine/registry/staged_models.h"
#include "guard/memory/process_memory.h"

namespace stageload {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::int64_t kBatch = 8;
constexpr int kHeads = 4;
constexpr std::int64_t kHeadLayers = 1;

double secondsSince(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

struct Files {
    std::map<std::string, std::pair<std::filesystem::path, std::int64_t>> stacks;  // name -> file, layers
};

Files cascadeFiles(const std::filesystem::path& dir, double scaleGiB) {
    Files f;
    const double total = scaleGiB * static_cast<double>(1ll << 30);
    for (const auto& m : cascadeModels()) {
        auto layers = layersForBytes(m.share * total);
        if (m.name == "image_cond_models") {
            layers = std::max<std::int64_t>(1, layers - kHeads * kHeadLayers);
            for (int i = 0; i < kHeads; ++i) {
                const auto head = "image_cond_head" + std::to_string(i);
                f.stacks[head] = {ensureStackWeights(dir, head, kHeadLayers), kHeadLayers};
            }
            f.stacks["image_cond_backbone"] = {ensureStackWeights(dir, "image_cond_backbone", layers),
                                               layers};
            continue;
        }
        f.stacks[m.name] = {ensureStackWeights(dir, m.name, layers), layers};
    }
    return f;
}

std::vector<std::pair<std::string, Loader>> cascadeLoaders(
    const Files& files, const std::shared_ptr<WeightReads>& reads) {
    std::vector<std::pair<std::string, Loader>> loaders;
    for (const auto& m : cascadeModels()) {
        if (m.name == "image_cond_models") {
            loaders.emplace_back(m.name, [files, reads]() -> std::shared_ptr<torch::nn::Module> {
                // Four extractors, one backbone: built and loaded once within the scope.
                SharedBuilds::Scope scope;
                const auto& [bbFile, bbLayers] = files.stacks.at("image_cond_backbone");
                auto group = std::make_shared<ImageCondModels>(
                    [&] {
                        return SharedBuilds::get<LayerStack>(
                            "image_cond_backbone",
                            [&] { return loadStack(bbFile, bbLayers, reads.get()); });
                    },
                    kHeadLayers);
                for (int i = 0; i < kHeads; ++i)
                    readWeights(*group->heads()[static_cast<std::size_t>(i)],
                                files.stacks.at("image_cond_head" + std::to_string(i)).first,
                                reads.get());
                return group;
            });
            continue;
        }
        const auto [file, layers] = files.stacks.at(m.name);
        loaders.emplace_back(m.name, [file, layers, reads]() -> std::shared_ptr<torch::nn::Module> {
            return loadStack(file, layers, reads.get());
        });
    }
    return loaders;
}

// One flow-like sampler step: fresh noise, the model's velocity, an Euler update.
torch::Tensor step(torch::nn::Module& model, const torch::Tensor& latent, double dt) {
    const auto noisy = latent + torch::randn({kBatch, kCascadeWidth}) * 0.1;
    torch::Tensor velocity;
    if (auto* stack = dynamic_cast<LayerStack*>(&model)) velocity = stack->forward(noisy);
    else velocity = dynamic_cast<ImageCondModels&>(model).forward(noisy);
    return latent + dt * (velocity - latent);
}

}  // namespace

std::vector<std::filesystem::path> prepareCascadeWeights(const std::filesystem::path& cacheDir,
                                                         double scaleGiB) {
    std::vector<std::filesystem::path> paths;
    for (const auto& [name, file] : cascadeFiles(cacheDir, scaleGiB).stacks)
        paths.push_back(file.first);
    return paths;
}

CascadeResult runCascade(const CascadeParams& params) {
    const auto& plan = cascadePlan();
    if (!params.stopAt.empty() &&
        std::none_of(plan.begin(), plan.end(), [&](const Stage& s) { return s.name == params.stopAt; })) {
        std::vector<std::string> names;
        for (const auto& s : plan) names.push_back(s.name);
        throw UnknownStageError(params.stopAt, names);
    }
    const auto files = cascadeFiles(params.cacheDir, params.scaleGiB);
    const auto started = Clock::now();
    StageRunner::beginRun();
    CascadeResult result;
    result.baselineRss = params.baselineRss.value_or(readProcessMemory().rss);

    EventLog log;
    StagedModelsOptions options;
    options.events = fanOut({log.sink(), params.events});
    options.preserveRng = params.preserveRng;
    options.mode = params.mode;
    auto reads = std::make_shared<WeightReads>();
    StagedModels models(cascadeLoaders(files, reads), plan, std::move(options));  // eager: all

    torch::NoGradGuard noGrad;
    torch::manual_seed(static_cast<std::uint64_t>(params.seed));
    const double totalBytes = params.scaleGiB * static_cast<double>(1ll << 30);
    auto latent = torch::zeros({kBatch, kCascadeWidth});
    auto cancelled = [&] { return params.cancel && params.cancel->load(); };
    StageRunner stages(models, log, params.onStage, params.cancel, "the cascade run");

    for (const auto& stage : plan) {
        if (stage.name == params.stopAt) {
            result.stoppedAt = stage.name;
            break;
        }
        const auto readsBefore = *reads;
        CascadeStage s;
        static_cast<StageStats&>(s) = stages.run(stage.name, [&] {
            // As in a real stage, its models are loaded at first use and its activations after.
            std::vector<Model<torch::nn::Module>> stageModels;
            for (const auto& name : stage.models) stageModels.push_back(models.get(name));

            // The stage's working memory (activations), touched so it is really resident.
            s.workingBytes = static_cast<std::int64_t>(cascadeWorkingShare(stage.name) * totalBytes) / 4 * 4;
            auto work = torch::empty({s.workingBytes / 4});
            work.fill_(latent.abs().mean().item<float>());

            const int steps = cascadeSteps(stage.name);
            if (stage.models.empty()) latent = latent * 0.5 + torch::randn({kBatch, kCascadeWidth});
            for (auto& model : stageModels) {
                for (int i = 0; i < steps; ++i) {
                    if (cancelled())
                        throw Cancelled("the cascade run was cancelled in stage '" + stage.name + "'");
                    latent = step(*model, latent, 1.0 / steps);
                }
            }
            latent = latent + work.sum() * 1e-12;
            work = torch::Tensor();
            const auto flat = latent.to(torch::kFloat32).contiguous();
            s.latent.assign(flat.data_ptr<float>(), flat.data_ptr<float>() + flat.numel());
            s.latentShape = latent.sizes().vec();
            s.fingerprint = fingerprintHex(latent);
        });
        s.readSeconds = reads->seconds - readsBefore.seconds;
        s.readBytes = reads->bytes - readsBefore.bytes;
        result.stages.push_back(std::move(s));
    }
    models.close();
    result.readSeconds = reads->seconds;
    result.readBytes = reads->bytes;
    result.events = log.events();
    result.seconds = secondsSince(started);
    return result;
}

}  // namespace stageload
