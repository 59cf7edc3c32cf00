// `stageload bench start`: how long `stageload` takes to start and end, the median of N runs
// of `--help` and of `summary` on a small trace, next to the engine's `--help` (what loading
// LibTorch costs). Goal: the Torch-free commands under 50 ms.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "guard/base/error.h"
#include "guard/trace/trace_writer.h"
#include "ui/cli/child_program.h"
#include "ui/cli/commands.h"
#include "ui/cli/engine_commands.h"
#include "ui/cli/run_generator.h"

namespace stageload::cli {
namespace {

constexpr double kGoalMs = 50.0;

struct StartBenchOptions {
    int runs = 10;
};

// Wall time of one run of `argv`, its output to /dev/null; throws Error when it cannot start or
// does not exit 0.
double secondsToRun(const std::vector<std::string>& argv) {
    const auto start = std::chrono::steady_clock::now();
    const int code = runToEnd(argv, "/dev/null");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (code < 0) throw Error("cannot start " + argv[0] + ": " + std::strerror(errno));
    if (code != 0) throw Error(argv[0] + " " + argv[1] + " exited " + std::to_string(code));
    return seconds;
}

struct Timing {
    double median = 0, min = 0, max = 0;  // milliseconds
};

Timing timeRuns(const std::vector<std::string>& argv, int runs) {
    std::vector<double> ms;
    secondsToRun(argv);  // once to warm the page cache, as any second start finds it
    for (int i = 0; i < runs; ++i) ms.push_back(1000.0 * secondsToRun(argv));
    std::sort(ms.begin(), ms.end());
    const std::size_t n = ms.size();
    const double median = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
    return {median, ms.front(), ms.back()};
}

// A small trace (100 samples, 3 stages) in a folder of its own, removed with it.
std::filesystem::path writeSmallTrace(const std::filesystem::path& dir) {
    const auto path = dir / "small.trace.jsonl";
    TraceWriter w(path.string());
    w.start(0.1);
    const char* stages[] = {"setup", "shape", "texture"};
    for (int i = 0; i < 100; ++i) {
        if (i % 34 == 0) {
            Event e;
            e.kind = EventKind::Stage;
            e.name = stages[i / 34];
            w.event(e, i * 0.1);
        }
        MemorySample s;
        s.t = i * 0.1;
        s.footprint = (std::int64_t(200) + i) << 20;
        w.sample(s);
    }
    w.end();
    return path;
}

int runStartBench(const StartBenchOptions& o) {
    const std::string self = thisProgram().string();
    const std::string engine = engineProgram().string();
    std::string dir = (std::filesystem::temp_directory_path() / "stageload-start-XXXXXX").string();
    if (!::mkdtemp(dir.data())) throw FileError("cannot make a temporary folder in " + std::filesystem::temp_directory_path().string());
    const std::shared_ptr<void> cleanup(nullptr, [&](void*) {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    });
    const std::string trace = writeSmallTrace(dir).string();

    std::printf("start to exit, median of %d runs (min-max), after one to warm the page cache\n", o.runs);
    bool met = true;
    const auto row = [&](const char* what, const std::vector<std::string>& argv, bool goal) {
        const Timing t = timeRuns(argv, o.runs);
        std::printf("  %-32s %8.1f ms  (%.1f-%.1f)%s\n", what, t.median, t.min, t.max,
                    goal ? (t.median < kGoalMs ? "" : "  over the goal") : "  (loads LibTorch)");
        if (goal) met = met && t.median < kGoalMs;
    };
    row("stageload --help", {self, "--help"}, true);
    row("stageload summary (100 samples)", {self, "summary", trace}, true);
    row("stageload-engine --help", {engine, "--help"}, false);
    std::printf("%s\n", met ? "goal met: Torch-free commands start and end in under 50 ms"
                            : "goal MISSED: a Torch-free command took 50 ms or more");
    return met ? 0 : 1;
}

}  // namespace

void addStartBenchCommand(CLI::App& bench, Selected& selected) {
    auto o = std::make_shared<StartBenchOptions>();
    auto* cmd = bench.add_subcommand("start", "How long stageload takes to start: Torch-free commands and the engine");
    cmd->add_option("--runs", o->runs, "Runs of each command")->check(CLI::Range(1, 1000))->capture_default_str();
    cmd->callback([o, &selected] { selected = [o] { return runStartBench(*o); }; });
}

}  // namespace stageload::cli
