// `stageload run IMAGE -o OUT.glb`: the built-in character pipeline, headless; with
// --generator FILE.json, an external generator as a guarded child process (run_generator.cpp).
// The built-in run itself is the engine's (builtin_run.cpp); `stageload` hands it over.
// Progress goes to stderr, the per-stage table and the result to stdout.
//
// Exit codes (for scripts): 0 written; 2 bad flags; 65 the picture cannot be used (not an
// image, corrupt, too large, no subject); 66 the picture does not exist; 73 the output cannot
// be written (nothing half-written is left); 69 the learned remover asked for is not installed;
// 78 its weights are broken;
// 128+N ended by signal N (130 Ctrl+C, 143 SIGTERM, 129 SIGHUP: the trace ends with a stop mark
// naming it); 1 anything else. The codes come from engine/api/failure.h.
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "guard/generator/generator_def.h"
#include "ui/cli/commands.h"
#include "ui/cli/run_generator.h"
#include "ui/cli/run_options.h"

namespace stageload::cli {

void addRunCommand(CLI::App& app, Selected& selected, BuiltinRun builtin) {
    auto o = std::make_shared<RunOptions>();
    auto* cmd = app.add_subcommand(
        "run", "Turn one picture of a character into a textured mesh (.glb, .obj + .mtl + .png, or .ply + .png)");
    cmd->footer("Exit codes: 0 written, 2 bad flags, 65 unusable picture (corrupt, too large, no "
                "subject), 66 no such picture, 69 remover not installed, 73 output not writable, "
                "78 broken weights, "
                "130 interrupted, 1 other errors. With --generator or a guard flag: 3 stopped by the "
                "guard, 4 no room in time, 127 could not start, 130 interrupted, else the run's "
                "own code (a generator's: 1 when it wrote no mesh that reads).");
    addRunOptions(*cmd, *o);
    cmd->callback([o, &selected, builtin] {
        if (o->generator.empty()) {
            if (!o->params.empty() || !o->runDir.empty())
                throw CLI::ValidationError("--param and --run-dir go with --generator");
            selected = builtin(*o);
            return;
        }
        GeneratorOptions g;
        try {
            g.settings = o->settings.settings();
            g.guard = o->guard.params();  // --need forecast: sized once the definition is read
            g.params = parseParamAssignments(o->params);
            if (o->settings.has(RunField::Load)) g.load = std::string(choiceName(g.settings.mode));
        } catch (const UsageError& e) {
            throw CLI::ValidationError(e.what());  // main() exits 2
        }
        g.input = o->input;
        g.output = o->output;
        g.generator = o->generator;
        g.trace = o->trace;
        if (o->guard.given.count("traceInterval")) g.sampleInterval = g.guard.traceInterval;
        g.runDir = o->runDir;
        selected = [g] { return runGeneratorCommand(g); };
    });
}

}  // namespace stageload::cli
