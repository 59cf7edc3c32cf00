#include <QtTest>

#include "engine/pipelines/cascade/cascade_plan.h"
#include "engine/pipelines/cascade/cascade_report.h"
#include "engine/pipelines/cascade/cascade_run.h"

using namespace stageload;

namespace {

int countLoads(const CascadeResult& r, const std::string& model) {
    int n = 0;
    for (const auto& e : r.events)
        n += e.name == model && (e.kind == EventKind::Load || e.kind == EventKind::Reload);
    return n;
}

}  // namespace

class TestCascade : public QObject {
    Q_OBJECT

    QTemporaryDir cache_;
    CascadeParams params(LoadMode mode, double scale = 0.06) {
        CascadeParams p;
        p.cacheDir = cache_.path().toStdString();
        p.scaleGiB = scale;
        p.mode = mode;
        return p;
    }

private slots:
    void followsThePixal3DPlan() {
        const auto r = runCascade(params(LoadMode::Staged));
        std::vector<std::string> names;
        for (const auto& s : r.stages) names.push_back(s.name);
        QCOMPARE(names, (std::vector<std::string>{"preprocess", "camera", "structure", "shape_512",
                                                  "shape_1024", "texture", "decode", "export"}));
        for (const auto& e : r.events) QVERIFY2(e.note != "outside_stage", e.name.c_str());
    }

    void stagedHoldsOnlyTheStagesWeightsEagerHoldsAll() {
        const auto staged = runCascade(params(LoadMode::Staged));
        const auto eager = runCascade(params(LoadMode::Eager));
        const auto all = eager.stages.front().weightBytes;
        QVERIFY(all > (50ll << 20));
        for (std::size_t i = 0; i < staged.stages.size(); ++i) {
            const auto& s = staged.stages[i];
            QCOMPARE(eager.stages[i].weightBytes, all);
            QVERIFY2(s.weightBytes < all / 2, s.name.c_str());
            // Per-stage peaks: staged below eager (eager holds every model all along).
            QVERIFY2(s.peakRss < eager.stages[i].peakRss, s.name.c_str());
        }
        QCOMPARE(staged.stages.back().weightBytes, std::int64_t(0));  // export: no weights
        // The texture stage's working set is larger than its weights.
        const auto& texture = staged.stages[5];
        QCOMPARE(texture.name, std::string("texture"));
        QVERIFY(texture.workingBytes > texture.weightBytes / 2);
    }

    void shapeDecoderLoadsTwiceStagedOnceEager() {
        const auto staged = runCascade(params(LoadMode::Staged));
        const auto eager = runCascade(params(LoadMode::Eager));
        QCOMPARE(countLoads(staged, "shape_slat_decoder"), 2);
        QCOMPARE(countLoads(eager, "shape_slat_decoder"), 1);
        int reloads = 0;
        for (const auto& e : staged.events) reloads += e.kind == EventKind::Reload;
        QCOMPARE(reloads, 1);
    }

    void backboneIsBuiltOnceForFourExtractors() {
        const auto r = runCascade(params(LoadMode::Staged));
        std::int64_t cond = 0;
        for (const auto& e : r.events)
            if (e.kind == EventKind::Load && e.name == "image_cond_models") cond = e.nbytes;
        const double total = 0.06 * (1ll << 30);
        double share = 0;
        for (const auto& m : cascadeModels())
            if (m.name == "image_cond_models") share = m.share;
        // Four separate backbones would be about four times the model's share.
        QVERIFY2(cond < share * total * 1.5, "the backbone must be in memory once");
        QVERIFY(cond > share * total * 0.5);
    }

    void stopAtStopsWhereTheStageBegins() {
        auto p = params(LoadMode::Eager);
        p.stopAt = "texture";
        const auto r = runCascade(p);
        QCOMPARE(r.stoppedAt, std::string("texture"));
        QCOMPARE(r.stages.back().name, std::string("shape_1024"));
        p.stopAt = "nope";
        QVERIFY_THROWS_EXCEPTION(UnknownStageError, runCascade(p));
    }

    void cancelStopsTheRun() {
        std::atomic<bool> cancel{false};
        auto p = params(LoadMode::Staged);
        p.cancel = &cancel;
        p.onStage = [&](const std::string& stage, bool begins) {
            if (stage == "structure" && begins) cancel = true;
        };
        QVERIFY_THROWS_EXCEPTION(Cancelled, runCascade(p));
    }

    void fingerprintsCompareStageByStage() {
        QTemporaryDir out;
        const auto a = std::filesystem::path(out.path().toStdString()) / "a";
        const auto b = std::filesystem::path(out.path().toStdString()) / "b";
        const auto c = std::filesystem::path(out.path().toStdString()) / "c";
        writeFingerprints(a, runCascade(params(LoadMode::Staged)));
        writeFingerprints(b, runCascade(params(LoadMode::Eager)));
        auto noRng = params(LoadMode::Staged);
        noRng.preserveRng = false;
        noRng.stopAt = "decode";
        writeFingerprints(c, runCascade(noRng));

        auto rows = compareFingerprints(a, b);
        QCOMPARE(rows.size(), std::size_t(8));
        for (const auto& r : rows) QVERIFY2(r.identical(), r.stage.c_str());

        rows = compareFingerprints(a, c);
        QCOMPARE(rows.size(), std::size_t(8));
        for (const auto& r : rows) QVERIFY2(!r.identical(), r.stage.c_str());
        QVERIFY(!rows.back().b.has_value());  // c stopped before decode

        QVERIFY_THROWS_EXCEPTION(FileError, compareFingerprints(a, out.path().toStdString() + "/x"));
    }
};

QTEST_APPLESS_MAIN(TestCascade)
#include "test_cascade.moc"
