// `stageload bench forecast`: how close the forecast comes, per stage, for settings never run
// before. Each run is a fresh `stageload` process (as an artist's run would be); the runs the
// forecast learns from write their traces into a history folder:
//   1. the stand-in cascade at two scales; then, for each held-out scale (one below, one
//      between, one above them all), the forecast from that history and a run to check it;
//   2. the built-in pipeline on a sample picture at two sizes, then held-out sizes the same way.
// A forecast exists to keep out a run the guard would stop, so the goal is one-sided: no stage
// under its measured peak by more than 5 %, none over it by more than 15 %. Prints forecast,
// measured and error for every stage of every held-out run, the worst of each kind, and exits
// 1 when the goal is missed.
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
#include "guard/base/units.h"
#include "engine/media/image.h"
#include "guard/forecast/forecast.h"
#include "guard/trace/summary.h"
#include "ui/cli/child_program.h"
#include "ui/cli/commands.h"
#include "ui/cli/run_generator.h"

namespace stageload::cli {
namespace {

namespace fs = std::filesystem;

constexpr double kUnderGoal = 5.0;  // percent: a forecast under the peak lets a run in
constexpr double kOverGoal = 15.0;  // percent: over it, it keeps out runs that would fit

struct ForecastBenchOptions {
    std::vector<double> scales{0.5, 1.5};
    std::vector<double> heldOutScales{0.25, 1.0, 3.0};
    std::vector<int> sizes{512, 1024};
    std::vector<int> heldOutSizes{384, 768, 1536};
    std::string picture = (dataDir() / "samples" / "knight_alpha.png").string();
    std::string out;
};

void mustRun(const std::vector<std::string>& args, const fs::path& log) {
    std::fprintf(stderr, "  stageload");
    for (const auto& a : args) std::fprintf(stderr, " %s", a.c_str());
    std::fprintf(stderr, "\n");
    std::vector<std::string> argv{thisProgram().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    if (const int code = runToEnd(argv, log); code != 0)
        throw Error("a benchmark run failed (exit " + std::to_string(code) + "); its output is in " + log.string());
}

// The worst errors over the held-out runs of one pipeline, in percent of the measured peak.
struct Worst {
    double under = 0;  ///< the forecast below the peak by this much (0: never below)
    double over = 0;   ///< above it by this much
    int missing = 0;   ///< stages with no forecast
    std::string underAt, overAt;

    bool met() const { return under <= kUnderGoal && over <= kOverGoal && missing == 0; }
};

// Prints forecast against measured for every stage of the run at `label`; adds to `worst`.
void compare(const Forecast& f, const fs::path& trace, const std::string& label, Worst& worst) {
    const Summary measured = summarize(readTrace(trace.string()));
    std::printf("%-12s %14s %14s %8s  %s\n", "stage", "forecast (GiB)", "measured (GiB)", "error", "basis");
    for (const auto& w : measured.stages) {
        const StageForecast* s = nullptr;
        for (const auto& candidate : f.stages)
            if (candidate.stage == w.name) s = &candidate;
        const auto peak = w.peak();
        if (!peak) continue;
        double error = NAN;
        if (s && s->peak) {
            error = 100.0 * double(*s->peak - *peak) / double(*peak);
            if (-error > worst.under) {
                worst.under = -error;
                worst.underAt = w.name + " at " + label;
            }
            if (error > worst.over) {
                worst.over = error;
                worst.overAt = w.name + " at " + label;
            }
        } else {
            ++worst.missing;
        }
        const bool bad = std::isnan(error) || error < -kUnderGoal || error > kOverGoal;
        std::printf("%-12s %14s %14s %+7.1f%%%s %s\n", w.name.c_str(), formatGb(s ? s->peak : std::nullopt).c_str(),
                    formatGb(peak).c_str(), error, bad ? " !" : "  ", s ? s->basis.c_str() : "no forecast");
    }
}

// "under by at most 3.1 % (texture at 3 GiB), over by at most 12.0 % (setup at 0.25 GiB): met"
void printWorst(const char* what, const Worst& w) {
    std::printf("%s: under by at most %.1f %%%s, over by at most %.1f %%%s%s (goal: under %.0f %%, over %.0f %%): %s\n",
                what, w.under, w.underAt.empty() ? "" : (" (" + w.underAt + ")").c_str(), w.over,
                w.overAt.empty() ? "" : (" (" + w.overAt + ")").c_str(),
                w.missing ? (", " + std::to_string(w.missing) + " stage(s) without a forecast").c_str() : "", kUnderGoal,
                kOverGoal, w.met() ? "met" : "MISSED");
}

std::string listed(const std::vector<double>& values) {
    std::string text;
    for (const double v : values) text += (text.empty() ? "" : ", ") + formatNumber(v);
    return text;
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
    auto allScales = o.scales;
    allScales.insert(allScales.end(), o.heldOutScales.begin(), o.heldOutScales.end());
    for (const double s : allScales)
        mustRun({"bench", "cascade", "--scale", formatNumber(s), "--stop-at", "preprocess"}, log);
    for (const double s : o.scales)
        mustRun({"bench", "cascade", "--scale", formatNumber(s), "--trace",
                 (history / ("cascade-" + formatNumber(s) + ".jsonl")).string()},
                log);
    Worst cascade;
    for (const double s : o.heldOutScales) {
        const auto forecast = forecastRun(readRunPoints({history}),
                                          runKeyOf({{"pipeline", "cascade"}, {"load", "staged"}, {"scale_gib", s}}));
        const fs::path trace = out / ("cascade-held-out-" + formatNumber(s) + ".jsonl");
        mustRun({"bench", "cascade", "--scale", formatNumber(s), "--trace", trace.string()}, log);
        std::printf("\nstand-in cascade at %s GiB (history: %s GiB)\n", formatNumber(s).c_str(), listed(o.scales).c_str());
        compare(forecast, trace, formatNumber(s) + " GiB", cascade);
    }

    // 2. The built-in pipeline on one picture at several sizes.
    const auto picture = readImageFile(o.picture).image;
    const auto scaled = [&](int longSide) {
        const double k = double(longSide) / double(std::max(picture.width, picture.height));
        const int h = std::max(1, int(std::lround(picture.height * k)));
        const int w = std::max(1, int(std::lround(picture.width * k)));
        const fs::path file = out / ("picture-" + std::to_string(longSide) + ".png");
        writePngFile(file, resizeImage(picture, w, h));
        return file;
    };
    const auto runAt = [&](int size, const fs::path& trace) {
        mustRun({"run", scaled(size).string(), "-o", (out / ("mesh-" + std::to_string(size) + ".glb")).string(),
                 "--trace", trace.string()},
                log);
    };
    std::vector<double> sizes(o.sizes.begin(), o.sizes.end());
    for (const int size : o.sizes) runAt(size, history / ("character-" + std::to_string(size) + ".jsonl"));
    Worst character;
    for (const int size : o.heldOutSizes) {
        const auto forecast =
            forecastRun(readRunPoints({history}), runKeyOf(runMeta(RunSettings{}, scaled(size))));
        const fs::path trace = out / ("character-held-out-" + std::to_string(size) + ".jsonl");
        runAt(size, trace);
        std::printf("\ncharacter pipeline, %s at %d px on the long side (history: %s px)\n",
                    fs::path(o.picture).filename().c_str(), size, listed(sizes).c_str());
        compare(forecast, trace, std::to_string(size) + " px", character);
    }

    std::printf("\n");
    printWorst("stand-in cascade", cascade);
    printWorst("character pipeline", character);
    return cascade.met() && character.met() ? 0 : 1;
}

}  // namespace

void addForecastBenchCommand(CLI::App& bench, Selected& selected) {
    auto o = std::make_shared<ForecastBenchOptions>();
    auto* cmd = bench.add_subcommand(
        "forecast", "How close the memory forecast comes for settings never run before");
    cmd->add_option("--scales", o->scales, "Cascade scales the forecast learns from (GiB)")
        ->delimiter(',')->check(CLI::PositiveNumber)->capture_default_str();
    cmd->add_option("--held-out-scales", o->heldOutScales, "Cascade scales forecast, then run (GiB)")
        ->delimiter(',')->check(CLI::PositiveNumber)->capture_default_str();
    cmd->add_option("--sizes", o->sizes, "Picture sizes the forecast learns from (pixels on the long side)")
        ->delimiter(',')->check(CLI::Range(16, 4096))->capture_default_str();
    cmd->add_option("--held-out-sizes", o->heldOutSizes, "Picture sizes forecast, then run")
        ->delimiter(',')->check(CLI::Range(16, 4096))->capture_default_str();
    cmd->add_option("--picture", o->picture, "The picture the built-in pipeline runs on")->capture_default_str();
    cmd->add_option("--out", o->out, "Where runs, traces and meshes go (default: a new temporary folder)");
    cmd->callback([o, &selected] { selected = [o] { return runForecastBench(*o); }; });
}

}  // namespace stageload::cli
