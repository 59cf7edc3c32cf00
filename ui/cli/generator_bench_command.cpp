// `stageload bench generator`: what watching a heavy generator costs and how quickly it reacts,
// with the stand-in cascade run as a generator (a real child process writing its own trace):
//   1. the chart's lag behind the command's own trace: how much later than the fastest line
//      each line of its trace reached the run (target: under 2 sample intervals);
//   2. the meter's CPU cost over a group of 9 processes: the meter alone (a sample's CPU time,
//      as a share of the interval), then the whole generator run that carries it;
//   3. the time from a breach to the whole group gone, for a group that obeys SIGTERM (the
//      cascade) and one that ignores it (SIGKILL after the grace period).
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>

#include "guard/base/data_dirs.h"
#include "guard/generator/generator_run.h"
#include "guard/memory/readers.h"
#include "guard/memory/system_memory.h"
#include "guard/process/group_command.h"
#include "ui/cli/commands.h"
#include "ui/cli/run_generator.h"

namespace stageload::cli {
namespace {

struct GeneratorBenchOptions {
    double scale = 3.0;
    double seconds = 5.0;
    std::string cascade = (shippedGeneratorDir() / "stageload-cascade.json").string();
    std::string out;
};

double cpuSeconds() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double threadCpuSeconds() {
    timespec t{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

// The group meter by itself (group_meter.h: the members' memory, the machine's, the extra keys):
// the CPU one sample takes over a group of 9 processes, at the pace of `every` for `seconds`.
double meterSampleSeconds(double every, double seconds) {
    GroupCommand group({"sh", "-c", "for i in $(seq 8); do sleep 600 & done; wait"});
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the sleepers are up
    const MemoryReaders readers = groupReaders(group.pgid());
    const int samples = std::max(1, static_cast<int>(seconds / every));
    double cpu = 0;
    for (int i = 0; i < samples; ++i) {
        const double before = threadCpuSeconds();
        readers.read(i * every);
        cpu += threadCpuSeconds() - before;
        std::this_thread::sleep_for(std::chrono::duration<double>(every));
    }
    group.stop(1.0, [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); });
    return cpu / samples;
}

double percentile(std::vector<double> v, double q) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

GeneratorRunParams baseParams(const GeneratorDef& def, const std::filesystem::path& dir) {
    GeneratorRunParams p;
    p.def = def;
    p.values.runDir = dir;
    p.values.input = dir / "unused.png";
    p.values.output = dir / ("mesh." + def.format);
    p.values.trace = dir / "command.trace.jsonl";
    p.values.stageload = thisProgram();
    p.trace = dir / "trace.jsonl";
    p.guard = guardOff();
    p.guard.poll = 0.5;
    return p;
}

// A group of `n` sleeping processes under a shell; `ignoreTerm`: every one ignores SIGTERM.
GeneratorDef sleepers(int n, bool ignoreTerm) {
    GeneratorDef d;
    d.name = std::to_string(n) + " sleepers";
    d.command = {"sh", "-c",
                 std::string(ignoreTerm ? "trap '' TERM; " : "") + "for i in $(seq " +
                     std::to_string(n) + "); do sleep 600 & done; wait"};
    return d;
}

int runGeneratorBench(const GeneratorBenchOptions& o) {
    const auto dir = o.out.empty() ? std::filesystem::temp_directory_path() / "stageload-bench-generator"
                                   : std::filesystem::path(o.out);
    std::filesystem::create_directories(dir);
    GeneratorDef cascade = readGeneratorDef(o.cascade);
    const double interval = 0.1;

    // 1. Lag behind its own trace, a whole cascade run.
    auto p = baseParams(cascade, dir / "lag");
    p.values.params = {{"scale", std::to_string(o.scale)}, {"load", "staged"}};
    p.sampleInterval = interval;
    std::printf("1. the cascade at %.2f GiB as a generator (its trace every 50 ms, ours every %.0f ms)\n",
                o.scale, interval * 1000);
    std::fflush(stdout);
    auto r = runGenerator(p);
    if (r.exitCode != 0) {
        std::fprintf(stderr, "stageload: error: the cascade exited %d (log %s)\n", r.exitCode, r.log.c_str());
        return 1;
    }
    const double p50 = percentile(r.traceLags, 0.5), p99 = percentile(r.traceLags, 0.99),
                 max = percentile(r.traceLags, 1.0);
    std::printf("   %zu lines of its trace followed in %.1f s; lag p50 %.1f ms, p99 %.1f ms, max %.1f ms "
                "= %.2f sample intervals at most (target < 2)\n",
                r.traceLags.size(), r.seconds, p50 * 1000, p99 * 1000, max * 1000, max / interval);
    const bool lagOk = max < 2 * interval;

    // 2. The meter's CPU cost over a group of several processes (this process's CPU time: the
    //    meter thread summing the group over /proc, the ticks reading its output).
    std::printf("2. meter CPU cost over a group of 9 processes (%.0f s each; targets: <= 0.3 %% at "
                "100 ms, <= 1 %% at 20 ms)\n",
                o.seconds);
    bool costOk = true;
    for (double every : {0.1, 0.02}) {
        const double sample = meterSampleSeconds(every, std::min(o.seconds, 5.0));
        const double percent = 100.0 * sample / every;
        const bool met = percent <= (every >= 0.1 ? 0.3 : 1.0);
        costOk = costOk && met;
        std::printf("   the meter alone, every %3.0f ms: %.1f us a sample = %.2f %% of one core (target %s)\n",
                    every * 1000, sample * 1e6, percent, met ? "met" : "MISSED");
    }
    std::printf("   the whole generator run (meter, following its output and trace at 20 Hz, the guard):\n");
    for (double every : {0.5, 0.1, 0.05, 0.02}) {
        auto q = baseParams(sleepers(8, false), dir / "cpu");
        q.sampleInterval = every;
        std::atomic<bool> cancel{false};
        q.cancel = &cancel;
        std::thread stop([&] {
            std::this_thread::sleep_for(std::chrono::duration<double>(o.seconds));
            cancel.store(true);
        });
        const double cpu0 = cpuSeconds();
        const auto t0 = std::chrono::steady_clock::now();
        runGenerator(q);
        stop.join();
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("   interval %4.0f ms: %.2f %% of one core\n", every * 1000,
                    100.0 * (cpuSeconds() - cpu0) / wall);
    }

    // 3. Breach to group gone. The cascade's loads breach a kill-free set just under what is
    //    available now; the sleepers breach a kill-free of 100 % at the first reading.
    std::printf("3. breach -> whole group gone (--poll 0.5 s, SIGKILL 5 s after SIGTERM)\n");
    auto b = baseParams(cascade, dir / "breach");
    b.values.params = {{"scale", std::to_string(o.scale)}, {"load", "eager"}};
    const auto m = readSystemMemory();  // 1 GiB below what is available now
    b.guard.killFree = std::max(0.0, m.availablePercent() - 100.0 * (1024.0 * 1024 * 1024) /
                                                               static_cast<double>(std::max<std::int64_t>(m.total, 1)));
    r = runGenerator(b);
    if (r.stopSeconds < 0)  // the run ended before its loads crossed the level: nothing to time
        std::printf("   the cascade (obeys SIGTERM):   exit %d, no breach (available memory never fell "
                    "under the stop level; try a larger --scale)\n",
                    r.exitCode);
    else
        std::printf("   the cascade (obeys SIGTERM):   exit %d, gone %.3f s after the stop\n", r.exitCode,
                    r.stopSeconds);
    auto s = baseParams(sleepers(8, true), dir / "breach-term");
    s.guard.killFree = 100;
    r = runGenerator(s);
    std::printf("   9 processes ignoring SIGTERM: exit %d, gone %.3f s after the stop\n", r.exitCode,
                r.stopSeconds);
    std::printf("%s\n", lagOk ? "lag target met (< 2 sample intervals)" : "lag target MISSED");
    std::printf("%s\n", costOk ? "meter cost targets met" : "meter cost target MISSED");
    return lagOk && costOk ? 0 : 1;
}

}  // namespace

void addGeneratorBenchCommand(CLI::App& bench, Selected& selected) {
    auto o = std::make_shared<GeneratorBenchOptions>();
    auto* cmd = bench.add_subcommand(
        "generator", "The stand-in cascade as a generator: chart lag, meter cost, breach to group gone");
    cmd->add_option("--scale", o->scale, "GiB of weights of the cascade (default 3)")
        ->check(CLI::Range(0.05, 512.0));
    cmd->add_option("--seconds", o->seconds, "How long to meter the sleeping group at each interval")
        ->check(CLI::Range(0.5, 600.0));
    cmd->add_option("--cascade", o->cascade, "The cascade's generator file");
    cmd->add_option("--out", o->out, "Folder for the runs (default a temp folder)");
    cmd->callback([o, &selected] { selected = [o] { return runGeneratorBench(*o); }; });
}

}  // namespace stageload::cli
