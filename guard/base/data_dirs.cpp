#include "guard/base/data_dirs.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>

namespace stageload {
namespace {

std::filesystem::path prefixShare() {
    const auto prefix = programPrefix();
    if (prefix.empty()) return {};
    return prefix / "share" / "stageload";
}

}  // namespace

std::filesystem::path programFile() {
    std::error_code ec;
    auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::filesystem::path() : exe;
}

std::filesystem::path programDir() { return programFile().parent_path(); }

std::filesystem::path prefixOf(const std::filesystem::path& programDir) {
    if (programDir.empty()) return {};
    auto dir = programDir.lexically_normal();
    if (dir.filename().empty()) dir = dir.parent_path();  // "…/stageload/"
    const auto parent = dir.parent_path();
    if (dir.filename() == "stageload" && parent.filename() == "libexec") return parent.parent_path();
    return parent;
}

std::filesystem::path programPrefix() { return prefixOf(programDir()); }

std::filesystem::path dataDir() {
    if (const char* dir = std::getenv("STAGELOAD_DATA_DIR"); dir && *dir) return dir;
    return prefixShare();
}

std::filesystem::path systemWeightsDir() {
    const auto share = prefixShare();
    return share.empty() ? share : share / "weights";
}

std::vector<std::filesystem::path> sharedWeightsDirs() {
    const char* xdg = std::getenv("XDG_DATA_DIRS");
    const std::string_view list = xdg && *xdg ? std::string_view(xdg) : "/usr/local/share:/usr/share";
    std::vector<std::filesystem::path> dirs;
    const auto add = [&dirs](const std::filesystem::path& dir) {
        if (dir.empty()) return;
        const auto normal = dir.lexically_normal();
        if (std::find(dirs.begin(), dirs.end(), normal) == dirs.end()) dirs.push_back(normal);
    };
    for (std::size_t start = 0; start <= list.size();) {
        const auto end = std::min(list.find(':', start), list.size());
        // Relative entries are invalid per the XDG spec and ignored.
        if (const auto entry = list.substr(start, end - start); !entry.empty() && entry.front() == '/')
            add(std::filesystem::path(entry) / "stageload" / "weights");
        start = end + 1;
    }
    add(systemWeightsDir());
    return dirs;
}

}  // namespace stageload
