// `stageload run --generator` as users and scripts meet it, with tests/generators/fake_port.py
// as the generator: a run that works (its stages in the table, its mesh kept), a runaway the
// guard stops (exit 3), each bad case with its message and code, and the built-in pipeline run
// as a child process writing the same bytes as `stageload run`.
#include <algorithm>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/file_support.h"
#include "tests/process_support.h"

namespace {

const QString kSamples = STAGELOAD_SAMPLES_DIR;
const QString kGenerators = STAGELOAD_SOURCE_DIR "/resources/generators";
const QString kFakePort = STAGELOAD_SOURCE_DIR "/tests/generators/fake_port.py";

using Result = testproc::ProgramResult;
using testproc::stageload;

}  // namespace

class TestCliGenerator : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

    /// A generator file running the fake port with `flags`.
    QString fakePort(const QString& name, const QStringList& flags) {
        QStringList args{"\"python3\"", "\"" + kFakePort + "\"", "\"--image\"", "\"{input}\"",
                         "\"--out\"", "\"{output}\"", "\"--trace\"", "\"{trace}\"",
                         "\"--stage-seconds\"", "\"0.3\""};
        for (const auto& f : flags) args << "\"" + f + "\"";
        const QString file = dir_.filePath(name + ".json");
        QFile out(file);
        if (!out.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(file));
        // JSON: the patterns are ^\[stage\] (\w+) and (\d+)%\| once read.
        const QString json = QStringLiteral("{\"name\": \"%1\", \"command\": [%2], \"trace\": \"{trace}\", "
                                            "\"stage_pattern\": \"^\\\\[stage\\\\] (\\\\w+)\", "
                                            "\"progress_pattern\": \"(\\\\d+)%\\\\|\"}")
                                 .arg(name, args.join(QStringLiteral(", ")));
        out.write(json.toUtf8());
        return file;
    }

    QString picture() const { return kSamples + "/knight_alpha.png"; }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        qputenv("XDG_DATA_HOME", dir_.filePath("data").toUtf8());  // no app history of the user's
    }

    // "stage_weights": the files' bytes, from their headers, are the forecast's exact part
    // before any run (a lower bound), recorded in each run's trace, and kept under the fit.
    void stageWeightsAreForecastBeforeAnyRunAndRecorded() {
        QDir(dir_.path()).mkpath("weighted/w");
        // A safetensors file of 3 MiB of weights (one F32 tensor of 768×1024).
        testfile::write(dir_.filePath("weighted/w/shape.safetensors"),
                        testfile::safetensors(R"({"a":{"dtype":"F32","shape":[768,1024],"data_offsets":[0,3145728]}})",
                                              3145728));
        const QString def = dir_.filePath("weighted/weighted.json");
        testfile::write(def, QStringLiteral(R"({"name": "weighted", "trace": "{trace}",
            "command": ["python3", "%1", "--image", "{input}", "--out", "{output}", "--trace", "{trace}",
                        "--stage-seconds", "0.3", "--stages", "shape:40,texture:20"],
            "stage_weights": {"shape": "w/shape.safetensors", "texture": "w/texture-*.safetensors",
                              "setup": "w"}})")
                                 .arg(kFakePort)
                                 .toUtf8());
        const auto forecast = [&](const QStringList& more) {
            return stageload(QStringList{"forecast", picture(), "--generator", def, "--no-app-history", "--json"} + more);
        };
        const Result before = forecast({});
        QCOMPARE(before.code, 0);
        QVERIFY2(before.err.contains("stage_weights.texture: no file matches"), qPrintable(before.err));
        QVERIFY2(before.err.contains("stage_weights.setup: " + dir_.filePath("weighted/w") + " is not a file"),
                 qPrintable(before.err));
        auto stages = QJsonDocument::fromJson(before.out.toUtf8()).object()["stages"].toArray();
        QCOMPARE(stages.size(), 1);  // texture's files are missing: no partial sum taken for exact
        const auto shape = stages[0].toObject();
        QCOMPARE(shape["stage"].toString(), QString("shape"));
        QCOMPARE(shape["weights"].toInteger(), 3145728);
        QVERIFY(shape["lower_bound"].toBool());
        QVERIFY2(before.out.contains("needs at least"), qPrintable(before.out));

        const QString out = dir_.filePath("weighted/run.glb");
        const Result run = stageload({"run", picture(), "-o", out, "--generator", def, "--wait-free", "0"});
        QCOMPARE(run.code, 0);
        const auto start = QJsonDocument::fromJson(testfile::read(dir_.filePath("weighted/run.run/trace.jsonl")).split('\n').first())
                               .object();
        QCOMPARE(start["stage_weights"]["shape"].toInteger(), 3145728);

        const Result after = forecast({"--history", dir_.filePath("weighted")});
        stages = QJsonDocument::fromJson(after.out.toUtf8()).object()["stages"].toArray();
        QJsonObject fitted;
        for (const auto& stage : stages)
            if (stage.toObject()["stage"].toString() == "shape") fitted = stage.toObject();
        QVERIFY2(fitted["stage"].toString() == "shape" && !fitted["lower_bound"].toBool() &&
                     fitted["peak"].toInteger() > 40 * 1048576 && fitted["basis"].toString().contains("its weights"),
                 qPrintable(after.out));
    }

    // --need forecast: the earlier runs beside OUT give the need, fitted along the "mb" param;
    // with none it says so and runs without one.
    void needForecastComesFromTheEarlierRuns() {
        const QString file = dir_.filePath("sized.json");
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QStringLiteral("{\"name\": \"sized\", \"params\": {\"mb\": \"40\"}, \"trace\": \"{trace}\", "
                                 "\"command\": [\"python3\", \"%1\", \"--image\", \"{input}\", \"--out\", "
                                 "\"{output}\", \"--trace\", \"{trace}\", \"--stage-seconds\", \"0.3\", "
                                 "\"--stages\", \"shape:{mb}\"]}")
                      .arg(kFakePort)
                      .toUtf8());
        out.close();
        QDir(dir_.path()).mkpath("need");
        const auto run = [&](const QString& name, const QStringList& more) {
            return stageload(QStringList{"run", picture(), "-o", dir_.filePath("need/" + name + ".glb"), "--generator",
                                         file, "--wait-free", "0"} + more);
        };
        Result first = run("first", {"--need", "forecast", "--param", "mb=20"});
        QCOMPARE(first.code, 0);
        QVERIFY2(first.err.contains("no earlier run of generator:sized"), qPrintable(first.err));
        QCOMPARE(run("second", {"--param", "mb=80"}).code, 0);
        const Result third = run("third", {"--need", "forecast", "--param", "mb=50"});
        QCOMPARE(third.code, 0);
        QVERIFY2(third.err.contains("[guard] need ") && third.err.contains("from 2 earlier runs"),
                 qPrintable(third.err));

        // `stageload forecast` judges from the same runs: a run like them fits; one a million
        // times larger does not, and names how much to free.
        const auto forecast = [&](const QString& mb, const QStringList& more) {
            return stageload(QStringList{"forecast", picture(), "--generator", file, "--param", "mb=" + mb,
                                         "--history", dir_.filePath("need")} + more);
        };
        const Result fits = forecast("50", {});
        QCOMPARE(fits.code, 0);
        QVERIFY2(fits.out.contains("from 3 earlier runs") && fits.out.contains("\nfits: needs about "),
                 qPrintable(fits.out));
        // Under a stop level no peak stays above, the guard will stop it, and says what lets
        // it through; 0 judges by memory alone; a level that is not a percentage is refused.
        const Result stopped = forecast("50", {"--kill-free", "99.9"});
        QCOMPARE(stopped.code, 0);
        QVERIFY2(stopped.out.contains("\nthe guard will stop it in shape: about ") &&
                     stopped.out.contains("< --kill-free 99.9%: set --kill-free to "),
                 qPrintable(stopped.out));
        QVERIFY2(forecast("50", {"--kill-free", "0"}).out.contains("\nfits: needs about "), "--kill-free 0");
        const Result bad = forecast("50", {"--kill-free", "150"});
        QVERIFY2(bad.code != 0 && bad.err.contains("--kill-free"), qPrintable(bad.err));
        const Result huge = forecast("50000000", {"--json"});
        QCOMPARE(huge.code, 0);
        const auto verdict = QJsonDocument::fromJson(huge.out.toUtf8()).object().value("verdict").toObject();
        QCOMPARE(verdict.value("fit").toString(), QString("will not fit"));
        QVERIFY2(verdict.value("text").toString().startsWith("will not fit: needs about ") &&
                     verdict.value("text").toString().contains(": free about "),
                 qPrintable(huge.out));
        QVERIFY(verdict.value("need_with_margin").toDouble() > verdict.value("need").toDouble());
    }

    void aGeneratorRunKeepsItsMeshAndPrintsItsStages() {
        const QString out = dir_.filePath("fake.glb");
        const auto r = stageload({"run", picture(), "-o", out, "--generator",
                                  fakePort("works", {"--stages", "preprocess:20,shape:40,export:10",
                                                     "--child-stage", "shape"}),
                                  "--wait-free", "0", "--poll", "0.2"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(testfile::read(out).startsWith("glTF"));
        for (const char* stage : {"preprocess", "shape", "export"})
            QVERIFY2(r.out.contains(stage), qPrintable(r.out));
        QVERIFY2(r.err.contains("[stage] shape"), qPrintable(r.err));
        QVERIFY(QFile::exists(dir_.filePath("fake.run/trace.jsonl")));
        QVERIFY(QFile::exists(dir_.filePath("fake.run/command.log")));
    }

    void aRunawayIsStoppedWithExit3() {
        // Available memory may fall at most 10 % of the machine's memory below 100 % (2.4 GiB
        // of 24 GiB) before the guard stops the group.
        const auto r = stageload({"run", picture(), "-o", dir_.filePath("runaway.glb"), "--generator",
                                  fakePort("runaway", {"--stages", "a:10,grow:10,b:10", "--runaway",
                                                       "--ignore-sigterm"}),
                                  "--wait-free", "0", "--poll", "0.2", "--kill-free", "90"});
        // On a machine with less than 90 % free, kill-free 90 trips at once: still exit 3.
        QCOMPARE(r.code, 3);
        QVERIFY2(r.err.contains("stopped by the guard"), qPrintable(r.err));
        QVERIFY(!QFile::exists(dir_.filePath("runaway.glb")));
    }

    void badCasesSayWhatHappened_data() {
        QTest::addColumn<QStringList>("flags");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("message");
        QTest::newRow("exit 5") << QStringList{"--stages", "a:5", "--exit-code", "5"} << 5
                                << "failing on purpose";
        QTest::newRow("no output") << QStringList{"--stages", "a:5", "--no-output"} << 1
                                   << "wrote no mesh";
        QTest::newRow("bad output") << QStringList{"--stages", "a:5", "--bad-output"} << 1
                                    << "does not read as a mesh";
        QTest::newRow("garbage trace") << QStringList{"--stages", "a:5,b:5", "--trace-garbage"} << 0
                                       << "not trace lines";
    }

    void badCasesSayWhatHappened() {
        QFETCH(QStringList, flags);
        QFETCH(int, code);
        QFETCH(QString, message);
        const QString tag = QString::fromLatin1(QTest::currentDataTag()).replace(' ', '_');
        const auto r = stageload({"run", picture(), "-o", dir_.filePath(tag + ".glb"), "--generator",
                                  fakePort(tag, flags), "--wait-free", "0"});
        QCOMPARE(r.code, code);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
    }

    void aLostTraceIsSaidAndExits73() {
        const QString out = dir_.filePath("lost.glb");
        const auto r = stageload({"run", picture(), "-o", out, "--generator",
                                  fakePort("lost", {"--stages", "a:5"}), "--wait-free", "0",
                                  "--trace", "/dev/full"});
        QCOMPARE(r.code, 73);
        QVERIFY2(r.err.contains("could not be written to /dev/full"), qPrintable(r.err));
        QVERIFY(QFile::exists(out));  // the mesh is kept all the same
    }

    void badDefinitionsAndFlagsAreUsageErrors() {
        QFile bad(dir_.filePath("bad.json"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("{\"name\": \"bad\", \"command\": [\"x\", \"{nope}\"]}");
        bad.close();
        auto r = stageload({"run", picture(), "-o", dir_.filePath("x.glb"), "--generator", bad.fileName()});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("bad.json") && r.err.contains("{nope}"), qPrintable(r.err));

        // A generator's own flags without one (the guard's go with the built-in run too).
        r = stageload({"run", picture(), "-o", dir_.filePath("x.glb"), "--param", "steps=2"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--param and --run-dir go with --generator"), qPrintable(r.err));
        r = stageload({"run", picture(), "-o", dir_.filePath("x.glb"), "--poll", "0"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("zero poll"), qPrintable(r.err));
        QVERIFY(!QFile::exists(dir_.filePath("x.glb")));

        QFile missing(dir_.filePath("missing.json"));
        QVERIFY(missing.open(QIODevice::WriteOnly));
        missing.write("{\"name\": \"missing\", \"command\": [\"/nonexistent/port\", \"{input}\"]}");
        missing.close();
        r = stageload({"run", picture(), "-o", dir_.filePath("x.glb"), "--generator",
                       missing.fileName(), "--wait-free", "0"});
        QCOMPARE(r.code, 127);
        // The reason is in the job's own message (what the app's dialog shows), not only in the
        // guard's log lines.
        const auto lines = r.err.split(QLatin1Char('\n'));
        const auto error = std::find_if(lines.begin(), lines.end(),
                                        [](const QString& l) { return l.startsWith("stageload: error:"); });
        QVERIFY2(error != lines.end(), qPrintable(r.err));
        QVERIFY2(error->contains("could not start: ") && error->contains("No such file"), qPrintable(*error));
    }

    void theBuiltinPipelineAsAChildWritesTheSameBytes() {
        const QString direct = dir_.filePath("direct.glb"), child = dir_.filePath("child.glb");
        auto r = stageload({"run", picture(), "-o", direct, "--seed", "3", "--texture-size", "1024"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = stageload({"run", picture(), "-o", child, "--seed", "3", "--texture-size", "1024",
                       "--generator", kGenerators + "/stageload-character.json", "--wait-free", "0"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(!testfile::read(direct).isEmpty());
        QVERIFY(testfile::read(direct) == testfile::read(child));
        QVERIFY2(r.out.contains("texture"), qPrintable(r.out));  // stages from its trace
    }
};

QTEST_GUILESS_MAIN(TestCliGenerator)
#include "test_cli_generator.moc"
