#include "guard/bench/guard_bench.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include <sys/resource.h>
#include <unistd.h>

#include "guard/meter/meter.h"
#include "guard/runner/guard_runner.h"

namespace stageload {
namespace {

double cpuSeconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace

double meterCpuPercent(double interval, double seconds) {
    const std::string path = "/tmp/stageload-bench-" + std::to_string(::getpid()) + ".trace.jsonl";
    MeterParams p;
    p.tracePath = path;
    p.interval = interval;
    const double cpu0 = cpuSeconds();
    const auto t0 = Clock::now();
    {
        Meter meter(std::move(p));
        std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    }
    const double wall = since(t0);
    const double cpu = cpuSeconds() - cpu0;
    std::remove(path.c_str());
    return wall > 0 ? 100.0 * cpu / wall : 0.0;
}

ReactionTime guardReaction(double poll, bool ignoreTerm) {
    std::atomic<bool> breach{false};
    Clock::time_point breachAt{};
    Clock::time_point stopAt{};
    GuardParams params;
    params.waitFree = 0;
    params.poll = poll;
    GuardEnv env;
    env.memory = [&] {
        SystemMemory m;
        m.total = std::int64_t(16) << 30;
        m.available = m.total / 2;
        m.swapTotal = std::int64_t(64) << 30;
        m.swapFree = m.swapTotal - (breach ? std::int64_t(20) << 30 : 0);
        return m;
    };
    Guard guard(params, env);
    guard.onLog = [&](const GuardLogEntry& e) {
        if (e.what == "stop") stopAt = Clock::now();
    };
    std::thread trigger;
    guard.onStarted = [&](pid_t) {
        trigger = std::thread([&] {
            std::this_thread::sleep_for(std::chrono::duration<double>(poll * 1.37 + 0.1));
            breachAt = Clock::now();
            breach = true;
        });
    };
    const std::vector<std::string> cmd =
        ignoreTerm ? std::vector<std::string>{"sh", "-c",
                                              "(trap '' TERM; exec sleep 120) & trap '' TERM; wait"}
                   : std::vector<std::string>{"sleep", "120"};
    ReactionTime r;
    r.exitCode = guard.run(cmd);
    const auto goneAt = Clock::now();
    if (trigger.joinable()) trigger.join();
    r.detect = std::chrono::duration<double>(stopAt - breachAt).count();
    r.gone = std::chrono::duration<double>(goneAt - breachAt).count();
    return r;
}

}  // namespace stageload
