// The built-in run of `stageload run IMAGE -o OUT` (no --generator), in the engine program
// (engine_commands.h): as it is, or with guard flags as this program's hidden `run-job` child
// under the guard. Exit codes: run_command.cpp.
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
#include "engine/pipelines/character/character_job.h"
#include "guard/process/signal_block.h"
#include "guard/trace/summary.h"
#include "ui/cli/commands.h"
#include "ui/cli/guard_flags.h"
#include "ui/cli/run_flags.h"
#include "ui/cli/run_generator.h"
#include "ui/cli/run_options.h"
#include "ui/cli/run_plan.h"

namespace stageload::cli {
namespace {

std::atomic<bool> interrupted{false};
volatile std::sig_atomic_t interruptedBy = 0;  // the signal
extern "C" void onInterrupt(int sig) {
    interruptedBy = sig;
    interrupted.store(true);
}

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

// The built-in run a `stageload run` command line asks for.
CharacterJobParams jobOf(const RunOptions& o) {
    CharacterJobParams p;
    static_cast<RunSettings&>(p.run) = o.settings.settings();
    p.run.input = o.input;
    p.run.output = o.output;
    p.run.weightsDir = o.weights;
    p.trace = o.trace;
    p.cutout = o.cutout;
    return p;
}

// Runs the built-in job and prints its stages, its per-stage table and what it wrote.
int runAndPrint(CharacterJobParams p) {
    // Every run is metered: the per-stage table is the summary of its trace, as for a generator
    // and `stageload summary`. Without a trace asked for, the trace is a temporary file.
    const bool traceWanted = !p.trace.empty();
    TemporaryTrace scratch(p.trace.string());
    p.trace = scratch.path();
    p.cancel = &interrupted;
    // Ctrl+C, a logout (SIGTERM) or the terminal closing (SIGHUP): the run stops at its next
    // step with a stop mark naming the signal, and the exit code is 128+N.
    p.cancelReason = [] { return interruptedReason("stageload got " + SignalBlock::describe(interruptedBy)); };
    p.onStage = [](const std::string& stage, int index, int count, bool begins) {
        if (begins) std::fprintf(stderr, "[%d/%d] %s...\n", index + 1, count, stage.c_str());
    };
    constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
    decltype(std::signal(SIGINT, SIG_DFL)) previous[3];
    for (int i = 0; i < 3; ++i) {
        previous[i] = std::signal(kSignals[i], onInterrupt);
        if (previous[i] == SIG_IGN) std::signal(kSignals[i], SIG_IGN);  // nohup's SIGHUP stays ignored
    }
    SignalBlock::unblockTermination();  // `stageload` blocked them before handing over: now ours
    const auto job = runCharacterJob(p);
    for (int i = 0; i < 3; ++i) std::signal(kSignals[i], previous[i]);
    if (!job.ok()) {
        std::fprintf(stderr, "stageload: error: %s\n", job.message.c_str());
        return interrupted.load() && interruptedBy != 0 ? 128 + interruptedBy : job.exitCode();
    }
    const CharacterResult& r = job.result;
    for (const auto& notice : r.notices) std::fprintf(stderr, "stageload: note: %s\n", notice.c_str());
    const bool traceLost = !job.traceProblem.empty();
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
    if (!p.cutout.empty()) std::printf("wrote %s (the cut-out)\n", p.cutout.c_str());
    if (traceLost) {
        // The mesh is written; only the trace is incomplete. That fails the run only when the
        // user asked for the trace.
        std::fprintf(stderr, "stageload: %s: %s\n", traceWanted ? "error" : "note: no per-stage table",
                     job.traceProblem.c_str());
        if (traceWanted) return exitCode(FailureKind::CannotWrite);
    }
    if (traceWanted) std::printf("trace written to %s\n", scratch.path().c_str());
    return 0;
}

// The built-in run with guard flags: this program's hidden `run-job` with the job as one JSON
// argument, as a child process the guard admits and watches (exit 3: stopped, 4: no room).
int runGuardedCharacter(const CharacterJobParams& job, const GuardParams& params) {
    return runGuarded(params, {thisProgram().string(), "run-job", characterJobJson(job).dump()});
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

Selected builtinRun(const RunOptions& options) {
    auto o = std::make_shared<RunOptions>(options);
    if (o->guard.given.empty() && o->guard.busy.empty())
        return [o] { return withExitCodes([o] { return runAndPrint(jobOf(*o)); }); };
    // Guard flags: the run goes on in a child process of its own, under the guard.
    GuardParams params;
    CharacterJobParams job;
    try {
        params = o->guard.params();
        job = jobOf(*o);  // a bad setting is said here, exit 2
    } catch (const UsageError& e) {
        throw CLI::ValidationError(e.what());
    }
    return [o, params, job]() mutable {
        if (params.needForecast)
            params.need = forecastNeed(runMeta(job.run, job.run.input), earlierRuns(o->output, o->trace));
        return runGuardedCharacter(job, params);
    };
}

void addRunJobCommand(CLI::App& app, Selected& selected) {
    // The guarded built-in run's child (runGuardedCharacter()): not for users, so not listed.
    auto json = std::make_shared<std::string>();
    auto* job = app.add_subcommand("run-job", "Run one built-in job given as JSON (the guarded run's child)");
    job->group("");
    job->add_option("job", *json, "The job: characterJobJson()'s form")->required();
    job->callback([json, &selected] {
        CharacterJobParams p;
        try {
            p = characterJobFromJson(nlohmann::json::parse(*json));
        } catch (const nlohmann::json::exception& e) {
            throw CLI::ValidationError(std::string("run-job: not a job: ") + e.what());
        } catch (const UsageError& e) {
            throw CLI::ValidationError(e.what());
        }
        selected = [p] { return withExitCodes([p] { return runAndPrint(p); }); };
    });
}

}  // namespace stageload::cli
