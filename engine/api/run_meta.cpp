#include "engine/api/run_meta.h"

#include <utility>

#include "engine/api/stage_weights.h"
#include "engine/api/weights.h"
#include "engine/api/weights_header.h"
#include "guard/base/error.h"
#include "guard/base/units.h"
#include "engine/media/image.h"

namespace stageload {
namespace {

// The keys runMeta() writes (and "threads", which the app's records add), with their fields.
constexpr std::pair<const char*, RunField> kMetaFields[] = {
    {"pipeline", RunField::Pipeline},   {"load", RunField::Load},
    {"seed", RunField::Seed},           {"texture_size", RunField::TextureSize},
    {"triangles", RunField::Triangles}, {"height", RunField::Height},
    {"thickness", RunField::Thickness}, {"min_part", RunField::MinPart},
    {"remover", RunField::Remover},     {"device", RunField::Device},
    {"threads", RunField::Threads},
};

}  // namespace

void addPictureSize(nlohmann::json& meta, const std::filesystem::path& input) {
    if (const auto size = readImageSize(input)) {
        meta["picture_width"] = size->width;
        meta["picture_height"] = size->height;
    }
}

nlohmann::json runMeta(const RunSettings& s, const std::filesystem::path& input) {
    nlohmann::json meta = {{"pipeline", s.pipeline},
            {"load", std::string(choiceName(s.mode))},
            {"seed", s.seed},
            {"input", input.string()},
            {"texture_size", s.textureSize},
            {"triangles", s.triangles},
            {"height", s.heightMeters},
            {"thickness", s.thickness},
            {"min_part", s.minPart},
            {"remover", std::string(choiceName(s.remover))},
            {"device", s.device}};
    addPictureSize(meta, input);
    // A learned remover named by the run is preprocess's weights, known ahead (auto decides
    // from the picture, at run time).
    if (const auto file = removerWeightsFile(s.remover); !file.empty() && removerInstalled(s.remover)) {
        try {
            meta["stage_weights"] = {{"preprocess", readSafetensorsHeader(file).dataBytes()}};
        } catch (const Error&) {
            // A broken file: the run itself says so.
        }
    }
    return meta;
}

nlohmann::json generatorMetaExtras(const GeneratorDef& def, const GeneratorValues& values,
                                   std::vector<std::string>* problems) {
    auto meta = nlohmann::json::object();
    if (!values.input.empty()) addPictureSize(meta, values.input);
    if (const auto weights = generatorStageWeights(def, values, problems); !weights.empty())
        meta["stage_weights"] = weights;
    return meta;
}

nlohmann::json generatorRunMeta(const GeneratorDef& def, const GeneratorValues& values,
                                std::vector<std::string>* problems) {
    auto meta = generatorTraceMeta(def, values);
    meta.update(generatorMetaExtras(def, values, problems));
    return meta;
}

nlohmann::json plannedRunMeta(const RunSettings& settings, const std::filesystem::path& input,
                              const GeneratorDef* generator, const std::map<std::string, std::string>& params,
                              std::vector<std::string>* problems) {
    if (!generator) return runMeta(settings, input);
    GeneratorValues values;
    values.input = input;
    values.seed = settings.seed;
    values.textureSize = settings.textureSize;
    values.params = params;
    return generatorRunMeta(*generator, values, problems);
}

RunSettings runSettingsFromMeta(const nlohmann::json& meta, RunSettings base,
                                std::vector<std::string>* ignored) {
    if (!meta.is_object()) return base;
    for (const auto& [key, field] : kMetaFields) {
        const auto it = meta.find(key);
        if (it == meta.end()) continue;
        std::string text;
        if (it->is_string())
            text = it->get<std::string>();
        else if (it->is_number_integer() || it->is_number_unsigned())
            text = it->dump();
        else if (it->is_number())
            text = formatNumber(it->get<double>());
        else
            text = it->dump();
        // One field at a time: a bad value leaves the others and base's value of its own.
        RunSettings next = base;
        try {
            setSetting(next, field, text);
            validate(next);
            base = std::move(next);
        } catch (const UsageError& e) {
            if (ignored) ignored->push_back(std::string(key) + ": " + e.what());
        }
    }
    return base;
}

}  // namespace stageload
