// `stageload run IMAGE -o OUT.glb`: the built-in character pipeline, headless; with
// --generator FILE.json, an external generator as a guarded child process (run_generator.cpp).
// Progress goes to stderr, the per-stage table and the result to stdout.
//
// Exit codes (for scripts): 0 written; 2 bad flags; 65 the picture cannot be used (not an
// image, corrupt, too large, no subject); 66 the picture does not exist; 73 the output cannot
// be written (nothing half-written is left); 69 the learned remover asked for is not installed;
// 78 its weights are broken;
// 130 interrupted (Ctrl+C); 1 anything else. The codes come from engine/api/failure.h.
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#include <CLI/CLI.hpp>

#include "engine/api/errors.h"
#include "engine/api/failure.h"
#include "engine/api/run_meta.h"
#include "engine/pipelines/character/character_run.h"
#include "guard/meter/meter.h"
#include "ui/cli/commands.h"
#include "ui/cli/guard_flags.h"
#include "ui/cli/run_flags.h"
#include "ui/cli/run_generator.h"
#include "ui/cli/run_plan.h"

namespace stageload::cli {
namespace {

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

std::atomic<bool> interrupted{false};
extern "C" void onInterrupt(int) { interrupted.store(true); }

// The trace a run writes: the user's --trace, or a temporary file removed at the end.
class TemporaryTrace {
public:
    explicit TemporaryTrace(const std::string& wanted) : path_(wanted) {
        if (!path_.empty()) return;
        std::string name = (std::filesystem::temp_directory_path() / "stageload-run-XXXXXX").string();
        const int fd = ::mkstemp(name.data());
        if (fd < 0)
            throw FileError("cannot make a temporary trace in " +
                            std::filesystem::temp_directory_path().string() + ": " + std::strerror(errno) +
                            " (give --trace FILE)");
        ::close(fd);
        path_ = name;
        owned_ = true;
    }
    ~TemporaryTrace() {
        std::error_code ec;
        if (owned_) std::filesystem::remove(path_, ec);
    }
    TemporaryTrace(const TemporaryTrace&) = delete;
    TemporaryTrace& operator=(const TemporaryTrace&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
    bool owned_ = false;
};

int runCharacterCommand(const RunOptions& o) {
    CharacterParams p;
    static_cast<RunSettings&>(p) = o.settings.settings();
    p.input = o.input;
    p.output = o.output;
    p.weightsDir = o.weights;
    validateCharacterParams(p);  // before the meter starts: a bad flag leaves no trace file

    // Every run is metered: the per-stage table is the summary of its trace, as for a generator
    // and `stageload summary`. Without --trace the trace is a temporary file.
    TemporaryTrace scratch(o.trace);
    MeterParams mp;
    mp.tracePath = scratch.path();
    mp.interval = 0.05;
    mp.meta = runMeta(p, p.input);
    Meter meter(std::move(mp));
    p.events = meter.eventSink();
    const auto stages = characterStages();
    std::size_t index = 0;
    p.onStage = [&](const std::string& stage, bool begins) {
        if (begins) std::fprintf(stderr, "[%zu/%zu] %s...\n", ++index, stages.size(), stage.c_str());
    };
    p.cancel = &interrupted;
    auto previous = std::signal(SIGINT, onInterrupt);
    CharacterResult r;
    try {
        r = runCharacter(p);
    } catch (...) {
        std::signal(SIGINT, previous);
        meter.stop();
        throw;
    }
    std::signal(SIGINT, previous);
    meter.stop();

    for (const auto& notice : r.notices) std::fprintf(stderr, "stageload: note: %s\n", notice.c_str());
    const bool traceLost = !meter.traceProblem().empty();
    if (!traceLost) printStageTable(scratch.path());
    std::printf("total %.2f s; picture %d×%d, subject from %s in %d part%s", r.seconds, r.inputWidth,
                r.inputHeight, maskSourceName(r.maskSource), r.parts, r.parts == 1 ? "" : "s");
    if (r.droppedParts > 0)
        std::printf(" (%d speck%s dropped)", r.droppedParts, r.droppedParts == 1 ? "" : "s");
    std::printf("\n");
    std::printf("mesh: %zu vertices, %zu triangles (%s), texture %d×%d\n", r.mesh.vertexCount(),
                r.mesh.triangleCount(), r.meshReport.describe().c_str(), r.mesh.texture.width,
                r.mesh.texture.height);
    for (const auto& f : r.files) std::printf("wrote %s\n", f.c_str());
    if (!o.cutout.empty()) {
        writePngFile(o.cutout, r.cutout);
        std::printf("wrote %s (the cut-out)\n", o.cutout.c_str());
    }
    if (traceLost) {
        // The mesh is written; only the trace is incomplete. That fails the run only when the
        // user asked for the trace.
        std::fprintf(stderr, "stageload: %s: %s\n", o.trace.empty() ? "note: no per-stage table" : "error",
                     meter.traceProblem().c_str());
        if (!o.trace.empty()) return exitCode(FailureKind::CannotWrite);
    }
    if (!o.trace.empty()) std::printf("trace written to %s\n", o.trace.c_str());
    return 0;
}

// The built-in run with guard flags: this program again, with the same run flags and none of
// the guard's, as a child process the guard admits and watches (exit 3: stopped, 4: no room).
int runGuardedCharacter(const RunOptions& o, const GuardParams& params) {
    std::vector<std::string> command{thisProgram().string(), "run", o.input, "-o", o.output};
    for (const auto& [field, text] : o.settings.given) {
        command.emplace_back(runField(field).flag);
        command.push_back(text);
    }
    for (const auto& [flag, value] : {std::pair{"--weights", &o.weights}, std::pair{"--trace", &o.trace},
                                      std::pair{"--cutout", &o.cutout}})
        if (!value->empty()) command.insert(command.end(), {flag, *value});
    return runGuarded(params, command);
}

// Runs `work`, mapping what went wrong to the documented exit codes; prints the message.
int withExitCodes(const std::function<int()>& work) {
    try {
        return work();
    } catch (...) {
        const auto f = classifyFailure(std::current_exception());
        std::fprintf(stderr, "stageload: error: %s\n", f.message.c_str());
        return exitCode(f.kind);
    }
}

}  // namespace

void addRunCommand(CLI::App& app, Selected& selected) {
    auto o = std::make_shared<RunOptions>();
    auto* cmd = app.add_subcommand(
        "run", "Turn one picture of a character into a textured mesh (.glb, or .obj + .mtl + .png)");
    cmd->footer("Exit codes: 0 written, 2 bad flags, 65 unusable picture (corrupt, too large, no "
                "subject), 66 no such picture, 69 remover not installed, 73 output not writable, "
                "78 broken weights, "
                "130 interrupted, 1 other errors. With --generator or a guard flag: 3 stopped by the "
                "guard, 4 no room in time, 127 could not start, 130 interrupted, else the run's "
                "own code (a generator's: 1 when it wrote no mesh that reads).");
    cmd->add_option("image", o->input, "The picture: PNG, JPEG, WebP, BMP, TGA or GIF")->required();
    cmd->add_option("-o,--output", o->output, "The mesh to write: .glb, or .obj")->required();
    addRunFlags(*cmd, o->settings);
    cmd->add_option("--weights", o->weights,
                    "Folder of installed weights (default $STAGELOAD_WEIGHTS_DIR or "
                    "~/.local/share/stageload/weights)");
    cmd->add_option("--trace", o->trace, "Write the memory trace (JSONL) with every stage event here");
    cmd->add_option("--cutout", o->cutout, "Also save the subject's cut-out (RGBA PNG) here");
    cmd->add_option("--generator", o->generator,
                    "Run this generator (a JSON definition, see resources/generators/) as a "
                    "guarded child process instead of the built-in pipeline; the guard's flags "
                    "below apply to it (given without it, the built-in run goes on in a guarded "
                    "child process too)");
    cmd->add_option("--param", o->params,
                    "KEY=VALUE: set a parameter of the generator (repeatable)");
    cmd->add_option("--run-dir", o->runDir,
                    "With --generator: the folder for its log, its own trace and its output "
                    "(default OUT's name + .run beside OUT)");
    addGuardFlags(*cmd, o->guard);
    cmd->callback([o, &selected] {
        if (o->generator.empty()) {
            if (!o->params.empty() || !o->runDir.empty())
                throw CLI::ValidationError("--param and --run-dir go with --generator");
            if (!o->guard.given.empty() || !o->guard.busy.empty()) {
                // Guard flags: the run goes on in a child process of its own, under the guard.
                GuardParams params;
                bool needForecast = false;
                try {
                    GuardFlags guard = o->guard;
                    if (const auto it = guard.given.find("need"); it != guard.given.end() && it->second == "forecast") {
                        needForecast = true;
                        guard.given.erase(it);
                    }
                    params = guard.params();
                    o->settings.settings();  // a bad setting is said here, exit 2
                } catch (const UsageError& e) {
                    throw CLI::ValidationError(e.what());
                }
                selected = [o, params, needForecast]() mutable {
                    if (needForecast) {
                        params.need = forecastNeed(runMeta(o->settings.settings(), o->input),
                                                   earlierRuns(o->output, o->trace));
                    }
                    return runGuardedCharacter(*o, params);
                };
                return;
            }
            selected = [o] { return withExitCodes([o] { return runCharacterCommand(*o); }); };
            return;
        }
        GeneratorOptions g;
        try {
            g.settings = o->settings.settings();
            // --need forecast: the size comes from the forecast once the definition is read.
            GuardFlags guard = o->guard;
            if (const auto it = guard.given.find("need"); it != guard.given.end() && it->second == "forecast") {
                g.needForecast = true;
                guard.given.erase(it);
            }
            g.guard = guard.params();
            for (const auto& kv : o->params) {
                const auto eq = kv.find('=');
                if (eq == std::string::npos || eq == 0)
                    throw UsageError("--param " + kv + ": use KEY=VALUE, e.g. --param scale=4");
                g.params[kv.substr(0, eq)] = kv.substr(eq + 1);
            }
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
