#pragma once
// The built-in `character` pipeline: one picture of a character in, a closed,
// textured mesh out, ready for Blender.
//
//   stageload::CharacterParams p;
//   p.input = "hero.png";
//   p.output = "hero.glb";                    // or hero.obj (+ .mtl + .png)
//   p.events = meter.eventSink();              // loads, releases and stages into the trace
//   auto r = stageload::runCharacter(p);       // per stage: seconds, peak; the mesh's counts
//
// Stages: preprocess (find the subject), structure (coarse shape), shape_512 and shape_1024
// (the shape refined), texture (one atlas), decode (the mesh), export. Each stage's heavy
// objects live in the staged registry. Same input and settings give the same bytes, staged or
// eager.
//
// No Torch here: the UI includes this header.

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "engine/api/errors.h"
#include "engine/api/run_settings.h"
#include "engine/api/weights.h"
#include "guard/base/event.h"
#include "engine/media/mesh.h"
#include "engine/pipelines/stage_runner.h"

namespace stageload {

/// Where the subject's mask came from.
enum class MaskSource { Alpha, U2NetP, ISNet, Classical };
/// "alpha", "u2netp", "isnet", "classical".
const char* maskSourceName(MaskSource source);

/// One run: the settings every front end shares (seed, sizes, load mode, remover, device, ...)
/// plus the run's files and callbacks.
struct CharacterParams : RunSettings {
    std::filesystem::path input;
    std::filesystem::path output;         ///< .glb, or .obj (writes .obj, .mtl and .png)
    std::filesystem::path weightsDir;     ///< empty: defaultWeightsDir()
    EventSink events;                     ///< every registry event, as it happens
    /// Called when a stage begins (true) and ends (false), on the calling thread.
    std::function<void(const std::string& stage, bool begins)> onStage;
    /// Called once preprocess has found the subject, with its cut-out (RGBA), on the calling
    /// thread: a preview long before the mesh is ready.
    std::function<void(const Image& cutout)> onCutout;
    const std::atomic<bool>* cancel = nullptr;  ///< checked between steps; stops with Cancelled
};

/// One stage: seconds, peak, resident objects, loads and releases (stage_runner.h).
using CharacterStage = StageStats;

struct CharacterResult {
    std::vector<CharacterStage> stages;
    std::vector<Event> events;
    std::vector<std::filesystem::path> files;  ///< what was written
    TexturedMesh mesh;                          ///< what was exported
    MaskSource maskSource = MaskSource::Alpha;
    Image subjectMask;                          ///< 1 channel, 255 = subject, work size
    Image cutout;                               ///< RGBA: the subject's crop, alpha = its mask
    int parts = 0;                              ///< separate parts of the subject in the mesh
    int droppedParts = 0;                       ///< specks under the minimum share, dropped
    std::vector<std::string> notices;           ///< things the user should know (fallbacks)
    MeshReport meshReport;
    int inputWidth = 0, inputHeight = 0;        ///< as decoded (upright)
    int workWidth = 0, workHeight = 0;          ///< after downscaling for the work
    double seconds = 0.0;
};

/// The devices this LibTorch build can run on here, "cpu" first ("cuda" where it has CUDA and
/// a device). Thread-safe.
std::vector<std::string> availableDevices();

/// The stage names, in order.
std::vector<std::string> characterStages();

/// Checks params before any work: validate(RunSettings) and validateMeshOutput(output) (SettingError
/// naming the setting; FileError: output folder missing or not writable), and that this build
/// has the device.
void validateCharacterParams(const CharacterParams& params);

/// Runs the pipeline. ImageError for unreadable pictures, NoSubjectError when nothing stands
/// out, WeightFileError for broken weights, AtomicWriteError when the output cannot be
/// written (nothing half-written is left), Cancelled when `cancel` is set.
CharacterResult runCharacter(const CharacterParams& params);

}  // namespace stageload
