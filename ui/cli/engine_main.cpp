// `stageload-engine` (libexec): the `stageload` commands that run models, and so link LibTorch:
// the built-in `run` (and its guarded `run-job` child), `probe`, `demo` and the model benchmarks.
// `stageload` execs it with its own command line (engine_commands.h); run by hand it answers the
// same commands.
#include <CLI/CLI.hpp>

#include "guard/base/huge_page_malloc.h"
#include "guard/process/signal_block.h"
#include "ui/cli/commands.h"
#include "ui/cli/engine_commands.h"

int main(int argc, char** argv) {
    // Started by `stageload`, the heap is on huge pages already and this only gives children the
    // user's environment back; started by hand, it re-executes once (see the header).
    stageload::relaunchWithHugePageMalloc(argv);
    CLI::App app{"stageload-engine: the stageload commands that run models", "stageload"};
    stageload::cli::setUpApp(app);

    using namespace stageload::cli;
    Selected selected;
    addRunCommand(app, selected, builtinRun);
    addRunJobCommand(app, selected);
    addProbeCommand(app, selected);
    addDemoCommand(app, selected);
    auto* bench = addBenchCommand(app, selected);
    addCharacterBenchCommand(*bench, selected);

    if (const auto exit = parseCommandLine(app, argc, argv)) return *exit;
    // `stageload` blocked the termination signals before handing over. A run takes them itself
    // (its handlers, or the guard); every other command is ended by them as usual.
    if (!app.got_subcommand("run")) stageload::SignalBlock::unblockTermination();
    return runSelected(selected);
}
