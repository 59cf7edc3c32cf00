// `stageload bench character`: every sample picture through the character pipeline, staged and
// eager, each with a memory trace; per stage the seconds and the peak footprint read back from
// the traces (as `stageload summary` reads them), then each run's total and peak.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include <CLI/CLI.hpp>

#include "engine/api/run_meta.h"
#include "engine/pipelines/character/character_run.h"
#include "guard/meter/meter.h"
#include "guard/trace/summary.h"
#include "guard/trace/trace_reader.h"
#include "ui/cli/commands.h"
#include "ui/cli/engine_commands.h"
#include "ui/cli/run_flags.h"

namespace stageload::cli {
namespace {

struct CharacterBenchOptions {
    std::string samples = "resources/samples";
    std::string out;
    RunFlags settings;  ///< --texture-size and --triangles
};

double gib(std::int64_t bytes) { return static_cast<double>(bytes) / static_cast<double>(1ll << 30); }

Summary runOnce(const std::filesystem::path& picture, const std::filesystem::path& out, LoadMode mode,
                const CharacterBenchOptions& o) {
    const auto tag = picture.stem().string() + ("-" + std::string(choiceName(mode)));
    CharacterParams p;
    static_cast<RunSettings&>(p) = o.settings.settings();
    p.input = picture;
    p.output = out / (tag + ".glb");
    p.mode = mode;
    const auto trace = out / (tag + ".trace.jsonl");
    {
        MeterParams mp;
        mp.tracePath = trace;
        mp.interval = 0.05;
        mp.meta = runMeta(p, picture);
        Meter meter(std::move(mp));
        p.events = meter.eventSink();
        runCharacter(p);
        meter.stop();
    }
    return summarize(readTrace(trace));
}

int runCharacterBench(const CharacterBenchOptions& o) {
    std::vector<std::filesystem::path> pictures;
    std::error_code error;
    if (!std::filesystem::is_directory(o.samples, error))
        throw FileError(o.samples + ": no such folder; run from the source tree or give "
                                    "--samples with a folder of .png pictures");
    for (const auto& entry : std::filesystem::directory_iterator(o.samples))
        if (entry.path().extension() == ".png") pictures.push_back(entry.path());
    std::sort(pictures.begin(), pictures.end());
    if (pictures.empty()) throw FileError(o.samples + ": no .png pictures to run");
    const std::filesystem::path out = o.out.empty() ? std::filesystem::temp_directory_path() /
                                                          "stageload-bench-character"
                                                    : std::filesystem::path(o.out);
    std::filesystem::create_directories(out);
    const RunSettings settings = o.settings.settings();
    std::printf("character pipeline: %zu pictures from %s, texture %d, %d triangles; traces in %s\n",
                pictures.size(), o.samples.c_str(), settings.textureSize, settings.triangles,
                out.c_str());
    const auto stages = characterStages();
    std::printf("\n%-15s %-6s", "picture", "load");
    for (const auto& s : stages) std::printf(" %11s", s.c_str());
    std::printf(" %8s %9s\n", "total s", "peak GiB");
    std::printf("%-22s", "");
    for (std::size_t i = 0; i < stages.size(); ++i) std::printf(" %11s", "s / GiB");
    std::printf("\n");
    for (const auto& picture : pictures) {
        for (auto mode : {LoadMode::Staged, LoadMode::Eager}) {
            const auto s = runOnce(picture, out, mode, o);
            std::printf("%-15s %-6s", picture.stem().c_str(), choiceName(mode).data());
            double total = 0;
            for (const auto& name : stages) {
                const auto it = std::find_if(s.stages.begin(), s.stages.end(),
                                             [&](const StageWindow& w) { return w.name == name; });
                if (it == s.stages.end()) {
                    std::printf(" %11s", "-");
                    continue;
                }
                total += it->seconds;
                if (it->peakFootprint)
                    std::printf(" %5.2f/%5.3f", it->seconds, gib(*it->peakFootprint));
                else  // shorter than the sampling interval: no sample fell in the window
                    std::printf(" %5.2f/%5s", it->seconds, "-");
            }
            std::printf(" %8.2f %9.3f\n", total, gib(s.peakFootprint.value_or(0)));
            std::fflush(stdout);
        }
    }
    std::printf("(s: stage seconds; GiB: peak footprint in the stage's window, - when the stage was "
                "shorter than the 50 ms sampling interval; total: the stages' seconds, so eager's "
                "up-front loads are not in it; peak: the whole run's)\n");
    return 0;
}

}  // namespace

void addCharacterBenchCommand(CLI::App& bench, Selected& selected) {
    auto o = std::make_shared<CharacterBenchOptions>();
    auto* cmd = bench.add_subcommand("character", engineCommandDescription("bench", "character"));
    cmd->add_option("--samples", o->samples, "Folder of .png pictures (default resources/samples)");
    cmd->add_option("--out", o->out, "Folder for the meshes and traces (default a temp folder)");
    addRunFlags(*cmd, o->settings, {RunField::TextureSize, RunField::Triangles});
    cmd->callback([o, &selected] { selected = [o] { return runCharacterBench(*o); }; });
}

}  // namespace stageload::cli
