#include "engine/pipelines/character/character_run.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>

#include <spdlog/spdlog.h>

#include "engine/api/weights.h"
#include "engine/base/text.h"
#include "engine/core/image_tensor.h"
#include "engine/load/safetensors.h"
#include "engine/media/mesh_files.h"
#include "engine/models/isnet.h"
#include "engine/models/u2netp.h"
#include "engine/pipelines/character/inflation.h"
#include "engine/pipelines/character/subject.h"
#include "engine/pipelines/character/surface_mesh.h"
#include "engine/pipelines/character/texture_atlas.h"
#include "engine/registry/staged_models.h"

namespace stageload {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::int64_t kWorkLongSide = 2048;   // pictures larger than this are scaled down
constexpr std::int64_t kFieldLongSide = 1024;  // the finest shape resolution
constexpr std::int64_t kCoarseLongSide = 128;  // the structure stage's resolution
constexpr double kFrontDepth = 0.75, kBackDepth = 0.65;  // × thickness: backs are flatter

double secondsSince(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

torch::Device parseDevice(const std::string& name) {
    if (name == "cpu") return torch::kCPU;
    if (name == "cuda") {
        if (!torch::cuda::is_available())
            throw SettingError("device", "--device cuda",
                               "this LibTorch build has no usable CUDA device (Debian's LibTorch "
                               "is CPU-only); use --device cpu");
        return torch::kCUDA;
    }
    if (name == "mps")
        throw SettingError("device", "--device mps",
                           "Metal is only available in macOS builds; use --device cpu");
    throw SettingError("device", "--device '" + name + "'", "not a device; use cpu, cuda or mps");
}

}  // namespace

std::vector<std::string> availableDevices() {
    std::vector<std::string> devices{"cpu"};
    if (torch::cuda::is_available()) devices.push_back("cuda");
    return devices;
}

namespace {

// [h,w] at `longSide` pixels on the long side (aspect kept).
torch::Tensor atLongSide(const torch::Tensor& t, std::int64_t longSide) {
    const auto h = t.size(-2), w = t.size(-1);
    const double s = static_cast<double>(longSide) / static_cast<double>(std::max(h, w));
    return resizeTensor(t, std::max<std::int64_t>(1, std::llround(h * s)),
                        std::max<std::int64_t>(1, std::llround(w * s)));
}

// The exported mesh: metres, feet at y = 0, centred; one UV per (vertex, sheet) so the front
// and the back map to their own atlas regions.
TexturedMesh assemble(const SheetMesh& sheet, const AtlasLayout& layout, Image texture,
                      const CharacterParams& params) {
    TexturedMesh mesh;
    mesh.name = params.input.stem().string();
    const auto bounds = meshBounds(sheet.positions);
    const double height = std::max(1e-9f, bounds[4] - bounds[1]);
    const double scale = params.heightMeters / height;
    const double cx = (bounds[0] + bounds[3]) / 2, cz = (bounds[2] + bounds[5]) / 2;
    const auto normals = smoothNormals(sheet.positions, sheet.indices);
    std::map<std::pair<std::uint32_t, bool>, std::uint32_t> copies;
    for (std::size_t f = 0; f + 2 < sheet.indices.size(); f += 3) {
        // A face belongs to the sheet most of its vertices belong to; faces made of outline
        // vertices only (after simplification) go by their normal.
        int vote = 0;
        for (int k = 0; k < 3; ++k) {
            const auto side = sheet.sides[sheet.indices[f + k]];
            vote += side == VertexSide::Front ? 1 : side == VertexSide::Back ? -1 : 0;
        }
        if (vote == 0) {
            double nz = 0;
            const auto* p = sheet.positions.data();
            const auto a = sheet.indices[f], b = sheet.indices[f + 1], c = sheet.indices[f + 2];
            nz = (p[3 * b] - p[3 * a]) * (p[3 * c + 1] - p[3 * a + 1]) -
                 (p[3 * b + 1] - p[3 * a + 1]) * (p[3 * c] - p[3 * a]);
            vote = nz >= 0 ? 1 : -1;
        }
        const bool back = vote < 0;
        for (int k = 0; k < 3; ++k) {
            const auto v = sheet.indices[f + k];
            auto [it, added] = copies.emplace(std::make_pair(v, back), static_cast<std::uint32_t>(mesh.vertexCount()));
            if (added) {
                mesh.positions.insert(mesh.positions.end(),
                                      {static_cast<float>((sheet.positions[3 * v] - cx) * scale),
                                       static_cast<float>((sheet.positions[3 * v + 1] - bounds[1]) * scale),
                                       static_cast<float>((sheet.positions[3 * v + 2] - cz) * scale)});
                mesh.normals.insert(mesh.normals.end(), normals.begin() + 3 * v, normals.begin() + 3 * v + 3);
                const auto uv = atlasUv(layout, back, sheet.pixels[2 * v], sheet.pixels[2 * v + 1]);
                mesh.uvs.insert(mesh.uvs.end(), uv.begin(), uv.end());
            }
            mesh.indices.push_back(it->second);
        }
    }
    mesh.texture = std::move(texture);
    return mesh;
}

// Grid cells along the long side for about `oversample` × the budget of triangles.
std::int64_t gridCells(const torch::Tensor& mask, std::size_t triangles, double oversample) {
    const double fill = mask.mean().item<double>();  // of the crop's own rectangle
    const double aspect = static_cast<double>(std::min(mask.size(0), mask.size(1))) /
                          static_cast<double>(std::max(mask.size(0), mask.size(1)));
    const double cells = oversample * static_cast<double>(triangles) / 4.0 / std::max(0.05, fill * aspect);
    return std::clamp<std::int64_t>(std::llround(std::sqrt(cells)), 16, kFieldLongSide);
}

struct RemoverPlan {
    MaskSource source = MaskSource::Classical;  ///< Classical: no learned remover
    std::filesystem::path file;
    std::string notice;                          ///< why the classical cut-out, for the user
};

// Which remover preprocess uses, from the choice and what is installed.
// `plain`: the picture is on an even background (plainBackground()) and has no alpha.
RemoverPlan chooseRemover(const CharacterParams& params, bool plain) {
    const auto& dir = params.weightsDir;
    const auto u2netp = removerWeightsFile(RemoverChoice::U2NetP, dir);
    const auto isnet = removerWeightsFile(RemoverChoice::ISNet, dir);
    const bool haveU2netp = removerInstalled(RemoverChoice::U2NetP, dir);
    const bool haveIsnet = removerInstalled(RemoverChoice::ISNet, dir);
    switch (params.remover) {
    case RemoverChoice::U2NetP:
        if (!haveU2netp)
            throw NotInstalledError(u2netp.string(), "U²-Netp", installHint(RemoverChoice::U2NetP));
        return {MaskSource::U2NetP, u2netp, ""};
    case RemoverChoice::ISNet:
        if (!haveIsnet) throw NotInstalledError(isnet.string(), "ISNet", installHint(RemoverChoice::ISNet));
        return {MaskSource::ISNet, isnet, ""};
    case RemoverChoice::Classical:
        return {MaskSource::Classical, {},
                "the classical cut-out was chosen: it expects a plain background"};
    case RemoverChoice::Auto:
        break;
    }
    // On an even background the classical cut-out finds the whole subject best: mask IoU
    // 0.9993 on the knight on white (U²-Netp 0.9965, ISNet 0.9993, both completed by the
    // drawn outline), and it keeps detached parts U²-Netp misses (a potion beside the knight).
    if (plain) return {MaskSource::Classical, {}, ""};
    // Else U²-Netp first: as good as ISNet on the project's samples once the outline completes
    // them, and ten times faster. ISNet stays one flag away.
    if (haveU2netp) return {MaskSource::U2NetP, u2netp, ""};
    if (haveIsnet) return {MaskSource::ISNet, isnet, ""};
    return {MaskSource::Classical, {},
            "no learned background remover is installed, so the classical cut-out was used: it "
            "expects a plain background (" + installHint(RemoverChoice::U2NetP) + ")"};
}

// The stage plan: which registry objects each stage holds.
std::vector<Stage> characterPlan(bool learnedRemover) {
    return {{"preprocess", learnedRemover ? std::vector<std::string>{"background_remover"}
                                          : std::vector<std::string>{}},
            {"structure", {"structure_solver"}},
            {"shape_512", {"surface_512"}},
            {"shape_1024", {"surface_1024"}},
            {"texture", {"texture_baker"}},
            {"decode", {}},
            {"export", {}}};
}

}  // namespace

const char* maskSourceName(MaskSource source) {
    switch (source) {
    case MaskSource::Alpha: return "alpha";
    case MaskSource::U2NetP: return "u2netp";
    case MaskSource::ISNet: return "isnet";
    case MaskSource::Classical: return "classical";
    }
    return "?";
}

std::vector<std::string> characterStages() {
    std::vector<std::string> names;
    for (const auto& stage : characterPlan(true)) names.push_back(stage.name);
    return names;
}

void validateCharacterParams(const CharacterParams& p) {
    validate(static_cast<const RunSettings&>(p));
    parseDevice(p.device);
    validateMeshOutput(p.output);
}

CharacterResult runCharacter(const CharacterParams& params) {
    validateCharacterParams(params);
    const auto device = parseDevice(params.device);
    if (params.threads > 0) torch::set_num_threads(params.threads);
    const auto started = Clock::now();
    StageRunner::beginRun();
    CharacterResult result;

    // The picture first: a bad file should not wait for any model.
    const auto decoded = readImageFile(params.input);
    result.inputWidth = decoded.image.width;
    result.inputHeight = decoded.image.height;
    result.notices.insert(result.notices.end(), decoded.notices.begin(), decoded.notices.end());
    auto rgba = imageToTensor(decoded.image);
    if (std::max(rgba.size(1), rgba.size(2)) > kWorkLongSide) {
        rgba = atLongSide(rgba, kWorkLongSide).clamp(0, 1);
        result.notices.push_back("the picture (" + std::to_string(result.inputWidth) + "×" +
                                 std::to_string(result.inputHeight) + ") was scaled down to " +
                                 std::to_string(rgba.size(2)) + "×" + std::to_string(rgba.size(1)) +
                                 " for the work");
    }
    result.workWidth = static_cast<int>(rgba.size(2));
    result.workHeight = static_cast<int>(rgba.size(1));
    const bool useAlpha = decoded.hasAlpha && alphaIsMeaningful(rgba[3]);

    const auto remover = chooseRemover(params, !useAlpha && plainBackground(rgba.slice(0, 0, 3)));
    const bool learned = remover.source != MaskSource::Classical;

    std::vector<std::pair<std::string, Loader>> loaders;
    if (learned)
        loaders.emplace_back("background_remover", [source = remover.source, file = remover.file,
                                                     device]() -> std::shared_ptr<torch::nn::Module> {
            const auto ready = [&](auto net) -> std::shared_ptr<torch::nn::Module> {  // for inference
                net->to(device);
                net->eval();
                return net.ptr();
            };
            return source == MaskSource::ISNet ? ready(loadISNet(file)) : ready(loadU2NetP(file));
        });
    const auto texture = static_cast<std::int64_t>(params.textureSize);
    loaders.emplace_back("structure_solver", [device] { return SurfaceSolver(kCoarseLongSide, device).ptr(); });
    loaders.emplace_back("surface_512", [device] { return SurfaceSolver(512, device).ptr(); });
    loaders.emplace_back("surface_1024", [device] { return SurfaceSolver(kFieldLongSide, device).ptr(); });
    loaders.emplace_back("texture_baker", [texture, device] { return TextureBaker(texture, device).ptr(); });
    const auto plan = characterPlan(learned);

    EventLog log;
    StagedModelsOptions options;
    options.events = fanOut({log.sink(), params.events});
    options.mode = params.mode;
    StagedModels models(std::move(loaders), plan, std::move(options));  // eager: all built now
    torch::NoGradGuard noGrad;
    torch::manual_seed(static_cast<std::uint64_t>(params.seed));

    Subject subject;
    torch::Tensor fineMask, u, front, back, atlas;
    AtlasLayout layout;
    SheetMesh sheet;

    StageRunner stages(models, log, params.onStage, params.cancel, "the character run");
    auto runStage = [&](const std::string& name, const std::function<void()>& work) {
        result.stages.push_back(stages.run(name, work));
        spdlog::debug("stage {}: {:.2f} s", name, result.stages.back().seconds);
    };

    runStage("preprocess", [&] {
        MaskPredictor predictor;
        // The networks see 320² (U²-Netp) or 1024² (ISNet): shrink with area averaging first so
        // large pictures are not sampled coarsely, and bring the mask back to full size.
        if (remover.source == MaskSource::U2NetP)
            predictor = [&](const torch::Tensor& rgb) {
                auto net = models.get<U2NetPImpl>("background_remover");
                auto mask = u2netpMask(*net, atLongSide(rgb, 640).clamp(0, 1).to(device));
                return resizeTensor(mask.to(torch::kCPU), rgb.size(1), rgb.size(2)).clamp(0, 1);
            };
        if (remover.source == MaskSource::ISNet)
            predictor = [&](const torch::Tensor& rgb) {
                auto net = models.get<ISNetImpl>("background_remover");
                auto mask = isnetMask(*net, atLongSide(rgb, 1024).clamp(0, 1).to(device));
                return resizeTensor(mask.to(torch::kCPU), rgb.size(1), rgb.size(2)).clamp(0, 1);
            };
        if (!learned && !useAlpha && !remover.notice.empty()) result.notices.push_back(remover.notice);
        subject = extractSubject(rgba, useAlpha, predictor, remover.source, params.minPart / 100.0,
                                 params.input.string());
        result.maskSource = subject.source;
        result.parts = subject.parts;
        result.droppedParts = subject.droppedParts;
        if (!subject.cutAt.empty())
            result.notices.push_back("the subject touches the picture's " + joinWords(subject.cutAt) +
                                     " edge" + (subject.cutAt.size() > 1 ? "s" : "") +
                                     ": it is probably cut off there, and the mesh ends where "
                                     "the picture does; use a picture that shows the whole character");
        result.subjectMask = tensorToImage(subject.region.to(torch::kFloat32));
        result.cutout = tensorToImage(torch::cat({subject.rgb, subject.alpha.unsqueeze(0)}));
        fineMask = atLongSide(subject.alpha, kFieldLongSide).clamp(0, 1);
    });
    if (params.onCutout) params.onCutout(result.cutout);
    runStage("structure", [&] {
        auto solver = models.get<SurfaceSolverImpl>("structure_solver");
        u = solver->solve(atLongSide(fineMask, kCoarseLongSide).to(device) >= 0.5, {}, 600);
    });
    runStage("shape_512", [&] {
        auto solver = models.get<SurfaceSolverImpl>("surface_512");
        u = solver->solve(atLongSide(fineMask, 512).to(device) >= 0.5, u, 250);
    });
    runStage("shape_1024", [&] {
        auto solver = models.get<SurfaceSolverImpl>("surface_1024");
        u = solver->solve(fineMask.to(device) >= 0.5, u, 150).to(torch::kCPU);
        // √u rises steeply from the outline, so the pixel staircase of the silhouette would
        // show on the rim as terraces: a light blur of the heights evens it out.
        auto height = gaussianBlur(inflateHeight(u, 1.0), 2.0);
        front = height * (kFrontDepth * params.thickness);
        back = height * (kBackDepth * params.thickness);
        spdlog::debug("shape residual {:.3g}", solver->residual());
    });
    runStage("texture", [&] {
        layout = planAtlas(fineMask.size(1), fineMask.size(0), texture);
        atlas = models.get<TextureBakerImpl>("texture_baker")->bake(subject.rgb, subject.alpha, layout).to(torch::kCPU);
    });
    runStage("decode", [&] {
        const auto budget = static_cast<std::size_t>(params.triangles);
        const double minShare = params.minPart / 100.0;
        sheet = buildSheetMesh(fineMask, front, back, gridCells(fineMask, budget, 3.0), minShare);
        if (!decimateSheetMesh(sheet, budget)) {
            // A grid coarse enough to need no simplification is closed by construction.
            spdlog::debug("simplification did not stay manifold; meshing at the budget instead");
            double oversample = 0.95;
            do {
                sheet = buildSheetMesh(fineMask, front, back, gridCells(fineMask, budget, oversample), minShare);
                oversample *= 0.9;
            } while (sheet.indices.size() / 3 > budget && oversample > 0.01);
        }
        result.mesh = assemble(sheet, layout, tensorToImage(atlas), params);
        result.meshReport = checkMesh(result.mesh.positions, result.mesh.indices);
        if (!result.meshReport.closedManifold())
            spdlog::warn("the mesh is not a closed manifold: {}", result.meshReport.describe());
    });
    runStage("export", [&] { result.files = writeMeshFile(result.mesh, params.output); });
    models.close();
    result.events = log.events();
    result.seconds = secondsSince(started);
    return result;
}

}  // namespace stageload
