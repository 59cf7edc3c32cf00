// `stageload guard [flags] -- CMD ARGS...`: runs one command only when there is room and stops
// its whole process group before swap runs away (SPEC §7). Every flag is validated before any
// waiting; a bad value exits 2 with a message that says what is wrong.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "guard/core/units.h"
#include "guard/policy/guard_params.h"
#include "guard/runner/guard_runner.h"
#include "ui/cli/commands.h"

namespace stageload::cli {
namespace {

struct GuardOptions {
    std::string waitFree = "40";
    std::string killFree = "10";
    std::string swapBudget = "8G";
    std::string swapLimit;
    std::vector<std::string> busy;
    std::string quietFor = "1m";
    std::string startTimeout = "30m";
    std::string poll = "5s";
    std::string trace;
    std::string traceInterval = "0.5s";
    std::vector<std::string> command;
};

/// Turns the typed flags into GuardParams; throws UsageError saying what is wrong.
GuardParams toParams(const GuardOptions& o) {
    GuardParams p;
    p.waitFree = parsePercent(o.waitFree, "--wait-free");
    p.killFree = parsePercent(o.killFree, "--kill-free");
    p.swapBudget = parseSize(o.swapBudget);
    if (!o.swapLimit.empty()) p.swapLimit = parseSize(o.swapLimit);
    p.busy = o.busy;
    p.quietFor = parseDuration(o.quietFor);
    p.startTimeout = parseDuration(o.startTimeout);
    p.poll = parseDuration(o.poll);
    p.tracePath = o.trace;
    p.traceInterval = parseDuration(o.traceInterval);
    if (o.command.empty())
        throw UsageError("guard needs a command: stageload guard [flags] -- CMD ARGS...");
    validate(p);
    return p;
}

}  // namespace

void addGuardCommand(CLI::App& app, Selected& selected) {
    auto o = std::make_shared<GuardOptions>();
    auto* cmd = app.add_subcommand(
        "guard",
        "Run a command only when there is room; stop its process group before swap runs away.\n"
        "Exit codes: 3 stopped by the guard, 4 no room within --start-timeout, 127 the command\n"
        "could not start, 128+N the guard got signal N, else the command's own code.");
    cmd->add_option("--wait-free", o->waitFree, "Start when available memory >= PCT (default 40)");
    cmd->add_option("--kill-free", o->killFree,
                    "Stop when available memory < PCT for two readings in a row (default 10)");
    cmd->add_option("--swap-budget", o->swapBudget,
                    "Stop when swap grows by more than SIZE since start (default 8G)");
    cmd->add_option("--swap-limit", o->swapLimit,
                    "Start only if swap + budget <= SIZE; stop when swap exceeds SIZE");
    cmd->add_option("--busy", o->busy,
                    "Wait while a process whose command line matches REGEX runs (repeatable)");
    cmd->add_option("--quiet-for", o->quietFor,
                    "Busy processes must have been gone this long (default 1m)");
    cmd->add_option("--start-timeout", o->startTimeout,
                    "Give up waiting after DUR: exit 4 (default 30m)");
    cmd->add_option("--poll", o->poll, "Seconds between readings (default 5s)");
    cmd->add_option("--trace", o->trace, "Write the command group's memory to FILE (JSONL)");
    cmd->add_option("--trace-interval", o->traceInterval,
                    "Seconds between trace samples, at least 20ms (default 0.5s)");
    cmd->add_option("command", o->command, "The command and its arguments, after --");
    cmd->callback([o, &selected] {
        GuardParams params;
        try {
            params = toParams(*o);
        } catch (const UsageError& e) {
            throw CLI::ValidationError(e.what());  // main() exits 2
        }
        selected = [o, params] {
            Guard guard(params);
            guard.onLog = [](const GuardLogEntry& e) {
                std::fprintf(stderr, "%s\n", e.line().c_str());
                std::fflush(stderr);
            };
            return guard.run(o->command);
        };
    });
}

}  // namespace stageload::cli
