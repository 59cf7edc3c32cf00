// `stageload bench cascade | compare` and `stageload demo`: the stand-in cascade.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>

#include <CLI/CLI.hpp>

#include "engine/api/run_settings.h"
#include "engine/load/raw_read.h"
#include "engine/media/mesh_files.h"
#include "engine/pipelines/cascade/cascade_mesh.h"
#include "engine/pipelines/cascade/cascade_plan.h"
#include "engine/pipelines/cascade/cascade_report.h"
#include "engine/pipelines/cascade/cascade_run.h"
#include "guard/memory/process_memory.h"
#include "guard/meter/meter.h"
#include "ui/cli/commands.h"
#include "ui/cli/engine_commands.h"

namespace stageload::cli {
namespace {

struct CascadeOptions {
    double scale = 1.0;
    std::string load = "staged";
    std::int64_t seed = 7;
    std::string trace;
    std::string fingerprint;
    std::string cache;
    std::string stopAt;
    bool noPreserveRng = false;
    bool rawRead = false;
    std::string mesh;
};

std::filesystem::path defaultCache() {
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        return std::filesystem::path(xdg) / "stageload" / "cascade";
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::filesystem::path(home) / ".cache" / "stageload" / "cascade";
    return std::filesystem::temp_directory_path() / "stageload-cascade";
}

double gib(double bytes) { return bytes / static_cast<double>(1ll << 30); }

void printStages(const CascadeResult& r) {
    std::printf("%-11s %7s %9s %9s %9s %9s %6s %9s %7s %9s %9s %9s\n", "stage", "seconds",
                "peak GiB", "weights", "working", "% of need", "loads", "load GiB", "load s",
                "released", "returned", "enter ms");
    for (const auto& s : r.stages) {
        const double need = static_cast<double>(s.weightBytes + s.workingBytes);
        const double added = static_cast<double>(s.peakRss - r.baselineRss);
        // A stage whose peak stays under what the process held before any model (memory handed
        // back) or that needs nothing has no meaningful share: a dash, not a negative ratio.
        char share[16] = "-";
        if (need > 0 && added > 0) std::snprintf(share, sizeof share, "%.0f %%", 100.0 * added / need);
        std::printf("%-11s %7.2f %9.3f %9.3f %9.3f %9s %6d %9.3f %7.2f %9.3f %9.3f %9.1f\n",
                    s.name.c_str(), s.seconds, gib(s.peakRss), gib(s.weightBytes),
                    gib(s.workingBytes), share, s.loads, gib(s.loadBytes), s.loadSeconds,
                    gib(s.releasedBytes), gib(s.rssBeforeEnter - s.rssAfterEnter),
                    s.enterSeconds * 1000);
    }
    std::printf("(%% of need: how much the stage's peak rose above the process's own %.3f GiB "
                "before any model, as a share of weights + working; '-' when it stayed under it; "
                "released: memory the stage freed as it began; returned: how much the process's "
                "resident memory fell meanwhile; enter ms: the time that took)\n",
                gib(static_cast<double>(r.baselineRss)));
}

void printLoadSpeed(const CascadeResult& r, const CascadeOptions& o,
                    const std::vector<std::filesystem::path>& weightFiles) {
    double build = 0;
    for (const auto& e : r.events)
        if (e.kind == EventKind::Load || e.kind == EventKind::Reload) build += e.seconds;
    if (r.readSeconds <= 0) return;
    const double readRate = gib(static_cast<double>(r.readBytes)) / r.readSeconds;
    std::printf("loads: %.2f s in all, of which reading %.3f GiB of weights took %.2f s = "
                "%.2f GiB/s (the rest is random init)\n",
                build, gib(static_cast<double>(r.readBytes)), r.readSeconds, readRate);
    if (!o.rawRead) return;
    RawRead total;
    for (const auto& file : weightFiles) {
        const auto one = measureRawRead(file);
        total.bytes += one.bytes;
        total.seconds += one.seconds;
    }
    const double rawRate = gib(static_cast<double>(total.bytes)) / total.seconds;
    std::printf("raw read of the same files into fresh buffers: %.3f GiB in %.2f s = %.2f GiB/s; "
                "loads read at %.0f %% of that\n",
                gib(static_cast<double>(total.bytes)), total.seconds, rawRate,
                100.0 * readRate / rawRate);
}

int runCascadeCommand(const CascadeOptions& o) {
    if (!o.mesh.empty()) validateMeshOutput(o.mesh);  // before the weights are written
    CascadeParams p;
    p.cacheDir = o.cache.empty() ? defaultCache() : std::filesystem::path(o.cache);
    p.scaleGiB = o.scale;
    p.seed = o.seed;
    p.mode = parseChoice<LoadMode>(o.load);
    p.preserveRng = !o.noPreserveRng;
    p.stopAt = o.stopAt;

    std::printf("cascade: %.2f GiB of weights, %s, seed %lld%s; weights in %s\n", o.scale,
                o.load.c_str(), static_cast<long long>(o.seed),
                o.noPreserveRng ? ", RNG preservation OFF" : "", p.cacheDir.c_str());
    std::fflush(stdout);
    // Before the meter: writing missing weight files is not part of the run.
    const auto weightFiles = prepareCascadeWeights(p.cacheDir, o.scale);
    // The raw read comes after the run and finds the files cached; so must the loads. The
    // baseline is the process before that pre-read, whatever it leaves behind.
    p.baselineRss = readProcessMemory().rss;
    if (o.rawRead)
        for (const auto& file : weightFiles) readThrough(file);

    std::optional<Meter> meter;
    if (!o.trace.empty()) {
        MeterParams mp;
        mp.tracePath = o.trace;
        mp.interval = 0.05;
        mp.meta = {{"pipeline", "cascade"}, {"load", o.load},   {"scale_gib", o.scale},
                   {"seed", o.seed},        {"preserve_rng", !o.noPreserveRng}};
        meter.emplace(std::move(mp));
        p.events = meter->eventSink();
    }
    p.onStage = [](const std::string& stage, bool begins) {
        if (begins) std::fprintf(stderr, "  %s...\n", stage.c_str());
    };
    const auto result = runCascade(p);
    if (meter) meter->stop();

    std::printf("\n");
    printStages(result);
    if (!result.stoppedAt.empty()) std::printf("stopped where stage '%s' begins\n", result.stoppedAt.c_str());
    printLoadSpeed(result, o, weightFiles);
    std::printf("total %.2f s\n", result.seconds);
    if (!o.fingerprint.empty()) {
        writeFingerprints(o.fingerprint, result,
                          {{"load", o.load}, {"seed", std::to_string(o.seed)},
                           {"scale_gib", std::to_string(o.scale)}});
        std::printf("fingerprints written to %s\n", o.fingerprint.c_str());
    }
    if (!o.mesh.empty())
        for (const auto& f : writeMeshFile(cascadeMesh(result), o.mesh))
            std::printf("wrote %s\n", f.c_str());
    if (!o.trace.empty()) std::printf("trace written to %s\n", o.trace.c_str());
    return 0;
}

int runCompare(const std::string& a, const std::string& b) {
    const auto rows = compareFingerprints(a, b);
    std::printf("%-11s %-10s %12s %12s\n", "stage", "latents", "A peak GiB", "B peak GiB");
    int identical = 0, compared = 0;
    for (const auto& r : rows) {
        auto peak = [](const std::optional<StageFingerprint>& f) {
            char buf[32];
            if (f) std::snprintf(buf, sizeof buf, "%.3f", gib(static_cast<double>(f->peakRss)));
            else std::snprintf(buf, sizeof buf, "-");
            return std::string(buf);
        };
        const char* verdict = !(r.a && r.b) ? "-" : r.identical() ? "identical" : "DIFFERENT";
        compared += r.a && r.b;
        identical += r.identical();
        std::printf("%-11s %-10s %12s %12s\n", r.stage.c_str(), verdict, peak(r.a).c_str(),
                    peak(r.b).c_str());
    }
    std::printf("%d of %d stages compared are bit-identical\n", identical, compared);
    return identical == compared && compared > 0 ? 0 : 1;
}

void addCascadeOptions(CLI::App* cmd, CascadeOptions& o) {
    cmd->add_option("--scale", o.scale, "Total GiB of weights of all models")
        ->check(CLI::Range(0.001, 1024.0));
    cmd->add_option("--seed", o.seed, "Seed of the global generator, drawn from at every step");
    cmd->add_option("--cache", o.cache,
                    "Folder for the generated weight files (default ~/.cache/stageload/cascade)");
}

}  // namespace

CLI::App* addBenchCommand(CLI::App& app, Selected& selected) {
    auto* bench = addBenchGroup(app);

    auto o = std::make_shared<CascadeOptions>();
    auto* cascade = bench->add_subcommand("cascade", engineCommandDescription("bench", "cascade"));
    addCascadeOptions(cascade, *o);
    cascade->add_option("--load", o->load, std::string(runField(RunField::Load).help))
        ->check(CLI::IsMember(choiceNames<LoadMode>()));
    cascade->add_option("--trace", o->trace, "Write the memory trace (JSONL) here");
    cascade->add_option("--mesh", o->mesh,
                        "Also write a mesh made from the last latent (.glb or .obj), as a "
                        "generator would");
    cascade->add_option("--fingerprint", o->fingerprint,
                        "Write one fingerprint file per stage into this folder");
    cascade->add_option("--stop-at", o->stopAt, "Stop where this stage would begin")
        ->check(CLI::IsMember([] {
            std::vector<std::string> names;
            for (const auto& s : cascadePlan()) names.push_back(s.name);
            return names;
        }()));
    cascade->add_flag("--no-preserve-rng", o->noPreserveRng,
                      "Do not save/restore the generators around loads (the control run)");
    cascade->add_flag("--raw-read", o->rawRead,
                      "Also time a raw read of the same weight files for comparison (the files "
                      "are read once before the run, so both find them in the page cache)");
    cascade->callback([o, &selected] { selected = [o] { return runCascadeCommand(*o); }; });

    auto files = std::make_shared<std::pair<std::string, std::string>>();
    auto* compare = bench->add_subcommand("compare", engineCommandDescription("bench", "compare"));
    compare->add_option("A", files->first, "First run's fingerprint folder")->required();
    compare->add_option("B", files->second, "Second run's fingerprint folder")->required();
    compare->callback([files, &selected] {
        selected = [files] { return runCompare(files->first, files->second); };
    });
    return bench;
}

void addDemoCommand(CLI::App& app, Selected& selected) {
    auto o = std::make_shared<CascadeOptions>();
    auto* demo = app.add_subcommand("demo", engineCommandDescription("", "demo"));
    addCascadeOptions(demo, *o);
    demo->callback([o, &selected] {
        selected = [o] {
            const auto cache = o->cache.empty() ? defaultCache() : std::filesystem::path(o->cache);
            const auto runs = cache / "demo-runs";
            for (const char* mode : {"staged", "eager"}) {
                CascadeOptions run = *o;
                run.load = mode;
                run.cache = cache.string();
                run.fingerprint = (runs / mode).string();
                std::printf("=== %s ===\n", mode);
                runCascadeCommand(run);
                std::printf("\n");
            }
            std::printf("=== staged vs eager ===\n");
            return runCompare((runs / "staged").string(), (runs / "eager").string());
        };
    });
}

}  // namespace stageload::cli
