#pragma once
// Subcommands of the `stageload` command line tool. Each add*Command() registers one subcommand
// on `app`; when the user picks it, its parse callback stores the work to do in `selected`, and
// main() runs it after parsing and returns its exit code.
//
// Two programs share them (engine_commands.h): `stageload` (main.cpp), which links no LibTorch,
// and `stageload-engine` (engine_main.cpp), which runs the models.
//
// Exit codes shared by every subcommand: 0 success, 1 a stageload::Error (message on stderr),
// 2 a usage error (bad flag or value). Subcommands may define more (the guard: 3, 4, 127, ...).

#include <functional>
#include <optional>

namespace CLI {
class App;
}

namespace stageload::cli {

using Selected = std::function<int()>;
struct RunOptions;

/// What both programs' `app` has: one subcommand required, --version, spdlog's plain pattern.
void setUpApp(CLI::App& app);
/// Parses argv into `app`: nullopt to go on, else the exit code (0 after --help or --version,
/// 2 for a bad flag, with CLI11's message).
std::optional<int> parseCommandLine(CLI::App& app, int argc, char** argv);
/// Runs `selected` (nothing: 0); what it lets through ends in a message and the exit code of its
/// kind (engine/api/failure.h), never an abort.
int runSelected(const Selected& selected);

// --- `stageload`: no LibTorch ---

/// The work of a built-in `run` (no --generator) from its options; throws CLI::ValidationError
/// for a bad setting.
using BuiltinRun = std::function<Selected(const RunOptions&)>;
/// `run`: the character pipeline, headless (the work `builtin` makes: the engine's own, or
/// `stageload` handing the command line to the engine), or an external generator.
void addRunCommand(CLI::App& app, Selected& selected, BuiltinRun builtin);
void addSummaryCommand(CLI::App& app, Selected& selected);
/// `stageload forecast`: per-stage memory of a run, from earlier runs.
void addForecastCommand(CLI::App& app, Selected& selected);
/// `plot`: the memory chart of traces as PNG/SVG/PDF (creates its own offscreen QApplication).
void addPlotCommand(CLI::App& app, Selected& selected);
void addGuardCommand(CLI::App& app, Selected& selected);
/// `install-weights`: the learned remover's weights, for this user or (--system) every user.
void addInstallWeightsCommand(CLI::App& app, Selected& selected);
/// Registers `guard` under the `bench` subcommand.
void addGuardBenchCommand(CLI::App& bench, Selected& selected);
/// Registers `generator` under the `bench` subcommand.
void addGeneratorBenchCommand(CLI::App& bench, Selected& selected);
/// Registers `start` under the `bench` subcommand: how long `stageload` takes to start.
void addStartBenchCommand(CLI::App& bench, Selected& selected);
/// `stageload bench forecast`: the forecast's error per stage at settings never run (it runs the
/// engine's benchmarks as children).
void addForecastBenchCommand(CLI::App& bench, Selected& selected);

// --- `stageload-engine`: LibTorch ---

/// The engine's built-in run (builtin_run.cpp): as it is, or guarded as a `run-job` child.
Selected builtinRun(const RunOptions& options);
/// `run-job JSON`: the guarded built-in run's child (hidden).
void addRunJobCommand(CLI::App& app, Selected& selected);
void addDemoCommand(CLI::App& app, Selected& selected);
/// Registers `bench` (addBenchGroup()) with `cascade` and `compare`; returns it so others can
/// add benchmarks.
CLI::App* addBenchCommand(CLI::App& app, Selected& selected);
/// `probe`: lifecycle memory of one model.
void addProbeCommand(CLI::App& app, Selected& selected);
/// Registers `character` under the `bench` subcommand.
void addCharacterBenchCommand(CLI::App& bench, Selected& selected);

}  // namespace stageload::cli
