#include "engine/api/run_settings.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cmath>
#include <sstream>

#include "guard/base/text.h"
#include "engine/media/mesh_formats.h"

namespace stageload {
namespace {

constexpr RunFieldInfo kFields[] = {
    {RunField::Pipeline, "pipeline", "--pipeline", "Pipeline", "The pipeline to run", {}, true},
    {RunField::Load, "load", "--load", "Loading",
     "staged: each model only while a stage needs it; eager: all up front", {}, true},
    {RunField::Seed, "seed", "--seed", "Seed",
     "Seed of the global generator (the back texture's grain), 0 to 2^53-1",
     {0, double(kMaxSeed), 1, 0}, true},
    {RunField::TextureSize, "textureSize", "--texture-size", "Texture size",
     "Texture atlas size: 1024, 2048 or 4096", {}, true},
    {RunField::Triangles, "triangles", "--triangles", "Triangle budget",
     "Triangle budget of the mesh (1000 to 2000000)", {1000, 2'000'000, 5000, 0}},
    {RunField::Height, "height", "--height", "Height",
     "The character's height in metres (0.01 to 1000)", {0.01, 1000.0, 0.1, 2}},
    {RunField::Thickness, "thickness", "--thickness", "Thickness",
     "Front-to-back depth relative to the default (0.1 to 3)", {0.1, 3.0, 0.1, 2}},
    {RunField::MinPart, "minPart", "--min-part", "Smallest part",
     "Parts of the subject smaller than this share of its area (%) are dropped as specks; "
     "larger ones (a held item, a floating orb) are kept (0 to 50)", {0.0, 50.0, 0.1, 1}},
    {RunField::Device, "device", "--device", "Device",
     "Where LibTorch runs: cpu, cuda or mps (where this build has it)", {}},
    {RunField::Remover, "remover", "--remover", "Background",
     "Background removal when the picture has no alpha: auto (the classical cut-out on one even "
     "colour, else U²-Netp or ISNet, whichever is installed, on a gradient or blurred blobs "
     "completed by the classical cut-out), u2netp, isnet, classical", {}},
    {RunField::Threads, "threads", "--threads", "Threads", "LibTorch threads (0: all cores)",
     {0, 1024, 1, 0}},
};

std::string number(double v) {
    if (std::isfinite(v) && v == std::floor(v) && std::abs(v) < 1e15)
        return std::to_string(static_cast<long long>(v));
    std::ostringstream out;
    out << v;
    return out.str();
}

// SettingError for `field` when `value` is outside its range.
void checkRange(RunField field, double value) {
    const auto& f = runField(field);
    if (value >= f.range.min && value <= f.range.max) return;
    throw SettingError(std::string(f.key), std::string(f.flag) + " " + number(value),
                       "out of range; use " + number(f.range.min) + " to " + number(f.range.max));
}

template <std::size_t N>
std::vector<std::string> words(const std::array<std::string_view, N>& list) {
    return {list.begin(), list.end()};
}

std::int64_t wholeNumber(const RunFieldInfo& f, std::string_view text) {
    const std::string t(trim(text));
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(t.c_str(), &end, 10);
    if (t.empty() || *end != '\0' || errno == ERANGE)
        throw SettingError(std::string(f.key), std::string(f.flag) + " '" + std::string(text) + "'",
                           "not a whole number");
    return v;
}

double realNumber(const RunFieldInfo& f, std::string_view text) {
    const std::string t(trim(text));
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (t.empty() || *end != '\0' || !std::isfinite(v))
        throw SettingError(std::string(f.key), std::string(f.flag) + " '" + std::string(text) + "'",
                           "not a number");
    return v;
}

int toInt(std::int64_t v) {
    return static_cast<int>(std::clamp<std::int64_t>(v, INT32_MIN, INT32_MAX));
}

}  // namespace

std::string settingText(const RunSettings& s, RunField field) {
    switch (field) {
        case RunField::Pipeline: return s.pipeline;
        case RunField::Load: return std::string(choiceName(s.mode));
        case RunField::Seed: return std::to_string(s.seed);
        case RunField::TextureSize: return std::to_string(s.textureSize);
        case RunField::Triangles: return std::to_string(s.triangles);
        case RunField::Height: return number(s.heightMeters);
        case RunField::Thickness: return number(s.thickness);
        case RunField::MinPart: return number(s.minPart);
        case RunField::Device: return s.device;
        case RunField::Remover: return std::string(choiceName(s.remover));
        case RunField::Threads: return std::to_string(s.threads);
    }
    return {};
}

void setSetting(RunSettings& s, RunField field, std::string_view text) {
    const auto& f = runField(field);
    switch (field) {
        case RunField::Pipeline: s.pipeline = std::string(trim(text)); return;
        case RunField::Load: s.mode = parseChoice<LoadMode>(trim(text)); return;
        case RunField::Seed: s.seed = wholeNumber(f, text); return;
        case RunField::TextureSize: s.textureSize = toInt(wholeNumber(f, text)); return;
        case RunField::Triangles: s.triangles = toInt(wholeNumber(f, text)); return;
        case RunField::Height: s.heightMeters = realNumber(f, text); return;
        case RunField::Thickness: s.thickness = realNumber(f, text); return;
        case RunField::MinPart: s.minPart = realNumber(f, text); return;
        case RunField::Device: s.device = std::string(trim(text)); return;
        case RunField::Remover: s.remover = parseChoice<RemoverChoice>(trim(text)); return;
        case RunField::Threads: s.threads = toInt(wholeNumber(f, text)); return;
    }
}

std::span<const RunFieldInfo> runFields() {
    return kFields;
}

const RunFieldInfo& runField(RunField field) {
    for (const auto& f : kFields)
        if (f.field == field) return f;
    return kFields[0];  // every enumerator has a row
}

void validate(const RunSettings& s) {
    if (std::find(kBuiltinPipelines.begin(), kBuiltinPipelines.end(), s.pipeline) ==
        kBuiltinPipelines.end())
        throw SettingError("pipeline", "--pipeline " + s.pipeline,
                           "not a built-in pipeline; use " + joinAlternatives(words(kBuiltinPipelines)));
    checkRange(RunField::Seed, static_cast<double>(s.seed));
    if (std::find(kTextureSizes.begin(), kTextureSizes.end(), s.textureSize) == kTextureSizes.end())
        throw SettingError("textureSize", "--texture-size " + std::to_string(s.textureSize),
                           "must be 1024, 2048 or 4096");
    checkRange(RunField::Triangles, s.triangles);
    if (!std::isfinite(s.heightMeters)) checkRange(RunField::Height, -1.0);
    checkRange(RunField::Height, s.heightMeters);
    if (!std::isfinite(s.thickness)) checkRange(RunField::Thickness, -1.0);
    checkRange(RunField::Thickness, s.thickness);
    if (!std::isfinite(s.minPart)) checkRange(RunField::MinPart, -1.0);
    checkRange(RunField::MinPart, s.minPart);
    if (std::find(kDeviceNames.begin(), kDeviceNames.end(), s.device) == kDeviceNames.end())
        throw SettingError("device", "--device " + s.device,
                           "not a device; use " + joinAlternatives(words(kDeviceNames)));
    checkRange(RunField::Threads, s.threads);
}

void validateMeshOutput(const std::filesystem::path& output) {
    const auto* format = meshFormatOf(output);
    if (!format || !format->write)
        throw SettingError("output", "-o " + output.string(), "the output must end in " + writableMeshExtensions());
    auto dir = output.parent_path();
    if (dir.empty()) dir = ".";
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
        throw FileError(output.string() + ": the folder " + dir.string() +
                        " does not exist; create it or choose another output");
    if (::access(dir.c_str(), W_OK) != 0)
        throw FileError(output.string() + ": the folder " + dir.string() +
                        " is not writable; choose another output");
    if (std::filesystem::is_directory(output, ec))
        throw FileError(output.string() + ": is a folder; give a file name ending in " + writableMeshExtensions());
}

}  // namespace stageload
