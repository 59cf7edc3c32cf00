// The benchmark's measurements themselves: the meter is cheap, the guard reacts within a poll.
#include <QtTest>

#include "guard/bench/guard_bench.h"

using namespace stageload;

class TestGuardBench : public QObject {
    Q_OBJECT

private slots:
    void meterIsCheapAt20ms() {
        const double pct = meterCpuPercent(0.02, 2.0);
        // Target is < 1 % of one core; allow a loaded CI machine some slack.
        QVERIFY2(pct > 0.0 && pct < 3.0, std::to_string(pct).c_str());
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

QTEST_APPLESS_MAIN(TestGuardBench)
#include "test_guard_bench.moc"
