// What the app remembers between sessions: every field through a real INI file, defaults when
// nothing is stored, and invalid stored values falling back to their defaults with a warning.
#include <QFileInfo>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>

#include "ui/studio/studio_settings.h"
#include "tests/suite_program.h"

using stageload::GuardParams;
using stageload::studio::dialogStartFolder;
using stageload::studio::rememberFolder;
using stageload::studio::loadSettings;
using stageload::studio::saveSettings;
using stageload::studio::StudioSettings;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_studio_settings {

namespace {

constexpr std::int64_t GiB = std::int64_t(1) << 30;

/// The first field in which a and b differ, or an empty string.
QString firstDifference(const StudioSettings& a, const StudioSettings& b) {
    const GuardParams &g = a.guard, &h = b.guard;
#define SAME(field, name) \
    if (!(field)) return QStringLiteral(name)
    SAME(a.run.pipeline == b.run.pipeline, "pipeline");
    SAME(a.run.seed == b.run.seed, "seed");
    SAME(a.run.textureSize == b.run.textureSize, "textureSize");
    SAME(a.run.triangles == b.run.triangles, "triangles");
    SAME(a.run.heightMeters == b.run.heightMeters, "height");
    SAME(a.run.thickness == b.run.thickness, "thickness");
    SAME(a.run.minPart == b.run.minPart, "minPart");
    SAME(a.run.mode == b.run.mode, "load");
    SAME(a.run.device == b.run.device, "device");
    SAME(a.run.threads == b.run.threads, "threads");
    SAME(a.run.remover == b.run.remover, "remover");
    SAME(a.guardEnabled == b.guardEnabled, "guardEnabled");
    SAME(g.waitFree == h.waitFree, "guard.waitFree");
    SAME(g.killFree == h.killFree, "guard.killFree");
    SAME(g.swapBudget == h.swapBudget, "guard.swapBudget");
    SAME(g.swapLimit == h.swapLimit, "guard.swapLimit");
    SAME(g.busy == h.busy, "guard.busy");
    SAME(g.quietFor == h.quietFor, "guard.quietFor");
    SAME(g.startTimeout == h.startTimeout, "guard.startTimeout");
    SAME(g.poll == h.poll, "guard.poll");
    SAME(g.stopGrace == h.stopGrace, "guard.stopGrace");
    SAME(a.recentFiles == b.recentFiles, "recentFiles");
    SAME(a.lastOpenDir == b.lastOpenDir, "lastOpenDir");
    SAME(a.lastExportDir == b.lastExportDir, "lastExportDir");
    SAME(a.exportFormat == b.exportFormat, "exportFormat");
    SAME(a.units == b.units, "units");
    SAME(a.windowGeometry == b.windowGeometry, "windowGeometry");
    SAME(a.windowState == b.windowState, "windowState");
    SAME(a.generator == b.generator, "generator");
    SAME(a.generatorParams == b.generatorParams, "generatorParams");
#undef SAME
    return {};
}

StudioSettings nonDefault() {
    StudioSettings s;
    s.run.pipeline = "character";  // the only pipeline so far
    s.run.seed = 9876543210LL;
    s.run.textureSize = 4096;
    s.run.triangles = 1234567;
    s.run.heightMeters = 0.35;
    s.run.thickness = 2.5;
    s.run.minPart = 1.5;
    s.run.mode = stageload::LoadMode::Eager;
    s.run.device = "cuda";
    s.run.threads = 6;
    s.run.remover = stageload::RemoverChoice::ISNet;
    s.guardEnabled = false;
    s.guard.waitFree = 35.5;
    s.guard.killFree = 12.25;
    s.guard.swapBudget = 3 * GiB + 512 * (std::int64_t(1) << 20);
    s.guard.swapLimit = 16 * GiB;
    s.guard.busy = {"ffmpeg", "python .*train,[0-9]+", "say \"hi\" \\d", "=;#[x]"};
    s.guard.quietFor = 90;
    s.guard.startTimeout = 7200;
    s.guard.poll = 0.25;
    s.recentFiles = {QStringLiteral("/p/b, with comma.png"), QStringLiteral("/p/a.png")};
    s.lastOpenDir = QStringLiteral("/srv/art/Pictures");
    s.lastExportDir = QStringLiteral("/srv/art/Meshes, for Blender");
    s.exportFormat = QStringLiteral("obj");
    s.units = stageload::ByteUnits::Decimal;
    s.windowGeometry = QByteArray("\x01\x02\x00\xff geometry", 13);
    s.windowState = QByteArray("\x00state\n", 7);
    s.generator = QStringLiteral("/srv/art/generators/trellis-cpp.json");
    s.generatorParams[QStringLiteral("trellis-cpp")] = {{QStringLiteral("models"), QStringLiteral("~/my models, 2")},
                                                        {QStringLiteral("res"), QStringLiteral("512")}};
    s.generatorParams[QStringLiteral("sf3d")] = {{QStringLiteral("checkout"), QStringLiteral("/src/sf3d")}};
    return s;
}

}  // namespace

class TestStudioSettings : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    int files_ = 0;

    QString iniPath() { return dir_.filePath(QStringLiteral("s%1.ini").arg(++files_)); }

    /// Saves `s` to a new INI file and reads it back with a fresh QSettings.
    StudioSettings roundTrip(const StudioSettings& s, QStringList* warnings) {
        const QString path = iniPath();
        {
            QSettings out(path, QSettings::IniFormat);
            saveSettings(out, s);
            out.sync();
            if (out.status() != QSettings::NoError) qFatal("cannot write %s", qPrintable(path));
        }
        QSettings in(path, QSettings::IniFormat);
        return loadSettings(in, warnings);
    }

private slots:
    void defaultsWhenNothingIsStored() {
        QSettings empty(iniPath(), QSettings::IniFormat);
        QStringList warnings;
        const StudioSettings s = loadSettings(empty, &warnings);
        QCOMPARE(firstDifference(s, StudioSettings{}), QString());
        QVERIFY(warnings.isEmpty());
        QCOMPARE(s.run.pipeline, std::string("character"));
        QCOMPARE(s.run.seed, 1);
        QCOMPARE(s.run.textureSize, 2048);
        QCOMPARE(s.run.triangles, 40000);
        QCOMPARE(s.run.heightMeters, 1.8);
        QVERIFY(s.run.mode == stageload::LoadMode::Staged);
        QCOMPARE(s.run.device, std::string("cpu"));
        QCOMPARE(s.run.threads, 0);
        QVERIFY(s.run.remover == stageload::RemoverChoice::Auto);
        QVERIFY(s.guardEnabled);
        QCOMPARE(s.guard.poll, 5.0);  // the CLI's defaults
        QCOMPARE(s.guard.quietFor, 60.0);
        QCOMPARE(s.exportFormat, QStringLiteral("glb"));
    }

    void everyFieldRoundTrips() {
        QStringList warnings;
        const StudioSettings s = nonDefault();
        QVERIFY(!firstDifference(s, StudioSettings{}).isEmpty());
        QCOMPARE(firstDifference(roundTrip(s, &warnings), s), QString());
        QVERIFY2(warnings.isEmpty(), qPrintable(warnings.join('\n')));
    }

    void defaultsRoundTripToo() {
        QStringList warnings;
        QCOMPARE(firstDifference(roundTrip(StudioSettings{}, &warnings), StudioSettings{}),
                 QString());
        QVERIFY2(warnings.isEmpty(), qPrintable(warnings.join('\n')));
    }

    void singleEntryListsAndUnsetLimitRoundTrip() {
        StudioSettings s = nonDefault();
        s.guard.swapLimit.reset();
        s.guard.busy = {"blender -b"};
        s.recentFiles = {QStringLiteral("/only/one.png")};
        QStringList warnings;
        QCOMPARE(firstDifference(roundTrip(s, &warnings), s), QString());
        QVERIFY2(warnings.isEmpty(), qPrintable(warnings.join('\n')));
    }

    void keysAreGroupedWithBytesAndSeconds() {
        const QString path = iniPath();
        {
            QSettings out(path, QSettings::IniFormat);
            saveSettings(out, nonDefault());
        }
        QSettings in(path, QSettings::IniFormat);
        QCOMPARE(in.value("run/seed").toLongLong(), 9876543210LL);
        QCOMPARE(in.value("guard/swapBudget").toLongLong(), 3 * GiB + (512 << 20));
        QCOMPARE(in.value("guard/swapLimit").toLongLong(), 16 * GiB);
        QCOMPARE(in.value("guard/poll").toDouble(), 0.25);
        QCOMPARE(in.value("guard/startTimeout").toDouble(), 7200.0);
        QCOMPARE(in.value("guard/busy").toStringList().size(), 4);
        QVERIFY(in.contains("files/recent"));
        QVERIFY(in.contains("window/geometry"));
    }

    void invalidValueFallsBackToDefault_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QVariant>("value");
        QTest::newRow("texture 3000") << "run/textureSize" << QVariant("3000");
        QTest::newRow("texture text") << "run/textureSize" << QVariant("big");
        QTest::newRow("negative seed") << "run/seed" << QVariant("-5");
        QTest::newRow("seed text") << "run/seed" << QVariant("12abc");
        QTest::newRow("too few triangles") << "run/triangles" << QVariant("999");
        QTest::newRow("too many triangles") << "run/triangles" << QVariant("2000001");
        QTest::newRow("height zero") << "run/height" << QVariant("0");
        QTest::newRow("thickness text") << "run/thickness" << QVariant("thick");
        QTest::newRow("load maybe") << "run/load" << QVariant("maybe");
        QTest::newRow("unknown pipeline") << "run/pipeline" << QVariant("cascade2");
        QTest::newRow("unknown device") << "run/device" << QVariant("tpu");
        QTest::newRow("negative threads") << "run/threads" << QVariant("-1");
        QTest::newRow("unknown remover") << "run/remover" << QVariant("magic");
        QTest::newRow("guard enabled perhaps") << "guard/enabled" << QVariant("perhaps");
        QTest::newRow("wait-free 140") << "guard/waitFree" << QVariant("140");
        QTest::newRow("kill-free negative") << "guard/killFree" << QVariant("-1");
        QTest::newRow("swap budget 8X") << "guard/swapBudget" << QVariant("8X");
        QTest::newRow("swap budget negative") << "guard/swapBudget" << QVariant("-1");
        QTest::newRow("swap limit negative") << "guard/swapLimit" << QVariant("-1");
        QTest::newRow("quiet-for negative") << "guard/quietFor" << QVariant("-3");
        QTest::newRow("start timeout text") << "guard/startTimeout" << QVariant("soon");
        QTest::newRow("zero poll") << "guard/poll" << QVariant("0");
        QTest::newRow("bad regex") << "guard/busy" << QVariant(QStringList{"(unclosed"});
        QTest::newRow("fbx export") << "export/format" << QVariant("fbx");
        QTest::newRow("units metric") << "display/units" << QVariant("metric");
    }

    void invalidValueFallsBackToDefault() {
        QFETCH(QString, key);
        QFETCH(QVariant, value);
        const QString path = iniPath();
        {
            QSettings out(path, QSettings::IniFormat);
            out.setValue(key, value);
        }
        QSettings in(path, QSettings::IniFormat);
        QStringList warnings;
        const StudioSettings s = loadSettings(in, &warnings);
        QCOMPARE(firstDifference(s, StudioSettings{}), QString());
        QCOMPARE(warnings.size(), 1);
        QVERIFY2(warnings.first().contains(key), qPrintable(warnings.first()));
    }

    void invalidValueLeavesTheOthersAlone() {
        const QString path = iniPath();
        {
            QSettings out(path, QSettings::IniFormat);
            saveSettings(out, nonDefault());
            out.setValue("run/textureSize", 3000);
            out.setValue("guard/poll", 0);
        }
        QSettings in(path, QSettings::IniFormat);
        QStringList warnings;
        StudioSettings s = loadSettings(in, &warnings);
        QCOMPARE(warnings.size(), 2);
        QCOMPARE(s.run.textureSize, 2048);
        QCOMPARE(s.guard.poll, 5.0);
        s.run.textureSize = 4096;
        s.guard.poll = 0.25;
        QCOMPARE(firstDifference(s, nonDefault()), QString());
    }

    void badBusyPatternIsDroppedAndTheRestKept() {
        const QString path = iniPath();
        {
            QSettings out(path, QSettings::IniFormat);
            out.setValue("guard/busy", QStringList{"ffmpeg", "(unclosed", "blender"});
        }
        QSettings in(path, QSettings::IniFormat);
        QStringList warnings;
        const StudioSettings s = loadSettings(in, &warnings);
        QCOMPARE(s.guard.busy, (std::vector<std::string>{"ffmpeg", "blender"}));
        QCOMPARE(warnings.size(), 1);
        QVERIFY2(warnings.first().contains("(unclosed"), qPrintable(warnings.first()));
        stageload::validate(s.guard);  // never loads what the run would refuse
    }

    void loadingWithoutAWarningsListIsFine() {
        const QString path = iniPath();
        {
            QSettings out(path, QSettings::IniFormat);
            out.setValue("run/textureSize", "3000");
        }
        QSettings in(path, QSettings::IniFormat);
        QCOMPARE(loadSettings(in).run.textureSize, 2048);
    }

    void recentFilesMostRecentFirstNoDuplicatesAtMostTen() {
        StudioSettings s;
        s.addRecentFile("/a.png");
        s.addRecentFile("/b.png");
        s.addRecentFile("/a.png");
        s.addRecentFile("");
        QCOMPARE(s.recentFiles, (QStringList{"/a.png", "/b.png"}));
        for (int i = 0; i < 15; ++i) s.addRecentFile(QStringLiteral("/%1.png").arg(i));
        QCOMPARE(s.recentFiles.size(), StudioSettings::kMaxRecentFiles);
        QCOMPARE(s.recentFiles.first(), QStringLiteral("/14.png"));
        QCOMPARE(s.recentFiles.last(), QStringLiteral("/5.png"));
    }

    void storedRecentFilesAreCleanedUp() {
        const QString path = iniPath();
        QStringList stored{"/x.png", "/y.png", "/x.png", ""};
        for (int i = 0; i < 12; ++i) stored << QStringLiteral("/%1.png").arg(i);
        {
            QSettings out(path, QSettings::IniFormat);
            out.setValue("files/recent", stored);
        }
        QSettings in(path, QSettings::IniFormat);
        const StudioSettings s = loadSettings(in);
        QCOMPARE(s.recentFiles.size(), StudioSettings::kMaxRecentFiles);
        QCOMPARE(s.recentFiles.mid(0, 3), (QStringList{"/x.png", "/y.png", "/0.png"}));
        QCOMPARE(s.recentFiles.last(), QStringLiteral("/7.png"));
    }

    // A dialog starts where the user last was, never in a run folder of the history, and in
    // Documents (or home) when that folder is gone or nothing was chosen yet.
    void dialogsStartInTheUsersFolders() {
        QTemporaryDir dir;
        const QString runs = dir.filePath(QStringLiteral("data/runs"));
        QString slot = QStringLiteral("/before");
        rememberFolder(slot, dir.filePath(QStringLiteral("art/hero.png")), runs);
        QCOMPARE(slot, dir.filePath(QStringLiteral("art")));
        rememberFolder(slot, runs + QStringLiteral("/20261203T1200/mesh.glb"), runs);
        QCOMPARE(slot, dir.filePath(QStringLiteral("art")));  // a run's own file: not remembered
        rememberFolder(slot, runs + QStringLiteral("/trace.jsonl"), runs);
        QCOMPARE(slot, dir.filePath(QStringLiteral("art")));
        rememberFolder(slot, dir.filePath(QStringLiteral("data/runs-old/x.glb")), runs);  // beside it is fine
        QCOMPARE(slot, dir.filePath(QStringLiteral("data/runs-old")));

        QCOMPARE(dialogStartFolder(dir.path()), dir.path());
        const QString fallback = dialogStartFolder(dir.filePath(QStringLiteral("gone")));
        QVERIFY2(fallback != dir.filePath(QStringLiteral("gone")) && QFileInfo(fallback).isDir(), qPrintable(fallback));
        QCOMPARE(dialogStartFolder(QString()), fallback);
    }
};

}  // namespace test_studio_settings

STAGELOAD_SUITE(test_studio_settings, test_studio_settings::TestStudioSettings)
#include "test_studio_settings.moc"
