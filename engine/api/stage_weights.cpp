#include "engine/api/stage_weights.h"

#include <fnmatch.h>

#include <algorithm>

#include "engine/api/weights_header.h"
#include "guard/base/error.h"

namespace stageload {
namespace {

// The files `pattern` names: itself, or with * or ? in its last part, the matching files of its
// folder in name order.
std::vector<std::filesystem::path> matchingFiles(const std::filesystem::path& pattern) {
    std::error_code ec;
    const std::string name = pattern.filename().string();
    if (name.find_first_of("*?[") == std::string::npos)
        return std::filesystem::is_regular_file(pattern, ec) ? std::vector{pattern} : std::vector<std::filesystem::path>{};
    std::vector<std::filesystem::path> files;
    for (std::filesystem::directory_iterator it(pattern.parent_path(), ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec) && ::fnmatch(name.c_str(), it->path().filename().c_str(), FNM_PERIOD) == 0)
            files.push_back(it->path());
    std::sort(files.begin(), files.end());
    return files;
}

// The bytes of weights in `file`: a safetensors file's tensors, else the whole file.
std::int64_t weightBytes(const std::filesystem::path& file) {
    if (file.extension() == ".safetensors") return static_cast<std::int64_t>(readSafetensorsHeader(file).dataBytes());
    std::error_code ec;
    const auto size = std::filesystem::file_size(file, ec);
    if (ec) throw FileError(file.string() + ": cannot be read (" + ec.message() + ")");
    return static_cast<std::int64_t>(size);
}

}  // namespace

StageWeights generatorStageWeights(const GeneratorDef& def, const GeneratorValues& values,
                                   std::vector<std::string>* problems) {
    StageWeights weights;
    const auto note = [&](const std::string& stage, const std::string& problem) {
        if (problems) problems->push_back("stage_weights." + stage + ": " + problem);
    };
    for (const auto& [stage, patterns] : expandStageWeights(def, values)) {
        std::int64_t bytes = 0;
        bool whole = true;
        for (const auto& pattern : patterns) {
            const auto files = matchingFiles(pattern);
            if (files.empty()) {
                std::error_code ec;
                note(stage, std::filesystem::exists(pattern, ec) ? pattern.string() + " is not a file"
                                                                 : "no file matches " + pattern.string());
                whole = false;
            }
            for (const auto& file : files) {
                try {
                    bytes += weightBytes(file);
                } catch (const Error& e) {
                    note(stage, e.what());
                    whole = false;
                }
            }
        }
        if (whole) weights[stage] += bytes;
    }
    return weights;
}

}  // namespace stageload
