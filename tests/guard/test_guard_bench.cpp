// The benchmark's measurements themselves: the meter's cost is measured (its < 1 % target is
// the benchmark's to report, `stageload bench guard`, not a timed test's), the guard reacts
// within a poll.
#include <QtTest>

#include "guard/bench/guard_bench.h"
#include "tests/suite_program.h"

using namespace stageload;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_guard_bench {

class TestGuardBench : public QObject {
    Q_OBJECT

private slots:
    void meterCostIsMeasuredAndNoBusyLoop() {
        // 100 samples in 2 s cost some CPU time, and far less than a core: a meter that spun
        // between samples would show tens of percent even on a loaded machine.
        const double pct = meterCpuPercent(0.02, 2.0);
        QVERIFY2(pct > 0.0 && pct < 25.0, std::to_string(pct).c_str());
    }

    void guardReactsWithinAPoll() {
        const auto r = guardReaction(0.2, false);
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.detect >= 0.0 && r.detect < 0.45, std::to_string(r.detect).c_str());
        QVERIFY2(r.gone >= r.detect && r.gone < 1.5, std::to_string(r.gone).c_str());
    }

    void sigtermIgnoringGroupIsGoneAfterTheGrace() {
        const auto r = guardReaction(0.2, true);
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.gone >= 5.0 && r.gone < 7.5, std::to_string(r.gone).c_str());
    }
};

}  // namespace test_guard_bench

STAGELOAD_APPLESS_SUITE(test_guard_bench, test_guard_bench::TestGuardBench)
#include "test_guard_bench.moc"
