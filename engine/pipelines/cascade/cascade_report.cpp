#include "engine/pipelines/cascade/cascade_report.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "guard/base/atomic_file.h"

namespace stageload {

void writeFingerprints(const std::filesystem::path& dir, const CascadeResult& result,
                       const std::map<std::string, std::string>& meta) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw FileError(dir.string() + ": cannot create the fingerprint folder: " + ec.message());
    for (std::size_t i = 0; i < result.stages.size(); ++i) {
        const auto& s = result.stages[i];
        const auto headEnd = s.latent.begin() + std::min<std::ptrdiff_t>(16, std::ssize(s.latent));
        nlohmann::ordered_json j;
        j["stage"] = s.name;
        j["index"] = i;
        j["hash"] = s.fingerprint;
        j["shape"] = s.latentShape;
        j["head"] = std::vector<float>(s.latent.begin(), headEnd);
        j["peak_rss"] = s.peakRss;
        j["seconds"] = s.seconds;
        for (const auto& [k, v] : meta) j[k] = v;
        char name[32];
        std::snprintf(name, sizeof name, "%02zu-", i);
        writeFileAtomically(dir / (name + s.name + ".json"), j.dump(2) + "\n");
    }
}

std::vector<StageFingerprint> readFingerprints(const std::filesystem::path& dir) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
        throw FileError(dir.string() + ": no such fingerprint folder (write one with "
                                       "`stageload bench cascade --fingerprint DIR`)");
    std::vector<StageFingerprint> out;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() != ".json") continue;
        std::ifstream in(entry.path());
        try {
            const auto j = nlohmann::json::parse(in);
            StageFingerprint f;
            f.stage = j.at("stage").get<std::string>();
            f.index = j.at("index").get<int>();
            f.hash = j.at("hash").get<std::string>();
            f.peakRss = j.value("peak_rss", std::int64_t(0));
            f.seconds = j.value("seconds", 0.0);
            out.push_back(std::move(f));
        } catch (const nlohmann::json::exception& e) {
            throw FileError(entry.path().string() + ": not a stage fingerprint (" + e.what() + ")");
        }
    }
    if (out.empty()) throw FileError(dir.string() + ": holds no stage fingerprints");
    std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.index < y.index; });
    return out;
}

std::vector<FingerprintComparison> compareFingerprints(const std::filesystem::path& a,
                                                       const std::filesystem::path& b) {
    const auto left = readFingerprints(a);
    const auto right = readFingerprints(b);
    std::vector<FingerprintComparison> rows;
    auto row = [&rows](const std::string& stage) -> FingerprintComparison& {
        for (auto& r : rows)
            if (r.stage == stage) return r;
        rows.push_back({stage, std::nullopt, std::nullopt});
        return rows.back();
    };
    // Both runs follow one plan; a run stopped early simply lacks the later stages.
    for (const auto& f : (left.size() >= right.size() ? left : right)) row(f.stage);
    for (const auto& f : left) row(f.stage).a = f;
    for (const auto& f : right) row(f.stage).b = f;
    return rows;
}

}  // namespace stageload
