#include "ui/cli/run_plan.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>

#include "engine/api/run_meta.h"
#include "guard/base/error.h"
#include "guard/base/units.h"
#include "guard/forecast/forecast.h"
#include "guard/forecast/verdict.h"
#include "guard/generator/generator_def.h"
#include "guard/generator/generator_run.h"
#include "ui/cli/run_flags.h"
#include "ui/cli/run_options.h"

namespace stageload::cli {

nlohmann::json plannedMeta(const std::string& input, const std::string& generator,
                           const std::vector<std::string>& params, const RunFlags& flags,
                           double cascadeScale) {
    const RunSettings settings = flags.settings();
    if (!generator.empty()) {
        const auto def = readGeneratorNamed(generator);
        auto values = parseParamAssignments(params);
        if (flags.has(RunField::Load)) setLoadMode(def, values, std::string(choiceName(settings.mode)));
        std::vector<std::string> problems;
        auto meta = plannedRunMeta(settings, input, &def, values, &problems);
        for (const auto& problem : problems)
            std::fprintf(stderr, "stageload: note: %s: %s\n", generator.c_str(), problem.c_str());
        return meta;
    }
    if (cascadeScale > 0)
        return {{"pipeline", "cascade"}, {"load", std::string(choiceName(settings.mode))},
                {"scale_gib", cascadeScale}};
    return plannedRunMeta(settings, input);
}

std::vector<std::filesystem::path> earlierRuns(const std::filesystem::path& output,
                                               const std::filesystem::path& trace) {
    std::vector<std::filesystem::path> runs;
    std::error_code ec;
    const auto outDir = output.parent_path();
    for (const auto& e : std::filesystem::directory_iterator(outDir.empty() ? "." : outDir, ec))
        if (e.path().extension() == ".run" && std::filesystem::is_regular_file(e.path() / "trace.jsonl", ec))
            runs.push_back(e.path() / "trace.jsonl");
    if (!trace.empty()) runs.push_back(std::filesystem::absolute(trace).parent_path());
    return runs;
}

std::optional<std::int64_t> forecastNeed(const nlohmann::json& meta,
                                         std::vector<std::filesystem::path> more) {
    std::error_code ec;
    if (std::filesystem::is_directory(defaultHistoryDir(), ec)) more.push_back(defaultHistoryDir());
    const RunKey key = runKeyOf(meta);
    const Forecast f = forecastRun(readRunPoints(more), key);
    if (!f.peak()) {
        std::fprintf(stderr,
                     "stageload: note: --need forecast: no earlier run of %s with these choices to "
                     "forecast from; the run starts without it\n",
                     key.pipeline.c_str());
        return std::nullopt;
    }
    const auto need = needWithMargin(*f.peak());
    const std::string basis = f.runs == 0 ? std::string("its weights alone, no earlier run")
                                          : "from " + std::to_string(f.runs) + " earlier run" + (f.runs == 1 ? "" : "s");
    std::fprintf(stderr, "[guard] need %s: the forecast peak (%s%s in %s, %s) + %s %%\n", formatBytes(need).c_str(),
                 f.partial() ? "at least " : "", formatBytes(*f.peak()).c_str(), f.peakStage().c_str(),
                 basis.c_str(), formatNumber(kForecastMargin * 100).c_str());
    return need;
}

std::optional<PlannedRun> parseRunCommand(const std::vector<std::string>& command) {
    if (command.size() < 2 || command[1] != "run") return std::nullopt;
    const std::string program = std::filesystem::path(command[0]).filename().string();
    if (program.rfind("stageload", 0) != 0) return std::nullopt;
    // Read as `stageload run` reads them (its one declaration of options); whatever a later
    // version adds is left to the run itself.
    CLI::App app;
    app.allow_extras();
    RunOptions o;
    addRunOptions(app, o);
    std::vector<std::string> args(command.rbegin(), command.rend() - 2);  // CLI11 takes them reversed
    try {
        app.parse(args);
    } catch (const CLI::ParseError& e) {
        throw UsageError(std::string("--need forecast: cannot read the run's flags: ") + e.what());
    }
    return PlannedRun{plannedMeta(o.input, o.generator, o.params, o.settings), o.output, o.trace};
}

}  // namespace stageload::cli
