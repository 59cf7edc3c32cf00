#include "engine/api/errors.h"

namespace stageload {

std::string quotedList(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) {
        if (!out.empty()) out += ", ";
        out += "'" + n + "'";
    }
    return out.empty() ? "(none)" : out;
}

UnknownStageError::UnknownStageError(const std::string& stage, const std::vector<std::string>& known)
    : Error("unknown stage '" + stage + "'; known stages: " + quotedList(known))
    , stage_(stage) {}

UnknownModelError::UnknownModelError(const std::string& model, const std::vector<std::string>& known)
    : Error("unknown model '" + model + "'; known models: " + quotedList(known))
    , model_(model) {}

ReleasedModelError::ReleasedModelError(const std::string& model, const std::string& stage,
                                       const std::string& how)
    : Error("'" + model + "' was released " +
            (how.empty() ? "when entering stage '" + stage + "'" : how) +
            " and its weights are gone. Get the model from the registry again instead of "
            "keeping a reference to it.")
    , model_(model)
    , stage_(stage) {}

WeightFileError::WeightFileError(const std::string& file, const std::string& tensor,
                                 const std::string& problem)
    : FileError(file + ": " + (tensor.empty() ? "" : "tensor '" + tensor + "': ") + problem)
    , file_(file)
    , tensor_(tensor) {}

NotInstalledError::NotInstalledError(const std::string& file, const std::string& model,
                                     const std::string& howToInstall)
    : WeightFileError(file, "", model + " is not installed; " + howToInstall +
                                    ", or choose another background remover") {}

}  // namespace stageload
