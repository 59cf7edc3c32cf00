// `stageload`: the command line face of the engine and the guard. This program links no
// LibTorch, so it starts in milliseconds; the commands that run models are handed to
// `stageload-engine` (engine_commands.h).
#include <CLI/CLI.hpp>

#include "guard/process/signal_block.h"
#include "ui/cli/commands.h"
#include "ui/cli/engine_commands.h"

int main(int argc, char** argv) {
    // First of all: a signal that comes while the program starts waits for the guard, which
    // records it and stops its command, instead of killing this program unrecorded. The mask
    // survives the exec into the engine.
    stageload::SignalBlock::blockTermination();
    if (stageload::cli::isEngineCommandLine(argc, argv)) return stageload::cli::execEngine(argv);

    CLI::App app{"stageload: stage-by-stage model loading, memory traces and a guard for heavy "
                 "pipelines", "stageload"};
    stageload::cli::setUpApp(app);

    using namespace stageload::cli;
    Selected selected;
    addRunCommand(app, selected, [argv](const RunOptions&) -> Selected {
        return [argv] { return execEngine(argv); };  // the built-in pipeline runs models
    });
    addSummaryCommand(app, selected);
    addPlotCommand(app, selected);
    addGuardCommand(app, selected);
    addForecastCommand(app, selected);
    addInstallWeightsCommand(app, selected);
    auto* bench = addBenchGroup(app);
    addGuardBenchCommand(*bench, selected);
    addGeneratorBenchCommand(*bench, selected);
    addStartBenchCommand(*bench, selected);
    addForecastBenchCommand(*bench, selected);
    addEngineCommandEntries(app, *bench, selected, argv);

    if (const auto exit = parseCommandLine(app, argc, argv)) return *exit;
    // The guard (its own and a run's) records the signals it was sent; every other command is
    // ended by them as usual. A built-in run keeps the mask into the engine, which takes them.
    if (!app.got_subcommand("guard") && !app.got_subcommand("run")) stageload::SignalBlock::unblockTermination();
    return runSelected(selected);
}
