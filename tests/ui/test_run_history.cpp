// Every run kept in a folder of its own: create, save, list newest first, load, remove; broken
// run.json files are skipped with a warning; paths inside a run's folder survive moving it.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "guard/base/error.h"
#include "ui/studio/run_history.h"
#include "tests/file_support.h"
#include "tests/suite_program.h"

using stageload::FileError;
using stageload::studio::RunHistory;
using stageload::studio::RunRecord;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_run_history {

namespace {

QJsonObject readJson(const QString& path) {
    return QJsonDocument::fromJson(testfile::read(path)).object();
}

QDateTime utc(const char* iso) {
    return QDateTime::fromString(iso, Qt::ISODateWithMs);
}

}  // namespace

class TestRunHistory : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void createSaveLoadKeepsEveryField() {
        QTemporaryDir tmp;
        RunHistory history(tmp.filePath("runs"));  // made on first create
        const QJsonObject settings{{"seed", 7}, {"textureSize", 1024}};
        RunRecord r = history.create("/pictures/hero.png", "character", "staged", settings,
                                     utc("2025-01-02T03:04:05.678Z"));
        QCOMPARE(r.id, QStringLiteral("20250102T030405.678Z"));
        QCOMPARE(r.dir, QDir(tmp.filePath("runs")).filePath(r.id));
        QVERIFY(QFile::exists(r.filePath("run.json")));
        QCOMPARE(r.status, RunRecord::statusRunning());
        QCOMPARE(history.load(r.id)->status, QStringLiteral("running"));

        r.status = RunRecord::statusDone();
        r.message = "U²-Netp not installed: classical cut-out";
        r.output = r.filePath("hero.glb");
        r.trace = r.filePath("trace.jsonl");
        r.cutout = r.filePath("cutout.png");
        r.summary = QJsonObject{{"peak_rss", 123456789.0}};
        r.stageSeconds = {{"preprocess", 1.25}, {"structure", 8.5}, {"export", 0.125}};
        r.vertices = 20002;
        r.triangles = 40000;
        r.seconds = 42.5;
        history.save(r);

        QString error;
        const auto back = history.load(r.id, &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->id, r.id);
        QCOMPARE(back->dir, r.dir);
        QCOMPARE(back->createdUtc, r.createdUtc);
        QCOMPARE(back->createdUtc.timeSpec(), Qt::UTC);
        QCOMPARE(back->input, r.input);
        QCOMPARE(back->pipeline, QStringLiteral("character"));
        QCOMPARE(back->loadMode, QStringLiteral("staged"));
        QCOMPARE(back->settings, settings);
        QCOMPARE(back->status, RunRecord::statusDone());
        QCOMPARE(back->message, r.message);
        QCOMPARE(back->output, r.output);
        QCOMPARE(back->trace, r.trace);
        QCOMPARE(back->cutout, r.cutout);
        QCOMPARE(back->summary, r.summary);
        QCOMPARE(back->stageSeconds, r.stageSeconds);
        QCOMPARE(back->vertices, r.vertices);
        QCOMPARE(back->triangles, r.triangles);
        QCOMPARE(back->seconds, r.seconds);

        const QJsonObject json = readJson(r.filePath("run.json"));  // relative inside the run
        QCOMPARE(json["output"].toString(), QStringLiteral("hero.glb"));
        QCOMPARE(json["trace"].toString(), QStringLiteral("trace.jsonl"));
        QCOMPARE(json["input"].toString(), QStringLiteral("/pictures/hero.png"));
        QCOMPARE(json["status"].toString(), QStringLiteral("done"));
    }

    void idsAreUniqueWithinOneMillisecond() {
        QTemporaryDir tmp;
        RunHistory history(tmp.path());
        const QDateTime t = utc("2025-01-02T03:04:05.678Z");
        QStringList ids;
        for (int i = 0; i < 12; ++i)
            ids << history.create("/a.png", "character", "staged", {}, t).id;
        QCOMPARE(QSet<QString>(ids.begin(), ids.end()).size(), 12);
        QCOMPARE(ids[0], QStringLiteral("20250102T030405.678Z"));
        QCOMPARE(ids[1], QStringLiteral("20250102T030405.678Z-2"));
        QCOMPARE(ids[11], QStringLiteral("20250102T030405.678Z-12"));
        const auto listed = history.list();
        QCOMPARE(listed.size(), 12);
        QCOMPARE(listed.first().id, ids[11]);  // the latest made comes first, -12 before -2
        QCOMPARE(listed.last().id, ids[0]);

        QStringList now;  // without a given time too
        for (int i = 0; i < 20; ++i) now << history.create("/a.png", "character", "staged").id;
        QCOMPARE(QSet<QString>(now.begin(), now.end()).size(), 20);
    }

    void listIsNewestFirst() {
        QTemporaryDir tmp;
        RunHistory history(tmp.path());
        history.create("/b.png", "character", "eager", {}, utc("2025-03-01T10:00:00.000Z"));
        history.create("/c.png", "character", "staged", {}, utc("2025-03-02T09:00:00.000Z"));
        history.create("/a.png", "character", "staged", {}, utc("2024-12-31T23:59:59.999Z"));
        QStringList warnings;
        const auto runs = history.list(&warnings);
        QVERIFY(warnings.isEmpty());
        QCOMPARE(runs.size(), 3);
        QCOMPARE(runs[0].input, QStringLiteral("/c.png"));
        QCOMPARE(runs[1].input, QStringLiteral("/b.png"));
        QCOMPARE(runs[2].input, QStringLiteral("/a.png"));
    }

    void brokenEntriesAreSkippedWithAWarning() {
        QTemporaryDir tmp;
        RunHistory history(tmp.path());
        const RunRecord good = history.create("/a.png", "character", "staged");
        const RunRecord corrupt = history.create("/b.png", "character", "staged");
        testfile::write(corrupt.filePath("run.json"), "{\"status\": \"done\", \"created\": ");
        const RunRecord unknown = history.create("/c.png", "character", "staged");
        QJsonObject json = readJson(unknown.filePath("run.json"));
        json["status"] = "exploded";
        testfile::write(unknown.filePath("run.json"), QJsonDocument(json).toJson());
        const RunRecord badStage = history.create("/d.png", "character", "staged");
        json = readJson(badStage.filePath("run.json"));
        json["stages"] = QJsonArray{QJsonObject{{"name", "x"}}};
        testfile::write(badStage.filePath("run.json"), QJsonDocument(json).toJson());
        QVERIFY(QDir(tmp.path()).mkdir("empty-folder"));
        testfile::write(tmp.filePath("stray.txt"), "not a run");
        const RunRecord array = history.create("/e.png", "character", "staged");
        testfile::write(array.filePath("run.json"), "[1, 2]");

        QStringList warnings;
        const auto runs = history.list(&warnings);
        QCOMPARE(runs.size(), 1);
        QCOMPARE(runs.first().id, good.id);
        QCOMPARE(warnings.size(), 5);
        const QString all = warnings.join('\n');
        for (const RunRecord& bad : {corrupt, unknown, badStage, array})
            QVERIFY2(all.contains(bad.filePath("run.json")), qPrintable(all));
        QVERIFY2(all.contains("exploded"), qPrintable(all));
        QVERIFY2(all.contains("empty-folder"), qPrintable(all));
        QVERIFY(history.list().size() == 1);  // without a warnings list too

        QString error;
        QVERIFY(!history.load(corrupt.id, &error));
        QVERIFY2(error.contains("not JSON"), qPrintable(error));
        QVERIFY(!history.load("no-such-run", &error));
        QVERIFY(!history.load("../escape", &error));
    }

    void relativePathsResolveAfterMovingTheHistory() {
        QTemporaryDir tmp;
        const QString before = tmp.filePath("before");
        RunHistory history(before);
        RunRecord r = history.create("/pictures/hero.png", "character", "staged");
        r.output = r.filePath("mesh/hero.glb");
        r.trace = r.filePath("trace.jsonl");
        r.cutout = "cutout.png";  // already relative: inside the run
        history.save(r);
        QVERIFY(QDir().mkpath(r.filePath("mesh")));
        testfile::write(r.output, "glb");

        const QString after = tmp.filePath("after");
        QVERIFY(QDir().rename(before, after));
        RunHistory moved(after);
        const auto back = moved.load(r.id);
        QVERIFY(back);
        QCOMPARE(back->dir, QDir(after).filePath(r.id));
        QCOMPARE(back->output, QDir(after).filePath(r.id + "/mesh/hero.glb"));
        QCOMPARE(back->cutout, QDir(after).filePath(r.id + "/cutout.png"));
        QVERIFY(QFile::exists(back->output));
        QCOMPARE(back->input, QStringLiteral("/pictures/hero.png"));  // outside: absolute
        QCOMPARE(back->filePath("trace.jsonl"), back->trace);
    }

    void removeDeletesTheFolderAndNothingElse() {
        QTemporaryDir tmp;
        RunHistory history(tmp.filePath("runs"));
        const RunRecord a = history.create("/a.png", "character", "staged");
        const RunRecord b = history.create("/b.png", "character", "staged");
        testfile::write(a.filePath("mesh.glb"), "glb");
        history.remove(a.id);
        QVERIFY(!QDir(a.dir).exists());
        QVERIFY(!history.load(a.id));
        QCOMPARE(history.list().size(), 1);
        QCOMPARE(history.list().first().id, b.id);
        history.remove(a.id);  // gone already: nothing to do

        for (const char* bad : {"", ".", "..", "../runs", "a/b"})
            QVERIFY_THROWS_EXCEPTION(FileError, history.remove(bad));
        QVERIFY(QDir(tmp.filePath("runs")).exists());
        QVERIFY(QDir(b.dir).exists());

        // A run folder that is a link to elsewhere: the link goes, its target stays.
        const QString outside = tmp.filePath("outside");
        QVERIFY(QDir().mkpath(outside));
        testfile::write(outside + "/keep.txt", "keep");
        QVERIFY(QFile::link(outside, QDir(history.root()).filePath("linked")));
        history.remove("linked");
        QVERIFY(QFile::exists(outside + "/keep.txt"));
        QVERIFY(!QFileInfo::exists(QDir(history.root()).filePath("linked")));
    }

    void saveFailuresThrowFileErrorNamingTheFile() {
        QTemporaryDir tmp;
        RunHistory history(tmp.path());
        RunRecord r = history.create("/a.png", "character", "staged");
        QVERIFY(QDir(r.dir).removeRecursively());
        try {
            history.save(r);
            QFAIL("save into a missing folder did not throw");
        } catch (const FileError& e) {
            QVERIFY2(QString(e.what()).contains(r.filePath("run.json")), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(FileError, history.save(RunRecord{}));

        testfile::write(tmp.filePath("file"), "x");  // a file where the root should be
        RunHistory blocked(tmp.filePath("file/runs"));
        QVERIFY_THROWS_EXCEPTION(FileError, blocked.create("/a.png", "character", "staged"));
    }

    void defaultRootIsUnderAppData() {
        QCoreApplication::setApplicationName("stageload-studio-test");
        const QString root = RunHistory::defaultRoot();
        QVERIFY2(root.endsWith("/runs"), qPrintable(root));
        QVERIFY2(root.contains("stageload-studio-test"), qPrintable(root));
        QCOMPARE(RunHistory().root(), QDir::cleanPath(root));
    }
};

}  // namespace test_run_history

STAGELOAD_SUITE(test_run_history, test_run_history::TestRunHistory)
#include "test_run_history.moc"
