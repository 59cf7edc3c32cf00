// `stageload guard [flags] -- CMD ARGS...`: runs one command only when there is room and stops
// its whole process group before swap runs away. Every flag is validated before any
// waiting; a bad value exits 2 with a message that says what is wrong.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "ui/cli/commands.h"
#include "ui/cli/guard_flags.h"
#include "ui/cli/run_plan.h"

namespace stageload::cli {

void addGuardCommand(CLI::App& app, Selected& selected) {
    auto flags = std::make_shared<GuardFlags>();
    auto command = std::make_shared<std::vector<std::string>>();
    auto* cmd = app.add_subcommand(
        "guard",
        "Run a command only when there is room; stop its process group before swap runs away.\n"
        "Exit codes: 3 stopped by the guard, 4 no room within --start-timeout, 127 the command\n"
        "could not start, 128+N the guard got signal N, else the command's own code.");
    addGuardFlags(*cmd, *flags);
    cmd->add_option("--trace", flags->trace, "Write the command group's memory to FILE (JSONL)");
    cmd->add_option("command", *command, "The command and its arguments, after --");
    cmd->callback([flags, command, &selected] {
        GuardParams params;
        try {
            if (command->empty())
                throw UsageError("guard needs a command: stageload guard [flags] -- CMD ARGS...");
            params = flags->params();
            if (params.needForecast) {  // the guard reads the run's settings from its command line
                const auto run = parseRunCommand(*command);
                if (!run)
                    throw UsageError("--need forecast: the guard forecasts `stageload run ...` commands (it "
                                     "reads their settings); for another command give a size, e.g. --need 12G");
                params.need = forecastNeed(run->meta, earlierRuns(run->output, run->trace));
            }
        } catch (const UsageError& e) {
            throw CLI::ValidationError(e.what());  // main() exits 2
        }
        selected = [command, params] { return runGuarded(params, *command); };
    });
}

}  // namespace stageload::cli
