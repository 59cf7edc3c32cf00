#include "engine/api/run_meta.h"

namespace stageload {

nlohmann::json runMeta(const RunSettings& s, const std::filesystem::path& input) {
    return {{"pipeline", s.pipeline},
            {"load", std::string(choiceName(s.mode))},
            {"seed", s.seed},
            {"input", input.string()},
            {"texture_size", s.textureSize},
            {"triangles", s.triangles},
            {"height", s.heightMeters},
            {"thickness", s.thickness},
            {"remover", std::string(choiceName(s.remover))},
            {"device", s.device}};
}

}  // namespace stageload
