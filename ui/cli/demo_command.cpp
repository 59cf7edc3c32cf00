// `stageload demo`: runs the stand-in cascade staged and then eager, and prints per stage the
// peak memory of both and whether their latents are bit-identical.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include <CLI/CLI.hpp>

#include "engine/pipelines/standin/standin_pipeline.h"
#include "ui/cli/commands.h"

namespace stageload::cli {
namespace {

struct DemoOptions {
    double mib = 512;
    std::int64_t seed = 7;
    std::string cache;
    bool noPreserveRng = false;
};

std::filesystem::path defaultCache() {
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        return std::filesystem::path(xdg) / "stageload" / "standin";
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::filesystem::path(home) / ".cache" / "stageload" / "standin";
    return std::filesystem::temp_directory_path() / "stageload-standin";
}

double mib(std::int64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

int runDemo(const DemoOptions& o) {
    StandinParams p;
    p.cacheDir = o.cache.empty() ? defaultCache() : std::filesystem::path(o.cache);
    p.totalMiB = o.mib;
    p.seed = o.seed;
    p.preserveRng = !o.noPreserveRng;

    std::printf("Stand-in cascade: %.0f MiB of weights in 7 models, seed %lld, cache %s\n",
                o.mib, static_cast<long long>(o.seed), p.cacheDir.c_str());
    std::printf("running staged...\n");
    std::fflush(stdout);
    const auto staged = runStandin(p);
    p.mode = LoadMode::Eager;
    p.preserveRng = true;
    std::printf("running eager...\n\n");
    std::fflush(stdout);
    const auto eager = runStandin(p);

    int loads = 0, releases = 0;
    for (const auto& e : staged.events) {
        loads += e.kind == EventKind::Load || e.kind == EventKind::Reload;
        releases += e.kind == EventKind::Release;
    }

    std::printf("%-11s %8s %14s %14s %14s %14s  %s\n", "stage", "seconds", "staged peak",
                "eager peak", "staged weights", "eager weights", "latents");
    bool allSame = true;
    for (std::size_t i = 0; i < staged.stages.size(); ++i) {
        const auto& s = staged.stages[i];
        const auto& e = eager.stages[i];
        const bool same = s.fingerprint == e.fingerprint;
        allSame = allSame && same;
        std::printf("%-11s %8.2f %10.1f MiB %10.1f MiB %10.1f MiB %10.1f MiB  %s\n", s.name.c_str(),
                    s.seconds, mib(s.peakRss), mib(e.peakRss), mib(s.weightBytes),
                    mib(e.weightBytes), same ? "identical" : "DIFFERENT");
    }
    std::printf("\nstaged run: %d loads, %d releases; latents %s at every stage\n", loads,
                releases, allSame ? "bit-identical to eager" : "differ from eager");
    return allSame ? 0 : 1;
}

}  // namespace

void addDemoCommand(CLI::App& app, Selected& selected) {
    auto opts = std::make_shared<DemoOptions>();
    auto* cmd = app.add_subcommand(
        "demo", "Run the stand-in cascade staged and eager; compare peak memory and latents");
    cmd->add_option("--mib", opts->mib, "Total weights of the 7 stand-in models, MiB")
        ->check(CLI::Range(1.0, 65536.0));
    cmd->add_option("--seed", opts->seed, "Seed drawn from at every stage");
    cmd->add_option("--cache", opts->cache,
                    "Folder for the generated weight files (default: ~/.cache/stageload/standin)");
    cmd->add_flag("--no-preserve-rng", opts->noPreserveRng,
                  "Staged run without RNG preservation (the control: latents then differ)");
    cmd->callback([opts, &selected] { selected = [opts] { return runDemo(*opts); }; });
}

}  // namespace stageload::cli
