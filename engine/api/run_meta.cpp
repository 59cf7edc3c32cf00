#include "engine/api/run_meta.h"

#include "engine/media/image.h"

namespace stageload {

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
    return meta;
}

}  // namespace stageload
