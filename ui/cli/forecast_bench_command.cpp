// `stageload bench forecast`: how close the forecast comes, per stage, for settings never run
// before. Each run is a fresh `stageload` process (as an artist's run would be), writing a
// trace into a history folder:
//   1. the stand-in cascade at two scales, then forecast and run at a third (target: 10 %);
//   2. the built-in pipeline on a sample picture at two sizes, then forecast and run at a
//      third (target: 15 %).
// Prints forecast, measured and error for every stage, and the largest error of each.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "engine/api/run_meta.h"
#include "guard/base/data_dirs.h"
#include "engine/core/image_tensor.h"
#include "engine/media/image.h"
#include "guard/forecast/forecast.h"
#include "guard/trace/summary.h"
#include "ui/cli/commands.h"
#include "ui/cli/run_generator.h"

extern char** environ;

namespace stageload::cli {
namespace {

namespace fs = std::filesystem;

struct ForecastBenchOptions {
    std::vector<double> scales{0.5, 1.5};
    double scale = 1.0;
    std::vector<int> sizes{512, 1024};
    int size = 768;
    std::string picture = (dataDir() / "samples" / "knight_alpha.png").string();
    std::string out;
};

// Runs this program with `args`, its output into `log`; its exit code (-1 if it did not start).
int runSelf(const std::vector<std::string>& args, const fs::path& log) {
    std::vector<std::string> argv{thisProgram().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    posix_spawn_file_actions_addopen(&files, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&files, 1, 2);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, cargv[0], &files, nullptr, cargv.data(), environ);
    posix_spawn_file_actions_destroy(&files);
    if (rc != 0) return -1;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void mustRun(const std::vector<std::string>& args, const fs::path& log) {
    std::fprintf(stderr, "  stageload");
    for (const auto& a : args) std::fprintf(stderr, " %s", a.c_str());
    std::fprintf(stderr, "\n");
    if (const int code = runSelf(args, log); code != 0)
        throw Error("a benchmark run failed (exit " + std::to_string(code) + "); its output is in " + log.string());
}

// Prints forecast against measured for every stage; returns the largest error (percent).
double compare(const Forecast& f, const fs::path& trace) {
    const Summary measured = summarize(readTrace(trace.string()));
    std::printf("%-12s %14s %14s %8s  %s\n", "stage", "forecast (GiB)", "measured (GiB)", "error", "basis");
    double worst = 0;
    for (const auto& w : measured.stages) {
        const StageForecast* s = nullptr;
        for (const auto& candidate : f.stages)
            if (candidate.stage == w.name) s = &candidate;
        const auto peak = w.peak();
        if (!peak) continue;
        double error = NAN;
        if (s && s->peak) {
            error = 100.0 * double(*s->peak - *peak) / double(*peak);
            worst = std::max(worst, std::fabs(error));
        }
        std::printf("%-12s %14s %14s %7.1f%%  %s\n", w.name.c_str(), formatGb(s ? s->peak : std::nullopt).c_str(),
                    formatGb(peak).c_str(), error, s ? s->basis.c_str() : "no forecast");
    }
    return worst;
}

int runForecastBench(const ForecastBenchOptions& o) {
    fs::path out = o.out;
    if (out.empty()) {
        std::string dir = (fs::temp_directory_path() / "stageload-forecast-XXXXXX").string();
        if (!::mkdtemp(dir.data())) throw FileError("cannot make a folder in " + fs::temp_directory_path().string());
        out = dir;
    }
    const fs::path history = out / "history", log = out / "runs.log";
    fs::create_directories(history);
    std::printf("forecast benchmark: runs, traces and their output in %s\n", out.c_str());

    // 1. The stand-in cascade. Its weight files are written first, by a run that stops
    // before its first stage: a run that writes them holds more in its early stages, and
    // an artist's runs find them written.
    for (const double s : [&] { auto all = o.scales; all.push_back(o.scale); return all; }())
        mustRun({"bench", "cascade", "--scale", std::to_string(s), "--stop-at", "preprocess"}, log);
    for (const double s : o.scales)
        mustRun({"bench", "cascade", "--scale", std::to_string(s), "--trace",
                 (history / ("cascade-" + std::to_string(s) + ".jsonl")).string()},
                log);
    const auto cascadeForecast = forecastRun(
        readRunPoints({history}), runKeyOf({{"pipeline", "cascade"}, {"load", "staged"}, {"scale_gib", o.scale}}));
    const fs::path cascadeTrace = out / "cascade-target.jsonl";
    mustRun({"bench", "cascade", "--scale", std::to_string(o.scale), "--trace", cascadeTrace.string()}, log);
    std::printf("\nstand-in cascade at scale %g GiB (history: scales", o.scale);
    for (const double s : o.scales) std::printf(" %g", s);
    std::printf(")\n");
    const double cascadeWorst = compare(cascadeForecast, cascadeTrace);
    std::printf("largest error %.1f %% (target 10 %%)\n", cascadeWorst);

    // 2. The built-in pipeline on one picture at several sizes.
    const auto picture = readImageFile(o.picture).image;
    const auto scaled = [&](int longSide) {
        const auto chw = imageToTensor(picture);
        const double k = double(longSide) / double(std::max(picture.width, picture.height));
        const auto h = std::max<std::int64_t>(1, std::llround(picture.height * k));
        const auto w = std::max<std::int64_t>(1, std::llround(picture.width * k));
        const fs::path file = out / ("picture-" + std::to_string(longSide) + ".png");
        writePngFile(file, tensorToImage(resizeTensor(chw, h, w).clamp(0, 1)));
        return file;
    };
    for (const int size : o.sizes) {
        const auto file = scaled(size);
        mustRun({"run", file.string(), "-o", (out / ("mesh-" + std::to_string(size) + ".glb")).string(), "--trace",
                 (history / ("character-" + std::to_string(size) + ".jsonl")).string()},
                log);
    }
    const auto target = scaled(o.size);
    const auto characterForecast = forecastRun(readRunPoints({history}), runKeyOf(runMeta(RunSettings{}, target)));
    const fs::path characterTrace = out / "character-target.jsonl";
    mustRun({"run", target.string(), "-o", (out / "mesh-target.glb").string(), "--trace", characterTrace.string()},
            log);
    std::printf("\ncharacter pipeline, %s at %d px on the long side (history:", fs::path(o.picture).filename().c_str(),
                o.size);
    for (const int s : o.sizes) std::printf(" %d", s);
    std::printf(" px)\n");
    const double characterWorst = compare(characterForecast, characterTrace);
    std::printf("largest error %.1f %% (target 15 %%)\n", characterWorst);
    return 0;
}

}  // namespace

void addForecastBenchCommand(CLI::App& bench, Selected& selected) {
    auto o = std::make_shared<ForecastBenchOptions>();
    auto* cmd = bench.add_subcommand("forecast", "How close the memory forecast comes for settings never run before");
    cmd->add_option("--scales", o->scales, "Cascade scales run first (GiB)")->delimiter(',')->capture_default_str();
    cmd->add_option("--scale", o->scale, "The cascade scale forecast, then run")->check(CLI::PositiveNumber)->capture_default_str();
    cmd->add_option("--sizes", o->sizes, "Picture sizes run first (pixels on the long side)")->delimiter(',')->capture_default_str();
    cmd->add_option("--size", o->size, "The picture size forecast, then run")->check(CLI::Range(16, 4096))->capture_default_str();
    cmd->add_option("--picture", o->picture, "The picture the built-in pipeline runs on")->capture_default_str();
    cmd->add_option("--out", o->out, "Where runs, traces and meshes go (default: a new temporary folder)");
    cmd->callback([o, &selected] { selected = [o] { return runForecastBench(*o); }; });
}

}  // namespace stageload::cli
