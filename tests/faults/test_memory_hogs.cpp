// Memory hogs, in the style of systemd's oomd test: a real program grows in steps of touched
// memory under each of the guard's machine-wide stops — --kill-free (available memory),
// --swap-budget (swap growth: a small swap file and a memory cgroup where the machine allows
// them) and --pressure-kill — and is stopped within two readings of the crossing (the pressure
// stop: of its duration's end), while a bystander outside the run's group is left running.
// The crossing is seen by a watcher that reads the machine every 10 ms beside the guard.
//
// The suite runs alone (RUN_SERIAL): it takes memory from the whole machine.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "confined_swap.h"
#include "guard/memory/pressure.h"
#include "guard/memory/system_memory.h"
#include "guard/runner/guard_runner.h"

using namespace stageload;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::int64_t MiB = std::int64_t(1) << 20;
constexpr std::int64_t GiB = std::int64_t(1) << 30;
constexpr double kPoll = 0.25;   ///< the guard's reading interval in these tests
constexpr double kSlack = 0.25;  ///< one reading of /proc and the decision, on a loaded machine

double secondsBetween(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

/// The hog's log: the total it holds (MiB) after its latest step, and when it reached `mb`.
struct HogLog {
    QString path;

    std::int64_t totalMb() const {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly)) return 0;
        const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
        return lines.last().split(' ').value(1).toLongLong();
    }
    std::optional<Clock::time_point> reached(std::int64_t mb) const {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly)) return std::nullopt;
        for (const QByteArray& line : f.readAll().split('\n')) {
            const QList<QByteArray> w = line.split(' ');
            if (w.size() == 3 && w[1].toLongLong() >= mb)
                return Clock::time_point(std::chrono::nanoseconds(w[2].toLongLong()));
        }
        return std::nullopt;
    }
};

/// Reads `over` every 10 ms on its own thread and keeps when it began to hold each time.
class CrossingWatch {
public:
    explicit CrossingWatch(std::function<bool()> over) : over_(std::move(over)), thread_([this] { loop(); }) {}
    ~CrossingWatch() {
        stop_ = true;
        thread_.join();
    }
    /// The crossing a stop at `t` answered: the latest one before `t`, or one up to kLag after
    /// it, when the guard's reading saw the value over before this thread's next one did (it
    /// reads every 10 ms, later still when a loaded machine leaves it waiting for a core).
    std::optional<Clock::time_point> crossingBefore(Clock::time_point t) const {
        std::lock_guard lock(mutex_);
        std::optional<Clock::time_point> out;
        for (const auto& c : crossings_)
            if (c <= t + kLag) out = c;
        return out;
    }

    static constexpr std::chrono::milliseconds kLag{100};

private:
    void loop() {
        bool was = false;
        while (!stop_) {
            const bool now = over_();
            if (now && !was) {
                std::lock_guard lock(mutex_);
                crossings_.push_back(Clock::now());
            }
            was = now;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    }

    std::function<bool()> over_;
    std::atomic<bool> stop_{false};
    mutable std::mutex mutex_;
    std::vector<Clock::time_point> crossings_;
    std::thread thread_;
};

/// One guarded hog: when the guard decided to stop it, what it said, how the run ended. A
/// watchdog kills the hog's group after `deadline` seconds, so a guard that never stops it fails
/// the test instead of hanging it.
struct HogRun {
    int code = -1;
    std::optional<Clock::time_point> stopAt;
    std::string stopLine;
    Clock::time_point ended;
    std::string log;

    HogRun(Guard& guard, const std::vector<std::string>& argv, double deadline) {
        std::atomic<pid_t> group{-1};
        std::mutex m;
        std::condition_variable cv;
        bool done = false;
        guard.onStarted = [&](pid_t pgid) { group = pgid; };
        guard.onLog = [&](const GuardLogEntry& e) {
            if (e.what == "stop" && !stopAt) {
                stopAt = Clock::now();
                stopLine = e.line();
            }
            log += e.line() + '\n';
        };
        std::thread watchdog([&] {
            std::unique_lock lock(m);
            if (!cv.wait_for(lock, std::chrono::duration<double>(deadline), [&] { return done; }) && group > 0)
                ::killpg(group, SIGKILL);
        });
        code = guard.run(argv);
        ended = Clock::now();
        {
            std::lock_guard lock(m);
            done = true;
        }
        cv.notify_one();
        watchdog.join();
    }
};

/// A process outside every run's group that must outlive each stop.
struct Bystander {
    QProcess p;
    Bystander() {
        p.start(QStringLiteral("sleep"), {QStringLiteral("300")});
        p.waitForStarted();
    }
    ~Bystander() {
        p.kill();
        p.waitForFinished();
    }
    bool running() const { return p.state() == QProcess::Running && ::kill(static_cast<pid_t>(p.processId()), 0) == 0; }
};

std::vector<std::string> hogCommand(const QString& log, int stepMb, int steps, double every, const QString& cgroup = {}) {
    std::vector<std::string> argv{STAGELOAD_TEST_HOG, "--step-mb", std::to_string(stepMb), "--steps", std::to_string(steps),
                                  "--every", std::to_string(every), "--log", log.toStdString()};
    if (!cgroup.isEmpty()) argv.insert(argv.end(), {"--cgroup", cgroup.toStdString()});
    return argv;
}

}  // namespace

class TestMemoryHogs : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

    /// Checks a stop `limit` seconds at most after the crossing, and says how long it took.
    void checkLatency(const char* what, const HogRun& run, std::optional<Clock::time_point> crossing, double limit) {
        QVERIFY2(run.stopAt, ("the guard never stopped the hog:\n" + run.log).c_str());
        QVERIFY2(crossing, ("the watcher saw no crossing before the stop (or just after it):\n" + run.log).c_str());
        // Below 0 when the guard saw the crossing first (CrossingWatch::crossingBefore).
        const double latency = std::max(0.0, secondsBetween(*crossing, *run.stopAt));
        qInfo("%s: stopped %.0f ms after the crossing (poll %.2f s; limit %.0f ms), group gone %.0f ms after the stop",
              what, 1000 * latency, kPoll, 1000 * limit, 1000 * secondsBetween(*run.stopAt, run.ended));
        QVERIFY2(latency <= limit, (std::to_string(latency) + " s\n" + run.log).c_str());
    }

private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    // --kill-free set 1 GiB under what is available now: the hog crosses it within a second and
    // is stopped at the second low reading in a row.
    void killFreeStopsAGrowingHog() {
        const SystemMemory m0 = readSystemMemory();
        if (m0.available < 4 * GiB)
            QFAIL(qPrintable(QStringLiteral("the test needs 4 GiB available; this machine has %1 MiB").arg(m0.available / MiB)));
        const double killFree = 100.0 * static_cast<double>(m0.available - GiB) / static_cast<double>(m0.total);
        GuardParams p = guardOff();
        p.killFree = killFree;
        p.poll = kPoll;
        p.stopGrace = 2;
        Guard guard(p);
        Bystander bystander;
        CrossingWatch watch([&] { return readSystemMemory().availablePercent() < killFree; });
        const HogLog log{dir_.filePath(QStringLiteral("kill-free.log"))};
        const HogRun run(guard, hogCommand(log.path, 32, 96, 0.025), 30);  // up to 3 GiB at 1.28 GiB/s

        QVERIFY2(run.code == kExitStoppedByGuard && run.stopAt, (std::to_string(run.code) + "\n" + run.log).c_str());
        QVERIFY2(run.stopLine.find("--kill-free") != std::string::npos, run.stopLine.c_str());
        checkLatency("--kill-free", run, watch.crossingBefore(*run.stopAt), 2 * kPoll + kSlack);
        QVERIFY2(log.totalMb() < 3072, "the hog reached its cap: it was stopped late");
        QVERIFY(bystander.running());
    }

    // --swap-budget 256M with the hog in a cgroup that keeps 256 MiB of it in RAM: what it holds
    // beyond that goes to a small swap file, and the budget stops it at the first reading over.
    // Where the machine allows no swap file or cgroup (a container without the rights, tmpfs),
    // the test says why and reads swap as the hog's growth beyond 256 MiB instead.
    void swapBudgetStopsAGrowingHog() {
        const std::int64_t budget = 256 * MiB;
        faults::ConfinedSwap swap(GiB, 256 * MiB);
        const HogLog log{dir_.filePath(QStringLiteral("swap.log"))};
        GuardEnv env;
        if (swap.active()) {
            qInfo("real swap: %s, the hog in cgroup %s (256 MiB of RAM)", qPrintable(swap.swapFile()), qPrintable(swap.cgroup()));
        } else {
            qInfo("no real swap on this machine (%s): swap is read as the hog's growth beyond 256 MiB", qPrintable(swap.why()));
            env.memory = [&] {
                SystemMemory m = readSystemMemory();
                m.swapTotal = 2 * GiB;
                m.swapFree = m.swapTotal - std::max<std::int64_t>(0, log.totalMb() * MiB - 256 * MiB);
                return m;
            };
        }
        const auto memory = [&] { return env.memory ? env.memory() : readSystemMemory(); };
        GuardParams p = guardOff();
        p.swapBudget = budget;
        p.poll = kPoll;
        p.stopGrace = 2;
        Guard guard(p, env);
        Bystander bystander;
        const std::int64_t swap0 = memory().swapUsed();
        CrossingWatch watch([&] { return memory().swapUsed() - swap0 > budget; });
        // Up to 960 MiB: what is beyond the cgroup's 256 MiB fits the 1 GiB swap file.
        const HogRun run(guard, hogCommand(log.path, 32, 30, 0.05, swap.active() ? swap.cgroup() : QString()), 60);

        QVERIFY2(run.code == kExitStoppedByGuard && run.stopAt, (std::to_string(run.code) + "\n" + run.log).c_str());
        QVERIFY2(run.stopLine.find("--swap-budget") != std::string::npos, run.stopLine.c_str());
        checkLatency(swap.active() ? "--swap-budget (real swap)" : "--swap-budget (swap read from the hog's growth)", run,
                     watch.crossingBefore(*run.stopAt), kPoll + kSlack);  // one reading over is enough
        QVERIFY(bystander.running());
    }

    // --pressure-kill 60/1s: the machine's memory pressure (read as 80 % once the hog holds 512
    // MiB: a quiet test machine cannot be made to thrash on cue) held for a second stops the hog
    // within two readings of that second's end.
    void pressureKillStopsAGrowingHog() {
        const HogLog log{dir_.filePath(QStringLiteral("pressure.log"))};
        GuardEnv env;
        env.pressure = [&] {
            MemoryPressure m;
            m.fullAvg10 = m.someAvg10 = log.totalMb() >= 512 ? 80.0 : 0.0;
            return std::optional<MemoryPressure>(m);
        };
        GuardParams p = guardOff();
        const double hold = 1.0;
        p.pressureKill = PressureLimit{60.0, hold};
        p.poll = kPoll;
        p.stopGrace = 2;
        Guard guard(p, env);
        Bystander bystander;
        const HogRun run(guard, hogCommand(log.path, 32, 30, 0.05), 30);

        QVERIFY2(run.code == kExitMemoryPressure && run.stopAt, (std::to_string(run.code) + "\n" + run.log).c_str());
        QVERIFY2(run.stopLine.find("--pressure-kill") != std::string::npos, run.stopLine.c_str());
        const auto crossing = log.reached(512);
        QVERIFY(crossing);
        checkLatency("--pressure-kill 60/1s", run, *crossing + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(hold)),
                     2 * kPoll + kSlack);
        QVERIFY(bystander.running());
    }
};

QTEST_GUILESS_MAIN(TestMemoryHogs)
#include "test_memory_hogs.moc"
