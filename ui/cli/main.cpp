// `stageload`: the command line face of the engine and the guard.
#include <cstdio>
#include <cstring>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "guard/base/error.h"
#include "guard/base/huge_page_malloc.h"
#include "engine/api/failure.h"
#include "ui/cli/commands.h"

int main(int argc, char** argv) {
    // Commands that run models get glibc's heap on huge pages (re-executes once, see header).
    if (argc > 1 && (std::strcmp(argv[1], "run") == 0 || std::strcmp(argv[1], "bench") == 0 ||
                     std::strcmp(argv[1], "demo") == 0 || std::strcmp(argv[1], "probe") == 0))
        stageload::relaunchWithHugePageMalloc(argv);
    CLI::App app{"stageload: stage-by-stage model loading, memory traces and a guard for heavy "
                 "pipelines"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "stageload " STAGELOAD_VERSION);
    spdlog::set_pattern("%^%l%$: %v");

    stageload::cli::Selected selected;
    stageload::cli::addRunCommand(app, selected);
    stageload::cli::addProbeCommand(app, selected);
    stageload::cli::addDemoCommand(app, selected);
    auto* bench = stageload::cli::addBenchCommand(app, selected);
    stageload::cli::addSummaryCommand(app, selected);
    stageload::cli::addPlotCommand(app, selected);
    stageload::cli::addGuardCommand(app, selected);
    stageload::cli::addForecastCommand(app, selected);
    stageload::cli::addInstallWeightsCommand(app, selected);
    stageload::cli::addCharacterBenchCommand(*bench, selected);
    stageload::cli::addGuardBenchCommand(*bench, selected);
    stageload::cli::addGeneratorBenchCommand(*bench, selected);
    stageload::cli::addForecastBenchCommand(*bench, selected);

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return 2;
    }

    // Whatever a command lets through (a LibTorch error, a filesystem error, no memory) ends in
    // a message and an exit code of its kind, never an abort.
    try {
        return selected ? selected() : 0;
    } catch (const stageload::UsageError& e) {
        std::fprintf(stderr, "stageload: error: %s\n", e.what());
        return 2;
    } catch (const stageload::Error& e) {
        std::fprintf(stderr, "stageload: error: %s\n", e.what());
        return 1;
    } catch (...) {
        const auto f = stageload::classifyFailure(std::current_exception());
        std::fprintf(stderr, "stageload: error: %s\n", f.message.c_str());
        return stageload::exitCode(f.kind);
    }
}
