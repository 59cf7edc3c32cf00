#include <QtTest>

#include "engine/pipelines/standin/standin_pipeline.h"

using namespace stageload;

class TestStandin : public QObject {
    Q_OBJECT

private slots:
    void stagedHoldsOnlyTheStagesWeights() {
        QTemporaryDir dir;
        StandinParams p;
        p.cacheDir = dir.path().toStdString();
        p.totalMiB = 48;
        const auto staged = runStandin(p);
        p.mode = LoadMode::Eager;
        const auto eager = runStandin(p);

        std::int64_t total = 0;
        for (const auto& s : eager.stages) total = std::max(total, s.weightBytes);
        QVERIFY(total > 40ll << 20);
        for (std::size_t i = 0; i < staged.stages.size(); ++i) {
            const auto& s = staged.stages[i];
            QCOMPARE(eager.stages[i].weightBytes, total);  // eager holds everything all along
            QVERIFY2(s.weightBytes < total, s.name.c_str());
        }
        QCOMPARE(staged.stages.back().weightBytes, std::int64_t(0));  // export: no weights

        // The shape decoder is needed in `shape` and again in `decode`: loaded twice staged.
        int decoderLoads = 0, reloads = 0;
        for (const auto& e : staged.events) {
            decoderLoads += e.name == "shape_decoder" &&
                            (e.kind == EventKind::Load || e.kind == EventKind::Reload);
            reloads += e.kind == EventKind::Reload;
        }
        QCOMPARE(decoderLoads, 2);
        QCOMPARE(reloads, 1);
        for (const auto& e : staged.events) QVERIFY2(e.note != "outside_stage", e.name.c_str());
    }

    void damagedCachedWeightsAreRegenerated() {
        QTemporaryDir dir;
        StandinParams p;
        p.cacheDir = dir.path().toStdString();
        p.totalMiB = 8;
        const auto first = runStandin(p);
        for (const auto& f : std::filesystem::directory_iterator(p.cacheDir))
            std::filesystem::resize_file(f.path(), 100);  // truncate every file
        const auto second = runStandin(p);
        QCOMPARE(second.stages.back().fingerprint, first.stages.back().fingerprint);
    }
};

QTEST_APPLESS_MAIN(TestStandin)
#include "test_standin.moc"
