// Where generator definitions are found: the folders searched, a name resolved to its file, and
// every valid definition of those folders listed.
#include "guard/generator/generator_def.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "guard/base/data_dirs.h"

namespace stageload {

std::vector<std::filesystem::path> generatorDirs(const std::filesystem::path& shipped) {
    std::vector<std::filesystem::path> dirs;
    if (const char* dir = std::getenv("STAGELOAD_GENERATORS_DIR"); dir && *dir) dirs.emplace_back(dir);
    if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg)
        dirs.push_back(std::filesystem::path(xdg) / "stageload" / "generators");
    else if (const char* home = std::getenv("HOME"); home && *home)
        dirs.push_back(std::filesystem::path(home) / ".config" / "stageload" / "generators");
    if (!shipped.empty()) dirs.push_back(shipped);
    return dirs;
}

std::filesystem::path shippedGeneratorDir() { return dataDir() / "generators"; }

GeneratorDef readGeneratorNamed(const std::string& nameOrPath) {
    return readGeneratorDef(resolveGeneratorFile(nameOrPath, generatorDirs(shippedGeneratorDir())));
}

std::filesystem::path resolveGeneratorFile(const std::string& nameOrPath,
                                           const std::vector<std::filesystem::path>& dirs) {
    std::error_code ec;
    const std::filesystem::path given(nameOrPath);
    if (std::filesystem::is_regular_file(given, ec) || given.has_parent_path() || nameOrPath.empty())
        return given;  // a path: readGeneratorDef() says what is wrong with it
    const std::string file = given.extension() == ".json" ? nameOrPath : nameOrPath + ".json";
    std::string looked;
    for (const auto& dir : dirs) {
        if (std::filesystem::is_regular_file(dir / file, ec)) return dir / file;
        looked += (looked.empty() ? "" : ", ") + dir.string();
    }
    throw GeneratorDefError(nameOrPath, "", "no such file, and no generator of that name in " +
                                                (looked.empty() ? std::string("any folder") : looked));
}

GeneratorCatalog findGenerators(const std::vector<std::filesystem::path>& dirs) {
    GeneratorCatalog catalog;
    std::set<std::string> names;
    for (const auto& dir : dirs) {
        std::error_code ec;
        if (!std::filesystem::is_directory(dir, ec)) continue;
        std::vector<std::filesystem::path> files;
        for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
            if (entry.path().extension() == ".json") files.push_back(entry.path());
        std::sort(files.begin(), files.end());
        for (const auto& f : files) {
            try {
                auto def = readGeneratorDef(f);
                if (names.insert(def.name).second) catalog.generators.push_back(std::move(def));
            } catch (const GeneratorDefError& e) {
                catalog.problems.push_back(e.what());
            }
        }
    }
    return catalog;
}

}  // namespace stageload
