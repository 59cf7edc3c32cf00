// System memory, the process table and group footprints: parsers on fixture text and real /proc.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <ctime>
#include <thread>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QElapsedTimer>
#include <QFile>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QtTest>

#include "guard/base/error.h"
#include "guard/memory/gpu_memory.h"
#include "guard/memory/group_meter.h"
#include "guard/memory/pressure.h"
#include "guard/memory/process_memory.h"
#include "guard/memory/readers.h"
#include "guard/memory/system_memory.h"
#include "guard/process/process_list.h"
#include "tests/suite_program.h"

using namespace stageload;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_memory_readers {

namespace {

std::string fileText(const char* path) {
    QFile f(QString::fromLatin1(path));
    return f.open(QIODevice::ReadOnly) ? f.readAll().toStdString() : std::string();
}

}  // namespace

namespace {

const char* kMeminfo =
    "MemTotal:       24576000 kB\n"
    "MemFree:         1000000 kB\n"
    "MemAvailable:    6144000 kB\n"
    "Buffers:           12345 kB\n"
    "SwapCached:            0 kB\n"
    "SwapTotal:       8388608 kB\n"
    "SwapFree:        6291456 kB\n"
    "HugePages_Total:       0\n";

/// Forks a child that makes its own process group, touches `mib` MiB and sleeps until killed.
/// Returns once the child has touched all of it (on a busy machine that can take a while).
pid_t spawnGroupLeaderHolding(int mib) {
    int ready[2];
    if (::pipe(ready) != 0) return -1;
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::setpgid(0, 0);
        ::close(ready[0]);
        const std::size_t n = static_cast<std::size_t>(mib) << 20;
        volatile char* block = static_cast<volatile char*>(std::malloc(n));
        for (std::size_t i = 0; i < n; i += 4096) block[i] = 1;  // volatile: not optimised away
        const char done = 1;
        (void)!::write(ready[1], &done, 1);
        ::pause();
        ::_exit(0);
    }
    ::setpgid(pid, pid);
    ::close(ready[1]);
    char done = 0;
    (void)!::read(ready[0], &done, 1);  // 0 bytes if the child died: the test then fails
    ::close(ready[0]);
    return pid;
}

}  // namespace

class TestMemoryReaders : public QObject {
    Q_OBJECT

private slots:
    void parsesMeminfo() {
        const SystemMemory m = parseMeminfo(kMeminfo);
        QCOMPARE(m.total, std::int64_t(24576000) * 1024);
        QCOMPARE(m.available, std::int64_t(6144000) * 1024);
        QCOMPARE(m.swapUsed(), std::int64_t(8388608 - 6291456) * 1024);
        QCOMPARE(m.availablePercent(), 25.0);
        QCOMPARE(parseMeminfo("").availablePercent(), 0.0);
    }

    void readsRealMeminfo() {
        const SystemMemory m = readSystemMemory();
        QVERIFY(m.total > (std::int64_t(256) << 20));
        QVERIFY(m.available > 0 && m.available <= m.total);
        QVERIFY(m.swapUsed() >= 0);
    }

    void parsesStatLinesWithAwkwardNames() {
        const auto p = parseProcStat("4242 (my (weird) prog) S 17 4242 4242 0 -1 4194560 ...");
        QVERIFY(p.has_value());
        QCOMPARE(p->pid, pid_t(4242));
        QCOMPARE(p->comm, std::string("my (weird) prog"));
        QCOMPARE(p->state, 'S');
        QCOMPARE(p->ppid, pid_t(17));
        QCOMPARE(p->pgid, pid_t(4242));
        QCOMPARE(p->startTicks, -1LL);  // the line stops before field 22
        const auto full = parseProcStat(
            "7 (a) S 1 7 7 0 -1 4194560 10 0 0 0 3 1 0 0 20 0 1 0 987654 1000 20");
        QVERIFY(full.has_value());
        QCOMPARE(full->startTicks, 987654LL);
        QCOMPARE(full->cpuTicks, 4LL);  // utime 3 + stime 1 + cutime 0 + cstime 0
        QCOMPARE(p->cpuTicks, -1LL);
        QVERIFY(!parseProcStat("garbage").has_value());
        QCOMPARE(joinCmdline(std::string("sh\0-c\0sleep 1\0", 15)), std::string("sh -c sleep 1"));
    }

    void parsesMemoryPressure() {
        const auto p = parseMemoryPressure(
            "some avg10=12.50 avg60=3.00 avg300=1.00 total=123456\n"
            "full avg10=7.25 avg60=1.00 avg300=0.50 total=65432\n");
        QVERIFY(p.has_value());
        QCOMPARE(p->someAvg10, 12.5);
        QCOMPARE(p->fullAvg10, 7.25);
        QVERIFY(!parseMemoryPressure("some avg10=1.00 avg60=0 avg300=0 total=0\n"));  // no full line
        QVERIFY(!parseMemoryPressure("full avg10=x avg60=0\n"));
        QVERIFY(!parseMemoryPressure("full avg10=250.0 avg60=0\n"));
        QVERIFY(!parseMemoryPressure(""));
        // The real file where the kernel has one; where it has none, none is read.
        const bool psi = QFile::exists(kMemoryPressureFile);
        QCOMPARE(readMemoryPressure().has_value(), psi && parseMemoryPressure(fileText(kMemoryPressureFile)).has_value());
        const auto readers = processReaders();
        const bool keyed = std::any_of(readers.extra.begin(), readers.extra.end(),
                                       [](const auto& e) { return e.first == kMemoryPressureKey; });
        QCOMPARE(keyed, readMemoryPressure().has_value());
    }

    // A child that uses 0.3 s of CPU adds about that much to its group. It spins on its own CPU
    // clock, not on the wall clock, so a busy machine (CI runs two suites at once) slows it down
    // without changing what it used; it says when it is done through a pipe.
    void groupCpuCountsWhatTheGroupUsed() {
        int done[2];
        QVERIFY(::pipe(done) == 0);
        const pid_t child = ::fork();
        if (child == 0) {
            ::setpgid(0, 0);
            ::close(done[0]);
            timespec used{};
            volatile unsigned long n = 0;
            do {
                for (int i = 0; i < 100000; ++i) n = n + 1;
                ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &used);
            } while (used.tv_sec * 1000 + used.tv_nsec / 1000000 < 300);
            const char byte = 1;
            [[maybe_unused]] const auto w = ::write(done[1], &byte, 1);
            ::pause();
            ::_exit(0);
        }
        ::close(done[1]);
        ::setpgid(child, child);
        char byte = 0;
        const bool told = ::read(done[0], &byte, 1) == 1;
        ::close(done[0]);
        const auto cpu = groupCpuSeconds(listProcesses(false), child);
        ::kill(child, SIGKILL);
        ::waitpid(child, nullptr, 0);
        QVERIFY(told);
        QVERIFY(cpu.has_value());
        // Clock ticks are 10 ms; a tick's rounding and the pipe's write are all it may add.
        QVERIFY2(*cpu >= 0.28 && *cpu <= 0.45, qPrintable(QString::number(*cpu)));
        QVERIFY(!groupCpuSeconds(listProcesses(false), child).has_value());  // gone
    }

    void knowsHowLongThisProcessHasRun() {
        const auto age = processAgeSeconds();
        QVERIFY(age.has_value());
        QVERIFY2(*age > 0.0 && *age < 3600.0, std::to_string(*age).c_str());
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        QVERIFY(*processAgeSeconds() - *age > 0.2);
    }

    void listsThisProcessAndItsAncestors() {
        const auto all = listProcesses();
        const auto self = std::find_if(all.begin(), all.end(),
                                       [](const ProcessInfo& p) { return p.pid == ::getpid(); });
        QVERIFY(self != all.end());
        QCOMPARE(self->ppid, ::getppid());
        QCOMPARE(self->pgid, ::getpgrp());
        QVERIFY2(self->cmdline.find("test_memory_readers") != std::string::npos,
                 self->cmdline.c_str());
        const auto mine = selfAndAncestors(all);
        QVERIFY(mine.count(::getpid()));
        QVERIFY(mine.count(::getppid()));
    }

    void groupFootprintSumsTheGroup() {
        const pid_t a = spawnGroupLeaderHolding(48);
        QVERIFY(a > 0);
        const std::int64_t total = readGroupFootprint(a);
        const auto members = liveGroupMembers(listProcesses(false), a);
        ::kill(-a, SIGKILL);
        ::waitpid(a, nullptr, 0);
        QCOMPARE(members.size(), std::size_t(1));
        QVERIFY2(total > (std::int64_t(40) << 20), std::to_string(total).c_str());
        QCOMPARE(readGroupFootprint(a), std::int64_t(0));  // gone
        const auto readers = groupReaders(a);
        QCOMPARE(readers.read(1.0).footprint, std::int64_t(0));
    }

    // The group meter keeps the group's members between full scans: children forked after the
    // first scan are found through their parent at the next sample, a member that exits is
    // dropped at once, a child that leaves the group is not taken in, and its sum is what a
    // full scan of /proc sums.
    void theGroupMeterFollowsItsMembersBetweenScans() {
        QTemporaryDir dir;
        const QByteArray go = dir.filePath("go").toUtf8();
        const pid_t leader = ::fork();
        if (leader == 0) {
            ::setpgid(0, 0);
            // Nothing of the group holds the test's output open: a sleep left behind by a
            // failed check must not keep ctest waiting on the pipe until its timeout.
            const int devNull = ::open("/dev/null", O_RDWR);
            for (int fd = 0; fd <= 2; ++fd) ::dup2(devNull, fd);
            const std::string script = "while [ ! -e '" + go.toStdString() +
                                       "' ]; do sleep 0.02; done; sleep 30 & sleep 30 & "
                                       "setsid sleep 30 & wait";
            ::execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr));
            ::_exit(127);
        }
        QVERIFY(leader > 0);
        ::setpgid(leader, leader);  // both sides, so the group exists before either goes on
        pid_t escaped = 0;
        const auto cleanup = qScopeGuard([&] {  // on a failed check too
            ::kill(-leader, SIGKILL);
            if (escaped > 0) ::kill(escaped, SIGKILL);
            ::waitpid(leader, nullptr, 0);
        });
        double now = 0.0;
        GroupMeter meter(leader, 1e9, [&now] { return now; });
        QVERIFY(meter.footprint() > 0);
        QCOMPARE(meter.fullScans(), 1);
        QFile(QString::fromUtf8(go)).open(QIODevice::WriteOnly);
        // Let the shell start all three and the escapee leave the group (setsid runs in the
        // forked child, which is a member until then): on a busy machine that can take a while,
        // and a member found before it leaves counts until the next full scan.
        const auto escapeeOf = [leader](const std::vector<ProcessInfo>& all) {
            return std::find_if(all.begin(), all.end(), [&](const ProcessInfo& p) {
                return p.ppid == leader && p.pgid != leader;
            });
        };
        QElapsedTimer waited;
        waited.start();
        for (;;) {
            const auto all = listProcesses(false);
            if (liveGroupMembers(all, leader).size() == 3 && escapeeOf(all) != all.end()) break;
            QVERIFY2(waited.elapsed() < 10000, "the shell did not start its three sleeps");
            QTest::qSleep(20);
        }
        // The two sleeps are found as the shell's children, without another full scan.
        now += 0.11;  // children are looked for every 0.1 s
        meter.footprint();
        QCOMPARE(meter.processes(), 3);
        QCOMPARE(meter.fullScans(), 1);
        // The escapee (setsid) is not a member; at a full scan the sum is a full scan's sum.
        now = 2e9;
        const std::int64_t metered = meter.footprint();
        QCOMPARE(meter.fullScans(), 2);
        QCOMPARE(meter.processes(), 3);
        const auto all = listProcesses(false);
        const auto members = liveGroupMembers(all, leader);
        QCOMPARE(members.size(), std::size_t(3));
        const auto escapee = escapeeOf(all);
        QVERIFY(escapee != all.end());  // it runs, outside the group
        escaped = escapee->pid;
        // The meter's sum of its members is a full scan's sum. A sleep that has only just been
        // exec'd still grows while the loader maps it (3.5 MB metered against 5.5 MB scanned a
        // moment later, once, on a loaded machine): compared again, without another full scan,
        // until the group's memory holds still.
        std::int64_t sum = metered, scanned = readGroupFootprint(leader);
        waited.restart();
        while (std::llabs(sum - scanned) >= (std::int64_t(1) << 20) && waited.elapsed() < 5000) {
            QTest::qSleep(50);
            sum = meter.footprint();
            scanned = readGroupFootprint(leader);
        }
        QVERIFY2(std::llabs(sum - scanned) < (std::int64_t(1) << 20),
                 qPrintable(QStringLiteral("%1 metered vs %2 scanned").arg(sum).arg(scanned)));
        QCOMPARE(meter.fullScans(), 2);
        // A member killed is gone at the next sample.
        const pid_t sleeper = members[0] == leader ? members[1] : members[0];
        ::kill(sleeper, SIGKILL);
        waited.restart();
        while (meter.processes() == 3 && waited.elapsed() < 5000) {
            meter.footprint();  // the same time: a member's exit is seen at every sample
            QTest::qSleep(20);
        }
        QCOMPARE(meter.processes(), 2);
        QCOMPARE(meter.fullScans(), 2);
        // Once the group is killed the meter reads nothing. SIGKILL is delivered when each
        // member next runs, so on a busy machine the last sleep can still hold its memory after
        // the leader has been reaped: the meter must reach 0 as they go, not at once.
        ::kill(-leader, SIGKILL);
        ::waitpid(leader, nullptr, 0);
        waited.restart();
        // A member that has already let go of its memory can still be listed a moment longer.
        while ((meter.footprint() != 0 || !liveGroupMembers(listProcesses(false), leader).empty()) &&
               waited.elapsed() < 5000)
            QTest::qSleep(20);
        QCOMPARE(meter.footprint(), std::int64_t(0));
        QCOMPARE(meter.processes(), 0);
        QVERIFY(liveGroupMembers(listProcesses(false), leader).empty());
    }

    void footprintIsResidentMemory() {
        QCOMPARE(readFootprint() > 0, true);
        const std::int64_t rss = readProcessMemory().rss;
        QVERIFY(std::llabs(readFootprint() - rss) < (std::int64_t(8) << 20));
    }

    void processReadersReportProcessSwap() {
        const auto s = processReaders().read(0.0);
        const bool hasSwapKey = std::any_of(s.extra.begin(), s.extra.end(), [](const auto& kv) {
            return kv.first == "process_swap";
        });
        QVERIFY(hasSwapKey);
    }

    void gpuMemorySumsTheAcceptedProcessesOnEveryDevice() {
        // Two devices; pid 20 on both, one entry NVML cannot size (-1), pid 30 elsewhere.
        std::vector<unsigned> asked;
        GpuMemory gpu(NvmlDevices{
            [] { return 2u; },
            [&asked](unsigned d) {
                asked.push_back(d);
                return d == 0 ? std::vector<GpuProcess>{{20, 300 << 20}, {30, 1 << 30}, {21, -1}}
                              : std::vector<GpuProcess>{{20, 200 << 20}, {21, 5 << 20}};
            }});
        QCOMPARE(gpu.deviceCount(), 2u);
        QCOMPARE(gpu.usedBy([](pid_t p) { return p == 20; }), std::int64_t(500) << 20);
        QCOMPARE(gpu.usedBy([](pid_t p) { return p == 21; }), std::int64_t(5) << 20);
        QCOMPARE(gpu.usedBy([](pid_t p) { return p == 20 || p == 30; }),
                 (std::int64_t(500) << 20) + (std::int64_t(1) << 30));
        QCOMPARE(gpu.usedBy([](pid_t p) { return p == 99; }), std::int64_t(0));
        QVERIFY((asked == std::vector<unsigned>{0, 1, 0, 1, 0, 1, 0, 1}));
    }

    void gpuMemoryPassesNvmlFailuresOn() {
        GpuMemory gpu(NvmlDevices{[] { return 1u; }, [](unsigned) -> std::vector<GpuProcess> {
                                      throw Error("NVML cannot list the processes on GPU 0: GPU is lost");
                                  }});
        try {
            gpu.usedBy([](pid_t) { return true; });
            QFAIL("no error");
        } catch (const Error& e) {
            QVERIFY(std::string(e.what()).find("GPU is lost") != std::string::npos);
        }
    }

    void readersCarryCudaExactlyWhereThereIsADriver() {
        // This machine may or may not have an NVIDIA driver: either way the readers must agree
        // with GpuMemory::driver(), and a present reader must read.
        const bool driver = GpuMemory::driver() != nullptr;
        for (const auto& readers : {processReaders(), groupReaders(::getpgrp())}) {
            const auto s = readers.read(0.0);
            const auto cuda = std::find_if(s.extra.begin(), s.extra.end(),
                                           [](const auto& kv) { return kv.first == "cuda"; });
            QCOMPARE(cuda != s.extra.end(), driver);
            if (driver) QVERIFY(cuda->second >= 0.0);
        }
    }
};

}  // namespace test_memory_readers

STAGELOAD_APPLESS_SUITE(test_memory_readers, test_memory_readers::TestMemoryReaders)
#include "test_memory_readers.moc"
