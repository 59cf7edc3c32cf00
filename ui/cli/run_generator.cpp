#include "ui/cli/run_generator.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>

#include "engine/api/generator_job.h"
#include "engine/api/run_meta.h"
#include "guard/base/atomic_file.h"
#include "guard/base/data_dirs.h"
#include "guard/base/text.h"
#include "guard/base/units.h"
#include "engine/media/mesh_files.h"
#include "guard/trace/summary.h"
#include "guard/trace/trace_reader.h"
#include "ui/cli/run_plan.h"

namespace stageload::cli {
namespace {

// Keeps the generator's mesh at `out`: the same bytes when the format matches, else converted.
void keepMesh(const GeneratorJobResult& job, const std::filesystem::path& out) {
    if (asciiLower(out.extension().string()) == asciiLower(job.meshFile.extension().string())) {
        std::ifstream in(job.meshFile, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        writeFileAtomically(out, bytes);
        std::printf("wrote %s\n", out.c_str());
        return;
    }
    for (const auto& f : writeMeshFile(job.mesh, out)) std::printf("wrote %s\n", f.c_str());
}

}  // namespace

void printStageTable(const std::filesystem::path& trace) {
    try {
        std::printf("\n%s", formatTable(summarize(readTrace(trace.string()))).c_str());
    } catch (const Error& e) {
        std::fprintf(stderr, "stageload: note: no per-stage table: %s\n", e.what());
    }
}

std::filesystem::path thisProgram() {
    auto self = programFile();
    return self.empty() ? std::filesystem::path("stageload") : self;
}

int runGeneratorCommand(const GeneratorOptions& o) {
    GeneratorRunParams p;
    p.values.params = o.params;
    try {
        p.def = readGeneratorNamed(o.generator);
        validateMeshOutput(o.output);
        if (!o.load.empty()) setLoadMode(p.def, p.values.params, o.load);
    } catch (const Error& e) {
        std::fprintf(stderr, "stageload: error: %s\n", e.what());
        return 2;
    }
    std::error_code ec;
    if (!std::filesystem::is_regular_file(o.input, ec)) {
        std::fprintf(stderr, "stageload: error: %s: no such picture; check the path\n", o.input.c_str());
        return 66;
    }
    const std::filesystem::path out(o.output);
    const std::filesystem::path runDir =
        o.runDir.empty() ? out.parent_path() / (out.stem().string() + ".run") : std::filesystem::path(o.runDir);
    p.values.input = std::filesystem::absolute(o.input, ec);
    p.values.runDir = std::filesystem::absolute(runDir, ec);
    p.values.output = p.values.runDir / ("mesh." + p.def.format);
    p.values.trace = p.values.runDir / "command.trace.jsonl";
    p.values.seed = o.settings.seed;
    p.values.textureSize = o.settings.textureSize;
    p.values.stageload = thisProgram();
    p.trace = o.trace.empty() ? p.values.runDir / "trace.jsonl" : std::filesystem::absolute(o.trace, ec);
    p.guard = o.guard;
    p.sampleInterval = o.sampleInterval;
    std::vector<std::string> problems;
    p.meta = generatorMetaExtras(p.def, p.values, &problems);  // the picture's size, each stage's weights
    for (const auto& problem : problems)
        std::fprintf(stderr, "stageload: note: %s: %s\n", p.def.source.c_str(), problem.c_str());
    if (p.guard.needForecast) {
        // From the app's history and the earlier runs beside OUT.
        auto planned = generatorTraceMeta(p.def, p.values);
        planned.update(p.meta);  // the start line the run will write
        p.guard.need = forecastNeed(planned, earlierRuns(out));
    }

    // Live progress on stderr: each stage as it begins, each load and release, and every 2 s a
    // status line (stage, percent, the group's footprint) from the meter's thread.
    struct Status {
        std::mutex mutex;
        std::string stage;
        double percent = -1.0;
        double lastShown = -10.0;
        int tenths = -1;  ///< the last tenth of the stage's progress printed
    };
    auto status = std::make_shared<Status>();
    p.onProgress = [status](const std::string& s, double pct) {
        std::lock_guard lock(status->mutex);
        if (s != status->stage) {
            std::fprintf(stderr, "[stage] %s\n", s.c_str());
            status->tenths = -1;
        }
        status->stage = s;
        status->percent = pct;
        // Each tenth of a stage's progress once, however often a bar redraws.
        if (pct >= 0 && static_cast<int>(pct / 10) > status->tenths) {
            status->tenths = static_cast<int>(pct / 10);
            std::fprintf(stderr, "  [progress] %s %d%%\n", s.empty() ? "starting" : s.c_str(),
                         static_cast<int>(pct));
        }
    };
    p.onSample = [status](const MemorySample& s) {
        std::lock_guard lock(status->mutex);
        if (s.t - status->lastShown < 2.0) return;
        status->lastShown = s.t;
        std::string line = "  " + (status->stage.empty() ? std::string("starting") : status->stage);
        if (status->percent >= 0) line += " " + std::to_string(static_cast<int>(status->percent)) + "%";
        std::fprintf(stderr, "%s, group %s (%d processes)\n", line.c_str(),
                     formatBytes(s.footprint).c_str(), [&] {
                         for (const auto& [key, value] : s.extra)
                             if (key == "processes") return static_cast<int>(value);
                         return 0;
                     }());
    };
    p.onEvent = [](const Event& e) {
        if (e.kind == EventKind::Load || e.kind == EventKind::Release)
            std::fprintf(stderr, "  %s %s (%s)\n", std::string(toString(e.kind)).c_str(),
                         e.name.c_str(), formatBytes(e.nbytes).c_str());
    };
    p.onGuardLog = [](const GuardLogEntry& e) {
        std::fprintf(stderr, "%s\n", e.line().c_str());
        std::fflush(stderr);
    };
    // Ctrl+C reaches the guard (it blocks SIGINT while it runs): it stops the group, exit 130.

    std::fprintf(stderr, "stageload: running '%s' (%s); its output: %s\n", p.def.name.c_str(),
                 p.def.source.c_str(), (p.values.runDir / "command.log").c_str());
    const auto job = runGeneratorJob(p);
    for (const auto& n : job.notices) std::fprintf(stderr, "stageload: note: %s\n", n.c_str());
    if (!job.ok()) {
        std::fprintf(stderr, "stageload: error: %s\n", job.message.c_str());
        if (std::filesystem::exists(p.trace, ec)) {
            printStageTable(p.trace);
            std::printf("trace written to %s\n", p.trace.c_str());
        }
        return job.exitCode();
    }
    try {
        keepMesh(job, out);
    } catch (const Error& e) {
        std::fprintf(stderr, "stageload: error: %s\n", e.what());
        return 73;
    }
    std::printf("%s\n", job.message.c_str());
    if (!job.run.traceProblem.empty()) return 73;  // said among the notes above
    printStageTable(p.trace);
    std::printf("trace written to %s\n", p.trace.c_str());
    return 0;
}

}  // namespace stageload::cli
