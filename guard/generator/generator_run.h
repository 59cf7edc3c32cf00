#pragma once
// One generator run, as library code without Qt, so `stageload run --generator` and the app
// share it: admission by the guard; the command in its own process group with its output piped;
// the meter sampling the whole group's memory into the run's trace; the command's own trace
// followed live and its stage, load, release and mark events merged into the run's trace on the
// run's clock; stage and progress lines found by the definition's patterns; every output line to
// a log file; a budget breach or a cancel stops the whole group.
//
//   stageload::GeneratorRunParams p;
//   p.def = stageload::readGeneratorDef("pixal3d.json");
//   p.values = {.input = "hero.png", .output = dir / "mesh.glb", .runDir = dir, ...};
//   p.trace = dir / "trace.jsonl";
//   p.onEvent = [](const stageload::Event& e) { ... };         // on the calling thread
//   auto r = stageload::runGenerator(p);                        // r.exitCode: 0, 3, 4, 127, ...
//
// Exit codes as the guard's: 3 stopped by the guard, 4 no room in time, 127 could not start
// (also when what its definition "requires" is missing: nothing is started then, and
// `missing` says what), 130 cancelled, else the command's own. Checking the mesh it wrote is the caller's (the engine's
// runGeneratorJob() reads it back). Throws GeneratorDefError for a definition that cannot be
// expanded and FileError when the run folder or the log cannot be written; everything that goes
// wrong with the command is in the result. Call from one thread at a time (see Guard::run()).

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "guard/base/event.h"
#include "guard/generator/generator_def.h"
#include "guard/generator/requirements.h"
#include "guard/memory/readers.h"
#include "guard/policy/guard_params.h"
#include "guard/runner/guard_runner.h"

namespace stageload {

struct GeneratorRunParams {
    GeneratorDef def;
    GeneratorValues values;           ///< runDir is created when missing
    GuardParams guard;                ///< the run's trace is guard.tracePath (set from `trace`)
    std::filesystem::path trace;      ///< the run's trace: the group's memory + merged events
    double sampleInterval = 0.1;      ///< meter interval (the group is summed over /proc)
    double runningPoll = 0.0;         ///< GuardHooks::runningPoll: judge a running group this often
    std::function<void(const MemorySample&)> onSample;         ///< the group's; meter thread
    std::function<void(const MemorySample&)> onCommandSample;  ///< from its own trace
    /// Each event the run's trace gets, its marks (the stop mark) included; t on the run's clock.
    std::function<void(const Event&)> onEvent;
    /// A stage (from the trace or a pattern) or a percent (from the progress pattern: a percent,
    /// or N/M made one; -1 when a stage begins).
    std::function<void(const std::string& stage, double percent)> onProgress;
    /// Every line it prints; `isProgress` when the progress pattern read it (a bar's redraw).
    std::function<void(const std::string& line, bool isStderr, bool isProgress)> onOutput;
    std::function<void(const GuardLogEntry&)> onGuardLog;
    const std::atomic<bool>* cancel = nullptr;
    /// Once *cancel is set: why, for the trace's stop mark and the message ("" or unset: the
    /// user's cancel; an interruptedReason() when the program is being ended).
    std::function<std::string()> cancelReason;
    /// GuardHooks::hostHandlesTermination: the caller handles SIGTERM, SIGINT and SIGHUP (and
    /// cancels); unset, they stop the run here (exit 128+N), as in `stageload run`.
    bool hostHandlesTermination = false;
    /// More for the trace's start line (the picture's size, ...); the run adds the generator,
    /// its input, seed, texture size and every param's value.
    nlohmann::json meta = nlohmann::json::object();
};

struct GeneratorRunResult {
    int exitCode = 0;
    std::vector<std::string> argv;                ///< what was run
    std::filesystem::path result;                 ///< where its mesh is to be (its "result")
    /// The time of a file at `result` before the run, when one outside the run's folder was
    /// there (an earlier run's, not this one's, unless it changes).
    std::optional<std::filesystem::file_time_type> resultBefore;
    /// What it needs that is not there ("requires", its workdir): nothing was started (127).
    std::vector<MissingRequirement> missing;
    int progressLines = 0;                        ///< lines the progress pattern read
    double lastPercent = -1.0;                    ///< the last percent they gave
    std::vector<std::string> stderrTail;          ///< its last stderr lines (at most 12)
    std::filesystem::path log;                    ///< every output line: run_dir/command.log
    std::filesystem::path commandTrace;           ///< its own trace, if it has one
    bool commandTraceFound = false;
    int badTraceLines = 0;                        ///< lines of its trace that were garbage
    std::string firstBadTraceLine;                ///< "line 3: not a JSON line: ..."
    std::vector<std::string> stages;              ///< in the order they began
    std::string guardStop;                        ///< why the guard stopped it (exit 3, 5 or 6)
    std::string startError;                       ///< why it could not start (exit 127): "... No such file ..."
    /// Seconds from the guard's stop decision (breach or cancel) to its whole group gone; -1
    /// when it was not stopped.
    double stopSeconds = -1.0;
    /// For each line of its trace: how much later than the earliest a line was ever seen (after
    /// being written) this one reached the run, in seconds. The clocks are matched on the
    /// fastest line, so these are delays beyond that one (a benchmark's "chart lag").
    std::vector<double> traceLags;
    std::string traceProblem;                     ///< the run's trace was not written whole
    double seconds = 0.0;
};

/// The start line a generator run's trace gets: the generator's name and file, the input,
/// seed, texture size and every param's value (defaults, then the run's overrides). The
/// forecast reads runs back by it.
nlohmann::json generatorTraceMeta(const GeneratorDef& def, const GeneratorValues& values);

GeneratorRunResult runGenerator(const GeneratorRunParams& params);

/// This project's command-line tool next to `program` (the running app or CLI): the same
/// folder, then ../cli/ (the build tree); else "stageload" from PATH.
std::filesystem::path stageloadCommandNear(const std::filesystem::path& program);

}  // namespace stageload
