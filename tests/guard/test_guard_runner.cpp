// The guard end to end: injected readers and clock for admission, real process groups for
// stopping, exit codes and signals.
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <fstream>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

#include <QtTest>

#include "guard/base/error.h"
#include "guard/memory/readers.h"
#include "guard/policy/guard_levels.h"
#include "guard/process/signal_block.h"
#include "guard/runner/guard_runner.h"
#include "guard/runner/leftover_group.h"
#include "guard/trace/summary.h"
#include "guard/trace/trace_reader.h"
#include "tests/suite_program.h"

using namespace stageload;
using namespace std::chrono_literals;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_guard_runner {

constexpr std::int64_t GiB = std::int64_t(1) << 30;
constexpr std::int64_t MiB = std::int64_t(1) << 20;

SystemMemory memory(double availablePct, std::int64_t swapUsed = 0) {
    SystemMemory m;
    m.total = 100 * GiB;
    m.available = static_cast<std::int64_t>(availablePct * GiB);
    m.swapTotal = 64 * GiB;
    m.swapFree = 64 * GiB - swapUsed;
    return m;
}

/// A fake clock: sleeping advances it (and yields a millisecond of real time).
struct FakeTime {
    double t = 1000.0;
    GuardEnv env(std::function<SystemMemory(double)> mem,
                 std::function<std::vector<ProcessInfo>(double)> procs = {}) {
        GuardEnv e;
        e.now = [this] { return t; };
        e.sleep = [this](double s) {
            t += s;
            std::this_thread::sleep_for(1ms);
            return 0;
        };
        e.memory = [this, mem] { return mem(t - 1000.0); };
        if (procs) e.processes = [this, procs] { return procs(t - 1000.0); };
        return e;
    }
};

bool alive(pid_t pid) {
    return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM);
}

/// Alive and not a zombie (a zombie has exited; only its parent's reaping is missing).
bool running(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), {});
    const auto close = text.rfind(')');
    return close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z';
}

pid_t readPid(const QString& path, double timeout = 5.0) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
    while (std::chrono::steady_clock::now() < until) {
        std::ifstream in(path.toStdString());
        long pid = 0;
        if (in >> pid && pid > 0) return static_cast<pid_t>(pid);
        std::this_thread::sleep_for(10ms);
    }
    return -1;
}

/// A guard that starts at once, polls five times a second and stops a group within 2 s.
GuardParams promptGuard() {
    GuardParams p;
    p.waitFree = 0;
    p.poll = 0.2;
    p.stopGrace = 2;
    return p;
}

/// `sleep 60` started in the background by a shell that writes its pid to `pidfile` and waits.
std::vector<std::string> sleeperCommand(const QString& pidfile) {
    return {"sh", "-c", "sleep 60 & echo $! > '" + pidfile.toStdString() + "'; wait"};
}

std::vector<std::string> logWhats(const std::vector<GuardLogEntry>& log) {
    std::vector<std::string> out;
    for (const auto& e : log) out.push_back(e.what);
    return out;
}

class TestGuardRunner : public QObject {
    Q_OBJECT

private slots:
    // A group named by a trace is found only while members of that very group run: not from a
    // start line that names no group or a bad one, not once a later process has its id.
    void aLeftoverGroupIsThatGroupOrNone() {
        stageload::GroupCommand sleeper({"sleep", "30"});
        const auto leader = readProcess(sleeper.pgid());
        QVERIFY(leader && leader->startTicks >= 0);
        const nlohmann::json start = {{"type", "start"}, {kGroupKey, sleeper.pgid()}, {kGroupStartKey, leader->startTicks},
                                      {"command", {"sleep", "30"}}};
        const auto found = findLeftoverGroup(start);
        QVERIFY(found.has_value());
        QCOMPARE(found->members, std::vector<pid_t>{sleeper.pgid()});
        QVERIFY2(found->describe().find("(sleep 30): 1 process") != std::string::npos, found->describe().c_str());
        nlohmann::json later = start;
        later[kGroupStartKey] = leader->startTicks - 1;  // the id's leader is another process
        QVERIFY(!findLeftoverGroup(later));
        for (const char* bad : {R"({"type": "start"})", R"({"pgid": 1, "group_start_ticks": 0})",
                                R"({"pgid": "12", "group_start_ticks": 0})", R"({"pgid": 12, "group_start_ticks": -1})",
                                R"({"pgid": 99999999999, "group_start_ticks": 0})", R"([1, 2])"})
            QVERIFY2(!findLeftoverGroup(nlohmann::json::parse(bad)), bad);
        // From a file: its first line, whatever follows; no file, or not a trace, is none.
        QTemporaryDir dir;
        const std::string trace = dir.filePath("t.jsonl").toStdString();
        std::ofstream(trace) << start.dump() << "\nnot json\n";
        QVERIFY(findLeftoverGroup(trace).has_value());
        std::ofstream(trace) << "\x01\x02 not a trace\n";
        QVERIFY(!findLeftoverGroup(trace));
        QVERIFY(!findLeftoverGroup(dir.filePath("missing.jsonl").toStdString()));
        QVERIFY(stopLeftoverGroup(*found, 2.0));
        QVERIFY(!findLeftoverGroup(start));  // stopped: nothing left
    }

    // --- injected readers and clock -----------------------------------------------------

    void admissionWaitsThenStarts() {
        QTemporaryDir dir;
        const QString marker = dir.filePath("ran");
        FakeTime clock;
        GuardParams p;  // defaults: wait-free 40 %, poll 5 s
        Guard guard(p, clock.env([](double t) { return memory(t < 20 ? 30 : 60); }));
        std::vector<GuardLogEntry> log;
        guard.onLog = [&](const GuardLogEntry& e) { log.push_back(e); };
        double startedAt = -1;
        guard.onStarted = [&](pid_t) { startedAt = clock.t - 1000.0; };
        QCOMPARE(guard.run({"touch", marker.toStdString()}), 0);
        QVERIFY(QFile::exists(marker));
        QCOMPARE(startedAt, 20.0);
        QCOMPARE(logWhats(log).front(), std::string("wait"));
        const auto waits = std::count_if(log.begin(), log.end(),
                                         [](const GuardLogEntry& e) { return e.what == "wait"; });
        QCOMPARE(waits, 1L);  // the reason did not change in between: logged once
        QVERIFY(log.front().readings.find("available 30.00 GiB") != std::string::npos);
        QVERIFY(log.front().utc.size() == 24 && log.front().utc.back() == 'Z');
        const auto start = std::find_if(log.begin(), log.end(),
                                        [](const GuardLogEntry& e) { return e.what == "start"; });
        QVERIFY(start != log.end());
        QCOMPARE(start->t, 20.0);
    }

    void noRoomInTimeExits4WithoutRunning() {
        QTemporaryDir dir;
        const QString marker = dir.filePath("ran");
        FakeTime clock;
        GuardParams p;
        p.startTimeout = 60;
        Guard guard(p, clock.env([](double) { return memory(10); }));
        std::vector<GuardLogEntry> log;
        guard.onLog = [&](const GuardLogEntry& e) { log.push_back(e); };
        QCOMPARE(guard.run({"touch", marker.toStdString()}), kExitNoRoom);
        QVERIFY(!QFile::exists(marker));
        QCOMPARE(log.back().what, std::string("give up"));
        QCOMPARE(log.back().t, 60.0);
    }

    void quietForResetsWhenABusyProcessReappears() {
        FakeTime clock;
        GuardParams p;
        p.busy = {"render-farm-job"};
        p.quietFor = 30;
        p.poll = 5;
        ProcessInfo busy;
        busy.pid = 4242;
        busy.pgid = 4242;
        busy.state = 'S';
        busy.cmdline = "python3 render-farm-job.py --frames 1-100";
        // busy until 10 s, gone, back at 25..35 s, then gone for good
        const auto procs = [busy](double t) {
            return (t < 10 || (t >= 25 && t < 35)) ? std::vector<ProcessInfo>{busy}
                                                   : std::vector<ProcessInfo>{};
        };
        Guard guard(p, clock.env([](double) { return memory(90); }, procs));
        std::vector<GuardLogEntry> log;
        guard.onLog = [&](const GuardLogEntry& e) { log.push_back(e); };
        double startedAt = -1;
        guard.onStarted = [&](pid_t) { startedAt = clock.t - 1000.0; };
        QCOMPARE(guard.run({"true"}), 0);
        QCOMPARE(startedAt, 60.0);  // last seen at 30 s, quiet for 30 s
        // busy -> quiet -> busy -> quiet: each change logged once
        std::vector<std::string> reasons;
        for (const auto& e : log)
            if (e.what == "wait") reasons.push_back(e.message.substr(0, 5));
        QCOMPARE(reasons, (std::vector<std::string>{"busy:", "quiet", "busy:", "quiet"}));
    }

    // --- real processes -----------------------------------------------------------------

    void commandExitCodesComeThrough() {
        GuardParams p;
        p.waitFree = 0;
        p.poll = 0.2;
        std::vector<GuardLogEntry> log;
        Guard guard(p);
        guard.onLog = [&](const GuardLogEntry& e) { log.push_back(e); };
        QCOMPARE(guard.run({"sh", "-c", "exit 7"}), 7);
        QCOMPARE(guard.run({"sh", "-c", "kill -KILL $$"}), 128 + SIGKILL);
        QCOMPARE(guard.run({"true"}), 0);
        QCOMPARE(log.back().what, std::string("exit"));
    }

    // A command that sleeps (no CPU, no output) is stopped as stalled, with exit 5; one that
    // keeps a core busy for as long is not.
    void aHungCommandIsStoppedAsStalled() {
        GuardParams p;
        p.waitFree = 0;
        p.killFree = 0;
        p.poll = 0.2;
        p.stallKill = 1.5;
        std::vector<GuardLogEntry> log;
        Guard guard(p);
        guard.onLog = [&](const GuardLogEntry& e) { log.push_back(e); };
        const auto started = std::chrono::steady_clock::now();
        QCOMPARE(guard.run({"sleep", "30"}), kExitStalled);
        const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        QVERIFY2(took < 6.0, qPrintable(QString::number(took)));
        const auto stop = std::find_if(log.begin(), log.end(), [](const auto& e) { return e.what == "stop"; });
        QVERIFY(stop != log.end());
        QVERIFY2(stop->message.find("stalled") != std::string::npos, stop->message.c_str());
        QCOMPARE(guard.run({"sh", "-c", "end=$(($(date +%s) + 3)); while [ $(date +%s) -lt $end ]; do :; done"}), 0);
    }

    // Memory pressure held above --pressure-kill for its duration stops the run with exit 6;
    // without PSI the option says at start that it cannot work.
    void memoryPressureStopsTheRunWithItsOwnCode() {
        GuardParams p;
        p.waitFree = 0;
        p.killFree = 0;
        p.poll = 0.1;
        p.pressureKill = PressureLimit{60, 0.5};
        std::vector<GuardLogEntry> log;
        GuardEnv env;
        env.pressure = [] { return std::optional<MemoryPressure>(MemoryPressure{90, 80}); };
        Guard guard(p, env);
        guard.onLog = [&](const GuardLogEntry& e) { log.push_back(e); };
        QCOMPARE(guard.run({"sleep", "30"}), kExitMemoryPressure);
        const auto stop = std::find_if(log.begin(), log.end(), [](const auto& e) { return e.what == "stop"; });
        QVERIFY(stop != log.end());
        QVERIFY2(stop->message.find("--pressure-kill 60.0%") != std::string::npos, stop->message.c_str());

        GuardEnv none;
        none.pressure = [] { return std::optional<MemoryPressure>(); };
        Guard blind(p, none);
        log.clear();
        blind.onLog = [&](const GuardLogEntry& e) { log.push_back(e); };
        QCOMPARE(blind.run({"true"}), 0);
        QVERIFY(!log.empty());
        QCOMPARE(log.front().what, std::string("warn"));
        QVERIFY2(log.front().message.find("--pressure-kill cannot work here") != std::string::npos,
                 log.front().message.c_str());
    }

    void missingCommandGives127() {
        GuardParams p;
        p.waitFree = 0;
        Guard guard(p);
        std::vector<GuardLogEntry> log;
        guard.onLog = [&](const GuardLogEntry& e) { log.push_back(e); };
        QCOMPARE(guard.run({"/nonexistent/stageload-no-such-command", "x"}), kExitCannotStart);
        QVERIFY(log.back().message.find("stageload-no-such-command") != std::string::npos);
        QVERIFY(log.back().message.find("No such file") != std::string::npos);
    }

    void budgetBreachStopsEveryDescendantAndOnlyThem() {
        QTemporaryDir dir;
        const QString stubborn = dir.filePath("stubborn.pid");
        const QString outside = dir.filePath("outside.pid");
        // An unrelated process of ours, outside any guarded group.
        const pid_t bystander = ::fork();
        if (bystander == 0) {
            ::execlp("sleep", "sleep", "30", static_cast<char*>(nullptr));
            ::_exit(127);
        }
        GuardParams p;
        p.waitFree = 0;
        p.poll = 0.1;  // stopGrace stays at the default 5 s
        std::atomic<bool> breach{false};
        GuardEnv env;
        env.memory = [&] { return memory(80, breach ? 20 * GiB : 2 * GiB); };
        Guard guard(p, env);
        std::vector<GuardLogEntry> log;
        guard.onLog = [&](const GuardLogEntry& e) { log.push_back(e); };
        pid_t group = -1;
        guard.onStarted = [&](pid_t pgid) { group = pgid; };
        // The command's group holds a grandchild that ignores SIGTERM; it also starts a process
        // in a new session (outside the group): a descendant all the same, stopped with it.
        const std::string script = "(trap '' TERM; exec sleep 60) & echo $! > '" +
                                   stubborn.toStdString() +
                                   "'; "
                                   "setsid sleep 30 & echo $! > '" +
                                   outside.toStdString() +
                                   "'; "
                                   "trap '' TERM; wait";
        std::thread trigger([&] {
            if (readPid(stubborn) > 0 && readPid(outside) > 0) breach = true;
        });
        const auto t0 = std::chrono::steady_clock::now();
        const int code = guard.run({"sh", "-c", script});
        const double took =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        trigger.join();
        const pid_t grandchild = readPid(stubborn);
        const pid_t escaped = readPid(outside);

        QCOMPARE(code, kExitStoppedByGuard);
        QVERIFY(grandchild > 0 && escaped > 0);
        QVERIFY2(!alive(grandchild), "the SIGTERM-ignoring grandchild must be gone");
        QVERIFY2(!alive(group) && ::kill(-group, 0) == -1, "nothing of the group may remain");
        QVERIFY2(took >= 5.0 && took < 15.0, std::to_string(took).c_str());  // SIGKILL after 5 s
        QVERIFY2(!running(escaped), "a descendant that left the group (setsid) must be gone too");
        QVERIFY2(running(bystander), "an unrelated process must survive");
        const auto stop = std::find_if(log.begin(), log.end(),
                                       [](const GuardLogEntry& e) { return e.what == "stop"; });
        QVERIFY(stop != log.end());
        QVERIFY2(stop->message.find("--swap-budget") != std::string::npos, stop->message.c_str());
        QVERIFY2(stop->readings.find("swap used 20.00 GiB") != std::string::npos,
                 stop->readings.c_str());

        ::kill(escaped, SIGKILL);
        ::kill(bystander, SIGKILL);
        ::waitpid(bystander, nullptr, 0);
        ::waitpid(escaped, nullptr, WNOHANG);
    }

    void sigtermToTheGuardStopsTheCommandFirstAndExits143() {
        QTemporaryDir dir;
        const QString pidfile = dir.filePath("sleep.pid");
        const pid_t guardPid = ::fork();
        if (guardPid == 0) {
            Guard guard(promptGuard());
            guard.onLog = [](const GuardLogEntry&) {};
            ::_exit(guard.run(sleeperCommand(pidfile)));
        }
        const pid_t sleeper = readPid(pidfile);
        QVERIFY(sleeper > 0);
        QVERIFY(running(sleeper));
        ::kill(guardPid, SIGTERM);
        int status = 0;
        ::waitpid(guardPid, &status, 0);
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 128 + SIGTERM);
        std::this_thread::sleep_for(50ms);
        QVERIFY2(!running(sleeper), "no orphan may outlive the guard");
    }

    // The app handles SIGTERM on its main thread and cancels the run itself. The guard, on a
    // worker thread, must leave the signal to it: taken by the guard, the run would stop with
    // 143 while the app, which never saw the signal, went on (seen in CI as an app that got
    // SIGINT and exited 1). Here the host's thread blocks SIGTERM too and looks for it pending,
    // so a guard that takes it is caught every time, not by chance of delivery.
    void aHostThatHandlesTerminationGetsTheSignalNotTheGuard() {
        QTemporaryDir dir;
        const QString pidfile = dir.filePath("sleep.pid");
        const pid_t host = ::fork();
        if (host == 0) {
            SignalBlock::blockTermination();  // the guard's thread inherits it: both block it
            std::atomic<bool> cancel{false};
            std::atomic<int> code{-1};
            std::thread worker([&] {
                Guard guard(promptGuard());
                guard.onLog = [](const GuardLogEntry&) {};
                guard.hooks.hostHandlesTermination = true;
                guard.hooks.cancelled = [&] { return cancel.load(); };
                code = guard.run(sleeperCommand(pidfile));
            });
            sigset_t term;
            sigemptyset(&term);
            sigaddset(&term, SIGTERM);
            for (int i = 0; i < 1000 && code.load() < 0; ++i) {  // up to 10 s
                sigset_t pending;
                sigpending(&pending);
                if (sigismember(&pending, SIGTERM)) {
                    int sig = 0;
                    sigwait(&term, &sig);
                    cancel = true;  // the app's handler: cancel the run, then quit
                    break;
                }
                std::this_thread::sleep_for(10ms);
            }
            worker.join();
            ::_exit(cancel.load() ? code.load() : 100 + (code.load() & 0x7f));
        }
        const pid_t sleeper = readPid(pidfile);
        QVERIFY(sleeper > 0);
        ::kill(host, SIGTERM);
        int status = 0;
        ::waitpid(host, &status, 0);
        QVERIFY(WIFEXITED(status));
        // 130: the host got it and cancelled; 100+15 would be the guard's own stop on SIGTERM
        // (143), with the host never told.
        QCOMPARE(WEXITSTATUS(status), kExitCancelled);
        std::this_thread::sleep_for(50ms);
        QVERIFY2(!running(sleeper), "the cancelled run's group is stopped");
    }

    void memoryHogIsStoppedAndLeavesAReadableTrace() {
        QTemporaryDir dir;
        const std::string trace = dir.filePath("hog.trace.jsonl").toStdString();
        // A simulated 1 GiB machine: what the hog's group holds is what is no longer available.
        std::atomic<pid_t> group{-1};
        GuardEnv env;
        env.memory = [&] {
            SystemMemory m;
            m.total = GiB;
            const pid_t g = group.load();
            m.available = GiB - (g > 0 ? readGroupFootprint(g) : 0);
            return m;
        };
        GuardParams p;
        p.waitFree = 50;
        p.killFree = 70;  // trips once the group holds more than ~307 MiB
        p.poll = 0.1;
        p.stopGrace = 2;
        p.tracePath = trace;
        p.traceInterval = 0.05;
        Guard guard(p, env);
        std::vector<GuardLogEntry> log;
        guard.onLog = [&](const GuardLogEntry& e) { log.push_back(e); };
        guard.onStarted = [&](pid_t pgid) { group = pgid; };
        const int code = guard.run({STAGELOAD_TEST_HOG, "--step-mb", "16", "--steps", "125", "--every", "0.05"});
        QCOMPARE(code, kExitStoppedByGuard);

        const Trace t = readTrace(trace);
        QVERIFY(t.ended);
        QVERIFY(!t.truncated);
        QVERIFY(t.samples.size() >= 5);
        QVERIFY(guardLevelsOf(t.start) == std::optional(GuardLevels{50, 70}));  // for its chart
        const Summary s = summarize(t);
        QVERIFY(s.peakFootprint.has_value());
        QVERIFY2(*s.peakFootprint > 250 * MiB && *s.peakFootprint < 900 * MiB,
                 std::to_string(*s.peakFootprint / MiB).c_str());
        bool stopMark = false;
        for (const auto& e : t.events)
            stopMark = stopMark || e.note.find("guard: stop: available") == 0;
        QVERIFY2(stopMark, "the trace records why the guard stopped the command");
        QVERIFY(s.stoppedByGuard());
        QCOMPARE(s.stoppedAt, std::string("setup"));  // the command wrote no stages
        QVERIFY2(s.ranTo().rfind("setup (stopped by the guard: available", 0) == 0, s.ranTo().c_str());
        QCOMPARE(t.start["command"][0].get<std::string>(), std::string(STAGELOAD_TEST_HOG));
        QCOMPARE(t.samples.back().footprint, std::int64_t(0));  // after the stop: nothing left
    }
};

}  // namespace test_guard_runner

STAGELOAD_APPLESS_SUITE(test_guard_runner, test_guard_runner::TestGuardRunner)
#include "test_guard_runner.moc"
