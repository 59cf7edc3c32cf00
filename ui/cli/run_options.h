#pragma once
// The options of `stageload run`, declared once: the command itself and whoever reads a
// `stageload run ...` command line (the guard's `--need forecast`) parse them the same way.
//
//   auto o = std::make_shared<stageload::cli::RunOptions>();
//   stageload::cli::addRunOptions(*cmd, *o);      // image, -o, run flags, guard flags, ...

#include <string>
#include <vector>

#include "ui/cli/guard_flags.h"
#include "ui/cli/run_flags.h"

namespace CLI {
class App;
}

namespace stageload::cli {

struct RunOptions {
    std::string input;
    std::string output;
    RunFlags settings;
    GuardFlags guard;
    std::string generator;
    std::vector<std::string> params;
    std::string runDir;
    std::string weights;
    std::string trace;
    std::string cutout;
};

/// Adds every option of `stageload run` to `cmd`, stored in `o` (which must outlive `cmd`).
void addRunOptions(CLI::App& cmd, RunOptions& o);

}  // namespace stageload::cli
