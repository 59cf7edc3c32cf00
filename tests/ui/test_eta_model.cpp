// The ETA learned from earlier runs: medians of the last ten completed runs per stage, the
// remaining-time sum, unknown stages, and filtering by pipeline, status and load mode.
#include <QtTest>

#include "ui/studio/eta_model.h"
#include "tests/suite_program.h"

using stageload::studio::EtaModel;
using stageload::studio::RunRecord;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_eta_model {

namespace {

int minutes = 0;  // each made run is a minute newer than the previous one

RunRecord run(QList<QPair<QString, double>> stages, const QString& mode = "staged",
              const QString& status = "done", const QString& pipeline = "character") {
    RunRecord r;
    r.id = QString::number(++minutes);
    r.createdUtc = QDateTime(QDate(2025, 1, 1), QTime(0, 0), Qt::UTC).addSecs(60 * minutes);
    r.pipeline = pipeline;
    r.loadMode = mode;
    r.status = status;
    r.stageSeconds = std::move(stages);
    return r;
}

RunRecord abc(double a, double b, double c, const QString& mode = "staged") {
    return run({{"a", a}, {"b", b}, {"c", c}}, mode);
}

}  // namespace

class TestEtaModel : public QObject {
    Q_OBJECT

private slots:
    void medianOfOddAndEvenCounts() {
        EtaModel eta;
        eta.learn({abc(1, 0, 0), abc(5, 0, 0), abc(3, 0, 0)}, "character");
        QCOMPARE(*eta.expected("a"), 3.0);
        eta.learn({abc(1, 0, 0), abc(2, 0, 0), abc(3, 0, 0), abc(10, 0, 0)}, "character");
        QCOMPARE(*eta.expected("a"), 2.5);
        QCOMPARE(eta.runsLearned(), 4);
    }

    void onlyTheLastTenRunsCount() {
        QList<RunRecord> runs;
        runs << abc(100, 0, 0) << abc(100, 0, 0);  // old and slow
        for (int i = 1; i <= 10; ++i) runs << abc(i, 0, 0);
        std::reverse(runs.begin(), runs.end());  // order of the list does not matter
        EtaModel eta;
        eta.learn(runs, "character");
        QCOMPARE(*eta.expected("a"), 5.5);
    }

    void remainingIsTheRestOfTheCurrentPlusTheLaterStages() {
        EtaModel eta;
        eta.learn({abc(10, 20, 30)}, "character");
        const QStringList stages{"a", "b", "c"};
        QCOMPARE(*eta.remaining(stages, 1, 5), 15.0 + 30.0);
        QCOMPARE(*eta.remaining(stages, 1, 25), 0.0 + 30.0);  // overdue stage counts 0
        QCOMPARE(*eta.remaining(stages, 0, 0), 60.0);
        QCOMPARE(*eta.remaining(stages, -1, 0), 60.0);  // not started
        QCOMPARE(*eta.remaining(stages, 2, 29.5), 0.5);
        QCOMPARE(*eta.remaining(stages, 3, 0), 0.0);  // done
        QCOMPARE(*eta.remaining({}, 0, 0), 0.0);
    }

    void unknownStageGivesNoEstimate() {
        EtaModel eta;
        QVERIFY(!eta.expected("a"));
        QVERIFY(!eta.remaining({"a"}, 0, 0));
        eta.learn({abc(10, 20, 30)}, "character");
        QVERIFY(!eta.expected("d"));
        QVERIFY(!eta.remaining({"a", "d", "c"}, 0, 0));
        QCOMPARE(*eta.remaining({"a", "d", "c"}, 2, 10), 20.0);  // past the unknown one
    }

    void onlyCompletedRunsOfThePipelineCount() {
        EtaModel eta;
        eta.learn(
            {abc(10, 0, 0), run({{"a", 99}}, "staged", "failed"),
             run({{"a", 99}}, "staged", "cancelled"), run({{"a", 99}}, "staged", "stopped"),
             run({{"a", 99}}, "staged", "running"), run({{"a", 99}}, "staged", "done", "cascade")},
            "character");
        QCOMPARE(*eta.expected("a"), 10.0);
        QCOMPARE(eta.runsLearned(), 1);
        eta.learn({run({{"a", 99}}, "staged", "done", "cascade")}, "character");
        QVERIFY(!eta.expected("a"));
    }

    void sameLoadModeWhenThereAreEnough() {
        QList<RunRecord> runs;
        for (int i = 0; i < 3; ++i) runs << abc(10, 0, 0, "staged") << abc(40, 0, 0, "eager");
        EtaModel eta;
        eta.learn(runs, "character", "eager");
        QCOMPARE(*eta.expected("a"), 40.0);
        eta.setLoadMode("staged");
        QCOMPARE(*eta.expected("a"), 10.0);
        eta.setLoadMode(QString());  // any: median of all six
        QCOMPARE(*eta.expected("a"), 25.0);

        runs.clear();  // two eager runs are not enough: every mode counts
        runs << abc(10, 0, 0, "staged") << abc(10, 0, 0, "staged") << abc(10, 0, 0, "staged")
             << abc(40, 0, 0, "eager") << abc(40, 0, 0, "eager");
        eta.learn(runs, "character", "eager");
        QCOMPARE(*eta.expected("a"), 10.0);
    }

    void recordAddsARunWithoutRelearning() {
        EtaModel eta;
        eta.learn({}, "character", "staged");
        QVERIFY(!eta.expected("a"));
        eta.record(abc(10, 20, 30));
        QCOMPARE(*eta.remaining({"a", "b", "c"}, 0, 0), 60.0);
        eta.record(abc(20, 20, 30));
        eta.record(abc(30, 20, 30));
        QCOMPARE(*eta.expected("a"), 20.0);
        eta.record(run({{"a", 1000}}, "staged", "failed"));
        QCOMPARE(*eta.expected("a"), 20.0);
        QCOMPARE(eta.runsLearned(), 3);

        // Ten newer fast runs push the slow ones out of the window.
        for (int i = 0; i < 10; ++i) eta.record(abc(1, 20, 30));
        QCOMPARE(*eta.expected("a"), 1.0);
        // An old run recorded late does not count as one of the last ten.
        RunRecord old = abc(500, 20, 30);
        old.createdUtc = QDateTime(QDate(2000, 1, 1), QTime(0, 0), Qt::UTC);
        eta.record(old);
        QCOMPARE(*eta.expected("a"), 1.0);
    }

    void aStageThatRanTwiceCountsItsTotal() {
        EtaModel eta;
        eta.learn({run({{"a", 2}, {"b", 3}, {"a", 4}})}, "character");
        QCOMPARE(*eta.expected("a"), 6.0);
    }
};

}  // namespace test_eta_model

STAGELOAD_SUITE(test_eta_model, test_eta_model::TestEtaModel)
#include "test_eta_model.moc"
