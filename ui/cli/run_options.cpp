#include "ui/cli/run_options.h"

#include <CLI/CLI.hpp>

#include "engine/media/mesh_formats.h"

namespace stageload::cli {

void addRunOptions(CLI::App& cmd, RunOptions& o) {
    cmd.add_option("image", o.input, "The picture: PNG, JPEG, WebP, BMP, TGA or GIF")->required();
    cmd.add_option("-o,--output", o.output, "The mesh to write: " + writableMeshExtensions())->required();
    addRunFlags(cmd, o.settings);
    cmd.add_option("--weights", o.weights,
                   "Folder of installed weights (default $STAGELOAD_WEIGHTS_DIR or "
                   "~/.local/share/stageload/weights)");
    cmd.add_option("--trace", o.trace, "Write the memory trace (JSONL) with every stage event here");
    cmd.add_option("--cutout", o.cutout, "Also save the subject's cut-out (RGBA PNG) here");
    cmd.add_option("--generator", o.generator,
                   "Run this generator (a JSON definition, or the name of one in "
                   "resources/generators/ such as trellis-cpp) as a "
                   "guarded child process instead of the built-in pipeline; the guard's flags "
                   "below apply to it (given without it, the built-in run goes on in a guarded "
                   "child process too)");
    cmd.add_option("--param", o.params, "KEY=VALUE: set a parameter of the generator (repeatable)");
    cmd.add_option("--run-dir", o.runDir,
                   "With --generator: the folder for its log, its own trace and its output "
                   "(default OUT's name + .run beside OUT)");
    addGuardFlags(cmd, o.guard);
}

}  // namespace stageload::cli
