#pragma once
// `stageload run IMAGE -o OUT --generator FILE.json`: an external generator run as a guarded
// child process, with live progress on stderr and the per-stage table at the end.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "engine/api/run_settings.h"
#include "guard/policy/guard_params.h"

namespace stageload::cli {

struct GeneratorOptions {
    std::string input;
    std::string output;       ///< the mesh to keep: copied (same format) or converted
    std::string generator;    ///< the definition file, or the name of one (readGeneratorNamed())
    RunSettings settings;     ///< seed and texture size
    GuardParams guard;
    double sampleInterval = 0.1;  ///< seconds between samples of the group (--trace-interval)
    std::string trace;        ///< the merged trace; default <run dir>/trace.jsonl
    std::string runDir;       ///< default OUT's name + ".run" beside it
    std::map<std::string, std::string> params;  ///< --param KEY=VALUE
    std::string load;         ///< --load as given ("" when not): the generator's load param
};

/// This program (the `stageload` CLI itself), for a generator's {stageload}.
std::filesystem::path thisProgram();

/// Prints the per-stage table of a run's trace, as `stageload summary` does; both kinds of run
/// print theirs this way. A trace that cannot be read gives a note instead.
void printStageTable(const std::filesystem::path& trace);

/// Runs it; returns the exit code (0, 1, 2, 3, 4, 127, 130 or the command's own).
int runGeneratorCommand(const GeneratorOptions& options);

}  // namespace stageload::cli
