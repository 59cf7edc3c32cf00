#pragma once
// Subcommands of the `stageload` command line tool. Each add*Command() registers one subcommand
// on `app`; when the user picks it, its parse callback stores the work to do in `selected`, and
// main() runs it after parsing and returns its exit code.
//
// Exit codes shared by every subcommand: 0 success, 1 a stageload::Error (message on stderr),
// 2 a usage error (bad flag or value). Subcommands may define more (the guard: 3, 4, 127, ...).

#include <functional>

namespace CLI {
class App;
}

namespace stageload::cli {

using Selected = std::function<int()>;

void addDemoCommand(CLI::App& app, Selected& selected);
/// Registers `bench` with `cascade` and `compare`; returns it so others can add benchmarks.
CLI::App* addBenchCommand(CLI::App& app, Selected& selected);
/// `run`: the character pipeline, headless.
void addRunCommand(CLI::App& app, Selected& selected);
/// `probe`: lifecycle memory of one model.
void addProbeCommand(CLI::App& app, Selected& selected);
void addSummaryCommand(CLI::App& app, Selected& selected);
/// `stageload forecast`: per-stage memory of a run, from earlier runs.
void addForecastCommand(CLI::App& app, Selected& selected);
/// `plot`: the memory chart of traces as PNG/SVG/PDF (creates its own offscreen QApplication).
void addPlotCommand(CLI::App& app, Selected& selected);
void addGuardCommand(CLI::App& app, Selected& selected);
/// `install-weights`: the learned remover's weights, for this user or (--system) every user.
void addInstallWeightsCommand(CLI::App& app, Selected& selected);
/// Registers `character` under the `bench` subcommand.
void addCharacterBenchCommand(CLI::App& bench, Selected& selected);
/// Registers `guard` under the `bench` subcommand.
void addGuardBenchCommand(CLI::App& bench, Selected& selected);
/// Registers `generator` under the `bench` subcommand.
void addGeneratorBenchCommand(CLI::App& bench, Selected& selected);
/// `stageload bench forecast`: the forecast's error per stage at settings never run.
void addForecastBenchCommand(CLI::App& bench, Selected& selected);

}  // namespace stageload::cli
