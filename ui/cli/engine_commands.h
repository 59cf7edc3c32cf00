#pragma once
// The subcommands that run models, and so need LibTorch, live in a program of their own:
// `stageload` links no LibTorch and starts in milliseconds (the guard, summaries, plots,
// forecasts, generator runs), and hands these to `stageload-engine` (libexec), which loading
// LibTorch takes about a second to start:
//
//   stageload run IMAGE -o OUT      (the built-in pipeline; with --generator it stays here)
//   stageload probe | demo | bench cascade | bench compare | bench character
//
//   int main(int argc, char** argv) {
//       if (stageload::cli::isEngineCommandLine(argc, argv)) return stageload::cli::execEngine(argv);
//       ...
//       stageload::cli::addEngineCommandEntries(app, *bench, selected, argv);   // in --help
//
// The engine registers the same commands under the same names and descriptions (from here), so
// `stageload probe --help` is the engine's own help. The handover is one exec: same process,
// same arguments, same signal mask, glibc's heap on huge pages (guard/base/huge_page_malloc.h).

#include <filesystem>
#include <string>
#include <string_view>

#include "ui/cli/commands.h"

namespace CLI {
class App;
}

namespace stageload::cli {

/// The description of engine command `group name`; throws std::logic_error for one not listed.
std::string engineCommandDescription(std::string_view group, std::string_view name);

/// The description of `bench`, and the group itself on `app` (subcommand required), shared by
/// both programs: `stageload` adds the Torch-free benchmarks to it, the engine the others.
CLI::App* addBenchGroup(CLI::App& app);

/// True when argv asks for an engine command (argv[1] names one, or argv[1] is its group and
/// argv[2] names it), its --help included.
bool isEngineCommandLine(int argc, char** argv);

/// ${STAGELOAD_ENGINE}, else <programPrefix>/libexec/stageload/stageload-engine (data_dirs.h).
std::filesystem::path engineProgram();

/// Replaces this process by the engine with the same arguments. Returns only when that cannot
/// be done, after saying why on stderr: 127.
int execEngine(char** argv);

/// Lists each engine command on `app` or `bench` for --help; run (should the parser ever get
/// there rather than isEngineCommandLine()), it hands the command line to the engine.
void addEngineCommandEntries(CLI::App& app, CLI::App& bench, Selected& selected, char** argv);

}  // namespace stageload::cli
