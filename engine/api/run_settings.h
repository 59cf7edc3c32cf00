#pragma once
// The settings of one run of a built-in pipeline, with every limit and default they have,
// written once. The CLI's flags and help, the app's widgets and stored settings, and the
// engine's checks all read them from here.
//
//   stageload::RunSettings s;                        // the defaults
//   s.textureSize = 4096;
//   s.mode = stageload::parseChoice<stageload::LoadMode>("eager");
//   stageload::validate(s);                          // SettingError: field() = "textureSize"
//   const auto& f = stageload::runField(stageload::RunField::Triangles);
//   spin->setRange(f.limit.min, f.limit.max);        // 1000 .. 2000000
//
// Adding a setting: a member here, a row in runFields() (run_settings.cpp), its use in the
// pipeline. No Torch and no Qt here. Pure and thread-safe; validate() throws SettingError.

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/api/choices.h"

namespace stageload {

/// The texture atlas sizes a pipeline bakes.
inline constexpr std::array<int, 3> kTextureSizes{1024, 2048, 4096};

/// The built-in pipelines `stageload run --pipeline` and the app offer.
inline constexpr std::array<std::string_view, 1> kBuiltinPipelines{"character"};

/// The device words a run accepts; which of them this build and machine have is the engine's
/// availableDevices().
inline constexpr std::array<std::string_view, 3> kDeviceNames{"cpu", "cuda", "mps"};

struct RunSettings {
    std::string pipeline = "character";   ///< one of kBuiltinPipelines
    LoadMode mode = LoadMode::Staged;
    std::int64_t seed = 1;                ///< seeds the global generator (the back texture's grain)
    int textureSize = 2048;               ///< one of kTextureSizes
    int triangles = 40000;                ///< triangle budget of the exported mesh
    double heightMeters = 1.8;            ///< the character's height in the file
    double thickness = 1.0;               ///< front-to-back depth, relative to the default
    /// Parts of the cut-out smaller than this share of the subject's area (in %) are specks
    /// and dropped; every larger part (a held item, a floating orb, a chain's bead) becomes
    /// part of the mesh.
    double minPart = 0.1;
    std::string device = "cpu";           ///< one of kDeviceNames
    RemoverChoice remover = RemoverChoice::Auto;
    int threads = 0;                      ///< LibTorch intra-op threads; 0 = all cores
};

enum class RunField {
    Pipeline, Load, Seed, TextureSize, Triangles, Height, Thickness, MinPart, Device, Remover,
    Threads
};

/// A numeric setting's bounds (inclusive) and the steps a spin box takes.
struct Range {
    double min = 0.0;
    double max = 0.0;
    double step = 1.0;
    int decimals = 0;  ///< 0 for whole numbers
};

/// One row of the settings table.
struct RunFieldInfo {
    RunField field;
    std::string_view key;    ///< stored-settings key and SettingError::field(): "textureSize"
    std::string_view flag;   ///< "--texture-size"
    std::string_view label;  ///< "Texture size"
    std::string_view help;   ///< one line for --help and tooltips
    Range range;             ///< numeric fields only
    /// A generator's run takes it too (its {seed}, {texture_size}, "load" param); the rest are
    /// the built-in pipeline's own, hidden in the app while a generator is chosen.
    bool forGenerators = false;
};

/// Every setting of RunSettings, in the order forms show them.
std::span<const RunFieldInfo> runFields();
const RunFieldInfo& runField(RunField field);

/// The setting as the text setSetting() takes back: "staged", "2048", "1.8".
std::string settingText(const RunSettings& settings, RunField field);
/// Parses `text` into the field (SettingError for text that is not a value of its kind: "not a
/// whole number", "not a choice ..."); ranges are validate()'s.
void setSetting(RunSettings& settings, RunField field, std::string_view text);

/// Seeds are whole numbers from 0 to 2^53 - 1, so every front end (a double spin box included)
/// holds them exactly.
inline constexpr std::int64_t kMaxSeed = (std::int64_t(1) << 53) - 1;

/// Throws SettingError (field() = the row's key) for the first setting out of its range or not
/// among its choices. The device word is checked, not whether this machine has it.
void validate(const RunSettings& settings);

/// Checks a mesh output path before any work: SettingError ("output") for an extension no
/// format of meshFormats() writes; FileError when its folder is missing or not writable, or it
/// is a folder.
void validateMeshOutput(const std::filesystem::path& output);

}  // namespace stageload
