// `stageload forecast [IMAGE] [--generator FILE [--param K=V]... | --cascade-scale GIB]
// [run settings] [--history DIR]... [--trace FILE]... [--kill-free PCT] [--json]`: the expected
// peak of every stage of a run about to start, learned from earlier runs, next to the memory
// available now and the guard's stop level.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "guard/base/error.h"
#include "guard/base/units.h"
#include "guard/forecast/forecast.h"
#include "guard/forecast/verdict.h"
#include "guard/memory/system_memory.h"
#include "guard/policy/guard_params.h"
#include "guard/process/process_list.h"
#include "guard/trace/summary.h"
#include "ui/cli/commands.h"
#include "ui/cli/run_flags.h"
#include "ui/cli/run_plan.h"

namespace stageload::cli {
namespace {

struct ForecastOptions {
    std::string input;
    std::string generator;
    std::vector<std::string> params;
    double cascadeScale = 0.0;
    RunFlags run;
    std::vector<std::string> history;
    std::vector<std::string> traces;
    bool noDefaultHistory = false;
    bool json = false;
    double killFree = GuardParams{}.killFree;  ///< the guard's stop level the run will have
};

int runForecast(const ForecastOptions& o) {
    if (!o.generator.empty() && o.cascadeScale > 0)
        throw UsageError("--generator and --cascade-scale forecast different runs: give one");
    if (!o.params.empty() && o.generator.empty())
        throw UsageError("--param goes with --generator");
    const RunKey key = runKeyOf(plannedMeta(o.input, o.generator, o.params, o.run, o.cascadeScale));

    std::vector<std::filesystem::path> paths;
    const auto home = defaultHistoryDir();
    std::error_code ec;
    if (!o.noDefaultHistory && std::filesystem::is_directory(home, ec)) paths.push_back(home);
    for (const auto& dir : o.history) {
        if (!std::filesystem::is_directory(dir, ec))
            throw FileError("--history " + dir + ": no such folder");
        paths.emplace_back(dir);
    }
    for (const auto& trace : o.traces) {
        if (!std::filesystem::is_regular_file(trace, ec)) throw FileError("--trace " + trace + ": no such file");
        paths.emplace_back(trace);
    }
    int skipped = 0;
    const auto history = readRunPoints(paths, &skipped);
    const Forecast f = forecastRun(history, key);

    std::optional<SystemMemory> memory;
    try {
        memory = readSystemMemory();
    } catch (const Error&) {
    }
    // The verdict: the run will be a new process, so it holds nothing yet.
    std::optional<FitVerdict> verdict;
    std::vector<ProgramMemory> others;
    if (memory) {
        try {
            const auto processes = listProcesses(false);
            others = largestPrograms(processes, selfAndAncestors(processes), 5);
        } catch (const Error&) {
        }
        const auto smaller = f.peak() && memory->available < needWithMargin(*f.peak())
                                 ? smallerSettingThatFits(history, key, memory->available)
                                 : std::string();
        verdict = judgeAgainstGuard(judgeFit(f, memory->available, others, 0, smaller), memory->total, o.killFree, others);
    }
    if (o.json) {
        auto j = toJson(f);
        j["pipeline"] = key.pipeline;
        j["history_runs"] = history.size();
        j["skipped_files"] = skipped;
        j["available"] = memory ? nlohmann::ordered_json(memory->available) : nlohmann::ordered_json(nullptr);
        if (verdict) {
            auto programs = nlohmann::ordered_json::array();
            for (const auto& p : others)
                programs.push_back({{"name", p.name}, {"bytes", p.bytes}, {"processes", p.processes}});
            j["verdict"] = {{"fit", fitName(verdict->fit)},
                            {"text", verdict->text},
                            {"need", verdict->need},
                            {"need_with_margin", f.peak() ? needWithMargin(*f.peak()) : 0},
                            {"largest_programs", programs}};
        }
        std::printf("%s\n", j.dump(2).c_str());
        return 0;
    }
    std::printf("forecast for %s", key.pipeline.c_str());
    for (const auto& [name, value] : key.choices) std::printf(", %s %s", name.c_str(), value.c_str());
    for (const auto& [name, value] : key.sizes) std::printf(", %s %g", name.c_str(), value);
    std::printf("\nfrom %d earlier run%s of it (%zu traces read", f.runs, f.runs == 1 ? "" : "s",
                history.size());
    if (skipped) std::printf(", %d files skipped", skipped);
    std::printf(")\n\n%s", formatForecast(f).c_str());
    if (verdict) {
        std::printf("\n%s\n", verdict->text.c_str());
        if (!others.empty()) {
            std::string line = "largest other programs:";
            for (std::size_t i = 0; i < others.size(); ++i)
                line += (i ? ", " : " ") + others[i].name + " " + formatBytes(others[i].bytes);
            std::printf("%s\n", line.c_str());
        }
    }
    return 0;
}

}  // namespace

void addForecastCommand(CLI::App& app, Selected& selected) {
    auto o = std::make_shared<ForecastOptions>();
    auto* cmd = app.add_subcommand(
        "forecast", "Forecast the memory of every stage of a run from earlier runs of the same pipeline");
    cmd->add_option("image", o->input, "The picture the run would use (its size counts)");
    cmd->add_option("--generator", o->generator, "Forecast this generator (a definition file)");
    cmd->add_option("--param", o->params, "KEY=VALUE: a parameter of the generator (repeatable)");
    cmd->add_option("--cascade-scale", o->cascadeScale,
                    "Forecast the stand-in cascade at this scale (GiB of weights), as `bench cascade` runs it")
        ->check(CLI::PositiveNumber);
    addRunFlags(*cmd, o->run, {RunField::Load, RunField::TextureSize, RunField::Triangles, RunField::Remover,
                               RunField::Device});
    cmd->add_option("--history", o->history,
                    "Also read the traces in this folder (repeatable; the app's history is always read)");
    cmd->add_option("--trace", o->traces, "Also read this trace (repeatable)");
    cmd->add_flag("--no-app-history", o->noDefaultHistory, "Do not read the app's history folder");
    cmd->add_option("--kill-free", o->killFree,
                    "The guard's stop level the run will have, as `run` and `guard` take it: a peak that "
                    "takes available memory under it is one the guard will stop (0: judge by memory alone)")
        ->check(CLI::Range(0.0, 100.0))
        ->capture_default_str();
    cmd->add_flag("--json", o->json, "Print the forecast as JSON");
    cmd->callback([o, &selected] { selected = [o] { return runForecast(*o); }; });
}

}  // namespace stageload::cli
