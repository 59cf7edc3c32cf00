// `stageload bench guard`: the meter's CPU cost at 0.5 s, 50 ms and 20 ms intervals (target:
// under 1 % of one core at 20 ms) and the guard's reaction time from a breach to its command's
// process group being gone.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "guard/bench/guard_bench.h"
#include "ui/cli/commands.h"

namespace stageload::cli {
namespace {

struct BenchOptions {
    double seconds = 5.0;
    double poll = 0.5;
};

int runBench(const BenchOptions& o) {
    std::printf("meter CPU cost (%.0f s each, real readers, trace to a temp file)\n", o.seconds);
    bool ok = true;
    for (double interval : {0.5, 0.05, 0.02}) {
        const double pct = meterCpuPercent(interval, o.seconds);
        std::printf("  interval %6.0f ms: %6.3f %% of one core\n", interval * 1000.0, pct);
        if (interval == 0.02) ok = pct < 1.0;
    }
    std::printf("guard reaction, --poll %.3g s (breach -> stop decision -> group gone)\n", o.poll);
    for (bool ignoreTerm : {false, true}) {
        const auto r = guardReaction(o.poll, ignoreTerm);
        std::printf("  %-34s detect %.3f s, gone %.3f s (exit %d)\n",
                    ignoreTerm ? "group ignoring SIGTERM (SIGKILL):" : "command obeying SIGTERM:",
                    r.detect, r.gone, r.exitCode);
    }
    std::printf("%s\n", ok ? "meter target met (< 1 % at 20 ms)" : "meter target MISSED at 20 ms");
    return ok ? 0 : 1;
}

}  // namespace

void addGuardBenchCommand(CLI::App& bench, Selected& selected) {
    auto o = std::make_shared<BenchOptions>();
    auto* cmd = bench.add_subcommand("guard",
                                   "Measure the meter's CPU cost and the guard's reaction time");
    cmd->add_option("--seconds", o->seconds, "How long to run the meter at each interval")
        ->check(CLI::Range(0.5, 600.0));
    cmd->add_option("--poll", o->poll, "The guard's poll for the reaction test, seconds")
        ->check(CLI::Range(0.05, 10.0));
    cmd->callback([o, &selected] { selected = [o] { return runBench(*o); }; });
}

}  // namespace stageload::cli
