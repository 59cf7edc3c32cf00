#include "engine/pipelines/character/character_run.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>

#include <spdlog/spdlog.h>
#include <torch/cuda.h>

#include "engine/api/weights.h"
#include "guard/base/text.h"
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

// Where the exported mesh lies on the picture (`width`×`height`, as read). A sheet position is
// a pixel (px, py) of the mask it was built on, as ((px − w/2)·unit, (h − py)·unit) with
// unit = 1 / its long side (addVertex); that mask is the subject's crop resized, the crop lies
// in the picture the work was done on (subject.region's size: the picture scaled down when it
// was over kWorkLongSide), and the exported position is the sheet's moved by (−cx, −bottom)
// and scaled.
PicturePlacement placeOnPicture(const SheetMesh& sheet, const Subject& subject, double cx, double bottom,
                                double scale, int width, int height) {
    const auto fh = static_cast<double>(sheet.front.size(0)), fw = static_cast<double>(sheet.front.size(1));
    const double unit = 1.0 / std::max(fh, fw);
    // Picture pixels per work pixel, and per mask pixel.
    const double wx = width / static_cast<double>(subject.region.size(1));
    const double wy = height / static_cast<double>(subject.region.size(0));
    const double kx = wx * static_cast<double>(subject.alpha.size(1)) / fw;
    const double ky = wy * static_cast<double>(subject.alpha.size(0)) / fh;
    PicturePlacement p;
    p.width = width;
    p.height = height;
    p.sx = kx / (unit * scale);
    p.sy = ky / (unit * scale);
    p.x0 = wx * static_cast<double>(subject.cropX) + kx * (cx / unit + fw / 2);
    p.y0 = wy * static_cast<double>(subject.cropY) + ky * (fh - bottom / unit);
    return p;
}

// The exported mesh: metres, feet at y = 0, centred; one UV per (vertex, sheet) so the front
// and the back map to their own atlas regions.
TexturedMesh assemble(const SheetMesh& sheet, const Subject& subject, const AtlasLayout& layout,
                      Image texture, const CharacterParams& params, int pictureWidth, int pictureHeight) {
    TexturedMesh mesh;
    mesh.name = params.input.stem().string();
    const auto bounds = meshBounds(sheet.positions);
    const double height = std::max(1e-9f, bounds[4] - bounds[1]);
    const double scale = params.heightMeters / height;
    const double cx = (bounds[0] + bounds[3]) / 2, cz = (bounds[2] + bounds[5]) / 2;
    mesh.placement = placeOnPicture(sheet, subject, cx, bounds[1], scale, pictureWidth, pictureHeight);
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
// `plain`: the picture is on a background of one even colour (plainBackground()) and has no
// alpha.
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
    // On one even colour the classical cut-out finds the whole subject best: mask IoU
    // 0.9993 on the knight on white (U²-Netp 0.9965, ISNet 0.9993, both completed by the
    // drawn outline), and it keeps detached parts U²-Netp misses (a potion beside the knight).
    if (plain) return {MaskSource::Classical, {}, ""};
    // Else U²-Netp first: as good as ISNet on the project's samples once the outline completes
    // them, and ten times faster. ISNet stays one flag away. On a gradient or blurred blobs the
    // classical cut-out completes either (extractSubject): alone it loses a light part inside a
    // glow.
    if (haveU2netp) return {MaskSource::U2NetP, u2netp, ""};
    if (haveIsnet) return {MaskSource::ISNet, isnet, ""};
    return {MaskSource::Classical, {},
            "no learned background remover is installed, so the classical cut-out was used: it "
            "expects a plain background (" + installHint(RemoverChoice::U2NetP) + ")"};
}

// The learned removers preprocess can run: how each is loaded, the long side the picture is
// shrunk to (with area averaging, so large pictures are not sampled coarsely) before its own
// preprocessing, and its mask at the picture's size. U²-Netp sees 320², ISNet 1024².
struct LearnedRemover {
    MaskSource source;
    RemoverChoice choice;  ///< how it is installed
    std::int64_t longSide;
    std::shared_ptr<torch::nn::Module> (*load)(const std::filesystem::path& file);
    torch::Tensor (*mask)(StagedModels& models, const torch::Tensor& rgb);
};

constexpr const char* kRemover = "background_remover";
constexpr const char* kStructureSolver = "structure_solver";
constexpr const char* kSurface512 = "surface_512";
constexpr const char* kSurface1024 = "surface_1024";
constexpr const char* kTextureBaker = "texture_baker";

const LearnedRemover kLearnedRemovers[] = {
    {MaskSource::U2NetP, RemoverChoice::U2NetP, 640,
     [](const std::filesystem::path& file) -> std::shared_ptr<torch::nn::Module> { return loadU2NetP(file).ptr(); },
     [](StagedModels& models, const torch::Tensor& rgb) { return u2netpMask(*models.get<U2NetPImpl>(kRemover), rgb); }},
    {MaskSource::ISNet, RemoverChoice::ISNet, 1024,
     [](const std::filesystem::path& file) -> std::shared_ptr<torch::nn::Module> { return loadISNet(file).ptr(); },
     [](StagedModels& models, const torch::Tensor& rgb) { return isnetMask(*models.get<ISNetImpl>(kRemover), rgb); }},
};

// What is wrong with a weight file, without the file and tensor its what() starts with.
std::string problemOf(const WeightFileError& e) {
    const std::string prefix = e.file() + ": " + (e.tensor().empty() ? "" : "tensor '" + e.tensor() + "': ");
    const std::string all = e.what();
    return all.rfind(prefix, 0) == 0 ? all.substr(prefix.size()) : all;
}

const LearnedRemover* learnedRemover(MaskSource source) {
    for (const auto& r : kLearnedRemovers)
        if (r.source == source) return &r;
    return nullptr;  // the classical cut-out
}

// One run: what its stages hand on to each other, and the stages themselves.
class CharacterRun {
public:
    CharacterRun(const CharacterParams& params, CharacterResult& result, torch::Device device,
                 torch::Tensor rgba, bool useAlpha, RemoverPlan remover)
        : params_(params), result_(result), device_(device), rgba_(std::move(rgba)),
          useAlpha_(useAlpha), remover_(std::move(remover)),
          texture_(static_cast<std::int64_t>(params.textureSize)) {}

    const LearnedRemover* learned() const { return learnedRemover(remover_.source); }
    void use(StagedModels& models) { models_ = &models; }

    // The registry's loaders of this run's models; an empty one: not in this run.
    Loader remover() const;
    Loader structureSolver() const { return solver(kCoarseLongSide); }
    Loader surface512() const { return solver(512); }
    Loader surface1024() const { return solver(kFieldLongSide); }
    Loader textureBaker() const;

    void preprocess();
    void structure();
    void shape512();
    void shape1024();
    void texture();
    void decode();
    void exportMesh() { result_.files = writeMeshFile(result_.mesh, params_.output); }

private:
    const CharacterParams& params_;
    CharacterResult& result_;
    torch::Device device_;
    torch::Tensor rgba_;
    bool useAlpha_;
    RemoverPlan remover_;
    std::int64_t texture_;
    StagedModels* models_ = nullptr;

    Loader solver(std::int64_t longSide) const;

    Subject subject_;
    torch::Tensor fineMask_, u_, front_, back_, atlas_;
    AtlasLayout layout_;
    SheetMesh sheet_;
};

// The pipeline, one row per stage in run order: its name, the registry objects it holds with
// their loaders, and its body. The registry's plan and loaders (in this order: eager runs build
// them so) and the stage names all come from here.
struct ModelRow {
    const char* name;
    Loader (CharacterRun::*loader)() const;
};

struct StageRow {
    const char* name;
    std::vector<ModelRow> models;
    void (CharacterRun::*body)();
};

const StageRow kStages[] = {
    {"preprocess", {{kRemover, &CharacterRun::remover}}, &CharacterRun::preprocess},
    {"structure", {{kStructureSolver, &CharacterRun::structureSolver}}, &CharacterRun::structure},
    {"shape_512", {{kSurface512, &CharacterRun::surface512}}, &CharacterRun::shape512},
    {"shape_1024", {{kSurface1024, &CharacterRun::surface1024}}, &CharacterRun::shape1024},
    {"texture", {{kTextureBaker, &CharacterRun::textureBaker}}, &CharacterRun::texture},
    {"decode", {}, &CharacterRun::decode},
    {"export", {}, &CharacterRun::exportMesh},
};

Loader CharacterRun::remover() const {
    const auto* r = learned();
    if (!r) return {};  // the classical cut-out, or the picture's alpha
    return [r, file = remover_.file, device = device_]() -> std::shared_ptr<torch::nn::Module> {
        std::shared_ptr<torch::nn::Module> net;
        try {
            net = r->load(file);  // ready for inference
        } catch (const NotInstalledError&) {
            throw;
        } catch (const WeightFileError& e) {
            // Truncated by a copy that stopped, or not the model's file: installing it again mends it.
            throw WeightFileError(e.file(), e.tensor(), problemOf(e) + "; to replace it, " + installHint(r->choice));
        }
        net->to(device);
        net->eval();
        return net;
    };
}

Loader CharacterRun::solver(std::int64_t longSide) const {
    return [longSide, device = device_] { return SurfaceSolver(longSide, device).ptr(); };
}

Loader CharacterRun::textureBaker() const {
    return [texture = texture_, device = device_] { return TextureBaker(texture, device).ptr(); };
}

void CharacterRun::preprocess() {
    MaskPredictor predictor;
    if (const auto* r = learned())
        predictor = [this, r](const torch::Tensor& rgb) {
            auto mask = r->mask(*models_, atLongSide(rgb, r->longSide).clamp(0, 1).to(device_));
            return resizeTensor(mask.to(torch::kCPU), rgb.size(1), rgb.size(2)).clamp(0, 1);
        };
    if (!learned() && !useAlpha_ && !remover_.notice.empty()) result_.notices.push_back(remover_.notice);
    subject_ = extractSubject(rgba_, useAlpha_, predictor, remover_.source, params_.minPart / 100.0,
                              params_.input.string());
    result_.maskSource = subject_.source;
    result_.parts = subject_.parts;
    result_.droppedParts = subject_.droppedParts;
    if (!subject_.cutAt.empty())
        result_.notices.push_back("the subject touches the picture's " + joinWords(subject_.cutAt) +
                                  " edge" + (subject_.cutAt.size() > 1 ? "s" : "") +
                                  ": it is probably cut off there, and the mesh ends where "
                                  "the picture does; use a picture that shows the whole character");
    result_.subjectMask = tensorToImage(subject_.region.to(torch::kFloat32));
    result_.cutout = tensorToImage(torch::cat({subject_.rgb, subject_.alpha.unsqueeze(0)}));
    fineMask_ = atLongSide(subject_.alpha, kFieldLongSide).clamp(0, 1);
    if (params_.onCutout) params_.onCutout(result_.cutout);
}

void CharacterRun::structure() {
    auto solver = models_->get<SurfaceSolverImpl>(kStructureSolver);
    u_ = solver->solve(atLongSide(fineMask_, kCoarseLongSide).to(device_) >= 0.5, {}, 600);
}

void CharacterRun::shape512() {
    auto solver = models_->get<SurfaceSolverImpl>(kSurface512);
    u_ = solver->solve(atLongSide(fineMask_, 512).to(device_) >= 0.5, u_, 250);
}

void CharacterRun::shape1024() {
    auto solver = models_->get<SurfaceSolverImpl>(kSurface1024);
    u_ = solver->solve(fineMask_.to(device_) >= 0.5, u_, 150).to(torch::kCPU);
    // √u rises steeply from the outline, so the pixel staircase of the silhouette would show on
    // the rim as terraces: a light blur of the heights evens it out.
    auto height = gaussianBlur(inflateHeight(u_, 1.0), 2.0);
    front_ = height * (kFrontDepth * params_.thickness);
    back_ = height * (kBackDepth * params_.thickness);
    spdlog::debug("shape residual {:.3g}", solver->residual());
}

void CharacterRun::texture() {
    layout_ = planAtlas(fineMask_.size(1), fineMask_.size(0), texture_);
    atlas_ = models_->get<TextureBakerImpl>(kTextureBaker)->bake(subject_.rgb, subject_.alpha, layout_).to(torch::kCPU);
}

void CharacterRun::decode() {
    const auto budget = static_cast<std::size_t>(params_.triangles);
    const double minShare = params_.minPart / 100.0;
    sheet_ = buildSheetMesh(fineMask_, front_, back_, gridCells(fineMask_, budget, 3.0), minShare);
    if (!decimateSheetMesh(sheet_, budget)) {
        // A grid coarse enough to need no simplification is closed by construction.
        spdlog::debug("simplification did not stay manifold; meshing at the budget instead");
        double oversample = 0.95;
        do {
            sheet_ = buildSheetMesh(fineMask_, front_, back_, gridCells(fineMask_, budget, oversample), minShare);
            oversample *= 0.9;
        } while (sheet_.indices.size() / 3 > budget && oversample > 0.01);
    }
    result_.mesh = assemble(sheet_, subject_, layout_, tensorToImage(atlas_), params_, result_.inputWidth,
                            result_.inputHeight);
    result_.meshReport = checkMesh(result_.mesh.positions, result_.mesh.indices);
    if (!result_.meshReport.closedManifold())
        spdlog::warn("the mesh is not a closed manifold: {}", result_.meshReport.describe());
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
    for (const auto& stage : kStages) names.emplace_back(stage.name);
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

    CharacterRun run(params, result, device, rgba, useAlpha,
                     chooseRemover(params, !useAlpha && plainBackground(rgba.slice(0, 0, 3))));
    std::vector<std::pair<std::string, Loader>> loaders;
    std::vector<Stage> plan;
    for (const auto& row : kStages) {
        Stage stage{row.name, {}};
        for (const auto& model : row.models)
            if (auto loader = (run.*model.loader)()) {
                stage.models.emplace_back(model.name);
                loaders.emplace_back(model.name, std::move(loader));
            }
        plan.push_back(std::move(stage));
    }

    EventLog log;
    StagedModelsOptions options;
    options.events = fanOut({log.sink(), params.events});
    options.mode = params.mode;
    StagedModels models(std::move(loaders), plan, std::move(options));  // eager: all built now
    run.use(models);
    torch::NoGradGuard noGrad;
    torch::manual_seed(static_cast<std::uint64_t>(params.seed));

    StageRunner stages(models, log, params.onStage, params.cancel, "the character run");
    for (const auto& row : kStages) {
        result.stages.push_back(stages.run(row.name, [&] { (run.*row.body)(); }));
        spdlog::debug("stage {}: {:.2f} s", row.name, result.stages.back().seconds);
    }
    models.close();
    result.events = log.events();
    result.seconds = secondsSince(started);
    return result;
}

}  // namespace stageload
